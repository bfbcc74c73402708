// `torchdex sync` (docs/teams.md): the install of the lock that fits this machine, chosen by
// the same decision as `select` over the backends that have a lock.
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
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
#include "installer/cli/sync_variant.h"
#include "installer/cli/variant_inputs.h"
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

const char* const kSyncDetails =
    "Reads every pylock.*.toml of --lock-dir (default: the current directory), chooses the one\n"
    "that fits this machine with the decision of `select` restricted to the backends that have a\n"
    "lock (the lock's versions and wheels, the host's driver and GPUs), says why, and installs\n"
    "exactly that lock into the target interpreter: every wheel by URL with --require-hashes\n"
    "and --no-deps, no resolution. When no lock fits it says why for each and installs nothing.\n"
    "A lock that does not parse, names a backend the catalogue does not know or another than its\n"
    "file name's, or two locks for one backend: an error naming the file (and line), nothing\n"
    "installed.\n"
    "A lock of the variant index (pylock.variant.toml, `lock --backend variant`), alone in its\n"
    "directory: its locked variants are resolved for this machine (PEP 825; the variants.json\n"
    "fetched and checked against the lock's sha256); pip and uv cannot install variant wheels\n"
    "yet, so only --dry-run succeeds. See docs/variants.md.\n"
    "--uv-project: for the backend chosen over the extras of the project in --lock-dir (one\n"
    "written with `torchdex export --format uv-project`), run `uv lock`, refuse a uv.lock that\n"
    "takes a routed package from anywhere but the project's pytorch-<backend> indexes, then run\n"
    "`uv sync --frozen --extra <backend>`.\n"
    "pip and uv get no PIP_*/UV_* variable or configuration file that names an index or a\n"
    "source (docs/install.md); a lock wheel url with a fragment (#sha256=...) is refused.\n"
    "See docs/teams.md.\n";

namespace {

// A package's wheel's tags: those of its name, without the label for a variant wheel (PEP 825).
core::Expected<core::WheelFilename> LockedWheelName(const LockedPackage& p, const LockedWheel& w) {
  const std::optional<catalogue::VariantWheelName> variant =
      p.variants_json ? catalogue::SplitVariantLabel(w.name) : std::nullopt;
  return core::ParseWheelFilename(variant ? variant->plain_filename : w.name);
}

// Every wheel name of the lock, whatever the machine: it parses (a variant label only where the
// package locks a variants.json), it is of its package and version, and a package that locks a
// variants.json has variant wheels. Checked when the lock is read, so a bad name is a located
// error (exit 5) and not a lock that fits no machine.
core::Status CheckWheelNames(const std::string& path, const PyLock& lock) {
  for (const LockedPackage& p : lock.packages) {
    const std::string where = path + ":" + std::to_string(p.line) + ": " + p.name + " " + p.version;
    if (p.variants_json && std::none_of(p.wheels.begin(), p.wheels.end(), [](const LockedWheel& w) {
          return catalogue::SplitVariantLabel(w.name).has_value();
        })) {
      return core::MakeError(where + ": it locks a variants.json, but none of its wheels is a variant wheel",
                             core::ErrorCode::kBadInputFile);
    }
    for (const LockedWheel& w : p.wheels) {
      const std::string at = path + ":" + std::to_string(w.line) + ": " + p.name + " " + p.version;
      // pip and uv take a URL's "#sha256=" as a hash the file may have, beside --hash: a
      // fragment would let another wheel than the lock's own pass (issue 29, item 1).
      if (const size_t hash = w.url.find('#'); hash != std::string::npos) {
        return core::MakeError(at + ": the wheel url carries a fragment (" +
                                   core::RedactCredentials(w.url.substr(hash, 80)) +
                                   "); a lock's url names the file alone, and its hash is the one of hashes.sha256",
                               core::ErrorCode::kBadInputFile);
      }
      auto wheel = LockedWheelName(p, w);
      if (!wheel) {
        const std::optional<catalogue::VariantWheelName> variant = catalogue::SplitVariantLabel(w.name);
        const std::string why = variant && !p.variants_json
                                    ? w.name + " is a variant wheel (PEP 825, label " + variant->label +
                                          "), but the package has no [packages.variants-json] to resolve it with"
                                    : wheel.error().message;
        return core::MakeError(at + ": " + why, core::ErrorCode::kBadInputFile);
      }
      if (wheel->name != p.name || wheel->version.ToString() != p.version) {
        return core::MakeError(at + ": the wheel " + w.name + " is not of this package and version",
                               core::ErrorCode::kBadInputFile);
      }
    }
  }
  return {};
}

// Why a lock cannot serve this interpreter ("" when it can): its requires-python, its
// environments, or a package that applies here whose requires-python excludes it or which has
// no wheel that fits (a lock made for another platform or Python). What is wrong with the lock
// itself (a marker or wheel name that does not parse) is left to WheelsFor to say.
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
  const std::vector<core::Tag> supported = core::SupportedTags(target.info);
  for (const LockedPackage& p : lock.packages) {
    const std::string where = f.path + ":" + std::to_string(p.line) + ": " + p.name + " " + p.version;
    if (!p.marker.empty()) {
      auto marker = core::Marker::Parse(p.marker);
      auto applies = marker ? marker->Evaluate(target.markers) : core::Expected<bool>(false);
      if (!applies || !*applies) continue;
    }
    if (!p.requires_python.empty() && version) {
      auto spec = core::SpecifierSet::Parse(p.requires_python);
      if (spec && !spec->Contains(*version, core::Prereleases::kAllow)) {
        return where + ": requires-python " + p.requires_python + " excludes " + target.description;
      }
    }
    bool fits = false, named = true;
    for (const LockedWheel& w : p.wheels) {
      auto wheel = LockedWheelName(p, w);
      named = named && wheel.ok();
      fits = fits || (wheel && core::BestTagRank(wheel->Tags(), supported).has_value());
    }
    if (!fits && named) {
      std::string tags;
      for (const LockedWheel& w : p.wheels) tags += (tags.empty() ? "" : ", ") + w.name;
      return where + ": no wheel of the lock fits " + target.description + " (" + tags + ")";
    }
  }
  return "";
}

// The wheels of the lock that apply to the target, one per package, or a located error.
struct ChosenWheel {
  const LockedPackage* package;
  const LockedWheel* wheel;
};

// `variants`: of a package of variant wheels, the label resolved for this machine; only its
// wheels are candidates.
// What a routed package of the lock must be (RoutedFileOfBackend): the catalogue's routed names,
// the lock's backend, where the family's files are.
struct RoutedRule {
  std::function<bool(const std::string&)> routed;
  std::string backend;
  std::vector<std::string> roots;
};

// The wheel of `p` that fits the target best (of a variant package, only those of the label
// resolved), or a located error.
core::Expected<const LockedWheel*> BestWheel(const LockFile& f, const LockedPackage& p,
                                             const std::vector<core::Tag>& supported,
                                             const std::map<std::string, std::string>& variants,
                                             const std::string& where) {
  const LockedWheel* best = nullptr;
  std::size_t best_rank = 0;
  const auto resolved = variants.find(p.name);
  for (const LockedWheel& w : p.wheels) {
    auto wheel = LockedWheelName(p, w);  // CheckWheelNames has checked every name
    if (!wheel) return core::MakeError(f.path + ":" + std::to_string(w.line) + ": " + wheel.error().message,
                                       core::ErrorCode::kBadInputFile);
    if (resolved != variants.end()) {
      const std::optional<catalogue::VariantWheelName> variant = catalogue::SplitVariantLabel(w.name);
      if (!variant || variant->label != resolved->second) continue;
    }
    auto rank = core::BestTagRank(wheel->Tags(), supported);
    if (rank && (best == nullptr || *rank < best_rank)) {
      best = &w;
      best_rank = *rank;
    }
  }
  if (best == nullptr) return core::MakeError(where, core::ErrorCode::kBadInputFile);
  return best;
}

// The URL goes into a requirements file: nothing in it may start another line or option; it
// obeys the HTTPS rule, as install's URLs do; it fetches the file its name says; and a routed
// package's file is one of the lock's backend.
core::Status CheckWheelUrl(const LockFile& f, const LockedPackage& p, const LockedWheel& best,
                           const std::vector<std::string>& trusted_hosts, const RoutedRule& rule) {
  const std::string at = f.path + ":" + std::to_string(best.line) + ": " + p.name + " " + p.version;
  if (std::any_of(best.url.begin(), best.url.end(), [](char c) {
        const auto u = static_cast<unsigned char>(c);
        return u <= 0x20 || u == 0x7f;
      })) {
    return core::MakeError(at + ": the wheel URL holds a space or a control character", core::ErrorCode::kBadInputFile);
  }
  if (core::Status ok = CheckTransport(best.url, trusted_hosts, "the wheel of " + p.name + " " + p.version); !ok) {
    return core::MakeError(at + ": " + ok.error().message, core::ErrorCode::kBadInputFile);
  }
  if (const std::string file = UrlFileName(best.url); file != best.name) {
    return core::MakeError(at + ": the wheel's name " + best.name + " is not the file its url names (" + file + ")",
                           core::ErrorCode::kBadInputFile);
  }
  if (rule.routed(p.name)) return RoutedFileOfBackend(at, p.name, p.version, best.url, rule.backend, rule.roots);
  return {};
}

// Every routed package the lock was asked for is installed here: a lock whose torch applies to
// no machine would be chosen "by torch" and then install none (issue 29, item 11).
core::Status EveryAskedRoutedPackageApplies(const LockFile& f, const Interpreter& target, const RoutedRule& rule,
                                            const std::map<std::string, int>& applied) {
  for (const std::string& text : f.lock.torchdex.requirements) {
    core::Expected<core::Requirement> r = core::Requirement::Parse(text);
    if (!r) continue;  // refused where the lock was read
    const std::string name = r->NormalizedName();
    if (!rule.routed(name) || applied.contains(name)) continue;
    const core::Expected<bool> marked = r->marker.empty() ? core::Expected<bool>(true) : r->marker.Evaluate(target.markers);
    if (!marked || !*marked) continue;
    return core::MakeError(f.path + ":" + std::to_string(f.lock.torchdex.line) + ": the lock asks for " + text +
                               ", but none of its entries of " + name + " applies to " + target.description,
                           core::ErrorCode::kBadInputFile);
  }
  return {};
}

core::Expected<std::vector<ChosenWheel>> WheelsFor(const LockFile& f, const Interpreter& target,
                                                   const std::vector<std::string>& trusted_hosts,
                                                   const RoutedRule& rule,
                                                   const std::map<std::string, std::string>& variants = {}) {
  const std::vector<core::Tag> supported = core::SupportedTags(target.info);
  auto version = core::Version::Parse(target.full_version);
  std::vector<ChosenWheel> out;
  std::map<std::string, int> applied;  // name -> the line of the entry that applies here
  for (const LockedPackage& p : f.lock.packages) {
    const std::string where = f.path + ":" + std::to_string(p.line) + ": " + p.name + " " + p.version;
    if (!p.marker.empty()) {
      auto marker = core::Marker::Parse(p.marker);
      auto applies = marker ? marker->Evaluate(target.markers) : core::Expected<bool>(marker.error());
      if (!applies) return core::MakeError(where + ": marker: " + applies.error().message, core::ErrorCode::kBadInputFile);
      if (!*applies) continue;
    }
    // One entry of a name for this machine: a second one whose marker also holds here is a lock
    // that says two things (issue 29, item 11).
    if (const auto [first, added] = applied.emplace(p.name, p.line); !added) {
      return core::MakeError(where + ": " + p.name + " is locked twice for " + target.description +
                                 " (the entry at line " + std::to_string(first->second) + " applies too)",
                             core::ErrorCode::kBadInputFile);
    }
    if (!p.requires_python.empty() && version) {
      auto spec = core::SpecifierSet::Parse(p.requires_python);
      if (spec && !spec->Contains(*version, core::Prereleases::kAllow)) {
        return core::MakeError(where + ": requires-python " + p.requires_python + " excludes " + target.description,
                               core::ErrorCode::kBadInputFile);
      }
    }
    core::Expected<const LockedWheel*> best =
        BestWheel(f, p, supported, variants, where + ": no wheel of the lock fits " + target.description);
    if (!best) return best.error();
    if (core::Status ok = CheckWheelUrl(f, p, **best, trusted_hosts, rule); !ok) return ok.error();
    out.push_back({&p, *best});
  }
  if (core::Status ok = EveryAskedRoutedPackageApplies(f, target, rule, applied); !ok) return ok.error();
  return out;
}

}  // namespace

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
      "run `uv lock`, check uv.lock, then `uv sync --frozen --extra <backend>` in --lock-dir for the backend "
      "chosen over the project's extras")(
      "root", po::value<std::string>(&o.root)->value_name("DIR"), "detect the host captured under DIR")(
      "root-providers", po::bool_switch(&o.root_providers),
      "run the torchdex-provider-* executables on the PATH of the --root host (they are files of the capture; not "
      "run by default)")(
      "catalogue", po::value<std::vector<std::string>>(&o.catalogues)->value_name("FILE"),
      "an override file; repeatable");
}

core::Expected<bool> ValidateSyncOptions(Options& options) {
  if (!ParseInstallerKind(options.sync.installer)) return ParseInstallerKind(options.sync.installer).error();
  if (options.sync.lock_dir.empty()) return core::MakeError("--lock-dir: an empty directory name");
  return true;
}

namespace {

// One lock of the directory, parsed and checked against those read before it.
core::Expected<LockFile> ReadLock(const std::string& dir, const std::string& name,
                                  const std::vector<LockFile>& before) {
  const std::string path = (fs::path(dir) / name).string();
  core::Expected<std::string> text = ReadFileText(path, 64u << 20);
  if (!text) return text.error();
  core::Expected<PyLock> lock = ParsePyLock(*text, path);
  if (!lock) return lock.error();
  if (core::Status names = CheckWheelNames(path, *lock); !names) return names.error();
  // The name says which backend a reader of the directory expects: a cu124 lock that holds cpu
  // wheels is a mistake (or a trap), not a lock to choose by its name.
  if (name != "pylock.toml" && LockFileName(lock->torchdex.backend) != name) {
    return core::MakeError(path + ":" + std::to_string(lock->torchdex.line) + ": [tool.torchdex] backend is \"" +
                               lock->torchdex.backend + "\", but the file is named for another; a lock for it is named " +
                               LockFileName(lock->torchdex.backend),
                           core::ErrorCode::kBadInputFile);
  }
  for (const LockFile& other : before) {
    if (other.lock.torchdex.backend == lock->torchdex.backend) {
      return core::MakeError("two lock files for the backend " + lock->torchdex.backend + ": " + other.path + " and " +
                                 path + "; keep one",
                             core::ErrorCode::kBadInputFile);
    }
  }
  if (!before.empty() && before.front().lock.torchdex.channel != lock->torchdex.channel) {
    return core::MakeError("the locks are for different channels: " + before.front().path + " (" +
                               before.front().lock.torchdex.channel + ") and " + path + " (" + lock->torchdex.channel +
                               ")",
                           core::ErrorCode::kBadInputFile);
  }
  return LockFile{path, std::move(lock).value()};
}

// Every lock present, parsed and checked before anything is decided or installed.
core::Expected<std::vector<LockFile>> ReadLocks(const std::string& dir) {
  std::error_code error;
  std::vector<std::string> names;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, error)) {
    const std::string name = entry.path().filename().string();
    if (IsLockFileName(name)) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  if (names.empty()) {
    return core::MakeError(dir + ": no pylock.*.toml lock files (torchdex lock writes them)",
                           core::ErrorCode::kBadInputFile);
  }
  std::vector<LockFile> locks;
  for (const std::string& name : names) {
    core::Expected<LockFile> lock = ReadLock(dir, name, locks);
    if (!lock) return lock.error();
    locks.push_back(std::move(lock).value());
  }
  return locks;
}

// The routed packages the locks were asked for, by name (each lock offers its own versions).
core::Expected<std::vector<std::string>> RoutedAsked(const std::vector<LockFile>& locks, const CatalogueSource& source) {
  std::set<std::string> routed_asked;
  for (const LockFile& f : locks) {
    for (const std::string& text : f.lock.torchdex.requirements) {
      auto r = core::Requirement::Parse(text);
      if (!r) {
        return core::MakeError(f.path + ":" + std::to_string(f.lock.torchdex.line) +
                                   ": [tool.torchdex] requirements: " + r.error().message,
                               core::ErrorCode::kBadInputFile);
      }
      const std::string name = core::NormalizeName(r->name);
      if (source.IsRouted(name)) routed_asked.insert(name);
    }
  }
  return std::vector<std::string>(routed_asked.begin(), routed_asked.end());
}

// A backend the catalogue does not know: an error naming the file, as select names a flag.
// "variant" is the channel's variant index (lock --backend variant): its lock, or nullptr.
core::Expected<const LockFile*> CheckLockBackends(const std::vector<LockFile>& locks, const CatalogueSource& source,
                                                  const std::string& channel) {
  const std::vector<std::string> known = source.BackendNames(channel);
  const LockFile* variant_lock = nullptr;
  for (const LockFile& f : locks) {
    const std::string& backend = f.lock.torchdex.backend;
    if (backend == "variant") {
      variant_lock = &f;
    } else if (std::find(known.begin(), known.end(), backend) == known.end()) {
      return core::MakeError(f.path + ":" + std::to_string(f.lock.torchdex.line) + ": [tool.torchdex] backend \"" +
                                 backend + "\" is not a backend the catalogue knows (" + source.description + ")" +
                                 ClosestBackend(backend, known),
                             core::ErrorCode::kBadInputFile);
    }
  }
  return variant_lock;
}

// What one sync knows once the locks are read and the decision's inputs gathered.
struct SyncContext {
  SyncContext(const SyncCliOptions& options, Deps& deps_in, std::ostream& out_in, std::ostream& err_in,
              std::vector<LockFile> locks_in)
      : o(options), deps(deps_in), out(out_in), err(err_in), locks(std::move(locks_in)) {
    channel = locks.front().lock.torchdex.channel;
  }

  const SyncCliOptions& o;
  Deps& deps;
  std::ostream& out;
  std::ostream& err;
  std::vector<LockFile> locks;
  std::string channel;
  Interpreter target;
  ChoiceOptions choice;
  DecisionInputs inputs;
  std::vector<std::string> trusted;
  const LockFile* variant_lock = nullptr;
};

// The lock chosen, and of a variant lock the label resolved per package.
struct SyncChoice {
  const LockFile* lock = nullptr;
  std::map<std::string, std::string> variant_labels;
};

// The decision's inputs, as select gathers them, for the routed packages the locks were asked for.
core::Status GatherSyncInputs(SyncContext& ctx) {
  const SyncCliOptions& o = ctx.o;
  core::Expected<std::string> python = FindInterpreter(o.python, ctx.deps.env);
  if (!python) return python.error();
  core::Expected<Interpreter> target =
      QueryInterpreterCached(*python, ctx.deps.runner, ctx.deps.env, std::chrono::seconds(30));
  if (!target) return target.error();
  ctx.target = std::move(target).value();
  ChoiceOptions& choice = ctx.choice;
  choice.root = o.root;
  choice.root_providers = o.root_providers;
  choice.catalogues = o.catalogues;
  choice.channel = ctx.channel;
  choice.probe_timeout_seconds = o.probe_timeout_seconds;
  core::Expected<UserCatalogue> catalogue = LoadUserCatalogue(o.catalogues, ctx.deps.env);
  if (!catalogue) return catalogue.error();
  core::Expected<std::vector<std::string>> routed_texts = RoutedAsked(ctx.locks, *catalogue->source);
  if (!routed_texts) return routed_texts.error();
  core::Expected<std::vector<AskedRequirement>> asked = ParseAskedRequirements(*routed_texts);
  if (!asked) return asked.error();
  choice.parsed = *asked;
  choice.requirements = *routed_texts;
  core::Expected<DecisionInputs> inputs = GatherDecisionInputs(choice, ctx.deps, &ctx.target);
  if (!inputs) return inputs.error();
  ctx.inputs = std::move(inputs).value();
  core::Expected<const LockFile*> variant_lock = CheckLockBackends(ctx.locks, *ctx.inputs.catalogue.source, ctx.channel);
  if (!variant_lock) return variant_lock.error();
  ctx.variant_lock = *variant_lock;
  for (const auto& host : ctx.inputs.catalogue.overrides.trusted_hosts) ctx.trusted.push_back(host.value);
  return {};
}

// Alone, a lock of the variant index is this machine's if its variants fit here. The exit
// status when it does not; nullopt when it does (what resolved it said on out).
std::optional<int> ChooseVariantLock(const SyncContext& ctx, SyncChoice& choice) {
  const LockFile& lock = *ctx.variant_lock;
  std::ostream& out = ctx.out;
  choice.lock = &lock;
  const std::string misfit = InterpreterMisfit(lock, ctx.target);
  std::vector<std::string> why, warnings;
  core::Status fits = misfit.empty() ? core::Status{} : core::MakeError(misfit, core::ErrorCode::kNotOffered);
  std::optional<VariantDetection> host;
  if (fits) {
    core::Expected<VariantDetection> detected = DetectVariantsForChoice(ctx.choice, ctx.inputs, ctx.deps);
    if (!detected) return Refuse(ctx.err, detected.error());
    host = std::move(detected).value();
    core::Expected<std::map<std::string, std::string>> resolved = ResolveLockedVariants(
        lock, ctx.target.markers, host->properties, ctx.trusted, ctx.deps.fetcher, why, warnings);
    if (resolved) {
      choice.variant_labels = std::move(resolved).value();
    } else {
      fits = resolved.error();
    }
  }
  if (!fits && fits.error().code == core::ErrorCode::kNotOffered) {
    ctx.err << "torchdex sync: "
            << core::RedactCredentials("no lock file in " + ctx.o.lock_dir + " fits " + ctx.target.description +
                                       ":\n  " + fits.error().message)
            << "\n";
    return kExitNoBackend;
  }
  if (!fits) return Refuse(ctx.err, fits.error());
  out << "lock: " << lock.path << " (the variant index, catalogue "
      << (lock.lock.torchdex.catalogue_date.empty() ? "of unknown date" : lock.lock.torchdex.catalogue_date) << ")\n";
  for (const std::string& line : VariantHostExplanation(*host)) out << "why: " << line << "\n";
  for (const std::string& line : why) out << "why: " << line << "\n";
  for (const std::string& w : host->warnings) out << "warning: " << core::RedactCredentials(w) << "\n";
  for (const std::string& w : warnings) out << "warning: " << w << "\n";
  return std::nullopt;
}

// The locks the interpreter can use, by backend, and why each other one is turned down.
struct UsableLocks {
  std::map<std::string, const PyLock*> usable;
  std::map<std::string, const LockFile*> by_backend;
  std::vector<std::string> refused;

  // Why each lock was not chosen, one line each.
  void ExplainRejections(const Decision* d, std::ostream& to) const {
    if (d != nullptr) {
      for (const Rejection& r : d->selection.rejected) {
        auto it = by_backend.find(r.backend);
        to << "  " << (it == by_backend.end() ? r.backend : it->second->path) << " (" << r.backend
           << "): " << Join(r.reasons, "; ") << "\n";
      }
    }
    for (const std::string& r : refused) to << "  " << r << "\n";
  }
};

// Locks the interpreter cannot use are turned down before the decision, with the reason.
UsableLocks SortLocks(const SyncContext& ctx) {
  UsableLocks locks;
  for (const LockFile& f : ctx.locks) {
    locks.by_backend[f.lock.torchdex.backend] = &f;
    if (&f == ctx.variant_lock) {
      locks.refused.push_back(f.path + ": a lock of the variant index is synced only from a directory that holds no "
                              "other lock (no machine's choice is the variant index, as with select)");
      continue;
    }
    const std::string misfit = InterpreterMisfit(f, ctx.target);
    if (misfit.empty()) {
      locks.usable[f.lock.torchdex.backend] = &f.lock;
    } else {
      locks.refused.push_back(misfit);
    }
  }
  return locks;
}

// The decision of select over the catalogue restricted to the usable locks' backends, each
// offering what its lock holds. The exit status when no lock fits; nullopt when one does.
std::optional<int> ChooseByDecision(const SyncContext& ctx, const UsableLocks& locks, SyncChoice& choice) {
  std::ostream& out = ctx.out;
  auto restricted = std::make_shared<CatalogueSource>();
  const std::shared_ptr<CatalogueSource>& base = ctx.inputs.catalogue.source;
  restricted->description = base->description + ", restricted to the backends of the lock files";
  restricted->default_base_url = base->default_base_url;
  restricted->upstream_hosts = base->upstream_hosts;
  restricted->routed = base->routed;
  restricted->view = std::make_unique<LockedView>(base, base->ViewFor(ctx.channel), locks.usable);
  if (base->HoldsChannel(ctx.channel)) restricted->channel_views[ctx.channel] = nullptr;
  const UserCatalogue locked{ctx.inputs.catalogue.overrides, restricted};
  core::Expected<Decision> decided = Decide(ctx.inputs.request, ctx.inputs.facts, locked);
  if (!decided || decided->backend.empty()) {
    std::ostringstream why;
    why << "no lock file in " << ctx.o.lock_dir << " fits " << ctx.target.description;
    if (!decided) why << ": " << decided.error().message;
    why << ":\n";
    locks.ExplainRejections(decided ? &*decided : nullptr, why);
    ctx.err << "torchdex sync: " << core::RedactCredentials(why.str());
    return kExitNoBackend;
  }
  const Decision& decision = *decided;
  const LockFile& chosen = *locks.by_backend.at(decision.backend);
  choice.lock = &chosen;
  out << "lock: " << chosen.path << " (backend " << decision.backend << ", catalogue "
      << (chosen.lock.torchdex.catalogue_date.empty() ? "of unknown date" : chosen.lock.torchdex.catalogue_date)
      << ")\n";
  for (const std::string& line : decision.explanation) out << "why: " << core::RedactCredentials(line) << "\n";
  if (ctx.o.explain) {
    out << "not chosen:\n";
    locks.ExplainRejections(&decision, out);
    for (const Candidate& c : decision.selection.candidates) {
      if (c.backend != decision.backend)
        out << "  " << locks.by_backend.at(c.backend)->path << " (" << c.backend << "): fits, ranked lower\n";
    }
  }
  for (const std::string& w : decision.warnings) out << "warning: " << core::RedactCredentials(w) << "\n";
  return std::nullopt;
}

// The installer's command line for a requirements file of the lock's wheels: exactly the lock,
// every wheel by URL, its hash required, no dependency followed.
core::Expected<std::vector<std::string>> SyncArgv(const SyncContext& ctx, const std::string& requirements_path) {
  if (*ParseInstallerKind(ctx.o.installer) == InstallerKind::kUv) {
    core::Expected<std::string> uv = FindUv(ctx.deps.env);
    if (!uv) return uv.error();
    return std::vector<std::string>{*uv, "pip", "install", "--python", ctx.target.path, "--no-config", "--no-deps",
                                    "--require-hashes", "-r", requirements_path};
  }
  // pip's check for a newer pip of its own asks PyPI (at most weekly, but a hang offline);
  // it changes nothing that is installed.
  return std::vector<std::string>{ctx.target.path, "-m", "pip", "install", "--no-deps", "--require-hashes",
                                  "--no-input", "--disable-pip-version-check", "-r", requirements_path};
}

// A wheel that does not match its hash: say which line of the lock it is.
void NameHashMismatches(const std::string& said, const LockFile& chosen, const std::vector<ChosenWheel>& wheels,
                        std::ostream& err) {
  for (const ChosenWheel& c : wheels) {
    if (said.find(c.wheel->sha256) != std::string::npos &&
        (said.find("HASH") != std::string::npos || said.find("ash mismatch") != std::string::npos ||
         said.find("do not match") != std::string::npos)) {
      err << "torchdex sync: " << chosen.path << ":" << c.wheel->line << ": " << c.package->name << " "
          << c.package->version << ": the downloaded wheel " << core::RedactCredentials(c.wheel->url)
          << " does not match the lock's sha256 " << c.wheel->sha256 << "; nothing was installed\n";
    }
  }
}

// Installs the chosen lock's wheels for this machine (or says what it would, --dry-run).
int InstallChosenLock(const SyncContext& ctx, const SyncChoice& choice) {
  const SyncCliOptions& o = ctx.o;
  std::ostream& out = ctx.out;
  std::ostream& err = ctx.err;
  const LockFile& chosen = *choice.lock;
  const std::shared_ptr<CatalogueSource> source = ctx.inputs.catalogue.source;
  const RoutedRule rule{[&](const std::string& name) { return source->IsRouted(name); }, chosen.lock.torchdex.backend,
                        RoutedFileRoots(ctx.inputs.catalogue)};
  core::Expected<std::vector<ChosenWheel>> wheels = WheelsFor(chosen, ctx.target, ctx.trusted, rule, choice.variant_labels);
  if (!wheels) return Refuse(err, wheels.error());
  std::string requirements;
  for (const ChosenWheel& c : *wheels) {
    requirements += c.package->name + " @ " + c.wheel->url + " --hash=sha256:" + c.wheel->sha256 + "\n";
  }
  TemporaryDirectory work;
  if (work.path().empty()) return Refuse(err, core::MakeError("cannot make a temporary directory"));
  const std::string requirements_path = work.path() + "/requirements.txt";
  if (core::Status ok = catalogue::WriteFileAtomically(requirements_path, requirements); !ok) return Refuse(err, ok.error());
  core::Expected<std::vector<std::string>> argv = SyncArgv(ctx, requirements_path);
  if (!argv) return Refuse(err, argv.error());
  for (const ChosenWheel& c : *wheels) {
    if (o.dry_run || !c.package->variants_json) continue;
    err << "torchdex sync: " << chosen.path << ":" << c.wheel->line << ": " << c.wheel->name
        << " is a variant wheel (PEP 825, a draft): pip and uv cannot install it yet, so nothing is installed; "
           "--dry-run shows the lock's wheels\n";
    return kExitFailure;
  }
  for (const ChosenWheel& c : *wheels) {
    out << (o.dry_run ? "would install: " : "install: ") << c.package->name << " " << c.package->version << " "
        << core::RedactCredentials(c.wheel->url) << "\n";
  }
  if (o.dry_run) {
    out << "would run: " << core::RedactCredentials(QuoteCommand(*argv)) << "\n";
    return kExitOk;
  }
  const bool uv = *ParseInstallerKind(o.installer) == InstallerKind::kUv;
  core::Expected<InstallerEnvironment> child =
      EnvironmentForInstaller(ctx.deps.env, uv ? InstallerRun::kUvPip : InstallerRun::kPip);
  if (!child) return Refuse(err, child.error());
  out << LeftOutNote(*child, uv ? "uv" : "pip");
  out << "running: " << core::RedactCredentials(QuoteCommand(*argv)) << "\n";
  out.flush();
  std::ostringstream child_out, child_err;
  const int code = ExecuteInstall(*argv, ctx.deps.runner, child->env, child_out, child_err);
  out << child_out.str();
  err << child_err.str();
  if (code != 0) NameHashMismatches(child_out.str() + child_err.str(), chosen, *wheels, err);
  return code;
}

}  // namespace

int RunSync(const Options& options, Deps& deps, std::ostream& out, std::ostream& err) {
  const SyncCliOptions& o = options.sync;
  std::error_code error;
  if (!fs::is_directory(o.lock_dir, error)) {
    return Refuse(err, core::MakeError("--lock-dir " + o.lock_dir + ": not a directory", core::ErrorCode::kBadInputFile));
  }
  if (o.uv_project) return SyncUvProject(o, deps, out, err);
  core::Expected<std::vector<LockFile>> locks = ReadLocks(o.lock_dir);
  if (!locks) return Refuse(err, locks.error());
  SyncContext ctx(o, deps, out, err, std::move(locks).value());
  if (core::Status gathered = GatherSyncInputs(ctx); !gathered) return Refuse(err, gathered.error());
  SyncChoice choice;
  if (ctx.variant_lock != nullptr && ctx.locks.size() == 1) {
    if (std::optional<int> refused = ChooseVariantLock(ctx, choice)) return *refused;
  } else if (std::optional<int> refused = ChooseByDecision(ctx, SortLocks(ctx), choice)) {
    return *refused;
  }
  return InstallChosenLock(ctx, choice);
}

}  // namespace torchdex::installer
