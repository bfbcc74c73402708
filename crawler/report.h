// What a crawl says when it ends: the --json summary on stdout and the warnings on stderr.
#ifndef TORCHDEX_CRAWLER_REPORT_H_
#define TORCHDEX_CRAWLER_REPORT_H_

#include <cstddef>
#include <string>
#include <vector>

#include "crawler/crawl.h"

namespace torchdex::crawler {

/// Examples of each kind of warning that stderr shows without --verbose.
inline constexpr std::size_t kWarningExamples = 3;

/// The --json summary: pages, anchors, every warning (and their counts by kind), every failure,
/// backends and classes. Valid UTF-8 whatever the pages held (bytes that are not are U+FFFD).
std::string CrawlSummaryJson(const CrawlReport& report, double seconds);

/// The warnings for stderr, a line each ("torchdex-crawl: warning: ..."): every one when
/// `verbose`; otherwise, for each kind, the first kWarningExamples and a line with the count of
/// the rest (a full crawl has 12,162 "project page missing" warnings). "" when there are none.
std::string WarningsText(const std::vector<CrawlWarning>& warnings, bool verbose);

}  // namespace torchdex::crawler

#endif  // TORCHDEX_CRAWLER_REPORT_H_
