// The exit statuses of torchdex-crawl: one table from core::ErrorCode to a status, printed by
// --help and documented in docs/crawler.md and the torchdex-crawl(1) man page. scripts/sync
// reads them: 1 (the index failed the crawl) is "refused", anything else but 0 "error".
#ifndef TORCHDEX_CRAWLER_EXIT_CODES_H_
#define TORCHDEX_CRAWLER_EXIT_CODES_H_

#include "core/expected.h"

namespace torchdex::crawler {

inline constexpr int kExitOk = 0;
inline constexpr int kExitCrawlFailed = 1;  // kNetwork: pages failed (the index); nothing stored
inline constexpr int kExitUsage = 2;        // kUsage, kBadInputFile: the command line, a data file
inline constexpr int kExitStore = 3;        // kFailure: the store or the export file, or unexpected
// `diff --guard` (the sync job's publish decision; scripts/sync uses the same numbers):
inline constexpr int kExitNoChange = 0;  // the catalogues hold the same content
inline constexpr int kExitChanged = 10;  // changed, and the guard lets the change through
inline constexpr int kExitRefused = 20;  // the change removes too much: do not publish it

/// The status torchdex-crawl exits with for an error of `code`.
int ExitStatus(core::ErrorCode code);

/// The lines --help prints.
extern const char* const kExitCodesHelp;

}  // namespace torchdex::crawler

#endif  // TORCHDEX_CRAWLER_EXIT_CODES_H_
