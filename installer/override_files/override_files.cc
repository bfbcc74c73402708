#include "installer/override_files/override_files.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "core/name.h"
#include "core/spelling.h"

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
  explicit Checker(const std::string& path) : path_(path) {}

  core::Error Fail(const std::string& pointer, const std::string& what) const {
    return core::MakeError(path_ + ": " + (pointer.empty() ? "/" : pointer) + ": " + what);
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
      return Fail(pointer, "expected an http:// or https:// URL, got \"" + *out + "\"");
    }
    if (!out->ends_with('/')) out->push_back('/');
    return std::nullopt;
  }

  std::optional<core::Error> Project(const std::string& name, const std::string& pointer,
                                     std::string* out) const {
    if (!core::IsValidName(name)) return Fail(pointer, "\"" + name + "\" is not a valid project name");
    *out = core::NormalizeName(name);
    return std::nullopt;
  }

 private:
  std::string path_;
};

std::optional<core::Error> ParseBackends(const json& backends, const Checker& c, OverrideFile& file) {
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
    if (auto e = c.Keys(entry, at, {"kind", "toolkit", "url", "driver_floor", "arch", "ptx"})) return e;
    CustomBackend b;
    std::string kind;
    if (auto e = c.String(entry["kind"], at + "/kind", &kind)) return e;
    const std::vector<std::string> kinds = {"cpu", "cuda", "rocm", "xpu"};
    const std::optional<core::BackendKind> parsed_kind = core::ParseBackendKind(kind);
    if (!parsed_kind || *parsed_kind == core::BackendKind::kOther) {
      return c.Fail(at + "/kind", "\"" + kind + "\" is not one of cpu, cuda, rocm, xpu" + core::DidYouMean(kind, kinds));
    }
    b.kind = *parsed_kind;
    if (!entry.contains("url")) return c.Fail(at, "a custom backend needs \"url\", its index");
    if (auto e = c.Url(entry["url"], at + "/url", &b.index_url)) return e;
    const bool cuda = b.kind == core::BackendKind::kCuda;
    if (cuda || b.kind == core::BackendKind::kRocm) {
      if (!entry.contains("toolkit")) return c.Fail(at, "a " + kind + " backend needs \"toolkit\" (\"12.6\")");
      if (auto e = c.String(entry["toolkit"], at + "/toolkit", &b.toolkit)) return e;
    }
    if (entry.contains("driver_floor")) {
      const json& floors = entry["driver_floor"];
      if (!floors.is_object()) return c.Fail(at + "/driver_floor", "expected {\"linux\": \"560.28.03\", \"windows\": ...}");
      if (auto e = c.Keys(floors, at + "/driver_floor", {"linux", "windows"})) return e;
      for (const auto& [os, value] : floors.items()) {
        std::string v;
        if (auto e = c.String(value, at + "/driver_floor/" + os, &v)) return e;
        const std::optional<core::DriverVersion> floor = core::DriverVersion::Parse(v);
        if (!floor) {
          return c.Fail(at + "/driver_floor/" + os, "\"" + v + "\" is not a driver version such as 560.28.03");
        }
        b.driver_floor[*core::ParseTargetOs(os)] = *floor;
      }
    }
    if (entry.contains("arch")) {
      if (!entry["arch"].is_array()) return c.Fail(at + "/arch", "expected an array such as [\"8.0\", \"9.0\"]");
      for (std::size_t i = 0; i < entry["arch"].size(); ++i) {
        std::string a;
        const std::string where = at + "/arch/" + std::to_string(i);
        if (auto e = c.String(entry["arch"][i], where, &a)) return e;
        if (cuda) {
          std::optional<core::ComputeCapability> cc = core::ComputeCapability::Parse(a);
          if (!cc) cc = core::ComputeCapability::ParseSm(a);
          if (!cc) return c.Fail(where, "\"" + a + "\" is not a compute capability such as 8.0 or sm_80");
          b.cuda_arch.push_back(*cc);
        } else {
          b.gfx_arch.push_back(a);
        }
      }
    }
    if (entry.contains("ptx")) {
      std::string ptx;
      if (auto e = c.String(entry["ptx"], at + "/ptx", &ptx)) return e;
      if (!ptx.empty()) {
        b.ptx = core::ComputeCapability::Parse(ptx);
        if (!b.ptx) b.ptx = core::ComputeCapability::ParseSm(ptx);
        if (!b.ptx) return c.Fail(at + "/ptx", "\"" + ptx + "\" is not a compute capability such as 9.0");
      }
    }
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

core::Expected<OverrideFile> ParseOverrideFile(std::string_view text, const std::string& path) {
  const Checker c(path);
  json doc;
  try {
    doc = json::parse(text, nullptr, /*allow_exceptions=*/true, /*ignore_comments=*/true);
  } catch (const json::parse_error& e) {
    // Say where, as line and column: nlohmann reports a byte offset.
    std::size_t line = 1, column = 1;
    for (std::size_t i = 0; i + 1 < e.byte && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    std::string what = e.what();
    if (const std::size_t colon = what.rfind(": "); colon != std::string::npos) what = what.substr(colon + 2);
    return core::MakeError(path + ":" + std::to_string(line) + ":" + std::to_string(column) +
                           ": not valid JSON: " + what);
  }
  if (!doc.is_object()) return c.Fail("", "expected an object");
  if (auto e = c.Keys(doc, "", {"format", "mirror", "backends", "routed", "pin", "catalogue", "trusted_hosts"})) {
    return *e;
  }
  if (!doc.contains("format") || !doc["format"].is_number_integer() || doc["format"].get<int>() != 1) {
    return c.Fail("/format", "expected 1, the format of this file (\"format\": 1)");
  }
  OverrideFile file;
  file.path = path;
  if (doc.contains("mirror")) {
    std::string url;
    if (auto e = c.Url(doc["mirror"], "/mirror", &url)) return *e;
    file.mirror = url;
  }
  if (doc.contains("backends")) {
    if (auto e = ParseBackends(doc["backends"], c, file)) return *e;
  }
  if (doc.contains("routed")) {
    const json& routed = doc["routed"];
    if (!routed.is_object()) return c.Fail("/routed", "expected {\"add\": {...}, \"remove\": {...}}");
    if (auto e = c.Keys(routed, "/routed", {"add", "remove"})) return *e;
    if (routed.contains("add")) {
      if (auto e = ParseReasons(routed["add"], "/routed/add", c, file.routed_add)) return *e;
    }
    if (routed.contains("remove")) {
      if (auto e = ParseReasons(routed["remove"], "/routed/remove", c, file.routed_remove)) return *e;
    }
    for (const auto& [project, reason] : file.routed_add) {
      if (file.routed_remove.count(project) != 0) {
        return c.Fail("/routed/remove/" + Escape(project), "\"" + project + "\" is both added and removed");
      }
    }
  }
  if (doc.contains("pin")) {
    if (!doc["pin"].is_object()) return c.Fail("/pin", "expected {\"project\": \"backend\"}");
    for (const auto& [name, backend] : doc["pin"].items()) {
      std::string project, b;
      if (auto e = c.Project(name, "/pin/" + Escape(name), &project)) return *e;
      if (auto e = c.String(backend, "/pin/" + Escape(name), &b)) return *e;
      file.pins[project] = b;
    }
  }
  if (doc.contains("catalogue")) {
    std::string p;
    if (auto e = c.String(doc["catalogue"], "/catalogue", &p)) return *e;
    if (!p.starts_with('/')) {
      const std::size_t slash = path.rfind('/');
      if (slash != std::string::npos) p = path.substr(0, slash + 1) + p;
    }
    file.catalogue = p;
  }
  if (doc.contains("trusted_hosts")) {
    if (!doc["trusted_hosts"].is_array()) return c.Fail("/trusted_hosts", "expected an array of host names");
    for (std::size_t i = 0; i < doc["trusted_hosts"].size(); ++i) {
      std::string h;
      if (auto e = c.String(doc["trusted_hosts"][i], "/trusted_hosts/" + std::to_string(i), &h)) return *e;
      file.trusted_hosts.push_back(h);
    }
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
