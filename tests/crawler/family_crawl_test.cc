// The crawler over another index family: the paddle family of data/indexes.json against a
// loopback copy of PaddlePaddle's per-backend indexes (tests/fixtures/paddle-index/
// make_paddle_index.py, served by a real nginx). What differs from PyTorch's index is data
// only: the channel paths, the backend pattern, the routed project without local labels.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "catalogue/catalogue.h"
#include "crawler/cli.h"
#include "tests/support/nginx.h"

namespace torchdex::crawler {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
const fs::path kFixtures = TORCHDEX_FIXTURES_DIR;
const fs::path kData = fs::path(TORCHDEX_SOURCE_DIR) / "data";

std::string ReadText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

struct Result {
  int code;
  std::string out;
  std::string err;
};

Result RunCrawler(std::vector<std::string> args, const std::string& data_dir = kData.string()) {
  CliDeps deps = DefaultCliDeps();
  deps.data_dir = data_dir;
  deps.stderr_is_terminal = false;
  deps.clock = [] { return std::string("2026-03-15T00:00:00Z"); };
  std::ostringstream out, err;
  const int code = RunCrawlCli(args, out, err, deps);
  return {code, out.str(), err.str()};
}

class FamilyCrawlTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    char pattern[] = "/tmp/torchdex-family-crawl-XXXXXX";
    root_ = new fs::path(::mkdtemp(pattern));
    const std::string command = std::string(TORCHDEX_TEST_PYTHON) + " '" +
                                (kFixtures / "paddle-index/make_paddle_index.py").string() + "' '" +
                                (*root_ / "index").string() + "'";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
    auto nginx = testing::Nginx::Start(*root_ / "index");
    ASSERT_TRUE(nginx.ok()) << nginx.error().message;
    nginx_ = nginx->release();
  }
  static void TearDownTestSuite() {
    delete nginx_;
    fs::remove_all(*root_);
    delete root_;
  }
  std::string Store(const std::string& name) const { return (*root_ / name).string(); }

  static fs::path* root_;
  static testing::Nginx* nginx_;
};
fs::path* FamilyCrawlTest::root_ = nullptr;
testing::Nginx* FamilyCrawlTest::nginx_ = nullptr;

// The catalogue without what depends on the crawl's time and port.
nlohmann::json WithoutCrawlDetails(const std::string& text) {
  nlohmann::json doc = nlohmann::json::parse(text);
  doc["provenance"].erase("crawled_from");
  doc["provenance"].erase("updated_at");
  return doc;
}

TEST_F(FamilyCrawlTest, TheCommittedFixtureCatalogueIsWhatTheCrawlOfTheLoopbackCopyExports) {
  // tests/fixtures/catalogue/family-paddle.json, compiled into the tests' table, is made by this
  // very command (tests/fixtures/paddle-index/README.md).
  const std::string exported = (*root_ / "family-paddle.json").string();
  const Result r = RunCrawler({"crawl", "--family", "paddle", "--store", Store("paddle.sqlite"), "--base-url",
                        nginx_->Url("/packages/"), "--channel", "stable", "--export", exported, "--note",
                        "crawled from the loopback copy of tests/fixtures/paddle-index (make_paddle_index.py)",
                        "--snapshot", "tests/fixtures/paddle-index/make_paddle_index.py: a small copy of the real layout",
                        "--snapshot-date", "2025-03-26"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(WithoutCrawlDetails(ReadText(exported)),
            WithoutCrawlDetails(ReadText(kFixtures / "catalogue/family-paddle.json")));
  const auto cat = catalogue::LoadCatalogueJson(exported);
  ASSERT_TRUE(cat.ok());
  EXPECT_EQ(cat->family, "paddle");
  EXPECT_EQ(cat->index_url, "https://www.paddlepaddle.org.cn/packages/");
  // The same version on two backends, told apart by the folder alone.
  const catalogue::CatalogueProject& gpu = cat->projects.at("paddlepaddle-gpu");
  EXPECT_EQ(gpu.cls, "routed");
  EXPECT_THAT(gpu.reason, HasSubstr("(policy; source: indexes.json (paddle): https://www.paddlepaddle.org.cn/"));
  EXPECT_EQ(gpu.builds.at("cu118").count("3.0.0"), 1u);
  EXPECT_EQ(gpu.builds.at("cu126").count("3.0.0"), 1u);
  EXPECT_EQ(gpu.builds.at("cu123").count("3.0.0b2"), 1u);
  EXPECT_EQ(cat->backends.at("cu123").toolkit, "12.3");
  EXPECT_EQ(cat->projects.at("numpy").cls, "mirror");
}

TEST_F(FamilyCrawlTest, AnUnknownFamilyIsAUsageErrorListingTheKnownOnes) {
  const Result r = RunCrawler({"crawl", "--family", "padle", "--store", Store("never.sqlite")});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("indexes.json has no index family 'padle' (did you mean \"paddle\"?); known families: "
                               "pytorch, paddle"));
  EXPECT_FALSE(fs::exists(Store("never.sqlite")));
}

TEST_F(FamilyCrawlTest, AFamilyFileThatBreaksItsRulesIsALocatedErrorAndTheStoreIsUntouched) {
  // A crawl first, then the same store with a broken family file: the store keeps its catalogue.
  const std::string store = Store("kept.sqlite");
  ASSERT_EQ(RunCrawler({"crawl", "--family", "paddle", "--store", store, "--base-url", nginx_->Url("/packages/"),
                 "--channel", "stable"})
                .code,
            0);
  const Result before = RunCrawler({"export", "--store", store, "--family", "paddle"});
  ASSERT_EQ(before.code, 0) << before.err;
  const fs::path data = *root_ / "bad-data";
  fs::create_directories(data);
  fs::copy_file(kData / "routing-policy.json", data / "routing-policy.json", fs::copy_options::overwrite_existing);
  std::string indexes = ReadText(kData / "indexes.json");
  const std::string source_key = "\"source\": \"https://www.paddlepaddle.org.cn/documentation/docs/en/install/pip/linux-pip_en.html (paddlepaddle-gpu";
  const size_t at = indexes.find(source_key);
  ASSERT_NE(at, std::string::npos);
  indexes.replace(at, std::string("\"source\"").size(), "\"sourc\"");
  std::ofstream(data / "indexes.json", std::ios::binary | std::ios::trunc) << indexes;
  const Result bad = RunCrawler({"crawl", "--family", "paddle", "--store", store, "--base-url", nginx_->Url("/packages/")},
                         data.string());
  EXPECT_EQ(bad.code, 2);
  EXPECT_THAT(bad.err, HasSubstr("indexes.json: /families/1/routed_projects/0/source: expected a non-empty string"));
  EXPECT_EQ(RunCrawler({"export", "--store", store, "--family", "paddle"}).out, before.out);
}

}  // namespace
}  // namespace torchdex::crawler
