// The curl Fetcher against a real nginx serving the fixture pages (gzip, ETag, 304, paths) and
// against the in-process fault server (retries, Retry-After, timeouts, truncation, redirects,
// garbage, oversized pages, absent pages).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "index/fetcher.h"
#include "tests/support/fault_server.h"
#include "tests/support/nginx.h"

namespace torchdex::index {
namespace {

namespace fs = std::filesystem;
using testing::FaultResponse;
using testing::FaultServer;
using testing::Nginx;

const fs::path kFixtures = fs::path(TORCHDEX_FIXTURES_DIR) / "pytorch-index";

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Small backoff so that retry tests take milliseconds; the Retry-After test sets its own cap.
FetchOptions QuickOptions() {
  FetchOptions options;
  options.max_attempts = 3;
  options.backoff_initial_s = 0.01;
  options.backoff_max_s = 0.05;
  options.connect_timeout_s = 5;
  options.total_timeout_s = 10;
  return options;
}

std::vector<FetchResult> FetchAll(const FetchOptions& options, std::vector<FetchRequest> requests) {
  std::vector<FetchResult> results;
  MakeCurlFetcher(options)->Run(std::move(requests), [&](FetchResult&& result) {
    results.push_back(std::move(result));
    return std::vector<FetchRequest>{};
  });
  return results;
}

FetchResult FetchOne(const FetchOptions& options, FetchRequest request) {
  std::vector<FetchResult> results = FetchAll(options, {std::move(request)});
  if (results.size() != 1) {
    ADD_FAILURE() << "expected one result, got " << results.size();
    return {};
  }
  return std::move(results[0]);
}

FetchRequest Get(std::string url) {
  FetchRequest request;
  request.url = std::move(url);
  return request;
}

// Peak resident memory of this process, in bytes, from /proc/self/status (VmHWM).
std::uint64_t PeakRssBytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
  }
  return 0;
}

std::uint64_t RssBytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
  }
  return 0;
}

// AddressSanitizer's shadow memory and quarantine inflate RSS: memory bounds are checked in
// plain builds only (scripts/test runs both).
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kMeasuresMemory = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kMeasuresMemory = false;
#else
constexpr bool kMeasuresMemory = true;
#endif
#else
constexpr bool kMeasuresMemory = true;
#endif

// Resets VmHWM to the current RSS (Linux >= 4.0), so that a peak can be measured per test.
void ResetPeakRss() { std::ofstream("/proc/self/clear_refs") << "5"; }

// ---------------------------------------------------------------------------------------------
// nginx: realistic serving of the real pages.

class NginxFetchTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string pattern = (fs::temp_directory_path() / "torchdex-docroot-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      start_error_ = new std::string("mkdtemp failed");
      return;
    }
    root_ = new fs::path(pattern);
    // A copy, so that a test may change a page and see a new ETag.
    fs::copy(kFixtures, *root_, fs::copy_options::recursive);
    auto started = Nginx::Start(*root_);
    if (!started) {
      start_error_ = new std::string(started.error().message);
      return;
    }
    nginx_ = std::move(started.value()).release();
  }

  static void TearDownTestSuite() {
    delete nginx_;
    nginx_ = nullptr;
    if (root_) {
      std::error_code ignored;
      fs::remove_all(*root_, ignored);
    }
    delete root_;
    root_ = nullptr;
    delete start_error_;
    start_error_ = nullptr;
  }

  void SetUp() override {
    // Not a skip: without nginx these tests fail, and say why.
    ASSERT_NE(nginx_, nullptr) << "nginx did not start: "
                               << (start_error_ ? *start_error_ : std::string("?"));
  }

  static std::string Url(std::string_view path) { return nginx_->Url(path); }

  static Nginx* nginx_;
  static fs::path* root_;
  static std::string* start_error_;
};

Nginx* NginxFetchTest::nginx_ = nullptr;
fs::path* NginxFetchTest::root_ = nullptr;
std::string* NginxFetchTest::start_error_ = nullptr;

TEST_F(NginxFetchTest, ServesThePageByteForByte) {
  const FetchResult result = FetchOne(QuickOptions(), Get(Url("/whl/cu128/torch/")));
  EXPECT_EQ(result.outcome, FetchOutcome::kOk) << result.error;
  EXPECT_EQ(result.status, 200);
  EXPECT_EQ(result.attempts, 1);
  EXPECT_EQ(result.body, ReadFile(kFixtures / "whl/cu128/torch/index.html"));
  EXPECT_EQ(result.content_type, "text/html");
  EXPECT_EQ(result.effective_url, Url("/whl/cu128/torch/"));
  EXPECT_TRUE(result.error.empty()) << result.error;
}

TEST_F(NginxFetchTest, PathWithoutSlashServesTheSamePageWithoutRedirect) {
  const FetchResult result = FetchOne(QuickOptions(), Get(Url("/whl/cu128/torch")));
  EXPECT_EQ(result.outcome, FetchOutcome::kOk) << result.error;
  EXPECT_EQ(result.body, ReadFile(kFixtures / "whl/cu128/torch/index.html"));
  EXPECT_EQ(result.effective_url, Url("/whl/cu128/torch"));
}

TEST_F(NginxFetchTest, NegotiatesGzip) {
  const FetchResult result = FetchOne(QuickOptions(), Get(Url("/whl/torch/")));
  ASSERT_EQ(result.outcome, FetchOutcome::kOk) << result.error;
  const std::string file = ReadFile(kFixtures / "whl/torch/index.html");
  ASSERT_GT(file.size(), 500'000u);
  EXPECT_EQ(result.body, file);  // decompressed transparently
  // The page is ~0.7 MB of repetitive anchors: gzip makes it several times smaller on the wire.
  EXPECT_LT(result.wire_bytes, file.size() / 2) << "wire " << result.wire_bytes;
}

TEST_F(NginxFetchTest, ConditionalRequestWithTheEtagIsNotModified) {
  const FetchResult first = FetchOne(QuickOptions(), Get(Url("/whl/cu126/torchvision/")));
  ASSERT_EQ(first.outcome, FetchOutcome::kOk) << first.error;
  ASSERT_FALSE(first.etag.empty());
  ASSERT_FALSE(first.last_modified.empty());

  FetchRequest again = Get(Url("/whl/cu126/torchvision/"));
  again.etag = first.etag;
  const FetchResult second = FetchOne(QuickOptions(), again);
  EXPECT_EQ(second.outcome, FetchOutcome::kNotModified) << second.error;
  EXPECT_EQ(second.status, 304);
  EXPECT_TRUE(second.body.empty());
  EXPECT_EQ(second.attempts, 1);
  EXPECT_FALSE(second.etag.empty());  // validators come back with the 304 too (nginx: strong)

  FetchRequest by_date = Get(Url("/whl/cu126/torchvision/"));
  by_date.last_modified = first.last_modified;
  EXPECT_EQ(FetchOne(QuickOptions(), by_date).outcome, FetchOutcome::kNotModified);
}

TEST_F(NginxFetchTest, ChangedPageIsFetchedAgainDespiteTheOldEtag) {
  const fs::path page = *root_ / "whl/cu118/nvidia-cublas-cu11/index.html";
  const FetchResult first = FetchOne(QuickOptions(), Get(Url("/whl/cu118/nvidia-cublas-cu11/")));
  ASSERT_EQ(first.outcome, FetchOutcome::kOk) << first.error;
  {
    std::ofstream out(page, std::ios::app);
    out << "\n<!-- changed by the test, longer than before -->\n";
  }
  FetchRequest again = Get(Url("/whl/cu118/nvidia-cublas-cu11/"));
  again.etag = first.etag;
  const FetchResult second = FetchOne(QuickOptions(), again);
  EXPECT_EQ(second.outcome, FetchOutcome::kOk) << second.error;
  EXPECT_EQ(second.body, ReadFile(page));
  EXPECT_NE(second.etag, first.etag);
}

TEST_F(NginxFetchTest, MissingPageIsAbsent) {
  const std::string url = Url("/whl/cu128/no-such-project/");
  const FetchResult result = FetchOne(QuickOptions(), Get(url));
  EXPECT_EQ(result.outcome, FetchOutcome::kAbsent);
  EXPECT_EQ(result.status, 404);
  EXPECT_EQ(result.attempts, 1);
  EXPECT_TRUE(result.body.empty());
  EXPECT_NE(result.error.find(url), std::string::npos) << result.error;
}

TEST_F(NginxFetchTest, ParallelFetchOfEveryPageMatchesTheFiles) {
  std::map<std::string, fs::path> expected;  // url -> file
  std::vector<FetchRequest> requests;
  for (const auto& entry : fs::recursive_directory_iterator(*root_)) {  // what nginx serves
    if (entry.path().filename() != "index.html") continue;
    const std::string dir = fs::relative(entry.path().parent_path(), *root_).generic_string();
    const std::string url = Url("/" + dir + "/");
    expected[url] = entry.path();
    FetchRequest request = Get(url);
    request.cookie = requests.size();
    requests.push_back(request);
  }
  ASSERT_GT(requests.size(), 80u);

  FetchOptions options = QuickOptions();
  options.parallelism = 8;
  std::vector<FetchResult> results;
  FetchProgress last;
  int progress_calls = 0;
  MakeCurlFetcher(options)->Run(
      requests,
      [&](FetchResult&& result) {
        results.push_back(std::move(result));
        return std::vector<FetchRequest>{};
      },
      [&](const FetchProgress& progress) {
        ++progress_calls;
        last = progress;
      });

  ASSERT_EQ(results.size(), requests.size());
  EXPECT_EQ(progress_calls, static_cast<int>(requests.size()));
  EXPECT_EQ(last.done, requests.size());
  EXPECT_EQ(last.queued, requests.size());
  EXPECT_EQ(last.failed, 0u);
  EXPECT_GT(last.wire_bytes, 0u);
  std::vector<bool> seen(requests.size());
  for (const FetchResult& result : results) {
    ASSERT_EQ(result.outcome, FetchOutcome::kOk) << result.error;
    ASSERT_LT(result.request.cookie, seen.size());
    seen[result.request.cookie] = true;
    EXPECT_EQ(result.request.url, requests[result.request.cookie].url);
    EXPECT_EQ(result.body, ReadFile(expected.at(result.request.url))) << result.request.url;
  }
  EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](bool b) { return b; }));
}

TEST_F(NginxFetchTest, ConnectionsAreKeptAliveAndReused) {
  std::vector<FetchRequest> requests;
  for (const char* backend : {"cpu", "cu118", "cu124", "cu126", "cu128", "cu130", "xpu"}) {
    for (const char* project : {"torch", "torchvision", "torchaudio"}) {
      requests.push_back(Get(Url("/whl/" + std::string(backend) + "/" + project + "/")));
    }
  }
  const std::string before = nginx_->AccessLog();
  FetchOptions options = QuickOptions();
  options.parallelism = 3;
  std::unique_ptr<Fetcher> fetcher = MakeCurlFetcher(options);
  std::size_t ok = 0;
  const auto count_ok = [&](FetchResult&& result) {
    ok += result.outcome == FetchOutcome::kOk;
    return std::vector<FetchRequest>{};
  };
  fetcher->Run(requests, count_ok);
  fetcher->Run(requests, count_ok);  // a second Run reuses the first one's connections
  ASSERT_EQ(ok, 2 * requests.size());

  // nginx logs a request after sending its response: wait (bounded) for the last lines.
  std::string after = nginx_->AccessLog();
  for (int i = 0; i < 200 && std::count(after.begin() + static_cast<std::ptrdiff_t>(before.size()),
                                        after.end(), '\n') < std::ptrdiff_t(2 * requests.size());
       ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    after = nginx_->AccessLog();
  }
  std::istringstream log(after.substr(before.size()));
  std::set<std::string> connections;
  std::size_t lines = 0;
  for (std::string line; std::getline(log, line); ++lines) {
    connections.insert(line.substr(0, line.find(' ')));
  }
  EXPECT_EQ(lines, 2 * requests.size());
  // 42 requests, 3 at a time: a handful of connections, not one per request.
  EXPECT_LE(connections.size(), 6u) << connections.size() << " connections";
}

// ---------------------------------------------------------------------------------------------
// The fault server: what goes wrong on the way.

TEST(FaultFetchTest, ServerErrorsAreRetriedUntilSuccess) {
  FaultServer server;
  server.Script("/p/", {FaultResponse::Status(500), FaultResponse::Status(503),
                        FaultResponse::Ok("<html>fine</html>")});
  const FetchResult result = FetchOne(QuickOptions(), Get(server.Url("/p/")));
  EXPECT_EQ(result.outcome, FetchOutcome::kOk) << result.error;
  EXPECT_EQ(result.status, 200);
  EXPECT_EQ(result.attempts, 3);
  EXPECT_EQ(result.body, "<html>fine</html>");
  EXPECT_EQ(server.RequestsFor("/p/").size(), 3u);
}

TEST(FaultFetchTest, PersistentServerErrorFailsAfterMaxAttempts) {
  FaultServer server;
  server.Script("/p/", {FaultResponse::Status(500, "oops")});
  FetchOptions options = QuickOptions();
  options.max_attempts = 4;
  const std::string url = server.Url("/p/");
  const FetchResult result = FetchOne(options, Get(url));
  EXPECT_EQ(result.outcome, FetchOutcome::kFailed);
  EXPECT_EQ(result.status, 500);
  EXPECT_EQ(result.attempts, 4);
  EXPECT_TRUE(result.body.empty());
  EXPECT_NE(result.error.find(url), std::string::npos) << result.error;
  EXPECT_NE(result.error.find("HTTP 500"), std::string::npos) << result.error;
  EXPECT_NE(result.error.find("4 attempts"), std::string::npos) << result.error;
  EXPECT_EQ(server.RequestsFor("/p/").size(), 4u);
}

TEST(FaultFetchTest, RetryAfterIsHonoured) {
  FaultServer server;
  server.Script("/p/", {FaultResponse::TooManyRequests(1), FaultResponse::Ok("ok")});
  FetchOptions options = QuickOptions();
  options.backoff_max_s = 5;  // the cap must allow the server's 1 s
  const FetchResult result = FetchOne(options, Get(server.Url("/p/")));
  EXPECT_EQ(result.outcome, FetchOutcome::kOk) << result.error;
  EXPECT_EQ(result.attempts, 2);
  const auto requests = server.RequestsFor("/p/");
  ASSERT_EQ(requests.size(), 2u);
  // Behaviour, not speed: the second request did not come before the server allowed it.
  EXPECT_GE(requests[1].received - requests[0].received, std::chrono::milliseconds(950));
}

TEST(FaultFetchTest, RetryAfterIsCappedByBackoffMax) {
  FaultServer server;
  server.Script("/p/", {FaultResponse::TooManyRequests(3600), FaultResponse::Ok("ok")});
  FetchOptions options = QuickOptions();
  options.backoff_max_s = 0.1;
  const FetchResult result = FetchOne(options, Get(server.Url("/p/")));
  EXPECT_EQ(result.outcome, FetchOutcome::kOk) << result.error;
  EXPECT_EQ(result.attempts, 2);
}

TEST(FaultFetchTest, TooManyRequestsForeverFailsNamingTheStatus) {
  FaultServer server;
  server.Script("/p/", {FaultResponse::TooManyRequests(0)});
  const FetchResult result = FetchOne(QuickOptions(), Get(server.Url("/p/")));
  EXPECT_EQ(result.outcome, FetchOutcome::kFailed);
  EXPECT_EQ(result.attempts, 3);
  EXPECT_NE(result.error.find("HTTP 429"), std::string::npos) << result.error;
}

TEST(FaultFetchTest, HangPastTheTotalTimeoutFails) {
  FaultServer server;
  server.Script("/p/", {FaultResponse::Hang()});
  FetchOptions options = QuickOptions();
  options.total_timeout_s = 0.5;
  options.max_attempts = 2;
  const std::string url = server.Url("/p/");
  const FetchResult result = FetchOne(options, Get(url));
  EXPECT_EQ(result.outcome, FetchOutcome::kFailed);
  EXPECT_EQ(result.status, 0);
  EXPECT_EQ(result.attempts, 2);
  EXPECT_NE(result.error.find("timed out"), std::string::npos) << result.error;
  EXPECT_NE(result.error.find(url), std::string::npos) << result.error;
  EXPECT_EQ(server.RequestsFor("/p/").size(), 2u);
}

TEST(FaultFetchTest, TruncatedBodyIsRetriedThenFails) {
  FaultServer server;
  server.Script("/p/", {FaultResponse::Truncated(std::string(10000, 'a'), 1000)});
  const std::string url = server.Url("/p/");
  const FetchResult result = FetchOne(QuickOptions(), Get(url));
  EXPECT_EQ(result.outcome, FetchOutcome::kFailed);
  EXPECT_EQ(result.attempts, 3);
  EXPECT_TRUE(result.body.empty());
  EXPECT_NE(result.error.find("truncated"), std::string::npos) << result.error;
  EXPECT_NE(result.error.find(url), std::string::npos) << result.error;
  EXPECT_EQ(server.RequestsFor("/p/").size(), 3u);
}

TEST(FaultFetchTest, TruncatedBodyThenCompleteOneSucceeds) {
  FaultServer server;
  const std::string page(10000, 'b');
  server.Script("/p/", {FaultResponse::Truncated(page, 5000), FaultResponse::Ok(page)});
  const FetchResult result = FetchOne(QuickOptions(), Get(server.Url("/p/")));
  EXPECT_EQ(result.outcome, FetchOutcome::kOk) << result.error;
  EXPECT_EQ(result.attempts, 2);
  EXPECT_EQ(result.body, page);  // not the first attempt's half appended to the second
}

TEST(FaultFetchTest, RedirectLoopFails) {
  FaultServer server;
  server.Script("/a/", {FaultResponse::Redirect("/b/")});
  server.Script("/b/", {FaultResponse::Redirect("/a/")});
  FetchOptions options = QuickOptions();
  options.max_redirects = 5;
  const std::string url = server.Url("/a/");
  const FetchResult result = FetchOne(options, Get(url));
  EXPECT_EQ(result.outcome, FetchOutcome::kFailed);
  EXPECT_EQ(result.attempts, 1);
  EXPECT_NE(result.error.find("redirect"), std::string::npos) << result.error;
  EXPECT_NE(result.error.find(url), std::string::npos) << result.error;
  EXPECT_EQ(server.Requests().size(), 6u);  // the first request and 5 redirects
}

TEST(FaultFetchTest, RedirectIsFollowed) {
  FaultServer server;
  server.Script("/old/", {FaultResponse::Redirect("/new/", 301)});
  server.Script("/new/", {FaultResponse::Ok("moved here")});
  const FetchResult result = FetchOne(QuickOptions(), Get(server.Url("/old/")));
  EXPECT_EQ(result.outcome, FetchOutcome::kOk) << result.error;
  EXPECT_EQ(result.body, "moved here");
  EXPECT_EQ(result.effective_url, server.Url("/new/"));
  EXPECT_EQ(result.redirects, std::vector<std::string>{server.Url("/new/")});
}

// Issue 13 item 21: each hop is put to check_redirect before it is asked, not only the last.
TEST(FaultFetchTest, EveryRedirectHopIsCheckedBeforeItIsAsked) {
  FaultServer server;
  server.Script("/a/", {FaultResponse::Redirect("/b/")});
  server.Script("/b/", {FaultResponse::Redirect(server.Url("/c/"), 307)});
  server.Script("/c/", {FaultResponse::Redirect("/d/", 308)});
  server.Script("/d/", {FaultResponse::Ok("the end")});
  std::vector<std::pair<std::string, std::string>> hops;
  FetchOptions options = QuickOptions();
  options.check_redirect = [&](std::string_view from, std::string_view to) {
    hops.emplace_back(from, to);
    return std::optional<std::string>();
  };
  FetchResult result = FetchOne(options, Get(server.Url("/a/")));
  EXPECT_EQ(result.outcome, FetchOutcome::kOk) << result.error;
  EXPECT_EQ(result.body, "the end");
  const std::vector<std::pair<std::string, std::string>> expected = {
      {server.Url("/a/"), server.Url("/b/")},
      {server.Url("/b/"), server.Url("/c/")},
      {server.Url("/c/"), server.Url("/d/")}};
  EXPECT_EQ(hops, expected);
  EXPECT_EQ(result.redirects,
            (std::vector<std::string>{server.Url("/b/"), server.Url("/c/"), server.Url("/d/")}));

  // Refusing the middle hop: the result fails, is not retried, and /c/ is never asked again.
  const std::size_t asked = server.RequestsFor("/c/").size();
  options.check_redirect = [&](std::string_view, std::string_view to) {
    return to.ends_with("/c/") ? std::optional<std::string>("not this one") : std::nullopt;
  };
  result = FetchOne(options, Get(server.Url("/a/")));
  EXPECT_EQ(result.outcome, FetchOutcome::kFailed);
  EXPECT_EQ(result.attempts, 1);
  EXPECT_NE(result.error.find("redirect to " + server.Url("/c/") + " refused: not this one"),
            std::string::npos)
      << result.error;
  EXPECT_EQ(server.RequestsFor("/c/").size(), asked);
}

TEST(FaultFetchTest, ARedirectToAnotherSchemeIsRefused) {
  FaultServer server;
  server.Script("/a/", {FaultResponse::Redirect("file:///etc/passwd")});
  const FetchResult result = FetchOne(QuickOptions(), Get(server.Url("/a/")));
  EXPECT_EQ(result.outcome, FetchOutcome::kFailed);
  EXPECT_NE(result.error.find("redirect to file:///etc/passwd refused: not http or https"),
            std::string::npos)
      << result.error;
}

TEST(FaultFetchTest, GarbageInsteadOfHttpFails) {
  FaultServer server;
  static constexpr char kGarbage[] = "\x16\x03\x01\x02\x00garbage\0\xff\r\n\r\nmore junk";
  server.Script("/p/", {FaultResponse::Garbage(std::string(kGarbage, sizeof kGarbage - 1))});
  const std::string url = server.Url("/p/");
  const FetchResult result = FetchOne(QuickOptions(), Get(url));
  EXPECT_EQ(result.outcome, FetchOutcome::kFailed);
  EXPECT_TRUE(result.body.empty());
  EXPECT_NE(result.error.find(url), std::string::npos) << result.error;
}

TEST(FaultFetchTest, ForbiddenIsAbsentWithoutRetry) {
  FaultServer server;
  server.Script(
      "/s3/", {FaultResponse::Status(403, ReadFile(kFixtures / "errors/s3-403-accessdenied.xml"))});
  server.Script("/gone/", {FaultResponse::Status(410)});
  const std::vector<FetchResult> results =
      FetchAll(QuickOptions(), {Get(server.Url("/s3/")), Get(server.Url("/gone/"))});
  ASSERT_EQ(results.size(), 2u);
  for (const FetchResult& result : results) {
    EXPECT_EQ(result.outcome, FetchOutcome::kAbsent) << result.request.url;
    EXPECT_EQ(result.attempts, 1);
    EXPECT_TRUE(result.body.empty());
    EXPECT_NE(result.error.find(result.request.url), std::string::npos) << result.error;
  }
  EXPECT_EQ(server.RequestsFor("/s3/").size(), 1u);
  EXPECT_EQ(server.RequestsFor("/gone/").size(), 1u);
}

TEST(FaultFetchTest, ClientErrorIsFailedWithoutRetry) {
  FaultServer server;
  server.Script("/p/", {FaultResponse::Status(400)});
  const FetchResult result = FetchOne(QuickOptions(), Get(server.Url("/p/")));
  EXPECT_EQ(result.outcome, FetchOutcome::kFailed);
  EXPECT_EQ(result.status, 400);
  EXPECT_EQ(result.attempts, 1);
  EXPECT_NE(result.error.find("HTTP 400"), std::string::npos) << result.error;
}

TEST(FaultFetchTest, OversizedPageIsRefusedAtItsContentLength) {
  FaultServer server;
  server.Script("/big/", {FaultResponse::Generated(100'000'000, /*announce_length=*/true)});
  FetchOptions options = QuickOptions();
  options.max_body_bytes = 64ull << 20;
  const std::string url = server.Url("/big/");
  ResetPeakRss();
  const std::uint64_t before = RssBytes();
  const FetchResult result = FetchOne(options, Get(url));
  const std::uint64_t growth = PeakRssBytes() - std::min(PeakRssBytes(), before);
  EXPECT_EQ(result.outcome, FetchOutcome::kFailed);
  EXPECT_EQ(result.attempts, 1);  // not retried: the page will not shrink
  EXPECT_TRUE(result.body.empty());
  EXPECT_NE(result.error.find("larger than 67108864 bytes"), std::string::npos) << result.error;
  EXPECT_NE(result.error.find(url), std::string::npos) << result.error;
  if (kMeasuresMemory) {
    EXPECT_LT(growth, 16ull << 20) << "peak RSS grew by " << growth;
  }
}

TEST(FaultFetchTest, OversizedStreamedPageFailsWithinTheLimit) {
  FaultServer server;
  // No Content-Length: the limit can only be enforced while the body arrives.
  server.Script("/big/", {FaultResponse::Generated(100'000'000, /*announce_length=*/false)});
  FetchOptions options = QuickOptions();
  options.max_body_bytes = 64ull << 20;
  MakeCurlFetcher(options);  // libcurl is loaded on first use: not part of what is measured
  ResetPeakRss();
  const std::uint64_t before = RssBytes();
  const FetchResult result = FetchOne(options, Get(server.Url("/big/")));
  const std::uint64_t growth = PeakRssBytes() - std::min(PeakRssBytes(), before);
  EXPECT_EQ(result.outcome, FetchOutcome::kFailed);
  EXPECT_EQ(result.attempts, 1);
  EXPECT_TRUE(result.body.empty());
  EXPECT_NE(result.error.find("larger than 67108864 bytes"), std::string::npos) << result.error;
  // At most the limit itself and a little more: 100 MB were never held, nor two copies.
  if (kMeasuresMemory) {
    EXPECT_LT(growth, (64ull << 20) + (8ull << 20)) << "peak RSS grew by " << growth;
  }
}

TEST(FaultFetchTest, BodyAtTheLimitIsAccepted) {
  FaultServer server;
  server.Script("/p/", {FaultResponse::Generated(4096, /*announce_length=*/false)});
  server.Script("/q/", {FaultResponse::Generated(4097, /*announce_length=*/false)});
  FetchOptions options = QuickOptions();
  options.max_body_bytes = 4096;
  const std::vector<FetchResult> results =
      FetchAll(options, {Get(server.Url("/p/")), Get(server.Url("/q/"))});
  ASSERT_EQ(results.size(), 2u);
  for (const FetchResult& result : results) {
    if (result.request.url == server.Url("/p/")) {
      EXPECT_EQ(result.outcome, FetchOutcome::kOk) << result.error;
      EXPECT_EQ(result.body.size(), 4096u);
    } else {
      EXPECT_EQ(result.outcome, FetchOutcome::kFailed);
      EXPECT_NE(result.error.find("larger than 4096 bytes"), std::string::npos) << result.error;
    }
  }
}

TEST(FaultFetchTest, RequestsQueuedByTheCallbackAreFetched) {
  FaultServer server;
  for (const char* path : {"/a/", "/b/", "/c/", "/d/"}) {
    server.Script(path, {FaultResponse::Ok(std::string("page ") + path)});
  }
  std::map<std::string, std::string> bodies;
  std::map<std::string, std::uint64_t> cookies;
  MakeCurlFetcher(QuickOptions())->Run({Get(server.Url("/a/"))}, [&](FetchResult&& result) {
    bodies[result.request.url] = result.body;
    cookies[result.request.url] = result.request.cookie;
    std::vector<FetchRequest> next;
    if (result.request.url == server.Url("/a/")) {
      next.push_back(Get(server.Url("/b/")));
      next.push_back(Get(server.Url("/c/")));
      next.back().cookie = 42;
    } else if (result.request.url == server.Url("/c/")) {
      next.push_back(Get(server.Url("/d/")));
    }
    return next;
  });
  ASSERT_EQ(bodies.size(), 4u);
  EXPECT_EQ(bodies[server.Url("/d/")], "page /d/");
  EXPECT_EQ(cookies[server.Url("/c/")], 42u);
  EXPECT_EQ(server.Requests().size(), 4u);
}

TEST(FaultFetchTest, SendsUserAgentAcceptEncodingAndValidators) {
  FaultServer server;
  server.Script("/p/", {FaultResponse::Status(304)});
  FetchRequest request = Get(server.Url("/p/"));
  request.etag = "\"abc123\"";
  request.last_modified = "Sun, 15 Mar 2026 10:00:00 GMT";
  const FetchResult result = FetchOne(QuickOptions(), request);
  EXPECT_EQ(result.outcome, FetchOutcome::kNotModified) << result.error;
  const auto requests = server.RequestsFor("/p/");
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].Header("user-agent").rfind("torchdex/", 0), 0u)
      << requests[0].Header("user-agent");
  EXPECT_NE(requests[0].Header("accept-encoding").find("gzip"), std::string::npos);
  EXPECT_EQ(requests[0].Header("if-none-match"), "\"abc123\"");
  EXPECT_EQ(requests[0].Header("if-modified-since"), "Sun, 15 Mar 2026 10:00:00 GMT");

  FetchOptions custom = QuickOptions();
  custom.user_agent = "mirror-check/1.0";
  FetchOne(custom, Get(server.Url("/p/")));
  EXPECT_EQ(server.RequestsFor("/p/").back().Header("user-agent"), "mirror-check/1.0");
  EXPECT_EQ(server.RequestsFor("/p/").back().Header("if-none-match"), "");
}

// A handle given back keeps the options every request shares (the fetcher sets them once a
// handle), never the previous request's own: one transfer at a time, so each request after the
// first reuses the first one's handle.
TEST(FaultFetchTest, AReusedHandleSendsOnlyItsOwnRequestsValidators) {
  FaultServer server;
  for (const char* path : {"/a/", "/b/", "/c/"}) server.Script(path, {FaultResponse::Ok("page")});
  FetchOptions options = QuickOptions();
  options.parallelism = 1;
  options.user_agent = "mirror-check/1.0";
  FetchRequest first = Get(server.Url("/a/"));
  first.etag = "\"first\"";
  first.last_modified = "Sun, 15 Mar 2026 10:00:00 GMT";
  int done = 0;
  MakeCurlFetcher(options)->Run({first}, [&](FetchResult&& result) {
    EXPECT_EQ(result.outcome, FetchOutcome::kOk) << result.error;
    std::vector<FetchRequest> next;
    if (++done == 1) {
      next.push_back(Get(server.Url("/b/")));  // no validators
    } else if (done == 2) {
      next.push_back(Get(server.Url("/c/")));
      next.back().etag = "\"third\"";
    }
    return next;
  });
  ASSERT_EQ(done, 3);
  const auto a = server.RequestsFor("/a/");
  const auto b = server.RequestsFor("/b/");
  const auto c = server.RequestsFor("/c/");
  ASSERT_EQ(a.size(), 1u);
  ASSERT_EQ(b.size(), 1u);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(a[0].Header("if-none-match"), "\"first\"");
  EXPECT_EQ(b[0].Header("if-none-match"), "");
  EXPECT_EQ(b[0].Header("if-modified-since"), "");
  EXPECT_EQ(c[0].Header("if-none-match"), "\"third\"");
  EXPECT_EQ(c[0].Header("if-modified-since"), "");
  for (const auto* requests : {&a, &b, &c}) {
    EXPECT_EQ((*requests)[0].Header("user-agent"), "mirror-check/1.0");
    EXPECT_NE((*requests)[0].Header("accept-encoding").find("gzip"), std::string::npos);
  }
}

TEST(FaultFetchTest, ParallelismBoundsTransfersInFlight) {
  FaultServer server;
  std::vector<FetchRequest> requests;
  for (int i = 0; i < 8; ++i) {
    const std::string path = "/slow" + std::to_string(i) + "/";
    FaultResponse slow = FaultResponse::Ok("slow");
    slow.delay_s = 0.15;
    server.Script(path, {slow});
    requests.push_back(Get(server.Url(path)));
  }
  FetchOptions options = QuickOptions();
  options.parallelism = 3;
  const std::vector<FetchResult> results = FetchAll(options, requests);
  ASSERT_EQ(results.size(), 8u);
  for (const FetchResult& result : results) EXPECT_EQ(result.outcome, FetchOutcome::kOk);
  EXPECT_LE(server.MaxConcurrent(), 3);
  EXPECT_GE(server.MaxConcurrent(), 2);  // and it did run them side by side
}

TEST(FaultFetchTest, RefusedConnectionIsRetriedThenFails) {
  int port = 0;
  {
    FaultServer closed;  // a port that nothing listens on once it is gone
    port = closed.port();
  }
  const std::string url = "http://127.0.0.1:" + std::to_string(port) + "/p/";
  FetchOptions options = QuickOptions();
  options.max_attempts = 2;
  const FetchResult result = FetchOne(options, Get(url));
  EXPECT_EQ(result.outcome, FetchOutcome::kFailed);
  EXPECT_EQ(result.status, 0);
  EXPECT_EQ(result.attempts, 2);
  EXPECT_NE(result.error.find(url), std::string::npos) << result.error;
}

}  // namespace
}  // namespace torchdex::index
