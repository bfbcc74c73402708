#include "installer/select/selection.h"

#include <algorithm>
#include <map>

#include "core/name.h"
#include "core/specifier.h"
#include "core/version.h"

namespace torchdex::installer {
namespace {

using core::BackendKind;
using core::ComputeCapability;
using core::DriverVersion;

std::string Join(const std::vector<std::string>& items, const std::string& sep = " ") {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : sep) + s;
  return out;
}

std::string Join(const std::vector<ComputeCapability>& items) {
  std::string out;
  for (const ComputeCapability& cc : items) {
    // Appended piece by piece: g++ 12 warns (-Wrestrict, a false positive) on "x" + string.
    if (!out.empty()) out.push_back(' ');
    out.append(cc.ToString());
  }
  return out;
}

core::TargetOs OsColumn(const HostFacts& facts, const SelectionTarget& target) {
  // WSL reports the Windows driver: its numbers are compared with the Windows column.
  if (target.os == core::TargetOs::kWindows) return core::TargetOs::kWindows;
  if (facts.nvidia && facts.nvidia->driver_table == DriverTable::kWindows) return core::TargetOs::kWindows;
  return core::TargetOs::kLinux;
}

std::string OsTitle(core::TargetOs column) { return column == core::TargetOs::kWindows ? "Windows" : "Linux"; }

// Whether a GPU is covered by a build, and how; the reason when it is not.
struct Coverage {
  bool covered = false;
  std::string how;
};

Coverage CudaCoverage(const std::optional<ComputeCapability>& gpu, const ArchView& arch,
                      const DriverVersion& driver,
                      const std::optional<DriverVersion>& release_driver,
                      const CudaLimits& limits) {
  if (!gpu) return {true, "compute capability unknown, not checked"};
  // A cubin runs on the same major with an equal or higher minor (6.0 covers 6.1), never on an
  // integrated GPU but its own; the closest one is what the CUDA runtime loads (8.6 rather
  // than 8.0 for an 8.9 GPU).
  std::optional<ComputeCapability> best;
  for (const ComputeCapability& cubin : arch.cubins) {
    if (CubinRunsOn(cubin, *gpu, limits.integrated) && (!best || cubin.minor > best->minor))
      best = cubin;
  }
  if (best) return {true, gpu->Sm() + " by cubin " + best->Sm()};
  if (arch.ptx && *gpu >= *arch.ptx) {
    // PTX from this toolkit is JIT-compiled by the driver: only a driver at least as new as
    // the toolkit's own can read it (CUDA_ERROR_UNSUPPORTED_PTX_VERSION otherwise).
    if (!release_driver || driver >= *release_driver) {
      return {true, gpu->Sm() + " by PTX " + arch.ptx->Sm() + " (JIT)"};
    }
    return {false, "GPU " + gpu->Sm() + " would need this build's PTX (" + arch.ptx->Sm() +
                       "), which driver " + driver.ToString() + " cannot compile (needs " +
                       release_driver->ToString() + " or newer)"};
  }
  std::string why = "GPU " + gpu->Sm() + " is not in this build's arch list (" + Join(arch.cubins) +
                    (arch.ptx ? " +PTX " + arch.ptx->ToString() : "") + ")";
  if (std::find(limits.integrated.begin(), limits.integrated.end(), *gpu) !=
      limits.integrated.end()) {
    why += ": " + gpu->Sm() + " is an integrated (Tegra) GPU, which runs only its own cubins";
  }
  return {false, why};
}

std::string ToolkitName(const std::string& toolkit) { return "CUDA " + toolkit; }

// "torch on rocm7.1 is unknown (not crawled: its page was missing from the catalogue of
// 2026-03-15)"
std::string NotCrawledText(const CatalogueView& catalogue, const std::string& project,
                           const std::string& backend) {
  const std::string as_of = catalogue.AsOf();
  return project + " on " + backend +
         " is unknown (not crawled: its page was missing from the catalogue" +
         (as_of.empty() ? std::string() : " of " + as_of) + ")";
}

struct Requested {
  core::Requirement requirement;
  std::string name;  // normalised
};

// A named backend: the one candidate, checked for what was asked (step 2 alone: the user
// chose the hardware, so nothing of it is checked).
Selection SelectNamed(const SelectionTarget& target, const SelectionRequest& request,
                      const std::vector<Requested>& requested, const std::string& primary,
                      const CatalogueView& catalogue, const std::vector<NvidiaGpu>& gpus) {
  const std::string& name = *request.named;
  Selection s;
  Candidate c{name, BackendKind::kOther, "", true, "", {"named by " + request.named_by}};
  std::string toolkit;
  for (const BackendView& b : catalogue.Backends(request.channel)) {
    if (b.name == name) {
      c.kind = b.kind;
      toolkit = b.toolkit;
    }
  }
  for (const Requested& r : requested) {
    std::optional<core::Version> best;
    for (const std::string& text : catalogue.Versions(r.name, name)) {
      auto v = core::Version::Parse(text);
      if (!v || !r.requirement.specifiers.Contains(*v)) continue;
      if (!catalogue.HasWheelFor(r.name, name, v->ToString(), target.supported_tags)) continue;
      if (!best || *v > *best) best = *v;
    }
    if (!best && catalogue.NotCrawled(r.name, name)) {
      // Not absent, not known: the live index decides when installing.
      s.warnings.push_back(NotCrawledText(catalogue, r.name, name) +
                           ": the live index decides when installing");
      continue;
    }
    if (!best && request.versions_known) {
      s.rejected.push_back({name, {r.requirement.ToString() + " is not offered on " + name + " (named by " +
                                   request.named_by + ") for " + target.description}});
      return s;
    }
    if (best && r.name == primary) c.primary_version = best->ToString();
  }
  if (c.kind == BackendKind::kCuda && !gpus.empty()) {
    // The user chose the backend, not the laws of CUDA: a toolkit that cannot build for a GPU
    // of the host that was described (--root, overrides) is refused with the reason.
    const CudaLimits limits = catalogue.Limits(name);
    std::optional<ComputeCapability> ptx;
    if (!c.primary_version.empty()) {
      const std::string torch_version =
          core::Version::Parse(c.primary_version)->Public().ToString();
      if (auto arch = catalogue.Arch(name, torch_version, target.arch)) {
        ptx = arch->ptx;
      } else if (std::any_of(gpus.begin(), gpus.end(), [](const NvidiaGpu& g) {
                   return g.compute_capability.has_value();
                 })) {
        // Chosen by the user, but what the wheel runs on is not known: said, not only noted.
        s.warnings.push_back("the arch list of " + name + " for " + primary + " " + torch_version +
                             " (" + target.arch + ") is not known: the GPUs are checked against " +
                             ToolkitName(toolkit) + " only");
      }
    }
    for (const NvidiaGpu& gpu : gpus) {
      if (!gpu.compute_capability) continue;
      const std::string gap = ToolkitGap(toolkit, *gpu.compute_capability, limits, ptx);
      if (!gap.empty()) {
        s.rejected.push_back({name, {gap + " (" + name + " named by " + request.named_by + ")"}});
        return s;
      }
    }
  }
  s.chosen = c;
  s.candidates.push_back(c);
  s.explanation.push_back("backend " + name + " named by " + request.named_by +
                          (c.primary_version.empty() ? "" : "; " + primary + " " + c.primary_version));
  return s;
}

}  // namespace

bool CubinRunsOn(const ComputeCapability& code, const ComputeCapability& gpu,
                 const std::vector<ComputeCapability>& integrated) {
  if (code == gpu) return true;
  if (code.major != gpu.major || gpu.minor < code.minor) return false;
  return std::find(integrated.begin(), integrated.end(), gpu) == integrated.end();
}

std::string ToolkitGap(const std::string& toolkit, const ComputeCapability& gpu,
                       const CudaLimits& limits, const std::optional<ComputeCapability>& ptx) {
  if (limits.toolkit_targets.empty()) return "";
  for (const ComputeCapability& t : limits.toolkit_targets) {
    if (CubinRunsOn(t, gpu, limits.integrated)) return "";
  }
  if (ptx && gpu >= *ptx) return "";  // the build's PTX JIT-compiles for it
  const ComputeCapability& oldest = limits.toolkit_targets.front();
  const ComputeCapability& newest = limits.toolkit_targets.back();
  if (gpu < oldest) {
    return ToolkitName(toolkit) + " cannot build code that runs on " + gpu.Sm() +
           ": its oldest architecture is " + oldest.Sm();
  }
  return ToolkitName(toolkit) + " cannot build code that runs on " + gpu.Sm() +
         ": its newest architecture is " + newest.Sm() +
         (ptx ? ", and this build's PTX (" + ptx->Sm() + ") is newer than the GPU"
              : ", and this build has no PTX");
}

Selection SelectBackend(const HostFacts& facts, const SelectionTarget& target,
                        const SelectionRequest& request, const CatalogueView& catalogue) {
  Selection out;
  if (target.os == core::TargetOs::kMacOS) {
    // PyTorch publishes macOS wheels (CPU and MPS) on the default index; no backend applies.
    out.default_index = true;
    out.explanation.push_back(
        "macOS: the default index serves the macOS wheels (CPU and MPS); no backend index applies");
    return out;
  }

  std::vector<Requested> requested;
  for (const core::Requirement& r : request.routed) requested.push_back({r, core::NormalizeName(r.name)});
  if (requested.empty()) {
    core::Requirement primary;
    primary.name = request.primary;
    requested.push_back({primary, core::NormalizeName(request.primary)});
  }
  const std::string primary = core::NormalizeName(request.primary);
  const Requested* primary_request = &requested.front();
  for (const Requested& r : requested) {
    if (r.name == primary) primary_request = &r;
  }
  std::vector<NvidiaGpu> gpus;
  if (facts.nvidia) {
    for (const NvidiaGpu& g : facts.nvidia->gpus) {
      if (g.visible) gpus.push_back(g);
    }
  }
  if (request.named) return SelectNamed(target, request, requested, primary, catalogue, gpus);
  const core::Prereleases prereleases =
      request.channel == "stable" ? core::Prereleases::kDefault : core::Prereleases::kAllow;
  const core::TargetOs column = OsColumn(facts, target);
  // "; sm_120 needs CUDA 12.8 or newer (cu128)": the oldest CUDA backend whose toolkit builds
  // for a GPU, for the reasons that send the user there.
  // A GPU newer than a toolkit is sent to the oldest toolkit that builds for it, one older than
  // the toolkit's oldest architecture to the newest that still does.
  const std::vector<BackendView> backends = catalogue.Backends(request.channel);
  // The CUDA backends' toolkits and limits, for NeededToolkit: gathered on its first call (it
  // is called for each GPU of each rejected CUDA backend).
  struct Toolkit {
    std::string name;
    core::Version version;
    CudaLimits limits;
  };
  std::optional<std::vector<Toolkit>> cuda_toolkits;
  const auto NeededToolkit = [&](const ComputeCapability& gpu, bool too_new) -> std::string {
    if (!cuda_toolkits) {
      cuda_toolkits.emplace();
      for (const BackendView& b : backends) {
        if (b.kind != BackendKind::kCuda) continue;
        if (auto version = core::Version::Parse(b.toolkit))
          cuda_toolkits->push_back({b.name, std::move(*version), catalogue.Limits(b.name)});
      }
    }
    const Toolkit* best = nullptr;
    for (const Toolkit& t : *cuda_toolkits) {
      bool runs = false;
      for (const ComputeCapability& target : t.limits.toolkit_targets)
        runs = runs || CubinRunsOn(target, gpu, t.limits.integrated);
      if (!runs) continue;
      if (best == nullptr || (too_new ? t.version < best->version : t.version > best->version)) best = &t;
    }
    std::optional<core::Version> best_version;
    std::string best_name;
    if (best != nullptr) {
      best_version = best->version;
      best_name = best->name;
    }
    if (!best_version) return "";
    return "; " + gpu.Sm() + " needs CUDA " + best_version->ToString() +
           (too_new ? " or newer (" : " or older (") + best_name + ")";
  };

  for (const BackendView& backend : backends) {
    Rejection rejection{backend.name, {}};
    Candidate candidate{backend.name, backend.kind, "", true, "", {}};
    if (backend.variant_index) {
      rejection.reasons.push_back(
          "a PEP 825 variant index: chosen only when named (--torch-backend variant; lock --backend variant) (docs/variants.md)");
      out.rejected.push_back(std::move(rejection));
      continue;
    }
    DriverVersion driver;
    std::optional<DriverVersion> release_driver;

    // 1. The accelerator this backend needs.
    switch (backend.kind) {
      case BackendKind::kCpu:
        break;
      case BackendKind::kCuda: {
        if (facts.jetson) {
          rejection.reasons.push_back(
              "Jetson (L4T " + facts.jetson->l4t +
              "): desktop CUDA wheels do not run on Tegra (their cubins exclude "
              "integrated GPUs); use NVIDIA's Jetson wheels: "
              "https://docs.nvidia.com/deeplearning/frameworks/"
              "install-pytorch-jetson-platform/");
          break;
        }
        if (!facts.nvidia) {
          rejection.reasons.push_back("no NVIDIA GPU found");
          break;
        }
        if (!facts.nvidia->devices_exposed) {
          rejection.reasons.push_back("the NVIDIA driver is loaded but no device is exposed here (" +
                                      facts.nvidia->devices_exposed_source +
                                      "): a container started without GPUs");
          break;
        }
        if (gpus.empty()) {
          rejection.reasons.push_back(facts.nvidia->gpus.empty()
                                          ? "the NVIDIA driver is present but no NVIDIA GPU was found"
                                          : "no visible NVIDIA GPU (CUDA_VISIBLE_DEVICES hides them all)");
          break;
        }
        if (!facts.nvidia->driver_version) {
          rejection.reasons.push_back("the NVIDIA driver version is unknown");
          break;
        }
        driver = *facts.nvidia->driver_version;
        const std::optional<DriverVersion> floor = catalogue.DriverFloor(backend.name, column);
        if (!floor) {
          rejection.reasons.push_back("no driver floor known for CUDA " + backend.toolkit);
          break;
        }
        if (driver < *floor) {
          rejection.reasons.push_back("driver " + driver.ToString() + " is below " + floor->ToString() +
                                      ", the minimum for CUDA " + backend.toolkit + " builds on " +
                                      OsTitle(column));
          break;
        }
        release_driver = catalogue.ReleaseDriver(backend.name, column);
        candidate.notes.push_back("driver " + driver.ToString() + " >= " + floor->ToString() + " (" +
                                  OsTitle(column) + ")");
        break;
      }
      case BackendKind::kRocm:
        if (target.os != core::TargetOs::kLinux) {
          rejection.reasons.push_back("ROCm builds are for Linux only");
        } else if (!facts.amd || facts.amd->gfx.empty()) {
          rejection.reasons.push_back("no AMD GPU found");
        }
        break;
      case BackendKind::kXpu:
        if (!facts.intel || facts.intel->xpu_devices.empty()) {
          std::string why = "no Intel GPU that PyTorch XPU supports";
          if (facts.intel && !facts.intel->other_gpus.empty()) {
            const IntelGpu& g = facts.intel->other_gpus.front();
            why += " (" + g.pci_id + " " + g.name + " is not an XPU)";
          }
          rejection.reasons.push_back(why);
        }
        break;
      case BackendKind::kOther:
        rejection.reasons.push_back("unknown kind of backend");
        break;
    }
    if (!rejection.reasons.empty()) {
      out.rejected.push_back(std::move(rejection));
      continue;
    }

    // 2. Every requested routed package is offered, for the target, in a satisfying version.
    bool offered = true;
    std::vector<core::Version> primary_versions;
    for (const Requested& r : requested) {
      const std::vector<std::string> versions = catalogue.Versions(r.name, backend.name);
      if (versions.empty() && catalogue.NotCrawled(r.name, backend.name)) {
        rejection.reasons.push_back(NotCrawledText(catalogue, r.name, backend.name));
        offered = false;
        continue;
      }
      if (versions.empty()) {
        rejection.reasons.push_back("no " + r.name + " builds on this backend");
        offered = false;
        continue;
      }
      std::vector<core::Version> matching;
      for (const std::string& text : versions) {
        auto v = core::Version::Parse(text);
        if (v && r.requirement.specifiers.Contains(*v, prereleases)) matching.push_back(*v);
      }
      if (matching.empty()) {
        rejection.reasons.push_back(r.requirement.ToString() + " is not offered on this backend");
        offered = false;
        continue;
      }
      std::sort(matching.begin(), matching.end(), std::greater<>());
      std::vector<core::Version> fitting;
      for (const core::Version& v : matching) {
        if (catalogue.HasWheelFor(r.name, backend.name, v.ToString(), target.supported_tags)) {
          fitting.push_back(v);
        }
      }
      if (fitting.empty()) {
        rejection.reasons.push_back(r.requirement.ToString() + " is offered (" +
                                    matching.front().ToString() + "), but not for " +
                                    target.python_description + " on " +
                                    std::string(core::TargetOsWord(target.os)) + " " + target.arch);
        offered = false;
        continue;
      }
      if (&r == primary_request) primary_versions = std::move(fitting);
    }
    if (!offered) {
      out.rejected.push_back(std::move(rejection));
      continue;
    }

    // 3. Every visible GPU runs the build of the newest primary version that covers them all.
    std::string first_gap;
    const CudaLimits limits =
        backend.kind == BackendKind::kCuda ? catalogue.Limits(backend.name) : CudaLimits{};
    // The first GPU the toolkit cannot build for at all, whatever the build's list (a CUDA 12.1
    // build has no sm_120 code): said even where the list is not known.
    const auto toolkit_gap = [&](const std::optional<ComputeCapability>& ptx,
                                 const std::string& torch_version) -> std::string {
      for (const NvidiaGpu& gpu : gpus) {
        if (!gpu.compute_capability) continue;
        std::string gap = ToolkitGap(backend.toolkit, *gpu.compute_capability, limits, ptx);
        if (gap.empty()) continue;
        const bool too_new = *gpu.compute_capability > limits.toolkit_targets.back();
        return gap + " (" + primary + " " + torch_version + ")" +
               NeededToolkit(*gpu.compute_capability, too_new);
      }
      return "";
    };
    std::optional<Candidate> unverified;  // the newest release whose list is not known
    for (const core::Version& v : primary_versions) {
      const std::string torch_version = v.Public().ToString();
      bool all_covered = true;
      bool verified = true;
      std::vector<std::string> how;
      if (backend.kind == BackendKind::kCuda || backend.kind == BackendKind::kRocm) {
        const std::optional<ArchView> arch = catalogue.Arch(backend.name, torch_version, target.arch);
        const std::string gap = backend.kind == BackendKind::kCuda
                                    ? toolkit_gap(arch ? arch->ptx : std::nullopt, torch_version)
                                    : std::string();
        if (!gap.empty()) {
          all_covered = false;
          if (first_gap.empty()) first_gap = gap;
        } else if (!arch && backend.kind == BackendKind::kRocm) {
          // ROCm support is sparse: a gfx target not known to be built gets no kernels.
          all_covered = false;
          if (first_gap.empty()) {
            first_gap = "the gfx list of " + backend.name + " for " + primary + " " + torch_version +
                        " is not known, so " + Join(facts.amd->gfx) + " cannot be checked";
          }
        } else if (!arch) {
          // CUDA builds of every era covered the mainstream archs: usable, but ranked after
          // the builds whose list is known to cover these GPUs (nothing to verify when no GPU
          // has a known compute capability).
          verified = std::none_of(gpus.begin(), gpus.end(), [](const NvidiaGpu& g) {
            return g.compute_capability.has_value();
          });
          how.push_back("arch list of " + primary + " " + torch_version + " (" + target.arch +
                        ") unknown, GPUs checked against " + ToolkitName(backend.toolkit) +
                        " only");
        } else if (backend.kind == BackendKind::kCuda) {
          for (const NvidiaGpu& gpu : gpus) {
            const Coverage c =
                CudaCoverage(gpu.compute_capability, *arch, driver, release_driver, limits);
            if (!c.covered) {
              all_covered = false;
              if (first_gap.empty()) first_gap = c.how + " for " + primary + " " + torch_version;
              break;
            }
            how.push_back(c.how);
          }
        } else {
          for (const std::string& gfx : facts.amd->gfx) {
            if (std::find(arch->gfx.begin(), arch->gfx.end(), gfx) == arch->gfx.end()) {
              all_covered = false;
              if (first_gap.empty()) {
                first_gap = "GPU " + gfx + " is not in this build's gfx list (" + Join(arch->gfx) +
                            ") for " + primary + " " + torch_version;
              }
              break;
            }
            how.push_back(gfx + " built");
          }
        }
      }
      if (all_covered && !verified) {
        // An older release whose list is known to cover the GPUs beats a newer unknown one.
        if (!unverified) {
          unverified = candidate;
          unverified->primary_version = v.ToString();
          unverified->arch_verified = false;
          unverified->unverified = "the arch list of " + backend.name + " for " + primary + " " +
                                   torch_version + " (" + target.arch + ") is not known";
          for (std::string& h : how) unverified->notes.push_back(std::move(h));
        }
        continue;
      }
      if (all_covered) {
        candidate.primary_version = v.ToString();
        for (std::string& h : how) candidate.notes.push_back(std::move(h));
        break;
      }
    }
    if (candidate.primary_version.empty() && unverified) candidate = std::move(*unverified);
    if (candidate.primary_version.empty()) {
      rejection.reasons.push_back(first_gap.empty() ? "no build covers this machine's GPUs" : first_gap);
      out.rejected.push_back(std::move(rejection));
      continue;
    }
    out.candidates.push_back(std::move(candidate));
  }

  // 4. Rank: an accelerator before CPU, then the newest primary version, then the newest toolkit.
  std::map<std::string, std::string> toolkits;
  for (const BackendView& b : backends) toolkits[b.name] = b.toolkit;
  std::stable_sort(out.candidates.begin(), out.candidates.end(), [&](const Candidate& a, const Candidate& b) {
    const bool a_acc = a.kind != BackendKind::kCpu;
    const bool b_acc = b.kind != BackendKind::kCpu;
    if (a_acc != b_acc) return a_acc;
    if (a.arch_verified != b.arch_verified) return a.arch_verified;
    const core::Version va = core::Version::Parse(a.primary_version)->Public();
    const core::Version vb = core::Version::Parse(b.primary_version)->Public();
    if (va != vb) return va > vb;
    auto ta = core::Version::Parse(toolkits[a.backend].empty() ? "0" : toolkits[a.backend]);
    auto tb = core::Version::Parse(toolkits[b.backend].empty() ? "0" : toolkits[b.backend]);
    if (ta && tb && *ta != *tb) return *ta > *tb;
    return a.backend < b.backend;
  });

  if (out.candidates.empty()) {
    out.explanation.push_back("no backend offers what was asked for this machine");
    return out;
  }
  out.chosen = out.candidates.front();
  const Candidate& c = *out.chosen;
  std::string sentence = "chose " + c.backend + " (" + std::string(core::BackendKindDisplayName(c.kind)) + "): " + primary + " " +
                         c.primary_version + " is the newest that fits";
  if (!c.notes.empty()) sentence += "; " + Join(c.notes, "; ");
  out.explanation.push_back(sentence);
  if (c.kind == BackendKind::kCpu && !out.rejected.empty()) {
    // Say once why the accelerator backends were turned down (most give the same reason).
    std::vector<std::string> reasons;
    for (const Rejection& r : out.rejected) {
      if (!r.reasons.empty() &&
          std::find(reasons.begin(), reasons.end(), r.reasons.front()) == reasons.end()) {
        reasons.push_back(r.reasons.front());
      }
    }
    out.explanation.push_back("no accelerator backend qualifies: " + Join(reasons, "; "));
  }
  return out;
}

}  // namespace torchdex::installer
