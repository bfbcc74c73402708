// `torchdex lock` and `torchdex sync` (docs/teams.md): one PEP 751 lock file per backend,
// resolved by the real uv through the routing index, and the install of the lock that fits
// this machine, chosen by the same decision as `select` over the backends that have a lock.
#include <stdlib.h>

#include <algorithm>
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
#include "installer/install/pip_command.h"
#include "installer/install/plan.h"
#include "installer/install/routing_index.h"
#include "installer/install/transport.h"
#include "installer/lock/pylock.h"
#include "installer/lock/toml.h"

namespace torchdex::installer {

namespace po = boost::program_options;
namespace fs = std::filesystem;

const char* const kLockDetails =
    "For each --backend (none: the one `select` chooses for this machine), decides as `install`\n"
    "does with that backend named, pins every routed package (torch, torchvision, triton ...)\n"
    "to one wheel of the backend's index with its sha256, and has the real uv resolve the rest\n"
    "(`uv pip compile --format pylock.toml`, uv found on PATH) with the routing index as its\n"
    "only index: routed names from the backend, every other name from the default index\n"
    "(--index-url, else uv's UV_DEFAULT_INDEX / UV_INDEX_URL, else PyPI). A routed name never\n"
    "comes from the default index. Writes DIR/pylock.<backend>.toml (PEP 751; a '.' of the\n"
    "backend becomes '-': pylock.rocm6-3.toml) with [tool.torchdex]: the backend, the\n"
    "catalogue and its date, the target and the decision. The lock is for the target\n"
    "interpreter (--python, else $VIRTUAL_ENV, else python3), or for the Linux CPython that\n"
    "--python-version and --platform describe. See docs/teams.md.\n";

const char* const kSyncDetails =
    "Reads every pylock.*.toml of --lock-dir (default: the current directory), chooses the one\n"
    "that fits this machine with the decision of `select` restricted to the backends that have a\n"
    "lock (the lock's versions and wheels, the host's driver and GPUs), says why, and installs\n"
    "exactly that lock into the target interpreter: every wheel by URL with --require-hashes\n"
    "and --no-deps, no resolution. When no lock fits it says why for each and installs nothing.\n"
    "A lock that does not parse, names a backend the catalogue does not know, or two locks for\n"
    "one backend: an error naming the file (and line), nothing installed.\n"
    "--uv-project: run `uv sync --extra <backend>` in --lock-dir (a project written with\n"
    "`torchdex export --format uv-project`) for the backend chosen over its extras.\n"
    "See docs/teams.md.\n";

namespace {

std::string Join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (const std::string& item : items) {
    if (!out.empty()) out += separator;
    out += item;
  }
  return out;
}

core::Expected<std::string> ReadFileText(const std::string& path, std::uintmax_t limit) {
  std::error_code error;
  const std::uintmax_t size = fs::file_size(path, error);
  if (error) return core::MakeError(path + ": cannot be read: " + error.message(), core::ErrorCode::kBadInputFile);
  if (size > limit) {
    return core::MakeError(path + ": " + std::to_string(size) + " bytes, more than a lock file may have (" +
                               std::to_string(limit) + ")",
                           core::ErrorCode::kBadInputFile);
  }
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) return core::MakeError(path + ": cannot be read", core::ErrorCode::kBadInputFile);
  return text.str();
}

// Written beside the target and renamed over it: a failed run leaves the old file whole.
core::Status WriteFileAtomically(const std::string& path, const std::string& text) {
  const std::string temporary = path + ".torchdex-tmp";
  {
    std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
    file << text;
    if (!file) return core::MakeError("cannot write " + temporary);
  }
  std::error_code error;
  fs::rename(temporary, path, error);
  if (error) return core::MakeError("cannot write " + path + ": " + error.message());
  return {};
}

// A temporary directory, removed with its contents when the object goes.
class TemporaryDirectory {
 public:
  TemporaryDirectory() {
    std::string pattern = (fs::temp_directory_path() / "torchdex-lock-XXXXXX").string();
    if (::mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~TemporaryDirectory() {
    std::error_code ignored;
    if (!path_.empty()) fs::remove_all(path_, ignored);
  }
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// uv's settings that could add an index behind the routing index's back are dropped for its
// run (with --no-config for its files): the routing index is its only index.
Environment ResolverEnvironment(const Environment& env) {
  Environment out = env;
  for (const char* variable : {"UV_INDEX", "UV_INDEX_URL", "UV_DEFAULT_INDEX", "UV_EXTRA_INDEX_URL",
                               "UV_FIND_LINKS", "UV_NO_INDEX", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL"}) {
    out.erase(variable);
  }
  return out;
}

constexpr std::chrono::minutes kResolverTimeout{30};

// ---------------------------------------------------------------------------------------
// lock

struct LockOutcome {
  std::string path;
  PyLock lock;
};

core::Expected<Interpreter> LockTargetInterpreter(const std::string& python, Deps& deps) {
  core::Expected<std::string> path = FindInterpreter(python, deps.env);
  if (!path) return path.error();
  return QueryInterpreter(*path, deps.runner, deps.env, std::chrono::seconds(30));
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

core::Expected<LockOutcome> LockOne(const LockCliOptions& o, const std::string& backend_name,
                                    const std::vector<std::string>& texts,
                                    const std::vector<AskedRequirement>& asked, const Interpreter& target,
                                    const std::string& uv, Deps& deps, std::ostream& out) {
  ChoiceOptions choice = o.choice;
  choice.torch_backend = backend_name.empty() ? "auto" : backend_name;
  choice.parsed = asked;
  core::Expected<DecisionInputs> inputs = GatherDecisionInputs(choice, deps, &target);
  if (!inputs) return inputs.error();
  if (!backend_name.empty()) inputs->request.backend = {backend_name, "--backend"};
  core::Expected<Decision> decided = Decide(inputs->request, inputs->facts, inputs->catalogue);
  if (!decided) return decided.error();
  const Decision& decision = *decided;
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
  if (o.choice.explain) {
    for (const std::string& line : decision.explanation) out << decision.backend << ": " << line << "\n";
  }

  PlanRequest request;
  request.routed = decision.routed;
  request.other = decision.others;
  request.routed_projects.insert(decision.routed_names.begin(), decision.routed_names.end());
  request.backend = decision.backend;
  request.backend_index_url = decision.index_url;
  request.default_index_url = o.index_url;
  request.trusted_hosts = decision.trusted_hosts;
  request.supported_tags = core::SupportedTags(target.info);
  request.markers = target.markers;
  request.target_description = target.description;
  request.prereleases = decision.prereleases;
  request.mirror_url = decision.mirror_url;
  request.upstream_base = decision.upstream_base;
  request.upstream_hosts = decision.upstream_hosts;
  std::unique_ptr<index::Fetcher> own_fetcher;
  index::Fetcher* fetcher = deps.fetcher;
  if (fetcher == nullptr) {
    own_fetcher = index::MakeCurlFetcher(index::FetchOptions{});
    fetcher = own_fetcher.get();
  }
  core::Expected<InstallPlan> plan = MakePlan(request, fetcher);
  if (!plan) return plan.error();
  for (const PlannedWheel& w : plan->routed) {
    if (w.sha256.empty()) {
      return core::MakeError(w.name + " " + w.version + ": the " + decision.backend + " page " + w.page_url +
                                 " gives no sha256 for " + w.url + "; a lock needs one for every wheel",
                             core::ErrorCode::kNetwork);
    }
  }

  // The routing index is uv's only index for the run.
  InstallCommandOptions uv_command{InstallerKind::kUv, target.path, uv, {}};
  const std::string default_index =
      o.index_url.empty() ? InstallerDefaultIndex(uv_command, deps.runner, deps.env) : o.index_url;
  const RoutingIndexConfig routing = RoutingConfigFor(
      *plan, decision.routed_names, default_index,
      MirrorRule{decision.mirror_url, decision.upstream_base, decision.upstream_hosts, plan->trusted_hosts});
  core::Expected<std::unique_ptr<RoutingIndexServer>> server =
      RoutingIndexServer::Start(routing, deps.fetcher, RoutingFetchOptions());
  if (!server) return server.error();

  TemporaryDirectory work;
  if (work.path().empty()) return core::MakeError("cannot make a temporary directory");
  // What uv resolves: the routed wheels of the plan pinned to their exact versions (the
  // routing index answers those names with exactly the plan's wheels), the rest as written.
  std::string input;
  for (const PlannedWheel& w : plan->routed) {
    input += w.name;
    if (!w.extras.empty()) input += "[" + Join(w.extras, ",") + "]";
    input += "==" + w.version;
    if (!w.marker.empty()) input += " ; " + w.marker;
    input += "\n";
  }
  for (const std::string& other : plan->other) input += other + "\n";
  const std::string in_path = work.path() + "/requirements.in";
  const std::string out_path = work.path() + "/pylock.toml";
  if (core::Status ok = WriteFileAtomically(in_path, input); !ok) return ok.error();
  std::vector<std::string> argv = {uv, "pip", "compile", "--no-config", "--quiet", "--format", "pylock.toml",
                                   "--output-file", out_path, "--index-url", (*server)->url()};
  if (target.path.empty()) {
    // A described target: uv's spelling of the platform is "<arch>-unknown-linux-gnu".
    argv.insert(argv.end(), {"--python-version", target.full_version.substr(0, target.full_version.rfind('.')),
                             "--python-platform", target.info.arch + "-unknown-linux-gnu"});
  } else {
    argv.insert(argv.end(), {"--python", target.path});
  }
  argv.push_back(in_path);
  const ProcessResult result = deps.runner.Run(argv, ResolverEnvironment(deps.env), kResolverTimeout);
  (*server)->Stop();
  if (!result.Succeeded()) {
    std::string why = result.status == ProcessResult::Status::kExited
                          ? "exited with status " + std::to_string(result.exit_code)
                          : (result.failure.empty() ? std::string("did not finish") : result.failure);
    return core::MakeError("uv pip compile for the " + decision.backend + " lock " + why + ":\n" + result.errors +
                               result.output,
                           core::ErrorCode::kNotOffered);
  }
  core::Expected<std::string> resolved_text = ReadFileText(out_path, 64u << 20);
  if (!resolved_text) return resolved_text.error();
  core::Expected<PyLock> resolved = ParsePyLock(*resolved_text, "uv's pylock.toml for " + decision.backend, false);
  if (!resolved) return resolved.error();

  // Every routed package must be the plan's wheel, from the backend: checked, not trusted.
  std::map<std::string, const PlannedWheel*> planned;
  for (const PlannedWheel& w : plan->routed) planned[w.name] = &w;
  const std::set<std::string> routed_names(decision.routed_names.begin(), decision.routed_names.end());
  PyLock lock;
  lock.requires_python = resolved->requires_python;
  lock.environments = resolved->environments;
  for (LockedPackage& p : resolved->packages) {
    if (routed_names.contains(p.name)) {
      auto it = planned.find(p.name);
      if (it == planned.end()) {
        return core::MakeError("uv locked the routed package " + p.name + " " + p.version +
                                   ", which the plan for " + decision.backend + " does not hold",
                               core::ErrorCode::kFailure);
      }
      const PlannedWheel& w = *it->second;
      // URLs compared decoded: "%2B" and "+" name the same file.
      if (p.version != w.version || p.wheels.size() != 1 || p.wheels[0].sha256 != w.sha256 ||
          core::PercentDecode(p.wheels[0].url) != core::PercentDecode(w.url)) {
        return core::MakeError("uv locked " + p.name + " " + p.version + " from " +
                                   (p.wheels.empty() ? std::string("nowhere") : p.wheels[0].url) +
                                   ", not the backend's " + w.url + " (sha256 " + w.sha256 + ")",
                               core::ErrorCode::kFailure);
      }
      p.routed = true;
      p.index = decision.index_url;
    } else {
      p.index = default_index;
    }
    for (const LockedWheel& wheel : p.wheels) {
      if (wheel.url.find((*server)->url()) == 0) {
        return core::MakeError("uv locked " + wheel.url + " through the routing index itself");
      }
    }
    lock.packages.push_back(std::move(p));
  }
  std::sort(lock.packages.begin(), lock.packages.end(),
            [](const LockedPackage& a, const LockedPackage& b) { return a.name < b.name; });
  TorchdexLockInfo& info = lock.torchdex;
  info.backend = decision.backend;
  info.channel = decision.channel;
  info.index_url = core::RedactCredentials(decision.index_url);
  info.catalogue = decision.catalogue_description;
  info.catalogue_date = inputs->catalogue.source->ViewFor(decision.channel).AsOf();
  info.target = target.description;
  info.requirements = texts;
  info.decision = decision.explanation;
  for (const std::string& w : decision.warnings) info.decision.push_back("warning: " + w);

  const std::string path = (fs::path(o.output_dir) / LockFileName(decision.backend)).string();
  if (core::Status ok = WriteFileAtomically(path, WritePyLock(lock)); !ok) return ok.error();
  return LockOutcome{path, std::move(lock)};
}

// ---------------------------------------------------------------------------------------
// sync

struct LockFile {
  std::string path;
  PyLock lock;
};

// The catalogue as the locks present offer it: only their backends, each offering exactly the
// versions and wheels its lock holds (a backend mapped to no lock: what the catalogue says); what a build contains (arch lists, driver floors) as the
// catalogue says. Selection runs over it unchanged, so sync decides as select does.
class LockedView final : public CatalogueView {
 public:
  LockedView(std::shared_ptr<const CatalogueSource> keep, const CatalogueView& base,
             std::map<std::string, const PyLock*> locks)
      : keep_(std::move(keep)), base_(base), locks_(std::move(locks)) {}

  std::vector<BackendView> Backends(const std::string& channel) const override {
    std::vector<BackendView> out;
    for (const BackendView& b : base_.Backends(channel)) {
      if (locks_.contains(b.name)) out.push_back(b);
    }
    return out;
  }
  std::vector<std::string> Versions(const std::string& project, const std::string& backend) const override {
    if (Unlocked(backend)) return base_.Versions(project, backend);
    const LockedPackage* p = Find(project, backend);
    if (p == nullptr) return {};
    return {p->version};
  }
  bool HasWheelFor(const std::string& project, const std::string& backend, const std::string& version,
                   const std::vector<core::Tag>& supported) const override {
    if (Unlocked(backend)) return base_.HasWheelFor(project, backend, version, supported);
    const LockedPackage* p = Find(project, backend);
    if (p == nullptr || p->version != version) return false;
    for (const LockedWheel& w : p->wheels) {
      auto wheel = core::ParseWheelFilename(w.name);
      if (wheel && (supported.empty() || core::BestTagRank(wheel->Tags(), supported))) return true;
    }
    return false;
  }
  std::optional<ArchView> Arch(const std::string& backend, const std::string& torch_version,
                               const std::string& cpu_arch) const override {
    return base_.Arch(backend, torch_version, cpu_arch);
  }
  std::optional<core::DriverVersion> DriverFloor(const std::string& backend, core::TargetOs os) const override {
    return base_.DriverFloor(backend, os);
  }
  std::optional<core::DriverVersion> ReleaseDriver(const std::string& backend, core::TargetOs os) const override {
    return base_.ReleaseDriver(backend, os);
  }
  CudaLimits Limits(const std::string& backend) const override { return base_.Limits(backend); }
  std::string AsOf() const override { return base_.AsOf(); }

 private:
  // A backend without a lock of its own (a uv project's index): the catalogue answers.
  bool Unlocked(const std::string& backend) const {
    auto it = locks_.find(backend);
    return it != locks_.end() && it->second == nullptr;
  }
  const LockedPackage* Find(const std::string& project, const std::string& backend) const {
    auto it = locks_.find(backend);
    if (it == locks_.end()) return nullptr;
    for (const LockedPackage& p : it->second->packages) {
      if (p.name == project) return &p;
    }
    return nullptr;
  }

  std::shared_ptr<const CatalogueSource> keep_;
  const CatalogueView& base_;
  std::map<std::string, const PyLock*> locks_;
};

// Why a lock cannot serve this interpreter ("" when it can): its requires-python, its
// environments, or a package that applies here without a wheel that fits.
std::string InterpreterMisfit(const LockFile& f, const Interpreter& target) {
  const PyLock& lock = f.lock;
  auto version = core::Version::Parse(target.full_version);
  if (!lock.requires_python.empty() && version) {
    auto spec = core::SpecifierSet::Parse(lock.requires_python);
    if (spec && !spec->Contains(*version, core::Prereleases::kAllow)) {
      return f.path + ": requires-python " + lock.requires_python + " excludes " + target.description;
    }
  }
  if (!lock.environments.empty()) {
    bool any = false;
    for (const std::string& e : lock.environments) {
      auto marker = core::Marker::Parse(e);
      auto fits = marker ? marker->Evaluate(target.markers) : core::Expected<bool>(false);
      any = any || (fits && *fits);
    }
    if (!any) return f.path + ": environments [" + Join(lock.environments, ", ") + "] exclude " + target.description;
  }
  return "";
}

// The wheels of the lock that apply to the target, one per package, or a located error.
struct ChosenWheel {
  const LockedPackage* package;
  const LockedWheel* wheel;
};

core::Expected<std::vector<ChosenWheel>> WheelsFor(const LockFile& f, const Interpreter& target,
                                                   const std::vector<std::string>& trusted_hosts) {
  const std::vector<core::Tag> supported = core::SupportedTags(target.info);
  auto version = core::Version::Parse(target.full_version);
  std::vector<ChosenWheel> out;
  for (const LockedPackage& p : f.lock.packages) {
    const std::string where = f.path + ":" + std::to_string(p.line) + ": " + p.name + " " + p.version;
    if (!p.marker.empty()) {
      auto marker = core::Marker::Parse(p.marker);
      auto applies = marker ? marker->Evaluate(target.markers) : core::Expected<bool>(marker.error());
      if (!applies) return core::MakeError(where + ": marker: " + applies.error().message, core::ErrorCode::kBadInputFile);
      if (!*applies) continue;
    }
    if (!p.requires_python.empty() && version) {
      auto spec = core::SpecifierSet::Parse(p.requires_python);
      if (spec && !spec->Contains(*version, core::Prereleases::kAllow)) {
        return core::MakeError(where + ": requires-python " + p.requires_python + " excludes " + target.description,
                               core::ErrorCode::kBadInputFile);
      }
    }
    const LockedWheel* best = nullptr;
    std::size_t best_rank = 0;
    for (const LockedWheel& w : p.wheels) {
      auto wheel = core::ParseWheelFilename(w.name);
      if (!wheel) {
        return core::MakeError(f.path + ":" + std::to_string(w.line) + ": " + p.name + ": " + wheel.error().message,
                               core::ErrorCode::kBadInputFile);
      }
      if (wheel->name != p.name || wheel->version.ToString() != p.version) {
        return core::MakeError(f.path + ":" + std::to_string(w.line) + ": " + p.name + " " + p.version +
                                   ": the wheel " + w.name + " is not of this package and version",
                               core::ErrorCode::kBadInputFile);
      }
      auto rank = core::BestTagRank(wheel->Tags(), supported);
      if (rank && (best == nullptr || *rank < best_rank)) {
        best = &w;
        best_rank = *rank;
      }
    }
    if (best == nullptr) {
      return core::MakeError(where + ": no wheel of the lock fits " + target.description,
                             core::ErrorCode::kBadInputFile);
    }
    // The URL goes into a requirements file: nothing in it may start another line or option;
    // and it obeys the HTTPS rule, as install's URLs do.
    const std::string at = f.path + ":" + std::to_string(best->line) + ": " + p.name + " " + p.version;
    if (std::any_of(best->url.begin(), best->url.end(), [](char c) {
          const auto u = static_cast<unsigned char>(c);
          return u <= 0x20 || u == 0x7f;
        })) {
      return core::MakeError(at + ": the wheel URL holds a space or a control character", core::ErrorCode::kBadInputFile);
    }
    if (core::Status ok = CheckTransport(best->url, trusted_hosts, "the wheel of " + p.name + " " + p.version); !ok) {
      return core::MakeError(at + ": " + ok.error().message, core::ErrorCode::kBadInputFile);
    }
    out.push_back({&p, best});
  }
  return out;
}

int Refuse(std::ostream& err, const core::Error& error) {
  err << "torchdex sync: " << core::RedactCredentials(error.message) << "\n";
  return ExitStatus(error.code);
}

// sync --uv-project: the backends of a project that `export --format uv-project` wrote (its
// `pytorch-<backend>` indexes, an extra each when several), the decision over them, then
// `uv sync` with the chosen backend's extra.
int SyncUvProject(const SyncCliOptions& o, Deps& deps, std::ostream& out, std::ostream& err) {
  const std::string path = (fs::path(o.lock_dir) / "pyproject.toml").string();
  core::Expected<std::string> text = ReadFileText(path, 16u << 20);
  if (!text) return Refuse(err, text.error());
  core::Expected<toml::Value> doc = toml::Parse(*text, path);
  if (!doc) return Refuse(err, doc.error());
  auto at = [&](const toml::Value& v) { return path + ":" + std::to_string(v.line) + ":" + std::to_string(v.column); };
  const toml::Value* tool = doc->Find("tool");
  const toml::Value* uv_table = tool ? tool->Find("uv") : nullptr;
  const toml::Value* indexes = uv_table ? uv_table->Find("index") : nullptr;
  struct Backend {
    std::string name;
    const toml::Value* where;
  };
  std::vector<Backend> backends;
  if (indexes != nullptr && indexes->is_array()) {
    for (const toml::Value& index : indexes->items) {
      const toml::Value* name = index.Find("name");
      if (name != nullptr && name->is_string() && name->text.starts_with("pytorch-")) {
        backends.push_back({name->text.substr(8), &index});
      }
    }
  }
  if (backends.empty()) {
    return Refuse(err, core::MakeError(path + ": no [[tool.uv.index]] named pytorch-<backend> (torchdex export "
                                           "--format uv-project writes them)",
                                       core::ErrorCode::kBadInputFile));
  }
  const toml::Value* project = doc->Find("project");
  const toml::Value* extras = project ? project->Find("optional-dependencies") : nullptr;
  if (backends.size() > 1) {
    for (const Backend& b : backends) {
      if (extras == nullptr || extras->Find(core::NormalizeName(b.name)) == nullptr) {
        return Refuse(err, core::MakeError(at(*b.where) + ": the index of backend " + b.name +
                                               " has no extra \"" + core::NormalizeName(b.name) +
                                               "\" in [project.optional-dependencies]",
                                           core::ErrorCode::kBadInputFile));
      }
    }
  }
  core::Expected<std::string> python = FindInterpreter(o.python, deps.env);
  if (!python) return Refuse(err, python.error());
  core::Expected<Interpreter> target = QueryInterpreter(*python, deps.runner, deps.env, std::chrono::seconds(30));
  if (!target) return Refuse(err, target.error());
  ChoiceOptions choice;
  choice.root = o.root;
  choice.catalogues = o.catalogues;
  choice.probe_timeout_seconds = o.probe_timeout_seconds;
  core::Expected<DecisionInputs> inputs = GatherDecisionInputs(choice, deps, &*target);
  if (!inputs) return Refuse(err, inputs.error());
  const std::vector<std::string> known = inputs->catalogue.source->BackendNames("stable");
  std::map<std::string, const PyLock*> unlocked;
  for (const Backend& b : backends) {
    if (std::find(known.begin(), known.end(), b.name) == known.end()) {
      return Refuse(err, core::MakeError(at(*b.where) + ": backend \"" + b.name +
                                             "\" is not a backend the catalogue knows" + ClosestBackend(b.name, known),
                                         core::ErrorCode::kBadInputFile));
    }
    unlocked[b.name] = nullptr;
  }
  const std::shared_ptr<CatalogueSource>& base = inputs->catalogue.source;
  auto restricted = std::make_shared<CatalogueSource>();
  restricted->description = base->description + ", restricted to the backends of " + path;
  restricted->default_base_url = base->default_base_url;
  restricted->upstream_hosts = base->upstream_hosts;
  restricted->routed = base->routed;
  restricted->view = std::make_unique<LockedView>(base, base->ViewFor("stable"), unlocked);
  restricted->channel_views["stable"] = nullptr;
  core::Expected<Decision> decided =
      Decide(inputs->request, inputs->facts, UserCatalogue{inputs->catalogue.overrides, restricted});
  if (!decided || decided->backend.empty()) {
    std::ostringstream why;
    why << "no backend of " << path << " fits this machine";
    if (!decided) why << ": " << decided.error().message;
    why << ":\n";
    if (decided) {
      for (const Rejection& r : decided->selection.rejected) why << "  " << r.backend << ": " << Join(r.reasons, "; ") << "\n";
    }
    err << "torchdex sync: " << core::RedactCredentials(why.str());
    return kExitNoBackend;
  }
  out << "backend: " << decided->backend << " (" << path << ")\n";
  for (const std::string& line : decided->explanation) out << "why: " << core::RedactCredentials(line) << "\n";
  if (o.explain) {
    for (const Rejection& r : decided->selection.rejected) out << "  not " << r.backend << ": " << Join(r.reasons, "; ") << "\n";
  }
  core::Expected<std::string> uv =
      FindUv(deps.env, "sync --uv-project (it runs uv sync)", "install uv or put it on PATH");
  if (!uv) return Refuse(err, uv.error());
  std::vector<std::string> argv = {*uv, "sync", "--project", o.lock_dir, "--python", target->path};
  if (backends.size() > 1) {
    argv.push_back("--extra");
    argv.push_back(core::NormalizeName(decided->backend));
  }
  if (o.dry_run) {
    out << "would run: " << core::RedactCredentials(QuoteCommand(argv)) << "\n";
    return kExitOk;
  }
  // With UV_NO_CONFIG uv ignores the project's own [tool.uv] settings, its explicit indexes
  // among them, and would take torch from the default index: it is left out of uv's run.
  Environment env = deps.env;
  if (env.erase("UV_NO_CONFIG") > 0) {
    out << "note: UV_NO_CONFIG is left out of uv sync's environment: with it uv ignores the "
           "project's [[tool.uv.index]] entries\n";
  }
  out << "running: " << core::RedactCredentials(QuoteCommand(argv)) << "\n";
  out.flush();
  return ExecuteInstall(argv, deps.runner, env, out, err);
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
      "a backend to lock for (cpu, cu124, rocm6.3, ...); repeatable; none: the one chosen for this machine")(
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
  std::set<std::string> seen;
  for (const std::string& b : o.backends) {
    if (b.empty() || b == "auto") return core::MakeError("--backend: name a backend (cpu, cu124, ...); leave it out for auto");
    if (!seen.insert(b).second) return core::MakeError("--backend " + b + " is given twice");
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
  std::vector<std::string> texts = o.choice.requirements;
  for (const std::string& file : o.requirement_files) {
    if (core::Status ok = ReadRequirementFile(file, texts); !ok) return fail(ok.error());
  }
  core::Expected<std::vector<AskedRequirement>> asked = ParseAskedRequirements(texts);
  if (!asked) return fail(asked.error());
  core::Expected<std::string> uv =
      FindUv(deps.env, "torchdex lock (it resolves with uv)",
             "install it (pipx install uv, or the tools venv of scripts/setup.sh) or put it on PATH");
  if (!uv) return fail(uv.error());

  std::vector<std::string> backends = o.backends;
  if (backends.empty()) backends.push_back("");  // auto
  // Each lock is written whole (renamed into place) as it is made, so a failure leaves the
  // earlier ones new and the rest as they were.
  for (const std::string& backend : backends) {
    core::Expected<LockOutcome> made = LockOne(o, backend, texts, *asked, *target, *uv, deps, out);
    if (!made) return fail(made.error());
    std::vector<std::string> routed;
    for (const LockedPackage& p : made->lock.packages) {
      if (p.routed) routed.push_back(p.name + " " + p.version);
    }
    out << "wrote " << made->path << ": " << made->lock.packages.size() << " packages for "
        << made->lock.torchdex.backend << " (routed: " << Join(routed, ", ") << ")\n";
  }
  return kExitOk;
}

void AddSyncOptions(po::options_description& d, Options& options) {
  SyncCliOptions& o = options.sync;
  d.add_options()("lock-dir", po::value<std::string>(&o.lock_dir)->value_name("DIR"),
                  "where the pylock.*.toml files are (default: the current directory)")(
      "python", po::value<std::string>(&o.python)->value_name("PATH"),
      "the interpreter to install into (default: $VIRTUAL_ENV, python3)")(
      "installer", po::value<std::string>(&o.installer)->value_name("pip|uv"),
      "pip (default) or uv (must be on PATH)")(
      "dry-run", po::bool_switch(&o.dry_run), "say which lock and what would be installed; change nothing")(
      "explain", po::bool_switch(&o.explain), "say why the lock was chosen and why the others were not")(
      "uv-project", po::bool_switch(&o.uv_project),
      "run `uv sync --extra <backend>` in --lock-dir for the backend chosen over the project's extras")(
      "root", po::value<std::string>(&o.root)->value_name("DIR"), "detect the host captured under DIR")(
      "catalogue", po::value<std::vector<std::string>>(&o.catalogues)->value_name("FILE"),
      "an override file; repeatable");
}

core::Expected<bool> ValidateSyncOptions(Options& options) {
  if (!ParseInstallerKind(options.sync.installer)) return ParseInstallerKind(options.sync.installer).error();
  if (options.sync.lock_dir.empty()) return core::MakeError("--lock-dir: an empty directory name");
  return true;
}

int RunSync(const Options& options, Deps& deps, std::ostream& out, std::ostream& err) {
  const SyncCliOptions& o = options.sync;
  std::error_code error;
  if (!fs::is_directory(o.lock_dir, error)) {
    return Refuse(err, core::MakeError("--lock-dir " + o.lock_dir + ": not a directory", core::ErrorCode::kBadInputFile));
  }
  if (o.uv_project) return SyncUvProject(o, deps, out, err);
  // Every lock present, parsed and checked before anything is decided or installed.
  std::vector<std::string> names;
  for (const fs::directory_entry& entry : fs::directory_iterator(o.lock_dir, error)) {
    const std::string name = entry.path().filename().string();
    if (IsLockFileName(name)) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  if (names.empty()) {
    return Refuse(err, core::MakeError(o.lock_dir + ": no pylock.*.toml lock files (torchdex lock writes them)",
                                       core::ErrorCode::kBadInputFile));
  }
  std::vector<LockFile> locks;
  for (const std::string& name : names) {
    const std::string path = (fs::path(o.lock_dir) / name).string();
    core::Expected<std::string> text = ReadFileText(path, 64u << 20);
    if (!text) return Refuse(err, text.error());
    core::Expected<PyLock> lock = ParsePyLock(*text, path);
    if (!lock) return Refuse(err, lock.error());
    for (const LockFile& other : locks) {
      if (other.lock.torchdex.backend == lock->torchdex.backend) {
        return Refuse(err, core::MakeError("two lock files for the backend " + lock->torchdex.backend + ": " +
                                               other.path + " and " + path + "; keep one",
                                           core::ErrorCode::kBadInputFile));
      }
    }
    if (!locks.empty() && locks.front().lock.torchdex.channel != lock->torchdex.channel) {
      return Refuse(err, core::MakeError("the locks are for different channels: " + locks.front().path + " (" +
                                             locks.front().lock.torchdex.channel + ") and " + path + " (" +
                                             lock->torchdex.channel + ")",
                                         core::ErrorCode::kBadInputFile));
    }
    locks.push_back({path, std::move(lock).value()});
  }
  const std::string channel = locks.front().lock.torchdex.channel;

  core::Expected<std::string> python = FindInterpreter(o.python, deps.env);
  if (!python) return Refuse(err, python.error());
  core::Expected<Interpreter> target = QueryInterpreter(*python, deps.runner, deps.env, std::chrono::seconds(30));
  if (!target) return Refuse(err, target.error());

  // The decision's inputs, as select gathers them; the routed packages the locks were asked for
  // decide (by name: each lock offers its own versions).
  ChoiceOptions choice;
  choice.root = o.root;
  choice.catalogues = o.catalogues;
  choice.channel = channel;
  choice.probe_timeout_seconds = o.probe_timeout_seconds;
  core::Expected<UserCatalogue> catalogue = LoadUserCatalogue(o.catalogues, deps.env);
  if (!catalogue) return Refuse(err, catalogue.error());
  std::set<std::string> routed_asked;
  for (const LockFile& f : locks) {
    for (const std::string& text : f.lock.torchdex.requirements) {
      auto r = core::Requirement::Parse(text);
      if (!r) {
        return Refuse(err, core::MakeError(f.path + ":" + std::to_string(f.lock.torchdex.line) +
                                               ": [tool.torchdex] requirements: " + r.error().message,
                                           core::ErrorCode::kBadInputFile));
      }
      const std::string name = core::NormalizeName(r->name);
      if ((*catalogue).source->IsRouted(name)) routed_asked.insert(name);
    }
  }
  std::vector<std::string> routed_texts(routed_asked.begin(), routed_asked.end());
  core::Expected<std::vector<AskedRequirement>> asked = ParseAskedRequirements(routed_texts);
  if (!asked) return Refuse(err, asked.error());
  choice.parsed = *asked;
  choice.requirements = routed_texts;
  core::Expected<DecisionInputs> inputs = GatherDecisionInputs(choice, deps, &*target);
  if (!inputs) return Refuse(err, inputs.error());

  // A backend the catalogue does not know: an error naming the file, as select names a flag.
  const std::vector<std::string> known = inputs->catalogue.source->BackendNames(channel);
  for (const LockFile& f : locks) {
    const std::string& backend = f.lock.torchdex.backend;
    if (std::find(known.begin(), known.end(), backend) == known.end()) {
      return Refuse(err, core::MakeError(f.path + ":" + std::to_string(f.lock.torchdex.line) +
                                             ": [tool.torchdex] backend \"" + backend +
                                             "\" is not a backend the catalogue knows (" +
                                             inputs->catalogue.source->description + ")" +
                                             ClosestBackend(backend, known),
                                         core::ErrorCode::kBadInputFile));
    }
  }

  // Locks the interpreter cannot use are turned down before the decision, with the reason.
  std::vector<std::string> refused;
  std::map<std::string, const PyLock*> usable;
  std::map<std::string, const LockFile*> by_backend;
  for (const LockFile& f : locks) {
    by_backend[f.lock.torchdex.backend] = &f;
    const std::string misfit = InterpreterMisfit(f, *target);
    if (misfit.empty()) {
      usable[f.lock.torchdex.backend] = &f.lock;
    } else {
      refused.push_back(misfit);
    }
  }
  auto restricted = std::make_shared<CatalogueSource>();
  const std::shared_ptr<CatalogueSource>& base = inputs->catalogue.source;
  restricted->description = base->description + ", restricted to the backends of the lock files";
  restricted->default_base_url = base->default_base_url;
  restricted->upstream_hosts = base->upstream_hosts;
  restricted->routed = base->routed;
  restricted->view = std::make_unique<LockedView>(base, base->ViewFor(channel), usable);
  if (base->HoldsChannel(channel)) restricted->channel_views[channel] = nullptr;
  const UserCatalogue locked{inputs->catalogue.overrides, restricted};
  core::Expected<Decision> decided = Decide(inputs->request, inputs->facts, locked);

  auto explain_rejections = [&](const Decision* d, std::ostream& to) {
    if (d != nullptr) {
      for (const Rejection& r : d->selection.rejected) {
        auto it = by_backend.find(r.backend);
        to << "  " << (it == by_backend.end() ? r.backend : it->second->path) << " (" << r.backend
           << "): " << Join(r.reasons, "; ") << "\n";
      }
    }
    for (const std::string& r : refused) to << "  " << r << "\n";
  };
  if (!decided || decided->backend.empty()) {
    std::ostringstream why;
    why << "no lock file in " << o.lock_dir << " fits " << target->description;
    if (!decided) why << ": " << decided.error().message;
    why << ":\n";
    explain_rejections(decided ? &*decided : nullptr, why);
    err << "torchdex sync: " << core::RedactCredentials(why.str());
    return kExitNoBackend;
  }
  const Decision& decision = *decided;
  const LockFile& chosen = *by_backend.at(decision.backend);
  out << "lock: " << chosen.path << " (backend " << decision.backend << ", catalogue "
      << (chosen.lock.torchdex.catalogue_date.empty() ? "of unknown date" : chosen.lock.torchdex.catalogue_date)
      << ")\n";
  for (const std::string& line : decision.explanation) out << "why: " << core::RedactCredentials(line) << "\n";
  if (o.explain) {
    out << "not chosen:\n";
    explain_rejections(&decision, out);
    for (const Candidate& c : decision.selection.candidates) {
      if (c.backend != decision.backend) out << "  " << by_backend.at(c.backend)->path << " (" << c.backend << "): fits, ranked lower\n";
    }
  }
  for (const std::string& w : decision.warnings) out << "warning: " << core::RedactCredentials(w) << "\n";

  std::vector<std::string> trusted;
  for (const auto& host : inputs->catalogue.overrides.trusted_hosts) trusted.push_back(host.value);
  core::Expected<std::vector<ChosenWheel>> wheels = WheelsFor(chosen, *target, trusted);
  if (!wheels) return Refuse(err, wheels.error());
  // Exactly the lock: every wheel by URL, its hash required, no dependency followed.
  std::string requirements;
  for (const ChosenWheel& c : *wheels) {
    requirements += c.package->name + " @ " + c.wheel->url + " --hash=sha256:" + c.wheel->sha256 + "\n";
  }
  TemporaryDirectory work;
  if (work.path().empty()) return Refuse(err, core::MakeError("cannot make a temporary directory"));
  const std::string requirements_path = work.path() + "/requirements.txt";
  if (core::Status ok = WriteFileAtomically(requirements_path, requirements); !ok) return Refuse(err, ok.error());
  std::vector<std::string> argv;
  if (*ParseInstallerKind(o.installer) == InstallerKind::kUv) {
    core::Expected<std::string> uv = FindUv(deps.env);
    if (!uv) return Refuse(err, uv.error());
    argv = {*uv, "pip", "install", "--python", target->path, "--no-config", "--no-deps", "--require-hashes",
            "-r", requirements_path};
  } else {
    argv = {target->path, "-m", "pip", "install", "--no-deps", "--require-hashes", "--no-input", "-r", requirements_path};
  }
  for (const ChosenWheel& c : *wheels) {
    out << (o.dry_run ? "would install: " : "install: ") << c.package->name << " " << c.package->version << " "
        << core::RedactCredentials(c.wheel->url) << "\n";
  }
  if (o.dry_run) {
    out << "would run: " << core::RedactCredentials(QuoteCommand(argv)) << "\n";
    return kExitOk;
  }
  out << "running: " << core::RedactCredentials(QuoteCommand(argv)) << "\n";
  out.flush();
  std::ostringstream child_out, child_err;
  const int code = ExecuteInstall(argv, deps.runner, deps.env, child_out, child_err);
  out << child_out.str();
  err << child_err.str();
  if (code != 0) {
    // A wheel that does not match its hash: say which line of the lock it is.
    const std::string said = child_out.str() + child_err.str();
    for (const ChosenWheel& c : *wheels) {
      if (said.find(c.wheel->sha256) != std::string::npos &&
          (said.find("HASH") != std::string::npos || said.find("ash mismatch") != std::string::npos ||
           said.find("do not match") != std::string::npos)) {
        err << "torchdex sync: " << chosen.path << ":" << c.wheel->line << ": " << c.package->name << " "
            << c.package->version << ": the downloaded wheel " << core::RedactCredentials(c.wheel->url)
            << " does not match the lock's sha256 " << c.wheel->sha256 << "; nothing was installed\n";
      }
    }
  }
  return code;
}

}  // namespace torchdex::installer
