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
  // Wheels are visited as the store reads them, never held as a list (the export's peak
  // memory was that list: 236 MB for an 800 KB catalogue).
  core::Status wheels = store.ForEachProjectWheel(channel, [&](const ListedWheel& w) {
    auto it = cat.projects.find(std::string(w.project));
    if (it == cat.projects.end()) return;
    CatalogueProject& p = it->second;
    // Routed builds belong to the backend of their own path or label; companions (root files
    // such as triton's) to every backend whose page lists them.
    std::string_view backend;
    if (p.cls == "routed") backend = w.backend;
    else if (p.cls == "companion") backend = w.backend.empty() ? w.page_backend : w.backend;
    if (backend.empty()) return;
    std::vector<std::string>& tags = p.builds[std::string(backend)][std::string(w.version)];
    // Root files are listed by every backend: keep each tag set once as it arrives.
    if (std::find(tags.begin(), tags.end(), w.tags) == tags.end()) tags.emplace_back(w.tags);
  });
  if (!wheels) return wheels.error();
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
