// The rules of each backend kind (selection_steps.h): what accelerator it needs and how a
// build of it covers the host's GPUs. A new kind of core/backend_kinds.def is one row of
// kRules and its two functions; the static_assert below fails when a row is missing.
#include <algorithm>
#include <array>

#include "installer/select/selection_steps.h"

namespace torchdex::installer::select_steps {
namespace {

using core::BackendKind;
using core::ComputeCapability;
using core::DriverVersion;

std::string JoinCapabilities(const std::vector<ComputeCapability>& items) {
  std::string out;
  for (const ComputeCapability& cc : items) {
    // Appended piece by piece: g++ 12 warns (-Wrestrict, a false positive) on "x" + string.
    if (!out.empty()) out.push_back(' ');
    out.append(cc.ToString());
  }
  return out;
}

std::string OsTitle(core::TargetOs column) { return column == core::TargetOs::kWindows ? "Windows" : "Linux"; }

bool AnyCapabilityKnown(const std::vector<NvidiaGpu>& gpus) {
  return std::any_of(gpus.begin(), gpus.end(),
                     [](const NvidiaGpu& g) { return g.compute_capability.has_value(); });
}

// Whether a GPU is covered by a build, and how; the reason when it is not.
struct Coverage {
  bool covered = false;
  std::string how;
};

Coverage CudaCoverage(const std::optional<ComputeCapability>& gpu, const ArchView& arch,
                      const Trial& trial) {
  if (!gpu) return {true, "compute capability unknown, not checked"};
  // A cubin runs on the same major with an equal or higher minor (6.0 covers 6.1), never on an
  // integrated GPU but its own.
  if (const std::optional<ComputeCapability> best = BestCubin(arch, *gpu, trial.limits.integrated)) {
    return {true, gpu->Sm() + " by cubin " + best->Sm()};
  }
  if (arch.ptx && *gpu >= *arch.ptx) {
    // PTX from this toolkit is JIT-compiled by the driver: only a driver at least as new as
    // the toolkit's own can read it (CUDA_ERROR_UNSUPPORTED_PTX_VERSION otherwise).
    if (!trial.release_driver || trial.driver >= *trial.release_driver) {
      return {true, gpu->Sm() + " by PTX " + arch.ptx->Sm() + " (JIT)"};
    }
    return {false, "GPU " + gpu->Sm() + " would need this build's PTX (" + arch.ptx->Sm() +
                       "), which driver " + trial.driver.ToString() + " cannot compile (needs " +
                       trial.release_driver->ToString() + " or newer)"};
  }
  const std::vector<ComputeCapability>& integrated = trial.limits.integrated;
  std::string why = "GPU " + gpu->Sm() + " is not in this build's arch list (" + JoinCapabilities(arch.cubins) +
                    (arch.ptx ? " +PTX " + arch.ptx->ToString() : "") + ")";
  if (std::find(integrated.begin(), integrated.end(), *gpu) != integrated.end()) {
    why += ": " + gpu->Sm() + " is an integrated (Tegra) GPU, which runs only its own cubins";
  }
  return {false, why};
}

// --- step 1: the accelerator each kind needs ---------------------------------------------

void NeedsNothing(const SelectionContext&, const BackendView&, Trial&) {}

// Why the host has no NVIDIA GPU this backend could use; empty when it has.
std::string MissingNvidiaGpu(const SelectionContext& ctx) {
  const HostFacts& facts = ctx.facts;
  if (facts.jetson) {
    return "Jetson (L4T " + facts.jetson->l4t +
           "): desktop CUDA wheels do not run on Tegra (their cubins exclude "
           "integrated GPUs); use NVIDIA's Jetson wheels: "
           "https://docs.nvidia.com/deeplearning/frameworks/"
           "install-pytorch-jetson-platform/";
  }
  if (!facts.nvidia) return "no NVIDIA GPU found";
  if (!facts.nvidia->devices_exposed) {
    return "the NVIDIA driver is loaded but no device is exposed here (" +
           facts.nvidia->devices_exposed_source + "): a container started without GPUs";
  }
  if (ctx.gpus.empty()) {
    return facts.nvidia->gpus.empty() ? "the NVIDIA driver is present but no NVIDIA GPU was found"
                                      : "no visible NVIDIA GPU (CUDA_VISIBLE_DEVICES hides them all)";
  }
  if (!facts.nvidia->driver_version) return "the NVIDIA driver version is unknown";
  return "";
}

void NeedsNvidiaDriver(const SelectionContext& ctx, const BackendView& backend, Trial& trial) {
  std::vector<std::string>& reasons = trial.rejection.reasons;
  if (std::string missing = MissingNvidiaGpu(ctx); !missing.empty()) {
    reasons.push_back(std::move(missing));
    return;
  }
  trial.driver = *ctx.facts.nvidia->driver_version;
  const std::optional<DriverVersion> floor = ctx.catalogue.DriverFloor(backend.name, ctx.column);
  if (!floor) {
    reasons.push_back("no driver floor known for CUDA " + backend.toolkit);
    return;
  }
  if (trial.driver < *floor) {
    reasons.push_back("driver " + trial.driver.ToString() + " is below " + floor->ToString() +
                      ", the minimum for CUDA " + backend.toolkit + " builds on " + OsTitle(ctx.column));
    return;
  }
  trial.release_driver = ctx.catalogue.ReleaseDriver(backend.name, ctx.column);
  trial.limits = ctx.catalogue.Limits(backend.name);
  trial.candidate.notes.push_back("driver " + trial.driver.ToString() + " >= " + floor->ToString() +
                                  " (" + OsTitle(ctx.column) + ")");
}

void NeedsAmdGpu(const SelectionContext& ctx, const BackendView&, Trial& trial) {
  if (ctx.target.os != core::TargetOs::kLinux) {
    trial.rejection.reasons.push_back("ROCm builds are for Linux only");
  } else if (!ctx.facts.amd || ctx.facts.amd->gfx.empty()) {
    trial.rejection.reasons.push_back("no AMD GPU found");
  }
}

void NeedsIntelXpu(const SelectionContext& ctx, const BackendView&, Trial& trial) {
  const std::optional<IntelFacts>& intel = ctx.facts.intel;
  if (intel && !intel->xpu_devices.empty()) return;
  std::string why = "no Intel GPU that PyTorch XPU supports";
  if (intel && !intel->other_gpus.empty()) {
    const IntelGpu& g = intel->other_gpus.front();
    why += " (" + g.pci_id + " " + g.name + " is not an XPU)";
  }
  trial.rejection.reasons.push_back(why);
}

void NeverQualifies(const SelectionContext&, const BackendView&, Trial& trial) {
  trial.rejection.reasons.push_back("unknown kind of backend");
}

// --- step 3: whether one release's build covers the GPUs ---------------------------------

VersionCoverage CoversAll(const SelectionContext&, const BackendView&, const Trial&,
                          const std::string&) {
  return {};
}

// The first GPU the toolkit cannot build for at all, whatever the build's list (a CUDA 12.1
// build has no sm_120 code): said even where the list is not known.
std::string ToolkitGapOfHost(const SelectionContext& ctx, const BackendView& backend, const Trial& trial,
                             const std::optional<ComputeCapability>& ptx, const std::string& torch_version) {
  for (const NvidiaGpu& gpu : ctx.gpus) {
    if (!gpu.compute_capability) continue;
    std::string gap = ToolkitGap(backend.toolkit, *gpu.compute_capability, trial.limits, ptx);
    if (gap.empty()) continue;
    const bool too_new = *gpu.compute_capability > trial.limits.toolkit_targets.back();
    return gap + " (" + ctx.primary + " " + torch_version + ")" +
           ctx.toolkits.Hint(*gpu.compute_capability, too_new);
  }
  return "";
}

VersionCoverage CudaBuildCovers(const SelectionContext& ctx, const BackendView& backend,
                                const Trial& trial, const std::string& torch_version) {
  VersionCoverage out;
  const std::optional<ArchView> arch = ctx.catalogue.Arch(backend.name, torch_version, ctx.target.arch);
  out.gap = ToolkitGapOfHost(ctx, backend, trial, arch ? arch->ptx : std::nullopt, torch_version);
  if (!out.gap.empty()) {
    out.covered = false;
    return out;
  }
  if (!arch) {
    // CUDA builds of every era covered the mainstream archs: usable, but ranked after the
    // builds whose list is known to cover these GPUs (nothing to verify when no GPU has a
    // known compute capability).
    out.verified = !AnyCapabilityKnown(ctx.gpus);
    out.how.push_back("arch list of " + ctx.primary + " " + torch_version + " (" + ctx.target.arch +
                      ") unknown, GPUs checked against " + ToolkitName(backend.toolkit) + " only");
    return out;
  }
  for (const NvidiaGpu& gpu : ctx.gpus) {
    Coverage c = CudaCoverage(gpu.compute_capability, *arch, trial);
    if (!c.covered) {
      out.covered = false;
      out.gap = c.how + " for " + ctx.primary + " " + torch_version;
      return out;
    }
    out.how.push_back(std::move(c.how));
  }
  return out;
}

VersionCoverage RocmBuildCovers(const SelectionContext& ctx, const BackendView& backend,
                                const Trial&, const std::string& torch_version) {
  VersionCoverage out;
  const std::vector<std::string>& host_gfx = ctx.facts.amd->gfx;
  const std::optional<ArchView> arch = ctx.catalogue.Arch(backend.name, torch_version, ctx.target.arch);
  if (!arch) {
    // ROCm support is sparse: a gfx target not known to be built gets no kernels.
    out.covered = false;
    out.gap = "the gfx list of " + backend.name + " for " + ctx.primary + " " + torch_version +
              " is not known, so " + Join(host_gfx, " ") + " cannot be checked";
    return out;
  }
  for (const std::string& gfx : host_gfx) {
    if (std::find(arch->gfx.begin(), arch->gfx.end(), gfx) == arch->gfx.end()) {
      out.covered = false;
      out.gap = "GPU " + gfx + " is not in this build's gfx list (" + Join(arch->gfx, " ") + ") for " +
                ctx.primary + " " + torch_version;
      return out;
    }
    out.how.push_back(gfx + " built");
  }
  return out;
}

// One row per kind, in the order of core/backend_kinds.def.
constexpr std::array kRules = {
    KindRules{BackendKind::kCpu, &NeedsNothing, &CoversAll},
    KindRules{BackendKind::kCuda, &NeedsNvidiaDriver, &CudaBuildCovers},
    KindRules{BackendKind::kRocm, &NeedsAmdGpu, &RocmBuildCovers},
    KindRules{BackendKind::kXpu, &NeedsIntelXpu, &CoversAll},
    KindRules{BackendKind::kOther, &NeverQualifies, &CoversAll},
};

constexpr bool EveryKindHasItsRow() {
  if (kRules.size() != std::size(core::kBackendKinds)) return false;
  for (std::size_t i = 0; i < kRules.size(); ++i) {
    if (kRules[i].kind != core::kBackendKinds[i]) return false;
  }
  return true;
}
static_assert(EveryKindHasItsRow(), "kRules needs one row per kind of core/backend_kinds.def, in its order");

}  // namespace

const KindRules& RulesFor(BackendKind kind) { return kRules[static_cast<std::size_t>(kind)]; }

}  // namespace torchdex::installer::select_steps
