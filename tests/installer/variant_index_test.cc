// Variant selection on a variant index (docs/variants.md): a copy of PyTorch's whl/test/variant/
// layout served by nginx on loopback, its torch page linking the variant wheels of 2.10.0
// (variants.json in schema v0.0.3) and 2.11.0 (v0.1.1) with the labels and properties of the
// real variant-repack configs (tests/fixtures/variants/), and `install --dry-run
// --torch-backend variant --channel test` on captured hosts.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "core/sha256.h"
#include "tests/installer/test_support.h"
#include "tests/support/nginx.h"
#include "tests/support/variant_index.h"

namespace torchdex::installer {
namespace {

namespace fs = std::filesystem;

std::string Slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string ShaOf(const std::string& filename) { return torchdex::testing::VariantWheelSha(filename); }

class VariantIndexTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ = new fs::path(fs::temp_directory_path() /
                         ("torchdex-variant-" + std::to_string(::getpid())));
    torchdex::testing::WriteVariantIndex(*root_, testing::kFixtures);

    auto nginx = torchdex::testing::Nginx::Start(*root_);
    ASSERT_TRUE(nginx.ok()) << nginx.error().message;
    nginx_ = nginx->release();
    const fs::path file = *root_ / "mirror.json";
    std::ofstream(file) << R"({"format": 1, "mirror": ")" << nginx_->Url("/whl/") << "\"}";
    mirror_ = new std::string(file.string());
    // The catalogue select reads: the fixture index crawled (torchdex-crawl, its channel test
    // and that channel's variant index, data/indexes.json), named by an override file with the
    // mirror.
    const fs::path catalogue = *root_ / "catalogue-test.json";
    const std::string crawl = std::string(TORCHDEX_CRAWL_BINARY) + " crawl -q --store " +
                              (*root_ / "store.sqlite").string() + " --base-url " +
                              nginx_->Url("/whl/") + " --channel test --export " +
                              catalogue.string() + " --export-channel test > " +
                              (*root_ / "crawl.log").string() + " 2>&1";
    ASSERT_EQ(std::system(crawl.c_str()), 0) << Slurp(*root_ / "crawl.log");
    const fs::path overrides = *root_ / "variant-catalogue.json";
    std::ofstream(overrides) << R"({"format": 1, "mirror": ")" << nginx_->Url("/whl/")
                             << R"(", "catalogue": "catalogue-test.json"})";
    catalogue_ = new std::string(overrides.string());
  }
  static void TearDownTestSuite() {
    delete nginx_;
    fs::remove_all(*root_);
    delete root_;
    delete mirror_;
    delete catalogue_;
  }

  static testing::CliResult Install(const std::string& host, const std::string& requirement,
                                    std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {
        "install",         "--dry-run",
        "--python",        "/usr/bin/python3",
        "--catalogue",     *mirror_,
        "--torch-backend", "variant",
        "--channel",       "test",
        "--root",          (testing::kFixtures / "hosts" / host).string(),
        requirement};
    args.insert(args.end(), extra.begin(), extra.end());
    return testing::RunTorchdex(args);
  }
  static nlohmann::json Plan(const std::string& host, const std::string& requirement) {
    testing::CliResult r = Install(host, requirement, {"--json"});
    EXPECT_EQ(r.code, kExitOk) << r.err;
    return r.code == kExitOk ? nlohmann::json::parse(r.out) : nlohmann::json();
  }

  static fs::path* root_;
  static torchdex::testing::Nginx* nginx_;
  static testing::CliResult Select(const std::string& host, const std::string& requirement,
                                   std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"select",          "--python-version", "3.12",
                                     "--catalogue",     *catalogue_,        "--torch-backend",
                                     "variant",         "--channel",        "test",
                                     "--root",          (testing::kFixtures / "hosts" / host).string(),
                                     requirement};
    args.insert(args.end(), extra.begin(), extra.end());
    return testing::RunTorchdex(args);
  }

  static std::string* mirror_;
  static std::string* catalogue_;  // an override file naming the crawled catalogue.json
};
fs::path* VariantIndexTest::root_ = nullptr;
torchdex::testing::Nginx* VariantIndexTest::nginx_ = nullptr;
std::string* VariantIndexTest::mirror_ = nullptr;
std::string* VariantIndexTest::catalogue_ = nullptr;

TEST_F(VariantIndexTest, DoneWhenHostsGetTheirVariantWithItsHash) {
  struct Case {
    const char* host;
    const char* version;
    const char* label;
  };
  const Case cases[] = {
      {"linux-a100-driver550", "2.10.0", "cuda12.8"},     // v0.0.3: priority :: order 2 before 3
      {"linux-a100-driver550", "2.11.0", "cuda12.6"},     // v0.1.1: a tie, label order
      {"linux-rtx5090-driver575", "2.10.0", "cuda12.8"},  // CUDA 12.9 driver: no 13.0
      {"linux-rtx5090-driver580", "2.10.0", "cuda13.0"},
      {"linux-rtx5090-driver575", "2.11.0", "cuda12.8"},
      {"linux-rtx5090-driver580", "2.11.0", "cuda13.0"},
      {"intel-arc-b580-xpu", "2.10.0", "xpu"},
      {"intel-arc-b580-xpu", "2.11.0", "xpu"},
      {"linux-no-gpu", "2.10.0", "null"},
      {"linux-no-gpu", "2.11.0", "null"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.host) + " torch==" + c.version);
    const nlohmann::json plan = Plan(c.host, std::string("torch==") + c.version);
    ASSERT_TRUE(plan.is_object());
    EXPECT_EQ(plan["backend"], "variant");
    EXPECT_EQ(plan["index_url"], nginx_->Url("/whl/test/variant/"));
    ASSERT_EQ(plan["routed"].size(), 1u);
    const nlohmann::json& torch = plan["routed"][0];
    const std::string file =
        std::string("torch-") + c.version + "-py3-none-any-" + c.label + ".whl";
    EXPECT_EQ(torch["filename"], file);
    EXPECT_EQ(torch["sha256"], ShaOf(file));
    EXPECT_EQ(torch["url"], nginx_->Url("/whl/test/variant/") + file);
    EXPECT_EQ(torch["variant_label"], c.label);
    EXPECT_EQ(torch["variants_json"]["schema"],
              std::string(c.version) == "2.10.0" ? "v0.0.3" : "v0.1.1");
    EXPECT_EQ(torch["variants_json"]["sha256"],
              core::Sha256Hex(Slurp(testing::kFixtures / "variants" /
                                    (std::string("torch-") + c.version + "-variants.json"))));
  }
}

// The variant index routes as the CPU backend: what is not offered there is said as the user
// named it, not as a cpu backend they never named.
TEST_F(VariantIndexTest, WhatTheRoutingLacksIsSaidAsTheVariantIndex) {
  testing::CliResult r = testing::RunTorchdex({"install", "--dry-run", "--python", "/usr/bin/python3", "--catalogue",
                                               *mirror_, "--torch-backend", "variant", "--channel", "nightly", "--root",
                                               (testing::kFixtures / "hosts" / "linux-no-gpu").string(),
                                               "torch==2.10.0"});
  EXPECT_EQ(r.code, kExitNoBackend) << r.out << r.err;
  EXPECT_NE(r.err.find("(named by --torch-backend variant: the variant index routes as cpu)"), std::string::npos)
      << r.err;
}

TEST_F(VariantIndexTest, ExplainNamesTheLabelAndTheDecidingProperty) {
  testing::CliResult r = Install("linux-a100-driver550", "torch==2.10.0", {"--explain"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_NE(
      r.out.find("torch 2.10.0: variant cuda12.8, by priority :: order :: 2 (before cuda12.6's "
                 "priority :: order :: 3)"),
      std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  1. cuda12.8\n  2. cuda12.6\n  3. null\n"), std::string::npos) << r.out;
  EXPECT_NE(
      r.out.find("cuda13.0 (incompatible: nvidia :: cuda_version_lower_bound: none of 13.0 is "
                 "supported"),
      std::string::npos)
      << r.out;
  EXPECT_NE(
      r.out.find("this host supports nvidia :: sm_arch :: 80_real, 80_virtual (built-in nvidia)"),
      std::string::npos)
      << r.out;
  testing::CliResult b580 = Install("intel-arc-b580-xpu", "torch==2.11.0", {"--explain"});
  ASSERT_EQ(b580.code, kExitOk) << b580.err;
  EXPECT_NE(b580.out.find("torch 2.11.0: variant xpu, by intel :: device_ip :: 20.1.0 (a property "
                          "null lacks)\n  1. xpu\n  2. null\n"),
            std::string::npos)
      << b580.out;
}

TEST_F(VariantIndexTest, NewestVersionWithoutAPin) {
  const nlohmann::json plan = Plan("linux-rtx5090-driver580", "torch");
  ASSERT_TRUE(plan.is_object());
  EXPECT_EQ(plan["routed"][0]["filename"], "torch-2.11.0-py3-none-any-cuda13.0.whl");
}

TEST_F(VariantIndexTest, ABrokenVariantsJsonIsALocatedError) {
  testing::CliResult r = Install("linux-a100-driver550", "torch==2.9.0");
  EXPECT_NE(r.code, kExitOk);
  EXPECT_NE(r.err.find(nginx_->Url("/whl/test/variant/torch-2.9.0-variants.json") +
                       ":1:13: not valid JSON"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("the variant wheels of torch 2.9.0 are not used"), std::string::npos)
      << r.err;
}

TEST_F(VariantIndexTest, ALabelTheFileLacksIsAWarningAndTheNullVariantIsTaken) {
  const nlohmann::json plan = Plan("linux-a100-driver550", "torch==2.8.0");
  ASSERT_TRUE(plan.is_object());
  EXPECT_EQ(plan["routed"][0]["filename"], "torch-2.8.0-py3-none-any-null.whl");
  bool warned = false;
  for (const auto& w : plan["warnings"]) {
    if (w.get<std::string>().find("the wheels' variant label cuda12.9 is not in the file") !=
        std::string::npos) {
      warned = true;
    }
  }
  EXPECT_TRUE(warned) << plan["warnings"].dump();
}

TEST_F(VariantIndexTest, PipCannotInstallVariantWheelsSoInstallSaysSo) {
  std::vector<std::string> args = {"install",
                                   "--python",
                                   "/usr/bin/python3",
                                   "--catalogue",
                                   *mirror_,
                                   "--torch-backend",
                                   "variant",
                                   "--channel",
                                   "test",
                                   "--root",
                                   (testing::kFixtures / "hosts" / "linux-no-gpu").string(),
                                   "torch==2.10.0"};
  testing::CliResult r = testing::RunTorchdex(args);
  EXPECT_NE(r.code, kExitOk);
  EXPECT_NE(r.err.find("torch-2.10.0-py3-none-any-null.whl is a variant wheel (PEP 825, a draft)"),
            std::string::npos)
      << r.err;
}

// Nor can they install an export of one (a requirements file, a uv project); export --json
// still shows the plan.
TEST_F(VariantIndexTest, NoExportForPipOrUvHoldsAVariantWheel) {
  const std::string host = (testing::kFixtures / "hosts" / "linux-no-gpu").string();
  for (std::vector<std::string> format : {std::vector<std::string>{"--format", "requirements"},
                                          std::vector<std::string>{"--format", "uv-project"}}) {
    std::vector<std::string> args = {"export", "--python", "/usr/bin/python3", "--catalogue", *mirror_,
                                     "--torch-backend", "variant", "--channel", "test", "--root", host,
                                     "torch==2.10.0"};
    args.insert(args.begin() + 1, format.begin(), format.end());
    testing::CliResult r = testing::RunTorchdex(args);
    EXPECT_EQ(r.code, kExitFailure) << format[1] << ": " << r.out;
    EXPECT_NE(r.err.find("torch-2.10.0-py3-none-any-null.whl is a variant wheel (PEP 825, a draft): pip and uv "
                         "cannot install it yet, so no"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(r.out, "");
  }
  testing::CliResult json = testing::RunTorchdex({"export", "--json", "--python", "/usr/bin/python3", "--catalogue",
                                                  *mirror_, "--torch-backend", "variant", "--channel", "test",
                                                  "--root", host, "torch==2.10.0"});
  EXPECT_EQ(json.code, kExitOk) << json.err;
}

// select --torch-backend variant chooses from the catalogue a crawl of the variant index made,
// by the ranking install applies to the live pages: the same hosts get the same variants.
TEST_F(VariantIndexTest, SelectChoosesTheVariantFromTheCrawledCatalogue) {
  struct Case {
    const char* host;
    const char* version;
    const char* label;
  };
  const Case cases[] = {
      {"linux-a100-driver550", "2.10.0", "cuda12.8"},
      {"linux-a100-driver550", "2.11.0", "cuda12.6"},
      {"linux-rtx5090-driver575", "2.10.0", "cuda12.8"},
      {"linux-rtx5090-driver580", "2.10.0", "cuda13.0"},
      {"linux-rtx5090-driver575", "2.11.0", "cuda12.8"},
      {"linux-rtx5090-driver580", "2.11.0", "cuda13.0"},
      {"intel-arc-b580-xpu", "2.10.0", "xpu"},
      {"intel-arc-b580-xpu", "2.11.0", "xpu"},
      {"linux-no-gpu", "2.10.0", "null"},
      {"linux-no-gpu", "2.11.0", "null"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.host) + " torch==" + c.version);
    testing::CliResult r = Select(c.host, std::string("torch==") + c.version, {"--json"});
    ASSERT_EQ(r.code, kExitOk) << r.err;
    const nlohmann::json doc = nlohmann::json::parse(r.out);
    EXPECT_EQ(doc["backend"], "variant");
    EXPECT_EQ(doc["index_url"], nginx_->Url("/whl/test/variant/"));
    EXPECT_EQ(doc["primary_version"], c.version);
    EXPECT_EQ(doc["variant_label"], c.label);
    EXPECT_FALSE(doc["variant_decided_by"].get<std::string>().empty());
    const std::string json_name = std::string("torch-") + c.version + "-variants.json";
    EXPECT_EQ(doc["variants_json"]["url"], nginx_->Url("/whl/test/variant/") + json_name);
    EXPECT_EQ(doc["variants_json"]["sha256"],
              core::Sha256Hex(Slurp(testing::kFixtures / "variants" / json_name)));
    // The same choice as install --dry-run over the live page.
    const nlohmann::json plan = Plan(c.host, std::string("torch==") + c.version);
    ASSERT_TRUE(plan.is_object());
    EXPECT_EQ(plan["routed"][0]["variant_label"], doc["variant_label"]);
    EXPECT_EQ(plan["routed"][0]["variant_decided_by"], doc["variant_decided_by"]);
  }
}

TEST_F(VariantIndexTest, SelectExplainNamesTheLabelAndTheDecidingProperty) {
  testing::CliResult r = Select("linux-a100-driver550", "torch==2.10.0", {"--explain"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_NE(r.out.find("variant  " + nginx_->Url("/whl/test/variant/")), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("torch 2.10.0: variant cuda12.8, by priority :: order :: 2 (before cuda12.6's "
                       "priority :: order :: 3)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("    1. cuda12.8\n    2. cuda12.6\n    3. null\n"), std::string::npos) << r.out;
  // Without a pin: the newest version; the broken 2.9.0 is not in the catalogue at all.
  testing::CliResult newest = Select("linux-rtx5090-driver580", "torch");
  ASSERT_EQ(newest.code, kExitOk) << newest.err;
  EXPECT_NE(newest.out.find("torch 2.11.0: variant cuda13.0, by nvidia :: cuda_version_lower_bound :: 13.0"),
            std::string::npos)
      << newest.out;
  testing::CliResult broken = Select("linux-a100-driver550", "torch==2.9.0");
  EXPECT_NE(broken.code, kExitOk);
  EXPECT_NE(broken.err.find("no variant of torch==2.9.0 in the catalogue fits"), std::string::npos) << broken.err;
  // 2.8.0: the wheel whose label the file lacks is never chosen: the null variant, said.
  testing::CliResult unlisted = Select("linux-a100-driver550", "torch==2.8.0", {"--explain"});
  ASSERT_EQ(unlisted.code, kExitOk) << unlisted.err;
  EXPECT_NE(unlisted.out.find("torch 2.8.0: variant null"), std::string::npos) << unlisted.out;
  EXPECT_NE(unlisted.out.find("wheels labelled cuda12.9 are not in"), std::string::npos) << unlisted.out;
}

// The variant index is named like any backend: TORCHDEX_TORCH_BACKEND (or uv's
// UV_TORCH_BACKEND, or config.json) as well as the flag.
TEST_F(VariantIndexTest, TheEnvironmentNamesTheVariantIndexToo) {
  const std::string host = (testing::kFixtures / "hosts" / "linux-rtx5090-driver580").string();
  for (const char* variable : {"TORCHDEX_TORCH_BACKEND", "UV_TORCH_BACKEND"}) {
    SCOPED_TRACE(variable);
    Environment env{{variable, "variant"}};
    testing::CliResult select = testing::RunTorchdex(
        {"select", "--python-version", "3.12", "--catalogue", *catalogue_, "--channel", "test",
         "--root", host, "--json", "torch==2.10.0"},
        env);
    ASSERT_EQ(select.code, kExitOk) << select.err;
    const nlohmann::json doc = nlohmann::json::parse(select.out);
    EXPECT_EQ(doc["variant_label"], "cuda13.0");
    EXPECT_EQ(doc["forced_by"], variable);
    testing::CliResult install = testing::RunTorchdex(
        {"install", "--dry-run", "--python", "/usr/bin/python3", "--catalogue", *mirror_, "--channel",
         "test", "--root", host, "--json", "torch==2.10.0"},
        env);
    ASSERT_EQ(install.code, kExitOk) << install.err;
    EXPECT_EQ(nlohmann::json::parse(install.out)["routed"][0]["variant_label"], "cuda13.0");
  }
}

TEST_F(VariantIndexTest, SelectWithoutVariantDataInTheCatalogueSaysHowToGetIt) {
  std::vector<std::string> args = {"select", "--python-version", "3.12", "--catalogue", *mirror_,
                                   "--torch-backend", "variant", "--channel", "test", "--root",
                                   (testing::kFixtures / "hosts" / "linux-no-gpu").string(), "torch"};
  testing::CliResult r = testing::RunTorchdex(args);
  EXPECT_NE(r.code, kExitOk);
  EXPECT_NE(r.err.find("holds no variant index of the test channel"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("torchdex install --dry-run --torch-backend variant"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace torchdex::installer
