#include "store/read_catalogue.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "catalogue/variants.h"
#include "core/name.h"
#include "core/url.h"
#include "store/store.h"

namespace torchdex::catalogue {
namespace {

// The channel's backends, projects and their classes, where each is listed, and the wheels
// of the routed and companion ones, as the store holds them.
core::Status ReadStoredProjects(Store& store, std::string_view channel, Catalogue& cat) {
  auto backends = store.Backends(channel);
  if (!backends) return backends.error();
  for (const BackendRecord& b : *backends) {
    const std::optional<core::BackendState> state = core::ParseBackendState(b.state);
    if (!state) {
      return core::MakeError("store " + store.path() + ": backend " + b.name + " of " + std::string(channel) +
                             " has the state \"" + b.state + "\", which this torchdex does not know");
    }
    cat.backends[b.name] = CatalogueBackend{b.kind, b.toolkit, b.legacy, *state, b.discovered_from, b.projects};
  }
  auto projects = store.Projects(channel);
  if (!projects) return projects.error();
  for (const ProjectRecord& p : *projects) {
    // A listing's entry that is not a project name ("a b", "-%2f-%2fetc") was skipped by the
    // crawl, which said so: it is no project of the catalogue either (issue 29, item 17).
    if (!core::IsValidName(p.name)) continue;
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
  return store.ForEachProjectWheel(channel, [&](const ListedWheel& w) {
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
}

bool RoutedOrCompanion(const CatalogueProject& p) { return p.cls == "routed" || p.cls == "companion"; }

// A project the classification could not see as routed because its backends' pages are all
// missing (the nightly channel of the 2026-03-15 snapshot) is routed when its flat page
// ("torch/" at the channel root) links wheels labelled with the backend of their path, under
// backends whose page of it is missing.
void RouteByFlatPageLabels(const std::vector<std::pair<std::string, std::string>>& absent,
                           const std::vector<ListedAnchor>& flat, Catalogue& cat) {
  std::set<std::pair<std::string, std::string>> missing(absent.begin(), absent.end());  // backend, project
  std::map<std::string, std::set<std::string>> labelled;                               // project -> backends
  for (const ListedAnchor& a : flat) {
    if (a.row.file_kind != "wheel" || a.row.backend.empty() || a.row.local != a.row.backend) continue;
    std::pair<std::string, std::string> key(a.row.backend, a.row.project);
    if (missing.contains(key)) labelled[std::move(key.second)].insert(std::move(key.first));
  }
  for (const auto& [project, backends] : labelled) {
    auto it = cat.projects.find(project);
    if (it == cat.projects.end() || RoutedOrCompanion(it->second)) continue;
    if (!it->second.builds.empty()) continue;  // its pages say otherwise
    it->second.cls = "routed";
    it->second.reason = "builds differ by backend: its flat page (" + project +
                        "/ at the channel root) links wheels labelled with their backend under " +
                        std::to_string(backends.size()) + " backends whose own page of it is missing";
  }
}

// Project pages a backend lists but that were missing: what that backend offers is not known,
// except what the flat page links under the backend's path. A backend whose own list page is
// missing ("empty") has no project pages at all: the flat page is all that says what it holds
// (the 2025-08-13 snapshot's cu129).
void TakeBuildsFromTheFlatPage(const std::vector<std::pair<std::string, std::string>>& absent,
                               const std::vector<ListedAnchor>& flat, Catalogue& cat) {
  for (const auto& [backend, project] : absent) {
    auto it = cat.projects.find(project);
    if (it == cat.projects.end() || it->second.builds.contains(backend)) continue;
    if (!RoutedOrCompanion(it->second)) continue;  // the default index serves the rest
    it->second.unfetched.push_back(backend);
  }
  for (const ListedAnchor& a : flat) {
    if (a.row.file_kind != "wheel" || a.row.version.empty() || a.row.backend.empty()) continue;
    auto it = cat.projects.find(std::string(a.row.project));
    if (it == cat.projects.end() || it->second.cls != "routed") continue;
    CatalogueProject& p = it->second;
    const std::string backend_name(a.row.backend);
    auto backend = cat.backends.find(backend_name);
    if (backend == cat.backends.end() || backend->second.legacy) continue;
    const bool page_missing = std::find(p.unfetched.begin(), p.unfetched.end(), backend_name) != p.unfetched.end();
    // The state of a listed backend whose own pages are missing but whose wheels the flat page links.
    core::BackendState& state = backend->second.state;
    if (!page_missing && state != core::BackendState::kEmpty && state != core::BackendState::kOkFlatPageOnly) continue;
    if (state == core::BackendState::kEmpty) state = core::BackendState::kOkFlatPageOnly;
    p.builds[backend_name][std::string(a.row.version)].emplace_back(a.row.tags);
    p.from_flat_page.push_back(backend_name);
  }
}

// Variant indexes (PEP 825): each version's variants.json as the crawl checked it, and the
// labels of the wheels, for the routed projects whose builds the index offers.
core::Status ReadVariantFiles(Store& store, std::string_view channel, Catalogue& cat) {
  auto variant_files = store.VariantsFiles(channel);
  if (!variant_files) return variant_files.error();
  // The labelled wheels matter only to a channel's variants.json files: without any, the scan of
  // every anchor of the channel that finds them is not made (it was a fifth of an export).
  auto variant_wheels = variant_files->empty()
                            ? core::Expected<std::vector<VariantWheelRow>>(std::vector<VariantWheelRow>())
                            : store.VariantWheels(channel);
  if (!variant_wheels) return variant_wheels.error();
  // (backend, project, version) -> label -> tag sets
  std::map<std::tuple<std::string, std::string, std::string>, std::map<std::string, std::vector<std::string>>>
      labelled_wheels;
  for (const VariantWheelRow& w : *variant_wheels) {
    if (auto v = SplitVariantLabel(w.filename)) {
      labelled_wheels[{w.page_backend, w.project, w.version}][v->label].push_back(w.tags);
    }
  }
  for (const VariantsFileRecord& f : *variant_files) {
    auto it = cat.projects.find(f.project);
    if (it == cat.projects.end() || !RoutedOrCompanion(it->second)) continue;
    const auto wheels = labelled_wheels.find({f.backend, f.project, f.version});
    core::Expected<CatalogueVariants> v = MakeCatalogueVariants(
        f.path, f.sha256, f.json,
        wheels == labelled_wheels.end() ? std::map<std::string, std::vector<std::string>>() : wheels->second,
        "store " + store.path() + ": " + f.path);
    if (!v) return v.error();
    it->second.variants[f.backend][f.version] = std::move(v).value();
  }
  return {};
}

// Lists sorted and without repeats, so the catalogue is the same for the same store.
void Normalise(Catalogue& cat) {
  for (auto& [name, p] : cat.projects) {
    std::sort(p.from_flat_page.begin(), p.from_flat_page.end());
    p.from_flat_page.erase(std::unique(p.from_flat_page.begin(), p.from_flat_page.end()), p.from_flat_page.end());
    const std::vector<std::string>& flat_backends = p.from_flat_page;  // a binding cannot be captured (clang)
    std::erase_if(p.unfetched, [&flat_backends](const std::string& b) {
      return std::binary_search(flat_backends.begin(), flat_backends.end(), b);
    });
    std::sort(p.listed_in.begin(), p.listed_in.end());
    p.listed_in.erase(std::unique(p.listed_in.begin(), p.listed_in.end()), p.listed_in.end());
    for (auto& [backend, versions] : p.builds) {
      for (auto& [version, tags] : versions) {
        std::sort(tags.begin(), tags.end());
        tags.erase(std::unique(tags.begin(), tags.end()), tags.end());
      }
    }
  }
}

}  // namespace

core::Expected<Catalogue> ReadCatalogue(Store& store, std::string_view family,
                                        std::string_view channel, std::string_view note) {
  Catalogue cat;
  cat.family = std::string(family);
  cat.channel = std::string(channel);
  cat.note = std::string(note);
  auto base = store.LastBaseUrl();
  if (!base) return base.error();
  cat.crawled_from = core::StripCredentials(*base);  // a shared file: no user:token@
  auto updated = store.ChannelUpdatedAt(channel);
  if (!updated) return updated.error();
  cat.updated_at = *updated;
  if (core::Status ok = ReadStoredProjects(store, channel, cat); !ok) return ok.error();
  auto absent = store.AbsentProjectPages(channel);
  if (!absent) return absent.error();
  auto flat = store.DiscoveryAnchors(channel);
  if (!flat) return flat.error();
  RouteByFlatPageLabels(*absent, *flat, cat);
  TakeBuildsFromTheFlatPage(*absent, *flat, cat);
  if (core::Status ok = ReadVariantFiles(store, channel, cat); !ok) return ok.error();
  Normalise(cat);
  return cat;
}

}  // namespace torchdex::catalogue
