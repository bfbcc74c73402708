// Backend selection (DESIGN.md "Selection"): a pure function from host facts, a target and
// the requested routed requirements to the backend to install from, with the reasons for every
// backend it turned down. No I/O: the catalogue comes in through CatalogueView.
#ifndef TORCHDEX_INSTALLER_SELECT_SELECTION_H_
#define TORCHDEX_INSTALLER_SELECT_SELECTION_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/requirement.h"
#include "core/tags.h"
#include "installer/detect/host_facts.h"

namespace torchdex::installer {

enum class AcceleratorKind { kCpu, kCuda, kRocm, kXpu, kOther };

/// The catalogue's word for a kind ("cuda"), as overrides and `select --json` spell it.
std::string_view AcceleratorKindWord(AcceleratorKind kind);
/// The inverse of AcceleratorKindWord; a word it does not know is kOther.
AcceleratorKind ParseAcceleratorKind(std::string_view word);

struct BackendView {
  std::string name;  // "cu128"
  AcceleratorKind kind = AcceleratorKind::kOther;
  std::string toolkit;  // "12.8", "6.3"; empty for cpu and xpu
};

/// What a build of a backend contains for one torch release and CPU arch.
struct ArchView {
  std::vector<std::string> cubins;  // CUDA: compute capabilities as "8.6"; ROCm: gfx names
  std::string ptx;                  // CUDA: the PTX arch embedded ("12.0"), empty when none
};

/// The catalogue as selection sees it: what the compiled table (or an override catalogue)
/// answers.
class CatalogueView {
 public:
  virtual ~CatalogueView() = default;
  virtual std::vector<BackendView> Backends(const std::string& channel) const = 0;
  /// Every version the backend offers of `project` (normal form, with local label).
  virtual std::vector<std::string> Versions(const std::string& project,
                                            const std::string& backend) const = 0;
  /// Whether `project==version` on `backend` has a wheel for one of `supported`.
  virtual bool HasWheelFor(const std::string& project, const std::string& backend,
                           const std::string& version,
                           const std::vector<core::Tag>& supported) const = 0;
  /// What the build contains; nullopt when the catalogue does not know (then it is not checked).
  virtual std::optional<ArchView> Arch(const std::string& backend, const std::string& torch_version,
                                       const std::string& cpu_arch) const = 0;
  /// The minimum driver that runs the CUDA builds of `backend` at all (NVIDIA's minor-version
  /// compatibility floor of its toolkit's major), per target OS ("linux", "windows"); "" when
  /// unknown.
  virtual std::string DriverFloor(const std::string& backend, const std::string& os) const = 0;
  /// The driver the backend's toolkit shipped with (needed to JIT its PTX); "" when unknown.
  virtual std::string ReleaseDriver(const std::string& backend, const std::string& os) const = 0;
};

struct SelectionTarget {
  std::string os = "linux";    // linux, windows, macos
  std::string arch = "x86_64";  // x86_64, aarch64, arm64
  /// The tags the target interpreter accepts; empty: the Python version is not known, and only
  /// the platform part of wheel tags is checked.
  std::vector<core::Tag> supported_tags;
  std::string python_description;  // "CPython 3.12", "any Python"
};

struct SelectionRequest {
  std::vector<core::Requirement> routed;  // routed requirements; empty means "torch"
  std::string primary = "torch";          // ranks the backends by its version
  std::string channel = "stable";
};

struct Candidate {
  std::string backend;
  AcceleratorKind kind = AcceleratorKind::kCpu;
  std::string primary_version;  // the highest version of the primary package that fits
  bool arch_verified = true;    // false: the build's arch list is not known, GPUs not checked
  std::vector<std::string> notes;  // why it fits ("driver 550.144.03 >= 525.60.13 (Linux)")
};

struct Rejection {
  std::string backend;
  std::vector<std::string> reasons;
};

struct Selection {
  std::optional<Candidate> chosen;        // nullopt: nothing offers what was asked
  std::vector<Candidate> candidates;       // every backend that qualifies, best first
  std::vector<Rejection> rejected;         // the others, in catalogue order, with reasons
  std::vector<std::string> explanation;    // the decision in sentences, for --explain
  bool default_index = false;              // macOS: the default index serves the right wheels
};

Selection SelectBackend(const HostFacts& facts, const SelectionTarget& target,
                        const SelectionRequest& request, const CatalogueView& catalogue);

/// Compares dotted driver versions numerically ("550.144.03" < "560.28.03"); <0, 0, >0.
int CompareDriverVersions(const std::string& a, const std::string& b);

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_SELECT_SELECTION_H_
