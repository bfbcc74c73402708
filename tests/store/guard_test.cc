// The sync job's guard over small catalogues built in code: what it calls out, what it refuses,
// and that it lists exactly what a refused change would have removed.
#include "store/guard.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace torchdex::catalogue {
namespace {

CatalogueBackend Backend(const std::string& kind, const std::string& toolkit,
                         std::int64_t projects = 3) {
  CatalogueBackend b;
  b.kind = kind;
  b.toolkit = toolkit;
  b.state = core::BackendState::kOk;
  b.discovered_from = "root index";
  b.projects = projects;
  return b;
}

CatalogueProject Project(const std::string& cls, std::map<std::string, VersionTags> builds = {}) {
  CatalogueProject p;
  p.cls = cls;
  p.reason = cls + " because";
  p.builds = std::move(builds);
  return p;
}

const std::vector<std::string> kTags = {"cp312-cp312-manylinux_2_28_x86_64",
                                        "cp312-cp312-win_amd64"};

// cpu and cu126 offer torch 2.8.0 and 2.9.0, torchvision 0.24.0, triton 3.5.0; numpy is a mirror.
Catalogue Base() {
  Catalogue c;
  c.family = "pytorch";
  c.channel = "stable";
  c.crawled_from = "https://download.pytorch.org/whl/";
  c.backends["cpu"] = Backend("cpu", "");
  c.backends["cu126"] = Backend("cuda", "12.6");
  c.projects["torch"] =
      Project("routed", {{"cpu", {{"2.8.0+cpu", kTags}, {"2.9.0+cpu", kTags}}},
                         {"cu126", {{"2.8.0+cu126", kTags}, {"2.9.0+cu126", kTags}}}});
  c.projects["torchvision"] =
      Project("routed", {{"cpu", {{"0.24.0+cpu", kTags}}}, {"cu126", {{"0.24.0+cu126", kTags}}}});
  c.projects["triton"] = Project("companion", {{"cu126", {{"3.5.0", kTags}}}});
  c.projects["numpy"] = Project("mirror");
  return c;
}

GuardOptions Share(double max_wheel_loss) {
  GuardOptions options;
  options.max_wheel_loss = max_wheel_loss;
  return options;
}
// Only the other rules: no limit on the share of wheels removed.
GuardOptions AnyShare() { return Share(1.0); }

GuardReport Check(const Catalogue& before, const Catalogue& after, GuardOptions options = {}) {
  return CheckCatalogueChange(before, after, DiffCatalogues(before, after), options);
}

bool Has(const std::vector<std::string>& lines, const std::string& text) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& l) { return l.find(text) != std::string::npos; });
}

std::string Lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

TEST(GuardTest, TheSameContentIsNoChangeWhateverTheProvenance) {
  Catalogue after = Base();
  after.crawled_from = "http://127.0.0.1:8080/whl/";
  after.updated_at = "2026-03-16T00:00:00Z";
  after.note = "a mirror";
  const GuardReport r = Check(Base(), after);
  EXPECT_EQ(r.verdict, GuardVerdict::kNoChange);
  EXPECT_TRUE(r.callouts.empty()) << Lines(r.callouts);
  EXPECT_TRUE(r.refusals.empty());
  EXPECT_TRUE(r.removals.empty());
}

TEST(GuardTest, ANewBackendAndNewTorchVersionsAreCalledOutAndAllowed) {
  Catalogue after = Base();
  after.backends["cu130"] = Backend("cuda", "13.0");
  after.projects["torch"].builds["cu130"] = {{"2.9.0+cu130", kTags}, {"2.10.0+cu130", kTags}};
  after.projects["torch"].builds["cpu"]["2.10.0+cpu"] = kTags;
  const GuardReport r = Check(Base(), after);
  EXPECT_EQ(r.verdict, GuardVerdict::kChanged);
  ASSERT_GE(r.callouts.size(), 4u) << Lines(r.callouts);
  EXPECT_EQ(r.callouts[0], "new backend: cu130 (cuda 13.0)");
  EXPECT_TRUE(Has(r.callouts, "new torch release(s): 2.10.0")) << Lines(r.callouts);
  EXPECT_TRUE(Has(r.callouts, "new torch version(s) on cpu: 2.10.0+cpu")) << Lines(r.callouts);
  EXPECT_TRUE(
      Has(r.callouts, "new torch version(s) on cu130 (new backend): 2.9.0+cu130, 2.10.0+cu130"))
      << Lines(r.callouts);
  EXPECT_TRUE(r.removals.empty()) << Lines(r.removals);
  EXPECT_TRUE(r.other_changes.empty()) << Lines(r.other_changes);  // versions are in the diff
  const std::string text = GuardReportToText(r, DiffCatalogues(Base(), after));
  EXPECT_EQ(text.rfind("**Verdict: changed**", 0), 0u) << text;
  // Call-outs come before the guard's findings and the diff.
  EXPECT_LT(text.find("new backend: cu130"), text.find("### Guard")) << text;
  EXPECT_LT(text.find("### Guard"), text.find("backends added: cu130")) << text;
}

TEST(GuardTest, ANewWheelTagOfAKnownVersionIsAChange) {
  Catalogue after = Base();
  after.projects["torch"].builds["cpu"]["2.9.0+cpu"].push_back("cp313-cp313-manylinux_2_28_x86_64");
  const GuardReport r = Check(Base(), after);
  EXPECT_EQ(r.verdict, GuardVerdict::kChanged);
  EXPECT_TRUE(
      Has(r.other_changes, "1 project(s) with new wheel tags for versions they already had: torch"))
      << Lines(r.other_changes);
}

TEST(GuardTest, AReclassifiedPackageIsCalledOut) {
  Catalogue before = Base();
  before.projects["torchdata"] = Project("mirror");
  Catalogue after = Base();
  after.projects["torchdata"] = Project("stale");
  after.projects["torchdata"].reason = "the default index has 0.11.0";
  const GuardReport r = Check(before, after);
  EXPECT_EQ(r.verdict, GuardVerdict::kChanged);
  EXPECT_TRUE(
      Has(r.callouts, "reclassified: torchdata: mirror -> stale (the default index has 0.11.0)"))
      << Lines(r.callouts);
}

TEST(GuardTest, ABackendThatDisappearsIsRefusedWithWhatWouldGo) {
  Catalogue after = Base();
  after.backends.erase("cu126");
  after.projects["torch"].builds.erase("cu126");
  after.projects["torchvision"].builds.erase("cu126");
  after.projects["triton"].builds.erase("cu126");
  const GuardReport r = Check(Base(), after, AnyShare());
  EXPECT_EQ(r.verdict, GuardVerdict::kRefused);
  EXPECT_TRUE(Has(r.refusals, "backend cu126 disappeared from the index")) << Lines(r.refusals);
  EXPECT_TRUE(Has(r.removals, "backend cu126 (cuda 12.6, 3 projects, state ok)"))
      << Lines(r.removals);
  EXPECT_TRUE(Has(r.removals,
                  "torch on cu126: 4 wheel(s) of 2 version(s): 2.8.0+cu126 (2), 2.9.0+cu126 (2)"))
      << Lines(r.removals);
  EXPECT_TRUE(Has(r.removals, "triton on cu126: 2 wheel(s) of 1 version(s): 3.5.0 (2)"))
      << Lines(r.removals);
  // The packages on a backend already reported gone are not refused again, one by one.
  EXPECT_EQ(r.refusals.size(), 1u) << Lines(r.refusals);
}

TEST(GuardTest, ABackendPageAnswering403IsRefused) {
  Catalogue after = Base();
  after.backends["cu126"].state = core::BackendState::kEmpty;
  after.backends["cu126"].projects = 0;
  after.projects["torch"].builds.erase("cu126");
  after.projects["torchvision"].builds.erase("cu126");
  after.projects["triton"].builds.erase("cu126");
  const GuardReport r = Check(Base(), after, AnyShare());
  EXPECT_EQ(r.verdict, GuardVerdict::kRefused);
  EXPECT_TRUE(Has(r.refusals, "backend cu126 lost its project list (state ok -> empty)"))
      << Lines(r.refusals);
}

TEST(GuardTest, ARoutedPackageLeavingTheRoutedListIsRefused) {
  Catalogue after = Base();
  after.projects["torchvision"] = Project("mirror");
  GuardReport r = Check(Base(), after, AnyShare());
  EXPECT_EQ(r.verdict, GuardVerdict::kRefused);
  EXPECT_TRUE(Has(r.refusals, "routed package torchvision would leave the routed list (now mirror"))
      << Lines(r.refusals);

  after.projects.erase("torchvision");
  r = Check(Base(), after, AnyShare());
  EXPECT_EQ(r.verdict, GuardVerdict::kRefused);
  EXPECT_TRUE(Has(r.refusals, "routed package torchvision would be removed")) << Lines(r.refusals);
  EXPECT_TRUE(Has(r.removals, "project torchvision (routed)")) << Lines(r.removals);
}

TEST(GuardTest, ARoutedPackageGoneFromOneBackendIsRefused) {
  Catalogue after = Base();
  after.projects["torch"].builds.erase("cu126");  // its page answers 403; the backend is fine
  const GuardReport r = Check(Base(), after, AnyShare());
  EXPECT_EQ(r.verdict, GuardVerdict::kRefused);
  EXPECT_TRUE(
      Has(r.refusals, "routed package torch would no longer be offered on cu126 (2 versions)"))
      << Lines(r.refusals);
}

TEST(GuardTest, TooManyWheelsGoneIsRefusedAtTheConfiguredShare) {
  // 14 wheels before; dropping one tag of torch 2.8.0+cpu is 1/14 = 7.1%.
  Catalogue after = Base();
  after.projects["torch"].builds["cpu"]["2.8.0+cpu"] = {kTags[0]};
  GuardReport r = Check(Base(), after);
  EXPECT_EQ(r.verdict, GuardVerdict::kChanged) << Lines(r.refusals);
  EXPECT_TRUE(Has(r.removals, "torch 2.8.0+cpu on cpu: 1 wheel(s): cp312-cp312-win_amd64"))
      << Lines(r.removals);

  r = Check(Base(), after, Share(0.05));
  EXPECT_EQ(r.verdict, GuardVerdict::kRefused);
  EXPECT_TRUE(Has(r.refusals, "1 of 14 wheels would be removed (7.1%, more than the 5.0% allowed)"))
      << Lines(r.refusals);
}

TEST(GuardTest, AReviewedRemovalCanBeAllowedByName) {
  Catalogue after = Base();
  after.projects["torch"].builds.erase("cu126");
  GuardOptions options;
  options.max_wheel_loss = 1.0;
  options.allow_removed = {"cu126"};
  EXPECT_EQ(Check(Base(), after, options).verdict, GuardVerdict::kChanged);
  options.allow_removed = {"torch"};
  EXPECT_EQ(Check(Base(), after, options).verdict, GuardVerdict::kChanged);
  options.allow_removed = {"torchvision"};
  EXPECT_EQ(Check(Base(), after, options).verdict, GuardVerdict::kRefused);
}

TEST(GuardTest, RefusedTextSaysWhatWouldHaveBeenRemoved) {
  Catalogue after = Base();
  after.projects.erase("torchvision");
  const GuardReport r = Check(Base(), after);
  const std::string text = GuardReportToText(r, DiffCatalogues(Base(), after));
  EXPECT_EQ(text.rfind("**Verdict: refused**", 0), 0u) << text;
  EXPECT_NE(text.find("- REFUSED: routed package torchvision would be removed"), std::string::npos)
      << text;
  EXPECT_NE(text.find("### What would have been removed\n- project torchvision (routed)"),
            std::string::npos)
      << text;
  const std::string json = GuardReportToJson(r, DiffCatalogues(Base(), after));
  EXPECT_NE(json.find("\"verdict\": \"refused\""), std::string::npos) << json;
}

}  // namespace
}  // namespace torchdex::catalogue
