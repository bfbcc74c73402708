#include "installer/cli/decision_inputs.h"
#include "installer/cli/plan_for.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>

#include "installer/detect/detect.h"
#include "core/wheel.h"
#include "index/page.h"
#include "index/url.h"
#include "installer/detect/host_parsers.h"
#include "installer/install/transport.h"
#include "core/spelling.h"
#include "installer/platform/file_reader.h"
#include "installer/table/family_table.h"
#include "installer/python/interpreter_cache.h"

namespace torchdex::installer {
namespace {

// The user's own files are read from this machine's root, whatever --root says (that is the
// host detected, not the user running torchdex).
const FileReader& UserFiles() {
  static const FileReader files("");
  return files;
}

std::string ConfigHome(const Environment& env) {
  if (auto xdg = Lookup(env, "XDG_CONFIG_HOME"); xdg && !xdg->empty()) return *xdg;
  if (auto home = Lookup(env, "HOME"); home && !home->empty()) return *home + "/.config";
  return "";
}

std::vector<std::string> ListJsonFiles(const std::string& dir) {
  std::vector<std::string> out;
  for (const std::string& name : UserFiles().ListDirectory(dir)) {  // sorted
    if (name.size() > 5 && name.ends_with(".json")) out.push_back(dir + "/" + name);
  }
  return out;
}

// "torch_backend" from $XDG_CONFIG_HOME/torchdex/config.json; errors name the file.
core::Expected<std::string> ConfiguredBackend(const Environment& env) {
  const std::string home = ConfigHome(env);
  if (home.empty()) return std::string();
  const std::string path = home + "/torchdex/config.json";
  const ReadResult read = UserFiles().Read(path, kMaxOverrideFileBytes);
  if (read.status == ReadResult::Status::kMissing) return std::string();
  if (read.status != ReadResult::Status::kOk || !UserFiles().IsRegularFile(path)) {
    return core::MakeError(path + ": cannot be read" + (read.error.empty() ? "" : ": " + read.error),
                           core::ErrorCode::kBadInputFile);
  }
  const nlohmann::json doc = nlohmann::json::parse(read.contents, nullptr, false, true);
  if (doc.is_discarded() || !doc.is_object()) {
    return core::MakeError(path + ": not a JSON object", core::ErrorCode::kBadInputFile);
  }
  for (const auto& [key, value] : doc.items()) {
    if (key != "torch_backend") {
      return core::MakeError(path + ": /" + key + ": unknown key \"" + key + "\"" +
                                 core::DidYouMean(key, {"torch_backend"}) + "; expected torch_backend",
                             core::ErrorCode::kBadInputFile);
    }
  }
  if (!doc.contains("torch_backend")) return std::string();
  if (!doc["torch_backend"].is_string()) {
    return core::MakeError(path + ": /torch_backend: expected a string", core::ErrorCode::kBadInputFile);
  }
  return doc["torch_backend"].get<std::string>();
}

// The backend the user named: --torch-backend, else TORCHDEX_TORCH_BACKEND or uv's
// UV_TORCH_BACKEND, else the config file; the first one given wins, "auto" included.
core::Expected<BackendRequest> NamedBackend(const ChoiceOptions& o, const Environment& env) {
  if (!o.torch_backend.empty()) return BackendRequest{o.torch_backend, o.torch_backend_flag};
  for (const char* variable : {"TORCHDEX_TORCH_BACKEND", "UV_TORCH_BACKEND"}) {
    if (auto v = Lookup(env, variable); v && !v->empty()) return BackendRequest{*v, variable};
  }
  core::Expected<std::string> configured = ConfiguredBackend(env);
  if (!configured) return configured.error();
  if (!configured->empty()) return BackendRequest{*configured, ConfigHome(env) + "/torchdex/config.json"};
  return BackendRequest{};
}

// A named backend skips detection, but not the host's architecture: the --root host's own
// /proc/sys/kernel/arch when it has one, else this machine's.
std::string HostArch(const ChoiceOptions& o, const Deps& deps) {
  const FileReader files(o.root);
  if (!files.IsRealRoot()) {
    const ReadResult read = files.Read("/proc/sys/kernel/arch", 256);
    if (read.status == ReadResult::Status::kOk) {
      if (std::optional<std::string> arch = ParseKernelArch(read.contents)) return *arch;
    }
  }
  return deps.system.machine;
}

core::TargetOs OsOf(core::OperatingSystem os) {
  switch (os) {
    case core::OperatingSystem::kLinux:
      return core::TargetOs::kLinux;
    case core::OperatingSystem::kMacOS:
      return core::TargetOs::kMacOS;
    default:
      return core::TargetOs::kWindows;
  }
}

// The custom backends whose pages the decision needs: the one named or pinned, else (auto) every
// one that says what it runs on (a CUDA backend its driver floor and arch list, a ROCm backend
// its gfx list); the catalogue cannot know their versions.
std::vector<std::string> CustomBackendsToRead(const EffectiveOverrides& overrides, const BackendRequest& backend) {
  std::vector<std::string> out;
  for (const auto& [name, sourced] : overrides.custom_backends) {
    const CustomBackend& b = sourced.value;
    const bool described = (b.kind == core::BackendKind::kCuda && !b.driver_floor.empty() && !b.cuda_arch.empty()) ||
                           (b.kind == core::BackendKind::kRocm && !b.gfx_arch.empty());
    if (backend.automatic() ? described : name == backend.name) out.push_back(name);
  }
  return out;
}

// Reads `<url><project>/` of each backend for each project; a page that cannot be read is a
// warning (auto) or an error (the backend the user named).
core::Status ReadCustomPages(const std::vector<std::string>& backends, const std::vector<std::string>& projects,
                             const UserCatalogue& catalogue, bool named, Deps& deps, LivePages& live,
                             std::vector<std::string>& warnings) {
  std::vector<std::string> trusted;
  for (const auto& host : catalogue.overrides.trusted_hosts) trusted.push_back(host.value);
  std::unique_ptr<index::Fetcher> own;
  index::Fetcher* fetcher = FetcherFor(deps, trusted, own);
  struct Wanted {
    std::string backend, project;
  };
  std::map<std::string, Wanted> by_url;
  std::vector<index::FetchRequest> requests;
  for (const std::string& backend : backends) {
    const std::string base = catalogue.overrides.custom_backends.at(backend).value.index_url;
    for (const std::string& project : projects) {
      const std::string url = base + project + "/";
      if (core::Status ok = CheckTransport(url, trusted, "custom backend " + backend); !ok) {
        return core::MakeError(ok.error().message, core::ErrorCode::kBadInputFile);
      }
      by_url[url] = {backend, project};
      requests.push_back({url, "", "", 0});
      live[backend][project];  // read, even if it offers nothing
    }
  }
  std::optional<core::Error> failure;
  fetcher->Run(std::move(requests), [&](index::FetchResult&& result) {
    const Wanted& w = by_url.at(result.request.url);
    std::string problem;
    if (result.outcome == index::FetchOutcome::kAbsent) {
      problem = "answered " + std::to_string(result.status);
    } else if (result.outcome != index::FetchOutcome::kOk) {
      problem = result.error.empty() ? "cannot be read" : result.error;
    } else if (auto page = index::ParsePage(result.body, result.content_type,
                                            result.effective_url.empty() ? result.request.url : result.effective_url)) {
      for (const index::Anchor& anchor : page->anchors) {
        auto wheel = core::ParseWheelFilename(index::UrlFilename(anchor.url));
        if (!wheel || wheel->name != w.project) continue;
        std::string tags;
        auto join = [](const std::vector<std::string>& parts) {
          std::string out;
          for (const std::string& p : parts) out += (out.empty() ? "" : ".") + p;
          return out;
        };
        tags = join(wheel->python_tags) + "-" + join(wheel->abi_tags) + "-" + join(wheel->platform_tags);
        live[w.backend][w.project][wheel->version.ToString()].push_back(tags);
      }
    } else {
      problem = page.error().message;
    }
    if (!problem.empty()) {
      const std::string message = "the " + w.project + " page of custom backend " + w.backend + ", " +
                                  result.request.url + ": " + problem;
      if (named && !failure) failure = core::MakeError(message, core::ErrorCode::kNetwork);
      if (!named) warnings.push_back(message);
    }
    return std::vector<index::FetchRequest>{};
  });
  if (failure) return *failure;
  return {};
}

}  // namespace

core::Expected<EffectiveOverrides> LoadUserOverrides(const std::vector<std::string>& cli_files,
                                                     const Environment& env) {
  OverrideSources sources{ConfigHome(env), Lookup(env, "TORCHDEX_CATALOGUE").value_or(""),
                          cli_files};
  return LoadOverrides(UserFiles(), OverrideFilePaths(sources, ListJsonFiles));
}

core::Expected<UserCatalogue> LoadUserCatalogue(const std::vector<std::string>& cli_files,
                                                const Environment& env, const std::string& family) {
  OverrideSources sources{ConfigHome(env), Lookup(env, "TORCHDEX_CATALOGUE").value_or(""), cli_files};
  auto all = LoadOverrides(UserFiles(), OverrideFilePaths(sources, ListJsonFiles));
  if (!all) return all.error();
  // A section for a family torchdex does not know is a typo, not a family of its own.
  std::vector<std::string> families;
  for (const table::FamilyRow& f : table::Families()) families.emplace_back(f.name);
  for (const auto& [name, sections] : all->families) {
    if (std::find(families.begin(), families.end(), name) != families.end() && name != "pytorch") continue;
    std::string list;
    for (const std::string& f : families) list += (list.empty() ? "" : ", ") + f;
    return core::MakeError(sections.front()->path + ": /families/" + name + ": " +
                               (name == "pytorch" ? std::string("the file's own keys are the pytorch family's")
                                                  : "no index family \"" + name + "\"" + core::DidYouMean(name, families) +
                                                        "; known families: " + list),
                           core::ErrorCode::kBadInputFile);
  }
  core::Expected<EffectiveOverrides> overrides =
      family == "pytorch" ? std::move(all).value() : OverridesForFamily(*all, family);
  auto source = LoadFamilyCatalogueSource(*overrides, family);
  if (!source) {
    return core::MakeError(source.error().message, source.error().code == core::ErrorCode::kUsage
                                                       ? core::ErrorCode::kUsage
                                                       : core::ErrorCode::kBadInputFile);
  }
  // A URL for a backend no catalogue knows is a typo (cu1288), not a new backend: a custom
  // backend says its "kind".
  std::vector<std::string> known;
  for (const char* channel : {"stable", "test", "nightly"}) {
    for (const std::string& name : source->BackendNames(channel)) known.push_back(name);
  }
  for (const auto& [name, url] : overrides->backend_urls) {
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    const std::string section = family == "pytorch" ? std::string() : "/families/" + family;
    return core::MakeError(url.origin + ": " + section + "/backends/" + name + ": no backend \"" + name + "\"" +
                               ClosestBackend(name, known) + "; a custom backend needs \"kind\"",
                           core::ErrorCode::kBadInputFile);
  }
  return UserCatalogue{std::move(overrides).value(),
                       std::make_shared<CatalogueSource>(std::move(source).value())};
}

namespace {

// Custom backends are read live: their versions are in no catalogue. Every channel's view
// answers for them (a custom backend serves whatever channel it has).
core::Status ReadCustomBackends(const std::vector<std::string>& custom, bool named, Deps& deps, DecisionInputs& in) {
  std::vector<std::string> projects;
  for (const AskedRequirement& r : in.request.requirements) {
    const std::string name = r.requirement.NormalizedName();
    if (in.catalogue.source->IsRouted(name)) projects.push_back(name);
  }
  if (projects.empty()) projects.push_back(in.catalogue.source->primary);
  LivePages live;
  if (core::Status ok = ReadCustomPages(custom, projects, in.catalogue, named, deps, live, in.warnings); !ok) return ok;
  for (auto& [channel, view] : in.catalogue.source->channel_views) {
    if (view != nullptr) view = WithLivePages(std::move(view), live);
  }
  in.catalogue.source->view = WithLivePages(std::move(in.catalogue.source->view), std::move(live));
  return {};
}

// The target of an interpreter: its tags, OS and arch.
void TargetOfInterpreter(const Interpreter& interpreter, SelectionTarget& target) {
  target.supported_tags = core::SupportedTags(interpreter.info);
  target.python_description = interpreter.description;
  target.os = OsOf(interpreter.info.os);
  target.arch = interpreter.info.arch;
}

// The target --python-version and --platform describe, or, without a version, any CPython
// 3.9-3.14 on the platform.
core::Status DescribedTarget(const ChoiceOptions& o, const std::string& platform, int glibc_minor,
                             SelectionTarget& target) {
  auto info = DescribeTarget(o.python_version.empty() ? "3.12" : o.python_version, platform, glibc_minor);
  if (!info) return core::MakeError(info.error().message, core::ErrorCode::kUsage);
  target.os = OsOf(info->os);
  target.arch = info->arch == "arm64" && target.os != core::TargetOs::kMacOS ? "aarch64" : info->arch;
  if (!o.python_version.empty()) {
    target.supported_tags = core::SupportedTags(*info);
    target.python_description = "CPython " + o.python_version;
    return {};
  }
  std::vector<core::InterpreterInfo> any;
  for (int minor = 9; minor <= 14; ++minor) {
    for (bool free_threaded : {false, true}) {
      if (free_threaded && minor < 13) continue;
      any.push_back(*info);
      any.back().python_minor = minor;
      any.back().free_threaded = free_threaded;
    }
  }
  target.supported_tags = core::SupportedTagsOfAny(any);
  target.python_description = "any CPython 3.9-3.14";
  return {};
}

// The target: an interpreter asked once, a described one, or any Python on the platform.
core::Status GatherTarget(const ChoiceOptions& o, Deps& deps, const Interpreter* known, const FileReader& files,
                          DecisionInputs& in) {
  SelectionTarget& target = in.request.target;
  const bool this_machine = files.IsRealRoot() && o.platform.empty();
  std::string platform = o.platform;
  if (platform.empty()) {
    const std::string arch = in.facts.arch.empty() ? deps.system.machine : in.facts.arch;
    platform = (in.facts.os == core::TargetOs::kMacOS ? "macosx_11_0_" : "linux_") + arch;
  }
  const int glibc_minor = this_machine ? deps.system.glibc_minor : 35;
  if (known != nullptr) {
    in.interpreter = *known;
  } else if (!o.python.empty()) {
    auto path = FindInterpreter(o.python, deps.env);
    if (!path) return path.error();
    auto python = QueryInterpreterCached(*path, deps.runner, deps.env, std::chrono::seconds(30));
    if (!python) return python.error();
    in.interpreter = std::move(python).value();
  }
  if (in.interpreter) {
    TargetOfInterpreter(*in.interpreter, target);
  } else if (core::Status ok = DescribedTarget(o, platform, glibc_minor, target); !ok) {
    return ok;
  }
  target.description = target.python_description + " on " + std::string(core::TargetOsWord(target.os)) + " " +
                       target.arch + (o.platform.empty() ? "" : " (--platform " + o.platform + ")");
  return {};
}

}  // namespace

core::Expected<DecisionInputs> GatherDecisionInputs(const ChoiceOptions& o, Deps& deps,
                                                    const Interpreter* known) {
  DecisionInputs in;
  auto user = LoadUserCatalogue(o.catalogues, deps.env, o.family);
  if (!user) return user.error();
  in.catalogue = std::move(user).value();

  DecisionRequest& request = in.request;
  request.requirements = o.parsed;
  request.channel = o.channel.empty() ? "stable" : o.channel;
  auto named = NamedBackend(o, deps.env);
  if (!named) return named.error();
  request.backend = *named;

  // The host, unless the backend is already decided (by the user or a pin) and no host was
  // described with --root (then its GPUs are checked against what the named toolkit can build).
  auto resolved = ResolveBackend(request, in.catalogue);
  if (!resolved) return resolved.error();
  if (const std::vector<std::string> custom = CustomBackendsToRead(in.catalogue.overrides, *resolved); !custom.empty()) {
    if (core::Status ok = ReadCustomBackends(custom, !resolved->automatic(), deps, in); !ok) return ok.error();
  }
  const FileReader files(o.root);  // "" and "/" are this machine
  if (resolved->automatic() || !files.IsRealRoot()) {
    DetectOptions detect_options;
    detect_options.probe_timeout = std::chrono::milliseconds(
        std::max<int64_t>(1, std::llround(o.probe_timeout_seconds * 1000)));
    const DetectDeps detect_deps{files, deps.env, deps.runner, deps.clock};
    auto detected = Detect(detect_options, detect_deps);
    if (!detected) return detected.error();
    in.facts = std::move(detected).value();
    in.detected = true;
  } else {
    in.facts.os = core::TargetOs::kLinux;
    in.facts.arch = HostArch(o, deps);
  }
  if (core::Status ok = GatherTarget(o, deps, known, files, in); !ok) return ok.error();
  return in;
}

core::Expected<BackendRequest> NamedBackendRequest(const ChoiceOptions& options, const Environment& env) {
  return NamedBackend(options, env);
}

}  // namespace torchdex::installer
