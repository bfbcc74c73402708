// Classification of the projects an index lists (docs/catalogue.md):
//   routed     builds differ by backend: files under <backend>/ carrying that backend's label,
//              or wheels with a PEP 825 variant label (a variant index);
//   companion  index-hosted packages that routed ones pin (triton): from the routing policy;
//   mirror     copies of upstream pages, or the same files for every backend (jinja2, numpy);
//   stale      the index lags the default index (torchdata).
// A policy file (data/routing-policy.json) overrides any derived class, with a reason.
#ifndef TORCHDEX_STORE_CLASSIFY_H_
#define TORCHDEX_STORE_CLASSIFY_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "store/store.h"
#include "core/expected.h"

namespace torchdex::catalogue {

struct PolicyEntry {
  std::string cls;
  std::string reason;
  std::string source;
};

struct RoutingPolicy {
  std::map<std::string, PolicyEntry> projects;  // by normalised name
};

core::Expected<RoutingPolicy> ParseRoutingPolicy(std::string_view json, std::string_view origin);
core::Expected<RoutingPolicy> LoadRoutingPolicy(const std::string& path);

struct ClassifyInput {
  /// Every project the channel's backend lists name, even those without a page.
  std::vector<std::string> projects;
  /// The project files, grouped (Store::ProjectFileGroups).
  std::vector<FileGroup> groups;
  /// Versions of each project here (Store::ProjectVersions); needed with default_index_newest.
  std::map<std::string, std::vector<std::string>> versions;
  /// Newest final release of each project on the default index, when one was asked.
  std::map<std::string, std::string> default_index_newest;
  const RoutingPolicy* policy = nullptr;
  /// Projects with wheels that carry a PEP 825 variant label (Store::VariantWheels), with an
  /// example file: their builds differ by label, so they are routed.
  std::map<std::string, std::string> variant_wheels = {};
};

/// One record per project, sorted by name, each with its reason.
std::vector<ProjectRecord> Classify(std::string_view channel, const ClassifyInput& input);

/// The newest final (non-pre-release) version among `versions`, or "" when none parses.
std::string NewestFinalVersion(const std::vector<std::string>& versions);

}  // namespace torchdex::catalogue

#endif  // TORCHDEX_STORE_CLASSIFY_H_
