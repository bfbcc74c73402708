// The routing index (installer/install/routing_index.h) over an in-memory fetcher: which
// names go where, how pages are written again, what is refused; then served on loopback.
// tests/installer/e2e/ runs it under real pip and uv.
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "index/fetcher.h"
#include "index/page.h"
#include "installer/install/routing_index.h"
#include "installer/platform/loopback_server.h"
#include "tests/installer/loopback_client.h"

namespace torchdex::installer {
namespace {

using testing::Connect;
using ::testing::ElementsAre;
using testing::Fetch;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using testing::Raw;

constexpr const char* kBackend = "https://download.pytorch.org/whl/cu124/";
constexpr const char* kDefault = "https://pypi.example/simple/";

// Pages by URL; every URL asked is recorded. Thread-safe: the server asks from its threads.
class PageFetcher final : public index::Fetcher {
 public:
  void Serve(const std::string& url, std::string body, std::string effective_url = "") {
    index::FetchResult result;
    result.outcome = index::FetchOutcome::kOk;
    result.status = 200;
    result.body = std::move(body);
    result.content_type = "text/html";
    result.effective_url = effective_url.empty() ? url : effective_url;
    std::lock_guard<std::mutex> lock(mutex_);
    pages_[url] = std::move(result);
  }
  void Fail(const std::string& url, index::FetchOutcome outcome, long status, std::string error) {
    index::FetchResult result;
    result.outcome = outcome;
    result.status = status;
    result.error = std::move(error);
    std::lock_guard<std::mutex> lock(mutex_);
    pages_[url] = std::move(result);
  }
  index::FetchResult Get(const std::string& url) {
    std::lock_guard<std::mutex> lock(mutex_);
    requested_.push_back(url);
    index::FetchResult result;
    if (auto it = pages_.find(url); it != pages_.end()) {
      result = it->second;
    } else {
      result.outcome = index::FetchOutcome::kAbsent;
      result.status = 404;
    }
    result.request.url = url;
    return result;
  }
  void Run(std::vector<index::FetchRequest> initial, const OnResult& on_result,
           const OnProgress& /*on_progress*/) override {
    for (index::FetchRequest& request : initial) on_result(Get(request.url));
  }
  std::vector<std::string> Requested() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return requested_;
  }

 private:
  mutable std::mutex mutex_;
  std::map<std::string, index::FetchResult> pages_;
  std::vector<std::string> requested_;
};

std::string Anchor(const std::string& href, const std::string& text,
                   const std::string& attributes = "") {
  return "<a href=\"" + href + "\"" + attributes + ">" + text + "</a><br/>\n";
}

std::string Html(const std::string& anchors) {
  return "<!DOCTYPE html>\n<html><body>\n" + anchors + "</body></html>\n";
}

RoutingIndexConfig Config() {
  RoutingIndexConfig config;
  config.routed_projects = {"torch", "torchvision", "triton"};
  config.backend = "cu124";
  config.backend_index_url = kBackend;
  config.default_index_url = kDefault;
  return config;
}

class RoutingIndexTest : public ::testing::Test {
 protected:
  RoutingIndexTest() {
    // The backend's torch page as download.pytorch.org writes it: root-relative hrefs.
    fetcher_.Serve(
        std::string(kBackend) + "torch/",
        Html(Anchor("/whl/cu124/torch-2.6.0%2Bcu124-cp312-cp312-linux_x86_64.whl#sha256=" +
                        std::string(64, 'a'),
                    "torch-2.6.0+cu124-cp312-cp312-linux_x86_64.whl",
                    " data-requires-python=\"&gt;=3.9.0\""
                    " data-core-metadata=\"sha256=" +
                        std::string(64, 'b') + "\"")));
    // The default index has torch too (the bait), and needs-torch.
    fetcher_.Serve(
        std::string(kDefault) + "torch/",
        Html(Anchor("/files/torch-9.9.9-py3-none-any.whl", "torch-9.9.9-py3-none-any.whl")));
    fetcher_.Serve(
        std::string(kDefault) + "needs-torch/",
        Html(Anchor("../../files/needs_torch-1.0-py3-none-any.whl#sha256=" + std::string(64, 'c'),
                    "needs_torch-1.0-py3-none-any.whl", " data-yanked=\"\"") +
             Anchor("needs-torch-1.0.tar.gz", "needs-torch-1.0.tar.gz")));
  }

  HttpResponse Get(const std::string& target) { return index_.Answer(HttpRequest{"GET", target}); }

  // The page as pip would read it.
  static index::IndexPage Parse(const HttpResponse& response) {
    auto page = index::ParsePage(response.body, response.content_type, "http://127.0.0.1:1/x/");
    EXPECT_TRUE(page.ok()) << response.body;
    return page.ok() ? *page : index::IndexPage{};
  }

  PageFetcher fetcher_;
  RoutingIndex index_{Config(), [this](const std::string& url) { return fetcher_.Get(url); }};
};

TEST_F(RoutingIndexTest, ARoutedNameIsAnsweredFromTheBackendWithAbsoluteLinksAndHashes) {
  const HttpResponse response = Get("/simple/torch/");
  ASSERT_EQ(response.status, 200) << response.body;
  EXPECT_THAT(response.content_type, HasSubstr("text/html"));
  const index::IndexPage page = Parse(response);
  ASSERT_EQ(page.anchors.size(), 1u) << response.body;
  const index::Anchor& anchor = page.anchors[0];
  EXPECT_EQ(
      anchor.url,
      "https://download.pytorch.org/whl/cu124/torch-2.6.0%2Bcu124-cp312-cp312-linux_x86_64.whl");
  EXPECT_EQ(anchor.sha256, std::string(64, 'a'));
  EXPECT_EQ(anchor.requires_python, ">=3.9.0");
  EXPECT_TRUE(anchor.has_metadata);
  EXPECT_EQ(anchor.metadata_sha256, std::string(64, 'b'));
  EXPECT_EQ(anchor.text, "torch-2.6.0+cu124-cp312-cp312-linux_x86_64.whl");
  // The default index, which has a higher torch, was never asked.
  EXPECT_THAT(fetcher_.Requested(), ElementsAre(std::string(kBackend) + "torch/"));
}

TEST_F(RoutingIndexTest, EverySpellingOfARoutedNameIsRoutedAndNothingElseReachesTheDefaultIndex) {
  for (const char* target : {"/simple/torch", "/simple/Torch/", "/simple/TORCH/",
                             "/simple/tor%63h/", "/simple/torch/?format=json"}) {
    const HttpResponse response = Get(target);
    EXPECT_EQ(response.status, 200) << target << ": " << response.body;
  }
  // Not project names (a '%' left, dots, a path below the project): refused without a read.
  for (const char* target : {"/simple/", "/simple/%2e%2e/", "/simple/torch/x/", "/simple/to%rch/",
                             "/simple/-torch/", "/whl/cu124/torch/", "/"}) {
    const HttpResponse response = Get(target);
    EXPECT_EQ(response.status, 404) << target << ": " << response.body;
  }
  for (const std::string& url : fetcher_.Requested()) {
    EXPECT_EQ(url, std::string(kBackend) + "torch/");
  }
  EXPECT_EQ(fetcher_.Requested().size(), 5u);
}

TEST_F(RoutingIndexTest, ARoutedNameTheBackendLacksIsNotFoundAndNeverAskedOfTheDefaultIndex) {
  fetcher_.Serve(
      std::string(kDefault) + "triton/",
      Html(Anchor("/files/triton-9.9.9-py3-none-any.whl", "triton-9.9.9-py3-none-any.whl")));
  fetcher_.Fail(std::string(kBackend) + "triton/", index::FetchOutcome::kAbsent, 403,
                "AccessDenied");
  const HttpResponse response = Get("/simple/triton/");
  EXPECT_EQ(response.status, 404);
  EXPECT_THAT(response.body, HasSubstr("backend cu124 has no page for the routed project triton (" +
                                       std::string(kBackend) + "triton/ answered 403)"));
  EXPECT_THAT(response.body, HasSubstr("never looked up on the default index"));
  EXPECT_THAT(fetcher_.Requested(), ElementsAre(std::string(kBackend) + "triton/"));
  // A backend that cannot be read is a 502 (pip retries, then fails), not a fallback either.
  fetcher_.Fail(std::string(kBackend) + "triton/", index::FetchOutcome::kFailed, 0,
                "GET " + std::string(kBackend) + "triton/: Couldn't connect to server");
  EXPECT_EQ(Get("/simple/triton/").status, 502);
  EXPECT_THAT(index_.Summary(),
              HasSubstr("routed, not on backend cu124 and so not served: triton (502)"));
  for (const std::string& url : fetcher_.Requested()) EXPECT_THAT(url, Not(HasSubstr(kDefault)));
}

TEST_F(RoutingIndexTest, ANameThePlanPinnedIsAnsweredWithExactlyThePlannedWheel) {
  RoutingIndexConfig config = Config();
  PlannedWheel wheel;
  wheel.name = "torch";
  wheel.version = "2.5.1+cu124";
  wheel.filename = "torch-2.5.1+cu124-cp312-cp312-linux_x86_64.whl";
  wheel.url = std::string(kBackend) + "torch-2.5.1%2Bcu124-cp312-cp312-linux_x86_64.whl";
  wheel.sha256 = std::string(64, 'd');
  config.pinned = {wheel};
  RoutingIndex pinned(config, [this](const std::string& url) { return fetcher_.Get(url); });
  const HttpResponse response = pinned.Answer({"GET", "/simple/torch/"});
  ASSERT_EQ(response.status, 200);
  const index::IndexPage page = Parse(response);
  ASSERT_EQ(page.anchors.size(), 1u);
  EXPECT_EQ(page.anchors[0].url, wheel.url);
  EXPECT_EQ(page.anchors[0].sha256, wheel.sha256);
  EXPECT_THAT(fetcher_.Requested(), IsEmpty());
  EXPECT_EQ(pinned.Answers()[0].source, RoutedAnswer::Source::kPinned);
}

TEST_F(RoutingIndexTest, OtherNamesAreRelayedFromTheDefaultIndexWithAbsoluteLinks) {
  const HttpResponse response = Get("/simple/Needs_Torch/");
  ASSERT_EQ(response.status, 200) << response.body;
  const index::IndexPage page = Parse(response);
  ASSERT_EQ(page.anchors.size(), 2u) << response.body;
  EXPECT_EQ(page.anchors[0].url, "https://pypi.example/files/needs_torch-1.0-py3-none-any.whl");
  EXPECT_EQ(page.anchors[0].sha256, std::string(64, 'c'));
  ASSERT_TRUE(page.anchors[0].yanked.has_value());
  EXPECT_EQ(*page.anchors[0].yanked, "");
  EXPECT_FALSE(page.anchors[0].has_metadata);
  EXPECT_EQ(page.anchors[1].url, "https://pypi.example/simple/needs-torch/needs-torch-1.0.tar.gz");
  EXPECT_THAT(fetcher_.Requested(), ElementsAre(std::string(kDefault) + "needs-torch/"));
  EXPECT_EQ(Get("/simple/not-there/").status, 404);
  // A private default index: its credentials reach the fetcher, never a message.
  RoutingIndexConfig config = Config();
  config.default_index_url = "https://user:secret@pypi.example/simple/";
  RoutingIndex private_index(config, [this](const std::string& url) { return fetcher_.Get(url); });
  const HttpResponse missing = private_index.Answer({"GET", "/simple/absent/"});
  EXPECT_EQ(missing.status, 404);
  EXPECT_THAT(missing.body, Not(HasSubstr("secret")));
  EXPECT_EQ(fetcher_.Requested().back(), "https://user:secret@pypi.example/simple/absent/");
  EXPECT_EQ(index_.Summary(),
            "routing index: needs-torch from the default index (" + std::string(kDefault) + ")\n");
}

TEST_F(RoutingIndexTest, APageListsOnlyItsOwnProjectsFilesAndOnlyOverHttps) {
  // A default-index page that carries a torch wheel, and links over plain HTTP.
  fetcher_.Serve(
      std::string(kDefault) + "evil/",
      Html(Anchor("/files/torch-9.9.9-py3-none-any.whl", "torch-9.9.9-py3-none-any.whl") +
           Anchor("/files/torch-9.9.9.tar.gz", "torch-9.9.9.tar.gz") +
           Anchor("http://cdn.example/evil-1.0-py3-none-any.whl", "evil-1.0-py3-none-any.whl") +
           Anchor("http://127.0.0.1:9/evil-1.1-py3-none-any.whl", "evil-1.1-py3-none-any.whl") +
           Anchor("/files/evil-1.2.tar.gz", "evil-1.2.tar.gz")));
  const HttpResponse response = Get("/simple/evil/");
  ASSERT_EQ(response.status, 200);
  const index::IndexPage page = Parse(response);
  std::vector<std::string> urls;
  for (const index::Anchor& anchor : page.anchors) urls.push_back(anchor.url);
  EXPECT_THAT(urls, ElementsAre("http://127.0.0.1:9/evil-1.1-py3-none-any.whl",
                                "https://pypi.example/files/evil-1.2.tar.gz"));
  EXPECT_EQ(index_.Answers().back().dropped, 3);

  // A page that redirects to plain HTTP elsewhere is not relayed.
  fetcher_.Serve(std::string(kDefault) + "moved/", Html(""), "http://mirror.example/simple/moved/");
  const HttpResponse moved = Get("/simple/moved/");
  EXPECT_EQ(moved.status, 502);
  EXPECT_THAT(moved.body, HasSubstr("refusing plain HTTP: http://mirror.example/simple/moved/"));
}

TEST_F(RoutingIndexTest, OnAMirrorTheBackendsLinksStayOnTheMirror) {
  // The mirror's page links to the family's own host and to another one, as mirrors that copy
  // download.pytorch.org's pages do.
  const std::string mirror = "https://mirror.example/pytorch/whl/";
  RoutingIndexConfig config = Config();
  config.backend_index_url = mirror + "cu124/";
  config.mirror = {mirror, "https://download.pytorch.org/whl/", {"download.pytorch.org"}, {}};
  fetcher_.Serve(mirror + "cu124/torch/",
                 Html(Anchor("https://download.pytorch.org/whl/cu124/torch-2.6.0%2Bcu124-py3-"
                             "none-any.whl#sha256=" +
                                 std::string(64, 'e'),
                             "torch-2.6.0+cu124-py3-none-any.whl") +
                      Anchor("https://cdn.example/torch-2.5.1%2Bcu124-py3-none-any.whl",
                             "torch-2.5.1+cu124-py3-none-any.whl")));
  RoutingIndex mirrored(config, [this](const std::string& url) { return fetcher_.Get(url); });
  const HttpResponse response = mirrored.Answer({"GET", "/simple/torch/"});
  ASSERT_EQ(response.status, 200) << response.body;
  const index::IndexPage page = Parse(response);
  ASSERT_EQ(page.anchors.size(), 1u) << response.body;
  EXPECT_EQ(page.anchors[0].url,
            "https://mirror.example/pytorch/whl/cu124/torch-2.6.0%2Bcu124-py3-none-any.whl");
  EXPECT_EQ(page.anchors[0].sha256, std::string(64, 'e'));
  EXPECT_EQ(mirrored.Answers().back().dropped, 1);
}

TEST(RoutingIndexConfigTest, ThePlansDefaultIndexWinsAndPinnedNamesAreRouted) {
  InstallPlan plan;
  plan.backend = "cpu";
  plan.backend_index_url = "https://download.pytorch.org/whl/cpu";
  PlannedWheel wheel;
  wheel.name = "torch";
  plan.routed = {wheel};
  RoutingIndexConfig config = RoutingConfigFor(plan, {"Triton"}, std::string(kPypiSimpleUrl));
  EXPECT_EQ(config.backend_index_url, "https://download.pytorch.org/whl/cpu/");
  EXPECT_EQ(config.default_index_url, kPypiSimpleUrl);
  EXPECT_EQ(config.routed_projects, (std::set<std::string>{"torch", "triton"}));
  plan.default_index_url = "https://mirror.example/simple";
  EXPECT_EQ(RoutingConfigFor(plan, {}, std::string(kPypiSimpleUrl)).default_index_url,
            "https://mirror.example/simple/");
  EXPECT_THAT(DescribeRoutingIndex(config, kRoutingIndexPlaceholderUrl),
              HasSubstr("routing index: http://127.0.0.1:<port>/<token>/simple/ (the installer's only "
                        "index, this run only)\n  routed names, from backend cpu "
                        "(https://download.pytorch.org/whl/cpu/) only: torch, triton\n"
                        "  every other name, from the default index: https://pypi.org/simple/\n"));
}

TEST_F(RoutingIndexTest, PagesCarryNoCredentialsTheChildsNetrcGives) {
  // A private mirror of the backend and a private default index (issue 29, item 9): the pages
  // link without user:password, and the child's netrc holds them.
  PageFetcher fetcher;
  const std::string backend = "https://user:s3cret@mirror.example/whl/cu124/";
  fetcher.Serve(backend + "torch/", Html(Anchor("torch-2.6.0%2Bcu124-py3-none-any.whl#sha256=" + std::string(64, 'a'),
                                                "torch-2.6.0+cu124-py3-none-any.whl")));
  fetcher.Serve("https://ci:t%40ken@pypi.example/simple/needs-torch/",
                Html(Anchor("needs_torch-1.0-py3-none-any.whl", "needs_torch-1.0-py3-none-any.whl") +
                     Anchor("https://other:pw@elsewhere.example/needs_torch-1.0.tar.gz", "needs_torch-1.0.tar.gz")));
  InstallPlan plan;
  plan.backend = "cu124";
  plan.backend_index_url = backend;
  RoutingIndexConfig config = RoutingConfigFor(plan, {"torch"}, "https://ci:t%40ken@pypi.example/simple/");
  RoutingIndex index(config, [&](const std::string& url) { return fetcher.Get(url); });
  const HttpResponse torch = index.Answer({"GET", "/simple/torch/"});
  ASSERT_EQ(torch.status, 200) << torch.body;
  EXPECT_THAT(torch.body, HasSubstr("href=\"https://mirror.example/whl/cu124/torch/torch-2.6.0%2Bcu124"));
  EXPECT_THAT(torch.body, Not(HasSubstr("s3cret")));
  const HttpResponse needs = index.Answer({"GET", "/simple/needs-torch/"});
  EXPECT_THAT(needs.body, HasSubstr("href=\"https://pypi.example/simple/needs-torch/needs_torch-1.0-py3-none-any.whl"));
  EXPECT_THAT(needs.body, Not(HasSubstr("t%40ken")));
  // A host this run has no credentials for keeps what its page said.
  EXPECT_THAT(needs.body, HasSubstr("https://other:pw@elsewhere.example/"));
  // What was served is recognised with or without the credentials.
  const std::string file = "mirror.example/whl/cu124/torch/torch-2.6.0%2Bcu124-py3-none-any.whl";
  EXPECT_TRUE(index.ServedRouted("torch", "https://" + file, std::string(64, 'a')));
  EXPECT_TRUE(index.ServedRouted("torch", "https://user:s3cret@" + file, std::string(64, 'a')));
  EXPECT_EQ(config.credentials.Netrc(""),
            "machine mirror.example login user password s3cret\nmachine pypi.example login ci password t@ken\n");
}

TEST(RoutingIndexServerTest, ServesThroughTheFetcherItIsGivenAndStopsWithItsPort) {
  PageFetcher fetcher;
  fetcher.Serve(
      std::string(kBackend) + "torch/",
      Html(Anchor("torch-2.6.0%2Bcu124-py3-none-any.whl", "torch-2.6.0+cu124-py3-none-any.whl")));
  RoutingIndexConfig config = Config();
  config.trusted_hosts = {};
  auto server = RoutingIndexServer::Start(config, &fetcher, RoutingFetchOptions());
  ASSERT_TRUE(server.ok()) << server.error().message;
  const std::string url = (*server)->url();
  const std::string origin = "http://127.0.0.1:" + std::to_string((*server)->port());
  // Under a path of 32 hex digits, new each run (issue 29, item 9).
  ASSERT_EQ(url.size(), origin.size() + 1 + 32 + 8) << url;
  EXPECT_EQ(url.substr(0, origin.size() + 1), origin + "/");
  EXPECT_EQ(url.substr(url.size() - 8), "/simple/");
  const std::string token = url.substr(origin.size() + 1, 32);
  EXPECT_EQ(token.find_first_not_of("0123456789abcdef"), std::string::npos) << token;
  EXPECT_EQ((*server)->DisplayUrl(), origin + "/<token>/simple/");
  EXPECT_THAT(Fetch(url + "torch/"),
              HasSubstr("href=\"https://download.pytorch.org/whl/cu124/torch/"
                        "torch-2.6.0%2Bcu124-py3-none-any.whl\""));
  const int port = (*server)->port();
  const std::string missing =
      Raw(port, "GET /" + token + "/simple/triton/ HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_THAT(missing, HasSubstr("HTTP/1.1 404 Not Found\r\n"));
  EXPECT_THAT(missing, HasSubstr("never looked up on the default index"));
  // Without the token, or with a wrong one, nothing is read: a local process that cannot read
  // the child's environment gets no page.
  const std::size_t asked = fetcher.Requested().size();
  std::string wrong = token;
  wrong[31] = wrong[31] == '0' ? '1' : '0';
  for (const std::string& target : {std::string("/simple/torch/"), "/" + wrong + "/simple/torch/", "/" + token + "simple/torch/",
                                    "/" + token.substr(0, 31) + "/simple/torch/", "/" + token}) {
    const std::string refused = Raw(port, "GET " + target + " HTTP/1.1\r\nHost: x\r\n\r\n");
    EXPECT_THAT(refused, HasSubstr("HTTP/1.1 404 Not Found\r\n")) << target;
    EXPECT_THAT(refused, HasSubstr("not this run's path")) << target;
  }
  EXPECT_EQ(fetcher.Requested().size(), asked);
  // A second server has another token.
  auto other = RoutingIndexServer::Start(config, &fetcher, RoutingFetchOptions());
  ASSERT_TRUE(other.ok());
  EXPECT_NE((*other)->url().substr((*other)->url().size() - 40), url.substr(url.size() - 40));
  server->reset();
  EXPECT_EQ(Connect(port), -1);

  // The HTTPS rule holds for the indexes it reads.
  config.default_index_url = "http://pypi.example/simple/";
  auto refused = RoutingIndexServer::Start(config, &fetcher, RoutingFetchOptions());
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.error().message, HasSubstr("default index: refusing plain HTTP"));
}

}  // namespace
}  // namespace torchdex::installer
