// The command line, run in-process through Main with a fake environment and clock.
#include <gtest/gtest.h>

#include <sstream>

#include "installer/cli/run.h"
#include "tests/installer/test_support.h"

namespace torchdex::installer::testing {
namespace {

struct Result {
  int code;
  std::string out;
  std::string err;
};

Result RunCli(const std::vector<std::string>& args, const Environment& env = {}) {
  std::unique_ptr<ProcessRunner> runner = MakeSystemProcessRunner();
  FakeClock clock;
  Deps deps{env, *runner, clock};
  std::ostringstream out, err;
  const int code = Main(args, deps, out, err);
  return {code, out.str(), err.str()};
}

const std::string kRtx3090 = (kFixtures / "hosts" / "linux-rtx3090-driver550-proprietary").string();

TEST(Cli, DetectJsonKeepsTheIssueFieldNames) {
  const Result result = RunCli({"detect", "--json", "--root", kRtx3090});
  ASSERT_EQ(result.code, kExitOk) << result.err;
  const nlohmann::json json = nlohmann::json::parse(result.out);
  for (const char* key : {"os", "arch", "wsl", "container", "jetson", "nvidia", "amd", "intel",
                          "warnings", "timings_us"}) {
    EXPECT_TRUE(json.contains(key)) << key;
  }
  const auto& nvidia = json["nvidia"];
  EXPECT_EQ(nvidia["driver_version"], "550.144.03");
  EXPECT_EQ(nvidia["driver_source"], "/sys/module/nvidia/version");
  EXPECT_EQ(nvidia["cuda_driver_api"], "12.4");
  EXPECT_EQ(nvidia["devices_exposed"], true);
  EXPECT_EQ(nvidia["gpus"][0]["name"], "NVIDIA GeForce RTX 3090");
  EXPECT_EQ(nvidia["gpus"][0]["compute_capability"], "8.6");
  EXPECT_EQ(nvidia["gpus"][0]["pci_bus_id"], "0000:01:00.0");
  EXPECT_TRUE(json["amd"].is_null());
  EXPECT_TRUE(json["intel"].is_null());
  EXPECT_TRUE(json["timings_us"].contains("total"));
}

TEST(Cli, DetectTextSaysWhatAndWhereFrom) {
  const Result result = RunCli({"detect", "--root", kRtx3090});
  ASSERT_EQ(result.code, kExitOk);
  EXPECT_NE(result.out.find("NVIDIA: driver 550.144.03 (from /sys/module/nvidia/version)"),
            std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("compute capability 8.6 (from PCI id table)"), std::string::npos);
  EXPECT_NE(result.out.find("AMD: none found"), std::string::npos);
}

TEST(Cli, UsageErrorsExitTwo) {
  Result result = RunCli({"detcet"});
  EXPECT_EQ(result.code, kExitUsage);
  EXPECT_NE(result.err.find("did you mean \"detect\""), std::string::npos) << result.err;
  EXPECT_EQ(RunCli({}).code, kExitUsage);
  EXPECT_EQ(RunCli({"detect", "--bogus"}).code, kExitUsage);
  EXPECT_EQ(RunCli({"detect", "--probe-timeout", "0"}).code, kExitUsage);
  EXPECT_EQ(RunCli({"detect", "--probe-timeout", "soon"}).code, kExitUsage);
  result = RunCli({"detect", "--root", "/nonexistent/host"});
  EXPECT_EQ(result.code, kExitUsage);
  EXPECT_NE(result.err.find("--root"), std::string::npos);
}

TEST(Cli, MalformedOverrideExitsThreeNamingTheVariable) {
  const Result result = RunCli({"detect", "--root", kRtx3090}, {{"TORCHDEX_XPU", "maybe"}});
  EXPECT_EQ(result.code, kExitBadOverride);
  EXPECT_NE(result.err.find("TORCHDEX_XPU"), std::string::npos) << result.err;
  EXPECT_TRUE(result.out.empty());
}

// Issue 13 item 19: bytes that are not UTF-8 in the environment (CUDA_VISIBLE_DEVICES=$'\xff')
// reach the JSON as U+FFFD instead of aborting the command (nlohmann's type_error.316).
TEST(Cli, JsonOutputIsValidUtf8WhateverTheEnvironmentHolds) {
  const Environment env = {{"CUDA_VISIBLE_DEVICES", "\xff"}};
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"detect", "--json", "--root", kRtx3090},
        std::vector<std::string>{"select", "--json", "--root", kRtx3090}}) {
    SCOPED_TRACE(args[0]);
    const Result result = RunCli(args, env);
    EXPECT_TRUE(result.code == kExitOk || result.code == kExitNoBackend) << result.err;
    const nlohmann::json json = nlohmann::json::parse(result.out, nullptr, false);
    ASSERT_FALSE(json.is_discarded()) << result.out;
    const nlohmann::json& facts = args[0] == "detect" ? json : json["facts"];
    EXPECT_EQ(facts["nvidia"]["cuda_visible_devices"], "\xef\xbf\xbd") << result.out;
  }
}

// Issue 13 item 27: a requirements file saved with a UTF-8 byte order mark (Windows editors do)
// is read as pip reads it, the mark ignored.
TEST(Cli, ARequirementsFileWithAByteOrderMarkIsRead) {
  TempRoot root;
  root.Write("/requirements.txt", "\xEF\xBB\xBFtorch>=2.5\nnumpy\n");
  const Result result =
      RunCli({"install", "--dry-run", "--offline", "--torch-backend", "cpu", "--python",
              "/usr/bin/python3", "-r", (root.path() / "requirements.txt").string()});
  ASSERT_EQ(result.code, kExitOk) << result.err;
  EXPECT_NE(result.out.find("torch"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("numpy"), std::string::npos) << result.out;
}

TEST(Cli, HelpAndVersion) {
  Result result = RunCli({"--version"});
  EXPECT_EQ(result.code, kExitOk);
  EXPECT_EQ(result.out.rfind("torchdex ", 0), 0u);
  result = RunCli({"--help"});
  EXPECT_EQ(result.code, kExitOk);
  EXPECT_NE(result.out.find("detect"), std::string::npos);
  result = RunCli({"detect", "--help"});
  EXPECT_EQ(result.code, kExitOk);
  // The help is printed from the same option table the parser uses.
  for (const char* option : {"--json", "--root", "--probe-timeout"}) {
    EXPECT_NE(result.out.find(option), std::string::npos) << option;
  }
  EXPECT_NE(result.out.find("exit codes"), std::string::npos);
}

}  // namespace
}  // namespace torchdex::installer::testing
