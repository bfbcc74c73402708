// The libcurl implementation of Fetcher: one multi handle driven from the Run thread, a pool of
// easy handles (reused, so their connections and DNS entries are too), a ready queue, a
// time-ordered queue of retries waiting out their backoff, and at most `parallelism` transfers
// in flight. What each transfer's outcome means is decided in Classify(); docs/http.md says it
// in prose.
#include <curl/curl.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "index/fetcher.h"
#include "index/lazy_libs.h"

#ifndef TORCHDEX_VERSION
#error "TORCHDEX_VERSION comes from CMake (index/CMakeLists.txt)"
#endif

namespace torchdex::index {
namespace {

using Clock = std::chrono::steady_clock;

// libcurl, loaded by MakeCurlFetcher before any fetcher exists (lazy_libs.h says why).
const lazy::Curl& Lib() { return *lazy::LoadCurl(nullptr); }

void GlobalInitOnce() {
  // curl_global_init is not thread-safe on every build; a function-local static is.
  static const CURLcode init = Lib().global_init(CURL_GLOBAL_DEFAULT);
  if (init != CURLE_OK) {
    throw std::runtime_error(std::string("curl_global_init: ") + Lib().easy_strerror(init));
  }
}

struct EasyDeleter {
  void operator()(CURL* easy) const { Lib().easy_cleanup(easy); }
};
using EasyHandle = std::unique_ptr<CURL, EasyDeleter>;

struct MultiDeleter {
  void operator()(CURLM* multi) const { Lib().multi_cleanup(multi); }
};
using MultiHandle = std::unique_ptr<CURLM, MultiDeleter>;

struct SlistDeleter {
  void operator()(curl_slist* list) const { Lib().slist_free_all(list); }
};
using HeaderList = std::unique_ptr<curl_slist, SlistDeleter>;

// One request across all its attempts.
struct Transfer {
  FetchResult result;
  EasyHandle easy;  // set while an attempt is in flight
  HeaderList headers;
  std::string url;         // what this hop asks: the request's URL, or where a redirect led
  bool following = false;  // the next Start follows a redirect: the same attempt, a new hop
  std::uint64_t max_body = 0;
  bool too_large = false;  // the write callback refused the body
  char error_buffer[CURL_ERROR_SIZE] = {};
};

// Grows the body in powers of two and never past the limit, so that the copy made while growing
// (old and new buffer both resident) stays within max_body: a 64 MiB limit peaks at 64 MiB.
std::size_t GrownCapacity(std::size_t needed, std::uint64_t max_body) {
  const std::uint64_t pow2 = std::bit_ceil(std::max<std::uint64_t>(needed, 64u << 10));
  return static_cast<std::size_t>(std::min(pow2, std::max<std::uint64_t>(max_body, needed)));
}

std::size_t OnBody(char* data, std::size_t size, std::size_t count, void* user) noexcept {
  auto* transfer = static_cast<Transfer*>(user);
  const std::size_t bytes = size * count;
  std::string& body = transfer->result.body;
  if (body.size() + bytes > transfer->max_body) {
    transfer->too_large = true;
    return 0;  // aborts the transfer with CURLE_WRITE_ERROR
  }
  try {
    if (body.size() + bytes > body.capacity()) {
      body.reserve(GrownCapacity(body.size() + bytes, transfer->max_body));
    }
    body.append(data, bytes);
  } catch (...) {
    return 0;
  }
  return bytes;
}

std::string ResponseHeader(CURL* easy, const char* name) {
  curl_header* header = nullptr;
  if (Lib().easy_header(easy, name, 0, CURLH_HEADER, -1, &header) == CURLHE_OK && header) {
    return header->value;
  }
  return {};
}

std::string FormatSeconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%g s", seconds);
  return text;
}

// What one finished attempt means.
struct Verdict {
  bool retry = false;
  FetchOutcome outcome = FetchOutcome::kFailed;  // when not retrying
  std::string cause;                             // for error messages
  double retry_after_s = 0;                      // from the server, 0 when it said nothing
};

bool IsTransientCurlError(CURLcode code) {
  switch (code) {
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_PARTIAL_FILE:  // closed early, or fewer bytes than Content-Length
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
    case CURLE_SSL_CONNECT_ERROR:
      return true;
    default:
      return false;
  }
}

Verdict Classify(Transfer& transfer, CURLcode code, const FetchOptions& options) {
  Verdict verdict;
  const long status = transfer.result.status;
  if (code == CURLE_OK) {
    if (status >= 200 && status < 300) {
      verdict.outcome = FetchOutcome::kOk;
    } else if (status == 304) {
      verdict.outcome = FetchOutcome::kNotModified;
    } else if (status == 403 || status == 404 || status == 410) {
      // The S3 era answered 403 for a missing key (pytorch/pytorch#81900): absent, not an error.
      verdict.outcome = FetchOutcome::kAbsent;
      verdict.cause = "HTTP " + std::to_string(status) + " (absent)";
    } else {
      verdict.cause = "HTTP " + std::to_string(status);
      verdict.retry = status >= 500 || status == 429 || status == 408;
      if (status == 429 || status == 503) {
        curl_off_t retry_after = 0;
        if (Lib().easy_getinfo(transfer.easy.get(), CURLINFO_RETRY_AFTER, &retry_after) ==
                CURLE_OK &&
            retry_after > 0) {
          verdict.retry_after_s = static_cast<double>(retry_after);
          verdict.cause += " (Retry-After: " + std::to_string(retry_after) + ")";
        }
      }
    }
    return verdict;
  }
  const std::string detail =
      transfer.error_buffer[0] ? transfer.error_buffer : Lib().easy_strerror(code);
  if (transfer.too_large || code == CURLE_FILESIZE_EXCEEDED) {
    verdict.cause = "page larger than " + std::to_string(options.max_body_bytes) + " bytes";
  } else if (code == CURLE_OPERATION_TIMEDOUT) {
    verdict.cause = "timed out (connect " + FormatSeconds(options.connect_timeout_s) + ", total " +
                    FormatSeconds(options.total_timeout_s) + "): " + detail;
    verdict.retry = true;
  } else if (code == CURLE_PARTIAL_FILE) {
    verdict.cause = "truncated body: " + detail;
    verdict.retry = true;
  } else {
    verdict.cause = detail + " (curl error " + std::to_string(static_cast<int>(code)) + ")";
    verdict.retry = IsTransientCurlError(code);
  }
  return verdict;
}

bool IsRedirectStatus(long status) {
  return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

bool IsHttpUrl(std::string_view url) {
  std::string scheme(url.substr(0, url.find(':')));
  for (char& c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return scheme == "http" || scheme == "https";
}

// What libcurl says of a finished transfer: its status (returned), the bytes on the wire, the
// URL it ended at.
long ReadTransferInfo(CURL* easy, FetchResult& result) {
  long status = 0;
  Lib().easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
  result.status = status;
  curl_off_t body_wire = 0;  // as received, before content decoding
  Lib().easy_getinfo(easy, CURLINFO_SIZE_DOWNLOAD_T, &body_wire);
  long header_bytes = 0;
  Lib().easy_getinfo(easy, CURLINFO_HEADER_SIZE, &header_bytes);
  result.wire_bytes += static_cast<std::uint64_t>(std::max<curl_off_t>(0, body_wire)) +
                       static_cast<std::uint64_t>(std::max(0L, header_bytes));
  const char* effective_url = nullptr;
  if (Lib().easy_getinfo(easy, CURLINFO_EFFECTIVE_URL, &effective_url) == CURLE_OK && effective_url) {
    result.effective_url = effective_url;
  }
  return status;
}

// Why a redirect to `to` is not followed (too many, not HTTP, refused by the caller's check);
// empty when it is.
std::string RefusedRedirect(const Transfer& transfer, const std::string& to, const FetchOptions& options) {
  if (static_cast<int>(transfer.result.redirects.size()) >= options.max_redirects) {
    return "more than " + std::to_string(options.max_redirects) + " redirects (a redirect loop?), the last to " + to;
  }
  if (!IsHttpUrl(to)) return "redirect to " + to + " refused: not http or https";
  if (options.check_redirect) {
    if (std::optional<std::string> why = options.check_redirect(transfer.url, to)) {
      return "redirect to " + to + " refused: " + *why;
    }
  }
  return "";
}

// The result of a transfer that is done (no retry, no redirect left): its outcome, validators
// and content type, or its error.
void SettleResult(CURL* easy, const Verdict& verdict, long status, FetchResult& result) {
  result.outcome = verdict.outcome;
  if (verdict.outcome == FetchOutcome::kOk || verdict.outcome == FetchOutcome::kNotModified) {
    result.etag = ResponseHeader(easy, "ETag");
    result.last_modified = ResponseHeader(easy, "Last-Modified");
    const char* content_type = nullptr;
    if (Lib().easy_getinfo(easy, CURLINFO_CONTENT_TYPE, &content_type) == CURLE_OK && content_type) {
      result.content_type = content_type;
    }
  }
  if (verdict.outcome != FetchOutcome::kOk) std::string().swap(result.body);
  if (verdict.outcome != FetchOutcome::kAbsent && verdict.outcome != FetchOutcome::kFailed) return;
  result.error = "GET " + result.request.url + ": " + verdict.cause;
  if (verdict.outcome != FetchOutcome::kFailed) return;
  // "(HTTP 200, 1 attempt)": the status too where the cause does not already say it.
  result.error += " (";
  if (status != 0 && verdict.cause.rfind("HTTP ", 0) != 0) result.error += "HTTP " + std::to_string(status) + ", ";
  result.error += std::to_string(result.attempts) + (result.attempts == 1 ? " attempt)" : " attempts)");
}

// How long to wait for the next event: at most a second, less when a retry falls due sooner.
std::chrono::milliseconds WaitTimeout(std::optional<Clock::time_point> next_due) {
  auto timeout = std::chrono::milliseconds(1000);
  if (!next_due) return timeout;
  const auto until_due = std::chrono::ceil<std::chrono::milliseconds>(*next_due - Clock::now());
  return std::clamp(until_due, std::chrono::milliseconds(0), timeout);
}

// The transfers of one Run: ready to start, waiting out a retry's backoff, running.
struct RunQueues {
  std::deque<std::unique_ptr<Transfer>> ready;
  std::multimap<Clock::time_point, std::unique_ptr<Transfer>> waiting;  // retries in backoff
  std::unordered_map<CURL*, std::unique_ptr<Transfer>> running;
  FetchProgress progress;

  void Enqueue(FetchRequest&& request) {
    auto transfer = std::make_unique<Transfer>();
    transfer->result.request = std::move(request);
    ready.push_back(std::move(transfer));
    ++progress.queued;
  }
};

class CurlFetcher final : public Fetcher {
 public:
  explicit CurlFetcher(const FetchOptions& options) : options_(options), random_(SeedJitter()) {
    GlobalInitOnce();
    options_.parallelism = std::max(1, options_.parallelism);
    options_.max_attempts = std::max(1, options_.max_attempts);
    options_.max_redirects = std::max(0, options_.max_redirects);
    if (options_.user_agent.empty()) options_.user_agent = "torchdex/" TORCHDEX_VERSION;
    multi_.reset(Lib().multi_init());
    if (!multi_) throw std::runtime_error("curl_multi_init failed");
    Lib().multi_setopt(multi_.get(), CURLMOPT_PIPELINING,
                      options_.http2 ? CURLPIPE_MULTIPLEX : CURLPIPE_NOTHING);
    // Keep as many idle connections as there can be transfers, for keep-alive reuse.
    Lib().multi_setopt(multi_.get(), CURLMOPT_MAXCONNECTS, std::max(4L, long{options_.parallelism}));
  }

  ~CurlFetcher() override {
    idle_.clear();  // easy handles first; none is attached to the multi handle between Runs
  }

  void Run(std::vector<FetchRequest> initial, const OnResult& on_result,
           const OnProgress& on_progress) override;

 private:
  static std::uint32_t SeedJitter() {
    std::random_device device;
    return device();
  }

  // A handle with the options every request of this fetcher shares; a handle given back keeps
  // them (and its connections, DNS and TLS session caches), and a request sets only its own.
  EasyHandle TakeEasy() {
    if (!idle_.empty()) {
      EasyHandle easy = std::move(idle_.back());
      idle_.pop_back();
      return easy;
    }
    EasyHandle easy(Lib().easy_init());
    if (!easy) throw std::runtime_error("curl_easy_init failed");
    SetSharedOptions(easy.get());
    return easy;
  }

  void SetSharedOptions(CURL* easy);

  void GiveBackEasy(Transfer& transfer) {
    if (transfer.easy) idle_.push_back(std::move(transfer.easy));
  }

  void Start(Transfer& transfer);
  double BackoffSeconds(int attempts_done, double retry_after_s);
  void OnDone(RunQueues& q, CURL* easy, CURLcode code, const OnResult& on_result, const OnProgress& on_progress);

  FetchOptions options_;
  MultiHandle multi_;
  std::vector<EasyHandle> idle_;
  std::minstd_rand random_;
};

void CurlFetcher::SetSharedOptions(CURL* easy) {
  Lib().easy_setopt(easy, CURLOPT_WRITEFUNCTION, &OnBody);
  Lib().easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  Lib().easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
  // Redirects are followed here, hop by hop (FollowRedirect), so that every hop is checked
  // before it is asked, not only where the chain ends (issue 13 item 21).
  Lib().easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 0L);
  Lib().easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "");  // every encoding this libcurl decodes
  Lib().easy_setopt(easy, CURLOPT_USERAGENT, options_.user_agent.c_str());
  Lib().easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(std::ceil(options_.connect_timeout_s * 1000)));
  Lib().easy_setopt(easy, CURLOPT_TIMEOUT_MS,
                   static_cast<long>(std::ceil(options_.total_timeout_s * 1000)));
  Lib().easy_setopt(easy, CURLOPT_TCP_KEEPALIVE, 1L);
  // Refuses at the headers a body whose Content-Length is already over the limit; the write
  // callback enforces the limit on everything else (chunked, close-delimited, decompressed).
  Lib().easy_setopt(easy, CURLOPT_MAXFILESIZE_LARGE,
                   static_cast<curl_off_t>(std::min<std::uint64_t>(
                       options_.max_body_bytes, std::numeric_limits<curl_off_t>::max())));
  Lib().easy_setopt(easy, CURLOPT_HTTP_VERSION,
                   options_.http2 ? long{CURL_HTTP_VERSION_2TLS} : long{CURL_HTTP_VERSION_1_1});
}

void CurlFetcher::Start(Transfer& transfer) {
  FetchResult& result = transfer.result;
  if (!transfer.following) {
    // A new attempt starts from the request's URL again.
    ++result.attempts;
    transfer.url = result.request.url;
    result.redirects.clear();
  }
  transfer.following = false;
  result.status = 0;
  std::string().swap(result.body);  // a failed attempt's bytes are gone, not just cleared
  result.etag.clear();
  result.last_modified.clear();
  result.content_type.clear();
  result.effective_url.clear();
  transfer.too_large = false;
  transfer.error_buffer[0] = '\0';
  transfer.max_body = options_.max_body_bytes;

  transfer.easy = TakeEasy();
  CURL* easy = transfer.easy.get();
  const FetchRequest& request = result.request;
  Lib().easy_setopt(easy, CURLOPT_URL, transfer.url.c_str());
  Lib().easy_setopt(easy, CURLOPT_PRIVATE, &transfer);
  Lib().easy_setopt(easy, CURLOPT_WRITEDATA, &transfer);
  Lib().easy_setopt(easy, CURLOPT_ERRORBUFFER, transfer.error_buffer);
  if (options_.http2) {
    // Over TLS, wait for a connection that may multiplex (HTTP/2) rather than open another.
    // Not for plain http: that is HTTP/1.1 here, and waiting would serialise every transfer
    // onto one connection.
    Lib().easy_setopt(easy, CURLOPT_PIPEWAIT, transfer.url.rfind("https://", 0) == 0 ? 1L : 0L);
  }
  transfer.headers.reset();
  curl_slist* headers = nullptr;
  if (!request.etag.empty()) {
    headers = Lib().slist_append(headers, ("If-None-Match: " + request.etag).c_str());
  }
  if (!request.last_modified.empty()) {
    headers = Lib().slist_append(headers, ("If-Modified-Since: " + request.last_modified).c_str());
  }
  transfer.headers.reset(headers);
  Lib().easy_setopt(easy, CURLOPT_HTTPHEADER, headers);

  const CURLMcode added = Lib().multi_add_handle(multi_.get(), easy);
  if (added != CURLM_OK) {
    throw std::runtime_error(std::string("curl_multi_add_handle: ") + Lib().multi_strerror(added));
  }
}

double CurlFetcher::BackoffSeconds(int attempts_done, double retry_after_s) {
  // Exponential, capped, with "equal jitter": half the delay fixed, half random, so that many
  // transfers failing together do not come back together.
  const double exponential =
      options_.backoff_initial_s * std::pow(2.0, std::max(0, attempts_done - 1));
  const double capped = std::min(options_.backoff_max_s, exponential);
  std::uniform_real_distribution<double> jitter(capped / 2, capped);
  const double backoff = capped > 0 ? jitter(random_) : 0.0;
  // A server's Retry-After is honoured up to backoff_max_s.
  return std::max(backoff, std::min(retry_after_s, options_.backoff_max_s));
}

// A transfer libcurl has finished: followed to its redirect, queued for a retry, or its result
// handed to `on_result` (whose next requests are queued).
void CurlFetcher::OnDone(RunQueues& q, CURL* easy, CURLcode code, const OnResult& on_result,
                         const OnProgress& on_progress) {
  auto node = q.running.extract(easy);
  Lib().multi_remove_handle(multi_.get(), easy);
  if (node.empty()) return;
  std::unique_ptr<Transfer> transfer = std::move(node.mapped());
  FetchResult& result = transfer->result;

  const long status = ReadTransferInfo(easy, result);

  Verdict verdict = Classify(*transfer, code, options_);
  const char* location = nullptr;
  if (code == CURLE_OK && IsRedirectStatus(status) &&
      Lib().easy_getinfo(easy, CURLINFO_REDIRECT_URL, &location) == CURLE_OK &&
      location != nullptr) {
    // A redirect: follow it as the next hop of this attempt, unless it is refused.
    const std::string to = location;
    const std::string refused = RefusedRedirect(*transfer, to, options_);
    if (refused.empty()) {
      result.redirects.push_back(to);
      transfer->url = to;
      transfer->following = true;
      GiveBackEasy(*transfer);
      q.ready.push_front(std::move(transfer));
      return;
    }
    verdict = Verdict{};
    verdict.cause = refused;
  }
  if (verdict.retry && result.attempts < options_.max_attempts) {
    GiveBackEasy(*transfer);
    std::string().swap(result.body);  // a waiting retry holds no partial page
    const double delay = BackoffSeconds(result.attempts, verdict.retry_after_s);
    const auto due = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                        std::chrono::duration<double>(delay));
    q.waiting.emplace(due, std::move(transfer));
    return;
  }

  SettleResult(easy, verdict, status, result);
  if (verdict.outcome == FetchOutcome::kFailed) ++q.progress.failed;
  GiveBackEasy(*transfer);
  transfer->headers.reset();

  ++q.progress.done;
  q.progress.wire_bytes += result.wire_bytes;
  if (on_result) {
    for (FetchRequest& next : on_result(std::move(result))) q.Enqueue(std::move(next));
  }
  if (on_progress) on_progress(q.progress);
}

void CurlFetcher::Run(std::vector<FetchRequest> initial, const OnResult& on_result,
                      const OnProgress& on_progress) {
  RunQueues q;
  // However Run ends (a callback may throw), no easy handle stays attached to the multi handle.
  struct Detach {
    CURLM* multi;
    std::unordered_map<CURL*, std::unique_ptr<Transfer>>& running;
    ~Detach() {
      for (auto& [easy, transfer] : running) Lib().multi_remove_handle(multi, easy);
    }
  } detach{multi_.get(), q.running};
  for (FetchRequest& request : initial) q.Enqueue(std::move(request));

  const std::size_t parallelism = static_cast<std::size_t>(options_.parallelism);
  while (!q.ready.empty() || !q.waiting.empty() || !q.running.empty()) {
    const Clock::time_point now = Clock::now();
    while (!q.waiting.empty() && q.waiting.begin()->first <= now) {
      q.ready.push_back(std::move(q.waiting.begin()->second));
      q.waiting.erase(q.waiting.begin());
    }
    while (q.running.size() < parallelism && !q.ready.empty()) {
      std::unique_ptr<Transfer> transfer = std::move(q.ready.front());
      q.ready.pop_front();
      Start(*transfer);
      CURL* easy = transfer->easy.get();
      q.running.emplace(easy, std::move(transfer));
    }
    int still_running = 0;
    Lib().multi_perform(multi_.get(), &still_running);
    int messages_left = 0;
    while (CURLMsg* message = Lib().multi_info_read(multi_.get(), &messages_left)) {
      if (message->msg == CURLMSG_DONE) OnDone(q, message->easy_handle, message->data.result, on_result, on_progress);
    }
    if (!q.ready.empty() && q.running.size() < parallelism) continue;  // more to start right away
    if (q.running.empty() && q.waiting.empty()) continue;              // done, or only ready ones
    const auto timeout = WaitTimeout(q.waiting.empty() ? std::nullopt : std::optional(q.waiting.begin()->first));
    if (q.running.empty()) {
      std::this_thread::sleep_for(timeout);  // only retries waiting out their backoff
    } else {
      // Also wakes up for libcurl's own timers (timeouts, connection set-up).
      Lib().multi_poll(multi_.get(), nullptr, 0, static_cast<int>(timeout.count()), nullptr);
    }
  }
}

}  // namespace

// When libcurl cannot be loaded, every request fails with the reason, so callers report it
// like any other network failure.
class UnavailableFetcher final : public Fetcher {
 public:
  explicit UnavailableFetcher(std::string why) : why_(std::move(why)) {}
  void Run(std::vector<FetchRequest> initial, const OnResult& on_result,
           const OnProgress& on_progress) override {
    std::deque<FetchRequest> queue(initial.begin(), initial.end());
    FetchProgress progress;
    progress.queued = queue.size();
    while (!queue.empty()) {
      FetchResult result;
      result.request = std::move(queue.front());
      queue.pop_front();
      result.outcome = FetchOutcome::kFailed;
      result.error = "GET " + result.request.url + ": " + why_;
      ++progress.done;
      ++progress.failed;
      for (FetchRequest& next : on_result(std::move(result))) {
        queue.push_back(std::move(next));
        ++progress.queued;
      }
      if (on_progress) on_progress(progress);
    }
  }

 private:
  std::string why_;
};

std::unique_ptr<Fetcher> MakeCurlFetcher(const FetchOptions& options) {
  std::string why;
  if (lazy::LoadCurl(&why) == nullptr) return std::make_unique<UnavailableFetcher>(why);
  return std::make_unique<CurlFetcher>(options);
}

}  // namespace torchdex::index
