// Indexes keyed by the chosen torch (installer/install/dependent_index.h) against in-memory
// find-links pages: the page of the plan's torch and backend, the wheel chosen on it by URL and
// hash, the nearest pages when there is none, a page with wheels for another torch refused,
// override files' find_links. tests/installer/e2e/family_e2e_test.cc runs it with nginx and pip.
#include <map>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "installer/install/dependent_index.h"
#include "installer/install/pip_command.h"

namespace torchdex::installer {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

constexpr const char* kPage = "https://data.pyg.org/whl/torch-2.5.0+cu124.html";

class PageFetcher final : public index::Fetcher {
 public:
  void Serve(const std::string& url, std::string body) { pages[url] = std::move(body); }
  void Run(std::vector<index::FetchRequest> initial, const OnResult& on_result,
           const OnProgress& /*on_progress*/) override {
    for (index::FetchRequest& request : initial) {
      requested.push_back(request.url);
      index::FetchResult result;
      result.request = request;
      if (auto it = pages.find(request.url); it != pages.end()) {
        result.outcome = index::FetchOutcome::kOk;
        result.status = 200;
        result.body = it->second;
        result.content_type = "text/html";
      } else {
        result.outcome = index::FetchOutcome::kAbsent;
        result.status = 404;
        result.error = request.url + ": 404";
      }
      on_result(std::move(result));
    }
  }
  std::map<std::string, std::string> pages;
  std::vector<std::string> requested;
};

// A find-links page as PyG's are laid out: relative links under torch-<X.Y.0>+<backend>/.
std::string FlatPage(const std::vector<std::string>& files) {
  std::string html = "<html><head><title>torch-2.5.0+cu124</title></head><body>\n";
  for (const std::string& f : files) {
    std::string href = "torch-2.5.0%2Bcu124/" + f;
    for (std::size_t at = href.find('+'); at != std::string::npos; at = href.find('+', at)) href.replace(at, 1, "%2B");
    html += "<a href=\"" + href + "#sha256=" + std::string(64, f.find("2.1.2") != std::string::npos ? 'b' : 'c') +
            "\">" + f + "</a><br>\n";
  }
  return html + "</body></html>\n";
}

core::InterpreterInfo Cpython312() {
  core::InterpreterInfo info;
  info.python_minor = 12;
  info.libc_minor = 36;
  return info;
}

struct Fixture {
  InstallPlan plan;
  PlanRequest request;
};

Fixture WithTorch(const std::string& torch_version, const std::vector<std::string>& other) {
  Fixture f;
  f.plan.backend = "cu124";
  f.plan.backend_index_url = "https://download.pytorch.org/whl/cu124/";
  if (!torch_version.empty()) {
    PlannedWheel torch;
    torch.name = "torch";
    torch.version = torch_version;
    torch.filename = "torch-" + torch_version + "-cp312-cp312-linux_x86_64.whl";
    torch.url = "https://download.pytorch.org/whl/cu124/" + torch.filename;
    f.plan.routed.push_back(torch);
  }
  for (const std::string& text : other) {
    f.request.other.push_back({*core::Requirement::Parse(text), text});
    f.plan.other.push_back(text);
  }
  f.request.supported_tags = core::SupportedTags(Cpython312());
  f.request.markers = core::MarkerEnvironment::ForLinuxCPython(3, 12, 4);
  return f;
}

std::vector<DependentIndex> Table(std::map<std::string, std::pair<std::string, std::string>> links = {}) {
  core::Expected<std::vector<DependentIndex>> indexes = DependentIndexesWith(links);
  EXPECT_TRUE(indexes) << indexes.error().message;
  return indexes ? *indexes : std::vector<DependentIndex>{};
}

TEST(DependentIndexTest, TheTableHasPygFromData) {
  const std::vector<DependentIndex> indexes = Table();
  ASSERT_EQ(indexes.size(), 1u);
  EXPECT_EQ(indexes[0].name, "pyg");
  EXPECT_EQ(indexes[0].base_url, "https://data.pyg.org/whl/");
  EXPECT_THAT(indexes[0].projects,
              ElementsAre("pyg-lib", "torch-cluster", "torch-scatter", "torch-sparse", "torch-spline-conv"));
  EXPECT_THAT(indexes[0].source, HasSubstr("installation"));
}

TEST(DependentIndexTest, OnePagePerTorchMinor) {
  const DependentIndex pyg = Table()[0];
  core::Expected<DependentPage> page = PageFor(pyg, "2.5.1+cu124", "cu124");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->url, kPage);
  EXPECT_EQ(page->key, "torch-2.5.0+cu124.html");
  EXPECT_EQ(page->local_label, "pt25cu124");
  EXPECT_TRUE(page->listed);
  page = PageFor(pyg, "2.3.1+cpu", "cpu");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->key, "torch-2.3.0+cpu.html");
  EXPECT_EQ(page->local_label, "pt23cpu");
  // A torch newer than the table: the same rule, read as published, not listed.
  page = PageFor(pyg, "2.9.0+cu128", "cu128");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->key, "torch-2.9.0+cu128.html");
  EXPECT_FALSE(page->listed);
  EXPECT_FALSE(PageFor(pyg, "2", "cpu"));
}

TEST(DependentIndexTest, NearestPagesAreTheSameTorchThenTheSameBackend) {
  const DependentIndex pyg = Table()[0];
  EXPECT_THAT(NearestPages(pyg, "2.5.1+cu126", "cu126"),
              ElementsAre("torch-2.5.0+cpu.html", "torch-2.5.0+cu118.html", "torch-2.5.0+cu121.html",
                          "torch-2.5.0+cu124.html"));
  EXPECT_THAT(NearestPages(pyg, "2.7.0+cu124", "cu124", 2),
              ElementsAre("torch-2.5.0+cu124.html", "torch-2.4.0+cu124.html"));
}

TEST(DependentIndexTest, TorchScatterIsPlannedFromThePageOfTheChosenTorch) {
  Fixture f = WithTorch("2.5.1+cu124", {"torch-scatter", "numpy"});
  PageFetcher fetcher;
  fetcher.Serve(kPage, FlatPage({"torch_scatter-2.1.2+pt25cu124-cp312-cp312-linux_x86_64.whl",
                                 "torch_scatter-2.1.1+pt25cu124-cp312-cp312-linux_x86_64.whl",
                                 "torch_scatter-2.1.2+pt25cu124-cp311-cp311-linux_x86_64.whl",
                                 "torch_sparse-0.6.18+pt25cu124-cp312-cp312-linux_x86_64.whl"}));
  core::Expected<DependentRouting> routing = RouteDependentRequirements(f.plan, f.request, Table(), &fetcher);
  ASSERT_TRUE(routing) << routing.error().message;
  ASSERT_EQ(f.plan.routed.size(), 2u);
  const PlannedWheel& scatter = f.plan.routed[1];
  EXPECT_EQ(scatter.name, "torch-scatter");
  EXPECT_EQ(scatter.version, "2.1.2+pt25cu124");
  EXPECT_EQ(scatter.url,
            "https://data.pyg.org/whl/torch-2.5.0%2Bcu124/torch_scatter-2.1.2%2Bpt25cu124-cp312-cp312-linux_x86_64.whl");
  EXPECT_EQ(scatter.sha256, std::string(64, 'b'));
  EXPECT_EQ(scatter.page_url, kPage);
  EXPECT_THAT(f.plan.other, ElementsAre("numpy"));
  ASSERT_EQ(routing->explanation.size(), 1u);
  EXPECT_THAT(routing->explanation[0], HasSubstr("torch-scatter 2.1.2+pt25cu124: from the pyg page for torch "
                                                 "2.5.1+cu124 on cu124, torch-2.5.0+cu124.html"));
  EXPECT_THAT(routing->explanation[0], HasSubstr("source: https://pytorch-geometric.readthedocs.io"));
  EXPECT_THAT(routing->routed_names, ElementsAre("pyg-lib", "torch-cluster", "torch-scatter", "torch-sparse",
                                                 "torch-spline-conv"));
  // Only the page was read: nothing of torch-scatter was asked of any other index.
  EXPECT_THAT(fetcher.requested, ElementsAre(kPage));
  // pip gets it by URL and hash, never by name.
  EXPECT_EQ(DirectReference(scatter),
            "torch-scatter @ https://data.pyg.org/whl/torch-2.5.0%2Bcu124/"
            "torch_scatter-2.1.2%2Bpt25cu124-cp312-cp312-linux_x86_64.whl#sha256=" + std::string(64, 'b'));
}

TEST(DependentIndexTest, ADirectReferenceIsTakenAsGiven) {
  const std::string url = "torch-scatter @ https://example.com/torch_scatter-2.1.2-cp312-cp312-linux_x86_64.whl";
  Fixture f = WithTorch("2.5.1+cu124", {url});
  PageFetcher fetcher;
  core::Expected<DependentRouting> routing = RouteDependentRequirements(f.plan, f.request, Table(), &fetcher);
  ASSERT_TRUE(routing);
  EXPECT_THAT(f.plan.other, ElementsAre(url));
  EXPECT_THAT(fetcher.requested, IsEmpty());
}

TEST(DependentIndexTest, AVersionAskedIsHonoured) {
  Fixture f = WithTorch("2.5.1+cu124", {"torch-scatter<2.1.2"});
  PageFetcher fetcher;
  fetcher.Serve(kPage, FlatPage({"torch_scatter-2.1.2+pt25cu124-cp312-cp312-linux_x86_64.whl",
                                 "torch_scatter-2.1.1+pt25cu124-cp312-cp312-linux_x86_64.whl"}));
  ASSERT_TRUE(RouteDependentRequirements(f.plan, f.request, Table(), &fetcher));
  ASSERT_EQ(f.plan.routed.size(), 2u);
  EXPECT_EQ(f.plan.routed[1].version, "2.1.1+pt25cu124");
  EXPECT_THAT(f.plan.other, IsEmpty());
}

TEST(DependentIndexTest, APageWithWheelsForAnotherTorchIsALocatedError) {
  Fixture f = WithTorch("2.5.1+cu124", {"torch-scatter"});
  PageFetcher fetcher;
  fetcher.Serve(kPage, FlatPage({"torch_scatter-2.1.2+pt25cu124-cp312-cp312-linux_x86_64.whl",
                                 "torch_scatter-2.1.2+pt24cu121-cp312-cp312-linux_x86_64.whl"}));
  core::Expected<DependentRouting> routing = RouteDependentRequirements(f.plan, f.request, Table(), &fetcher);
  ASSERT_FALSE(routing);
  EXPECT_THAT(routing.error().message, HasSubstr(std::string(kPage) + ": link 2, "
                                                 "torch_scatter-2.1.2+pt24cu121-cp312-cp312-linux_x86_64.whl: "
                                                 "built for +pt24cu121, not for +pt25cu124"));
  // Nothing half-applied.
  EXPECT_EQ(f.plan.routed.size(), 1u);
  EXPECT_THAT(f.plan.other, ElementsAre("torch-scatter"));
}

TEST(DependentIndexTest, NoPageForTheTorchNamesTheNearest) {
  Fixture f = WithTorch("2.5.1+cu126", {"torch-scatter"});
  f.plan.backend = "cu126";
  PageFetcher fetcher;
  core::Expected<DependentRouting> routing = RouteDependentRequirements(f.plan, f.request, Table(), &fetcher);
  ASSERT_FALSE(routing);
  EXPECT_EQ(routing.error().code, core::ErrorCode::kNotOffered);
  EXPECT_THAT(routing.error().message,
              HasSubstr("torch-scatter: pyg publishes no page for torch 2.5.1+cu126 on cu126 "
                        "(https://data.pyg.org/whl/torch-2.5.0+cu126.html answered 404); the nearest pages "
                        "(data/dependent-indexes.json): torch-2.5.0+cpu.html, torch-2.5.0+cu118.html"));
  EXPECT_THAT(f.plan.other, ElementsAre("torch-scatter"));
}

TEST(DependentIndexTest, WithoutTorchItStaysOnTheDefaultIndexAndSaysHowToRouteIt) {
  Fixture f = WithTorch("", {"torch-scatter"});
  PageFetcher fetcher;
  core::Expected<DependentRouting> routing = RouteDependentRequirements(f.plan, f.request, Table(), &fetcher);
  ASSERT_TRUE(routing);
  EXPECT_THAT(f.plan.other, ElementsAre("torch-scatter"));
  EXPECT_THAT(fetcher.requested, IsEmpty());
  ASSERT_EQ(routing->explanation.size(), 1u);
  EXPECT_THAT(routing->explanation[0], HasSubstr("ask for torch too (torchdex install torch torch-scatter)"));
}

TEST(DependentIndexTest, FindLinksOfAnOverrideFileReplaceTheBaseUrl) {
  const std::vector<DependentIndex> indexes = Table({{"pyg", {"http://127.0.0.1:8080/pyg/whl", "/etc/o.json"}}});
  ASSERT_EQ(indexes.size(), 1u);
  Fixture f = WithTorch("2.5.1+cu124", {"torch-scatter"});
  PageFetcher fetcher;
  std::string page = FlatPage({"torch_scatter-2.1.2+pt25cu124-cp312-cp312-linux_x86_64.whl"});
  fetcher.Serve("http://127.0.0.1:8080/pyg/whl/torch-2.5.0+cu124.html", page);
  core::Expected<DependentRouting> routing = RouteDependentRequirements(f.plan, f.request, indexes, &fetcher);
  ASSERT_TRUE(routing) << routing.error().message;
  EXPECT_EQ(f.plan.routed[1].url, "http://127.0.0.1:8080/pyg/whl/torch-2.5.0%2Bcu124/"
                                  "torch_scatter-2.1.2%2Bpt25cu124-cp312-cp312-linux_x86_64.whl");
  EXPECT_THAT(routing->explanation[0], HasSubstr("base URL from /etc/o.json"));

  core::Expected<std::vector<DependentIndex>> unknown =
      DependentIndexesWith({{"pygg", {"https://mirror.example/pyg/", "/etc/o.json"}}});
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code, core::ErrorCode::kBadInputFile);
  EXPECT_THAT(unknown.error().message,
              HasSubstr("/etc/o.json: /find_links/pygg: no such index keyed by torch; known "
                        "(data/dependent-indexes.json): pyg"));
}

TEST(DependentIndexTest, APlainHttpPageElsewhereIsRefused) {
  const std::vector<DependentIndex> indexes = Table({{"pyg", {"http://pyg.example/whl/", "/etc/o.json"}}});
  Fixture f = WithTorch("2.5.1+cu124", {"torch-scatter"});
  PageFetcher fetcher;
  core::Expected<DependentRouting> routing = RouteDependentRequirements(f.plan, f.request, indexes, &fetcher);
  ASSERT_FALSE(routing);
  EXPECT_THAT(routing.error().message, HasSubstr("http://pyg.example/whl/torch-2.5.0+cu124.html"));
  EXPECT_THAT(fetcher.requested, IsEmpty());
}

TEST(DependentIndexTest, NothingOnThePageForTheTargetIsAnError) {
  Fixture f = WithTorch("2.5.1+cu124", {"torch-scatter"});
  PageFetcher fetcher;
  fetcher.Serve(kPage, FlatPage({"torch_scatter-2.1.2+pt25cu124-cp39-cp39-win_amd64.whl"}));
  core::Expected<DependentRouting> routing = RouteDependentRequirements(f.plan, f.request, Table(), &fetcher);
  ASSERT_FALSE(routing);
  EXPECT_THAT(routing.error().message, HasSubstr(kPage));
  EXPECT_THAT(routing.error().message, Not(HasSubstr("#torch-scatter")));
  EXPECT_THAT(routing.error().message, HasSubstr("none of the 1 wheels of torch-scatter on backend pyg page "
                                                 "torch-2.5.0+cu124.html (" + std::string(kPage) + ") fits"));
  EXPECT_THAT(f.plan.other, ElementsAre("torch-scatter"));
}

}  // namespace
}  // namespace torchdex::installer
