// `torchdex lock` (docs/teams.md): one PEP 751 lock file per backend, resolved by the real uv
// through the routing index. `sync` is sync_command.cc, `sync --uv-project` sync_uv_project.cc.
#include <stdlib.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "core/name.h"
#include "core/specifier.h"
#include "core/spelling.h"
#include "core/tags.h"
#include "core/url.h"
#include "core/version.h"
#include "core/wheel.h"
#include "installer/cli/commands.h"
#include "installer/cli/decision_inputs.h"
#include "installer/cli/lock_support.h"
#include "installer/cli/plan_for.h"
#include "installer/cli/uv_resolve.h"
#include "installer/cli/variant_inputs.h"
#include "installer/detect/detect.h"
#include "installer/platform/file_reader.h"
#include "installer/install/installer_environment.h"
#include "installer/install/pip_command.h"
#include "installer/install/plan.h"
#include "installer/install/routing_index.h"
#include "installer/install/transport.h"
#include "installer/lock/pylock.h"
#include "installer/lock/toml.h"
#include "installer/python/interpreter_cache.h"

namespace torchdex::installer {

namespace po = boost::program_options;
namespace fs = std::filesystem;
using namespace lockcli;  // NOLINT(build/namespaces): this command's own helpers

const char* const kLockDetails =
    "For each --backend (none: the one `select` chooses for this machine; all-compatible: every\n"
    "backend `select` finds fit for this machine, best first; all: every backend of the catalogue\n"
    "that offers what was asked, whatever the hardware), decides as `install`\n"
    "does with that backend named, pins every routed package (torch, torchvision, triton ...)\n"
    "to one wheel of the backend's index with its sha256, and has the real uv resolve the rest\n"
    "(`uv pip compile --format pylock.toml`, uv found on PATH) with the routing index as its\n"
    "only index: routed names from the backend, every other name from the default index\n"
    "(--index-url, else uv's UV_DEFAULT_INDEX / UV_INDEX_URL, else PyPI). A routed name never\n"
    "comes from the default index. Writes DIR/pylock.<backend>.toml (PEP 751; a '.' of the\n"
    "backend becomes '-': pylock.rocm6-3.toml) with [tool.torchdex]: the backend, the\n"
    "catalogue and its date, the target and the decision. The lock is for the target\n"
    "interpreter (--python, else $VIRTUAL_ENV, else python3), or for the Linux CPython that\n"
    "--python-version and --platform describe.\n"
    "--backend variant (the channel's PEP 825 variant index, docs/variants.md): the variant\n"
    "wheel this machine's properties pick, locked with its [packages.variants-json]; uv resolves\n"
    "what that wheel requires (its PEP 658 metadata) in its place, as uv reads no variant wheel.\n"
    "Writes pylock.variant.toml. See docs/teams.md.\n";

namespace {

// ---------------------------------------------------------------------------------------
// lock

struct LockOutcome {
  std::string path;
  PyLock lock;
};

core::Expected<Interpreter> LockTargetInterpreter(const std::string& python, Deps& deps) {
  core::Expected<std::string> path = FindInterpreter(python, deps.env);
  if (!path) return path.error();
  return QueryInterpreterCached(*path, deps.runner, deps.env, std::chrono::seconds(30));
}

// --python-version X.Y [--platform TAG]: a CPython described, not asked. Its markers are those
// of CPython X.Y.0 on Linux (PEP 508's values for that platform); uv resolves for it with
// --python-version and --python-platform. No path: uv is given the description.
core::Expected<Interpreter> DescribedTarget(const std::string& version, const std::string& platform, Deps& deps) {
  const std::string tag = platform.empty() ? "linux_" + deps.system.machine : platform;
  core::Expected<core::InterpreterInfo> info = DescribeTarget(version, tag, deps.system.glibc_minor);
  if (!info) return core::MakeError("--python-version/--platform: " + info.error().message, core::ErrorCode::kUsage);
  if (info->os != core::OperatingSystem::kLinux || (info->arch != "x86_64" && info->arch != "aarch64")) {
    return core::MakeError("--platform " + tag + ": torchdex lock describes Linux targets only (linux_x86_64, "
                               "linux_aarch64); lock on the machine itself otherwise",
                           core::ErrorCode::kUsage);
  }
  const size_t dot = version.find('.');
  const int major = std::stoi(version.substr(0, dot));
  const int minor = std::stoi(version.substr(dot + 1));
  Interpreter target;
  target.info = *info;
  target.full_version = std::to_string(major) + "." + std::to_string(minor) + ".0";
  target.markers = core::MarkerEnvironment::ForLinuxCPython(major, minor, 0, info->arch);
  target.description = "CPython " + version + " on linux " + info->arch + " (--python-version" +
                       (platform.empty() ? "" : ", --platform " + platform) + ")";
  return target;
}

// --backend all-compatible: the backends `select` finds fit for this machine (its candidates,
// best first: the same decision as select's). --backend all: every backend of the catalogue's
// channel that offers what was asked, whatever the hardware. The ones left out are counted, and
// with --explain each is said with why.
core::Expected<std::vector<std::string>> ExpandBackends(const LockCliOptions& o, const std::string& mode,
                                                        const std::vector<AskedRequirement>& asked,
                                                        const Interpreter& target, Deps& deps, std::ostream& out) {
  ChoiceOptions choice = o.choice;
  choice.torch_backend = "auto";  // the machine decides: a backend named by the environment does not
  choice.parsed = asked;
  core::Expected<DecisionInputs> inputs = GatherDecisionInputs(choice, deps, &target);
  if (!inputs) return inputs.error();
  std::vector<std::string> names;
  // The backends left out: each with its reason under --explain, else how many.
  std::vector<std::string> skipped;
  auto say_skipped = [&] {
    if (o.choice.explain) {
      for (const std::string& line : skipped) out << "not locked: " << core::RedactCredentials(line) << "\n";
    } else if (!skipped.empty()) {
      out << "not locked: " << skipped.size() << " other backend" << (skipped.size() == 1 ? "" : "s")
          << " of the catalogue (--explain says why)\n";
    }
  };
  if (mode == "all-compatible") {
    core::Expected<Decision> decided = Decide(inputs->request, inputs->facts, inputs->catalogue);
    if (!decided) return decided.error();
    if (decided->default_index) {
      return core::MakeError("macOS: PyTorch's wheels come from the default index, no backend applies; "
                                 "a lock per backend is for Linux and Windows targets",
                             core::ErrorCode::kNotOffered);
    }
    for (const Candidate& c : decided->selection.candidates) names.push_back(c.backend);
    for (const Rejection& r : decided->selection.rejected) {
      skipped.push_back(r.backend + ": " + Join(r.reasons, "; "));
    }
    say_skipped();
    if (names.empty()) {
      return core::MakeError("--backend all-compatible: no backend fits " + decided->target_description +
                                 " for what was asked" + (o.choice.explain ? " (the reasons above)" : " (--explain says why)"),
                             core::ErrorCode::kNotOffered);
    }
    out << "locking for " << Join(names, ", ") << ": the backends that fit this machine, best first\n";
    return names;
  }
  const std::string channel = inputs->request.channel;
  // Whatever the hardware: the host's OS and architecture only, no GPUs to check.
  HostFacts bare;
  bare.os = inputs->facts.os;
  bare.arch = inputs->facts.arch;
  for (const std::string& name : inputs->catalogue.source->BackendNames(channel)) {
    if (name == "variant") {
      skipped.push_back("variant: the variant index is locked only when named (--backend variant)");
      continue;
    }
    DecisionRequest request = inputs->request;
    request.backend = {name, "--backend all"};
    core::Expected<Decision> decided = Decide(request, bare, inputs->catalogue);
    if (decided && decided->default_index) {
      return core::MakeError("macOS: PyTorch's wheels come from the default index, no backend applies; "
                                 "a lock per backend is for Linux and Windows targets",
                             core::ErrorCode::kNotOffered);
    }
    if (decided && !decided->backend.empty()) {
      names.push_back(decided->backend);
    } else {
      skipped.push_back(name + ": " + (decided ? "offers nothing that was asked" : decided.error().message));
    }
  }
  say_skipped();
  if (names.empty()) {
    return core::MakeError("--backend all: no backend of the catalogue's " + channel +
                               " channel offers what was asked" +
                               (o.choice.explain ? " (the reasons above)" : " (--explain says why)"),
                           core::ErrorCode::kNotOffered);
  }
  out << "locking for " << Join(names, ", ") << ": every backend of the catalogue that offers what was asked\n";
  return names;
}

// The decision for one lock: its inputs, the backend named (or chosen), and for the variant
// index the host's properties.
struct LockDecision {
  DecisionInputs inputs;
  Decision decision;
  std::optional<VariantDetection> variants;
};

// --backend variant: the channel's PEP 825 variant index, decided as install decides it
// (variant_inputs.h): the CPU backend's routing, the wheel chosen by the host's properties.
core::Expected<LockDecision> DecideLock(const LockCliOptions& o, const std::string& backend_name,
                                        const std::vector<AskedRequirement>& asked, const Interpreter& target,
                                        Deps& deps) {
  const bool variant_index = backend_name == "variant";
  const std::string named = variant_index ? "cpu" : backend_name;
  ChoiceOptions choice = o.choice;
  choice.torch_backend = named.empty() ? "auto" : named;
  choice.torch_backend_flag = "--backend";
  choice.parsed = asked;
  core::Expected<DecisionInputs> inputs = GatherDecisionInputs(choice, deps, &target);
  if (!inputs) return inputs.error();
  if (!named.empty()) {
    inputs->request.backend = {named, variant_index ? "--backend variant: the variant index routes as cpu" : "--backend"};
  }
  core::Expected<Decision> decided = Decide(inputs->request, inputs->facts, inputs->catalogue);
  if (!decided) return decided.error();
  LockDecision out{std::move(inputs).value(), std::move(decided).value(), std::nullopt};
  Decision& decision = out.decision;
  if (variant_index && !decision.default_index && !decision.backend.empty()) {
    core::Expected<VariantDetection> detected = UseVariantIndex(choice, out.inputs, "--backend", deps, decision);
    if (!detected) return detected.error();
    out.variants = std::move(detected).value();
  }
  if (decision.default_index) {
    return core::MakeError("macOS: PyTorch's wheels come from the default index, no backend applies; "
                               "a lock per backend is for Linux and Windows targets",
                           core::ErrorCode::kNotOffered);
  }
  if (decision.backend.empty()) {
    std::string why = "no backend offers what was asked for " + decision.target_description;
    for (const std::string& line : decision.explanation) why += "; " + line;
    return core::MakeError(why, core::ErrorCode::kNotOffered);
  }
  return out;
}

// ROCm >= 7.14 device code: the gfx targets of the host the lock is for, as install narrows
// torch[gfxNNNN] (install/rocm_devices.h). A named backend does not detect the host, so the
// host is read here when the lock is for this machine; a described target has no host. What
// the lock's decision says of it goes to `device_lines`.
core::Status ReadGfxTargets(const LockCliOptions& o, const LockDecision& d, const Interpreter& target, Deps& deps,
                            PlanRequest& request, std::vector<std::string>& device_lines) {
  const bool rocm = d.decision.selection.chosen && d.decision.selection.chosen->kind == core::BackendKind::kRocm;
  if (!rocm && !d.inputs.detected) return {};
  std::optional<HostFacts> host;
  if (d.inputs.detected) {
    host = d.inputs.facts;
  } else if (!target.path.empty()) {
    const FileReader files(o.choice.root);
    DetectOptions detect_options;
    detect_options.probe_timeout =
        std::chrono::milliseconds(std::max<int64_t>(1, std::llround(o.choice.probe_timeout_seconds * 1000)));
    core::Expected<HostFacts> detected = Detect(detect_options, DetectDeps{files, deps.env, deps.runner, deps.clock});
    if (!detected) return detected.error();
    host = std::move(detected).value();
  }
  if (host && host->amd) request.gfx_targets = host->amd->gfx;
  if (rocm && !host) {
    device_lines.push_back("gfx targets: not read (" + target.description +
                           " is described, not this machine): device code as the wheels require it");
  }
  return {};
}

// uv reads no variant wheel name (PEP 825 is a draft): a variant wheel is locked as planned,
// and what it requires elsewhere (its PEP 658 metadata, for this target) is resolved by uv in
// its place. A wheel uv resolves cannot itself require one.
struct VariantWheels {
  std::vector<const PlannedWheel*> wheels;
  std::set<std::string> names;
  std::vector<std::string> lines;  // what was chosen and why, for --explain and the lock
};

core::Expected<VariantWheels> VariantWheelsOf(const InstallPlan& plan) {
  VariantWheels out;
  for (const PlannedWheel& w : plan.routed) {
    if (w.variant_label.empty()) continue;
    out.wheels.push_back(&w);
    out.names.insert(w.name);
    if (!w.metadata_read) {
      return core::MakeError(w.name + " " + w.version + " (variant " + w.variant_label + "): the page " + w.page_url +
                                 " gives no PEP 658 metadata for " + w.filename +
                                 ", so what it requires cannot be locked",
                             core::ErrorCode::kNotOffered);
    }
  }
  for (const PlannedWheel* v : out.wheels) {
    out.lines.push_back(v->name + " " + v->version + ": variant " + v->variant_label + ", by " + v->variant_decided_by);
    for (std::size_t i = 0; i < v->variant_ranking.size(); ++i) {
      out.lines.push_back("  " + std::to_string(i + 1) + ". " + v->variant_ranking[i]);
    }
    for (const std::string& needer : v->needed_by) {
      if (out.names.contains(needer)) continue;
      return core::MakeError(needer + " requires " + v->name + ", a variant wheel (" + v->filename +
                                 ") that the resolver, uv, cannot read yet; lock " + needer +
                                 " from a backend instead of the variant index",
                             core::ErrorCode::kNotOffered);
    }
  }
  return out;
}

// What uv resolves: the routed wheels of the plan pinned to their exact versions (the routing
// index answers those names with exactly the plan's wheels), the rest as written.
std::string ResolverInput(const InstallPlan& plan, const VariantWheels& variants) {
  std::string input;
  std::set<std::string> elsewhere;
  for (const PlannedWheel* v : variants.wheels) {
    for (const std::string& r : v->requires_elsewhere) {
      if (elsewhere.insert(r).second) input += r + "\n";
    }
  }
  input += PinnedRoutedInput(plan);
  for (const std::string& other : plan.other) input += other + "\n";
  return input;
}

// One routed package of uv's lock: the plan's wheel from the backend, or (reached only through a
// package of the default index, lightning -> torch) the file the routing index served.
core::Status CheckRoutedPackage(LockedPackage& p, const std::map<std::string, const PlannedWheel*>& planned,
                                const Decision& decision, const RoutingIndexServer& server) {
  auto it = planned.find(p.name);
  if (it == planned.end()) {
    if (p.wheels.size() != 1 || !server.index().ServedRouted(p.name, p.wheels[0].url, p.wheels[0].sha256)) {
      return core::MakeError("uv locked the routed package " + p.name + " " + p.version + " from " +
                                 (p.wheels.empty() ? std::string("nowhere") : p.wheels[0].url) +
                                 ", which is not a wheel the routing index served from backend " + decision.backend,
                             core::ErrorCode::kFailure);
    }
  } else {
    const PlannedWheel& w = *it->second;
    // URLs compared decoded: "%2B" and "+" name the same file.
    if (p.version != w.version || p.wheels.size() != 1 || p.wheels[0].sha256 != w.sha256 ||
        core::PercentDecode(p.wheels[0].url) != core::PercentDecode(w.url)) {
      return core::MakeError("uv locked " + p.name + " " + p.version + " from " +
                                 (p.wheels.empty() ? std::string("nowhere") : p.wheels[0].url) +
                                 ", not the backend's " + w.url + " (sha256 " + w.sha256 + ")",
                             core::ErrorCode::kFailure);
    }
  }
  p.routed = true;
  p.index = decision.index_url;
  return {};
}

// uv's lock, checked, not trusted: every routed package is the plan's wheel from the backend,
// nothing comes through the routing index itself, and the variant wheels are added as planned.
core::Expected<PyLock> CheckedLock(PyLock resolved, const InstallPlan& plan, const VariantWheels& variants,
                                   const Decision& decision, const RoutingIndexServer& server,
                                   const std::string& default_index) {
  std::map<std::string, const PlannedWheel*> planned;
  for (const PlannedWheel& w : plan.routed) planned[w.name] = &w;
  const std::set<std::string> routed_names(decision.routed_names.begin(), decision.routed_names.end());
  PyLock lock;
  lock.requires_python = resolved.requires_python;
  lock.environments = resolved.environments;
  for (LockedPackage& p : resolved.packages) {
    if (variants.names.contains(p.name)) {
      return core::MakeError("uv locked " + p.name + " " + p.version + ", which the variant index's " +
                                 "wheel stands for: something uv resolved requires it",
                             core::ErrorCode::kFailure);
    }
    if (routed_names.contains(p.name)) {
      const bool through_default = !planned.contains(p.name);
      if (core::Status ok = CheckRoutedPackage(p, planned, decision, server); !ok) return ok.error();
      if (through_default) {
        lock.packages.push_back(std::move(p));
        continue;
      }
    } else {
      p.index = default_index;
    }
    for (const LockedWheel& wheel : p.wheels) {
      if (wheel.url.find(server.url()) == 0) {
        return core::MakeError("uv locked " + wheel.url + " through the routing index itself");
      }
    }
    lock.packages.push_back(std::move(p));
  }
  for (const PlannedWheel* v : variants.wheels) {
    LockedPackage p;
    p.name = v->name;
    p.version = v->version;
    p.routed = true;
    p.index = decision.index_url;
    p.wheels.push_back(LockedWheel{});
    p.wheels.back().name = v->filename;
    p.wheels.back().url = v->url;
    p.wheels.back().sha256 = v->sha256;
    p.variants_json = LockedVariantsJson{v->variants_json_url, v->variants_json_sha256};
    lock.packages.push_back(std::move(p));
  }
  std::sort(lock.packages.begin(), lock.packages.end(),
            [](const LockedPackage& a, const LockedPackage& b) { return a.name < b.name; });
  return lock;
}

// [tool.torchdex]: the backend, the catalogue and its date, the target, the decision.
void FillLockInfo(TorchdexLockInfo& info, const LockDecision& d, const Interpreter& target,
                  const std::vector<std::string>& texts, const InstallPlan& plan,
                  const std::vector<std::string>& device_lines, const VariantWheels& variants) {
  const Decision& decision = d.decision;
  info.backend = decision.backend;
  info.channel = decision.channel;
  info.index_url = core::RedactCredentials(decision.index_url);
  info.catalogue = decision.catalogue_description;
  info.catalogue_date = d.inputs.catalogue.source->ViewFor(decision.channel).AsOf();
  info.target = target.description;
  info.requirements = texts;
  info.decision = decision.explanation;
  for (const std::string& w : decision.warnings) info.decision.push_back("warning: " + w);
  for (const std::string& line : device_lines) info.decision.push_back(line);
  for (const PlannedWheel& w : plan.routed) {
    if (!w.device_note.empty()) info.decision.push_back("device code of " + w.name + ": " + w.device_note);
  }
  for (const std::string& line : variants.lines) info.decision.push_back(line);
  for (const std::string& w : plan.warnings) info.decision.push_back("warning: " + w);
}

// The plan of the lock's routed wheels, each with its sha256.
core::Expected<InstallPlan> PlanLock(const LockCliOptions& o, const LockDecision& d, const Interpreter& target,
                                     Deps& deps, std::vector<std::string>& device_lines, std::ostream& out) {
  const Decision& decision = d.decision;
  PlanRequest request = PlanRequestFor(decision, target, o.index_url);
  if (core::Status ok = ReadGfxTargets(o, d, target, deps, request, device_lines); !ok) return ok.error();
  if (d.variants) request.variant_properties = &d.variants->properties;
  std::unique_ptr<index::Fetcher> own_fetcher;
  core::Expected<InstallPlan> plan = MakePlan(request, FetcherFor(deps, request.trusted_hosts, own_fetcher));
  if (!plan) return plan.error();
  for (const std::string& w : plan->warnings) out << decision.backend << ": warning: " << core::RedactCredentials(w) << "\n";
  for (const PlannedWheel& w : plan->routed) {
    if (w.sha256.empty()) {
      return core::MakeError(w.name + " " + w.version + ": the " + decision.backend + " page " + w.page_url +
                                 " gives no sha256 for " + w.url + "; a lock needs one for every wheel",
                             core::ErrorCode::kNetwork);
    }
  }
  return plan;
}

core::Expected<LockOutcome> LockOne(const LockCliOptions& o, const std::string& backend_name,
                                    const std::vector<std::string>& texts,
                                    const std::vector<AskedRequirement>& asked, const Interpreter& target,
                                    const std::string& uv, Deps& deps, std::ostream& out) {
  core::Expected<LockDecision> decided = DecideLock(o, backend_name, asked, target, deps);
  if (!decided) return decided.error();
  const Decision& decision = decided->decision;
  if (o.choice.explain) {
    for (const std::string& line : decision.explanation) out << decision.backend << ": " << line << "\n";
  }
  std::vector<std::string> device_lines;
  core::Expected<InstallPlan> plan = PlanLock(o, *decided, target, deps, device_lines, out);
  if (!plan) return plan.error();
  core::Expected<VariantWheels> variants = VariantWheelsOf(*plan);
  if (!variants) return variants.error();
  if (o.choice.explain) {
    for (const std::string& line : variants->lines) out << decision.backend << ": " << line << "\n";
  }

  // The routing index is uv's only index for the run.
  InstallCommandOptions uv_command{InstallerKind::kUv, target.path, uv, {}};
  const std::string default_index =
      o.index_url.empty() ? InstallerDefaultIndex(uv_command, deps.runner, deps.env) : o.index_url;
  UvResolveRequest resolve;
  resolve.plan = &*plan;
  resolve.routed_names = decision.routed_names;
  resolve.default_index = default_index;
  resolve.mirror = MirrorRule{decision.mirror_url, decision.upstream_base, decision.upstream_hosts, plan->trusted_hosts};
  resolve.input = ResolverInput(*plan, *variants);
  resolve.target = &target;
  resolve.uv = uv;
  resolve.what = "the " + decision.backend + " lock";
  core::Expected<UvResolution> resolution = ResolveThroughRoutingIndex(resolve, deps, out);
  if (!resolution) return resolution.error();
  core::Expected<PyLock> lock =
      CheckedLock(std::move(resolution->lock), *plan, *variants, decision, *resolution->server, default_index);
  if (!lock) return lock.error();
  FillLockInfo(lock->torchdex, *decided, target, texts, *plan, device_lines, *variants);
  const std::string path = (fs::path(o.output_dir) / LockFileName(decision.backend)).string();
  return LockOutcome{path, std::move(lock).value()};
}

}  // namespace

void AddLockOptions(po::options_description& d, Options& options) {
  LockCliOptions& o = options.lock;
  ChoiceOptions& c = o.choice;
  d.add_options()("requirement", po::value<std::vector<std::string>>(&c.requirements)->value_name("REQ"),
                  "a requirement (PEP 508); positional")(
      "requirements,r", po::value<std::vector<std::string>>(&o.requirement_files)->value_name("FILE"),
      "read requirements from FILE, one a line ('#' comments)")(
      "backend", po::value<std::vector<std::string>>(&o.backends)->value_name("NAME"),
      "a backend to lock for (cpu, cu124, rocm6.3, ...); repeatable; none: the one chosen for this "
      "machine; all-compatible: every backend this machine runs; all: every backend that offers what was asked; "
      "variant: the channel's PEP 825 variant index, the wheel this machine's variant properties pick")(
      "channel", po::value<std::string>(&c.channel)->value_name("C"), "stable (default), test or nightly")(
      "python", po::value<std::string>(&c.python)->value_name("PATH"),
      "the interpreter the locks are for (default: $VIRTUAL_ENV, python3)")(
      "python-version", po::value<std::string>(&c.python_version)->value_name("X.Y"),
      "lock for CPython X.Y instead of an interpreter (Linux targets)")(
      "platform", po::value<std::string>(&c.platform)->value_name("TAG"),
      "with --python-version: the target platform, linux_x86_64 or linux_aarch64 (default: this machine's)")(
      "index-url", po::value<std::string>(&o.index_url)->value_name("URL"),
      "the default index for everything not routed (default: uv's own setting, else PyPI)")(
      "output,o", po::value<std::string>(&o.output_dir)->value_name("DIR"),
      "write the lock files into DIR (default: the current directory)")(
      "explain", po::bool_switch(&c.explain), "say why each backend was chosen")(
      "root", po::value<std::string>(&c.root)->value_name("DIR"), "detect the host captured under DIR")(
      "root-providers", po::bool_switch(&c.root_providers), "run the torchdex-provider-* executables on the PATH of the --root host (they are files of the capture; not run by default)")(
      "catalogue", po::value<std::vector<std::string>>(&c.catalogues)->value_name("FILE"),
      "an override file (mirror, backend URLs, routed names, trusted hosts); repeatable");
}

core::Expected<bool> ValidateLockOptions(Options& options) {
  LockCliOptions& o = options.lock;
  if (o.choice.requirements.empty() && o.requirement_files.empty()) {
    return core::MakeError("lock: no requirements given");
  }
  const std::string& channel = o.choice.channel;
  if (!channel.empty() && channel != "stable" && channel != "test" && channel != "nightly") {
    return core::MakeError("--channel: expected stable, test or nightly, got \"" + channel + "\"");
  }
  // One URL: a space or a control character would be read by uv as more of its command line.
  for (const char c : o.index_url) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) {
      return core::MakeError("--index-url: a URL has no spaces or control characters, got \"" +
                             core::RedactCredentials(o.index_url) + "\"");
    }
  }
  std::set<std::string> seen;
  for (const std::string& b : o.backends) {
    if (b.empty() || b == "auto") return core::MakeError("--backend: name a backend (cpu, cu124, ...); leave it out for auto");
    if (!seen.insert(b).second) return core::MakeError("--backend " + b + " is given twice");
    if ((b == "all-compatible" || b == "all") && o.backends.size() > 1) {
      return core::MakeError("--backend " + b + " stands alone: it names the backends itself");
    }
  }
  if (o.output_dir.empty()) return core::MakeError("--output: an empty directory name");
  if (!o.choice.platform.empty() && o.choice.python_version.empty()) {
    return core::MakeError("--platform describes the target with --python-version");
  }
  if (!o.choice.python_version.empty() && !o.choice.python.empty()) {
    return core::MakeError("--python and --python-version: name the interpreter or describe it, not both");
  }
  return true;
}

int RunLock(const Options& options, Deps& deps, std::ostream& out, std::ostream& err) {
  const LockCliOptions& o = options.lock;
  auto fail = [&](const core::Error& error) {
    err << "torchdex lock: " << core::RedactCredentials(error.message) << "\n";
    return ExitStatus(error.code);
  };
  std::error_code error;
  if (!fs::is_directory(o.output_dir, error)) {
    return fail(core::MakeError("--output " + o.output_dir + ": not a directory", core::ErrorCode::kUsage));
  }
  core::Expected<Interpreter> target = o.choice.python_version.empty()
                                           ? LockTargetInterpreter(o.choice.python, deps)
                                           : DescribedTarget(o.choice.python_version, o.choice.platform, deps);
  if (!target) return fail(target.error());
  core::Expected<std::vector<std::string>> read = RequirementTexts(o.choice.requirements, o.requirement_files);
  if (!read) return fail(read.error());
  const std::vector<std::string>& texts = *read;
  core::Expected<std::vector<AskedRequirement>> asked = ParseAskedRequirements(texts);
  if (!asked) return fail(asked.error());
  std::vector<std::string> backends = o.backends;
  if (backends.empty()) backends.push_back("");  // auto
  if (backends.size() == 1 && (backends[0] == "all-compatible" || backends[0] == "all")) {
    core::Expected<std::vector<std::string>> expanded = ExpandBackends(o, backends[0], *asked, *target, deps, out);
    if (!expanded) return fail(expanded.error());
    backends = std::move(expanded).value();
  }
  core::Expected<std::string> uv =
      FindUv(deps.env, "torchdex lock (it resolves with uv)",
             "install it (pipx install uv, or the tools venv of scripts/setup.sh) or put it on PATH");
  if (!uv) return fail(uv.error());
  // Every lock is made before any is written: a backend that fails leaves all the locks as they
  // were, never a set of which some hold the new requirements and some the old. Each is then
  // written whole (renamed into place).
  std::vector<LockOutcome> made;
  for (const std::string& backend : backends) {
    core::Expected<LockOutcome> one = LockOne(o, backend, texts, *asked, *target, *uv, deps, out);
    if (!one) {
      const int code = fail(one.error());
      err << "torchdex lock: no lock was written (they are written together, once every backend's is made)\n";
      return code;
    }
    made.push_back(std::move(one).value());
  }
  for (const LockOutcome& lock : made) {
    if (core::Status ok = catalogue::WriteFileAtomically(lock.path, WritePyLock(lock.lock)); !ok) return fail(ok.error());
    std::vector<std::string> routed;
    for (const LockedPackage& p : lock.lock.packages) {
      if (p.routed) routed.push_back(p.name + " " + p.version);
    }
    out << "wrote " << lock.path << ": " << lock.lock.packages.size() << " packages for "
        << lock.lock.torchdex.backend << " (routed: " << Join(routed, ", ") << ")\n";
  }
  return kExitOk;
}

}  // namespace torchdex::installer
