// Index families other than PyTorch's (docs/families.md), through `torchdex select`, in process:
// the paddle family's catalogue is compiled into the tests' table from
// tests/fixtures/catalogue/family-paddle.json (crawled from the loopback copy that
// tests/fixtures/paddle-index/make_paddle_index.py builds), with its driver floors and routed
// projects from data/indexes.json. Nothing here is specific to paddle in the code under test.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "installer/cli/exit_codes.h"
#include "installer/cli/run.h"
#include "installer/table/family_table.h"
#include "tests/installer/test_support.h"

namespace torchdex::installer {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::CliResult;
using testing::RunTorchdex;
using testing::Text;

const fs::path kHosts = fs::path(TORCHDEX_FIXTURES_DIR) / "hosts";
const std::string kA100 = (kHosts / "container-with-devices-a100-driver535").string();

CliResult Select(std::vector<std::string> args, Environment env = {}) {
  args.insert(args.begin(), "select");
  if (env.count("HOME") == 0) env["HOME"] = "/nonexistent";  // no user override files
  return RunTorchdex(args, env);
}

class FamilyFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "torchdex-family-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& text) {
    const fs::path path = dir_ / name;
    std::ofstream(path, std::ios::binary) << text;
    return path.string();
  }
  fs::path dir_;
};

TEST(FamilyTableTest, HoldsEveryFamilyOfIndexesJson) {
  const table::FamilyRow* paddle = table::FindFamily("paddle");
  ASSERT_NE(paddle, nullptr);
  EXPECT_EQ(paddle->base_url, "https://www.paddlepaddle.org.cn/packages/");
  EXPECT_EQ(paddle->primary, "paddlepaddle-gpu");
  EXPECT_EQ(table::ChannelPathOf(*paddle, "stable"), "stable/");
  EXPECT_EQ(table::ChannelPathOf(*paddle, "test"), std::nullopt);
  ASSERT_EQ(table::RoutedOf(*paddle).size(), 1u);
  EXPECT_EQ(table::RoutedOf(*paddle)[0].name, "paddlepaddle-gpu");
  EXPECT_THAT(std::string(paddle->catalogue), HasSubstr("\"family\": \"paddle\""));
  const table::FamilyRow* pytorch = table::FindFamily("pytorch");
  ASSERT_NE(pytorch, nullptr);
  EXPECT_EQ(pytorch->primary, "torch");
  EXPECT_TRUE(pytorch->catalogue.empty());  // the package table is pytorch's
  EXPECT_EQ(table::FindFamily("padle"), nullptr);
  EXPECT_EQ(Text(table::MajorFloor(12, core::TargetOs::kLinux)), "525.60.13");
}

TEST(FamilySelectTest, AnA100OnDriver535GetsTheCudaBuildItsDriverRuns) {
  // Paddle documents 550.54.14 for its CUDA 12.6 build and 450.80.02 for 11.8; cu123 has only
  // pre-releases. PyTorch on the same host gets cu129 (NVIDIA's MVC floor 525.60.13).
  const CliResult r = Select({"--family", "paddle", "--root", kA100, "--explain"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_THAT(r.out, HasSubstr("cu118  https://www.paddlepaddle.org.cn/packages/stable/cu118/\n"));
  EXPECT_THAT(r.out, HasSubstr("paddlepaddle-gpu 3.1.0"));
  EXPECT_THAT(r.out, HasSubstr("driver 535.104.05 is below 550.54.14, the minimum for CUDA 12.6 builds on Linux"));
  EXPECT_THAT(r.out, HasSubstr("catalogue: paddle family: embedded catalogue (stable channel of "
                               "https://www.paddlepaddle.org.cn/packages/ as of 2025-03-26, from a snapshot)"));
  const CliResult pytorch = Select({"--root", kA100});
  ASSERT_EQ(pytorch.code, kExitOk) << pytorch.err;
  EXPECT_THAT(pytorch.out, HasSubstr("cu129  https://download.pytorch.org/whl/cu129/"));
}

TEST(FamilySelectTest, InstallPaddlepaddleGpuAsksTheSameAsTheDefault) {
  const CliResult named = Select({"--family", "paddle", "--root", kA100, "--json", "paddlepaddle-gpu"});
  ASSERT_EQ(named.code, kExitOk) << named.err;
  const nlohmann::json doc = nlohmann::json::parse(named.out);
  EXPECT_EQ(doc["backend"], "cu118");
  EXPECT_EQ(doc["primary"], "paddlepaddle-gpu");
  EXPECT_EQ(doc["primary_version"], "3.1.0");
  EXPECT_EQ(doc["index_url"], "https://www.paddlepaddle.org.cn/packages/stable/cu118/");
}

TEST(FamilySelectTest, ANewerDriverGetsTheNewerToolkitAndAPinCanSendItBack) {
  const std::string rtx3090 = (kHosts / "linux-rtx3090-driver550-proprietary").string();  // 550.144.03
  const CliResult r = Select({"--family", "paddle", "--root", rtx3090});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_THAT(r.out, HasSubstr("cu126  https://www.paddlepaddle.org.cn/packages/stable/cu126/"));
  // Only cu118 has 2.6.2.
  const CliResult old = Select({"--family", "paddle", "--root", rtx3090, "paddlepaddle-gpu==2.6.2"});
  ASSERT_EQ(old.code, kExitOk) << old.err;
  EXPECT_THAT(old.out, HasSubstr("cu118  "));
  // A named backend: no hardware check, the same catalogue.
  const CliResult cu126 = Select({"--family", "paddle", "--torch-backend", "cu126", "--json"});
  ASSERT_EQ(cu126.code, kExitOk) << cu126.err;
  EXPECT_EQ(nlohmann::json::parse(cu126.out)["primary_version"], "3.1.0");
}

TEST(FamilySelectTest, NoGpuMeansNoBackendOfAGpuOnlyProject) {
  // The cpu backend lists paddlepaddle, not paddlepaddle-gpu.
  const CliResult r = Select({"--family", "paddle", "--root", (kHosts / "linux-no-gpu").string(), "--explain"});
  EXPECT_EQ(r.code, kExitNoBackend) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr("no backend offers what was asked"));
  EXPECT_THAT(r.out, HasSubstr("cpu"));
}

TEST(FamilySelectTest, AnUnknownFamilyIsAUsageErrorListingTheKnownOnes) {
  const CliResult r = Select({"--family", "padle", "--root", kA100});
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_THAT(r.err, HasSubstr("--family padle: no such index family (did you mean \"paddle\"?); known "
                               "families (data/indexes.json): pytorch, paddle"));
  EXPECT_TRUE(r.out.empty());
}

TEST(FamilySelectTest, AChannelTheFamilyLacksIsAUsageError) {
  const CliResult r = Select({"--family", "paddle", "--channel", "test", "--torch-backend", "cu118"});
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_THAT(r.err, HasSubstr("--channel test: index family paddle has no such channel (nightly, stable)"));
}

TEST(FamilySelectTest, AnUnknownBackendNamesTheFamilysBackends) {
  const CliResult r = Select({"--family", "paddle", "--torch-backend", "cu128"});
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_THAT(r.err, HasSubstr("unknown backend 'cu128'"));
  EXPECT_THAT(r.err, HasSubstr("known backends: cpu, cu118, cu123, cu126"));
}

TEST_F(FamilyFiles, AFamilysMirrorAppliesToItAlone) {
  const std::string file = Write("mirrors.json", R"({"format": 1,
    "mirror": "https://nexus.example.com/pytorch/whl/",
    "families": {"paddle": {"mirror": "https://nexus.example.com/paddle/packages/"}}})");
  const CliResult paddle = Select({"--family", "paddle", "--root", kA100, "--catalogue", file});
  ASSERT_EQ(paddle.code, kExitOk) << paddle.err;
  EXPECT_THAT(paddle.out, HasSubstr("cu118  https://nexus.example.com/paddle/packages/stable/cu118/\n"));
  const CliResult pytorch = Select({"--root", kA100, "--catalogue", file});
  ASSERT_EQ(pytorch.code, kExitOk) << pytorch.err;
  EXPECT_THAT(pytorch.out, HasSubstr("cu129  https://nexus.example.com/pytorch/whl/cu129/\n"));
  // A backend moved elsewhere, in the family's section only.
  const std::string moved = Write("moved.json", R"({"format": 1,
    "families": {"paddle": {"backends": {"cu118": {"url": "https://artifactory.example.com/paddle-cu118/"}}}}})");
  const CliResult one = Select({"--family", "paddle", "--root", kA100, "--catalogue", moved});
  ASSERT_EQ(one.code, kExitOk) << one.err;
  EXPECT_THAT(one.out, HasSubstr("cu118  https://artifactory.example.com/paddle-cu118/\n"));
}

TEST_F(FamilyFiles, ASectionForAnUnknownFamilyIsALocatedError) {
  const std::string file = Write("typo.json", R"({"format": 1, "families": {"padle": {"mirror": "https://x.example/"}}})");
  const CliResult r = Select({"--family", "paddle", "--root", kA100, "--catalogue", file});
  EXPECT_EQ(r.code, kExitBadInputFile);
  EXPECT_THAT(r.err, HasSubstr(file + ": /families/padle: no index family \"padle\" (did you mean \"paddle\"?)"));
  const std::string bad = Write("bad-key.json", R"({"format": 1, "families": {"paddle": {"mirrror": "https://x.example/"}}})");
  const CliResult key = Select({"--family", "paddle", "--root", kA100, "--catalogue", bad});
  EXPECT_EQ(key.code, kExitBadInputFile);
  EXPECT_THAT(key.err, HasSubstr(bad + ": /families/paddle/mirrror: unknown key \"mirrror\" (did you mean \"mirror\"?)"));
  const std::string typo = Write("backend-typo.json", R"({"format": 1,
    "families": {"paddle": {"backends": {"cu1188": {"url": "https://x.example/"}}}}})");
  const CliResult backend = Select({"--family", "paddle", "--root", kA100, "--catalogue", typo});
  EXPECT_EQ(backend.code, kExitBadInputFile);
  EXPECT_THAT(backend.err, HasSubstr(typo + ": /families/paddle/backends/cu1188: no backend \"cu1188\" (did you mean cu118?)"));
  // Nothing of a bad file applies: pytorch's choice fails the same way (the file is read whole).
  const CliResult pytorch = Select({"--root", kA100, "--catalogue", bad});
  EXPECT_EQ(pytorch.code, kExitBadInputFile);
}

TEST_F(FamilyFiles, AFamilysCatalogueMustBeOfThatFamily) {
  const std::string pytorch_catalogue = std::string(TORCHDEX_FIXTURES_DIR) + "/catalogue/2026-03-15.json";
  const std::string file =
      Write("wrong.json", "{\"format\": 1, \"families\": {\"paddle\": {\"catalogue\": \"" + pytorch_catalogue + "\"}}}");
  const CliResult r = Select({"--family", "paddle", "--root", kA100, "--catalogue", file});
  EXPECT_EQ(r.code, kExitBadInputFile);
  EXPECT_THAT(r.err, HasSubstr(pytorch_catalogue + ": /provenance/family: \"pytorch\", but it was given as the "
                               "catalogue of index family paddle"));
  // The family's own catalogue, named: the same answer as the embedded one, described as the file.
  const std::string own = std::string(TORCHDEX_FIXTURES_DIR) + "/catalogue/family-paddle.json";
  const std::string named = Write("own.json", "{\"format\": 1, \"families\": {\"paddle\": {\"catalogue\": \"" + own + "\"}}}");
  const CliResult ok = Select({"--family", "paddle", "--root", kA100, "--catalogue", named, "--explain"});
  ASSERT_EQ(ok.code, kExitOk) << ok.err;
  EXPECT_THAT(ok.out, HasSubstr("cu118  "));
  EXPECT_THAT(ok.out, HasSubstr("catalogue: paddle family: " + own));
}


// Extras chosen by the driver (data/accelerator-extras.json): jax[cuda13] needs driver >= 580 and
// compute capability >= 7.5, jax[cuda12] driver >= 525, as JAX's installation guide says.
std::string ExtraLine(const std::string& host, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"--root", (kHosts / host).string(), "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  const CliResult r = Select(args);
  EXPECT_EQ(r.code, kExitOk) << host << ": " << r.err;
  const nlohmann::json doc = nlohmann::json::parse(r.out, nullptr, false);
  if (doc.is_discarded()) return "(no json)";
  for (const auto& line : doc["explanation"]) {
    if (line.get<std::string>().rfind("jax", 0) == 0) return line.get<std::string>();
  }
  return "(none)";
}

TEST(AcceleratorExtrasTest, JaxGetsTheExtraTheHostRuns) {
  const std::string source = "; source: https://docs.jax.dev/en/latest/installation.html (jax-ml/jax docs/installation.md)";
  EXPECT_EQ(ExtraLine("container-with-devices-a100-driver535", {"jax"}),
            "jax: jax[cuda12] for driver 535.104.05 (>= 525); [cuda13] needs driver >= 580" + source);
  EXPECT_EQ(ExtraLine("linux-gh200-aarch64-driver580-sbsa", {"jax>=0.7"}),
            "jax: jax[cuda13]>=0.7 for driver 580.95.05 (>= 580)" + source);
  // A V100 (7.0) beside an RTX 4090: CUDA 13 builds nothing for the V100.
  EXPECT_EQ(ExtraLine("linux-v100-rtx4090-driver580-mixed", {"jax"}),
            "jax: jax[cuda12] for driver 580.95.05 (>= 525); [cuda13] needs compute capability >= 7.5 (a GPU "
            "here is 7.0)" + source);
  EXPECT_EQ(ExtraLine("linux-no-gpu", {"jax"}), "jax: no accelerator extra fits (no visible NVIDIA GPU): the plain package, as asked");
  EXPECT_EQ(ExtraLine("container-no-devices-driver550", {"jax"}),
            "jax: no accelerator extra fits (no visible NVIDIA GPU): the plain package, as asked");
  EXPECT_EQ(ExtraLine("linux-gh200-aarch64-driver580-sbsa", {"jax[cuda12]"}), "jax: [cuda12] as asked");
  // Not a package with accelerator extras: nothing said.
  EXPECT_EQ(ExtraLine("container-with-devices-a100-driver535", {"numpy"}), "(none)");
}

TEST(AcceleratorExtrasTest, ANamedBackendLeavesTheRequirementAsAsked) {
  const CliResult r = Select({"--torch-backend", "cu126", "--explain", "jax"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_THAT(r.out, Not(HasSubstr("jax[")));
}

}  // namespace
}  // namespace torchdex::installer
