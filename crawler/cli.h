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
#include "crawler/exit_codes.h"
#include "index/fetcher.h"

namespace torchdex::crawler {

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
