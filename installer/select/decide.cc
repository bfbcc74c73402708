#include "installer/select/decide.h"

#include <algorithm>

#include "core/name.h"
#include "installer/table/family_table.h"

namespace torchdex::installer {
std::string ChannelPath(const std::string& channel) {
  if (channel == "test") return "test/";
  if (channel == "nightly") return "nightly/";
  return "";
}

core::Expected<std::vector<AskedRequirement>> ParseAskedRequirements(const std::vector<std::string>& texts) {
  std::vector<AskedRequirement> out;
  out.reserve(texts.size());
  for (const std::string& text : texts) {
    core::Expected<core::Requirement> parsed = core::Requirement::Parse(text);
    if (!parsed) return core::MakeError(parsed.error().message, core::ErrorCode::kUsage);
    out.push_back({std::move(parsed).value(), text});
  }
  return out;
}

core::Expected<BackendRequest> ResolveBackend(const DecisionRequest& request, const UserCatalogue& catalogue) {
  BackendRequest backend = request.backend;
  if (backend.name == "auto") backend = {};
  const CatalogueSource& source = *catalogue.source;
  if (backend.automatic()) {
    // A package pinned to a backend in an override file decides, unless the user named one:
    // the first asked routed package with a pin, else torch's.
    std::vector<std::string> names;
    for (const AskedRequirement& r : request.requirements) {
      const std::string name = core::NormalizeName(r.requirement.name);
      if (source.IsRouted(name)) names.push_back(name);
    }
    if (names.empty()) names.push_back(source.primary);
    // One backend serves every routed package: pins of the asked packages that name different
    // backends are an error naming each, whatever the order of the arguments.
    std::vector<std::string> pinned;  // "torchvision -> cu126 (FILE)"
    for (const std::string& n : names) {
      auto it = catalogue.overrides.pins.find(n);
      if (it == catalogue.overrides.pins.end()) continue;
      if (backend.automatic()) {
        backend = {it->second.value, "pin of " + n + " in " + it->second.origin};
      } else if (it->second.value == backend.name) {
        continue;
      }
      pinned.push_back(n + " -> " + it->second.value + " (" + it->second.origin + ")");
    }
    if (pinned.size() > 1) {
      std::sort(pinned.begin(), pinned.end());
      std::string list;
      for (const std::string& p : pinned) list += (list.empty() ? "" : ", ") + p;
      return core::MakeError("the override files pin the packages asked to different backends: " + list +
                                 "; one backend serves every routed package: name one with --torch-backend",
                             core::ErrorCode::kBadInputFile);
    }
  }
  if (backend.automatic()) return backend;
  const std::vector<std::string> known = source.BackendNames(request.channel);
  if (std::find(known.begin(), known.end(), backend.name) == known.end()) {
    std::string list;
    for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
    return core::MakeError("unknown backend '" + backend.name + "' (from " + backend.origin + ")" +
                               ClosestBackend(backend.name, known) + "; known backends: " + list,
                           core::ErrorCode::kUsage);
  }
  return backend;
}

namespace {

// Packages of the default index that choose their accelerator by an extra
// (data/accelerator-extras.json): the first extra whose driver floor and oldest GPU the detected
// host meets is added to a requirement that names none of them; the reason goes to the
// explanation. Nothing changes for a requirement that names one, or for any other package.
void ChooseAcceleratorExtras(const HostFacts& facts, const SelectionTarget& target, Decision& out) {
  for (AskedRequirement& asked : out.others) {
    const std::string name = core::NormalizeName(asked.requirement.name);
    const std::span<const table::AcceleratorExtraRow> extras = table::ExtrasOf(name);
    if (extras.empty()) continue;
    std::string named;
    for (const table::AcceleratorExtraRow& row : extras) {
      for (const std::string& e : asked.requirement.extras) {
        if (e == row.extra) named = e;
      }
    }
    if (!named.empty()) {
      out.explanation.push_back(name + ": [" + named + "] as asked");
      continue;
    }
    std::vector<const NvidiaGpu*> gpus;
    if (facts.nvidia && facts.nvidia->devices_exposed) {
      for (const NvidiaGpu& g : facts.nvidia->gpus) {
        if (g.visible) gpus.push_back(&g);
      }
    }
    std::string why;  // why no extra fits
    if (target.os != core::TargetOs::kLinux) {
      why = "its accelerator extras are for Linux only";
    } else if (gpus.empty()) {
      why = "no visible NVIDIA GPU";
    } else if (!facts.nvidia->driver_version) {
      why = "the NVIDIA driver version is unknown";
    }
    std::vector<std::string> passed;  // "[cuda13] needs driver >= 580"
    const table::AcceleratorExtraRow* chosen = nullptr;
    for (const table::AcceleratorExtraRow& row : extras) {
      if (!why.empty()) break;
      const core::DriverVersion driver = *facts.nvidia->driver_version;
      const core::ComputeCapability oldest{static_cast<std::uint8_t>(row.min_cc_major),
                                           static_cast<std::uint8_t>(row.min_cc_minor)};
      if (driver < row.linux_floor) {
        passed.push_back("[" + std::string(row.extra) + "] needs driver >= " + row.linux_floor.ToString());
        continue;
      }
      std::string old_gpu;
      for (const NvidiaGpu* g : gpus) {
        if (g->compute_capability && *g->compute_capability < oldest) old_gpu = g->compute_capability->ToString();
      }
      if (!old_gpu.empty()) {
        passed.push_back("[" + std::string(row.extra) + "] needs compute capability >= " + oldest.ToString() +
                         " (a GPU here is " + old_gpu + ")");
        continue;
      }
      chosen = &row;
      break;
    }
    std::string tried;
    for (const std::string& p : passed) tried += "; " + p;
    if (chosen == nullptr) {
      out.explanation.push_back(name + ": no accelerator extra fits (" +
                                (why.empty() ? tried.substr(tried.empty() ? 0 : 2) : why) +
                                "): the plain package, as asked");
      continue;
    }
    asked.requirement.extras.emplace_back(chosen->extra);
    std::sort(asked.requirement.extras.begin(), asked.requirement.extras.end());
    asked.text = asked.requirement.ToString();
    out.explanation.push_back(name + ": " + asked.text + " for driver " + facts.nvidia->driver_version->ToString() +
                              " (>= " + chosen->linux_floor.ToString() + ")" + tried + "; source: " +
                              std::string(chosen->source));
  }
}

}  // namespace

core::Expected<Decision> Decide(const DecisionRequest& request, const HostFacts& facts,
                                const UserCatalogue& catalogue) {
  const CatalogueSource& source = *catalogue.source;
  Decision out;
  out.channel = request.channel.empty() ? "stable" : request.channel;
  out.catalogue_description = source.description;
  out.routed_names = source.routed;
  for (const auto& host : catalogue.overrides.trusted_hosts) out.trusted_hosts.push_back(host.value);
  if (catalogue.overrides.mirror) out.mirror_url = catalogue.overrides.mirror->value;
  out.upstream_base = source.default_base_url;
  out.upstream_hosts = source.upstream_hosts;
  out.prereleases = out.channel == "stable" ? core::Prereleases::kDefault : core::Prereleases::kAllow;
  if (!source.channel_paths.contains(out.channel)) {
    std::string known;
    for (const auto& [name, path] : source.channel_paths) known += (known.empty() ? "" : ", ") + name;
    return core::MakeError("--channel " + out.channel + ": index family " + source.family + " has no such channel (" +
                               known + ")",
                           core::ErrorCode::kUsage);
  }
  out.channel_path = source.ChannelPath(out.channel);
  out.primary = source.primary;
  out.target_description = request.target.description;

  // What was asked: routed requirements decide the backend; the rest goes to the default index.
  for (const AskedRequirement& r : request.requirements) {
    if (source.IsRouted(core::NormalizeName(r.requirement.name))) {
      out.routed.push_back(r.requirement);
    } else {
      out.others.push_back(r);
    }
  }
  if (!out.routed.empty()) {
    out.primary = core::NormalizeName(out.routed.front().name);
    for (const core::Requirement& r : out.routed) {
      if (core::NormalizeName(r.name) == source.primary) out.primary = source.primary;
    }
  }

  core::Expected<BackendRequest> backend = ResolveBackend(request, catalogue);
  if (!backend) return backend.error();
  out.forced_by = backend->origin;
  // The channel's own versions when the catalogue holds them (the embedded table holds every
  // channel whose pages were crawled); else the stable channel's backends and arch lists, with
  // the versions left to the live index.
  const bool held = source.HoldsChannel(out.channel);
  if (!held) {
    out.warnings.push_back("the catalogue (" + source.description + ") holds no " + out.channel +
                           " versions: " + out.channel +
                           " is chosen by the stable channel's backends and arch lists, and its "
                           "versions are checked against the live index when installing");
  }

  SelectionRequest selection;
  selection.routed = out.routed;
  selection.primary = out.primary;
  selection.channel = held ? out.channel : "stable";
  selection.versions_known = held;
  if (!backend->automatic()) {
    selection.named = backend->name;
    selection.named_by = backend->origin;
  }
  out.selection =
      SelectBackend(facts, request.target, selection, source.ViewFor(selection.channel));
  if (selection.named && !out.selection.chosen) {
    // The named backend does not offer what was asked: that is the answer, not a fallback.
    return core::MakeError(out.selection.rejected.front().reasons.front(), core::ErrorCode::kNotOffered);
  }
  out.explanation = out.selection.explanation;
  out.default_index = out.selection.default_index;
  if (out.default_index) {
    out.index_url = "https://pypi.org/simple/";
  } else if (out.selection.chosen) {
    out.backend = out.selection.chosen->backend;
    out.primary_version = out.selection.chosen->primary_version;
    out.index_url = BackendIndexUrl(catalogue.overrides, source.default_base_url, out.channel_path,
                                    out.backend);
  }
  for (const std::string& w : out.selection.warnings) out.warnings.push_back(w);
  if (out.selection.chosen && !out.selection.chosen->arch_verified) {
    // Not only a note: a build whose list is unknown may lack the GPU's code.
    out.warnings.push_back(out.selection.chosen->unverified +
                           ": the GPUs were checked only against what its CUDA toolkit can build");
  }
  for (const std::string& w : facts.warnings) out.warnings.push_back(w);
  // Extras chosen by the driver, when the host was detected for an automatic choice.
  if (backend->automatic() && !out.default_index) ChooseAcceleratorExtras(facts, request.target, out);
  return out;
}

}  // namespace torchdex::installer
