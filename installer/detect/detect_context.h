// Internal to detection: what every source needs while it runs (the seams, the overrides, the
// facts being filled in) and the bounded helpers they share.
#ifndef TORCHDEX_INSTALLER_DETECT_DETECT_CONTEXT_H_
#define TORCHDEX_INSTALLER_DETECT_DETECT_CONTEXT_H_

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "installer/detect/detect.h"
#include "installer/detect/env_overrides.h"

namespace torchdex::installer {

class DetectContext {
 public:
  DetectContext(const DetectOptions& options, const DetectDeps& deps, const Overrides& overrides,
                HostFacts& facts)
      : options(options), deps(deps), overrides(overrides), facts(facts) {}

  const DetectOptions& options;
  const DetectDeps& deps;
  const Overrides& overrides;
  HostFacts& facts;

  const FileReader& files() const { return deps.files; }
  void Warn(std::string message) { facts.warnings.push_back(std::move(message)); }
  int64_t Now() const { return deps.clock.NowMicros(); }
  void AddTiming(std::string name, int64_t start) {
    facts.timings_us.emplace_back(std::move(name), Now() - start);
  }

  // A small text file: nullopt when absent. A file that is unreadable, too large or not text
  // gives a warning naming it, and nullopt.
  std::optional<std::string> ReadText(std::string_view host_path, size_t limit = 64 * 1024);

  // The first executable named `name` in the PATH of the environment and then in `extra_dirs`,
  // under the root; returns the host path.
  std::optional<std::string> FindTool(std::string_view name,
                                      const std::vector<std::string_view>& extra_dirs) const;

  // A host path as this machine sees it, and back ("" root: unchanged).
  std::string ToHostPath(std::string_view local_path) const;

  // Runs a tool (argv[0] is a host path) or a probe body in a child, records a ProbeRecord and,
  // on a hang or a crash, a warning.
  ProcessResult RunTool(std::string what, std::vector<std::string> argv);
  ProcessResult RunProbe(std::string what, std::string shown_path,
                         const std::function<std::string()>& body);
  // Sets the outcome of the last ProbeRecord (once the caller has read the answer).
  void SetProbeOutcome(std::string outcome);

 private:
  void Record(const std::string& what, const std::string& path, const ProcessResult& result);
};

// Implemented once per platform: platform_linux.cc, platform_macos.cc, platform_windows.cc.
// Fills os, arch and the vendor facts; detect.cc applies overrides and explanations after.
void DetectPlatform(DetectContext& context);

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_DETECT_DETECT_CONTEXT_H_
