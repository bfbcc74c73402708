#include "installer/lock/pylock.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <unordered_map>

#include "core/name.h"
#include "core/specifier.h"
#include "core/url.h"
#include "core/utf8.h"
#include "core/version.h"
#include "installer/lock/toml.h"

namespace torchdex::installer {
namespace {

using toml::Value;

std::string At(std::string_view file, const Value& v) {
  std::string out(file);
  out.append(":").append(std::to_string(v.line)).append(":").append(std::to_string(v.column));
  return out;
}

core::Error Bad(std::string message) { return core::MakeError(std::move(message), core::ErrorCode::kBadInputFile); }

// A key of `table` that must be a string (absent: "" unless required).
// Nothing a lock says reaches a terminal or a command line with a control character in it (an
// escape sequence in a backend name would be printed as it is).
std::optional<core::Error> ControlCharacterIn(const Value& v, std::string_view file, const std::string& where,
                                              std::string_view key) {
  for (const char c : v.text) {
    const auto byte = static_cast<unsigned char>(c);
    if ((byte < 0x20 && c != '\t') || byte == 0x7f) {
      char code[8];
      std::snprintf(code, sizeof code, "0x%02x", byte);
      return core::Error{At(file, v) + ": " + where + ": " + std::string(key) + " holds the control character " +
                             code,
                         core::ErrorCode::kBadInputFile};
    }
  }
  return std::nullopt;
}

core::Expected<std::string> StringAt(const Value& table, std::string_view key, std::string_view file,
                                     const std::string& where, bool required) {
  const Value* v = table.Find(key);
  if (v == nullptr) {
    if (required) return Bad(At(file, table) + ": " + where + ": missing the key " + std::string(key));
    return std::string();
  }
  if (!v->is_string()) {
    return Bad(At(file, *v) + ": " + where + ": " + std::string(key) + " must be a string, not " +
               std::string(toml::KindName(v->kind)));
  }
  if (auto bad = ControlCharacterIn(*v, file, where, key)) return *bad;
  return v->text;
}

core::Expected<std::vector<std::string>> Strings(const Value& table, std::string_view key, std::string_view file,
                                                 const std::string& where) {
  std::vector<std::string> out;
  const Value* v = table.Find(key);
  if (v == nullptr) return out;
  if (!v->is_array()) return Bad(At(file, *v) + ": " + where + ": " + std::string(key) + " must be an array");
  for (const Value& item : v->items) {
    if (!item.is_string()) return Bad(At(file, item) + ": " + where + ": " + std::string(key) + " must hold strings");
    if (auto bad = ControlCharacterIn(item, file, where, key)) return *bad;
    out.push_back(item.text);
  }
  return out;
}

bool IsLowerHex64(std::string_view s) {
  return s.size() == 64 && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

core::Expected<LockedWheel> ParseWheel(const Value& w, std::string_view file, const std::string& where) {
  if (!w.is_table()) return Bad(At(file, w) + ": " + where + ": a wheel must be a table");
  LockedWheel wheel;
  wheel.line = w.line;
  auto name = StringAt(w, "name", file, where, false);
  if (!name) return name.error();
  auto url = StringAt(w, "url", file, where, false);
  if (!url) return url.error();
  if (w.Find("path") != nullptr && url->empty()) {
    return Bad(At(file, *w.Find("path")) + ": " + where +
               ": a wheel by path is not supported: torchdex locks name every wheel by URL");
  }
  if (url->empty()) return Bad(At(file, w) + ": " + where + ": a wheel without a url");
  wheel.url = *url;
  if (name->empty()) {
    // PEP 751: the name may be left out when the URL ends in it.
    wheel.name = core::UrlFileName(wheel.url);
    if (!core::IsValidUtf8(wheel.name)) {
      return Bad(At(file, *w.Find("url")) + ": " + where + ": the file name of the url is not UTF-8 once decoded");
    }
  } else {
    wheel.name = *name;
  }
  if (const Value* upload = w.Find("upload-time")) wheel.upload_time = upload->text;
  if (const Value* size = w.Find("size")) {
    if (size->kind != Value::Kind::kInteger || size->integer < 0) {
      return Bad(At(file, *size) + ": " + where + ": size must be a non-negative integer");
    }
    wheel.size = size->integer;
  }
  const Value* hashes = w.Find("hashes");
  if (hashes == nullptr || !hashes->is_table()) {
    return Bad(At(file, hashes ? *hashes : w) + ": " + where + ": wheel " + wheel.name +
               ": hashes must be a table with a sha256 (PEP 751 requires hashes)");
  }
  auto sha = StringAt(*hashes, "sha256", file, where + ": wheel " + wheel.name, false);
  if (!sha) return sha.error();
  if (sha->empty()) {
    return Bad(At(file, *hashes) + ": " + where + ": wheel " + wheel.name +
               ": no sha256 among its hashes; torchdex verifies every wheel by sha256");
  }
  if (!IsLowerHex64(*sha)) {
    return Bad(At(file, *hashes->Find("sha256")) + ": " + where + ": wheel " + wheel.name +
               ": sha256 is not 64 lower-case hex digits: \"" + *sha + "\"");
  }
  wheel.sha256 = *sha;
  return wheel;
}

// [packages.variants-json] (PEP 825): the file by URL, locked to its sha256.
core::Expected<LockedVariantsJson> ParseVariantsJsonEntry(const Value& variants, std::string_view file,
                                                          const std::string& vwhere) {
  if (!variants.is_table()) return Bad(At(file, variants) + ": " + vwhere + " must be a table (PEP 825)");
  auto url = StringAt(variants, "url", file, vwhere, false);
  if (!url) return url.error();
  if (!url->empty() && variants.Find("path") != nullptr) {
    return Bad(At(file, *variants.Find("path")) + ": " + vwhere + ": url and path: name the file once (PEP 825)");
  }
  if (url->empty()) {
    return Bad(At(file, variants.Find("path") ? *variants.Find("path") : variants) + ": " + vwhere +
               (variants.Find("path") ? ": a variants.json by path is not supported: torchdex locks name it by URL"
                                       : ": missing the key url"));
  }
  const Value* hashes = variants.Find("hashes");
  if (hashes == nullptr || !hashes->is_table()) {
    return Bad(At(file, hashes ? *hashes : variants) + ": " + vwhere +
               ": hashes must be a table with a sha256 (the file is locked to its hash, PEP 825)");
  }
  auto sha = StringAt(*hashes, "sha256", file, vwhere, false);
  if (!sha) return sha.error();
  if (hashes->Find("sha256") == nullptr) {
    return Bad(At(file, *hashes) + ": " + vwhere + ": hashes has no sha256 (torchdex checks the file against one)");
  }
  if (!IsLowerHex64(*sha)) {
    return Bad(At(file, hashes->Find("sha256") ? *hashes->Find("sha256") : *hashes) + ": " + vwhere +
               ": sha256 is not 64 lower-case hex digits: \"" + *sha + "\"");
  }
  return LockedVariantsJson{*url, *sha, variants.line};
}

// A package of the lock must be installed from wheels: a vcs, directory or archive source is
// refused (an sdist beside wheels is what uv writes for a project that has both: the wheels
// are what gets installed).
core::Status CheckWheelsOnly(const Value& p, std::string_view file, const std::string& where) {
  const Value* wheels = p.Find("wheels");
  for (const char* source : {"vcs", "directory", "archive", "sdist"}) {
    if (source == std::string_view("sdist") && wheels != nullptr) continue;
    if (const Value* v = p.Find(source)) {
      return Bad(At(file, *v) + ": " + where + ": a package from " + (source == std::string_view("sdist") ? "an " : "a ") +
                 source + " is not supported: torchdex installs locked wheels only");
    }
  }
  if (wheels == nullptr || !wheels->is_array() || wheels->items.empty()) {
    return Bad(At(file, wheels ? *wheels : p) + ": " + where + ": no wheels");
  }
  return {};
}

core::Expected<LockedPackage> ParsePackage(const Value& p, std::string_view file, std::size_t index) {
  std::string where = "packages[" + std::to_string(index) + "]";
  if (!p.is_table()) return Bad(At(file, p) + ": " + where + " must be a table");
  LockedPackage package;
  package.line = p.line;
  auto name = StringAt(p, "name", file, where, true);
  if (!name) return name.error();
  if (*name != core::NormalizeName(*name) || !core::IsValidName(*name)) {
    return Bad(At(file, *p.Find("name")) + ": " + where + ": name \"" + *name +
               "\" is not a normalised project name (PEP 503: \"" + core::NormalizeName(*name) + "\")");
  }
  package.name = *name;
  where += " (" + package.name + ")";
  auto version = StringAt(p, "version", file, where, true);
  if (!version) return version.error();
  auto parsed = core::Version::Parse(*version);
  if (!parsed) return Bad(At(file, *p.Find("version")) + ": " + where + ": version: " + parsed.error().message);
  package.version = parsed->ToString();
  auto marker = StringAt(p, "marker", file, where, false);
  if (!marker) return marker.error();
  if (!marker->empty()) {
    auto m = core::Marker::Parse(*marker);
    if (!m) return Bad(At(file, *p.Find("marker")) + ": " + where + ": marker: " + m.error().message);
  }
  package.marker = *marker;
  auto requires_python = StringAt(p, "requires-python", file, where, false);
  if (!requires_python) return requires_python.error();
  if (!requires_python->empty()) {
    auto s = core::SpecifierSet::Parse(*requires_python);
    if (!s) {
      return Bad(At(file, *p.Find("requires-python")) + ": " + where + ": requires-python: " + s.error().message);
    }
  }
  package.requires_python = *requires_python;
  auto index_url = StringAt(p, "index", file, where, false);
  if (!index_url) return index_url.error();
  package.index = *index_url;
  if (core::Status ok = CheckWheelsOnly(p, file, where); !ok) return ok.error();
  for (const Value& w : p.Find("wheels")->items) {
    auto wheel = ParseWheel(w, file, where);
    if (!wheel) return wheel.error();
    package.wheels.push_back(std::move(wheel).value());
  }
  if (const Value* variants = p.Find("variants-json")) {
    auto locked = ParseVariantsJsonEntry(*variants, file, where + ": variants-json");
    if (!locked) return locked.error();
    package.variants_json = std::move(locked).value();
  }
  if (const Value* tool = p.Find("tool"); tool != nullptr && tool->is_table()) {
    if (const Value* mine = tool->Find("torchdex"); mine != nullptr && mine->is_table()) {
      if (const Value* routed = mine->Find("routed")) {
        if (routed->kind != Value::Kind::kBoolean) {
          return Bad(At(file, *routed) + ": " + where + ": tool.torchdex.routed must be a boolean");
        }
        package.routed = routed->boolean;
      }
    }
  }
  return package;
}

}  // namespace

std::string LockFileName(std::string_view backend) {
  std::string name(backend);
  std::replace(name.begin(), name.end(), '.', '-');
  return "pylock." + name + ".toml";
}

bool IsLockFileName(std::string_view name) {
  // PEP 751 "File Name": pylock.toml, or pylock.<name>.toml with no dot in <name>.
  if (name == "pylock.toml") return true;
  if (name.size() <= 12 || !name.starts_with("pylock.") || !name.ends_with(".toml")) return false;
  return name.substr(7, name.size() - 12).find('.') == std::string_view::npos;
}

std::string WritePyLock(const PyLock& lock) {
  Value root = Value::Table();
  root.Set("lock-version", Value::String(lock.lock_version));
  if (!lock.environments.empty()) {
    Value environments = Value::Array();
    for (const std::string& e : lock.environments) environments.items.push_back(Value::String(e));
    root.Set("environments", std::move(environments));
  }
  if (!lock.requires_python.empty()) root.Set("requires-python", Value::String(lock.requires_python));
  root.Set("created-by", Value::String(lock.created_by));
  Value packages = Value::Array();
  for (const LockedPackage& p : lock.packages) {
    Value package = Value::Table();
    package.Set("name", Value::String(p.name));
    package.Set("version", Value::String(p.version));
    if (!p.marker.empty()) package.Set("marker", Value::String(p.marker));
    if (!p.requires_python.empty()) package.Set("requires-python", Value::String(p.requires_python));
    // Never credentials in a file meant to be committed: the installer reading it takes them
    // from its own configuration (netrc, keyring), as uv does for its lock files.
    if (!p.index.empty()) package.Set("index", Value::String(core::StripCredentials(p.index)));
    Value wheels = Value::Array();
    for (const LockedWheel& w : p.wheels) {
      Value wheel = Value::Table(true);
      wheel.Set("name", Value::String(w.name));
      wheel.Set("url", Value::String(core::StripCredentials(w.url)));
      if (w.size) wheel.Set("size", Value::Integer(*w.size));
      Value hashes = Value::Table(true);
      hashes.Set("sha256", Value::String(w.sha256));
      wheel.Set("hashes", std::move(hashes));
      wheels.items.push_back(std::move(wheel));
    }
    package.Set("wheels", std::move(wheels));
    if (p.variants_json) {
      Value variants = Value::Table();
      variants.Set("url", Value::String(core::StripCredentials(p.variants_json->url)));
      Value hashes = Value::Table(true);
      hashes.Set("sha256", Value::String(p.variants_json->sha256));
      variants.Set("hashes", std::move(hashes));
      package.Set("variants-json", std::move(variants));
    }
    if (p.routed) {
      Value tool = Value::Table();
      Value mine = Value::Table();
      mine.Set("routed", Value::Boolean(true));
      tool.Set("torchdex", std::move(mine));
      package.Set("tool", std::move(tool));
    }
    packages.items.push_back(std::move(package));
  }
  root.Set("packages", std::move(packages));
  Value tool = Value::Table();
  Value mine = Value::Table();
  const TorchdexLockInfo& t = lock.torchdex;
  mine.Set("backend", Value::String(t.backend));
  mine.Set("channel", Value::String(t.channel));
  mine.Set("index-url", Value::String(core::StripCredentials(t.index_url)));
  // The sentences too: a URL in them loses its user information.
  mine.Set("catalogue", Value::String(core::StripCredentialsInText(t.catalogue)));
  mine.Set("catalogue-date", Value::String(t.catalogue_date));
  mine.Set("target", Value::String(core::StripCredentialsInText(t.target)));
  Value requirements = Value::Array();
  for (const std::string& r : t.requirements) requirements.items.push_back(Value::String(core::StripCredentialsInText(r)));
  mine.Set("requirements", std::move(requirements));
  Value decision = Value::Array();
  for (const std::string& d : t.decision) decision.items.push_back(Value::String(core::StripCredentialsInText(d)));
  mine.Set("decision", std::move(decision));
  tool.Set("torchdex", std::move(mine));
  root.Set("tool", std::move(tool));
  return "# Written by torchdex lock: the " + t.backend +
         " backend's lock (PEP 751). Install it with `torchdex sync`.\n" + toml::Write(root);
}

namespace {

std::string AtTop(std::string_view file, const Value* v) { return v ? At(file, *v) : std::string(file) + ":1:1"; }

// lock-version, created-by, requires-python, environments (PEP 751).
core::Status ReadLockHeader(const Value& root, std::string_view file, PyLock& lock) {
  const Value* lock_version = root.Find("lock-version");
  if (lock_version == nullptr) return Bad(std::string(file) + ":1:1: missing the key lock-version (PEP 751)");
  if (!lock_version->is_string()) return Bad(AtTop(file, lock_version) + ": lock-version must be a string");
  auto version = core::Version::Parse(lock_version->text);
  if (!version || !lock_version->text.starts_with("1.") ||
      lock_version->text.find_first_not_of("0123456789.") != std::string::npos) {
    return Bad(AtTop(file, lock_version) + ": lock-version \"" + lock_version->text +
               "\" is not supported: torchdex reads lock-version 1.x (PEP 751)");
  }
  lock.lock_version = lock_version->text;
  auto created_by = StringAt(root, "created-by", file, "the lock", false);
  if (!created_by) return created_by.error();
  if (root.Find("created-by") == nullptr) return Bad(std::string(file) + ":1:1: missing the key created-by (PEP 751)");
  lock.created_by = *created_by;
  auto requires_python = StringAt(root, "requires-python", file, "the lock", false);
  if (!requires_python) return requires_python.error();
  if (!requires_python->empty()) {
    auto s = core::SpecifierSet::Parse(*requires_python);
    if (!s) return Bad(AtTop(file, root.Find("requires-python")) + ": requires-python: " + s.error().message);
  }
  lock.requires_python = *requires_python;
  auto environments = Strings(root, "environments", file, "the lock");
  if (!environments) return environments.error();
  for (std::size_t i = 0; i < environments->size(); ++i) {
    auto m = core::Marker::Parse((*environments)[i]);
    if (!m) return Bad(AtTop(file, &root.Find("environments")->items[i]) + ": environments: " + m.error().message);
  }
  lock.environments = std::move(environments).value();
  return {};
}

// [[packages]]; a name locked twice without a marker is refused: two such entries always both
// apply. (Entries with markers are checked where the markers are evaluated: sync, for its
// machine.)
core::Status ReadPackages(const Value& root, std::string_view file, PyLock& lock) {
  const Value* packages = root.Find("packages");
  if (packages == nullptr) return Bad(std::string(file) + ":1:1: missing [[packages]] (PEP 751)");
  if (!packages->is_array()) return Bad(AtTop(file, packages) + ": packages must be an array of tables");
  std::unordered_map<std::string, int> unmarked;  // name -> the line of its entry without a marker
  for (std::size_t i = 0; i < packages->items.size(); ++i) {
    auto package = ParsePackage(packages->items[i], file, i);
    if (!package) return package.error();
    if (package->marker.empty()) {
      const auto [first, added] = unmarked.emplace(package->name, package->line);
      if (!added) {
        return Bad(At(file, packages->items[i]) + ": packages[" + std::to_string(i) + "]: " + package->name +
                   " is locked twice (first at line " + std::to_string(first->second) + ")");
      }
    }
    lock.packages.push_back(std::move(package).value());
  }
  return {};
}

// [tool.torchdex]: what torchdex lock wrote of the lock's backend and decision.
core::Status ReadTorchdexTable(const Value& mine, std::string_view file, TorchdexLockInfo& info) {
  info.line = mine.line;
  const std::string where = "[tool.torchdex]";
  for (auto [key, into] : {std::pair<const char*, std::string*>{"backend", &info.backend},
                           {"channel", &info.channel},
                           {"index-url", &info.index_url},
                           {"catalogue", &info.catalogue},
                           {"catalogue-date", &info.catalogue_date},
                           {"target", &info.target}}) {
    auto v = StringAt(mine, key, file, where, key == std::string_view("backend"));
    if (!v) return v.error();
    *into = *v;
  }
  if (info.backend.empty()) return Bad(At(file, mine) + ": [tool.torchdex]: backend is empty");
  if (info.channel.empty()) info.channel = "stable";
  auto decision = Strings(mine, "decision", file, where);
  if (!decision) return decision.error();
  info.decision = std::move(decision).value();
  auto requirements = Strings(mine, "requirements", file, where);
  if (!requirements) return requirements.error();
  info.requirements = std::move(requirements).value();
  return {};
}

}  // namespace

core::Expected<PyLock> ParsePyLock(std::string_view text, std::string_view file, bool torchdex_table) {
  core::Expected<Value> parsed = toml::Parse(text, file);
  if (!parsed) return parsed.error();
  const Value& root = *parsed;
  PyLock lock;
  if (core::Status ok = ReadLockHeader(root, file, lock); !ok) return ok.error();
  if (core::Status ok = ReadPackages(root, file, lock); !ok) return ok.error();
  const Value* tool = root.Find("tool");
  const Value* mine = tool && tool->is_table() ? tool->Find("torchdex") : nullptr;
  if (!torchdex_table && mine == nullptr) return lock;
  if (mine == nullptr || !mine->is_table()) {
    return Bad(std::string(file) + ":1:1: no [tool.torchdex] table: not a lock torchdex wrote (torchdex lock)");
  }
  if (core::Status ok = ReadTorchdexTable(*mine, file, lock.torchdex); !ok) return ok.error();
  return lock;
}

}  // namespace torchdex::installer
