// `torchdex install` and `torchdex export`: the target interpreter, the decision (as `select`
// decides it), the plan over the live index, then the installer or an export.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "core/name.h"
#include "core/url.h"
#include "installer/cli/commands.h"
#include "installer/cli/decision_inputs.h"
#include "installer/cli/plan_for.h"
#include "installer/cli/lock_support.h"
#include "installer/cli/uv_resolve.h"
#include "installer/cli/variant_inputs.h"
#include "installer/detect/detect.h"
#include "installer/install/dependent_index.h"
#include "installer/install/export.h"
#include "installer/install/install_report.h"
#include "installer/install/installer_environment.h"
#include "installer/install/pip_command.h"
#include "installer/install/plan.h"
#include "installer/install/routing_index.h"
#include "installer/install/transport.h"
#include "catalogue/catalogue.h"
#include "installer/variants/providers.h"
#include "installer/python/interpreter_cache.h"

namespace torchdex::installer {

namespace po = boost::program_options;

const char* const kInstallDetails =
    "Selects the backend as `select` does, then resolves each routed requirement (torch,\n"
    "torchvision, ... as the catalogue and override files say) to one wheel on that backend's\n"
    "live index page, for the target interpreter's tags, following routed dependencies through\n"
    "PEP 658 metadata. pip (or `uv pip` with --installer uv) then runs with an argv, never a\n"
    "shell: routed packages as `name @ URL#sha256=HEX`, everything else as written. Its only\n"
    "index is a routing index torchdex serves on 127.0.0.1 for the run: routed names, asked or\n"
    "reached through any dependency, from the backend; every other name from the default\n"
    "index (--index-url, else the installer's own). A routed name is never looked up on the\n"
    "default index. The routing index's URL (under a token new each run) is given in\n"
    "PIP_INDEX_URL or UV_DEFAULT_INDEX and the indexes' credentials in a netrc of the run,\n"
    "never on the installer's argv, which other local users can read. With pip, its resolution is checked first (pip install --dry-run --report):\n"
    "a routed package from anywhere but the backend (a dependency's `torch @ URL`) is refused\n"
    "with the packages that ask for it, and the routed packages reached are pinned by URL and\n"
    "hash. No PIP_*/UV_* variable or configuration file that names an index or a source\n"
    "reaches pip or uv (a note names those left out). HTTPS only, except loopback and the\n"
    "override files' trusted_hosts. The installer's exit code is torchdex's.\n"
    "\n"
    "Target interpreter: --python, else $VIRTUAL_ENV, else python3 on PATH.\n"
    "See docs/install.md.\n";

const char* const kExportDetails =
    "Plans as `install --dry-run` does and writes the result for another tool:\n"
    "  requirements  a requirements file, routed packages pinned by URL and sha256\n"
    "  uv            [[tool.uv.index]] (explicit) and [tool.uv.sources] for pyproject.toml\n"
    "  pip-conf      index settings for pip.conf\n"
    "  uv-project    a pyproject.toml for uv: an explicit index per --backend, [tool.uv.sources]\n"
    "                for every routed package, those the other requirements reach included\n"
    "                (found with uv's universal resolution); several backends: an extra each,\n"
    "                with conflicts\n"
    "See docs/install.md.\n";

namespace {

void AddChoiceOptions(po::options_description& description, InstallCliOptions& o) {
  ChoiceOptions& c = o.choice;
  description.add_options()("requirement",
                            po::value<std::vector<std::string>>(&c.requirements)->value_name("REQ"),
                            "a requirement (PEP 508); positional")(
      "requirements,r",
      po::value<std::vector<std::string>>(&o.requirement_files)->value_name("FILE"),
      "read requirements from FILE, one a line ('#' comments)")(
      "torch-backend", po::value<std::string>(&c.torch_backend)->value_name("NAME"),
      "auto, cpu, cu124, rocm6.3, xpu, ..., or variant (the channel's PEP 825 variant index: the "
      "wheel this host's variant properties pick; docs/variants.md); default: "
      "TORCHDEX_TORCH_BACKEND, UV_TORCH_BACKEND, the config file, else auto")(
      "channel", po::value<std::string>(&c.channel)->value_name("C"),
      "stable (default), test or nightly")(
      "family", po::value<std::string>(&c.family)->value_name("NAME"),
      "the index family: pytorch (default), paddle (data/indexes.json; docs/families.md)")(
      "python", po::value<std::string>(&c.python)->value_name("PATH"), "the target interpreter")(
      "index-url", po::value<std::string>(&o.index_url)->value_name("URL"),
      "the default index for everything not routed (default: the installer's own setting)")(
      "explain", po::bool_switch(&c.explain), "say why the backend was chosen")(
      "root", po::value<std::string>(&c.root)->value_name("DIR"),
      "detect the host captured under DIR")("root-providers", po::bool_switch(&c.root_providers), "run the torchdex-provider-* executables on the PATH of the --root host (they are files of the capture; not run by default)")(
      "catalogue", po::value<std::vector<std::string>>(&c.catalogues)->value_name("FILE"),
      "an override file (mirror, backend URLs, routed names, trusted hosts); repeatable");
}

struct Prepared {
  Interpreter target;
  Decision decision;
  std::vector<std::string> explanation;  // the decision in sentences, warnings last
  std::vector<std::string> header;       // "target: ...", "chosen: ..." for export headers
  InstallPlan plan;
};

// The decision for the install, and for the variant index the host's properties.
struct InstallDecision {
  DecisionInputs inputs;
  Decision decision;
  std::optional<VariantDetection> variants;
  std::string backend;  // the decision's, or "default" (macOS: the default index)
};

core::Expected<InstallDecision> DecideInstall(const InstallCliOptions& o, const Interpreter& target, Deps& deps) {
  core::Expected<std::vector<std::string>> texts = RequirementTexts(o.choice.requirements, o.requirement_files);
  if (!texts) return texts.error();
  ChoiceOptions choice = o.choice;
  // --torch-backend variant: the family's variant index of the channel (test/variant/), whose
  // wheels are told apart by PEP 825 variant labels. The decision's routing is the CPU
  // backend's (every package is offered there); the wheel is chosen by the host's properties.
  // Named like any backend: the flag, TORCHDEX_TORCH_BACKEND / UV_TORCH_BACKEND, config.json.
  core::Expected<BackendRequest> named = NamedBackendRequest(choice, deps.env);
  if (!named) return named.error();
  const bool variant_index = named->name == "variant";
  if (variant_index) {
    choice.torch_backend = "cpu";
    // What the decision says of "cpu" names what the user named.
    choice.torch_backend_flag = named->origin + " variant: the variant index routes as cpu";
  }
  core::Expected<std::vector<AskedRequirement>> asked = ParseAskedRequirements(*texts);
  if (!asked) return asked.error();
  choice.parsed = std::move(asked).value();
  core::Expected<DecisionInputs> inputs = GatherDecisionInputs(choice, deps, &target);
  if (!inputs) return inputs.error();
  core::Expected<Decision> decided = Decide(inputs->request, inputs->facts, inputs->catalogue);
  if (!decided) return decided.error();
  InstallDecision out{std::move(inputs).value(), std::move(decided).value(), std::nullopt, {}};
  Decision& decision = out.decision;
  for (const std::string& w : out.inputs.warnings) decision.warnings.push_back(w);
  if (variant_index) {
    core::Expected<VariantDetection> detected = UseVariantIndex(choice, out.inputs, named->origin, deps, decision);
    if (!detected) return detected.error();
    out.variants = std::move(detected).value();
  }
  out.backend = decision.backend;
  if (decision.default_index) {
    out.backend = "default";
  } else if (decision.backend.empty()) {
    std::string why = "no backend offers what was asked for " + decision.target_description;
    for (const std::string& line : decision.explanation) why += "; " + line;
    return core::MakeError(why, core::ErrorCode::kNotOffered);
  }
  return out;
}

// A mirror may lack the backend auto chose (mirrors often carry a few backends): the next
// candidate that qualified is tried, and why the others were skipped is said.
void TryTheNextBackendsOnTheMirror(const InstallDecision& d, PlanRequest& request, index::Fetcher* fetcher,
                                   core::Expected<InstallPlan>& plan, Prepared& prepared, Decision& decision) {
  const std::vector<Candidate>& candidates = decision.selection.candidates;
  for (std::size_t i = 1; i < candidates.size() && !plan && plan.error().code == core::ErrorCode::kNotOffered; ++i) {
    prepared.explanation.push_back("skipped " + request.backend + " on the mirror: " + plan.error().message);
    request.backend = candidates[i].backend;
    request.backend_index_url =
        BackendIndexUrl(d.inputs.catalogue.overrides, decision.upstream_base, decision.channel_path, request.backend);
    plan = MakePlan(request, fetcher);
    if (plan) {
      prepared.explanation.push_back("chose " + request.backend + " instead: the next backend that qualified");
      decision.backend = request.backend;
      decision.index_url = request.backend_index_url;
      prepared.header[1] =
          "chosen: " + request.backend + " " + request.backend_index_url + " (the mirror lacks the backends before it)";
    }
  }
}

// Packages of an index keyed by the chosen torch (PyG's pages): on the page of this torch.
core::Status RouteDependents(const InstallDecision& d, InstallPlan& plan, const PlanRequest& request,
                             index::Fetcher* fetcher, Prepared& prepared, Decision& decision) {
  std::map<std::string, std::pair<std::string, std::string>> find_links;
  for (const auto& [name, url] : d.inputs.catalogue.overrides.find_links) find_links[name] = {url.value, url.origin};
  core::Expected<std::vector<DependentIndex>> dependent_indexes = DependentIndexesWith(find_links);
  if (!dependent_indexes) return dependent_indexes.error();
  core::Expected<DependentRouting> dependent = RouteDependentRequirements(plan, request, *dependent_indexes, fetcher);
  if (!dependent) return dependent.error();
  for (const std::string& line : dependent->explanation) prepared.explanation.push_back(line);
  for (const std::string& name : dependent->routed_names) {
    if (std::find(decision.routed_names.begin(), decision.routed_names.end(), name) == decision.routed_names.end()) {
      decision.routed_names.push_back(name);
    }
  }
  std::sort(decision.routed_names.begin(), decision.routed_names.end());
  return {};
}

// Each variant wheel of the plan: its label and why, the ranking.
void ExplainVariants(const InstallPlan& plan, std::vector<std::string>& explanation) {
  for (const PlannedWheel& w : plan.routed) {
    if (w.variants_json_url.empty()) continue;
    explanation.push_back(w.name + " " + w.version + ": variant " +
                          (w.variant_label.empty() ? std::string("(none)") : w.variant_label) + ", by " +
                          w.variant_decided_by);
    for (std::size_t i = 0; i < w.variant_ranking.size(); ++i) {
      explanation.push_back("  " + std::to_string(i + 1) + ". " + w.variant_ranking[i]);
    }
  }
}

core::Expected<Prepared> Prepare(const Options& options, Deps& deps) {
  const InstallCliOptions& o = options.install;
  core::Expected<std::string> path = FindInterpreter(o.choice.python, deps.env);
  if (!path) return path.error();
  core::Expected<Interpreter> target = QueryInterpreterCached(*path, deps.runner, deps.env, std::chrono::seconds(30));
  if (!target) return target.error();
  core::Expected<InstallDecision> decided = DecideInstall(o, *target, deps);
  if (!decided) return decided.error();
  Decision& decision = decided->decision;

  Prepared prepared{std::move(*target), {}, decision.explanation, {}, {}};
  for (const std::string& w : decision.warnings) prepared.explanation.push_back("warning: " + w);
  prepared.header.push_back("target: " + decision.target_description);
  prepared.header.push_back("chosen: " + decided->backend + " " + decision.index_url +
                            (decision.forced_by.empty() ? "" : " (named by " + decision.forced_by + ")"));
  for (const std::string& line : decision.explanation) prepared.header.push_back("why: " + line);

  PlanRequest request = PlanRequestFor(decision, prepared.target, o.index_url);
  request.backend = decided->backend;
  if (decided->inputs.facts.amd) request.gfx_targets = decided->inputs.facts.amd->gfx;
  if (decided->variants) request.variant_properties = &decided->variants->properties;
  std::unique_ptr<index::Fetcher> own_fetcher;
  index::Fetcher* fetcher = deps.fetcher;
  std::optional<CatalogueVersionsSource> offline;
  if (o.offline) {
    offline.emplace(decided->inputs.catalogue.source->ViewFor(decided->inputs.request.channel));
    request.offline = &*offline;
  } else {
    fetcher = FetcherFor(deps, request.trusted_hosts, own_fetcher);
  }
  core::Expected<InstallPlan> plan = MakePlan(request, fetcher);
  if (!plan && plan.error().code == core::ErrorCode::kNotOffered && !decision.mirror_url.empty() &&
      decision.forced_by.empty() && !o.offline) {
    TryTheNextBackendsOnTheMirror(*decided, request, fetcher, plan, prepared, decision);
  }
  if (!plan) return plan.error();
  if (core::Status ok = RouteDependents(*decided, *plan, request, fetcher, prepared, decision); !ok) return ok.error();
  ExplainVariants(*plan, prepared.explanation);
  prepared.decision = std::move(decision);
  prepared.plan = std::move(plan).value();
  return prepared;
}

// The plan as one JSON object (install --dry-run --json, export --json): what was decided, every
// routed wheel with its URL and hash, what goes to the default index, and the command.
std::string PlanToJson(const Prepared& p, const std::vector<std::string>* argv,
                       const InstallCommandOptions* options = nullptr) {
  using nlohmann::json;
  json doc;
  doc["backend"] = p.plan.backend;
  doc["index_url"] = core::RedactCredentials(p.plan.backend_index_url);
  doc["default_index_url"] = p.plan.default_index_url.empty() ? json(nullptr) : json(core::RedactCredentials(p.plan.default_index_url));
  doc["channel"] = p.decision.channel;
  doc["forced_by"] = p.decision.forced_by.empty() ? json(nullptr) : json(p.decision.forced_by);
  doc["target"] = p.plan.target_description;
  doc["offline"] = p.plan.offline;
  doc["routed"] = json::array();
  for (const PlannedWheel& w : p.plan.routed) {
    doc["routed"].push_back({{"name", w.name},
                             {"version", w.version},
                             {"filename", w.filename},
                             {"url", core::RedactCredentials(w.url)},
                             {"sha256", w.sha256},
                             {"page_url", core::RedactCredentials(w.page_url)},
                             {"required_by", w.required_by},
                             {"extras", w.extras},
                             {"device", w.device_note.empty() ? json(nullptr) : json(w.device_note)},
                             {"marker", w.marker.empty() ? json(nullptr) : json(w.marker)}});
    if (!w.variants_json_url.empty()) {
      json& entry = doc["routed"].back();
      entry["variant_label"] = w.variant_label.empty() ? json(nullptr) : json(w.variant_label);
      entry["variant_decided_by"] = w.variant_decided_by;
      entry["variants_json"] = {
          {"url", core::RedactCredentials(w.variants_json_url)},
          {"sha256", w.variants_json_sha256.empty() ? json(nullptr) : json(w.variants_json_sha256)},
          {"schema", w.variants_json_schema}};
    }
  }
  doc["other"] = p.plan.other;
  doc["explanation"] = p.explanation;
  doc["warnings"] = p.plan.warnings;
  json command = nullptr;
  if (argv != nullptr) {
    command = json::array();
    for (const std::string& a : *argv) command.push_back(core::RedactCredentials(a));
  }
  doc["command"] = command;
  // The routing index is given in the environment, never on the argv (issue 29, item 9).
  doc["command_environment"] = nullptr;
  if (argv != nullptr && options != nullptr) {
    doc["command_environment"] = {{std::string(IndexVariable(options->installer)), options->routing_index_url}};
  }
  // Every string of it, the warnings and explanation included, shows URLs without secrets.
  return core::RedactCredentials(doc.dump(2, ' ', false, json::error_handler_t::replace)) + "\n";
}

}  // namespace

core::Expected<std::vector<std::string>> RequirementTexts(const std::vector<std::string>& requirements,
                                                         const std::vector<std::string>& files) {
  std::vector<std::string> texts = requirements;
  for (const std::string& file : files) {
    if (core::Status ok = ReadRequirementFile(file, texts); !ok) return ok.error();
  }
  return texts;
}

// Requirement lines of a file: comments and blank lines dropped; pip options are refused, so
// nothing in a file can add an index behind the plan's back.
core::Status ReadRequirementFile(const std::string& path, std::vector<std::string>& into) {
  // A requirements file is small; /dev/stdin and pipes are read as pip reads them, but a
  // directory is not an empty file, and an endless or huge one is not read without end.
  constexpr std::size_t kMaxRequirementFile = 16 << 20;
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored)) {
    return core::MakeError("-r " + path + ": a directory, not a requirements file", core::ErrorCode::kBadInputFile);
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) return core::MakeError("-r " + path + ": cannot read the file", core::ErrorCode::kBadInputFile);
  std::string text;
  char chunk[65536];
  while (text.size() <= kMaxRequirementFile && file.read(chunk, sizeof chunk).gcount() > 0) {
    text.append(chunk, static_cast<std::size_t>(file.gcount()));
  }
  if (file.bad()) return core::MakeError("-r " + path + ": cannot read the file", core::ErrorCode::kBadInputFile);
  if (text.size() > kMaxRequirementFile) {
    return core::MakeError("-r " + path + ": more than 16 MiB, not a requirements file", core::ErrorCode::kBadInputFile);
  }
  std::istringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (number == 1 && line.starts_with("\xEF\xBB\xBF")) line.erase(0, 3);  // a UTF-8 BOM, as pip
    if (const size_t hash = line.find('#');
        hash != std::string::npos &&
        (hash == 0 || std::isspace(static_cast<unsigned char>(line[hash - 1])))) {
      line.erase(hash);
    }
    const size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos) continue;
    line = line.substr(first, line.find_last_not_of(" \t\r") - first + 1);
    if (line.front() == '-') {
      return core::MakeError(path + " line " + std::to_string(number) + ": option \"" + line +
                                 "\" is not supported in requirement files given to torchdex; "
                                 "pass installer options after --",
                             core::ErrorCode::kUsage);
    }
    into.push_back(line);
  }
  return {};
}

void AddInstallOptions(po::options_description& description, Options& options) {
  AddChoiceOptions(description, options.install);
  description.add_options()("dry-run", po::bool_switch(&options.install.dry_run),
                            "print the plan and the command; change nothing")(
      "json", po::bool_switch(&options.install.json), "with --dry-run: the plan as a JSON object")(
      "offline", po::bool_switch(&options.install.offline),
      "with --dry-run: versions from the compiled table, no network")(
      "installer", po::value<std::string>(&options.install.installer)->value_name("pip|uv"),
      "pip (default) or uv (must be on PATH)");
}

void AddExportOptions(po::options_description& description, Options& options) {
  AddChoiceOptions(description, options.install);
  description.add_options()("format",
                            po::value<std::string>(&options.install.format)->value_name("F"),
                            "requirements (default), uv, pip-conf or uv-project")(
      "offline", po::bool_switch(&options.install.offline),
      "versions from the compiled table, no network (a requirements export needs the live "
      "pages' URLs: use it with --format uv or pip-conf)")(
      "json", po::bool_switch(&options.install.json), "write the plan as a JSON object instead of --format")(
      "output,o", po::value<std::string>(&options.install.output)->value_name("FILE"),
      "write to FILE instead of standard output")(
      "backend", po::value<std::vector<std::string>>(&options.install.backends)->value_name("NAME"),
      "with --format uv-project: a backend to configure (an extra each when several); repeatable");
}

core::Expected<bool> ValidateInstallOptions(Options& options) {
  const InstallCliOptions& o = options.install;
  if (!ParseInstallerKind(o.installer)) return ParseInstallerKind(o.installer).error();
  if (!ParseExportFormat(o.format)) return ParseExportFormat(o.format).error();
  const std::string& channel = o.choice.channel;
  if (!channel.empty() && channel != "stable" && channel != "test" && channel != "nightly") {
    return core::MakeError("--channel: expected stable, test or nightly, got \"" + channel + "\"");
  }
  if (!o.backends.empty() && o.format != "uv-project") {
    return core::MakeError("--backend is for --format uv-project; name one backend with --torch-backend");
  }
  if (!o.backends.empty() && !o.choice.torch_backend.empty()) {
    return core::MakeError("--backend and --torch-backend: name the backends with --backend only");
  }
  if (options.command == "install" && o.json && !o.dry_run) {
    return core::MakeError("--json prints the plan: use it with --dry-run");
  }
  if (options.command == "install" && o.offline && !o.dry_run) {
    return core::MakeError(
        "--offline plans without wheel URLs and can only be used with "
        "--dry-run");
  }
  if (o.choice.requirements.empty() && o.requirement_files.empty()) {
    return core::MakeError(options.command + ": no requirements given");
  }
  return true;
}

// pip reads a variant wheel's sixth filename component as a bad build tag, uv 0.13.9 as a variant
// it cannot use without a preview feature (docs/variants.md), and both refuse the
// file: what they are to install (an install, an export) must hold none.
core::Status NoVariantWheels(const InstallPlan& plan, std::string_view what) {
  for (const PlannedWheel& w : plan.routed) {
    if (w.variant_label.empty()) continue;
    return core::MakeError(w.filename + " is a variant wheel (PEP 825, a draft): pip and uv cannot install it yet, so " +
                               std::string(what) + "; --dry-run (or export --json) shows the plan");
  }
  return {};
}

// The installer's resolution first (install_report.h), installing nothing: pip's
// `install --dry-run --report`, or uv's `pip compile` (uv has no report), through the same
// routing index. Every routed package of it must be a file the routing index served from the
// backend; those the plan did not pin are pinned, and every package an index gave is held at
// its checked version by a constraints file in `work`, so the install resolves to what was
// checked.
struct CheckedResolution {
  std::vector<PlannedWheel> pins;
  std::string constraints_path;  // "" when there is nothing to hold
};

core::Expected<std::vector<ReportedPackage>> ResolveOnly(const InstallPlan& plan, const InstallCommandOptions& command,
                                                         const Interpreter& target, const RoutingIndexServer& server,
                                                         const Environment& env, const std::string& work, Deps& deps) {
  const bool uv = command.installer == InstallerKind::kUv;
  const std::string out_path = work + (uv ? "/pylock.toml" : "/report.json");  // uv insists on the name
  std::vector<std::string> argv;
  if (uv) {
    std::string input = PinnedRoutedInput(plan);
    for (const std::string& other : plan.other) input += other + "\n";
    if (core::Status ok = catalogue::WriteFileAtomically(work + "/requirements.in", input); !ok) return ok.error();
    argv = UvCompileArgv(command.uv, target, false, work + "/requirements.in", out_path);
    for (const std::string& host : plan.trusted_hosts) argv.insert(argv.end() - 1, {"--allow-insecure-host", host});
    const std::vector<std::string> resolving = ResolutionArgs(command.extra_args);  // as the install resolves
    argv.insert(argv.end() - 1, resolving.begin(), resolving.end());
  } else {
    core::Expected<std::vector<std::string>> report = ResolutionReportCommand(plan, command, out_path);
    if (!report) return report.error();
    argv = std::move(report).value();
  }
  const ProcessResult result = deps.runner.Run(argv, env, kInstallTimeout);
  if (!result.Succeeded()) {
    const std::string said = result.output + result.errors;
    if (!uv && (said.find("no such option: --report") != std::string::npos ||
                said.find("no such option: --dry-run") != std::string::npos)) {
      return core::MakeError(command.python + ": its pip is older than 22.2 and has no `install --report`, with "
                                 "which torchdex checks pip's resolution before it installs (docs/install.md); "
                                 "upgrade pip (" + command.python + " -m pip install -U pip) or use --installer uv",
                             core::ErrorCode::kInstallerFailed);
    }
    return core::MakeError(std::string(uv ? "uv" : "pip") + "'s resolution (" +
                               DisplayCommand(argv, command, server.DisplayUrl()) + ") " +
                               (result.status == ProcessResult::Status::kExited
                                    ? "exited with " + std::to_string(result.exit_code)
                                    : result.Describe(kInstallTimeout)) +
                               ":\n" + result.errors + result.output + result.failure,
                           core::ErrorCode::kInstallerFailed);
  }
  core::Expected<std::string> text = lockcli::ReadFileText(out_path, 256u << 20);
  if (!text) return text.error();
  return uv ? ParseUvResolution(*text, "uv's resolution " + out_path)
            : ParseInstallReport(*text, "pip's report " + out_path);
}

core::Expected<CheckedResolution> CheckResolution(const InstallPlan& plan, const InstallCommandOptions& command,
                                                  const Interpreter& target, const RoutingIndexServer& server,
                                                  const Environment& env, const std::string& work, Deps& deps) {
  core::Expected<std::vector<ReportedPackage>> report = ResolveOnly(plan, command, target, server, env, work, deps);
  if (!report) return report.error();
  const std::string_view resolver = command.installer == InstallerKind::kUv ? "uv" : "pip";
  if (core::Status routed = CheckReportRouting(*report, server.index(), resolver); !routed) return routed.error();
  CheckedResolution checked;
  checked.pins = ReportedRoutedPins(*report, plan, server.index());
  std::string constraints;
  for (const std::string& line : ReportedConstraints(*report)) constraints += line + "\n";
  if (!constraints.empty()) {
    checked.constraints_path = work + "/constraints.txt";
    if (core::Status ok = catalogue::WriteFileAtomically(checked.constraints_path, constraints); !ok) return ok.error();
  }
  return checked;
}

// The run itself: the routing index started for it, the installer's resolution checked through
// it, then the install, held at what was checked. The index is given to the child in its
// environment and the indexes' credentials in a netrc of the run (issue 29, item 9).
int InstallThroughRoutingIndex(const Prepared& prepared, const RoutingIndexConfig& routing,
                               InstallCommandOptions command, Deps& deps, std::ostream& out, std::ostream& err) {
  // What the command line cannot run (an option after -- that is refused, an offline plan) is
  // said before anything starts.
  command.routing_index_url = kRoutingIndexPlaceholderUrl;
  if (core::Expected<std::vector<std::string>> runnable = InstallCommand(prepared.plan, command); !runnable) {
    err << "torchdex install: " << core::RedactCredentials(runnable.error().message) << "\n";
    return ExitStatus(runnable.error().code);
  }
  core::Expected<std::unique_ptr<RoutingIndexServer>> started =
      RoutingIndexServer::Start(routing, deps.fetcher, RoutingFetchOptions());
  if (!started) {
    err << "torchdex install: " << core::RedactCredentials(started.error().message) << "\n";
    return ExitStatus(started.error().code);
  }
  const std::unique_ptr<RoutingIndexServer> server = std::move(started).value();
  command.routing_index_url = server->url();
  command.credentials = &server->index().config().credentials;
  core::Expected<InstallerEnvironment> child = EnvironmentForInstaller(
      deps.env, command.installer == InstallerKind::kUv ? InstallerRun::kUvPip : InstallerRun::kPip);
  if (!child) {
    err << "torchdex install: " << core::RedactCredentials(child.error().message) << "\n";
    return ExitStatus(child.error().code);
  }
  out << LeftOutNote(*child, command.installer == InstallerKind::kUv ? "uv" : "pip");
  lockcli::TemporaryDirectory work;
  if (work.path().empty()) {
    err << "torchdex install: cannot make a temporary directory\n";
    return kExitFailure;
  }
  if (core::Status given = server->Give(command.installer, deps.env, work.path(), child->env); !given) {
    err << "torchdex install: " << core::RedactCredentials(given.error().message) << "\n";
    return ExitStatus(given.error().code);
  }
  for (const std::string& host : server->index().config().credentials.Unfit()) {
    err << "torchdex: warning: the credentials for " << host
        << " do not fit a netrc entry (another user for the same host, or a space or quote in them): they stay "
           "in the URLs pip or uv is given, which other local users can read while it runs\n";
  }
  core::Expected<CheckedResolution> checked =
      CheckResolution(prepared.plan, command, prepared.target, *server, child->env, work.path(), deps);
  if (!checked) {
    server->Stop();
    out << core::RedactCredentials(server->index().Summary());
    err << "torchdex install: " << core::RedactCredentials(checked.error().message) << "\n";
    return ExitStatus(checked.error().code);
  }
  InstallPlan pinned = prepared.plan;
  for (PlannedWheel& w : checked->pins) {
    out << "pinned: " << w.name << " " << w.version << " from backend " << prepared.plan.backend << " ("
        << w.required_by.front() << ")\n";
    pinned.routed.push_back(std::move(w));
  }
  core::Expected<std::vector<std::string>> argv = InstallCommand(pinned, command);
  if (argv && !checked->constraints_path.empty()) argv->insert(argv->end(), {"-c", checked->constraints_path});
  if (!argv) {
    err << "torchdex install: " << core::RedactCredentials(argv.error().message) << "\n";
    return ExitStatus(argv.error().code);
  }
  out << "running: " << core::RedactCredentials(DisplayCommand(*argv, command, server->DisplayUrl())) << "\n";
  out.flush();
  const int code = ExecuteInstall(*argv, deps.runner, child->env, out, err);
  server->Stop();
  out << core::RedactCredentials(server->index().Summary());
  return code;
}

int RunInstall(const Options& options, Deps& deps, std::ostream& out, std::ostream& err) {
  const InstallCliOptions& o = options.install;
  core::Expected<Prepared> prepared = Prepare(options, deps);
  if (!prepared) {
    err << "torchdex install: " << core::RedactCredentials(prepared.error().message) << "\n";
    return ExitStatus(prepared.error().code);
  }
  if ((o.choice.explain || o.dry_run) && !o.json) {
    for (const std::string& line : prepared->explanation) out << core::RedactCredentials(line) << "\n";
  }
  if (!o.dry_run && !o.json) {
    if (core::Status none = NoVariantWheels(prepared->plan, "nothing is installed"); !none) {
      err << "torchdex install: " << none.error().message << "\n";
      return kExitFailure;
    }
  }
  InstallCommandOptions command;
  command.installer = *ParseInstallerKind(o.installer);
  command.python = prepared->target.path;
  command.extra_args = options.passthrough;
  if (command.installer == InstallerKind::kUv) {
    core::Expected<std::string> uv = FindUv(deps.env);
    if (!uv) {
      err << "torchdex install: " << core::RedactCredentials(uv.error().message) << "\n";
      return kExitFailure;
    }
    command.uv = *uv;
  }
  if (o.json) {
    command.routing_index_url = kRoutingIndexPlaceholderUrl;  // the command as it would run
    core::Expected<std::vector<std::string>> argv = InstallCommand(prepared->plan, command);
    out << PlanToJson(*prepared, argv ? &*argv : nullptr, &command);
    return kExitOk;
  }
  if (o.dry_run) {
    out << core::RedactCredentials(FormatPlan(prepared->plan));
    if (prepared->plan.offline) {
      out << "would run: nothing (an offline plan has no wheel URLs)\n";
      return kExitOk;
    }
  } else {
    for (const std::string& warning : prepared->plan.warnings) {
      err << "torchdex: warning: " << core::RedactCredentials(warning) << "\n";
    }
  }
  // The installer's only index is the routing index: routed names reached through any
  // dependency come from the backend too, every other name from the default index.
  const std::string default_index = prepared->plan.default_index_url.empty()
                                        ? InstallerDefaultIndex(command, deps.runner, deps.env)
                                        : prepared->plan.default_index_url;
  const Decision& decision = prepared->decision;
  const RoutingIndexConfig routing = RoutingConfigFor(
      prepared->plan, decision.routed_names, default_index,
      MirrorRule{decision.mirror_url, decision.upstream_base, decision.upstream_hosts,
                 prepared->plan.trusted_hosts});
  if (o.dry_run) {
    command.routing_index_url = kRoutingIndexPlaceholderUrl;
    out << core::RedactCredentials(DescribeRoutingIndex(routing, command.routing_index_url));
    core::Expected<std::vector<std::string>> argv = InstallCommand(prepared->plan, command);
    if (!argv) {
      err << "torchdex install: " << core::RedactCredentials(argv.error().message) << "\n";
      return ExitStatus(argv.error().code);
    }
    out << "would run: " << core::RedactCredentials(DisplayCommand(*argv, command, kRoutingIndexPlaceholderUrl))
        << "\n";
    return kExitOk;
  }
  return InstallThroughRoutingIndex(*prepared, routing, command, deps, out, err);
}

// The routed packages that the plan's other requirements reach (lightning -> torch), which
// uv's universal resolution through the routing index finds: uv routes a name to an explicit
// index only when the project names it, so the project must name these too (issue 29, item 4).
// They are added to the plan, under the markers that bring them in.
core::Status AddReachedRoutedWheels(Prepared& p, Deps& deps, std::ostream& err) {
  if (p.plan.other.empty()) return {};  // the planner followed every routed requirement itself
  core::Expected<std::string> uv =
      FindUv(deps.env, "export --format uv-project",
             "it resolves the other requirements with uv to find the routed packages they reach (lightning -> "
             "torch); install uv or put it on PATH");
  if (!uv) return uv.error();
  InstallCommandOptions uv_command{InstallerKind::kUv, p.target.path, *uv, {}};
  UvResolveRequest resolve;
  resolve.plan = &p.plan;
  resolve.routed_names = p.decision.routed_names;
  resolve.default_index = p.plan.default_index_url.empty() ? InstallerDefaultIndex(uv_command, deps.runner, deps.env)
                                                           : p.plan.default_index_url;
  resolve.mirror = MirrorRule{p.decision.mirror_url, p.decision.upstream_base, p.decision.upstream_hosts,
                              p.plan.trusted_hosts};
  resolve.input = PinnedRoutedInput(p.plan);
  for (const std::string& other : p.plan.other) resolve.input += other + "\n";
  resolve.target = &p.target;
  resolve.uv = *uv;
  resolve.universal = true;
  resolve.what = "the " + p.plan.backend + " project's routed packages";
  core::Expected<UvResolution> resolved = ResolveThroughRoutingIndex(resolve, deps, err);
  if (!resolved) return resolved.error();
  const std::set<std::string> routed(p.decision.routed_names.begin(), p.decision.routed_names.end());
  for (const LockedPackage& locked : resolved->lock.packages) {
    const bool planned = std::any_of(p.plan.routed.begin(), p.plan.routed.end(),
                                     [&](const PlannedWheel& w) { return w.name == locked.name; });
    if (planned || !routed.contains(locked.name)) continue;
    PlannedWheel w;
    w.name = locked.name;
    w.version = locked.version;
    w.dependency_marker = locked.marker;
    w.required_by = {"reached through the other requirements"};
    p.plan.routed.push_back(std::move(w));
  }
  return {};
}

// export --format uv-project: a plan per backend, one pyproject.toml for them all.
core::Expected<std::string> UvProjectExport(const Options& options, Deps& deps, std::ostream& err) {
  const InstallCliOptions& o = options.install;
  std::vector<std::string> backends = o.backends;
  if (backends.empty()) backends.push_back(o.choice.torch_backend);
  std::vector<Prepared> prepared;
  for (const std::string& backend : backends) {
    Options one = options;
    one.install.choice.torch_backend = backend;
    core::Expected<Prepared> p = Prepare(one, deps);
    if (!p) return p.error();
    if (core::Status none = NoVariantWheels(p->plan, "no uv project is written"); !none) return none.error();
    if (core::Status reached = AddReachedRoutedWheels(*p, deps, err); !reached) return reached.error();
    prepared.push_back(std::move(p).value());
  }
  UvProjectRequest request;
  for (const Prepared& p : prepared) request.plans.push_back(&p.plan);
  for (const core::Requirement& r : prepared.front().decision.routed) request.routed_asked.push_back(r.ToString());
  request.others = prepared.front().plan.other;
  const std::string& version = prepared.front().target.full_version;
  const size_t second_dot = version.find('.', version.find('.') + 1);
  request.requires_python = ">=" + version.substr(0, second_dot);
  ExportContext context;
  for (const Prepared& p : prepared) {
    for (const std::string& line : p.header) context.header.push_back(line);
  }
  return ExportUvProject(request, context);
}

int RunExport(const Options& options, Deps& deps, std::ostream& out, std::ostream& err) {
  const InstallCliOptions& o = options.install;
  core::Expected<std::string> text = core::MakeError("");
  if (!o.json && o.format == "uv-project") {
    text = UvProjectExport(options, deps, err);
    if (!text) {
      err << "torchdex export: " << core::RedactCredentials(text.error().message) << "\n";
      return ExitStatus(text.error().code);
    }
  } else {
    core::Expected<Prepared> prepared = Prepare(options, deps);
    if (!prepared) {
      err << "torchdex export: " << core::RedactCredentials(prepared.error().message) << "\n";
      return ExitStatus(prepared.error().code);
    }
    if (core::Status none = NoVariantWheels(prepared->plan, "nothing is exported"); !o.json && !none) {
      err << "torchdex export: " << none.error().message << "\n";
      return kExitFailure;
    }
    ExportContext context{prepared->header};
    text = o.json ? core::Expected<std::string>(PlanToJson(*prepared, nullptr))
                  : Export(prepared->plan, *ParseExportFormat(o.format), context);
  }
  if (!text) {
    err << "torchdex export: " << core::RedactCredentials(text.error().message) << "\n";
    return kExitFailure;
  }
  if (o.output.empty()) {
    out << *text;
    return kExitOk;
  }
  // Written beside the target and renamed over it: a failed run leaves the old file whole.
  if (core::Status written = catalogue::WriteFileAtomically(o.output, *text); !written) {
    err << "torchdex export: " << written.error().message << "\n";
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace torchdex::installer
