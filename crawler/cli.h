// torchdex-crawl's command line, callable in-process: main() only hands it argv and streams.
#ifndef TORCHDEX_CRAWLER_CLI_H_
#define TORCHDEX_CRAWLER_CLI_H_

#include <chrono>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "crawler/crawl.h"
#include "index/fetcher.h"

namespace torchdex::crawler {

// Exit codes (also in `torchdex-crawl --help` and docs/crawler.md).
inline constexpr int kExitOk = 0;
inline constexpr int kExitCrawlFailed = 1;  // pages failed; the store is as it was
inline constexpr int kExitUsage = 2;        // bad command line or input file
inline constexpr int kExitStore = 3;        // the store is locked by another crawl, or broken
// `diff --guard` (the sync job's publish decision; scripts/sync uses the same numbers):
inline constexpr int kExitNoChange = 0;  // the catalogues hold the same content
inline constexpr int kExitChanged = 10;  // changed, and the guard lets the change through
inline constexpr int kExitRefused = 20;  // the change removes too much: do not publish it

struct CliDeps {
  std::function<std::unique_ptr<index::Fetcher>(const index::FetchOptions&)> make_fetcher;
  Clock clock;
  std::string data_dir;          // where indexes.json and routing-policy.json live
  bool stderr_is_terminal = false;
  /// The monotonic clock of the progress display and the durations; unset: steady_clock.
  std::function<std::chrono::steady_clock::time_point()> steady_now;
};

CliDeps DefaultCliDeps();
/// $TORCHDEX_DATA_DIR, else an installed copy (<prefix>/share/torchdex/data beside the binary's
/// bin/), else the source tree's data/.
std::string DefaultDataDir();

int RunCrawlCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
                const CliDeps& deps);

}  // namespace torchdex::crawler

#endif  // TORCHDEX_CRAWLER_CLI_H_
