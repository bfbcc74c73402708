// Shared by the installer tests: a temporary root to build hosts in, a deterministic clock, and
// detection run through the real seams (FileReader, PosixProcessRunner).
#ifndef TORCHDEX_TESTS_INSTALLER_TEST_SUPPORT_H_
#define TORCHDEX_TESTS_INSTALLER_TEST_SUPPORT_H_

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "installer/cli/run.h"
#include "installer/platform/clock.h"
#include "installer/detect/detect.h"
#include "installer/detect/report.h"

namespace torchdex::installer::testing {

// Typed facts as text, for comparisons with what a test expects ("" when unknown).
inline std::string Text(const std::optional<core::DriverVersion>& v) { return v ? v->ToString() : ""; }
inline std::string Text(const std::optional<core::ComputeCapability>& v) { return v ? v->ToString() : ""; }
inline std::string Text(const core::DriverVersion& v) { return v.ToString(); }
inline std::string Text(const core::ComputeCapability& v) { return v.ToString(); }

inline const std::filesystem::path kFixtures = TORCHDEX_FIXTURES_DIR;
inline const std::filesystem::path kFakes = TORCHDEX_FAKES_DIR;           // built fake libraries
inline const std::filesystem::path kFakeTools = TORCHDEX_FAKE_TOOLS_DIR;  // fake nvidia-smi scripts

// Advances one microsecond per call: timings are deterministic and never asserted on.
class FakeClock final : public Clock {
 public:
  int64_t NowMicros() const override { return ++now_; }

 private:
  mutable int64_t now_ = 0;
};

// A fresh directory under the system temp directory, removed with everything under it.
class TempRoot {
 public:
  TempRoot() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "torchdex-test-XXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
  }
  ~TempRoot() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempRoot(const TempRoot&) = delete;
  TempRoot& operator=(const TempRoot&) = delete;

  const std::filesystem::path& path() const { return path_; }

  // Writes `contents` at host path `host_path` ("/sys/module/nvidia/version") under the root.
  void Write(const std::string& host_path, const std::string& contents) const {
    const std::filesystem::path file = path_ / host_path.substr(1);
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary | std::ios::trunc) << contents;
  }
  void Link(const std::string& host_path, const std::filesystem::path& target) const {
    const std::filesystem::path file = path_ / host_path.substr(1);
    std::filesystem::create_directories(file.parent_path());
    std::filesystem::remove(file);
    std::filesystem::create_symlink(target, file);
  }
  void CopyFrom(const std::filesystem::path& host_folder) const {
    std::filesystem::copy(host_folder, path_,
                          std::filesystem::copy_options::recursive |
                              std::filesystem::copy_options::copy_symlinks |
                              std::filesystem::copy_options::overwrite_existing);
  }

 private:
  std::filesystem::path path_;
};

inline HostFacts DetectUnder(const std::filesystem::path& root, const Environment& env,
                             std::chrono::milliseconds timeout = std::chrono::milliseconds(5000)) {
  FileReader files(root.string());
  std::unique_ptr<ProcessRunner> runner = MakeSystemProcessRunner();
  FakeClock clock;
  DetectOptions options;
  options.probe_timeout = timeout;
  core::Expected<HostFacts> facts = Detect(options, DetectDeps{files, env, *runner, clock});
  if (!facts) throw std::runtime_error("Detect failed: " + facts.error().message);
  return std::move(*facts);
}

// `torchdex ARGS...` in process, with the real process runner (captured hosts answer through
// their fake tools), `env` as the whole environment (PATH=/usr/bin:/bin unless it says), and
// `fetcher` for HTTP when given.
struct CliResult {
  int code;
  std::string out;
  std::string err;
};
inline CliResult RunTorchdex(const std::vector<std::string>& args, Environment env = {},
                             index::Fetcher* fetcher = nullptr) {
  const std::unique_ptr<ProcessRunner> runner = MakeSystemProcessRunner();
  const SteadyClock clock;
  if (env.count("PATH") == 0) env["PATH"] = "/usr/bin:/bin";
  Deps deps{env, *runner, clock, fetcher};
  std::ostringstream out, err;
  const int code = Main(args, deps, out, err);
  return {code, out.str(), err.str()};
}

inline nlohmann::json ToJson(const HostFacts& facts) {
  return nlohmann::json::parse(HostFactsToJson(facts));
}

inline bool AnyWarningContains(const HostFacts& facts, const std::string& needle) {
  for (const std::string& warning : facts.warnings) {
    if (warning.find(needle) != std::string::npos) return true;
  }
  return false;
}

}  // namespace torchdex::installer::testing

#endif  // TORCHDEX_TESTS_INSTALLER_TEST_SUPPORT_H_
