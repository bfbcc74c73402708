// What changed between two catalogues, for sync pull requests and reviewers: backends added
// or gone, projects added, gone or reclassified, versions added or removed per backend.
#ifndef TORCHDEX_CATALOGUE_DIFF_H_
#define TORCHDEX_CATALOGUE_DIFF_H_

#include <string>
#include <vector>

#include "catalogue/catalogue.h"

namespace torchdex::catalogue {

struct VersionChange {
  std::string project;
  std::string backend;
  std::vector<std::string> added;    // PEP 440 order
  std::vector<std::string> removed;  // PEP 440 order
};

struct Reclassification {
  std::string project;
  std::string from;
  std::string to;
  std::string reason;  // the new reason
};

struct CatalogueDiff {
  std::vector<std::string> backends_added;
  std::vector<std::string> backends_removed;
  std::vector<std::string> projects_added;    // "name (class)"
  std::vector<std::string> projects_removed;  // "name (class)"
  std::vector<Reclassification> reclassified;
  std::vector<VersionChange> versions;
  std::size_t wheels_before = 0;  // version/tag pairs of routed and companion projects
  std::size_t wheels_after = 0;
  std::size_t wheels_removed = 0;

  bool empty() const;
};

CatalogueDiff DiffCatalogues(const Catalogue& before, const Catalogue& after);
std::string DiffToText(const CatalogueDiff& diff);
std::string DiffToJson(const CatalogueDiff& diff);

}  // namespace torchdex::catalogue

#endif  // TORCHDEX_CATALOGUE_DIFF_H_
