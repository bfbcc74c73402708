// Variant selection on a variant index (docs/variants.md): a copy of PyTorch's whl/test/variant/
// layout served by nginx on loopback, its torch page linking the variant wheels of 2.10.0
// (variants.json in schema v0.0.3) and 2.11.0 (v0.1.1) with the labels and properties of the
// real variant-repack configs (tests/fixtures/variants/), and `install --dry-run
// --torch-backend variant --channel test` on captured hosts.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "core/sha256.h"
#include "tests/installer/test_support.h"
#include "tests/support/nginx.h"

namespace torchdex::installer {
namespace {

namespace fs = std::filesystem;

std::string Slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A distinct sha256 per file: the plan must carry the one of the file it chose.
std::string ShaOf(const std::string& filename) { return core::Sha256Hex(filename); }

const char* const kLabels[] = {"null", "cuda12.6", "cuda12.8", "cuda13.0",
                               "xpu",  "rocm7.0",  "rocm7.1"};

class VariantIndexTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ = new fs::path(fs::temp_directory_path() /
                         ("torchdex-variant-" + std::to_string(::getpid())));
    const fs::path page = *root_ / "whl" / "test" / "variant" / "torch";
    fs::create_directories(page);
    std::ostringstream html;
    html << "<!DOCTYPE html>\n<html><body><h1>Links for torch</h1>\n";
    auto link = [&](const std::string& file, const std::string& sha) {
      html << "<a href=\"/whl/test/variant/" << file << "#sha256=" << sha << "\">" << file
           << "</a><br/>\n";
    };
    for (const char* version : {"2.10.0", "2.11.0"}) {
      const std::string json_name = std::string("torch-") + version + "-variants.json";
      const std::string json = Slurp(testing::kFixtures / "variants" / json_name);
      std::ofstream(*root_ / "whl" / "test" / "variant" / json_name, std::ios::binary) << json;
      link(json_name, core::Sha256Hex(json));
      for (const char* label : kLabels) {
        const std::string wheel =
            std::string("torch-") + version + "-py3-none-any-" + label + ".whl";
        link(wheel, ShaOf(wheel));
      }
    }
    // 2.9.0: a variants.json that does not parse; 2.8.0: a wheel whose label the file lacks.
    std::ofstream(*root_ / "whl" / "test" / "variant" / "torch-2.9.0-variants.json")
        << "{\"$schema\": ";
    link("torch-2.9.0-variants.json", core::Sha256Hex("{\"$schema\": "));
    link("torch-2.9.0-py3-none-any-cuda12.8.whl", ShaOf("torch-2.9.0-py3-none-any-cuda12.8.whl"));
    const std::string v28 =
        std::string(
            R"({"$schema": "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json",)") +
        R"( "default-priorities": {"namespace": ["nvidia"]}, "variants": {"null": {}}})";
    std::ofstream(*root_ / "whl" / "test" / "variant" / "torch-2.8.0-variants.json") << v28;
    link("torch-2.8.0-variants.json", core::Sha256Hex(v28));
    link("torch-2.8.0-py3-none-any-cuda12.9.whl", ShaOf("torch-2.8.0-py3-none-any-cuda12.9.whl"));
    link("torch-2.8.0-py3-none-any-null.whl", ShaOf("torch-2.8.0-py3-none-any-null.whl"));
    html << "</body></html>\n";
    std::ofstream(page / "index.html") << html.str();

    auto nginx = torchdex::testing::Nginx::Start(*root_);
    ASSERT_TRUE(nginx.ok()) << nginx.error().message;
    nginx_ = nginx->release();
    const fs::path file = *root_ / "mirror.json";
    std::ofstream(file) << R"({"format": 1, "mirror": ")" << nginx_->Url("/whl/") << "\"}";
    mirror_ = new std::string(file.string());
  }
  static void TearDownTestSuite() {
    delete nginx_;
    fs::remove_all(*root_);
    delete root_;
    delete mirror_;
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
  static std::string* mirror_;
};
fs::path* VariantIndexTest::root_ = nullptr;
torchdex::testing::Nginx* VariantIndexTest::nginx_ = nullptr;
std::string* VariantIndexTest::mirror_ = nullptr;

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

}  // namespace
}  // namespace torchdex::installer
