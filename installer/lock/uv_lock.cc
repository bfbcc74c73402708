#include "installer/lock/uv_lock.h"

#include <algorithm>

#include "core/name.h"
#include "core/url.h"
#include "index/url.h"
#include "installer/lock/toml.h"

namespace torchdex::installer {
namespace {

std::string Comparable(std::string_view url) {
  std::string out = core::StripCredentials(url);
  while (!out.empty() && out.back() == '/') out.pop_back();
  return out;
}

std::string StringAt(const toml::Value& table, std::string_view key) {
  const toml::Value* v = table.Find(key);
  return v != nullptr && v->is_string() ? v->text : std::string();
}

// "registry https://..." / "url https://..." / "git ..." / "path ..." of a package's source.
std::string DescribeSource(const toml::Value* source) {
  if (source == nullptr || !source->is_table() || source->entries.empty()) return "no source";
  const toml::Entry& first = source->entries.front();
  return first.key + " " + core::RedactCredentials(first.value.is_string() ? first.value.text : "?");
}

// Whether `package` lists `name` among its dependencies (plain, optional or of a group).
bool Requires(const toml::Value& package, const std::string& name) {
  auto in_list = [&](const toml::Value* list) {
    if (list == nullptr || !list->is_array()) return false;
    return std::any_of(list->items.begin(), list->items.end(), [&](const toml::Value& d) {
      return d.is_table() && core::NormalizeName(StringAt(d, "name")) == name;
    });
  };
  if (in_list(package.Find("dependencies"))) return true;
  for (const char* grouped : {"optional-dependencies", "dev-dependencies"}) {
    const toml::Value* groups = package.Find(grouped);
    if (groups == nullptr || !groups->is_table()) continue;
    for (const toml::Entry& group : groups->entries) {
      if (in_list(&group.value)) return true;
    }
  }
  return false;
}

// Each wheel of a routed package through `file_ok`; an sdist is refused (the backends publish
// wheels only, and uv would build whatever it names).
core::Status CheckFiles(const toml::Value& package, const std::string& path, const std::string& name,
                        const UvLockFileCheck& file_ok) {
  const std::string where = path + ":" + std::to_string(package.line);
  const std::string version = StringAt(package, "version");
  if (const toml::Value* sdist = package.Find("sdist"); sdist != nullptr) {
    return core::MakeError(where + ": " + name + " " + version + " has an sdist (" +
                               core::RedactCredentials(sdist->is_table() ? StringAt(*sdist, "url") : "") +
                               "): a routed package is installed from its backend's wheels only",
                           core::ErrorCode::kBadInputFile);
  }
  const toml::Value* wheels = package.Find("wheels");
  if (!file_ok || wheels == nullptr || !wheels->is_array()) return {};
  for (const toml::Value& wheel : wheels->items) {
    const std::string url = wheel.is_table() ? StringAt(wheel, "url") : "";
    if (core::Status ok = file_ok(where, name, version, url); !ok) return ok;
  }
  return {};
}

}  // namespace

core::Status CheckUvLockRouting(std::string_view text, const std::string& path,
                                const std::function<bool(const std::string&)>& routed,
                                const std::vector<std::string>& indexes, const UvLockFileCheck& file_ok) {
  core::Expected<toml::Value> doc = toml::Parse(text, path);
  if (!doc) return doc.error();
  const toml::Value* packages = doc->Find("package");
  if (packages == nullptr) return {};
  if (!packages->is_array()) {
    return core::MakeError(path + ": package is not an array of tables", core::ErrorCode::kBadInputFile);
  }
  std::vector<std::string> allowed;
  for (const std::string& url : indexes) allowed.push_back(Comparable(url));
  for (const toml::Value& package : packages->items) {
    if (!package.is_table()) continue;
    const std::string name = core::NormalizeName(StringAt(package, "name"));
    if (name.empty() || !routed(name)) continue;
    const toml::Value* source = package.Find("source");
    const toml::Value* registry = source != nullptr && source->is_table() ? source->Find("registry") : nullptr;
    if (registry != nullptr && registry->is_string() && !index::HasAmbiguousAuthority(registry->text) &&
        std::find(allowed.begin(), allowed.end(), Comparable(registry->text)) != allowed.end()) {
      if (core::Status files = CheckFiles(package, path, name, file_ok); !files) return files;
      continue;
    }
    std::string needers;
    for (const toml::Value& other : packages->items) {
      if (&other == &package || !other.is_table() || !Requires(other, name)) continue;
      needers += (needers.empty() ? "" : ", ") + StringAt(other, "name") + " " + StringAt(other, "version");
    }
    return core::MakeError(path + ":" + std::to_string(package.line) + ": " + name + " " +
                               StringAt(package, "version") + " comes from " + DescribeSource(source) +
                               (needers.empty() ? "" : " (required by " + needers + ")") +
                               ", not from a pytorch-<backend> index of the project; a routed package comes "
                               "only from its backend: name it among the project's requirements "
                               "(torchdex export --format uv-project ... " + name + "), then lock again",
                           core::ErrorCode::kBadInputFile);
  }
  return {};
}

}  // namespace torchdex::installer
