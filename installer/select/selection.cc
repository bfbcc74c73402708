#include "installer/select/selection.h"

#include <algorithm>
#include <map>

#include "core/name.h"
#include "core/specifier.h"
#include "core/version.h"
#include "installer/select/selection_steps.h"

namespace torchdex::installer {
namespace select_steps {

std::string ToolkitName(const std::string& toolkit) { return "CUDA " + toolkit; }

std::string ToolkitFinder::Hint(const core::ComputeCapability& gpu, bool too_new) const {
  if (!toolkits_) {
    toolkits_.emplace();
    for (const BackendView& b : backends_) {
      if (b.kind != core::BackendKind::kCuda) continue;
      if (auto version = core::Version::Parse(b.toolkit))
        toolkits_->push_back({b.name, std::move(*version), catalogue_.Limits(b.name)});
    }
  }
  const Toolkit* best = nullptr;
  for (const Toolkit& t : *toolkits_) {
    bool runs = false;
    for (const core::ComputeCapability& target : t.limits.toolkit_targets)
      runs = runs || CubinRunsOn(target, gpu, t.limits.integrated);
    if (!runs) continue;
    if (best == nullptr || (too_new ? t.version < best->version : t.version > best->version)) best = &t;
  }
  if (best == nullptr) return "";
  return "; " + gpu.Sm() + " needs CUDA " + best->version.ToString() +
         (too_new ? " or newer (" : " or older (") + best->name + ")";
}

namespace {

core::TargetOs OsColumn(const HostFacts& facts, const SelectionTarget& target) {
  // WSL reports the Windows driver: its numbers are compared with the Windows column.
  if (target.os == core::TargetOs::kWindows) return core::TargetOs::kWindows;
  if (facts.nvidia && facts.nvidia->driver_table == DriverTable::kWindows) return core::TargetOs::kWindows;
  return core::TargetOs::kLinux;
}

std::vector<Requested> RequestedOf(const SelectionRequest& request) {
  std::vector<Requested> requested;
  for (const core::Requirement& r : request.routed) requested.push_back({r, core::NormalizeName(r.name)});
  if (requested.empty()) {
    core::Requirement primary;
    primary.name = request.primary;
    requested.push_back({primary, core::NormalizeName(request.primary)});
  }
  return requested;
}

std::vector<NvidiaGpu> VisibleGpus(const HostFacts& facts) {
  std::vector<NvidiaGpu> gpus;
  if (!facts.nvidia) return gpus;
  for (const NvidiaGpu& g : facts.nvidia->gpus) {
    if (g.visible) gpus.push_back(g);
  }
  return gpus;
}

}  // namespace

SelectionContext::SelectionContext(const HostFacts& facts_in, const SelectionTarget& target_in,
                                   const SelectionRequest& request_in, const CatalogueView& catalogue_in)
    : facts(facts_in),
      target(target_in),
      request(request_in),
      catalogue(catalogue_in),
      requested(RequestedOf(request_in)),
      primary(core::NormalizeName(request_in.primary)),
      gpus(VisibleGpus(facts_in)),
      prereleases(request_in.channel == "stable" ? core::Prereleases::kDefault : core::Prereleases::kAllow),
      column(OsColumn(facts_in, target_in)),
      backends(catalogue_in.Backends(request_in.channel)),
      toolkits(backends, catalogue_in) {
  for (std::size_t i = 0; i < requested.size(); ++i) {
    if (requested[i].name == primary) primary_index = i;
  }
}

}  // namespace select_steps

namespace {

using core::BackendKind;
using core::ComputeCapability;
using select_steps::Join;
using select_steps::Requested;
using select_steps::SelectionContext;
using select_steps::ToolkitName;
using select_steps::Trial;

// "torch on rocm7.1 is unknown (not crawled: its page was missing from the catalogue of
// 2026-03-15)"
std::string NotCrawledText(const CatalogueView& catalogue, const std::string& project,
                           const std::string& backend) {
  const std::string as_of = catalogue.AsOf();
  return project + " on " + backend +
         " is unknown (not crawled: its page was missing from the catalogue" +
         (as_of.empty() ? std::string() : " of " + as_of) + ")";
}

// A named backend: the one candidate, checked for what was asked (step 2 alone: the user
// chose the hardware, so nothing of it is checked).
Selection SelectNamed(const SelectionContext& ctx) {
  const SelectionTarget& target = ctx.target;
  const SelectionRequest& request = ctx.request;
  const CatalogueView& catalogue = ctx.catalogue;
  const std::vector<NvidiaGpu>& gpus = ctx.gpus;
  const std::string& primary = ctx.primary;
  const std::string& name = *request.named;
  Selection s;
  Candidate c{name, BackendKind::kOther, "", true, "", {"named by " + request.named_by}};
  std::string toolkit;
  for (const BackendView& b : ctx.backends) {
    if (b.name == name) {
      c.kind = b.kind;
      toolkit = b.toolkit;
    }
  }
  for (const Requested& r : ctx.requested) {
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


// Step 2 for one requirement: the versions of it the backend offers that satisfy it and have a
// wheel for the target, newest first; empty, with the reason in `reasons`, when none.
std::vector<core::Version> FittingVersions(const SelectionContext& ctx, const BackendView& backend,
                                           const Requested& r, std::vector<std::string>& reasons) {
  const CatalogueView& catalogue = ctx.catalogue;
  const std::vector<std::string> versions = catalogue.Versions(r.name, backend.name);
  if (versions.empty()) {
    reasons.push_back(catalogue.NotCrawled(r.name, backend.name) ? NotCrawledText(catalogue, r.name, backend.name)
                                                                 : "no " + r.name + " builds on this backend");
    return {};
  }
  std::vector<core::Version> matching;
  for (const std::string& text : versions) {
    auto v = core::Version::Parse(text);
    if (v && r.requirement.specifiers.Contains(*v, ctx.prereleases)) matching.push_back(*v);
  }
  if (matching.empty()) {
    reasons.push_back(r.requirement.ToString() + " is not offered on this backend");
    return {};
  }
  std::sort(matching.begin(), matching.end(), std::greater<>());
  std::vector<core::Version> fitting;
  for (const core::Version& v : matching) {
    if (catalogue.HasWheelFor(r.name, backend.name, v.ToString(), ctx.target.supported_tags)) fitting.push_back(v);
  }
  if (fitting.empty()) {
    reasons.push_back(r.requirement.ToString() + " is offered (" + matching.front().ToString() +
                      "), but not for " + ctx.target.python_description + " on " +
                      std::string(core::TargetOsWord(ctx.target.os)) + " " + ctx.target.arch);
  }
  return fitting;
}

// Step 2: every requested routed package is offered, for the target, in a satisfying version.
// The primary package's fitting versions, newest first; nullopt when something is not offered
// (every reason in trial.rejection).
std::optional<std::vector<core::Version>> OfferedPrimaryVersions(const SelectionContext& ctx,
                                                                 const BackendView& backend, Trial& trial) {
  bool offered = true;
  std::vector<core::Version> primary_versions;
  for (std::size_t i = 0; i < ctx.requested.size(); ++i) {
    std::vector<core::Version> fitting = FittingVersions(ctx, backend, ctx.requested[i], trial.rejection.reasons);
    if (fitting.empty()) {
      offered = false;
    } else if (i == ctx.primary_index) {
      primary_versions = std::move(fitting);
    }
  }
  if (!offered) return std::nullopt;
  return primary_versions;
}

// Step 3: the newest primary version whose build covers every visible GPU (one whose arch list
// is known to cover them beats a newer one whose list is not known); false, with the reason,
// when none does.
bool CoverGpus(const SelectionContext& ctx, const BackendView& backend,
               const std::vector<core::Version>& primary_versions, Trial& trial) {
  const select_steps::KindRules& rules = select_steps::RulesFor(backend.kind);
  std::string first_gap;
  std::optional<Candidate> unverified;  // the newest release whose list is not known
  for (const core::Version& v : primary_versions) {
    const std::string torch_version = v.Public().ToString();
    select_steps::VersionCoverage coverage = rules.coverage(ctx, backend, trial, torch_version);
    if (!coverage.covered) {
      if (first_gap.empty()) first_gap = coverage.gap;
      continue;
    }
    if (coverage.verified) {
      trial.candidate.primary_version = v.ToString();
      for (std::string& h : coverage.how) trial.candidate.notes.push_back(std::move(h));
      return true;
    }
    if (unverified) continue;
    unverified = trial.candidate;
    unverified->primary_version = v.ToString();
    unverified->arch_verified = false;
    unverified->unverified = "the arch list of " + backend.name + " for " + ctx.primary + " " +
                             torch_version + " (" + ctx.target.arch + ") is not known";
    for (std::string& h : coverage.how) unverified->notes.push_back(std::move(h));
  }
  if (unverified) {
    trial.candidate = std::move(*unverified);
    return true;
  }
  trial.rejection.reasons.push_back(first_gap.empty() ? "no build covers this machine's GPUs" : first_gap);
  return false;
}

// Steps 1-3 for one backend: a candidate in out.candidates, or its rejection in out.rejected.
void TryBackend(const SelectionContext& ctx, const BackendView& backend, Selection& out) {
  Trial trial{{backend.name, {}}, {backend.name, backend.kind, "", true, "", {}}, {}, {}, {}};
  if (backend.variant_index) {
    trial.rejection.reasons.push_back(
        "a PEP 825 variant index: chosen only when named (--torch-backend variant; lock --backend variant) (docs/variants.md)");
    out.rejected.push_back(std::move(trial.rejection));
    return;
  }
  // 1. The accelerator this backend needs.
  select_steps::RulesFor(backend.kind).accelerator(ctx, backend, trial);
  if (!trial.rejection.reasons.empty()) {
    out.rejected.push_back(std::move(trial.rejection));
    return;
  }
  std::optional<std::vector<core::Version>> versions = OfferedPrimaryVersions(ctx, backend, trial);
  if (!versions || !CoverGpus(ctx, backend, *versions, trial)) {
    out.rejected.push_back(std::move(trial.rejection));
    return;
  }
  out.candidates.push_back(std::move(trial.candidate));
}

// Step 4: an accelerator before CPU, then a known arch list, then the newest primary version,
// then the newest toolkit.
void Rank(std::vector<Candidate>& candidates, const std::vector<BackendView>& backends) {
  std::map<std::string, std::string> toolkits;
  for (const BackendView& b : backends) toolkits[b.name] = b.toolkit;
  std::stable_sort(candidates.begin(), candidates.end(), [&](const Candidate& a, const Candidate& b) {
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
}

// The decision in sentences: the choice and why, and when it is CPU, why no accelerator
// backend qualified (said once per reason: most give the same).
void Explain(Selection& out, const std::string& primary) {
  if (out.candidates.empty()) {
    out.explanation.push_back("no backend offers what was asked for this machine");
    return;
  }
  out.chosen = out.candidates.front();
  const Candidate& c = *out.chosen;
  std::string sentence = "chose " + c.backend + " (" + std::string(core::BackendKindDisplayName(c.kind)) +
                         "): " + primary + " " + c.primary_version + " is the newest that fits";
  if (!c.notes.empty()) sentence += "; " + Join(c.notes, "; ");
  out.explanation.push_back(sentence);
  if (c.kind != BackendKind::kCpu || out.rejected.empty()) return;
  std::vector<std::string> reasons;
  for (const Rejection& r : out.rejected) {
    if (!r.reasons.empty() && std::find(reasons.begin(), reasons.end(), r.reasons.front()) == reasons.end()) {
      reasons.push_back(r.reasons.front());
    }
  }
  out.explanation.push_back("no accelerator backend qualifies: " + Join(reasons, "; "));
}

}  // namespace

bool CubinRunsOn(const ComputeCapability& code, const ComputeCapability& gpu,
                 const std::vector<ComputeCapability>& integrated) {
  if (code == gpu) return true;
  if (code.major != gpu.major || gpu.minor < code.minor) return false;
  return std::find(integrated.begin(), integrated.end(), gpu) == integrated.end();
}

std::optional<ComputeCapability> BestCubin(const ArchView& arch, const ComputeCapability& gpu,
                                           const std::vector<ComputeCapability>& integrated) {
  std::optional<ComputeCapability> best;
  for (const ComputeCapability& cubin : arch.cubins) {
    if (CubinRunsOn(cubin, gpu, integrated) && (!best || cubin.minor > best->minor)) best = cubin;
  }
  return best;
}

bool BuildRunsOn(const ArchView& arch, const ComputeCapability& gpu, const std::vector<ComputeCapability>& integrated) {
  return BestCubin(arch, gpu, integrated).has_value() || (arch.ptx && gpu >= *arch.ptx);
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
  const SelectionContext ctx(facts, target, request, catalogue);
  if (request.named) return SelectNamed(ctx);
  for (const BackendView& backend : ctx.backends) TryBackend(ctx, backend, out);
  Rank(out.candidates, ctx.backends);
  Explain(out, ctx.primary);
  return out;
}

}  // namespace torchdex::installer
