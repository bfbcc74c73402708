// Backend selection (docs/selection.md): a pure function from host facts, a target and the
// requested routed requirements to the backend to install from, with the reasons for every
// backend it turned down. No I/O: the catalogue comes in through CatalogueView. Decide
// (decide.h) is its one caller.
#ifndef TORCHDEX_INSTALLER_SELECT_SELECTION_H_
#define TORCHDEX_INSTALLER_SELECT_SELECTION_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalogue/catalogue.h"
#include "core/accelerator.h"
#include "core/requirement.h"
#include "core/tags.h"
#include "installer/detect/host_facts.h"

namespace torchdex::installer {

struct BackendView {
  std::string name;  // "cu128"
  core::BackendKind kind = core::BackendKind::kOther;
  std::string toolkit;  // "12.8", "6.3"; empty for cpu and xpu
  /// A PEP 825 variant index (kind "variant" in the catalogue): its wheels are told apart by
  /// variant labels, so it is chosen by `--torch-backend variant` only, never automatically.
  bool variant_index = false;
};

/// What a build of a backend contains for one torch release and CPU arch.
struct ArchView {
  std::vector<core::ComputeCapability> cubins;  // CUDA: the cubins' compute capabilities
  std::optional<core::ComputeCapability> ptx;   // CUDA: the PTX arch embedded, if any
  std::vector<std::string> gfx;                 // ROCm: gfx targets
};

/// What CUDA itself allows, whatever a build's list says (data/cuda-archs.json).
struct CudaLimits {
  /// The real architectures the backend's toolkit can build; empty: not known.
  std::vector<core::ComputeCapability> toolkit_targets;
  /// Integrated (Tegra) GPUs, which run only their own cubins (torch's DEVICE_REQUIREMENT).
  std::vector<core::ComputeCapability> integrated;
};

/// Whether a cubin for `code` runs on `gpu`: same major, equal or higher minor, and not an
/// integrated GPU unless it is the same architecture (8.0 and 8.6 cubins do not run on 8.7).
bool CubinRunsOn(const core::ComputeCapability& code, const core::ComputeCapability& gpu,
                 const std::vector<core::ComputeCapability>& integrated);

/// The cubin of a build that `gpu` runs: the closest one, which the CUDA runtime loads (8.6
/// rather than 8.0 for an 8.9 GPU); nullopt when none runs.
std::optional<core::ComputeCapability> BestCubin(const ArchView& arch, const core::ComputeCapability& gpu,
                                                 const std::vector<core::ComputeCapability>& integrated);

/// Whether a build runs on `gpu`, by a cubin or by its PTX (an arch at most the GPU's, which a
/// driver at least as new as the toolkit's own JIT-compiles: that driver is checked apart).
bool BuildRunsOn(const ArchView& arch, const core::ComputeCapability& gpu,
                 const std::vector<core::ComputeCapability>& integrated);

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
  /// compatibility floor of its toolkit's major), per target OS; nullopt when unknown.
  virtual std::optional<core::DriverVersion> DriverFloor(const std::string& backend,
                                                         core::TargetOs os) const = 0;
  /// The driver the backend's toolkit shipped with (needed to JIT its PTX); nullopt when unknown.
  virtual std::optional<core::DriverVersion> ReleaseDriver(const std::string& backend,
                                                           core::TargetOs os) const = 0;
  /// What the backend's CUDA toolkit can build, and the integrated GPUs; empty: not known.
  virtual CudaLimits Limits(const std::string& /*backend*/) const { return {}; }
  /// Whether the backend lists `project` but its page was missing when the catalogue was
  /// crawled: what it offers is unknown, not absent.
  virtual bool NotCrawled(const std::string& /*project*/, const std::string& /*backend*/) const {
    return false;
  }
  /// The day the catalogue describes ("2026-03-15"); empty when not known.
  virtual std::string AsOf() const { return ""; }
  /// A variant index's variants.json of each version of `project` (PEP 825), as the catalogue
  /// holds them; nullptr when it holds none for that backend.
  virtual const std::map<std::string, catalogue::CatalogueVariants>* Variants(
      const std::string& /*project*/, const std::string& /*backend*/) const {
    return nullptr;
  }
};

struct SelectionTarget {
  core::TargetOs os = core::TargetOs::kLinux;
  std::string arch = "x86_64";  // x86_64, aarch64, arm64
  /// The tags the target interpreter accepts; empty: the Python version is not known, and only
  /// the platform part of wheel tags is checked.
  std::vector<core::Tag> supported_tags;
  std::string python_description;  // "CPython 3.12", "any Python"
  std::string description;         // "CPython 3.12 on linux x86_64 (--platform ...)"
};

struct SelectionRequest {
  std::vector<core::Requirement> routed;  // routed requirements; empty means "torch"
  std::string primary = "torch";          // ranks the backends by its version
  std::string channel = "stable";         // the catalogue's channel to choose from
  /// Set: the user named this backend (`named_by` says how): the same algorithm over that one
  /// backend, without the hardware checks: only what it offers is checked.
  std::optional<std::string> named;
  std::string named_by;
  /// false: the catalogue does not hold the asked channel, whose versions are checked on the
  /// live index when installing; a named backend is then not refused for its versions.
  bool versions_known = true;
};

struct Candidate {
  std::string backend;
  core::BackendKind kind = core::BackendKind::kCpu;
  std::string primary_version;  // the highest version of the primary package that fits
  bool arch_verified = true;    // false: the build's arch list is not known, GPUs not checked
  std::string unverified;       // when not verified: what is not known ("arch list of torch 2.7.1")
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
  std::vector<std::string> warnings;       // what the user must know about the choice
  bool default_index = false;              // macOS: the default index serves the right wheels
};

/// Why the toolkit of a CUDA backend cannot run `gpu` ("CUDA 12.1 cannot build code for sm_120
/// ..."), or empty when it can (or when the toolkit's architectures are not known). `ptx` is the
/// build's PTX arch, if it has one: PTX JIT-compiles for later GPUs, so a toolkit older than the
/// GPU is no reason then.
std::string ToolkitGap(const std::string& toolkit, const core::ComputeCapability& gpu,
                       const CudaLimits& limits, const std::optional<core::ComputeCapability>& ptx);

Selection SelectBackend(const HostFacts& facts, const SelectionTarget& target,
                        const SelectionRequest& request, const CatalogueView& catalogue);

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_SELECT_SELECTION_H_
