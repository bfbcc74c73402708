// The checks that hold the routing guarantee after a resolver has run (issue 29, items 3-5):
// pip's installation report against what the routing index served (install_report.h), and a uv
// project's uv.lock against the project's backend indexes (uv_lock.h). Real pip and uv runs of
// both are in tests/installer/e2e.
#include <memory>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "installer/install/install_report.h"
#include "installer/install/routing_index.h"
#include "installer/lock/uv_lock.h"

namespace torchdex::installer {
namespace {

using ::testing::HasSubstr;

constexpr const char* kBackend = "https://download.pytorch.org/whl/cu124/";
const std::string kTorchUrl = std::string(kBackend) + "torch-2.5.1%2Bcu124-cp312-cp312-linux_x86_64.whl";
const std::string kTorchSha = std::string(64, 'a');

// A routing index that has answered /simple/torch/ from the backend's page.
std::unique_ptr<RoutingIndex> ServedTorch() {
  RoutingIndexConfig config;
  config.routed_projects = {"torch", "triton"};
  config.backend = "cu124";
  config.backend_index_url = kBackend;
  config.default_index_url = "https://pypi.example/simple/";
  auto index = std::make_unique<RoutingIndex>(config, [](const std::string& url) {
    index::FetchResult result;
    result.request.url = url;
    if (url == std::string(kBackend) + "torch/") {
      result.outcome = index::FetchOutcome::kOk;
      result.status = 200;
      result.content_type = "text/html";
      result.effective_url = url;
      result.body = "<a href=\"/whl/cu124/torch-2.5.1%2Bcu124-cp312-cp312-linux_x86_64.whl#sha256=" + kTorchSha +
                    "\">torch-2.5.1+cu124-cp312-cp312-linux_x86_64.whl</a>";
    } else {
      result.outcome = index::FetchOutcome::kAbsent;
      result.status = 404;
    }
    return result;
  });
  EXPECT_EQ(index->Answer(HttpRequest{"GET", "/simple/torch/"}).status, 200);
  return index;
}

std::string Report(const std::string& torch_url, const std::string& torch_sha, bool direct) {
  return R"({"version": "1", "install": [
    {"metadata": {"name": "needs-needs-url-torch", "version": "1.0", "requires_dist": ["needs-url-torch"]},
     "requested": true, "is_direct": false,
     "download_info": {"url": "https://pypi.example/n.whl", "archive_info": {"hashes": {"sha256": "bb"}}}},
    {"metadata": {"name": "Needs_Url_Torch", "version": "1.0",
                  "requires_dist": ["torch @ file:///bait/torch-99.0.0-py3-none-any.whl", "filelock; extra == 'x'"]},
     "requested": false, "is_direct": false,
     "download_info": {"url": "https://pypi.example/u.whl", "archive_info": {"hash": "sha256=cc"}}},
    {"metadata": {"name": "torch", "version": "2.5.1+cu124"}, "requested": false, "is_direct": )" +
         std::string(direct ? "true" : "false") + R"(,
     "download_info": {"url": ")" + torch_url + R"(", "archive_info": {"hashes": {"sha256": ")" + torch_sha +
         R"("}}}}]})";
}

TEST(InstallReportTest, ARoutedPackageTheRoutingIndexServedPassesAndIsPinned) {
  const std::unique_ptr<RoutingIndex> served = ServedTorch();
  const RoutingIndex& index = *served;
  auto report = ParseInstallReport(Report(kTorchUrl, kTorchSha, false), "r.json");
  ASSERT_TRUE(report.ok()) << report.error().message;
  ASSERT_EQ(report->size(), 3u);
  EXPECT_EQ((*report)[1].name, "needs-url-torch");
  EXPECT_EQ((*report)[1].sha256, "cc");  // the older "hash" form
  EXPECT_TRUE(CheckReportRouting(*report, index).ok());
  const std::vector<PlannedWheel> pins = ReportedRoutedPins(*report, InstallPlan{}, index);
  ASSERT_EQ(pins.size(), 1u);
  EXPECT_EQ(pins[0].name, "torch");
  EXPECT_EQ(pins[0].hash, "sha256=" + kTorchSha);
  EXPECT_EQ(pins[0].required_by[0],
            "reached through needs-needs-url-torch 1.0 (asked) -> needs-url-torch 1.0 -> torch");
  // "+" and "%2B" name the same file.
  auto decoded = ParseInstallReport(Report(std::string(kBackend) + "torch-2.5.1+cu124-cp312-cp312-linux_x86_64.whl",
                                           kTorchSha, false), "r.json");
  ASSERT_TRUE(decoded.ok());
  EXPECT_TRUE(CheckReportRouting(*decoded, index).ok());
}

TEST(InstallReportTest, ARoutedPackageFromAnywhereElseIsRefusedWithItsChain) {
  const std::unique_ptr<RoutingIndex> served = ServedTorch();
  const RoutingIndex& index = *served;
  for (const auto& [url, sha] : std::vector<std::pair<std::string, std::string>>{
           {"file:///bait/torch-99.0.0-py3-none-any.whl", ""},
           {"https://pypi.example/torch-2.5.1+cu124-cp312-cp312-linux_x86_64.whl", kTorchSha},  // another host
           {kTorchUrl, std::string(64, 'b')}}) {                                                // another hash
    auto report = ParseInstallReport(Report(url, sha, true), "r.json");
    ASSERT_TRUE(report.ok()) << report.error().message;
    core::Status checked = CheckReportRouting(*report, index);
    ASSERT_FALSE(checked.ok()) << url;
    EXPECT_EQ(checked.error().code, core::ErrorCode::kNotOffered);
    EXPECT_THAT(checked.error().message, HasSubstr("pip would install the routed package torch 2.5.1+cu124 from " +
                                                   url + " (a direct URL), not a wheel of backend cu124"));
    EXPECT_THAT(checked.error().message,
                HasSubstr("asked for by needs-needs-url-torch 1.0 (asked) -> needs-url-torch 1.0 -> torch."));
    EXPECT_TRUE(ReportedRoutedPins(*report, InstallPlan{}, index).empty());
  }
}

TEST(InstallReportTest, AReportThatIsNotOneIsALocatedError) {
  for (const char* bad : {"", "[]", "{\"version\": \"2\"}", "{\"version\": \"1\", \"install\": {}}",
                          "{\"version\": \"1\", \"install\": [{\"metadata\": {}}]}",
                          "{\"version\": \"1\", \"install\": [3]}"}) {
    auto report = ParseInstallReport(bad, "r.json");
    ASSERT_FALSE(report.ok()) << bad;
    EXPECT_THAT(report.error().message, HasSubstr("r.json")) << bad;
  }
}

const char* const kUvLock = R"(version = 1
revision = 3
requires-python = ">=3.11"

[[package]]
name = "needs-torch"
version = "1.0"
source = { registry = "https://pypi.example/simple" }
dependencies = [
    { name = "torch" },
]

[[package]]
name = "torch"
version = "TORCH_VERSION"
source = TORCH_SOURCE
)";

std::string UvLock(const std::string& version, const std::string& source) {
  std::string text = kUvLock;
  text.replace(text.find("TORCH_VERSION"), 13, version);
  text.replace(text.find("TORCH_SOURCE"), 12, source);
  return text;
}

TEST(UvLockRoutingTest, ARoutedPackageFromAProjectsBackendIndexPasses) {
  auto routed = [](const std::string& name) { return name == "torch" || name == "triton"; };
  const std::vector<std::string> indexes = {"https://user:secret@mirror.example/whl/cu124/"};
  EXPECT_TRUE(CheckUvLockRouting(UvLock("2.5.1+cu124", "{ registry = \"https://mirror.example/whl/cu124\" }"),
                                 "uv.lock", routed, indexes)
                  .ok());
  for (const std::string& source : {std::string("{ registry = \"https://pypi.example/simple\" }"),
                                    std::string("{ url = \"https://evil.example/torch-99.whl\" }"),
                                    std::string("{ path = \"/tmp/torch-99.whl\" }"),
                                    std::string("{ git = \"https://evil.example/torch\" }"), std::string("{ }")}) {
    core::Status checked = CheckUvLockRouting(UvLock("99.0.0", source), "uv.lock", routed, indexes);
    ASSERT_FALSE(checked.ok()) << source;
    EXPECT_EQ(checked.error().code, core::ErrorCode::kBadInputFile);
    EXPECT_THAT(checked.error().message, HasSubstr("uv.lock:13: torch 99.0.0 comes from "));
    EXPECT_THAT(checked.error().message, HasSubstr("(required by needs-torch 1.0), not from a pytorch-<backend> index"));
  }
  // The registry is the backend's, but a file is not (the attack's F3): each wheel is judged, and
  // an sdist of a routed package is refused.
  const std::string wheel_elsewhere = UvLock("9.9.9", "{ registry = \"https://mirror.example/whl/cu124\" }") +
                                      "wheels = [\n    { url = \"https://pypi.example/torch-9.9.9-py3-none-any.whl\", "
                                      "hash = \"sha256:aa\" },\n]\n";
  auto on_mirror = [](const std::string& where, const std::string& name, const std::string& version,
                      const std::string& url) -> core::Status {
    if (url.rfind("https://mirror.example/whl/", 0) == 0) return {};
    return core::MakeError(where + ": " + name + " " + version + " from " + url);
  };
  core::Status elsewhere = CheckUvLockRouting(wheel_elsewhere, "uv.lock", routed, indexes, on_mirror);
  ASSERT_FALSE(elsewhere.ok());
  EXPECT_EQ(elsewhere.error().message, "uv.lock:13: torch 9.9.9 from https://pypi.example/torch-9.9.9-py3-none-any.whl");
  const std::string with_sdist = UvLock("2.5.1+cu124", "{ registry = \"https://mirror.example/whl/cu124\" }") +
                                 "sdist = { url = \"https://mirror.example/whl/cu124/torch-2.5.1.tar.gz\" }\n";
  core::Status sdist = CheckUvLockRouting(with_sdist, "uv.lock", routed, indexes, on_mirror);
  ASSERT_FALSE(sdist.ok());
  EXPECT_THAT(sdist.error().message, HasSubstr("uv.lock:13: torch 2.5.1+cu124 has an sdist"));
  core::Status garbage = CheckUvLockRouting("[[package]\n", "uv.lock", routed, indexes);
  ASSERT_FALSE(garbage.ok());
  EXPECT_THAT(garbage.error().message, HasSubstr("uv.lock:1:"));
}

}  // namespace
}  // namespace torchdex::installer
