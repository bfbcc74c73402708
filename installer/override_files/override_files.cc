#include "installer/override_files/override_files.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "core/name.h"
#include "core/spelling.h"
#include "core/text.h"
#include "core/utf8.h"

namespace torchdex::installer {
namespace {

using nlohmann::json;

// JSON pointer escaping (RFC 6901) for keys in messages.
std::string Escape(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out.push_back(c);
  }
  return out;
}

class Checker {
 public:
  // `prefix`: the pointer of the section checked ("/families/paddle"), "" for the file's top.
  explicit Checker(const std::string& path, std::string prefix = "") : path_(path), prefix_(std::move(prefix)) {}

  core::Error Fail(const std::string& pointer, const std::string& what) const {
    const std::string at = prefix_ + pointer;
    return core::MakeError(path_ + ": " + (at.empty() ? "/" : at) + ": " + what);
  }

  std::optional<core::Error> Keys(const json& obj, const std::string& pointer,
                                  const std::vector<std::string>& allowed) const {
    for (const auto& [key, value] : obj.items()) {
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
        std::string list;
        for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + a;
        return Fail(pointer + "/" + Escape(key),
                    "unknown key \"" + key + "\"" + core::DidYouMean(key, allowed) + "; expected one of " + list);
      }
    }
    return std::nullopt;
  }

  std::optional<core::Error> String(const json& v, const std::string& pointer, std::string* out) const {
    if (!v.is_string() || v.get<std::string>().empty()) return Fail(pointer, "expected a non-empty string");
    *out = v.get<std::string>();
    return std::nullopt;
  }

  std::optional<core::Error> Url(const json& v, const std::string& pointer, std::string* out) const {
    if (auto e = String(v, pointer, out)) return e;
    const bool https = out->starts_with("https://");
    const bool http = out->starts_with("http://");
    if ((!https && !http) || out->size() <= (https ? 8u : 7u)) {
      return Fail(pointer, "expected an http:// or https:// URL, got \"" + Visible(*out) + "\"");
    }
    // Exports write URLs into requirement files and pip.conf line by line: a space, newline or
    // other control character would inject an option there (--extra-index-url ...).
    if (HasSpaceOrControl(*out)) {
      return Fail(pointer, "\"" + Visible(*out) + "\" contains a space or control character");
    }
    const std::size_t host = out->find("://") + 3;
    if (host >= out->size() || (*out)[host] == '/' || (*out)[host] == ':' || (*out)[host] == '@') {
      return Fail(pointer, "\"" + Visible(*out) + "\" has no host");
    }
    if (!out->ends_with('/')) out->push_back('/');
    return std::nullopt;
  }

  // A host name with an optional port, as pip's --trusted-host takes it.
  std::optional<core::Error> Host(const json& v, const std::string& pointer, std::string* out) const {
    if (auto e = String(v, pointer, out)) return e;
    if (HasSpaceOrControl(*out) || out->find_first_of("/@?#\\") != std::string::npos || out->front() == ':' ||
        out->front() == '-') {
      std::string what = "\"";
      what.append(Visible(*out)).append("\" is not a host name (such as pypi.internal or 10.0.0.5:8080)");
      return Fail(pointer, what);
    }
    return std::nullopt;
  }

  static bool HasSpaceOrControl(const std::string& text) {
    return std::any_of(text.begin(), text.end(), [](char c) {
      const auto u = static_cast<unsigned char>(c);
      return u <= 0x20 || u == 0x7f;
    });
  }

  // A value in a message: control characters shown as \n, \xHH, so a message stays one line.
  static std::string Visible(const std::string& text) { return core::OneLine(text); }

  std::optional<core::Error> Project(const std::string& name, const std::string& pointer,
                                     std::string* out) const {
    if (!core::IsValidName(name)) return Fail(pointer, "\"" + name + "\" is not a valid project name");
    *out = core::NormalizeName(name);
    return std::nullopt;
  }

 private:
  std::string path_;
  std::string prefix_;
};

using Failure = std::optional<core::Error>;

// The kinds a custom backend may have: every kind of core/backend_kinds.def but "other".
std::vector<std::string> CustomBackendKinds() {
  std::vector<std::string> kinds;
  for (core::BackendKind kind : core::kBackendKinds) {
    if (kind != core::BackendKind::kOther) kinds.emplace_back(core::BackendKindWord(kind));
  }
  return kinds;
}

Failure ParseDriverFloors(const json& floors, const std::string& at, const Checker& c, CustomBackend& b) {
  if (!floors.is_object()) return c.Fail(at, "expected {\"linux\": \"560.28.03\", \"windows\": ...}");
  if (auto e = c.Keys(floors, at, {"linux", "windows"})) return e;
  for (const auto& [os, value] : floors.items()) {
    std::string v;
    if (auto e = c.String(value, at + "/" + os, &v)) return e;
    const std::optional<core::DriverVersion> floor = core::DriverVersion::Parse(v);
    if (!floor) return c.Fail(at + "/" + os, "\"" + v + "\" is not a driver version such as 560.28.03");
    b.driver_floor[*core::ParseTargetOs(os)] = *floor;
  }
  return std::nullopt;
}

// "8.0" or "sm_80".
std::optional<core::ComputeCapability> ParseCapability(const std::string& text) {
  std::optional<core::ComputeCapability> cc = core::ComputeCapability::Parse(text);
  if (!cc) cc = core::ComputeCapability::ParseSm(text);
  return cc;
}

Failure ParseArchList(const json& list, const std::string& at, const Checker& c, CustomBackend& b) {
  if (!list.is_array()) return c.Fail(at, "expected an array such as [\"8.0\", \"9.0\"]");
  for (std::size_t i = 0; i < list.size(); ++i) {
    std::string a;
    const std::string where = at + "/" + std::to_string(i);
    if (auto e = c.String(list[i], where, &a)) return e;
    if (b.kind != core::BackendKind::kCuda) {
      b.gfx_arch.push_back(a);
      continue;
    }
    std::optional<core::ComputeCapability> cc = ParseCapability(a);
    if (!cc) return c.Fail(where, "\"" + a + "\" is not a compute capability such as 8.0 or sm_80");
    b.cuda_arch.push_back(*cc);
  }
  return std::nullopt;
}

// A custom backend: its kind, index, toolkit and what its builds hold.
Failure ParseCustomBackend(const json& entry, const std::string& at, const Checker& c, CustomBackend& b) {
  if (auto e = c.Keys(entry, at, {"kind", "toolkit", "url", "driver_floor", "arch", "ptx"})) return e;
  std::string kind;
  if (auto e = c.String(entry["kind"], at + "/kind", &kind)) return e;
  const std::vector<std::string> kinds = CustomBackendKinds();
  const std::optional<core::BackendKind> parsed_kind = core::ParseBackendKind(kind);
  if (!parsed_kind || *parsed_kind == core::BackendKind::kOther) {
    return c.Fail(at + "/kind", "\"" + kind + "\" is not one of " + core::Join(kinds) + core::DidYouMean(kind, kinds));
  }
  b.kind = *parsed_kind;
  if (!entry.contains("url")) return c.Fail(at, "a custom backend needs \"url\", its index");
  if (auto e = c.Url(entry["url"], at + "/url", &b.index_url)) return e;
  if (b.kind == core::BackendKind::kCuda || b.kind == core::BackendKind::kRocm) {
    if (!entry.contains("toolkit")) return c.Fail(at, "a " + kind + " backend needs \"toolkit\" (\"12.6\")");
    if (auto e = c.String(entry["toolkit"], at + "/toolkit", &b.toolkit)) return e;
  }
  if (entry.contains("driver_floor")) {
    if (auto e = ParseDriverFloors(entry["driver_floor"], at + "/driver_floor", c, b)) return e;
  }
  if (entry.contains("arch")) {
    if (auto e = ParseArchList(entry["arch"], at + "/arch", c, b)) return e;
  }
  if (entry.contains("ptx")) {
    std::string ptx;
    if (auto e = c.String(entry["ptx"], at + "/ptx", &ptx)) return e;
    if (!ptx.empty()) {
      b.ptx = ParseCapability(ptx);
      if (!b.ptx) return c.Fail(at + "/ptx", "\"" + ptx + "\" is not a compute capability such as 9.0");
    }
  }
  return std::nullopt;
}

Failure ParseBackends(const json& backends, const Checker& c, OverrideFile& file) {
  if (!backends.is_object()) return c.Fail("/backends", "expected an object of backends");
  for (const auto& [name, entry] : backends.items()) {
    const std::string at = "/backends/" + Escape(name);
    if (!entry.is_object()) return c.Fail(at, "expected an object");
    if (!entry.contains("kind")) {
      if (auto e = c.Keys(entry, at, {"url"})) return e;
      if (!entry.contains("url")) return c.Fail(at, "expected \"url\" (or \"kind\" for a custom backend)");
      std::string url;
      if (auto e = c.Url(entry["url"], at + "/url", &url)) return e;
      file.backend_urls[name] = url;
      continue;
    }
    CustomBackend b;
    if (auto e = ParseCustomBackend(entry, at, c, b)) return e;
    file.custom_backends[name] = std::move(b);
  }
  return std::nullopt;
}

std::optional<core::Error> ParseReasons(const json& obj, const std::string& at, const Checker& c,
                                        std::map<std::string, std::string>& out) {
  if (!obj.is_object()) return c.Fail(at, "expected an object: {\"project\": \"reason\"}");
  for (const auto& [name, reason] : obj.items()) {
    std::string project;
    if (auto e = c.Project(name, at + "/" + Escape(name), &project)) return e;
    std::string text;
    if (auto e = c.String(reason, at + "/" + Escape(name), &text)) {
      return c.Fail(at + "/" + Escape(name), "expected the reason, a non-empty string");
    }
    out[project] = text;
  }
  return std::nullopt;
}

}  // namespace

namespace {

Failure ParseRouted(const json& routed, const Checker& c, OverrideFile& file) {
  if (!routed.is_object()) return c.Fail("/routed", "expected {\"add\": {...}, \"remove\": {...}}");
  if (auto e = c.Keys(routed, "/routed", {"add", "remove"})) return e;
  if (routed.contains("add")) {
    if (auto e = ParseReasons(routed["add"], "/routed/add", c, file.routed_add)) return e;
  }
  if (routed.contains("remove")) {
    if (auto e = ParseReasons(routed["remove"], "/routed/remove", c, file.routed_remove)) return e;
  }
  for (const auto& [project, reason] : file.routed_add) {
    if (file.routed_remove.count(project) != 0) {
      return c.Fail("/routed/remove/" + Escape(project), "\"" + project + "\" is both added and removed");
    }
  }
  return std::nullopt;
}

Failure ParsePins(const json& pins, const Checker& c, OverrideFile& file) {
  if (!pins.is_object()) return c.Fail("/pin", "expected {\"project\": \"backend\"}");
  for (const auto& [name, backend] : pins.items()) {
    std::string project, b;
    if (auto e = c.Project(name, "/pin/" + Escape(name), &project)) return e;
    if (auto e = c.String(backend, "/pin/" + Escape(name), &b)) return e;
    file.pins[project] = b;
  }
  return std::nullopt;
}

// "catalogue": a path relative to the override file, or absolute.
Failure ParseCataloguePath(const json& value, const Checker& c, const std::string& path, OverrideFile& file) {
  std::string p;
  if (auto e = c.String(value, "/catalogue", &p)) return e;
  if (!p.starts_with('/')) {
    const std::size_t slash = path.rfind('/');
    if (slash != std::string::npos) p = path.substr(0, slash + 1) + p;
  }
  file.catalogue = p;
  return std::nullopt;
}

Failure ParseFindLinks(const json& links, const Checker& c, OverrideFile& file) {
  if (!links.is_object()) return c.Fail("/find_links", "expected {\"index\": \"base URL\"}");
  for (const auto& [name, value] : links.items()) {
    std::string url;
    if (auto e = c.Url(value, "/find_links/" + Escape(name), &url)) return e;
    file.find_links[name] = url;
  }
  return std::nullopt;
}

Failure ParseTrustedHosts(const json& hosts, const Checker& c, OverrideFile& file) {
  if (!hosts.is_array()) return c.Fail("/trusted_hosts", "expected an array of host names");
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    std::string h;
    if (auto e = c.Host(hosts[i], "/trusted_hosts/" + std::to_string(i), &h)) return e;
    file.trusted_hosts.push_back(h);
  }
  return std::nullopt;
}

// A variant provider named by its executable (docs/variants.md): "acme": "/opt/acme/bin/x".
Failure ParseProviders(const json& providers, const Checker& c, OverrideFile& file) {
  if (!providers.is_object()) {
    return c.Fail("/providers", "expected {\"namespace\": \"/absolute/path/of/the/provider\"}");
  }
  for (const auto& [ns, exe] : providers.items()) {
    const std::string at = "/providers/" + Escape(ns);
    const bool name_ok = !ns.empty() && std::all_of(ns.begin(), ns.end(), [](char ch) {
      return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_';
    });
    if (!name_ok) return c.Fail(at, "not a variant namespace (^[a-z0-9_]+$)");
    std::string path_of;
    if (auto e = c.String(exe, at, &path_of)) return e;
    const bool clean = std::none_of(path_of.begin(), path_of.end(), [](char ch) {
      const auto u = static_cast<unsigned char>(ch);
      return u < 0x20 || u == 0x7f;
    });
    if (!path_of.starts_with('/') || !clean) return c.Fail(at, "expected the absolute path of the provider's executable");
    file.providers[ns] = path_of;
  }
  return std::nullopt;
}

}  // namespace

static void ParseSection(const json& doc, const Checker& c, const std::string& path, bool is_top, OverrideFile& file,
                         std::vector<std::string>& errors);

// "families": each family's section, parsed as the file's own (its errors reported with theirs).
static Failure ParseFamilies(const json& families, const Checker& c, const std::string& path, OverrideFile& file,
                             std::vector<std::string>& errors) {
  if (!families.is_object()) return c.Fail("/families", "expected {\"family\": {...}}");
  for (const auto& [name, section] : families.items()) {
    const std::string at = "/families/" + Escape(name);
    if (!section.is_object()) return c.Fail(at, "expected an object: the overrides of index family " + name);
    auto family = std::make_shared<OverrideFile>();
    family->path = path;
    ParseSection(section, Checker(path, at), path, /*top=*/false, *family, errors);
    file.families[name] = std::move(family);
  }
  return std::nullopt;
}

// The keys of one section: the file's top (with "format" and "families"), or the section of
// one index family under "families". Every error is reported, not only the first: each key is
// checked on its own (within one, the first error stops it).
static void ParseSection(const json& doc, const Checker& c, const std::string& path, bool is_top, OverrideFile& file,
                         std::vector<std::string>& errors) {
  auto report = [&](const Failure& e) {
    if (e) errors.push_back(e->message);
  };
  // A family's section takes the same keys as the file, but "format" and "families".
  const std::vector<std::string> top =
      is_top ? std::vector<std::string>{"format", "mirror", "backends", "routed", "pin", "catalogue", "trusted_hosts",
                                        "families", "providers", "find_links"}
             : std::vector<std::string>{"mirror", "backends", "routed", "pin", "catalogue", "trusted_hosts"};
  for (const auto& [key, value] : doc.items()) {
    if (std::find(top.begin(), top.end(), key) != top.end()) continue;
    json one = json::object();
    one[key] = value;
    report(c.Keys(one, "", top));
  }
  if (is_top && (!doc.contains("format") || !doc["format"].is_number_integer() || doc["format"].get<int>() != 1)) {
    report(c.Fail("/format", "expected 1, the format of this file (\"format\": 1)"));
  }
  if (doc.contains("mirror")) {
    std::string url;
    Failure e = c.Url(doc["mirror"], "/mirror", &url);
    report(e);
    if (!e) file.mirror = url;
  }
  if (doc.contains("backends")) report(ParseBackends(doc["backends"], c, file));
  if (doc.contains("routed")) report(ParseRouted(doc["routed"], c, file));
  if (doc.contains("pin")) report(ParsePins(doc["pin"], c, file));
  if (doc.contains("catalogue")) report(ParseCataloguePath(doc["catalogue"], c, path, file));
  if (is_top && doc.contains("families")) report(ParseFamilies(doc["families"], c, path, file, errors));
  if (is_top && doc.contains("find_links")) report(ParseFindLinks(doc["find_links"], c, file));
  if (doc.contains("trusted_hosts")) report(ParseTrustedHosts(doc["trusted_hosts"], c, file));
  // Variant providers belong to the host, not to an index family: the file's top only.
  if (is_top && doc.contains("providers")) report(ParseProviders(doc["providers"], c, file));
}

core::Expected<OverrideFile> ParseOverrideFile(std::string_view text, const std::string& path) {
  const Checker c(path);
  json doc;
  // Duplicate keys: nlohmann keeps the last silently; a file that says a thing twice is an
  // error. The callback sees each key with the depth of its object.
  std::vector<std::set<std::string>> keys_at;  // one set per open object
  std::vector<std::string> key_path;           // the keys leading to the current value
  std::optional<std::string> duplicate;
  const json::parser_callback_t callback = [&](int depth, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
        keys_at.emplace_back();
        break;
      case json::parse_event_t::object_end:
        if (!keys_at.empty()) keys_at.pop_back();
        break;
      case json::parse_event_t::key: {
        const std::string key = parsed.get<std::string>();
        key_path.resize(static_cast<std::size_t>(std::max(depth - 1, 0)));
        key_path.push_back(key);
        if (!keys_at.empty() && !keys_at.back().insert(key).second && !duplicate) {
          std::string pointer;
          for (const std::string& k : key_path) {
            pointer.push_back('/');
            pointer.append(Escape(k));
          }
          duplicate = pointer;
        }
        break;
      }
      default:
        break;
    }
    return true;
  };
  try {
    doc = json::parse(text, callback, /*allow_exceptions=*/true, /*ignore_comments=*/true);
  } catch (const json::out_of_range& e) {
    // 1e999999: a number no double holds (it aborted every command: out_of_range.406).
    std::string what = e.what();
    if (const std::size_t bracket = what.find("] "); bracket != std::string::npos) what = what.substr(bracket + 2);
    return core::MakeError(path + ": not valid JSON: " + what);
  } catch (const json::parse_error& e) {
    // Say where, as line and column: nlohmann reports a byte offset.
    const core::TextPosition at = core::PositionBefore(text, e.byte);
    std::string what = e.what();
    if (const std::size_t colon = what.rfind(": "); colon != std::string::npos) what = what.substr(colon + 2);
    return core::MakeError(path + ":" + std::to_string(at.line) + ":" + std::to_string(at.column) +
                           ": not valid JSON: " + what);
  }
  if (duplicate) return c.Fail(*duplicate, "the key is given twice");
  if (!doc.is_object()) return c.Fail("", "expected an object");
  OverrideFile file;
  file.path = path;
  std::vector<std::string> errors;
  ParseSection(doc, c, path, /*top=*/true, file, errors);
  if (!errors.empty()) {
    std::string all = errors.front();
    for (std::size_t i = 1; i < errors.size(); ++i) all += "\n" + errors[i];
    return core::MakeError(all);
  }
  return file;
}

core::Expected<OverrideFile> LoadOverrideFile(const FileReader& files, const std::string& path) {
  if (files.Exists(path) && !files.IsRegularFile(path)) {
    return core::MakeError(path + ": not a regular file", core::ErrorCode::kBadInputFile);
  }
  const ReadResult read = files.Read(path, kMaxOverrideFileBytes);
  switch (read.status) {
    case ReadResult::Status::kOk:
      break;
    case ReadResult::Status::kMissing:
      return core::MakeError(path + ": cannot be read", core::ErrorCode::kBadInputFile);
    case ReadResult::Status::kTooLarge:
      return core::MakeError(path + ": larger than " + std::to_string(kMaxOverrideFileBytes >> 20) +
                                 " MiB; an override file is a few lines of JSON",
                             core::ErrorCode::kBadInputFile);
    case ReadResult::Status::kError:
      return core::MakeError(path + ": cannot be read: " + read.error, core::ErrorCode::kBadInputFile);
  }
  core::Expected<OverrideFile> file = ParseOverrideFile(read.contents, path);
  if (!file) return core::MakeError(file.error().message, core::ErrorCode::kBadInputFile);
  return file;
}

std::vector<std::string> OverrideFilePaths(
    const OverrideSources& sources,
    const std::function<std::vector<std::string>(const std::string&)>& list_dir) {
  std::vector<std::string> paths;
  if (!sources.config_home.empty()) {
    for (const std::string& p : list_dir(sources.config_home + "/torchdex/catalogue.d")) paths.push_back(p);
  }
  std::stringstream env(sources.env_list);
  std::string item;
  while (std::getline(env, item, ':')) {
    if (!item.empty()) paths.push_back(item);
  }
  for (const std::string& p : sources.cli_files) paths.push_back(p);
  return paths;
}

void ApplyOverride(const OverrideFile& file, EffectiveOverrides& into) {
  into.files.push_back(file.path);
  if (file.mirror) into.mirror = Sourced<std::string>{*file.mirror, file.path};
  for (const auto& [k, v] : file.backend_urls) into.backend_urls[k] = {v, file.path};
  for (const auto& [k, v] : file.custom_backends) into.custom_backends[k] = {v, file.path};
  for (const auto& [k, v] : file.routed_add) {
    into.routed_remove.erase(k);
    into.routed_add[k] = {v, file.path};
  }
  for (const auto& [k, v] : file.routed_remove) {
    into.routed_add.erase(k);
    into.routed_remove[k] = {v, file.path};
  }
  for (const auto& [k, v] : file.pins) into.pins[k] = {v, file.path};
  if (file.catalogue) into.catalogue = Sourced<std::string>{*file.catalogue, file.path};
  for (const std::string& h : file.trusted_hosts) into.trusted_hosts.push_back({h, file.path});
  for (const auto& [k, v] : file.providers) into.providers[k] = {v, file.path};
  for (const auto& [name, section] : file.families) into.families[name].push_back(section);
  for (const auto& [name, url] : file.find_links) into.find_links[name] = {url, file.path};
}

EffectiveOverrides OverridesForFamily(const EffectiveOverrides& all, const std::string& family) {
  EffectiveOverrides out;
  out.files = all.files;
  out.trusted_hosts = all.trusted_hosts;  // trust is the hosts', whatever the family
  out.providers = all.providers;          // so are variant providers
  out.find_links = all.find_links;        // the torch-keyed indexes follow the chosen torch
  auto it = all.families.find(family);
  if (it == all.families.end()) return out;
  for (const std::shared_ptr<const OverrideFile>& section : it->second) {
    ApplyOverride(*section, out);
    out.files.pop_back();  // the file is already named
  }
  return out;
}

core::Expected<EffectiveOverrides> LoadOverrides(const FileReader& reader, const std::vector<std::string>& paths) {
  // Parse everything first: a bad file anywhere means nothing is applied.
  std::vector<OverrideFile> files;
  for (const std::string& p : paths) {
    auto file = LoadOverrideFile(reader, p);
    if (!file) return file.error();
    files.push_back(std::move(file).value());
  }
  EffectiveOverrides effective;
  for (const OverrideFile& f : files) ApplyOverride(f, effective);
  return effective;
}

std::string BackendIndexUrl(const EffectiveOverrides& overrides, const std::string& default_base,
                            const std::string& channel_path, const std::string& backend) {
  if (auto it = overrides.custom_backends.find(backend); it != overrides.custom_backends.end()) {
    return it->second.value.index_url;
  }
  if (auto it = overrides.backend_urls.find(backend); it != overrides.backend_urls.end()) {
    return it->second.value;
  }
  std::string base = overrides.mirror ? overrides.mirror->value : default_base;
  if (!base.ends_with('/')) base.push_back('/');
  return base + channel_path + backend + "/";
}

}  // namespace torchdex::installer
