// Indexes keyed by the chosen torch: the page of the plan's torch and backend, checked, and
// the asked packages resolved on it by the same planner as a backend's (docs/families.md).
#include "installer/install/dependent_index.h"

#include <algorithm>
#include <cstdlib>
#include <set>

#include "core/name.h"
#include "core/version.h"
#include "core/wheel.h"
#include "index/page.h"
#include "index/url.h"
#include "installer/install/transport.h"
#include "installer/table/family_table.h"

namespace torchdex::installer {

namespace {

std::string Replace(std::string text, const std::string& key, const std::string& value) {
  for (std::size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size())) {
    text.replace(at, key.size(), value);
  }
  return text;
}

// "2.5.1+cu124" -> {2, 5}; nullopt when it is not a version with a major and minor.
std::optional<std::pair<unsigned, unsigned>> Series(const std::string& version) {
  core::Expected<core::Version> v = core::Version::Parse(version);
  if (!v || v->release().size() < 2) return std::nullopt;
  return std::pair<unsigned, unsigned>{static_cast<unsigned>(v->release()[0]),
                                       static_cast<unsigned>(v->release()[1])};
}

std::string Key(const DependentIndex& index, const std::string& torch, const std::string& backend) {
  return Replace(Replace(index.page, "{torch}", torch), "{backend}", backend);
}

// Answers the planner's page requests under `prefix` with the find-links page already read;
// everything else (PEP 658 metadata) goes to the real fetcher.
class PageFetcher final : public index::Fetcher {
 public:
  PageFetcher(std::string prefix, index::FetchResult page, index::Fetcher* real)
      : prefix_(std::move(prefix)), page_(std::move(page)), real_(real) {}
  void Run(std::vector<index::FetchRequest> initial, const OnResult& on_result,
           const OnProgress& on_progress) override {
    std::vector<index::FetchRequest> rest;
    for (index::FetchRequest& request : initial) {
      if (!request.url.starts_with(prefix_)) {
        rest.push_back(std::move(request));
        continue;
      }
      index::FetchResult result = page_;
      result.request = request;
      for (index::FetchRequest& more : on_result(std::move(result))) rest.push_back(std::move(more));
    }
    if (!rest.empty() && real_ != nullptr) real_->Run(std::move(rest), on_result, on_progress);
  }

 private:
  const std::string prefix_;
  const index::FetchResult page_;
  index::Fetcher* const real_;
};

}  // namespace

core::Expected<std::vector<DependentIndex>> DependentIndexesWith(
    const std::map<std::string, std::pair<std::string, std::string>>& find_links) {
  std::vector<DependentIndex> out;
  std::string known;
  for (const table::DependentIndexRow& row : table::DependentIndexes()) {
    DependentIndex index{std::string(row.name), std::string(row.base_url), std::string(row.page),
                         std::string(row.local_label), std::string(row.depends_on), std::string(row.source),
                         "", {}, {}};
    if (auto it = find_links.find(index.name); it != find_links.end()) {
      index.base_url = it->second.first;
      if (!index.base_url.ends_with('/')) index.base_url += '/';
      index.base_origin = it->second.second;
    }
    for (const table::DependentProjectRow& p : table::DependentProjects()) {
      if (p.index == row.name) index.projects.emplace_back(p.project);
    }
    for (const table::DependentPageRow& p : table::DependentPages()) {
      if (p.index == row.name) {
        index.pages.push_back({std::string(p.series), std::string(p.torch), std::string(p.backend)});
      }
    }
    known += (known.empty() ? "" : ", ") + index.name;
    out.push_back(std::move(index));
  }
  for (const auto& [name, value] : find_links) {
    const std::string& wanted = name;  // clang 14 cannot capture a structured binding
    if (std::none_of(out.begin(), out.end(), [&](const DependentIndex& i) { return i.name == wanted; })) {
      std::string message = value.second;
      message += ": /find_links/";
      message += name;
      message += ": no such index keyed by torch; known (data/dependent-indexes.json): ";
      message += known;
      return core::MakeError(message, core::ErrorCode::kBadInputFile);
    }
  }
  return out;
}

core::Expected<DependentPage> PageFor(const DependentIndex& index, const std::string& torch_version,
                                      const std::string& backend) {
  const std::optional<std::pair<unsigned, unsigned>> series = Series(torch_version);
  if (!series) {
    std::string message = index.depends_on;
    message += " ";
    message += torch_version;
    message += ": not a version with a major and minor release number";
    return core::MakeError(message, core::ErrorCode::kNotOffered);
  }
  const std::string series_text = std::to_string(series->first) + "." + std::to_string(series->second);
  DependentPage page;
  std::string torch = series_text;
  torch += ".0";  // one page per torch minor (the table's rows say which)
  for (const DependentIndex::Page& p : index.pages) {
    if (p.series != series_text) continue;
    torch = p.torch;
    if (p.backend == backend) page.listed = true;
  }
  page.key = Key(index, torch, backend);
  page.url = index.base_url + page.key;
  page.local_label = Replace(Replace(Replace(index.local_label, "{major}", std::to_string(series->first)),
                                     "{minor}", std::to_string(series->second)),
                             "{backend}", backend);
  return page;
}

std::vector<std::string> NearestPages(const DependentIndex& index, const std::string& torch_version,
                                      const std::string& backend, std::size_t count) {
  const std::optional<std::pair<unsigned, unsigned>> series = Series(torch_version);
  if (!series) return {};
  const long wanted = static_cast<long>(series->first) * 1000 + series->second;
  struct Near {
    long distance;
    int other_backend;
    std::string key;
  };
  std::vector<Near> near;
  for (const DependentIndex::Page& p : index.pages) {
    const std::optional<std::pair<unsigned, unsigned>> s = Series(p.torch);
    if (!s) continue;
    const long distance = std::labs(static_cast<long>(s->first) * 1000 + s->second - wanted);
    if (distance == 0 && p.backend == backend) continue;  // the page asked for itself
    near.push_back({distance, p.backend == backend ? 0 : 1, Key(index, p.torch, p.backend)});
  }
  // The same series first (other backends), then the same backend on the nearest series.
  std::stable_sort(near.begin(), near.end(), [](const Near& a, const Near& b) {
    const bool a_same = a.distance == 0, b_same = b.distance == 0;
    if (a_same != b_same) return a_same;
    if (a.other_backend != b.other_backend) return a.other_backend < b.other_backend;
    return a.distance < b.distance;
  });
  std::vector<std::string> out;
  for (const Near& n : near) {
    if (out.size() == count) break;
    out.push_back(n.key);
  }
  return out;
}

core::Status CheckDependentPage(const DependentIndex& index, const DependentPage& page,
                                const std::string& body, const std::string& content_type) {
  core::Expected<index::IndexPage> parsed = index::ParsePage(body, content_type, page.url);
  if (!parsed) {
    std::string message = page.url;
    message += ": ";
    message += parsed.error().message;
    return core::MakeError(message, core::ErrorCode::kNetwork);
  }
  const std::set<std::string> projects(index.projects.begin(), index.projects.end());
  for (std::size_t i = 0; i < parsed->anchors.size(); ++i) {
    const std::string filename = index::UrlFilename(parsed->anchors[i].url);
    if (!filename.ends_with(".whl")) continue;
    core::Expected<core::WheelFilename> wheel = core::ParseWheelFilename(filename);
    if (!wheel || projects.count(wheel->name) == 0) continue;
    const std::string label = wheel->version.LocalString();
    if (label == page.local_label) continue;
    std::string message = page.url;
    message += ": link ";
    message += std::to_string(i + 1);
    message += ", ";
    message += filename;
    message += ": built for ";
    message += label.empty() ? std::string("no particular torch (no local label)") : "+" + label;
    message += ", not for +";
    message += page.local_label;
    message += " as the page ";
    message += page.key;
    message += " is keyed; the page is not used";
    return core::MakeError(message, core::ErrorCode::kNetwork);
  }
  return {};
}

namespace {

// The asked requirements (not direct references) that name a project of the index.
std::vector<const core::AskedRequirement*> AskedOf(const DependentIndex& index, const PlanRequest& request) {
  std::vector<const core::AskedRequirement*> asked;
  for (const core::AskedRequirement& a : request.other) {
    if (!a.requirement.url.empty()) continue;  // a direct reference is taken as given
    const std::string name = a.requirement.NormalizedName();
    if (std::find(index.projects.begin(), index.projects.end(), name) != index.projects.end()) asked.push_back(&a);
  }
  return asked;
}

// What one index's packages are routed by: the planned wheel they depend on, the page for it.
struct DependentTarget {
  const DependentIndex& index;
  const std::vector<const core::AskedRequirement*>& asked;
  std::string names;   // "torch-scatter, torch-sparse"
  const PlannedWheel& torch;
  DependentPage page;
  std::string chosen;  // "torch 2.5.1 on cu124"
};

core::Error NoPage(const DependentTarget& t, const InstallPlan& plan, const std::string& answer) {
  const DependentIndex& index = t.index;
  std::string message = t.names;
  message += ": ";
  message += index.name;
  message += " publishes no page for ";
  message += t.chosen;
  message += " (";
  message += t.page.url;
  message += answer;
  message += "); the nearest pages";
  message += index.base_origin.empty() ? " (data/dependent-indexes.json)" : "";
  message += ": ";
  const std::vector<std::string> nearest = NearestPages(index, t.torch.version, plan.backend);
  for (std::size_t i = 0; i < nearest.size(); ++i) message += (i ? ", " : "") + nearest[i];
  if (nearest.empty()) message += "none";
  message += "; ask for a ";
  message += index.depends_on;
  message += " and backend that have one (e.g. ";
  message += index.depends_on;
  message += "==X.Y.* --torch-backend NAME)";
  return core::MakeError(message, core::ErrorCode::kNotOffered);
}

// The index's page for the chosen torch, read and checked (the HTTPS rule on every hop, and the
// page is the one its URL is keyed by).
core::Expected<index::FetchResult> FetchDependentPage(const DependentTarget& t, const InstallPlan& plan,
                                                      const PlanRequest& request, index::Fetcher& fetcher) {
  const DependentIndex& index = t.index;
  const std::string what = "the " + index.name + " page";
  if (core::Status ok = CheckTransport(t.page.url, request.trusted_hosts, what); !ok) return ok.error();
  index::FetchResult result;
  fetcher.Run({index::FetchRequest{t.page.url, "", "", 0}}, [&](index::FetchResult&& r) {
    result = std::move(r);
    return std::vector<index::FetchRequest>{};
  });
  if (result.outcome == index::FetchOutcome::kAbsent) return NoPage(t, plan, " answered " + std::to_string(result.status));
  if (result.outcome == index::FetchOutcome::kFailed) {
    return core::MakeError("cannot read the " + index.name + " page " + t.page.url + ": " + result.error,
                           core::ErrorCode::kNetwork);
  }
  for (const std::string& hop : result.redirects) {
    if (core::Status ok = CheckTransport(hop, request.trusted_hosts, what); !ok) return ok.error();
  }
  if (result.effective_url.empty()) result.effective_url = t.page.url;
  if (core::Status ok = CheckDependentPage(index, t.page, result.body, result.content_type); !ok) return ok.error();
  return result;
}

// The asked packages, resolved on the page by the planner; its dependencies among the index's
// projects too. Its page requests are answered with the page read.
core::Expected<InstallPlan> ResolveOnPage(const DependentTarget& t, const PlanRequest& request,
                                          const index::FetchResult& result, index::Fetcher* fetcher) {
  PlanRequest sub;
  for (const core::AskedRequirement* a : t.asked) sub.routed.push_back(a->requirement);
  sub.routed_projects.insert(t.index.projects.begin(), t.index.projects.end());
  sub.backend = t.index.name + " page " + t.page.key;
  sub.backend_index_url = t.page.url + "#/";  // the planner asks for <this><project>/
  sub.trusted_hosts = request.trusted_hosts;
  sub.supported_tags = request.supported_tags;
  sub.markers = request.markers;
  sub.target_description = request.target_description;
  sub.prereleases = request.prereleases;
  PageFetcher page_fetcher(sub.backend_index_url, result, fetcher);
  core::Expected<InstallPlan> resolved = MakePlan(sub, &page_fetcher);
  if (resolved) return resolved;
  core::Error error = resolved.error();
  for (const std::string& project : t.index.projects) {
    error.message = Replace(error.message, sub.backend_index_url + project + "/", t.page.url);
  }
  error.message = Replace(error.message, sub.backend_index_url, t.page.url);
  return error;
}

// The wheels resolved on the page join the plan, each with why; the asked requirements leave
// what goes to the default index.
void MergeResolved(const DependentTarget& t, InstallPlan resolved, InstallPlan& plan, DependentRouting& routing) {
  const DependentIndex& index = t.index;
  std::string why = "from the ";
  why += index.name;
  why += " page for ";
  why += t.chosen;
  why += ", ";
  why += t.page.key;
  why += " (its wheels are labelled +";
  why += t.page.local_label;
  why += ")";
  for (PlannedWheel& w : resolved.routed) {
    w.page_url = t.page.url;
    w.required_by.push_back(why);
    std::string line = w.name;
    line += " ";
    line += w.version;
    line += ": ";
    line += why;
    line += ": ";
    line += index.depends_on;
    line += " ";
    line += t.torch.version;
    line += " is what torchdex chose, and ";
    line += index.name;
    line += " publishes one page per ";
    line += index.depends_on;
    line += " minor and backend";
    line += t.page.listed ? "" : " (this page is not in data/dependent-indexes.json: read as published)";
    line += index.base_origin.empty() ? "; source: " + index.source : "; base URL from " + index.base_origin;
    routing.explanation.push_back(line);
    plan.routed.push_back(std::move(w));
  }
  for (std::string& warning : resolved.warnings) {
    if (std::find(plan.warnings.begin(), plan.warnings.end(), warning) == plan.warnings.end()) {
      plan.warnings.push_back(std::move(warning));
    }
  }
  for (const core::AskedRequirement* a : t.asked) {
    auto it = std::find(plan.other.begin(), plan.other.end(), a->text);
    if (it != plan.other.end()) plan.other.erase(it);
  }
  routing.routed_names.insert(routing.routed_names.end(), index.projects.begin(), index.projects.end());
}

// One index: its asked packages resolved on the page of the torch the plan chose.
core::Status RouteIndex(InstallPlan& plan, const PlanRequest& request, const DependentIndex& index,
                        index::Fetcher* fetcher, DependentRouting& routing) {
  const std::vector<const core::AskedRequirement*> asked = AskedOf(index, request);
  if (asked.empty()) return {};
  auto torch = std::find_if(plan.routed.begin(), plan.routed.end(),
                            [&](const PlannedWheel& w) { return w.name == index.depends_on; });
  std::string names;
  for (const core::AskedRequirement* a : asked) names += (names.empty() ? "" : ", ") + a->requirement.NormalizedName();
  if (torch == plan.routed.end()) {
    std::string line = names;
    line += ": passed to the default index as written; ask for ";
    line += index.depends_on;
    line += " too (torchdex install ";
    line += index.depends_on;
    line += " ";
    line += asked.front()->requirement.NormalizedName();
    line += ") to get the ";
    line += index.name;
    line += " page of the ";
    line += index.depends_on;
    line += " torchdex chooses";
    routing.explanation.push_back(line);
    return {};
  }
  core::Expected<DependentPage> page = PageFor(index, torch->version, plan.backend);
  if (!page) return page.error();
  const PlannedWheel torch_wheel = *torch;  // plan.routed grows below
  DependentTarget t{index, asked, names, torch_wheel, std::move(page).value(), {}};
  t.chosen = index.depends_on;
  t.chosen += " ";
  t.chosen += torch_wheel.version;
  t.chosen += " on ";
  t.chosen += plan.backend;
  if (plan.offline) {
    plan.warnings.push_back("offline: " + names + " would be resolved on " + t.page.url + " (for " + t.chosen +
                            "); the page is not read offline");
    return {};
  }
  if (fetcher == nullptr) return core::MakeError("no fetcher to read " + t.page.url);
  core::Expected<index::FetchResult> result = FetchDependentPage(t, plan, request, *fetcher);
  if (!result) return result.error();
  core::Expected<InstallPlan> resolved = ResolveOnPage(t, request, *result, fetcher);
  if (!resolved) return resolved.error();
  MergeResolved(t, std::move(resolved).value(), plan, routing);
  return {};
}

}  // namespace

core::Expected<DependentRouting> RouteDependentRequirements(
    InstallPlan& plan, const PlanRequest& request, const std::vector<DependentIndex>& indexes,
    index::Fetcher* fetcher) {
  DependentRouting routing;
  for (const DependentIndex& index : indexes) {
    if (core::Status ok = RouteIndex(plan, request, index, fetcher, routing); !ok) return ok.error();
  }
  std::sort(plan.routed.begin(), plan.routed.end(),
            [](const PlannedWheel& a, const PlannedWheel& b) { return a.name < b.name; });
  return routing;
}

}  // namespace torchdex::installer
