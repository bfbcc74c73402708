#include "catalogue/catalogue.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "catalogue/variants.h"
#include "core/text.h"
#include "core/version.h"

namespace torchdex::catalogue {
namespace {

using nlohmann::json;

bool IsScalarArray(const json& value) {
  return value.is_array() && std::all_of(value.begin(), value.end(), [](const json& v) {
           return !v.is_array() && !v.is_object();
         });
}

// nlohmann's own dump sorts keys (json objects are std::maps) but puts every array element on
// its own line; the catalogue has tens of thousands of tag lists, so those stay on one line.
void WriteCanonical(const json& value, int depth, std::string& out) {
  const std::string indent(static_cast<std::size_t>(depth) * 2, ' ');
  const std::string inner(static_cast<std::size_t>(depth + 1) * 2, ' ');
  if (value.is_object()) {
    if (value.empty()) {
      out += "{}";
      return;
    }
    out += "{\n";
    bool first = true;
    for (auto it = value.begin(); it != value.end(); ++it) {
      if (!first) out += ",\n";
      first = false;
      out += inner;
      out += json(it.key()).dump(-1, ' ', false, json::error_handler_t::replace);
      out += ": ";
      WriteCanonical(it.value(), depth + 1, out);
    }
    out += "\n" + indent + "}";
  } else if (value.is_array()) {
    if (IsScalarArray(value)) {
      out += "[";
      for (std::size_t i = 0; i < value.size(); ++i) {
        if (i != 0) out += ", ";
        out += value[i].dump(-1, ' ', false, json::error_handler_t::replace);
      }
      out += "]";
      return;
    }
    out += "[\n";
    for (std::size_t i = 0; i < value.size(); ++i) {
      if (i != 0) out += ",\n";
      out += inner;
      WriteCanonical(value[i], depth + 1, out);
    }
    out += "\n" + indent + "]";
  } else {
    out += value.dump(-1, ' ', false, json::error_handler_t::replace);
  }
}

}  // namespace

core::Expected<CatalogueVariants> MakeCatalogueVariants(
    std::string url, std::string sha256, std::string_view variants_json,
    const std::map<std::string, std::vector<std::string>>& wheels_by_label, const std::string& where) {
  core::Expected<VariantsJson> parsed = ParseVariantsJson(variants_json, where);
  if (!parsed) return parsed.error();
  CatalogueVariants out;
  out.url = std::move(url);
  out.sha256 = std::move(sha256);
  out.schema = std::string(VariantsSchemaName(parsed->schema));
  out.namespace_priorities = parsed->namespace_priorities;
  for (const auto& [label, props] : parsed->variants) {
    CatalogueVariantLabel& entry = out.labels[label];
    for (const VariantNamespace& ns : props) {
      for (const VariantFeature& f : ns.features) {
        for (const std::string& v : f.values) entry.properties.push_back(ns.name + " :: " + f.name + " :: " + v);
      }
    }
  }
  for (const auto& [label, wheels] : wheels_by_label) {
    std::vector<std::string> sorted = wheels;
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    if (auto it = out.labels.find(label); it != out.labels.end()) it->second.wheels = std::move(sorted);
    else out.unlisted[label] = std::move(sorted);
  }
  out.variants_json = VariantsJsonToString(*parsed);
  return out;
}

std::string WriteCatalogueJson(const Catalogue& cat) {
  json doc = json::object();
  doc["schema_version"] = Catalogue::kSchemaVersion;
  doc["provenance"] = {{"family", cat.family},
                       {"channel", cat.channel},
                       {"crawled_from", cat.crawled_from},
                       {"updated_at", cat.updated_at},
                       {"note", cat.note}};
  if (!cat.index_url.empty()) doc["provenance"]["index_url"] = cat.index_url;
  if (!cat.snapshot.empty()) doc["provenance"]["snapshot"] = cat.snapshot;
  if (!cat.snapshot_date.empty()) doc["provenance"]["snapshot_date"] = cat.snapshot_date;
  json backends = json::object();
  for (const auto& [name, b] : cat.backends) {
    backends[name] = {{"kind", b.kind},         {"toolkit", b.toolkit},
                      {"legacy", b.legacy},     {"state", std::string(core::BackendStateWord(b.state))},
                      {"discovered_from", b.discovered_from},
                      {"projects", b.projects}};
  }
  doc["backends"] = std::move(backends);
  json projects = json::object();
  for (const auto& [name, p] : cat.projects) {
    json entry = {{"class", p.cls}, {"reason", p.reason}, {"listed_in", p.listed_in}};
    if (!p.builds.empty()) {
      json builds = json::object();
      for (const auto& [backend, versions] : p.builds) {
        json v = json::object();
        for (const auto& [version, tags] : versions) v[version] = tags;
        builds[backend] = std::move(v);
      }
      entry["builds"] = std::move(builds);
    }
    if (!p.unfetched.empty()) entry["unfetched"] = p.unfetched;
    if (!p.from_flat_page.empty()) entry["from_flat_page"] = p.from_flat_page;
    if (!p.variants.empty()) {
      json variants = json::object();
      for (const auto& [backend, versions] : p.variants) {
        for (const auto& [version, v] : versions) {
          json labels = json::object();
          for (const auto& [label, l] : v.labels) {
            labels[label] = {{"properties", l.properties}, {"wheels", l.wheels}};
          }
          json entry_v = {{"url", v.url},
                          {"sha256", v.sha256},
                          {"schema", v.schema},
                          {"namespace_priorities", v.namespace_priorities},
                          {"labels", std::move(labels)},
                          {"variants_json", v.variants_json}};
          if (!v.unlisted.empty()) {
            json unlisted = json::object();
            for (const auto& [label, wheels] : v.unlisted) unlisted[label] = wheels;
            entry_v["unlisted"] = std::move(unlisted);
          }
          variants[backend][version] = std::move(entry_v);
        }
      }
      entry["variants"] = std::move(variants);
    }
    projects[name] = std::move(entry);
  }
  doc["projects"] = std::move(projects);
  std::string out;
  WriteCanonical(doc, 0, out);
  out += "\n";
  return out;
}

namespace {

// Reads catalogue.json (ParseCatalogueJson): every check names the JSON pointer it failed at.
// Each step returns the error it found, nullopt when it read its part.
class CatalogueReader {
 public:
  using Failure = std::optional<core::Error>;
  explicit CatalogueReader(std::string_view origin) : origin_(origin) {}

  Failure Read(const json& doc, Catalogue& cat) const {
    if (!doc.is_object()) return Fail("", "expected an object");
    if (!doc.contains("schema_version") || !doc["schema_version"].is_number_integer()) {
      return Fail("/schema_version", "expected an integer");
    }
    // Compared as a JSON number: get<int>() would wrap 4294967297 to 1 and accept it.
    if (doc["schema_version"] != Catalogue::kSchemaVersion) {
      return Fail("/schema_version", "version " + doc["schema_version"].dump() + " is not the one this torchdex reads (" +
                                         std::to_string(Catalogue::kSchemaVersion) + ")");
    }
    if (Failure e = ReadProvenance(doc, cat)) return e;
    if (Failure e = ReadBackends(doc, cat)) return e;
    if (!doc.contains("projects") || !doc["projects"].is_object()) return Fail("/projects", "expected an object");
    for (const auto& [name, p] : doc["projects"].items()) {
      CatalogueProject project;
      if (Failure e = ReadProject(p, "/projects/" + name, project)) return e;
      cat.projects[name] = std::move(project);
    }
    return std::nullopt;
  }

 private:
  core::Error Fail(const std::string& pointer, const std::string& what) const {
    return core::MakeError(std::string(origin_) + ": " + pointer + ": " + what, core::ErrorCode::kBadInputFile);
  }

  Failure GetString(const json& obj, const char* key, const std::string& at, std::string* out) const {
    if (!obj.contains(key) || !obj[key].is_string()) return Fail(at + "/" + key, "expected a string");
    *out = obj[key].get<std::string>();
    return std::nullopt;
  }

  Failure Strings(const json& list, const std::string& at, std::vector<std::string>* out,
                  const char* expected = "expected an array of strings") const {
    if (!list.is_array()) return Fail(at, expected);
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (!list[i].is_string()) return Fail(at + "/" + std::to_string(i), "expected a string");
      out->push_back(list[i].get<std::string>());
    }
    return std::nullopt;
  }

  Failure ReadProvenance(const json& doc, Catalogue& cat) const {
    if (!doc.contains("provenance") || !doc["provenance"].is_object()) return Fail("/provenance", "expected an object");
    const json& prov = doc["provenance"];
    for (auto [key, field] : {std::pair{"family", &cat.family}, std::pair{"channel", &cat.channel},
                              std::pair{"crawled_from", &cat.crawled_from},
                              std::pair{"updated_at", &cat.updated_at}, std::pair{"note", &cat.note}}) {
      if (Failure e = GetString(prov, key, "/provenance", field)) return e;
    }
    for (auto [key, field] : {std::pair{"index_url", &cat.index_url}, std::pair{"snapshot", &cat.snapshot},
                              std::pair{"snapshot_date", &cat.snapshot_date}}) {
      if (!prov.contains(key)) continue;  // optional: older catalogues lack them
      if (Failure e = GetString(prov, key, "/provenance", field)) return e;
    }
    return std::nullopt;
  }

  Failure ReadBackends(const json& doc, Catalogue& cat) const {
    if (!doc.contains("backends") || !doc["backends"].is_object()) return Fail("/backends", "expected an object");
    for (const auto& [name, b] : doc["backends"].items()) {
      const std::string at = "/backends/" + name;
      if (!b.is_object()) return Fail(at, "expected an object");
      CatalogueBackend backend;
      for (auto [key, field] : {std::pair{"kind", &backend.kind}, std::pair{"toolkit", &backend.toolkit},
                                std::pair{"discovered_from", &backend.discovered_from}}) {
        if (Failure e = GetString(b, key, at, field)) return e;
      }
      std::string state;
      if (Failure e = GetString(b, "state", at, &state)) return e;
      const std::optional<core::BackendState> parsed = core::ParseBackendState(state);
      if (!parsed) {
        return Fail(at + "/state", "\"" + state +
                                       "\" is no backend state (" + core::Join(core::BackendStateWords()) + ")");
      }
      backend.state = *parsed;
      if (!b.contains("legacy") || !b["legacy"].is_boolean()) return Fail(at + "/legacy", "expected true or false");
      backend.legacy = b["legacy"].get<bool>();
      if (!b.contains("projects") || !b["projects"].is_number_integer()) {
        return Fail(at + "/projects", "expected an integer");
      }
      backend.projects = b["projects"].get<std::int64_t>();
      cat.backends[name] = std::move(backend);
    }
    return std::nullopt;
  }

  Failure ReadProject(const json& p, const std::string& at, CatalogueProject& project) const {
    if (!p.is_object()) return Fail(at, "expected an object");
    if (Failure e = GetString(p, "class", at, &project.cls)) return e;
    if (Failure e = GetString(p, "reason", at, &project.reason)) return e;
    if (!p.contains("listed_in")) return Fail(at + "/listed_in", "expected an array of backend names");
    if (Failure e = Strings(p["listed_in"], at + "/listed_in", &project.listed_in, "expected an array of backend names"))
      return e;
    if (p.contains("builds")) {
      if (Failure e = ReadBuilds(p["builds"], at + "/builds", project)) return e;
    }
    for (auto [key, field] : {std::pair{"unfetched", &project.unfetched},
                              std::pair{"from_flat_page", &project.from_flat_page}}) {
      if (!p.contains(key)) continue;
      if (Failure e = Strings(p[key], at + "/" + key, field, "expected an array of backend names")) return e;
    }
    if (p.contains("variants")) {
      const json& variants = p["variants"];
      if (!variants.is_object()) return Fail(at + "/variants", "expected an object");
      for (const auto& [backend, versions] : variants.items()) {
        const std::string bat = at + "/variants/" + backend;
        if (!versions.is_object()) return Fail(bat, "expected an object of versions");
        for (const auto& [version, v] : versions.items()) {
          if (Failure e = ReadVariants(v, bat + "/" + version, version, project.variants[backend][version])) return e;
        }
      }
    }
    return std::nullopt;
  }

  Failure ReadBuilds(const json& builds, const std::string& at, CatalogueProject& project) const {
    if (!builds.is_object()) return Fail(at, "expected an object");
    for (const auto& [backend, versions] : builds.items()) {
      const std::string bat = at + "/" + backend;
      if (!versions.is_object()) return Fail(bat, "expected an object of versions");
      for (const auto& [version, tags] : versions.items()) {
        const std::string vat = bat + "/" + version;
        if (!core::Version::Parse(version)) return Fail(vat, "'" + version + "' is not a PEP 440 version");
        if (Failure e = Strings(tags, vat, &project.builds[backend][version], "expected an array of wheel tags"))
          return e;
      }
    }
    return std::nullopt;
  }

  // One version's variants.json summary: read, then checked against the file it summarises.
  Failure ReadVariants(const json& v, const std::string& vat, const std::string& version,
                       CatalogueVariants& out) const {
    if (!core::Version::Parse(version)) return Fail(vat, "'" + version + "' is not a PEP 440 version");
    if (!v.is_object()) return Fail(vat, "expected an object");
    CatalogueVariants given;
    for (auto [key, field] : {std::pair{"url", &given.url}, std::pair{"sha256", &given.sha256},
                              std::pair{"schema", &given.schema}, std::pair{"variants_json", &given.variants_json}}) {
      if (Failure e = GetString(v, key, vat, field)) return e;
    }
    if (!v.contains("namespace_priorities")) return Fail(vat + "/namespace_priorities", "expected an array of strings");
    if (Failure e = Strings(v["namespace_priorities"], vat + "/namespace_priorities", &given.namespace_priorities))
      return e;
    if (!v.contains("labels") || !v["labels"].is_object()) return Fail(vat + "/labels", "expected an object");
    std::map<std::string, std::vector<std::string>> wheels;  // label -> tag sets
    for (const auto& [label, l] : v["labels"].items()) {
      const std::string lat = vat + "/labels/" + label;
      if (!l.is_object() || !l.contains("properties") || !l.contains("wheels")) {
        return Fail(lat, "expected {\"properties\": [...], \"wheels\": [...]}");
      }
      CatalogueVariantLabel& entry = given.labels[label];
      if (Failure e = Strings(l["properties"], lat + "/properties", &entry.properties)) return e;
      if (Failure e = Strings(l["wheels"], lat + "/wheels", &entry.wheels)) return e;
      wheels[label] = entry.wheels;
    }
    if (v.contains("unlisted")) {
      if (!v["unlisted"].is_object()) return Fail(vat + "/unlisted", "expected an object");
      for (const auto& [label, list] : v["unlisted"].items()) {
        if (Failure e = Strings(list, vat + "/unlisted/" + label, &given.unlisted[label])) return e;
        wheels[label] = given.unlisted[label];
      }
    }
    // The summary must say what the file says: it is what a reader of the catalogue sees,
    // and the file is what ranking reads.
    core::Expected<CatalogueVariants> made = MakeCatalogueVariants(
        given.url, given.sha256, given.variants_json, wheels, std::string(origin_) + ": " + vat + "/variants_json");
    if (!made) return core::MakeError(made.error().message, core::ErrorCode::kBadInputFile);
    if (Failure e = CheckSummary(given, *made, vat)) return e;
    out = std::move(made).value();
    return std::nullopt;
  }

  Failure CheckSummary(const CatalogueVariants& given, const CatalogueVariants& made, const std::string& vat) const {
    if (made.schema != given.schema) {
      return Fail(vat + "/schema", "'" + given.schema + "', but variants_json is " + made.schema);
    }
    if (made.namespace_priorities != given.namespace_priorities) {
      return Fail(vat + "/namespace_priorities", "differs from variants_json's default-priorities.namespace");
    }
    for (const auto& [label, l] : made.labels) {
      auto it = given.labels.find(label);
      if (it == given.labels.end()) return Fail(vat + "/labels", "lacks " + label + ", a label of variants_json");
      if (it->second.properties != l.properties) {
        return Fail(vat + "/labels/" + label + "/properties", "differ from variants_json's");
      }
    }
    for (const auto& [label, l] : given.labels) {
      if (!made.labels.contains(label)) return Fail(vat + "/labels/" + label, "is not a label of variants_json");
    }
    if (made.variants_json != given.variants_json) return Fail(vat + "/variants_json", "is not in canonical form");
    return std::nullopt;
  }

  std::string_view origin_;
};

}  // namespace

core::Expected<Catalogue> ParseCatalogueJson(std::string_view text, std::string_view origin) {
  json doc = json::parse(text, nullptr, false, /*ignore_comments=*/true);
  if (doc.is_discarded()) {
    return core::MakeError(std::string(origin) + ": : not valid JSON", core::ErrorCode::kBadInputFile);
  }
  Catalogue cat;
  if (std::optional<core::Error> e = CatalogueReader(origin).Read(doc, cat)) return *e;
  return cat;
}

core::Expected<Catalogue> LoadCatalogueJson(const std::string& path) {
  // The whole real index's catalogue is a few MB: a FIFO, a device (/dev/zero) or a file of a
  // gigabyte named in an override file is not read without end.
  constexpr std::uintmax_t kMaxCatalogueBytes = std::uintmax_t{256} << 20;
  struct stat st {};
  if (stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    return core::MakeError(path + ": not a regular file", core::ErrorCode::kBadInputFile);
  }
  if (static_cast<std::uintmax_t>(st.st_size) > kMaxCatalogueBytes) {
    return core::MakeError(path + ": larger than 256 MiB, not a catalogue", core::ErrorCode::kBadInputFile);
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return core::MakeError(path + ": cannot be read", core::ErrorCode::kBadInputFile);
  std::ostringstream text;
  text << in.rdbuf();
  return ParseCatalogueJson(text.str(), path);
}

core::Status WriteFileAtomically(const std::string& path, std::string_view content, bool* changed,
                                 FileAccess access) {
  {
    // Only a regular file of the same size can already hold `content`: nothing else is read
    // (a symlink to /dev/zero in a checkout is not read without end).
    struct stat st {};
    if (stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        static_cast<std::uintmax_t>(st.st_size) == content.size()) {
      std::ifstream existing(path, std::ios::binary);
      std::ostringstream old;
      old << existing.rdbuf();
      if (existing && old.str() == content) {
        if (changed != nullptr) *changed = false;
        return {};
      }
    }
  }
  // A new file of an unpredictable name, created with O_EXCL: nothing already in the folder (a
  // symlink a hostile repository committed at a guessable temporary name) is written through.
  std::string temp = path + ".torchdex-XXXXXX";
  const int fd = mkostemp(temp.data(), O_CLOEXEC);
  if (fd < 0) return core::MakeError("cannot write " + path + ": " + std::strerror(errno) + " (nothing was changed)");
  // The temporary removed, the target as it was.
  const auto discard = [&](const std::string& what, int err) -> core::Status {
    unlink(temp.c_str());
    return core::MakeError(what + path + ": " + std::strerror(err) + " (nothing was changed)");
  };
  const auto fail = [&](const std::string& what, int err) -> core::Status {
    close(fd);
    return discard(what, err);
  };
  if (access == FileAccess::kShared) {
    const mode_t mask = umask(0);
    umask(mask);
    if (fchmod(fd, 0666 & ~mask) != 0) return fail("cannot write ", errno);
  }
  std::size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = write(fd, content.data() + written, content.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail("cannot write ", errno);
    }
    written += static_cast<std::size_t>(n);
  }
  if (fsync(fd) != 0) return fail("cannot write ", errno);
  if (close(fd) != 0) return discard("cannot write ", errno);
  if (rename(temp.c_str(), path.c_str()) != 0) return discard("cannot replace ", errno);
  if (changed != nullptr) *changed = true;
  return {};
}

}  // namespace torchdex::catalogue
