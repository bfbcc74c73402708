// `torchdex sync --uv-project` (docs/teams.md): the backend of a uv project chosen for this
// machine, then `uv lock`, the routing check of uv.lock (lock/uv_lock.h) and
// `uv sync --frozen --extra <backend>`.
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
#include "index/url.h"
#include "core/version.h"
#include "core/wheel.h"
#include "installer/cli/commands.h"
#include "installer/cli/decision_inputs.h"
#include "installer/cli/lock_support.h"
#include "installer/install/installer_environment.h"
#include "installer/install/pip_command.h"
#include "installer/install/plan.h"
#include "installer/install/routing_index.h"
#include "installer/install/transport.h"
#include "installer/lock/pylock.h"
#include "installer/lock/toml.h"
#include "installer/lock/uv_lock.h"
#include "installer/python/interpreter_cache.h"

namespace torchdex::installer::lockcli {

namespace fs = std::filesystem;

// sync --uv-project: the backends of a project that `export --format uv-project` wrote (its
// `pytorch-<backend>` indexes, an extra each when several), the decision over them, then
// `uv sync` with the chosen backend's extra.
namespace {

// uv treats a project below a workspace root ([tool.uv.workspace] in a pyproject.toml above it)
// as a member: it locks and syncs the workspace, whose uv.lock and settings (overrides,
// constraints, sources) are not the project's (the attack of issue 29, item 4: F5). The root's
// path, or "".
std::string WorkspaceAbove(const std::string& project_dir) {
  std::error_code error;
  fs::path dir = fs::absolute(project_dir, error).lexically_normal();
  if (error) return {};
  while (dir.has_parent_path() && dir.parent_path() != dir) {
    dir = dir.parent_path();
    const fs::path candidate = dir / "pyproject.toml";
    if (!fs::is_regular_file(candidate, error)) continue;
    core::Expected<std::string> text = ReadFileText(candidate.string(), 16u << 20);
    if (!text) continue;
    core::Expected<toml::Value> doc = toml::Parse(*text, candidate.string());
    const toml::Value* tool = doc ? doc->Find("tool") : nullptr;
    const toml::Value* uv = tool != nullptr ? tool->Find("uv") : nullptr;
    if (uv != nullptr && uv->Find("workspace") != nullptr) return candidate.string();
    // One torchdex's strict reader refuses (a float, say) is judged by its text.
    if (!doc && text->find("workspace") != std::string::npos) return candidate.string();
  }
  return {};
}

// "pyproject.toml:12:1"
std::string At(const std::string& path, const toml::Value& v) {
  return path + ":" + std::to_string(v.line) + ":" + std::to_string(v.column);
}

// The project of --lock-dir as sync --uv-project reads it: its pytorch-<backend> indexes, each
// with an extra of its name when there are several.
struct UvProject {
  struct Backend {
    std::string name;
    const toml::Value* where;
  };
  std::string path;  // its pyproject.toml
  toml::Value doc;
  std::vector<Backend> backends;
};

core::Expected<UvProject> ReadUvProject(const std::string& lock_dir) {
  UvProject p;
  p.path = (fs::path(lock_dir) / "pyproject.toml").string();
  if (const std::string root = WorkspaceAbove(lock_dir); !root.empty()) {
    return core::MakeError(root + ": a uv workspace above " + lock_dir +
                               ": uv would lock and sync that workspace, with its own "
                               "uv.lock and settings, in place of the project; move the project out of it",
                           core::ErrorCode::kBadInputFile);
  }
  core::Expected<std::string> text = ReadFileText(p.path, 16u << 20);
  if (!text) return text.error();
  core::Expected<toml::Value> doc = toml::Parse(*text, p.path);
  if (!doc) return doc.error();
  p.doc = std::move(doc).value();
  const toml::Value* tool = p.doc.Find("tool");
  const toml::Value* uv_table = tool ? tool->Find("uv") : nullptr;
  const toml::Value* indexes = uv_table ? uv_table->Find("index") : nullptr;
  if (indexes != nullptr && indexes->is_array()) {
    for (const toml::Value& index : indexes->items) {
      const toml::Value* name = index.Find("name");
      if (name != nullptr && name->is_string() && name->text.starts_with("pytorch-")) {
        p.backends.push_back({name->text.substr(8), &index});
      }
    }
  }
  if (p.backends.empty()) {
    return core::MakeError(p.path + ": no [[tool.uv.index]] named pytorch-<backend> (torchdex export "
                                    "--format uv-project writes them)",
                           core::ErrorCode::kBadInputFile);
  }
  const toml::Value* project = p.doc.Find("project");
  const toml::Value* extras = project ? project->Find("optional-dependencies") : nullptr;
  if (p.backends.size() == 1) return p;
  for (const UvProject::Backend& b : p.backends) {
    if (extras == nullptr || extras->Find(core::NormalizeName(b.name)) == nullptr) {
      return core::MakeError(At(p.path, *b.where) + ": the index of backend " + b.name + " has no extra \"" +
                                 core::NormalizeName(b.name) + "\" in [project.optional-dependencies]",
                             core::ErrorCode::kBadInputFile);
    }
  }
  return p;
}

// The decision of select over the project's backends. The exit status when none fits (said on
// err); nullopt when one does (said on out).
std::optional<int> ChooseProjectBackend(const UvProject& p, const SyncCliOptions& o, const DecisionInputs& inputs,
                                        Decision& decision, std::ostream& out, std::ostream& err) {
  const std::vector<std::string> known = inputs.catalogue.source->BackendNames("stable");
  std::map<std::string, const PyLock*> unlocked;
  for (const UvProject::Backend& b : p.backends) {
    if (std::find(known.begin(), known.end(), b.name) == known.end()) {
      return Refuse(err, core::MakeError(At(p.path, *b.where) + ": backend \"" + b.name +
                                             "\" is not a backend the catalogue knows" + ClosestBackend(b.name, known),
                                         core::ErrorCode::kBadInputFile));
    }
    unlocked[b.name] = nullptr;
  }
  const std::shared_ptr<CatalogueSource>& base = inputs.catalogue.source;
  auto restricted = std::make_shared<CatalogueSource>();
  restricted->description = base->description + ", restricted to the backends of " + p.path;
  restricted->default_base_url = base->default_base_url;
  restricted->upstream_hosts = base->upstream_hosts;
  restricted->routed = base->routed;
  restricted->view = std::make_unique<LockedView>(base, base->ViewFor("stable"), unlocked);
  restricted->channel_views["stable"] = nullptr;
  core::Expected<Decision> decided =
      Decide(inputs.request, inputs.facts, UserCatalogue{inputs.catalogue.overrides, restricted});
  if (!decided || decided->backend.empty()) {
    std::ostringstream why;
    why << "no backend of " << p.path << " fits this machine";
    if (!decided) why << ": " << decided.error().message;
    why << ":\n";
    if (decided) {
      for (const Rejection& r : decided->selection.rejected) why << "  " << r.backend << ": " << Join(r.reasons, "; ") << "\n";
    }
    err << "torchdex sync: " << core::RedactCredentials(why.str());
    return kExitNoBackend;
  }
  out << "backend: " << decided->backend << " (" << p.path << ")\n";
  for (const std::string& line : decided->explanation) out << "why: " << core::RedactCredentials(line) << "\n";
  if (o.explain) {
    for (const Rejection& r : decided->selection.rejected) out << "  not " << r.backend << ": " << Join(r.reasons, "; ") << "\n";
  }
  decision = std::move(decided).value();
  return std::nullopt;
}

// Each pytorch-<backend> index must be that backend's (the catalogue's URL for it, or the
// override files'): a project's own word that an index is cu124's is not enough.
core::Expected<std::vector<std::string>> CheckedIndexUrls(const UvProject& p, const UserCatalogue& catalogue) {
  std::vector<std::string> index_urls;
  const std::shared_ptr<CatalogueSource>& source = catalogue.source;
  const auto same = [](std::string a, std::string b) {
    a = core::StripCredentials(a);
    b = core::StripCredentials(b);
    while (!a.empty() && a.back() == '/') a.pop_back();
    while (!b.empty() && b.back() == '/') b.pop_back();
    return a == b;
  };
  for (const UvProject::Backend& b : p.backends) {
    const toml::Value* url = b.where->Find("url");
    const std::string given = url != nullptr && url->is_string() ? url->text : "";
    const std::string own = BackendIndexUrl(catalogue.overrides, source->default_base_url, "", b.name);
    const std::string upstream = source->default_base_url + b.name + "/";
    // A '\\' in the authority reads as another host to uv than to a prefix (the attack's G2).
    if (index::HasAmbiguousAuthority(given) || (!same(given, own) && !same(given, upstream))) {
      return core::MakeError(At(p.path, *b.where) + ": the index pytorch-" + b.name + " is " +
                                 core::RedactCredentials(given) + ", not backend " + b.name + "'s (" +
                                 core::RedactCredentials(own) + ")",
                             core::ErrorCode::kBadInputFile);
    }
    index_urls.push_back(given);
  }
  return index_urls;
}

// uv's own lock is checked (uv_lock.h): a routed package it takes from anywhere but a backend
// index of the project is refused. A universal lock holds every extra's backend: a routed file
// is judged by the backend its version's label names, and must lie under the family's index or
// mirror.
core::Status CheckProjectUvLock(const std::string& lock_dir, const std::string& chosen_backend,
                                const UserCatalogue& catalogue, const std::vector<std::string>& index_urls) {
  const std::string lock_path = (fs::path(lock_dir) / "uv.lock").string();
  core::Expected<std::string> lock_text = ReadFileText(lock_path, 64u << 20);
  if (!lock_text) return lock_text.error();
  const std::vector<std::string> roots = RoutedFileRoots(catalogue);
  auto file_ok = [&](const std::string& where, const std::string& name, const std::string& version,
                     const std::string& url) -> core::Status {
    const std::size_t plus = version.find('+');
    const std::string label = plus == std::string::npos ? chosen_backend : version.substr(plus + 1);
    return RoutedFileOfBackend(where, name, version, url, label, roots);
  };
  const std::shared_ptr<CatalogueSource>& source = catalogue.source;
  return CheckUvLockRouting(*lock_text, lock_path, [&](const std::string& n) { return source->IsRouted(n); },
                            index_urls, file_ok);
}

// uv sync must read the project's own [tool.uv] (its indexes and sources route torch), so it
// gets no UV_NO_CONFIG; every other variable and file that could give it another index or
// torch source is kept from it (installer_environment.h): the user's uv.toml hidden behind an
// empty XDG_CONFIG_HOME (`config_home`), a system one or one beside the project refusing the run.
// uv sync installs into the project's environment (.venv beside pyproject.toml), whatever
// --python says: the interpreter only picks the Python of a new one. When the target is a
// virtual environment's (pyvenv.cfg above its bin/), that environment is the project's for this
// run, so it is the one synced, as `torchdex sync` would.
core::Expected<Environment> UvSyncEnvironment(const SyncCliOptions& o, Deps& deps, const Interpreter& target,
                                              const TemporaryDirectory& config_home, std::ostream& out) {
  const std::string user_config = UserUvConfig(deps.env);
  if (!user_config.empty() && config_home.path().empty()) return core::MakeError("cannot make a temporary directory");
  core::Expected<InstallerEnvironment> child = EnvironmentForInstaller(
      deps.env, InstallerRun::kUvSync, user_config.empty() ? "" : config_home.path(), o.lock_dir);
  if (!child) return child.error();
  Environment env = std::move(child->env);
  const fs::path venv = fs::path(target.path).parent_path().parent_path();
  std::error_code ignored;
  if (fs::is_regular_file(venv / "pyvenv.cfg", ignored)) {
    env["UV_PROJECT_ENVIRONMENT"] = venv.string();
    out << "environment: " << venv.string() << " (UV_PROJECT_ENVIRONMENT, the venv of " << target.path << ")\n";
  } else {
    out << "note: " << target.path << " is not a virtual environment's: uv sync installs into the project's "
        << "own environment (" << (fs::path(o.lock_dir) / ".venv").string() << ")\n";
  }
  out << LeftOutNote(*child, "uv sync");
  if (!user_config.empty()) {
    out << "note: " << user_config << " is not read by uv sync (XDG_CONFIG_HOME is an empty directory for the run): "
        << "the project's [tool.uv] is its only configuration\n";
  }
  return env;
}

}  // namespace

int SyncUvProject(const SyncCliOptions& o, Deps& deps, std::ostream& out, std::ostream& err) {
  core::Expected<UvProject> project = ReadUvProject(o.lock_dir);
  if (!project) return Refuse(err, project.error());
  core::Expected<std::string> python = FindInterpreter(o.python, deps.env);
  if (!python) return Refuse(err, python.error());
  core::Expected<Interpreter> target = QueryInterpreterCached(*python, deps.runner, deps.env, std::chrono::seconds(30));
  if (!target) return Refuse(err, target.error());
  ChoiceOptions choice;
  choice.root = o.root;
  choice.catalogues = o.catalogues;
  choice.probe_timeout_seconds = o.probe_timeout_seconds;
  core::Expected<DecisionInputs> inputs = GatherDecisionInputs(choice, deps, &*target);
  if (!inputs) return Refuse(err, inputs.error());
  Decision decision;
  if (std::optional<int> refused = ChooseProjectBackend(*project, o, *inputs, decision, out, err)) return *refused;
  core::Expected<std::string> uv =
      FindUv(deps.env, "sync --uv-project (it runs uv sync)", "install uv or put it on PATH");
  if (!uv) return Refuse(err, uv.error());
  std::vector<std::string> argv = {*uv, "sync", "--project", o.lock_dir, "--python", target->path};
  if (project->backends.size() > 1) {
    argv.push_back("--extra");
    argv.push_back(core::NormalizeName(decision.backend));
  }
  // uv's own lock is made first and checked, then installed as it is.
  core::Expected<std::vector<std::string>> index_urls = CheckedIndexUrls(*project, inputs->catalogue);
  if (!index_urls) return Refuse(err, index_urls.error());
  const auto check_lock = [&] { return CheckProjectUvLock(o.lock_dir, decision.backend, inputs->catalogue, *index_urls); };
  const std::vector<std::string> lock_argv = {*uv, "lock", "--project", o.lock_dir, "--python", target->path};
  argv.push_back("--frozen");
  if (o.dry_run) {
    std::error_code missing;
    if (fs::exists(fs::path(o.lock_dir) / "uv.lock", missing)) {
      if (core::Status routed = check_lock(); !routed) return Refuse(err, routed.error());
    }
    out << "would run: " << core::RedactCredentials(QuoteCommand(lock_argv)) << "\n";
    out << "would run: " << core::RedactCredentials(QuoteCommand(argv)) << "\n";
    return kExitOk;
  }
  TemporaryDirectory config_home;
  core::Expected<Environment> env = UvSyncEnvironment(o, deps, *target, config_home, out);
  if (!env) return Refuse(err, env.error());
  out << "running: " << core::RedactCredentials(QuoteCommand(lock_argv)) << "\n";
  out.flush();
  if (const int locked = ExecuteInstall(lock_argv, deps.runner, *env, out, err); locked != 0) return locked;
  if (core::Status routed = check_lock(); !routed) {
    const int code = Refuse(err, routed.error());
    err << "torchdex sync: nothing was installed (uv.lock is left as uv wrote it)\n";
    return code;
  }
  out << "running: " << core::RedactCredentials(QuoteCommand(argv)) << "\n";
  out.flush();
  return ExecuteInstall(argv, deps.runner, *env, out, err);
}

}  // namespace torchdex::installer::lockcli
