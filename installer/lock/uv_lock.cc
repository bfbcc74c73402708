#include "installer/lock/uv_lock.h"

#include <algorithm>

#include "core/name.h"
#include "core/url.h"
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

}  // namespace

core::Status CheckUvLockRouting(std::string_view text, const std::string& path,
                                const std::function<bool(const std::string&)>& routed,
                                const std::vector<std::string>& indexes) {
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
    if (registry != nullptr && registry->is_string() &&
        std::find(allowed.begin(), allowed.end(), Comparable(registry->text)) != allowed.end()) {
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
