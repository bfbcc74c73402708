#include "store/read_catalogue.h"

#include <algorithm>

#include "store/store.h"

namespace torchdex::catalogue {

core::Expected<Catalogue> ReadCatalogue(Store& store, std::string_view family,
                                        std::string_view channel, std::string_view note) {
  Catalogue cat;
  cat.family = std::string(family);
  cat.channel = std::string(channel);
  cat.note = std::string(note);
  auto base = store.LastBaseUrl();
  if (!base) return base.error();
  cat.crawled_from = *base;
  auto updated = store.ChannelUpdatedAt(channel);
  if (!updated) return updated.error();
  cat.updated_at = *updated;

  auto backends = store.Backends(channel);
  if (!backends) return backends.error();
  for (const BackendRecord& b : *backends) {
    cat.backends[b.name] =
        CatalogueBackend{b.kind, b.toolkit, b.legacy, b.state, b.discovered_from, b.projects};
  }
  auto projects = store.Projects(channel);
  if (!projects) return projects.error();
  for (const ProjectRecord& p : *projects) {
    CatalogueProject& entry = cat.projects[p.name];
    entry.cls = p.cls;
    entry.reason = p.reason;
  }
  auto listed = store.ListedProjects(channel);
  if (!listed) return listed.error();
  for (const auto& [backend, project] : *listed) {
    auto it = cat.projects.find(project);
    if (it != cat.projects.end()) it->second.listed_in.push_back(backend);
  }
  auto anchors = store.ProjectAnchors(channel);
  if (!anchors) return anchors.error();
  for (const ListedAnchor& a : *anchors) {
    if (a.row.file_kind != "wheel" || a.row.version.empty()) continue;
    auto it = cat.projects.find(a.row.project);
    if (it == cat.projects.end()) continue;
    CatalogueProject& p = it->second;
    // Routed builds belong to the backend of their own path or label; companions (root files
    // such as triton's) to every backend whose page lists them.
    std::string backend;
    if (p.cls == "routed") backend = a.row.backend;
    else if (p.cls == "companion") backend = a.row.backend.empty() ? a.page_backend : a.row.backend;
    if (backend.empty()) continue;
    p.builds[backend][a.row.version].push_back(a.row.tags);
  }
  for (auto& [name, p] : cat.projects) {
    std::sort(p.listed_in.begin(), p.listed_in.end());
    p.listed_in.erase(std::unique(p.listed_in.begin(), p.listed_in.end()), p.listed_in.end());
    for (auto& [backend, versions] : p.builds) {
      for (auto& [version, tags] : versions) {
        std::sort(tags.begin(), tags.end());
        tags.erase(std::unique(tags.begin(), tags.end()), tags.end());
      }
    }
  }
  return cat;
}

}  // namespace torchdex::catalogue
