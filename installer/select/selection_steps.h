// The parts of SelectBackend (selection.cc), for its two files: what one selection knows
// (SelectionContext), what one backend's trial carries (Trial), and the rules of each backend
// kind (KindRules, kind_rules.cc), one row per row of core/backend_kinds.def. Internal to
// installer/select; the interface is selection.h.
#ifndef TORCHDEX_INSTALLER_SELECT_SELECTION_STEPS_H_
#define TORCHDEX_INSTALLER_SELECT_SELECTION_STEPS_H_

#include <optional>
#include <string>
#include <vector>

#include "core/text.h"
#include "core/version.h"
#include "installer/select/selection.h"

namespace torchdex::installer::select_steps {

struct Requested {
  core::Requirement requirement;
  std::string name;  // normalised
};

/// The CUDA backends' toolkits, for the hint after a GPU no toolkit of a backend builds for
/// ("; sm_120 needs CUDA 12.8 or newer (cu128)"); gathered on the first call.
class ToolkitFinder {
 public:
  ToolkitFinder(const std::vector<BackendView>& backends, const CatalogueView& catalogue)
      : backends_(backends), catalogue_(catalogue) {}
  /// The oldest CUDA backend whose toolkit builds for `gpu` when it is too new for the one that
  /// was turned down, else the newest that still does; empty when none does.
  std::string Hint(const core::ComputeCapability& gpu, bool too_new) const;

 private:
  struct Toolkit {
    std::string name;
    core::Version version;
    CudaLimits limits;
  };
  const std::vector<BackendView>& backends_;
  const CatalogueView& catalogue_;
  mutable std::optional<std::vector<Toolkit>> toolkits_;
};

/// What every backend's trial of one selection shares.
struct SelectionContext {
  SelectionContext(const HostFacts& facts, const SelectionTarget& target,
                   const SelectionRequest& request, const CatalogueView& catalogue);
  SelectionContext(const SelectionContext&) = delete;
  SelectionContext& operator=(const SelectionContext&) = delete;

  const HostFacts& facts;
  const SelectionTarget& target;
  const SelectionRequest& request;
  const CatalogueView& catalogue;
  std::vector<Requested> requested;  // the routed requirements; torch when none
  std::size_t primary_index = 0;     // the requirement of the primary package in `requested`
  std::string primary;               // its normalised name
  std::vector<NvidiaGpu> gpus;       // the visible NVIDIA GPUs
  core::Prereleases prereleases = core::Prereleases::kDefault;
  core::TargetOs column = core::TargetOs::kLinux;  // the driver table's column
  std::vector<BackendView> backends;               // the channel's backends
  ToolkitFinder toolkits;
};

/// One backend on trial: why it is turned down, or the candidate it makes.
struct Trial {
  Rejection rejection;
  Candidate candidate;
  // Set by the CUDA accelerator check, for the coverage of each version.
  core::DriverVersion driver;
  std::optional<core::DriverVersion> release_driver;
  CudaLimits limits;
};

/// Whether one release's build of a backend covers the host's GPUs.
struct VersionCoverage {
  bool covered = true;
  bool verified = true;            // false: covered as far as is known, its arch list is not
  std::vector<std::string> how;    // per GPU, how it is covered ("sm_86 by cubin sm_86")
  std::string gap;                 // when not covered: why
};

/// The rules of one backend kind: step 1 (the accelerator it needs; a reason in
/// trial.rejection when the host lacks it) and step 3 (whether the build of one release of the
/// primary package covers the GPUs).
struct KindRules {
  core::BackendKind kind;
  void (*accelerator)(const SelectionContext&, const BackendView&, Trial&);
  VersionCoverage (*coverage)(const SelectionContext&, const BackendView&, const Trial&,
                              const std::string& torch_version);
};

const KindRules& RulesFor(core::BackendKind kind);

using core::Join;
std::string ToolkitName(const std::string& toolkit);

}  // namespace torchdex::installer::select_steps

#endif  // TORCHDEX_INSTALLER_SELECT_SELECTION_STEPS_H_
