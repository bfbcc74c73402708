#include "catalogue/diff.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "core/version.h"

namespace torchdex::catalogue {
namespace {

void SortVersions(std::vector<std::string>& versions) {
  std::stable_sort(versions.begin(), versions.end(), [](const std::string& a, const std::string& b) {
    auto va = core::Version::Parse(a);
    auto vb = core::Version::Parse(b);
    if (va && vb) return *va < *vb;
    return a < b;
  });
}

std::size_t CountWheels(const Catalogue& c) {
  std::size_t n = 0;
  for (const auto& [name, p] : c.projects) {
    for (const auto& [backend, versions] : p.builds) {
      for (const auto& [version, tags] : versions) n += tags.size();
    }
  }
  return n;
}

}  // namespace

bool CatalogueDiff::empty() const {
  return backends_added.empty() && backends_removed.empty() && projects_added.empty() &&
         projects_removed.empty() && reclassified.empty() && versions.empty() &&
         wheels_removed == 0;
}

CatalogueDiff DiffCatalogues(const Catalogue& before, const Catalogue& after) {
  CatalogueDiff d;
  for (const auto& [name, b] : after.backends) {
    if (before.backends.count(name) == 0) d.backends_added.push_back(name);
  }
  for (const auto& [name, b] : before.backends) {
    if (after.backends.count(name) == 0) d.backends_removed.push_back(name);
  }
  for (const auto& [name, p] : after.projects) {
    auto old = before.projects.find(name);
    if (old == before.projects.end()) {
      d.projects_added.push_back(name + " (" + p.cls + ")");
    } else if (old->second.cls != p.cls) {
      d.reclassified.push_back(Reclassification{name, old->second.cls, p.cls, p.reason});
    }
  }
  for (const auto& [name, p] : before.projects) {
    if (after.projects.count(name) == 0) d.projects_removed.push_back(name + " (" + p.cls + ")");
  }
  // Versions per project and backend, over the union of both sides.
  std::set<std::pair<std::string, std::string>> keys;
  for (const Catalogue* c : {&before, &after}) {
    for (const auto& [name, p] : c->projects) {
      for (const auto& [backend, v] : p.builds) keys.insert({name, backend});
    }
  }
  static const VersionTags kNone;
  auto versions_of = [](const Catalogue& c, const std::string& project,
                        const std::string& backend) -> const VersionTags& {
    auto p = c.projects.find(project);
    if (p == c.projects.end()) return kNone;
    auto b = p->second.builds.find(backend);
    return b == p->second.builds.end() ? kNone : b->second;
  };
  for (const auto& [project, backend] : keys) {
    const VersionTags& old_v = versions_of(before, project, backend);
    const VersionTags& new_v = versions_of(after, project, backend);
    VersionChange change{project, backend, {}, {}};
    for (const auto& [version, tags] : new_v) {
      if (old_v.count(version) == 0) change.added.push_back(version);
    }
    for (const auto& [version, tags] : old_v) {
      auto it = new_v.find(version);
      if (it == new_v.end()) {
        change.removed.push_back(version);
        d.wheels_removed += tags.size();
      } else {
        for (const std::string& tag : tags) {
          if (std::find(it->second.begin(), it->second.end(), tag) == it->second.end()) ++d.wheels_removed;
        }
      }
    }
    if (!change.added.empty() || !change.removed.empty()) {
      SortVersions(change.added);
      SortVersions(change.removed);
      d.versions.push_back(std::move(change));
    }
  }
  d.wheels_before = CountWheels(before);
  d.wheels_after = CountWheels(after);
  return d;
}

std::string DiffToText(const CatalogueDiff& d) {
  if (d.empty()) return "no change\n";
  std::string out;
  auto list = [&](const char* title, const std::vector<std::string>& items) {
    if (items.empty()) return;
    out += title;
    out += ":";
    for (const std::string& i : items) out += " " + i;
    out += "\n";
  };
  list("backends added", d.backends_added);
  list("backends removed", d.backends_removed);
  list("projects added", d.projects_added);
  list("projects removed", d.projects_removed);
  for (const Reclassification& r : d.reclassified) {
    out += "reclassified " + r.project + ": " + r.from + " -> " + r.to + " (" + r.reason + ")\n";
  }
  for (const VersionChange& v : d.versions) {
    out += v.project + " on " + v.backend + ":";
    if (!v.added.empty()) {
      out += " +";
      for (std::size_t i = 0; i < v.added.size(); ++i) out += (i ? ", " : " ") + v.added[i];
    }
    if (!v.removed.empty()) {
      out += (v.added.empty() ? " -" : "; -");
      for (std::size_t i = 0; i < v.removed.size(); ++i) out += (i ? ", " : " ") + v.removed[i];
    }
    out += "\n";
  }
  out += "wheels: " + std::to_string(d.wheels_before) + " -> " + std::to_string(d.wheels_after) +
         " (" + std::to_string(d.wheels_removed) + " removed)\n";
  return out;
}

std::string DiffToJson(const CatalogueDiff& d) {
  nlohmann::json doc;
  doc["backends_added"] = d.backends_added;
  doc["backends_removed"] = d.backends_removed;
  doc["projects_added"] = d.projects_added;
  doc["projects_removed"] = d.projects_removed;
  doc["reclassified"] = nlohmann::json::array();
  for (const Reclassification& r : d.reclassified) {
    doc["reclassified"].push_back({{"project", r.project}, {"from", r.from}, {"to", r.to}, {"reason", r.reason}});
  }
  doc["versions"] = nlohmann::json::array();
  for (const VersionChange& v : d.versions) {
    doc["versions"].push_back({{"project", v.project}, {"backend", v.backend}, {"added", v.added}, {"removed", v.removed}});
  }
  doc["wheels"] = {{"before", d.wheels_before}, {"after", d.wheels_after}, {"removed", d.wheels_removed}};
  doc["changed"] = !d.empty();
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace torchdex::catalogue
