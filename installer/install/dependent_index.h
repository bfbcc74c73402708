// Indexes keyed by the chosen torch (docs/families.md, "Indexes keyed by the chosen torch"):
// PyG's extension wheels (torch-scatter, torch-sparse, pyg-lib, ...) are published on find-links
// pages, one per torch release series and backend (https://data.pyg.org/whl/torch-2.5.0+cu124.html),
// each wheel labelled with both (+pt25cu124). When such a package is asked together with torch,
// it is resolved on the page of the torch version and backend the plan chose, to one wheel by
// URL and hash, and kept off the default index; what the page offers is data/dependent-indexes.json.
#ifndef TORCHDEX_INSTALLER_INSTALL_DEPENDENT_INDEX_H_
#define TORCHDEX_INSTALLER_INSTALL_DEPENDENT_INDEX_H_

#include <map>
#include <string>
#include <vector>

#include "core/expected.h"
#include "index/fetcher.h"
#include "installer/install/plan.h"

namespace torchdex::installer {

/// An index keyed by the chosen torch, as the compiled table (data/dependent-indexes.json) has it.
struct DependentIndex {
  std::string name;         // "pyg"
  std::string base_url;     // "https://data.pyg.org/whl/" (or an override file's find_links)
  std::string page;         // "torch-{torch}+{backend}.html"
  std::string local_label;  // "pt{major}{minor}{backend}"
  std::string depends_on;   // "torch"
  std::string source;
  std::string base_origin;  // the override file that named base_url; "" for the table's
  std::vector<std::string> projects;  // normal form
  struct Page {
    std::string series;  // "2.5"
    std::string torch;   // "2.5.0"
    std::string backend;
  };
  std::vector<Page> pages;  // newest torch first
};

/// The compiled table's indexes, with the base URLs of `find_links` (override files: index name
/// -> {URL, file}) in place of theirs. A name the table does not know is an error naming the
/// file and /find_links/<name>.
core::Expected<std::vector<DependentIndex>> DependentIndexesWith(
    const std::map<std::string, std::pair<std::string, std::string>>& find_links);

/// The page of `index` for torch `torch_version` ("2.5.1+cu124") on `backend`: its URL, the
/// local label its wheels must carry ("pt25cu124") and whether the table lists it.
struct DependentPage {
  std::string url;
  std::string key;          // "torch-2.5.0+cu124.html"
  std::string local_label;  // "pt25cu124"
  bool listed = false;
};
core::Expected<DependentPage> PageFor(const DependentIndex& index, const std::string& torch_version,
                                      const std::string& backend);

/// The pages the table lists nearest to torch `torch_version` on `backend`: the same series on
/// other backends, then the same backend on the nearest series; at most `count`.
std::vector<std::string> NearestPages(const DependentIndex& index, const std::string& torch_version,
                                      const std::string& backend, std::size_t count = 4);

/// Checks a find-links page: every wheel of the index's projects on it carries `page.local_label`;
/// a wheel built for another torch or backend is an error naming the page and the file.
core::Status CheckDependentPage(const DependentIndex& index, const DependentPage& page,
                                const std::string& body, const std::string& content_type);

/// What routing added: lines for --explain, and the names the routing index keeps off the
/// default index.
struct DependentRouting {
  std::vector<std::string> explanation;
  std::vector<std::string> routed_names;
};

/// Moves the requirements of `request.other` that name a project of an index keyed by torch out
/// of `plan.other` and into `plan.routed`, resolved on the page matching the plan's torch and
/// backend (read with `fetcher`), when the plan has torch. Without torch in the plan they stay
/// as they were, and the explanation says how to route them. Errors: no page for that torch
/// (naming the nearest), a page with wheels for another torch, nothing on the page that fits.
core::Expected<DependentRouting> RouteDependentRequirements(
    InstallPlan& plan, const PlanRequest& request, const std::vector<DependentIndex>& indexes,
    index::Fetcher* fetcher);

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_INSTALL_DEPENDENT_INDEX_H_
