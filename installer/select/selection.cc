#include "installer/select/selection.h"

#include <algorithm>
#include <map>

#include "core/name.h"
#include "core/specifier.h"
#include "core/version.h"
#include "installer/table/hardware_table.h"

namespace torchdex::installer {
namespace {

struct Cc {
  int major = 0;
  int minor = 0;
};

std::optional<Cc> ParseCc(const std::string& text) {
  const std::size_t dot = text.find('.');
  if (dot == std::string::npos) return std::nullopt;
  try {
    return Cc{std::stoi(text.substr(0, dot)), std::stoi(text.substr(dot + 1))};
  } catch (...) {
    return std::nullopt;
  }
}

std::string Sm(const std::string& cc) {
  std::string out = "sm_";
  for (char c : cc) {
    if (c != '.') out.push_back(c);
  }
  return out;
}

std::string Join(const std::vector<std::string>& items, const std::string& sep = " ") {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : sep) + s;
  return out;
}

std::string KindName(AcceleratorKind kind) {
  switch (kind) {
    case AcceleratorKind::kCpu:
      return "CPU";
    case AcceleratorKind::kCuda:
      return "CUDA";
    case AcceleratorKind::kRocm:
      return "ROCm";
    case AcceleratorKind::kXpu:
      return "XPU";
    case AcceleratorKind::kOther:
      return "other";
  }
  return "other";
}

std::string OsColumn(const HostFacts& facts, const SelectionTarget& target) {
  // WSL reports the Windows driver: its numbers are compared with the Windows column.
  if (target.os == "windows") return "windows";
  if (facts.nvidia && facts.nvidia->driver_table == DriverTable::kWindows) return "windows";
  return "linux";
}

std::string OsTitle(const std::string& column) { return column == "windows" ? "Windows" : "Linux"; }

// Whether a GPU is covered by a build, and how; the reason when it is not.
struct Coverage {
  bool covered = false;
  std::string how;
};

Coverage CudaCoverage(const std::string& gpu_cc, const ArchView& arch, const std::string& driver,
                      const std::string& release_driver) {
  const std::optional<Cc> gpu = ParseCc(gpu_cc);
  if (!gpu) return {true, "compute capability unknown, not checked"};
  // A cubin runs on the same major with an equal or higher minor (6.0 covers 6.1); the
  // closest one is what the CUDA runtime loads (8.6 rather than 8.0 for an 8.9 GPU).
  std::optional<std::string> best;
  int best_minor = -1;
  for (const std::string& cubin : arch.cubins) {
    const std::optional<Cc> c = ParseCc(cubin);
    if (c && c->major == gpu->major && gpu->minor >= c->minor && c->minor > best_minor) {
      best = cubin;
      best_minor = c->minor;
    }
  }
  if (best) return {true, Sm(gpu_cc) + " by cubin " + Sm(*best)};
  if (!arch.ptx.empty()) {
    const std::optional<Cc> p = ParseCc(arch.ptx);
    const bool later = p && (gpu->major > p->major || (gpu->major == p->major && gpu->minor >= p->minor));
    if (later) {
      // PTX from this toolkit is JIT-compiled by the driver: only a driver at least as new as
      // the toolkit's own can read it (CUDA_ERROR_UNSUPPORTED_PTX_VERSION otherwise).
      if (release_driver.empty() || CompareDriverVersions(driver, release_driver) >= 0) {
        return {true, Sm(gpu_cc) + " by PTX " + Sm(arch.ptx) + " (JIT)"};
      }
      return {false, "GPU " + Sm(gpu_cc) + " would need this build's PTX (" + Sm(arch.ptx) +
                         "), which driver " + driver + " cannot compile (needs " + release_driver +
                         " or newer)"};
    }
  }
  return {false, "GPU " + Sm(gpu_cc) + " is not in this build's arch list (" + Join(arch.cubins) +
                     (arch.ptx.empty() ? "" : " +PTX " + arch.ptx) + ")"};
}

struct Requested {
  core::Requirement requirement;
  std::string name;  // normalised
};

}  // namespace

int CompareDriverVersions(const std::string& a, const std::string& b) {
  // The parser detection uses; what does not parse counts as 0 (both come from validated
  // sources: detection's facts and the compiled table).
  const std::vector<unsigned> x = ParseDottedNumbers(a);
  const std::vector<unsigned> y = ParseDottedNumbers(b);
  for (std::size_t i = 0; i < std::max(x.size(), y.size()); ++i) {
    const unsigned p = i < x.size() ? x[i] : 0;
    const unsigned q = i < y.size() ? y[i] : 0;
    if (p != q) return p < q ? -1 : 1;
  }
  return 0;
}

Selection SelectBackend(const HostFacts& facts, const SelectionTarget& target,
                        const SelectionRequest& request, const CatalogueView& catalogue) {
  Selection out;
  if (target.os == "macos") {
    // PyTorch publishes macOS wheels (CPU and MPS) on the default index; no backend applies.
    out.default_index = true;
    out.explanation.push_back(
        "macOS: the default index serves the macOS wheels (CPU and MPS); no backend index applies");
    return out;
  }

  std::vector<Requested> requested;
  for (const core::Requirement& r : request.routed) requested.push_back({r, core::NormalizeName(r.name)});
  if (requested.empty()) {
    core::Requirement torch;
    torch.name = "torch";
    requested.push_back({torch, "torch"});
  }
  const std::string primary = core::NormalizeName(request.primary);
  const Requested* primary_request = &requested.front();
  for (const Requested& r : requested) {
    if (r.name == primary) primary_request = &r;
  }
  const core::Prereleases prereleases =
      request.channel == "stable" ? core::Prereleases::kDefault : core::Prereleases::kAllow;
  const std::string column = OsColumn(facts, target);

  std::vector<NvidiaGpu> gpus;
  if (facts.nvidia) {
    for (const NvidiaGpu& g : facts.nvidia->gpus) {
      if (g.visible) gpus.push_back(g);
    }
  }

  for (const BackendView& backend : catalogue.Backends(request.channel)) {
    Rejection rejection{backend.name, {}};
    Candidate candidate{backend.name, backend.kind, "", true, {}};
    std::string driver;
    std::string release_driver;

    // 1. The accelerator this backend needs.
    switch (backend.kind) {
      case AcceleratorKind::kCpu:
        break;
      case AcceleratorKind::kCuda: {
        if (facts.jetson) {
          rejection.reasons.push_back("Jetson (L4T " + facts.jetson->l4t +
                                      "): desktop CUDA wheels do not run on Tegra; use NVIDIA's "
                                      "Jetson wheels");
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
          rejection.reasons.push_back("no visible NVIDIA GPU (CUDA_VISIBLE_DEVICES hides them all)");
          break;
        }
        driver = facts.nvidia->driver_version;
        if (driver.empty()) {
          rejection.reasons.push_back("the NVIDIA driver version is unknown");
          break;
        }
        const std::string floor = catalogue.DriverFloor(backend.name, column);
        if (floor.empty()) {
          rejection.reasons.push_back("no driver floor known for CUDA " + backend.toolkit);
          break;
        }
        if (CompareDriverVersions(driver, floor) < 0) {
          rejection.reasons.push_back("driver " + driver + " is below " + floor + ", the minimum for CUDA " +
                                      backend.toolkit + " builds on " + OsTitle(column));
          break;
        }
        release_driver = catalogue.ReleaseDriver(backend.name, column);
        candidate.notes.push_back("driver " + driver + " >= " + floor + " (" + OsTitle(column) + ")");
        break;
      }
      case AcceleratorKind::kRocm:
        if (target.os != "linux") {
          rejection.reasons.push_back("ROCm builds are for Linux only");
        } else if (!facts.amd || facts.amd->gfx.empty()) {
          rejection.reasons.push_back("no AMD GPU found");
        }
        break;
      case AcceleratorKind::kXpu:
        if (!facts.intel || facts.intel->xpu_devices.empty()) {
          std::string why = "no Intel GPU that PyTorch XPU supports";
          if (facts.intel && !facts.intel->other_gpus.empty()) {
            const IntelGpu& g = facts.intel->other_gpus.front();
            why += " (" + g.pci_id + " " + g.name + " is not an XPU)";
          }
          rejection.reasons.push_back(why);
        }
        break;
      case AcceleratorKind::kOther:
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
                                    target.python_description + " on " + target.os + " " + target.arch);
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
    for (const core::Version& v : primary_versions) {
      const std::string torch_version = v.Public().ToString();
      bool all_covered = true;
      bool verified = true;
      std::vector<std::string> how;
      if (backend.kind == AcceleratorKind::kCuda || backend.kind == AcceleratorKind::kRocm) {
        const std::optional<ArchView> arch = catalogue.Arch(backend.name, torch_version, target.arch);
        if (!arch && backend.kind == AcceleratorKind::kRocm) {
          // ROCm support is sparse: a gfx target not known to be built gets no kernels.
          all_covered = false;
          if (first_gap.empty()) {
            first_gap = "the gfx list of " + backend.name + " for " + primary + " " + torch_version +
                        " is not known, so " + Join(facts.amd->gfx) + " cannot be checked";
          }
        } else if (!arch) {
          // CUDA builds of every era covered the mainstream archs: usable, but ranked after
          // the builds whose list is known to cover these GPUs.
          verified = false;
          how.push_back("arch list of " + primary + " " + torch_version + " unknown, GPUs not checked");
        } else if (backend.kind == AcceleratorKind::kCuda) {
          for (const NvidiaGpu& gpu : gpus) {
            const Coverage c = CudaCoverage(gpu.compute_capability, *arch, driver, release_driver);
            if (!c.covered) {
              all_covered = false;
              if (first_gap.empty()) first_gap = c.how + " for " + primary + " " + torch_version;
              break;
            }
            how.push_back(c.how);
          }
        } else {
          for (const std::string& gfx : facts.amd->gfx) {
            if (std::find(arch->cubins.begin(), arch->cubins.end(), gfx) == arch->cubins.end()) {
              all_covered = false;
              if (first_gap.empty()) {
                first_gap = "GPU " + gfx + " is not in this build's gfx list (" + Join(arch->cubins) +
                            ") for " + primary + " " + torch_version;
              }
              break;
            }
            how.push_back(gfx + " built");
          }
        }
      }
      if (all_covered) {
        candidate.primary_version = v.ToString();
        candidate.arch_verified = verified;
        for (std::string& h : how) candidate.notes.push_back(std::move(h));
        break;
      }
    }
    if (candidate.primary_version.empty()) {
      rejection.reasons.push_back(first_gap.empty() ? "no build covers this machine's GPUs" : first_gap);
      out.rejected.push_back(std::move(rejection));
      continue;
    }
    out.candidates.push_back(std::move(candidate));
  }

  // 4. Rank: an accelerator before CPU, then the newest primary version, then the newest toolkit.
  std::map<std::string, std::string> toolkits;
  for (const BackendView& b : catalogue.Backends(request.channel)) toolkits[b.name] = b.toolkit;
  std::stable_sort(out.candidates.begin(), out.candidates.end(), [&](const Candidate& a, const Candidate& b) {
    const bool a_acc = a.kind != AcceleratorKind::kCpu;
    const bool b_acc = b.kind != AcceleratorKind::kCpu;
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
  std::string sentence = "chose " + c.backend + " (" + KindName(c.kind) + "): " + primary + " " +
                         c.primary_version + " is the newest that fits";
  if (!c.notes.empty()) sentence += "; " + Join(c.notes, "; ");
  out.explanation.push_back(sentence);
  if (c.kind == AcceleratorKind::kCpu && !out.rejected.empty()) {
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

std::string_view AcceleratorKindWord(AcceleratorKind kind) {
  switch (kind) {
    case AcceleratorKind::kCpu:
      return "cpu";
    case AcceleratorKind::kCuda:
      return "cuda";
    case AcceleratorKind::kRocm:
      return "rocm";
    case AcceleratorKind::kXpu:
      return "xpu";
    case AcceleratorKind::kOther:
      return "other";
  }
  return "other";
}

AcceleratorKind ParseAcceleratorKind(std::string_view word) {
  for (AcceleratorKind kind : {AcceleratorKind::kCpu, AcceleratorKind::kCuda, AcceleratorKind::kRocm,
                               AcceleratorKind::kXpu}) {
    if (word == AcceleratorKindWord(kind)) return kind;
  }
  return AcceleratorKind::kOther;
}

}  // namespace torchdex::installer
