// HTTP for the crawler and the installer: many GETs at once, with retries, conditional
// requests and bounds. The interface keeps libcurl out of every header but the one .cc.
#ifndef TORCHDEX_INDEX_FETCHER_H_
#define TORCHDEX_INDEX_FETCHER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace torchdex::index {

struct FetchRequest {
  std::string url;
  std::string etag;           // sent as If-None-Match when not empty
  std::string last_modified;  // sent as If-Modified-Since when not empty
  std::uint64_t cookie = 0;   // the caller's, handed back in the result
};

enum class FetchOutcome : std::uint8_t {
  kOk,           // 2xx, body holds the (decompressed) content
  kNotModified,  // 304 to a conditional request: what the caller stored is current
  kAbsent,       // 403, 404 or 410: the S3 era answered 403 for a missing key
  kFailed,       // anything else once retries are spent: error says what
};

struct FetchResult {
  FetchRequest request;
  FetchOutcome outcome = FetchOutcome::kFailed;
  long status = 0;         // the last HTTP status, 0 when no response arrived
  std::string body;        // kOk only
  std::string etag;        // response validators, for the next conditional request
  std::string last_modified;
  std::string content_type;
  std::string effective_url;  // after redirects
  std::vector<std::string> redirects;  // every URL a redirect led to, in order (the last attempt)
  std::string error;          // kFailed (and kAbsent): names the URL and the cause
  int attempts = 0;
  std::uint64_t wire_bytes = 0;  // bytes received before decompression, all attempts
};

struct FetchOptions {
  int parallelism = 16;  // transfers in flight at once
  int max_attempts = 4;  // for 5xx, 429, timeouts and connection errors
  double connect_timeout_s = 10;
  double total_timeout_s = 60;  // per attempt
  double backoff_initial_s = 0.5;
  double backoff_max_s = 30;
  std::uint64_t max_body_bytes = 64ull << 20;  // a larger body is a kFailed result
  int max_redirects = 5;
  /// Asked before each redirect is followed, with the URL that answered it and the URL it leads
  /// to: a reason refuses the hop (the result is kFailed, not retried, and `to` is never asked),
  /// nullopt follows it. Unset: every http or https hop is followed.
  std::function<std::optional<std::string>(std::string_view from, std::string_view to)>
      check_redirect;
  bool http2 = true;
  std::string user_agent;  // "torchdex/<version> (+https://github.com/...)" by default
};

/// Progress of a Run, for a progress display; passed to the observer after each result.
struct FetchProgress {
  std::uint64_t done = 0;
  std::uint64_t queued = 0;  // done + in flight + waiting
  std::uint64_t failed = 0;
  std::uint64_t wire_bytes = 0;
};

class Fetcher {
 public:
  /// Called on the Run thread for every finished request; returns requests to queue next
  /// (how a crawl discovers pages as it reads them).
  using OnResult = std::function<std::vector<FetchRequest>(FetchResult&&)>;
  using OnProgress = std::function<void(const FetchProgress&)>;

  virtual ~Fetcher() = default;
  /// Fetches `initial` and everything the callback queues, at most `parallelism` at once,
  /// and returns when nothing is left.
  virtual void Run(std::vector<FetchRequest> initial, const OnResult& on_result,
                   const OnProgress& on_progress = {}) = 0;
};

/// The libcurl implementation (multi interface: HTTP/2 where offered, gzip, keep-alive).
std::unique_ptr<Fetcher> MakeCurlFetcher(const FetchOptions& options);

}  // namespace torchdex::index

#endif  // TORCHDEX_INDEX_FETCHER_H_
