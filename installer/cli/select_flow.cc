#include "installer/cli/select_flow.h"

#include <dirent.h>
#include <gnu/libc-version.h>
#include <sys/utsname.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/name.h"
#include "installer/detect/detect.h"
#include "installer/detect/report.h"
#include "installer/select/catalogue_source.h"

namespace torchdex::installer {
namespace {

std::vector<std::string> ListJsonFiles(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return out;
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name.size() > 5 && name.ends_with(".json")) out.push_back(dir + "/" + name);
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

std::string ConfigHome(const Environment& env) {
  if (auto xdg = Lookup(env, "XDG_CONFIG_HOME"); xdg && !xdg->empty()) return *xdg;
  if (auto home = Lookup(env, "HOME"); home && !home->empty()) return *home + "/.config";
  return "";
}

// "torch_backend" from $XDG_CONFIG_HOME/torchdex/config.json; errors name the file.
core::Expected<std::string> ConfiguredBackend(const Environment& env) {
  const std::string home = ConfigHome(env);
  if (home.empty()) return std::string();
  const std::string path = home + "/torchdex/config.json";
  std::ifstream in(path);
  if (!in) return std::string();
  std::ostringstream text;
  text << in.rdbuf();
  const nlohmann::json doc = nlohmann::json::parse(text.str(), nullptr, false, true);
  if (doc.is_discarded() || !doc.is_object()) return core::MakeError(path + ": not a JSON object");
  if (!doc.contains("torch_backend")) return std::string();
  if (!doc["torch_backend"].is_string()) return core::MakeError(path + ": /torch_backend: expected a string");
  return doc["torch_backend"].get<std::string>();
}

std::string HostArch() {
  utsname u{};
  if (uname(&u) != 0) return "x86_64";
  return u.machine;
}

int HostGlibcMinor() {
  const std::string v = gnu_get_libc_version();  // "2.36"
  const std::size_t dot = v.find('.');
  try {
    return dot == std::string::npos ? 17 : std::stoi(v.substr(dot + 1));
  } catch (...) {
    return 17;
  }
}

std::string ChannelPath(const std::string& channel) {
  if (channel == "test") return "test/";
  if (channel == "nightly") return "nightly/";
  return "";
}

}  // namespace

core::Expected<UserCatalogue> LoadUserCatalogue(const std::vector<std::string>& cli_files,
                                                const Environment& env) {
  OverrideSources sources{ConfigHome(env), Lookup(env, "TORCHDEX_CATALOGUE").value_or(""), cli_files};
  auto overrides = LoadOverrides(OverrideFilePaths(sources, ListJsonFiles));
  if (!overrides) return overrides.error();
  auto source = LoadCatalogueSource(*overrides);
  if (!source) return source.error();
  return UserCatalogue{std::move(overrides).value(),
                       std::make_shared<const CatalogueSource>(std::move(source).value())};
}

core::Expected<SelectionOutcome> DecideBackend(const SelectionOptions& o, Deps& deps,
                                               const Interpreter* known_interpreter) {
  SelectionOutcome out;
  out.channel = o.channel.empty() ? "stable" : o.channel;

  // The catalogue and the user's override files.
  auto user = LoadUserCatalogue(o.catalogues, deps.env);
  if (!user) return user.error();
  out.overrides = user->overrides;
  out.catalogue = user->source;
  const EffectiveOverrides* overrides = &out.overrides;
  const CatalogueSource* source = out.catalogue.get();
  out.catalogue_description = source->description;
  out.default_base_url = source->default_base_url;
  out.routed_names = source->routed;

  // What was asked: routed requirements decide the backend; the rest is passed through.
  for (const std::string& text : o.requirements) {
    auto r = core::Requirement::Parse(text);
    if (!r) return r.error();
    if (source->IsRouted(core::NormalizeName(r->name))) {
      out.routed.push_back(*r);
    } else {
      out.others.push_back(text);
    }
  }
  if (!out.routed.empty()) {
    out.primary = core::NormalizeName(out.routed.front().name);
    for (const core::Requirement& r : out.routed) {
      if (core::NormalizeName(r.name) == "torch") out.primary = "torch";
    }
  }

  // A backend named by the user skips detection.
  std::string forced = o.torch_backend;
  out.forced_by = forced.empty() ? "" : "--torch-backend";
  for (const char* variable : {"TORCHDEX_TORCH_BACKEND", "UV_TORCH_BACKEND"}) {
    if (!forced.empty()) break;
    if (auto v = Lookup(deps.env, variable); v && !v->empty()) {
      forced = *v;
      out.forced_by = variable;
    }
  }
  if (forced.empty()) {
    auto configured = ConfiguredBackend(deps.env);
    if (!configured) return configured.error();
    if (!configured->empty()) {
      forced = *configured;
      out.forced_by = ConfigHome(deps.env) + "/torchdex/config.json";
    }
  }
  if (forced == "auto") {
    forced.clear();
    out.forced_by.clear();
  }
  // A package pinned to a backend in an override file decides, unless the user named one.
  if (forced.empty()) {
    std::vector<std::string> names;
    for (const core::Requirement& r : out.routed) names.push_back(core::NormalizeName(r.name));
    if (names.empty()) names.push_back("torch");
    for (const std::string& n : names) {
      if (auto it = overrides->pins.find(n); it != overrides->pins.end()) {
        forced = it->second.value;
        out.forced_by = "pin of " + n + " in " + it->second.origin;
        break;
      }
    }
  }
  const std::vector<std::string> known = source->BackendNames(out.channel);
  if (!forced.empty() && std::find(known.begin(), known.end(), forced) == known.end()) {
    std::string list;
    for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
    return core::MakeError("unknown backend '" + forced + "' (from " + out.forced_by + ")" +
                           ClosestBackend(forced, known) + "; known backends: " + list);
  }

  // The host, unless the backend is already decided.
  HostFacts facts;
  if (forced.empty()) {
    FileReader files(o.root.empty() || o.root == "/" ? std::string() : o.root);
    DetectOptions detect_options;
    detect_options.probe_timeout = std::chrono::milliseconds(
        std::max<int64_t>(1, std::llround(o.probe_timeout_seconds * 1000)));
    const DetectDeps detect_deps{files, deps.env, deps.runner, deps.clock};
    auto detected = Detect(detect_options, detect_deps);
    if (!detected) return detected.error();
    facts = std::move(detected).value();
    out.facts_json = HostFactsToJson(facts);
  } else {
    facts.os = "linux";
    facts.arch = HostArch();
  }

  // The target: an interpreter asked once, a described one, or any Python on the platform.
  SelectionTarget target;
  const bool this_machine = o.root.empty() && o.platform.empty();
  std::string platform = o.platform;
  if (platform.empty()) {
    const std::string arch = facts.arch.empty() ? HostArch() : facts.arch;
    platform = (facts.os == "macos" ? "macosx_11_0_" : "linux_") + arch;
  }
  const int glibc_minor = this_machine ? HostGlibcMinor() : 35;
  if (known_interpreter != nullptr || !o.python.empty()) {
    core::Expected<Interpreter> python = known_interpreter != nullptr
                                             ? core::Expected<Interpreter>(*known_interpreter)
                                             : core::Expected<Interpreter>(core::MakeError(""));
    if (known_interpreter == nullptr) {
      auto path = FindInterpreter(o.python, deps.env);
      if (!path) return path.error();
      python = QueryInterpreter(*path, deps.runner, deps.env, std::chrono::seconds(30));
      if (!python) return python.error();
    }
    out.interpreter = *python;
    target.supported_tags = core::SupportedTags(python->info);
    target.python_description = python->description;
    target.os = python->info.os == core::OperatingSystem::kLinux   ? "linux"
                : python->info.os == core::OperatingSystem::kMacOS ? "macos"
                                                                  : "windows";
    target.arch = python->info.arch;
  } else {
    auto info = DescribeTarget(o.python_version.empty() ? "3.12" : o.python_version, platform, glibc_minor);
    if (!info) return info.error();
    target.os = info->os == core::OperatingSystem::kLinux   ? "linux"
                : info->os == core::OperatingSystem::kMacOS ? "macos"
                                                           : "windows";
    target.arch = info->arch == "arm64" && target.os != "macos" ? "aarch64" : info->arch;
    if (!o.python_version.empty()) {
      target.supported_tags = core::SupportedTags(*info);
      target.python_description = "CPython " + o.python_version;
    } else {
      // No interpreter named: any CPython 3.9-3.14 on the platform will do.
      for (int minor = 9; minor <= 14; ++minor) {
        for (bool free_threaded : {false, true}) {
          if (free_threaded && minor < 13) continue;
          core::InterpreterInfo any = *info;
          any.python_minor = minor;
          any.free_threaded = free_threaded;
          for (core::Tag& t : core::SupportedTags(any)) target.supported_tags.push_back(std::move(t));
        }
      }
      target.python_description = "any CPython 3.9-3.14";
    }
  }
  out.target_description = target.python_description + " on " + target.os + " " + target.arch +
                           (o.platform.empty() ? "" : " (--platform " + o.platform + ")");
  if (out.channel != "stable") {
    out.warnings.push_back("the embedded catalogue holds the stable channel: " + out.channel +
                           " is chosen by the stable channel's backends and arch lists, and its "
                           "versions are checked against the live index when installing");
  }

  SelectionRequest request;
  request.routed = out.routed;
  request.primary = out.primary;
  request.channel = "stable";
  if (!forced.empty()) {
    // The named backend must still offer what was asked.
    Selection s;
    std::vector<core::Requirement> asked = out.routed;
    if (asked.empty()) {
      core::Requirement torch;
      torch.name = "torch";
      asked.push_back(torch);
    }
    Candidate c{forced, AcceleratorKind::kOther, "", true, {"named by " + out.forced_by}};
    for (const BackendView& b : source->view->Backends("stable")) {
      if (b.name == forced) c.kind = b.kind;
    }
    for (const core::Requirement& r : asked) {
      const std::string name = core::NormalizeName(r.name);
      std::optional<core::Version> best;
      for (const std::string& text : source->view->Versions(name, forced)) {
        auto v = core::Version::Parse(text);
        if (!v || !r.specifiers.Contains(*v)) continue;
        if (!source->view->HasWheelFor(name, forced, v->ToString(), target.supported_tags)) continue;
        if (!best || *v > *best) best = *v;
      }
      if (!best && out.channel == "stable") {
        return core::MakeError(r.ToString() + " is not offered on " + forced + " (named by " +
                               out.forced_by + ") for " + out.target_description);
      }
      if (best && name == out.primary) c.primary_version = best->ToString();
    }
    s.chosen = c;
    s.candidates.push_back(c);
    s.explanation.push_back("backend " + forced + " named by " + out.forced_by +
                            (c.primary_version.empty() ? "" : "; " + out.primary + " " + c.primary_version));
    out.selection = std::move(s);
  } else {
    out.selection = SelectBackend(facts, target, request, *source->view);
  }
  out.explanation = out.selection.explanation;
  out.default_index = out.selection.default_index;
  if (out.default_index) {
    out.index_url = "https://pypi.org/simple/";
  } else if (out.selection.chosen) {
    out.backend = out.selection.chosen->backend;
    out.primary_version = out.selection.chosen->primary_version;
    out.index_url = BackendIndexUrl(*overrides, out.default_base_url, ChannelPath(out.channel), out.backend);
  }
  for (const std::string& w : facts.warnings) out.warnings.push_back(w);
  return out;
}

}  // namespace torchdex::installer
