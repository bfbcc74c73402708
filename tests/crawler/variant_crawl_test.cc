// The crawler on a PEP 825 variant index (docs/variants.md): the channel test's variant index
// (data/indexes.json "variant_indexes"), served by nginx from the fixture builder that
// variant_index_test uses (tests/support/variant_index.h), into the store and catalogue.json:
// each wheel's label and the properties of its label, each version's variants.json with its
// URL, sha256 and priorities; a bad variants.json is a located warning and loses nothing stored.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "catalogue/catalogue.h"
#include "catalogue/variants.h"
#include "core/sha256.h"
#include "crawler/cli.h"
#include "store/read_catalogue.h"
#include "store/store.h"
#include "tests/support/nginx.h"
#include "tests/support/variant_index.h"

namespace torchdex::crawler {
namespace {

namespace fs = std::filesystem;
const fs::path kFixtures = fs::path(TORCHDEX_FIXTURES_DIR);
const fs::path kData = fs::path(TORCHDEX_SOURCE_DIR) / "data";

std::string Slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

struct CliResult {
  int code;
  std::string out;
  std::string err;
};

class VariantCrawlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("torchdex-variant-crawl-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    torchdex::testing::WriteVariantIndex(root_ / "tree", kFixtures);
    auto nginx = torchdex::testing::Nginx::Start(root_ / "tree");
    ASSERT_TRUE(nginx.ok()) << nginx.error().message;
    nginx_ = std::move(nginx).value();
  }
  void TearDown() override {
    nginx_.reset();
    fs::remove_all(root_);
  }
  fs::path Index() const { return root_ / "tree" / "whl" / "test" / "variant"; }
  std::string StorePath() const { return (root_ / "store.sqlite").string(); }
  std::string CatalogueJson() const { return (root_ / "catalogue-test.json").string(); }

  CliResult Crawl(std::vector<std::string> extra = {}) {
    CliDeps deps = DefaultCliDeps();
    deps.data_dir = kData.string();
    deps.stderr_is_terminal = false;
    deps.clock = [] { return std::string("2026-03-15T00:00:00Z"); };
    std::ostringstream out, err;
    std::vector<std::string> args = {"crawl", "--store", StorePath(), "--base-url", nginx_->Url("/whl/"),
                                     "--channel", "test", "--json", "--export", CatalogueJson(),
                                     "--export-channel", "test"};
    args.insert(args.end(), extra.begin(), extra.end());
    const int code = RunCrawlCli(args, out, err, deps);
    return {code, out.str(), err.str()};
  }
  catalogue::Catalogue Exported() {
    auto cat = catalogue::LoadCatalogueJson(CatalogueJson());
    EXPECT_TRUE(cat.ok()) << (cat.ok() ? "" : cat.error().message);
    return cat.ok() ? *cat : catalogue::Catalogue();
  }
  static std::vector<std::string> Warnings(const CliResult& r) {
    std::vector<std::string> out;
    const nlohmann::json summary = nlohmann::json::parse(r.out, nullptr, false);
    if (!summary.is_object()) return out;
    for (const auto& w : summary["warnings"]) out.push_back(w.get<std::string>());
    return out;
  }
  static bool AnyContains(const std::vector<std::string>& lines, const std::string& text) {
    for (const std::string& l : lines) {
      if (l.find(text) != std::string::npos) return true;
    }
    return false;
  }

  fs::path root_;
  std::unique_ptr<torchdex::testing::Nginx> nginx_;
};

TEST_F(VariantCrawlTest, StoresEachWheelsLabelAndEachVersionsVariantsJson) {
  const CliResult r = Crawl();
  ASSERT_EQ(r.code, 0) << r.err;
  const catalogue::Catalogue cat = Exported();
  ASSERT_TRUE(cat.backends.contains("variant"));
  EXPECT_EQ(cat.backends.at("variant").kind, "variant");
  EXPECT_EQ(cat.backends.at("variant").discovered_from, "data/indexes.json (variant index)");
  ASSERT_TRUE(cat.projects.contains("torch"));
  const catalogue::CatalogueProject& torch = cat.projects.at("torch");
  EXPECT_EQ(torch.cls, "routed");
  // The variant wheels are builds of the backend by their plain tags.
  ASSERT_TRUE(torch.builds.contains("variant"));
  EXPECT_EQ(torch.builds.at("variant").at("2.10.0"), std::vector<std::string>{"py3-none-any"});
  ASSERT_TRUE(torch.variants.contains("variant"));
  const auto& versions = torch.variants.at("variant");
  for (const char* version : {"2.10.0", "2.11.0"}) {
    SCOPED_TRACE(version);
    ASSERT_TRUE(versions.contains(version));
    const catalogue::CatalogueVariants& v = versions.at(version);
    const std::string file = std::string("torch-") + version + "-variants.json";
    EXPECT_EQ(v.url, "test/variant/" + file);
    EXPECT_EQ(v.sha256, core::Sha256Hex(Slurp(kFixtures / "variants" / file)));
    EXPECT_EQ(v.schema, std::string(version) == "2.10.0" ? "v0.0.3" : "v0.1.1");
    EXPECT_EQ(v.namespace_priorities.front(), "nvidia");
    for (const char* label : torchdex::testing::kVariantLabels) {
      ASSERT_TRUE(v.labels.contains(label)) << label;
      EXPECT_EQ(v.labels.at(label).wheels, std::vector<std::string>{"py3-none-any"}) << label;
    }
    EXPECT_TRUE(v.labels.at("null").properties.empty());
    const std::vector<std::string>& cu130 = v.labels.at("cuda13.0").properties;
    EXPECT_NE(std::find(cu130.begin(), cu130.end(), "nvidia :: cuda_version_lower_bound :: 13.0"),
              cu130.end());
    EXPECT_NE(std::find(cu130.begin(), cu130.end(), "nvidia :: sm_arch :: 120_virtual"), cu130.end());
    const std::vector<std::string>& xpu = v.labels.at("xpu").properties;
    EXPECT_NE(std::find(xpu.begin(), xpu.end(), "intel :: device_ip :: 20.1.0"), xpu.end());
    EXPECT_TRUE(v.unlisted.empty());
    // What ranking reads parses back into the file the index served.
    auto parsed = catalogue::ParseVariantsJson(v.variants_json, "catalogue");
    ASSERT_TRUE(parsed.ok()) << parsed.error().message;
    auto served = catalogue::ParseVariantsJson(Slurp(kFixtures / "variants" / file), file);
    ASSERT_TRUE(served.ok());
    EXPECT_EQ(catalogue::VariantsJsonToString(*served), v.variants_json);
  }
  // The v0.0.3 file keeps its priorities: 2.10's cuda12.8 has priority :: order :: 2.
  const auto& cu128 = versions.at("2.10.0").labels.at("cuda12.8").properties;
  EXPECT_NE(std::find(cu128.begin(), cu128.end(), "priority :: order :: 2"), cu128.end());
}

TEST_F(VariantCrawlTest, BadVariantsJsonIsALocatedWarning) {
  const CliResult r = Crawl();
  ASSERT_EQ(r.code, 0) << r.err;
  const std::vector<std::string> warnings = Warnings(r);
  // 2.9.0: not JSON, with the line and column; nothing stored of it.
  EXPECT_TRUE(AnyContains(warnings, nginx_->Url("/whl/test/variant/torch-2.9.0-variants.json") +
                                        ":1:13: not valid JSON"))
      << nlohmann::json(warnings).dump(1);
  EXPECT_TRUE(AnyContains(warnings, "nothing is stored of it")) << nlohmann::json(warnings).dump(1);
  // 2.8.0: a wheel's label the file lacks; the file is stored, the wheel listed as unlisted.
  EXPECT_TRUE(AnyContains(warnings, "cuda12.9")) << nlohmann::json(warnings).dump(1);
  const catalogue::Catalogue cat = Exported();
  const auto& versions = cat.projects.at("torch").variants.at("variant");
  EXPECT_FALSE(versions.contains("2.9.0"));
  ASSERT_TRUE(versions.contains("2.8.0"));
  EXPECT_EQ(versions.at("2.8.0").unlisted.at("cuda12.9"), std::vector<std::string>{"py3-none-any"});
}

TEST_F(VariantCrawlTest, AVariantsJsonThatGoesBadKeepsTheStoredOne) {
  ASSERT_EQ(Crawl().code, 0);
  const catalogue::Catalogue before = Exported();
  // The server now serves 2.10's file in a schema no one knows, its link's hash updated to it;
  // then a file whose bytes differ from its link's hash.
  const std::string unknown =
      R"({"$schema": "https://variants-schema.wheelnext.dev/v9.9.9.json", "variants": {}})";
  std::ofstream(Index() / "torch-2.10.0-variants.json", std::ios::binary) << unknown;
  const fs::path page = Index() / "torch" / "index.html";
  std::string html = Slurp(page);
  const std::string old_sha = core::Sha256Hex(Slurp(kFixtures / "variants" / "torch-2.10.0-variants.json"));
  html.replace(html.find(old_sha), old_sha.size(), core::Sha256Hex(unknown));
  std::ofstream(page, std::ios::binary) << html;
  // nginx's ETag is the mtime and size: a rewrite within the second, of the same size, must
  // still be a new page.
  fs::last_write_time(page, fs::last_write_time(page) + std::chrono::seconds(5));
  const CliResult r = Crawl();
  ASSERT_EQ(r.code, 0) << r.err;
  const std::vector<std::string> warnings = Warnings(r);
  EXPECT_TRUE(AnyContains(warnings, "torch-2.10.0-variants.json: at /$schema: unknown schema")) << nlohmann::json(warnings).dump(1);
  EXPECT_TRUE(AnyContains(warnings, "the stored copy is kept")) << nlohmann::json(warnings).dump(1);
  const catalogue::Catalogue after = Exported();
  EXPECT_EQ(after.projects.at("torch").variants.at("variant").at("2.10.0").variants_json,
            before.projects.at("torch").variants.at("variant").at("2.10.0").variants_json);

  std::ofstream(Index() / "torch-2.11.0-variants.json", std::ios::binary) << "{}";
  const CliResult mismatch = Crawl();
  ASSERT_EQ(mismatch.code, 0) << mismatch.err;
  EXPECT_TRUE(AnyContains(Warnings(mismatch), "torch-2.11.0-variants.json: its sha256 is " + core::Sha256Hex("{}")))
      << nlohmann::json(Warnings(mismatch)).dump(1);
  EXPECT_EQ(Exported().projects.at("torch").variants.at("variant").at("2.11.0").sha256,
            before.projects.at("torch").variants.at("variant").at("2.11.0").sha256);
}

// A wheel with a new label on a page whose variants.json is unchanged (answered 304): the labels
// are checked against the stored file all the same.
TEST_F(VariantCrawlTest, ANewLabelIsCheckedAgainstAnUnchangedVariantsJson) {
  ASSERT_EQ(Crawl().code, 0);
  const fs::path page = Index() / "torch" / "index.html";
  std::string html = Slurp(page);
  const std::string wheel = "torch-2.10.0-py3-none-any-cuda14.0.whl";
  html.replace(html.find("</body>"), 0,
               "<a href=\"/whl/test/variant/" + wheel + "#sha256=" + core::Sha256Hex(wheel) + "\">" + wheel + "</a><br/>\n");
  std::ofstream(page, std::ios::binary) << html;
  fs::last_write_time(page, fs::last_write_time(page) + std::chrono::seconds(5));
  const CliResult r = Crawl();
  ASSERT_EQ(r.code, 0) << r.err;
  const std::vector<std::string> warnings = Warnings(r);
  EXPECT_TRUE(AnyContains(warnings, "cuda14.0")) << nlohmann::json(warnings).dump(1);
  EXPECT_TRUE(AnyContains(warnings, "torch-2.10.0-variants.json")) << nlohmann::json(warnings).dump(1);
}

// A variants.json the fetcher cannot take (over its 64 MB bound) is one file's warning, not a
// failed crawl; the stored copy stays.
TEST_F(VariantCrawlTest, AVariantsJsonTooLargeToFetchIsAWarningAndKeepsTheStoredOne) {
  ASSERT_EQ(Crawl().code, 0);
  const std::string before = Exported().projects.at("torch").variants.at("variant").at("2.11.0").sha256;
  {
    std::ofstream big(Index() / "torch-2.11.0-variants.json", std::ios::binary);
    const std::string chunk(1 << 20, ' ');
    for (int i = 0; i < 65; ++i) big << chunk;
  }
  const CliResult r = Crawl();
  EXPECT_EQ(r.code, 0) << r.err;
  const std::vector<std::string> warnings = Warnings(r);
  EXPECT_TRUE(AnyContains(warnings, "torch-2.11.0-variants.json")) << nlohmann::json(warnings).dump(1);
  EXPECT_TRUE(AnyContains(warnings, "the stored copy is kept")) << nlohmann::json(warnings).dump(1);
  EXPECT_EQ(Exported().projects.at("torch").variants.at("variant").at("2.11.0").sha256, before);
}

// The server says a variants.json is unchanged (304) while the page's link now vouches for other
// bytes: said, the stored copy kept.
TEST_F(VariantCrawlTest, A304ForAFileWhoseLinkNowGivesAnotherHashIsSaid) {
  ASSERT_EQ(Crawl().code, 0);
  const fs::path page = Index() / "torch" / "index.html";
  std::string html = Slurp(page);
  const std::string old_sha = core::Sha256Hex(Slurp(kFixtures / "variants" / "torch-2.10.0-variants.json"));
  const std::string other(64, 'b');
  html.replace(html.find(old_sha), old_sha.size(), other);
  std::ofstream(page, std::ios::binary) << html;
  fs::last_write_time(page, fs::last_write_time(page) + std::chrono::seconds(5));
  const CliResult r = Crawl();
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(AnyContains(Warnings(r), "torch-2.10.0-variants.json answered 304 Not Modified, but its link on " +
                                           nginx_->Url("/whl/test/variant/torch/") + " now gives sha256 " + other +
                                           ", not the " + old_sha + " of the stored copy"))
      << nlohmann::json(Warnings(r)).dump(1);
}

// A --base-url with user:password@ is used, never shown: not in the warnings, not in the export.
TEST_F(VariantCrawlTest, CredentialsOfTheBaseUrlAreNotShown) {
  fs::remove(Index() / "torch-2.11.0-variants.json");  // a 404: a warning that names the URL
  CliDeps deps = DefaultCliDeps();
  deps.data_dir = kData.string();
  deps.stderr_is_terminal = false;
  std::ostringstream out, err;
  std::string base = nginx_->Url("/whl/");
  base.insert(base.find("://") + 3, "carol:Pa55word@");
  const int code = RunCrawlCli({"crawl", "--store", StorePath(), "--base-url", base, "--channel", "test", "--json",
                                "--export", CatalogueJson(), "--export-channel", "test"},
                               out, err, deps);
  ASSERT_EQ(code, 0) << err.str();
  EXPECT_THAT(out.str(), ::testing::HasSubstr("torch-2.11.0-variants.json"));
  EXPECT_EQ((out.str() + err.str()).find("Pa55word"), std::string::npos) << out.str() << err.str();
  EXPECT_EQ(Slurp(CatalogueJson()).find("Pa55word"), std::string::npos);
  EXPECT_EQ(Exported().crawled_from, nginx_->Url("/whl/"));
  // The store, too, records the run's base URL without them.
  EXPECT_EQ(Slurp(StorePath()).find("Pa55word"), std::string::npos);
}

TEST_F(VariantCrawlTest, ARecrawlOfAnUnchangedVariantIndexExportsTheSameBytes) {
  ASSERT_EQ(Crawl().code, 0);
  const std::string first = Slurp(CatalogueJson());
  const CliResult again = Crawl();
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(Slurp(CatalogueJson()), first);
}

// tests/fixtures/catalogues/variant-test.json is this crawl's export (nginx's port aside): the
// catalogue the docs' `select --torch-backend variant` examples and codegen's tests read.
// TORCHDEX_UPDATE_FIXTURES=1 rewrites it.
TEST_F(VariantCrawlTest, TheFixtureCatalogueIsWhatTheCrawlExports) {
  const CliResult r = Crawl({"--note", "the fixture variant index of tests/support/variant_index.h, crawled on loopback"});
  ASSERT_EQ(r.code, 0) << r.err;
  std::string exported = Slurp(CatalogueJson());
  const std::string url = nginx_->Url("/whl/");
  for (std::size_t at = exported.find(url); at != std::string::npos; at = exported.find(url)) {
    exported.replace(at, url.size(), "http://127.0.0.1:PORT/whl/");
  }
  const fs::path fixture = kFixtures / "catalogues" / "variant-test.json";
  if (std::getenv("TORCHDEX_UPDATE_FIXTURES") != nullptr) std::ofstream(fixture, std::ios::binary) << exported;
  EXPECT_EQ(Slurp(fixture), exported) << "TORCHDEX_UPDATE_FIXTURES=1 " << "crawler_tests rewrites " << fixture;
}

TEST(CatalogueVariantsJson, ASummaryThatDisagreesWithTheFileIsALocatedError) {
  catalogue::Catalogue cat;
  cat.family = "pytorch";
  cat.channel = "test";
  catalogue::CatalogueProject& torch = cat.projects["torch"];
  torch.cls = "routed";
  auto made = catalogue::MakeCatalogueVariants(
      "test/variant/torch-2.11.0-variants.json", "00",
      Slurp(kFixtures / "variants" / "torch-2.11.0-variants.json"), {{"xpu", {"py3-none-any"}}}, "x");
  ASSERT_TRUE(made.ok()) << made.error().message;
  torch.variants["variant"]["2.11.0"] = *made;
  const std::string text = catalogue::WriteCatalogueJson(cat);
  auto round = catalogue::ParseCatalogueJson(text, "c.json");
  ASSERT_TRUE(round.ok()) << round.error().message;
  EXPECT_EQ(catalogue::WriteCatalogueJson(*round), text);
  // A property edited by hand in the summary is refused, naming the place.
  nlohmann::json doc = nlohmann::json::parse(text);
  doc["projects"]["torch"]["variants"]["variant"]["2.11.0"]["labels"]["xpu"]["properties"][0] =
      "intel :: device_ip :: 99.0.0";
  auto bad = catalogue::ParseCatalogueJson(doc.dump(), "c.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("c.json: /projects/torch/variants/variant/2.11.0/labels/xpu/properties"),
            std::string::npos)
      << bad.error().message;
}

}  // namespace
}  // namespace torchdex::crawler
