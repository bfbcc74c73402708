// The crawl: discover every backend of every channel, fetch every project page, store what the
// anchors say, classify the projects, all in one store transaction.
#ifndef TORCHDEX_CRAWLER_CRAWL_H_
#define TORCHDEX_CRAWLER_CRAWL_H_

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "store/classify.h"
#include "store/index_config.h"
#include "store/store.h"
#include "index/fetcher.h"
#include "index/page.h"

namespace torchdex::crawler {

struct CrawlOptions {
  std::string base_url;               // overrides the family's (a mirror, a loopback server)
  std::vector<std::string> channels;  // empty: every channel of the family
  std::vector<std::string> backends;  // empty: every backend discovered (legacy ones excepted)
  bool include_legacy = false;        // also crawl *-full, *-pypi-*, cpu-cxx11-abi
  std::string default_index;          // PyPI-style simple index to find stale projects
  // Bounds (issue 13 item 24), each several times what the real index needs (2026-03-15: at
  // most 8,145 links on a page, 336 entries in a listing, 15,235 pages in a full crawl). Going
  // past one fails the crawl: a page cut short or a listing left unfollowed is no catalogue.
  std::size_t max_links = 50000;    // links read from one page; also bounds a page's memory
  std::size_t max_follow = 5000;    // pages one listing (root, backend list) may lead to
  std::size_t max_pages = 100000;   // requests of the whole crawl
};

/// A warning of a crawl, with its kind: the summary on stderr counts warnings by kind and shows
/// a few of each; --verbose and --json give every one.
struct CrawlWarning {
  std::string kind;     // "project page missing", "unreadable wheel name", ...
  std::string message;  // the whole warning, naming the URL
};

struct CrawlReport {
  bool ok = false;
  catalogue::RunStats stats;
  std::vector<CrawlWarning> warnings;  // absent pages, empty backends, unparsable files; sorted
  std::vector<std::string> failures;  // what made the crawl fail (nothing was stored)
  /// What kind of failure, when !ok: kNetwork when pages failed (the index), kFailure when the
  /// store did (it wins: the index may be fine), kUsage for an unknown channel.
  core::ErrorCode error_code = core::ErrorCode::kNetwork;
  std::map<std::string, std::vector<catalogue::BackendRecord>> backends;  // by channel
  std::map<std::string, std::map<std::string, int>> classes;  // channel -> class -> count
  std::map<std::string, double> phases;  // seconds: fetch, drain, classify_and_commit
  /// The channels whose stored content this crawl changed (a page's anchors or status, a page
  /// or backend added or removed, the classification redone). A channel not named here is as
  /// the last complete crawl left it, and nothing of it was written.
  std::set<std::string> changed_channels;
};

/// Where time comes from: RFC 3339 UTC timestamps.
using Clock = std::function<std::string()>;
std::string SystemClockRfc3339();

/// The crawl's redirect rule (FetchOptions::check_redirect): a page may redirect within its own
/// origin (scheme, host and port) only. A backend page that leads to another origin is a page
/// failure, not a source of wheels for that backend (issue 13 item 22); the reason says so.
std::optional<std::string> RefuseCrossOriginRedirect(std::string_view from, std::string_view to);

/// Crawls `family` into `store`. The store must already hold the crawl lock.
CrawlReport Crawl(const catalogue::IndexFamily& family, const catalogue::RoutingPolicy& policy,
                  const CrawlOptions& options, index::Fetcher& fetcher, catalogue::Store& store,
                  const Clock& clock, const index::Fetcher::OnProgress& on_progress = {});

}  // namespace torchdex::crawler

#endif  // TORCHDEX_CRAWLER_CRAWL_H_
