// The sync job's guard: decides whether a freshly crawled catalogue may replace the committed
// one. An index outage (a backend answering 403, a root page missing half its entries) looks,
// to a crawler, exactly like PyTorch deleting builds; a pull request that deletes half the
// catalogue must never be opened because of one. So anything that removes a backend, drops a
// package from the routed list, takes a routed package off a backend, or removes more than a
// share of the wheels is refused, and the report says exactly what would have been removed.
// What a reviewer must look at (new backends, reclassified packages, new torch versions) is
// called out first.
#ifndef TORCHDEX_STORE_GUARD_H_
#define TORCHDEX_STORE_GUARD_H_

#include <string>
#include <vector>

#include "catalogue/catalogue.h"
#include "catalogue/diff.h"

namespace torchdex::catalogue {

struct GuardOptions {
  /// Refuse when more than this share of the old catalogue's wheels (version/tag pairs of
  /// routed and companion projects) would be removed.
  double max_wheel_loss = 0.10;
  /// Backends or projects whose removal a person has reviewed and accepts (a backend PyTorch
  /// really deleted, a package really retired): their removal alone does not refuse. The
  /// wheel-loss share still applies.
  std::vector<std::string> allow_removed;
  /// The package whose new versions are called out for the reviewer.
  std::string primary_project = "torch";
};

enum class GuardVerdict { kNoChange, kChanged, kRefused };

struct GuardReport {
  GuardVerdict verdict = GuardVerdict::kNoChange;
  std::vector<std::string> callouts;       // for the reviewer, most important first
  std::vector<std::string> refusals;       // why the change is refused; empty unless refused
  std::vector<std::string> removals;       // everything the new catalogue would remove
  std::vector<std::string> other_changes;  // backend records and project details that changed
  std::size_t wheels_before = 0;
  std::size_t wheels_removed = 0;
  double wheel_loss = 0;      // wheels_removed / wheels_before
  double max_wheel_loss = 0;  // the limit applied
};

/// Judges the change from `before` (committed) to `after` (freshly crawled). Provenance
/// (crawled_from, updated_at, note) is not a change: the same index crawled through a mirror
/// or a day later is the same catalogue.
GuardReport CheckCatalogueChange(const Catalogue& before, const Catalogue& after,
                                 const CatalogueDiff& diff, const GuardOptions& options);

/// "no change", "changed", "refused".
const char* GuardVerdictName(GuardVerdict verdict);

/// The reviewer's summary (Markdown that also reads as plain text): verdict, call-outs, the
/// guard's findings, what would be removed, then the whole diff.
std::string GuardReportToText(const GuardReport& report, const CatalogueDiff& diff);
std::string GuardReportToJson(const GuardReport& report, const CatalogueDiff& diff);

}  // namespace torchdex::catalogue

#endif  // TORCHDEX_STORE_GUARD_H_
