// `torchdex select`: which backend, from which index, and why.
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "installer/cli/commands.h"
#include "installer/cli/decision_inputs.h"
#include "installer/cli/variant_inputs.h"
#include "installer/detect/report.h"
#include "installer/select/variant_choice.h"

namespace torchdex::installer {

namespace po = boost::program_options;

const char* const kSelectDetails =
    "Chooses the PyTorch backend (cpu, cuXYZ, rocmX.Y, xpu) for this machine, or for the host\n"
    "captured under --root, from the catalogue compiled into torchdex: the accelerator kind,\n"
    "the driver floor for the target OS (WSL compares Windows driver numbers), every visible\n"
    "GPU against the build's arch list for the torch version, and the requested versions\n"
    "offered for the target's wheel tags; then an accelerator before CPU, the newest torch,\n"
    "the newest toolkit. Without requirements the primary package is torch.\n"
    "\n"
    "The backend can be forced: --torch-backend, else TORCHDEX_TORCH_BACKEND (or uv's\n"
    "UV_TORCH_BACKEND), else \"torch_backend\" in $XDG_CONFIG_HOME/torchdex/config.json; an\n"
    "explicit backend skips detection. Override catalogues (mirrors, custom backends, pins):\n"
    "--catalogue FILE, TORCHDEX_CATALOGUE (':'-separated), $XDG_CONFIG_HOME/torchdex/\n"
    "catalogue.d/*.json. To plan for another machine from a CPU-only builder, pass --root with a\n"
    "captured host, or the detection overrides (TORCHDEX_CUDA_DRIVER_VERSION, TORCHDEX_CUDA_ARCH\n"
    "...), with --platform and --python-version. See docs/selection.md.\n"
    "\n"
    "--torch-backend variant chooses from the catalogue's PEP 825 variant index of the channel\n"
    "(a crawl of test/variant/ named by an override file): the newest fitting version and the\n"
    "variant this host's properties rank first, the null variant last; --explain names the\n"
    "label and the deciding property. See docs/variants.md.\n"
    "\n"
    "--family NAME chooses from another index family of data/indexes.json (paddle:\n"
    "PaddlePaddle's per-CUDA indexes, ranked by paddlepaddle-gpu) with its own catalogue,\n"
    "driver floors and the \"families\" sections of the override files. See docs/families.md.\n";

void AddSelectionOptions(po::options_description& d, ChoiceOptions& o) {
  // clang-format off
  d.add_options()
    ("requirement", po::value<std::vector<std::string>>(&o.requirements)->value_name("REQUIREMENT"),
     "what to install (PEP 508), e.g. \"torch>=2.6\" torchvision; default: torch")
    ("torch-backend", po::value<std::string>(&o.torch_backend)->value_name("NAME"),
     "auto (detect), cpu, cuXYZ, rocmX.Y, xpu, variant (the channel's PEP 825 variant index), or "
     "a custom backend of an override file")
    ("channel", po::value<std::string>(&o.channel)->value_name("NAME"),
     "stable (default), test or nightly")
    ("family", po::value<std::string>(&o.family)->value_name("NAME"),
     "the index family: pytorch (default), paddle (data/indexes.json; docs/families.md)")
    ("python-version", po::value<std::string>(&o.python_version)->value_name("X.Y"),
     "the target Python (3.12, 3.13t); default: --python, else any Python")
    ("python", po::value<std::string>(&o.python)->value_name("PATH"),
     "the target interpreter, asked once for its version, ABI and platform")
    ("platform", po::value<std::string>(&o.platform)->value_name("TAG"),
     "the target platform: linux_x86_64, linux_aarch64, a wheel's tag (manylinux_2_28_aarch64), "
     "win_amd64, macosx_11_0_arm64; default: this machine (or the --root host)")
    ("root", po::value<std::string>(&o.root)->value_name("DIR"),
     "detect the host captured under DIR instead of this one")
    ("root-providers", po::bool_switch(&o.root_providers), "run the torchdex-provider-* executables on the PATH of the --root host (they are files of the capture; not run by default)")
    ("catalogue", po::value<std::vector<std::string>>(&o.catalogues)->value_name("FILE"),
     "an override catalogue file; repeatable, later files win")
    ("probe-timeout", po::value<double>(&o.probe_timeout_seconds)->value_name("SECONDS"),
     "time limit for each detection probe; default 5")
    ("explain", po::bool_switch(&o.explain), "also print the runners-up and why each other "
     "backend was rejected")
    ("json", po::bool_switch(&o.json), "print a JSON object");
  // clang-format on
}

void AddSelectOptions(po::options_description& d, Options& options) {
  AddSelectionOptions(d, options.select);
}

core::Expected<bool> ValidateSelectionOptions(ChoiceOptions& o) {
  if (!o.python.empty() && !o.python_version.empty()) {
    return core::MakeError("--python and --python-version: give one or the other");
  }
  if (!o.channel.empty() && o.channel != "stable" && o.channel != "test" && o.channel != "nightly") {
    return core::MakeError("--channel " + o.channel + ": expected stable, test or nightly");
  }
  if (auto ok = CheckProbeTimeout(o.probe_timeout_seconds); !ok) return ok.error();
  struct stat info;
  if (!o.root.empty() && (::stat(o.root.c_str(), &info) != 0 || !S_ISDIR(info.st_mode))) {
    return core::MakeError("--root: " + o.root + " is not a directory");
  }
  auto parsed = ParseAskedRequirements(o.requirements);
  if (!parsed) return parsed.error();
  o.parsed = std::move(parsed).value();
  return true;
}

core::Expected<bool> ValidateSelectOptions(Options& options) {
  return ValidateSelectionOptions(options.select);
}

std::string DecisionToText(const Decision& o, bool explain) {
  std::ostringstream out;
  if (o.default_index) {
    out << "default index  " << o.index_url << "\n";
  } else {
    out << o.backend << "  " << o.index_url << "\n";
  }
  if (!explain) return out.str();
  out << "\nwhy:\n";
  for (const std::string& line : o.explanation) out << "  " << line << "\n";
  out << "target: " << o.target_description << "\n";
  out << "catalogue: " << o.catalogue_description << "\n";
  if (o.selection.candidates.size() > 1) {
    out << "runners-up:\n";
    for (std::size_t i = 1; i < o.selection.candidates.size(); ++i) {
      const Candidate& c = o.selection.candidates[i];
      out << "  " << c.backend << std::string(c.backend.size() < 10 ? 10 - c.backend.size() : 1, ' ')
          << o.primary << " " << c.primary_version << "\n";
    }
  }
  if (!o.selection.rejected.empty()) {
    // Backends turned down for the same reasons share a line ("no AMD GPU found" once for
    // every ROCm backend), in the order their first backend comes.
    std::vector<std::pair<std::string, std::vector<std::string>>> groups;  // reasons, backends
    for (const Rejection& r : o.selection.rejected) {
      std::string reasons;
      for (std::size_t i = 0; i < r.reasons.size(); ++i) reasons += (i ? "; " : "") + r.reasons[i];
      auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == reasons; });
      if (it == groups.end()) {
        groups.push_back({reasons, {r.backend}});
      } else {
        it->second.push_back(r.backend);
      }
    }
    out << "rejected:\n";
    for (const auto& [reasons, backends] : groups) {
      if (backends.size() == 1) {
        const std::string& b = backends.front();
        out << "  " << b << std::string(b.size() < 10 ? 10 - b.size() : 1, ' ') << reasons << "\n";
        continue;
      }
      out << "  " << reasons << ":\n";
      std::string line = "   ";
      for (const std::string& b : backends) {
        if (line.size() + 1 + b.size() > 96) {
          out << line << "\n";
          line = "   ";
        }
        line += " " + b;
      }
      out << line << "\n";
    }
  }
  for (const std::string& w : o.warnings) out << "warning: " << w << "\n";
  return out.str();
}

std::string DecisionToJson(const Decision& o, const DecisionInputs& inputs) {
  nlohmann::json doc;
  doc["backend"] = o.default_index ? nlohmann::json(nullptr) : nlohmann::json(o.backend);
  doc["index_url"] = o.index_url;
  doc["channel"] = o.channel;
  doc["default_index"] = o.default_index;
  doc["forced_by"] = o.forced_by.empty() ? nlohmann::json(nullptr) : nlohmann::json(o.forced_by);
  doc["primary"] = o.primary;
  doc["primary_version"] = o.primary_version;
  doc["candidates"] = nlohmann::json::array();
  for (const Candidate& c : o.selection.candidates) {
    doc["candidates"].push_back({{"backend", c.backend}, {"kind", std::string(core::BackendKindWord(c.kind))},
                                 {"version", c.primary_version}, {"notes", c.notes}});
  }
  doc["rejected"] = nlohmann::json::array();
  for (const Rejection& r : o.selection.rejected) {
    doc["rejected"].push_back({{"backend", r.backend}, {"reasons", r.reasons}});
  }
  doc["explanation"] = o.explanation;
  doc["target"] = o.target_description;
  doc["catalogue"] = o.catalogue_description;
  doc["warnings"] = o.warnings;
  doc["facts"] = inputs.detected ? nlohmann::json(HostFactsJson(inputs.facts)) : nlohmann::json(nullptr);
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

namespace {

// `select --torch-backend variant`: the catalogue's variant index of the channel (a crawl of
// test/variant/, docs/variants.md), its newest fitting version by the decision over that one
// backend, and the variant of it this host's properties rank first (catalogue::RankVariants,
// the ordering install applies to the live pages), falling back to the null variant.
int RunSelectVariant(const Options& options, const BackendRequest& named, Deps& deps, std::ostream& out,
                     std::ostream& err) {
  // Gathered as for an automatic choice (the host detected), then decided over the variant
  // index alone: a catalogue without one has no backend of that name.
  ChoiceOptions choice = options.select;
  choice.torch_backend = "auto";
  core::Expected<DecisionInputs> inputs = GatherDecisionInputs(choice, deps);
  if (!inputs) {
    err << "torchdex select: " << inputs.error().message << "\n";
    return ExitStatus(inputs.error().code);
  }
  inputs->request.backend = named;
  const std::string& channel = inputs->request.channel;
  const std::string primary = inputs->catalogue.source->primary;
  const CatalogueView& view = inputs->catalogue.source->ViewFor(channel);
  const std::map<std::string, catalogue::CatalogueVariants>* versions = view.Variants(primary, "variant");
  if (versions == nullptr || versions->empty()) {
    err << "torchdex select: --torch-backend variant: the catalogue (" << inputs->catalogue.source->description
        << ") holds no variant index of the " << channel << " channel; crawl it (torchdex-crawl crawl --channel "
        << channel << " --export catalogue.json --export-channel " << channel
        << ") and name that catalogue in an override file, or plan from the live index with "
           "`torchdex install --dry-run --torch-backend variant --channel "
        << channel << "` (docs/variants.md)\n";
    return ExitStatus(core::ErrorCode::kNotOffered);
  }
  core::Expected<Decision> decided = Decide(inputs->request, inputs->facts, inputs->catalogue);
  if (!decided) {
    err << "torchdex select: " << decided.error().message << "\n";
    return ExitStatus(decided.error().code);
  }
  Decision& decision = *decided;
  for (const std::string& w : inputs->warnings) decision.warnings.push_back(w);
  core::Expected<VariantDetection> variants = DetectVariantsForChoice(choice, *inputs, deps);
  if (!variants) {
    err << "torchdex select: " << variants.error().message << "\n";
    return ExitStatus(variants.error().code);
  }
  for (const std::string& w : variants->warnings) decision.warnings.push_back(w);
  core::Requirement asked;
  asked.name = primary;
  for (const core::Requirement& r : decision.routed) {
    if (r.NormalizedName() == primary) asked = r;
  }
  core::Expected<VariantChoice> chosen =
      ChooseVariant(*versions, primary, asked, decision.prereleases != core::Prereleases::kDefault,
                    inputs->request.target.supported_tags, variants->properties);
  if (!chosen) {
    err << "torchdex select: " << chosen.error().message << " (" << decision.target_description << ")\n";
    return ExitStatus(chosen.error().code);
  }
  for (const std::string& w : chosen->warnings) decision.warnings.push_back(w);
  decision.backend = "variant";
  decision.forced_by = named.origin;
  decision.primary_version = chosen->version;
  std::vector<std::string> explanation = VariantHostExplanation(*variants);
  const std::string chose = primary + " " + chosen->version + ": variant " + chosen->label + ", by " + chosen->decided_by;
  explanation.push_back(chose);
  for (std::size_t i = 0; i < chosen->ranking.size(); ++i) {
    explanation.push_back("  " + std::to_string(i + 1) + ". " + chosen->ranking[i]);
  }
  explanation.insert(explanation.end(), decision.explanation.begin(), decision.explanation.end());
  decision.explanation = std::move(explanation);
  // The variants.json's URL is relative to the index base, which the variant index is under.
  const std::string suffix = decision.channel_path + "variant/";
  std::string base = decision.index_url;
  if (base.size() >= suffix.size() && base.compare(base.size() - suffix.size(), suffix.size(), suffix) == 0) {
    base.resize(base.size() - suffix.size());
  } else {
    base = decision.upstream_base;
  }
  const std::string json_url = base + chosen->file->url;
  if (choice.json) {
    nlohmann::json doc = nlohmann::json::parse(DecisionToJson(decision, *inputs));
    doc["variant_label"] = chosen->label;
    doc["variant_decided_by"] = chosen->decided_by;
    doc["variant_ranking"] = chosen->ranking;
    doc["variants_json"] = {{"url", json_url}, {"sha256", chosen->file->sha256}, {"schema", chosen->file->schema}};
    out << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return kExitOk;
  }
  out << DecisionToText(decision, choice.explain);
  if (!choice.explain) out << chose << "\n";
  else out << "variants.json: " << json_url << " (" << chosen->file->schema << ", sha256 " << chosen->file->sha256 << ")\n";
  return kExitOk;
}

}  // namespace

int RunSelect(const Options& options, Deps& deps, std::ostream& out, std::ostream& err) {
  if (core::Expected<BackendRequest> named = NamedBackendRequest(options.select, deps.env);
      named && named->name == "variant") {
    return RunSelectVariant(options, *named, deps, out, err);
  }
  core::Expected<DecisionInputs> inputs = GatherDecisionInputs(options.select, deps);
  core::Expected<Decision> decision =
      inputs ? Decide(inputs->request, inputs->facts, inputs->catalogue) : inputs.error();
  if (!decision) {
    err << "torchdex select: " << decision.error().message << "\n";
    return ExitStatus(decision.error().code);
  }
  for (const std::string& w : inputs->warnings) decision->warnings.push_back(w);
  const bool found = decision->default_index || !decision->backend.empty();
  if (options.select.json) {
    out << DecisionToJson(*decision, *inputs);
  } else if (found || options.select.explain) {
    out << DecisionToText(*decision, options.select.explain);
  }
  if (found) return kExitOk;
  // Nothing qualifies: say why on stderr too, whatever else was asked to be printed.
  std::string why;
  for (const Rejection& r : decision->selection.rejected) {
    if (!r.reasons.empty() && why.find(r.reasons.front()) == std::string::npos) {
      why += (why.empty() ? "" : "; ") + r.reasons.front();
    }
  }
  err << "torchdex select: no backend offers what was asked for " << decision->target_description
      << (why.empty() ? "" : ": " + why) << (options.select.explain ? "" : " (--explain says more)") << "\n";
  return kExitNoBackend;
}

}  // namespace torchdex::installer
