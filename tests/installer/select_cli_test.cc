// `torchdex select` end to end, in process, over the captured hosts of the detection corpus and
// the table of the real 2026-03-15 catalogue (tests/fixtures/catalogue/, frozen: installer_tests
// compile it in place of generated/, which the sync job rewrites).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include <unistd.h>

#include "installer/cli/run.h"
#include "installer/platform/clock.h"

namespace torchdex::installer {
namespace {

namespace fs = std::filesystem;
const fs::path kHosts = fs::path(TORCHDEX_FIXTURES_DIR) / "hosts";

struct Result {
  int code;
  std::string out;
  std::string err;
};

Result Select(std::vector<std::string> args, Environment env = {}) {
  // The real runner: captured hosts such as WSL answer through their fake tools and libraries.
  const std::unique_ptr<ProcessRunner> runner = MakeSystemProcessRunner();
  const SteadyClock clock;
  Deps deps{env, *runner, clock};
  args.insert(args.begin(), "select");
  std::ostringstream out, err;
  const int code = Main(args, deps, out, err);
  return {code, out.str(), err.str()};
}

std::string BackendFor(const std::string& host, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"--root", (kHosts / host).string(), "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  const Result r = Select(args);
  EXPECT_TRUE(r.code == kExitOk || r.code == kExitNoBackend) << host << ": " << r.err;
  const nlohmann::json doc = nlohmann::json::parse(r.out, nullptr, false);
  if (doc.is_discarded() || doc["backend"].is_null()) return "(none)";
  return doc["backend"].get<std::string>();
}

TEST(SelectCliTest, ChoosesForEveryCapturedHost) {
  // The newest torch of the embedded catalogue is 2.10.0; cu129 (the newest CUDA 12 toolkit at
  // 2.10: sm_70-sm_120 + PTX) and cu126 cover sm_50-sm_120 between them, cu130 starts at sm_75
  // and needs a 580 driver.
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"linux-no-gpu", "cpu"},
      {"linux-rtx3090-driver550-proprietary", "cu129"},
      {"linux-h100-driver570-open", "cu129"},
      {"linux-v100-rtx4090-driver580-mixed", "cu129"},  // CUDA 13 builds nothing for sm_70
      {"laptop-rtx4060-driver560-intel-iris-xe", "cu129"},
      {"linux-r470-nvidia-smi-without-compute-cap", "cu118"},  // 470 is below every CUDA 12 floor
      {"wsl2-two-gpus-572.60", "cu129"},                       // Windows 572.60 < 580 for cu130
      {"container-no-devices-driver550", "cpu"},
      {"container-with-devices-a100-driver535", "cu129"},
      {"jetson-orin-r36", "cpu"},
      {"jetson-xavier-r35", "cpu"},
      {"amd-rx7900xtx-gfx1100-rocm6.4", "rocm7.1"},  // torch 2.10.0 from the flat torch/ page
      {"amd-apu-gfx1036-unsupported", "cpu"},
      {"intel-arc-a770-xpu-plus-uhd770", "xpu"},
      {"intel-uhd770-igpu-only-no-xpu", "cpu"},
      {"linux-rtx5090-driver575", "cu129"},             // 575 < 580 for cu130; cu126 has no sm_120
      {"linux-gh200-aarch64-driver580-sbsa", "cu130"},  // the aarch64 (SBSA) lists
      {"dgx-spark-gb10-aarch64-driver580", "cu130"},    // sm_121 runs the sm_120 cubins
  };
  for (const auto& [host, backend] : expected) {
    EXPECT_EQ(BackendFor(host), backend) << host;
  }
}

TEST(SelectCliTest, TheJsonKeepsTheDocumentedNames) {
  const Result r = Select({"--root", (kHosts / "linux-v100-rtx4090-driver580-mixed").string(), "--json"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  for (const char* key : {"backend", "index_url", "channel", "candidates", "rejected", "facts"}) {
    EXPECT_TRUE(doc.contains(key)) << key;
  }
  EXPECT_EQ(doc["index_url"], "https://download.pytorch.org/whl/cu129/");
  EXPECT_EQ(doc["channel"], "stable");
  EXPECT_EQ(doc["facts"]["nvidia"]["driver_version"], "580.95.05");
  bool cu130_explained = false;
  for (const auto& r : doc["rejected"]) {
    if (r["backend"] == "cu130") {
      cu130_explained =
          r["reasons"][0].get<std::string>().find(
              "CUDA 13.0 cannot build code that runs on sm_70: its oldest architecture is sm_75") ==
          0;
    }
  }
  EXPECT_TRUE(cu130_explained) << doc["rejected"].dump();
}

TEST(SelectCliTest, ExplainSaysWhyAndListsTheRunnersUp) {
  const Result r = Select({"--root", (kHosts / "linux-rtx3090-driver550-proprietary").string(), "--explain",
                           "--python-version", "3.12"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_NE(r.out.find("cu129  https://download.pytorch.org/whl/cu129/"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("chose cu129 (CUDA): torch 2.10.0+cu129 is the newest that fits; driver "
                       "550.144.03 >= 525.60.13 (Linux); sm_86 by cubin sm_86"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("runners-up:"), std::string::npos);
  EXPECT_NE(r.out.find("cu130     driver 550.144.03 is below 580, the minimum for CUDA 13.0 builds on Linux"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("target: CPython 3.12 on linux x86_64"), std::string::npos);
}

TEST(SelectCliTest, OldTorchVersionsAndTargets) {
  // torch 2.3.1 is in cu121 and cu118 but not cu124 (2.4.0-2.6.0): the newer toolkit wins.
  EXPECT_EQ(BackendFor("linux-h100-driver570-open", {"torch==2.3.1"}), "cu121");
  EXPECT_EQ(BackendFor("linux-v100-rtx4090-driver580-mixed", {"torch==2.3.1"}), "cu121");
  // Only the CPU build has macOS wheels on the index; the macOS target gets the default index.
  const Result mac = Select({"--root", (kHosts / "linux-no-gpu").string(), "--platform", "macosx_11_0_arm64"});
  EXPECT_EQ(mac.code, kExitOk) << mac.err;
  EXPECT_NE(mac.out.find("default index  https://pypi.org/simple/"), std::string::npos) << mac.out;
}

nlohmann::json SelectJson(const std::string& host, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"--root", (kHosts / host).string(), "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  const Result r = Select(args);
  EXPECT_EQ(r.code, kExitOk) << host << ": " << r.err;
  return nlohmann::json::parse(r.out, nullptr, false);
}

std::string FirstReason(const nlohmann::json& doc, const std::string& backend) {
  for (const auto& r : doc["rejected"]) {
    if (r["backend"] == backend) return r["reasons"][0].get<std::string>();
  }
  return "(not rejected)";
}

TEST(SelectCliTest, AnOldPinOnBlackwellIsRefusedForTheToolkit) {
  // torch 2.3.1 is built with CUDA 11.8 and 12.1, neither of which can emit code for sm_120.
  nlohmann::json doc = SelectJson("linux-rtx5090-driver575", {"torch==2.3.1"});
  EXPECT_EQ(doc["backend"], "cpu");
  EXPECT_EQ(FirstReason(doc, "cu121")
                .rfind("CUDA 12.1 cannot build code that runs on sm_120: its newest "
                       "architecture is sm_90, and this build has no PTX (torch 2.3.1)",
                       0),
            0u)
      << doc["rejected"].dump();
  EXPECT_EQ(FirstReason(doc, "cu118").rfind("CUDA 11.8 cannot build code that runs on sm_120", 0),
            0u);
  const std::string explanation = doc["explanation"].dump();
  EXPECT_NE(explanation.find("no accelerator backend qualifies"), std::string::npos) << explanation;
  EXPECT_NE(explanation.find("sm_120 needs CUDA 12.8 or newer (cu128)"), std::string::npos)
      << explanation;
  // torch 2.6.0: cu118, cu124 and cu126 builds, none with sm_120.
  doc = SelectJson("linux-rtx5090-driver575", {"torch==2.6.0"});
  EXPECT_EQ(doc["backend"], "cpu");
  EXPECT_EQ(FirstReason(doc, "cu126").rfind("CUDA 12.6 cannot build code that runs on sm_120", 0),
            0u);
  // Named: the answer is the refusal, not a fallback.
  const Result named = Select({"--root", (kHosts / "linux-rtx5090-driver575").string(),
                               "--torch-backend", "cu121", "torch==2.3.1"});
  EXPECT_EQ(named.code, kExitNoBackend);
  EXPECT_NE(named.err.find("CUDA 12.1 cannot build code that runs on sm_120"), std::string::npos)
      << named.err;
}

TEST(SelectCliTest, ArmServersGetTheAarch64Lists) {
  nlohmann::json doc = SelectJson("linux-gh200-aarch64-driver580-sbsa");
  EXPECT_EQ(doc["backend"], "cu130");
  EXPECT_EQ(doc["facts"]["arch"], "aarch64");
  const std::string why = doc["explanation"][0].get<std::string>();
  EXPECT_NE(why.find("sm_90 by cubin sm_90"), std::string::npos) << why;
  EXPECT_EQ(doc["warnings"].size(), 0u) << doc["warnings"].dump();
  // The 2.7 aarch64 cu128 wheels: 9.0 10.0 12.0 from the 2.7-era aarch64 build script.
  doc = SelectJson("linux-gh200-aarch64-driver580-sbsa", {"torch==2.7.1"});
  EXPECT_EQ(doc["backend"], "cu128");
  EXPECT_NE(doc["explanation"][0].get<std::string>().find("sm_90 by cubin sm_90"),
            std::string::npos)
      << doc["explanation"].dump();
  EXPECT_EQ(doc["warnings"].size(), 0u) << doc["warnings"].dump();
  // A build whose list is still unknown (the 2.7 cu118 wheels) is chosen when named, and said
  // in the warnings, not only in a note.
  doc = SelectJson("linux-h100-driver570-open", {"--torch-backend", "cu118", "torch==2.7.1"});
  EXPECT_EQ(doc["backend"], "cu118");
  ASSERT_EQ(doc["warnings"].size(), 1u) << doc.dump();
  EXPECT_NE(doc["warnings"][0].get<std::string>().find(
                "the arch list of cu118 for torch 2.7.1 (x86_64) is not known"),
            std::string::npos)
      << doc["warnings"].dump();
  // DGX Spark (GB10, sm_121): the 12.0 cubins of the aarch64 builds run it.
  doc = SelectJson("dgx-spark-gb10-aarch64-driver580");
  EXPECT_NE(doc["explanation"][0].get<std::string>().find("sm_121 by cubin sm_120"),
            std::string::npos)
      << doc["explanation"].dump();
}

TEST(SelectCliTest, JetsonIsRefusedWithAPointer) {
  const nlohmann::json doc = SelectJson("jetson-orin-r36");
  EXPECT_EQ(doc["backend"], "cpu");
  EXPECT_NE(
      FirstReason(doc, "cu126")
          .find("https://docs.nvidia.com/deeplearning/frameworks/install-pytorch-jetson-platform/"),
      std::string::npos)
      << FirstReason(doc, "cu126");
}

TEST(SelectCliTest, APageMissingFromTheCatalogueIsUnknownNotAbsent) {
  // The 2026-03-15 snapshot lists rocm7.0/rocm7.1 without their project pages: torch comes from
  // the flat torch/ page, torchvision is not crawled there.
  nlohmann::json doc = SelectJson("amd-rx7900xtx-gfx1100-rocm6.4");
  EXPECT_EQ(doc["backend"], "rocm7.1");
  EXPECT_EQ(doc["primary_version"], "2.10.0+rocm7.1");
  EXPECT_NE(doc["catalogue"].get<std::string>().find(
                "https://download.pytorch.org/whl/ as of 2026-03-15"),
            std::string::npos)
      << doc["catalogue"];
  doc = SelectJson("amd-rx7900xtx-gfx1100-rocm6.4", {"torch", "torchvision"});
  EXPECT_EQ(doc["backend"], "rocm6.4");
  EXPECT_EQ(FirstReason(doc, "rocm7.1"),
            "torchvision on rocm7.1 is unknown (not crawled: its page was missing from the "
            "catalogue of 2026-03-15)");
  // Named, it is left to the live index, and said.
  const Result named = Select({"--torch-backend", "rocm7.1", "torchvision", "--json"});
  ASSERT_EQ(named.code, kExitOk) << named.err;
  doc = nlohmann::json::parse(named.out);
  EXPECT_EQ(doc["backend"], "rocm7.1");
  ASSERT_EQ(doc["warnings"].size(), 1u) << doc.dump();
  EXPECT_NE(
      doc["warnings"][0].get<std::string>().find("torchvision on rocm7.1 is unknown (not crawled"),
      std::string::npos);
}

TEST(SelectCliTest, ANamedBackendSkipsDetectionAndIsChecked) {
  Result r = Select({"--torch-backend", "cu126"});
  EXPECT_EQ(r.code, kExitOk) << r.err;
  EXPECT_EQ(r.out, "cu126  https://download.pytorch.org/whl/cu126/\n");
  r = Select({}, {{"TORCHDEX_TORCH_BACKEND", "xpu"}});
  EXPECT_EQ(r.out, "xpu  https://download.pytorch.org/whl/xpu/\n");
  r = Select({}, {{"UV_TORCH_BACKEND", "cu118"}});
  EXPECT_EQ(r.out, "cu118  https://download.pytorch.org/whl/cu118/\n");
  r = Select({"--torch-backend", "cu12"});
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_NE(r.err.find("unknown backend 'cu12' (from --torch-backend) (did you mean cu129?); known backends: cpu, "),
            std::string::npos) << r.err;
  r = Select({"--torch-backend", "cu126", "torch==2.3.1"});
  EXPECT_EQ(r.code, kExitNoBackend);
  EXPECT_NE(r.err.find("torch==2.3.1 is not offered on cu126 (named by --torch-backend)"), std::string::npos) << r.err;
}

class TempDir {
 public:
  TempDir() {
    char pattern[] = "/tmp/torchdex-select-XXXXXX";
    path_ = mkdtemp(pattern);
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string Write(const std::string& name, const std::string& text) const {
    const fs::path p = path_ / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p.string();
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

TEST(SelectCliTest, OverrideFilesPinMirrorAndFail) {
  TempDir t;
  const std::string file = t.Write("o.json", R"({"format": 1,
    // our Artifactory mirrors the whole index
    "mirror": "https://artifactory.example.com/api/pypi/pytorch/whl/",
    "pin": {"torch": "cu126"}})");
  Result r = Select({"--root", (kHosts / "linux-rtx3090-driver550-proprietary").string(), "--catalogue", file});
  EXPECT_EQ(r.code, kExitOk) << r.err;
  EXPECT_EQ(r.out, "cu126  https://artifactory.example.com/api/pypi/pytorch/whl/cu126/\n");
  // The same file found through the environment and through the config folder.
  r = Select({"--root", (kHosts / "linux-no-gpu").string()}, {{"TORCHDEX_CATALOGUE", file}});
  EXPECT_EQ(r.out, "cu126  https://artifactory.example.com/api/pypi/pytorch/whl/cu126/\n");
  t.Write("config/torchdex/catalogue.d/10-mirror.json", R"({"format": 1, "mirror": "https://nexus.example.com/whl/"})");
  r = Select({"--root", (kHosts / "linux-no-gpu").string()}, {{"XDG_CONFIG_HOME", (t.path() / "config").string()}});
  EXPECT_EQ(r.out, "cpu  https://nexus.example.com/whl/cpu/\n");
  // A bad file stops everything, naming the file and where.
  const std::string bad = t.Write("bad.json", R"({"format": 1, "pin": {"torch": "cu12"}})");
  r = Select({"--catalogue", bad});
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_NE(r.err.find("unknown backend 'cu12' (from pin of torch in " + bad + ")"), std::string::npos) << r.err;
  const std::string broken = t.Write("broken.json", "{\"format\": 1,\n  \"mirror\": }");
  r = Select({"--catalogue", broken});
  EXPECT_EQ(r.code, kExitBadInputFile);
  EXPECT_NE(r.err.find(broken + ":2:"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace torchdex::installer

namespace torchdex::installer {
namespace {

Result Catalogue(std::vector<std::string> args, Environment env = {}) {
  const std::unique_ptr<ProcessRunner> runner = MakeSystemProcessRunner();
  const SteadyClock clock;
  Deps deps{env, *runner, clock};
  args.insert(args.begin(), "catalogue");
  std::ostringstream out, err;
  const int code = Main(args, deps, out, err);
  return {code, out.str(), err.str()};
}

// Issue 13 item 19: a file name that is not UTF-8 reaches `catalogue show --json` as U+FFFD,
// instead of aborting the command.
TEST(CatalogueCliTest, TheJsonIsValidUtf8WhateverTheFileNames) {
  TempDir t;
  const std::string file = t.Write("site\xff.json", R"({"format": 1, "pin": {"torch": "cu126"}})");
  const Result r = Catalogue({"show", "--json", "--catalogue", file});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  const nlohmann::json doc = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << r.out;
  EXPECT_NE(doc.dump().find("site\xef\xbf\xbd.json"), std::string::npos) << r.out;
}

TEST(CatalogueCliTest, ShowsWhereEachEntryCameFrom) {
  TempDir t;
  const std::string file = t.Write("site.json", R"({"format": 1, "mirror": "https://nexus.example.com/whl/",
    "routed": {"add": {"my-ext": "built per CUDA version by our CI"}, "remove": {"torchdata": "we take it from PyPI"}},
    "pin": {"torchvision": "cu126"}})");
  Result r = Catalogue({"show", "--json", "--catalogue", file});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["mirror"]["from"], file);
  std::map<std::string, std::string> routed_from;
  for (const auto& entry : doc["routed"]) routed_from[entry["name"]] = entry["from"];
  EXPECT_EQ(routed_from.at("torch"), "embedded");
  EXPECT_EQ(routed_from.at("my-ext"), file);
  EXPECT_EQ(routed_from.count("torchdata"), 0u);
  EXPECT_EQ(doc["removed"][0]["name"], "torchdata");
  bool cu128 = false;
  for (const auto& b : doc["backends"]) {
    if (b["name"] == "cu128") {
      cu128 = true;
      EXPECT_EQ(b["index_url"], "https://nexus.example.com/whl/cu128/");
      EXPECT_EQ(b["from"], file);
    }
  }
  EXPECT_TRUE(cu128);
  EXPECT_EQ(doc["pins"][0]["backend"], "cu126");
  // Plain text says the same.
  r = Catalogue({"show", "--catalogue", file});
  EXPECT_NE(r.out.find("  my-ext  [" + file + "]  built per CUDA version by our CI"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("pin: torchvision -> cu126  [" + file + "]"), std::string::npos);
}

TEST(SelectCliTest, ExplainSaysEachReasonOnce) {
  // It printed "no AMD GPU found" once per ROCm backend, 24 lines (issue 13, D.17).
  const Result r = Select({"--root", (kHosts / "linux-no-gpu").string(), "--explain"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  auto count = [&](const std::string& needle) {
    std::size_t n = 0;
    for (std::size_t at = r.out.find(needle); at != std::string::npos; at = r.out.find(needle, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("  no AMD GPU found:\n"), 1u) << r.out;
  EXPECT_EQ(count("  no NVIDIA GPU found:\n"), 1u) << r.out;
  EXPECT_NE(r.out.find(" rocm6.4 "), std::string::npos) << r.out;  // every backend still named
  EXPECT_NE(r.out.find("  xpu       no Intel GPU that PyTorch XPU supports\n"), std::string::npos) << r.out;
}

TEST(CatalogueCliTest, ChecksOneFile) {
  TempDir t;
  Result r = Catalogue({"check", t.Write("good.json", R"({"format": 1, "pin": {"torch": "cu126"}})")});
  EXPECT_EQ(r.code, kExitOk) << r.err;
  EXPECT_NE(r.out.find(": ok: 1 pin(s)"), std::string::npos);
  const std::string bad = t.Write("bad.json", R"({"format": 1, "pin": {"torch": "cu12"}})");
  r = Catalogue({"check", bad});
  EXPECT_EQ(r.code, kExitBadInputFile);
  EXPECT_EQ(r.err, "torchdex catalogue check: " + bad + ": /pin/torch: unknown backend 'cu12' (did you mean cu129?)\n");
  const std::string typo = t.Write("typo.json", R"({"format": 1, "pins": {}})");
  r = Catalogue({"check", typo});
  EXPECT_EQ(r.code, kExitBadInputFile);
  EXPECT_NE(r.err.find(typo + ": /pins: unknown key \"pins\" (did you mean \"pin\"?)"), std::string::npos) << r.err;
  r = Catalogue({"frobnicate"});
  EXPECT_EQ(r.code, kExitUsage);
}

}  // namespace
}  // namespace torchdex::installer

namespace torchdex::installer {
namespace {

TEST(SelectCliTest, ANewerCatalogueFromAnOverrideFileReplacesTheEmbeddedOne) {
  // The small catalogue of the codegen tests: cpu, cu118, cu128 and rocm6.3, torch up to 2.8.0.
  TempDir t;
  const std::string catalogue = std::string(TORCHDEX_FIXTURES_DIR) + "/codegen/catalogue-small/catalogue.json";
  const std::string file = t.Write("newer.json", "{\"format\": 1, \"catalogue\": \"" + catalogue + "\"}");
  const Result r = Select({"--root", (kHosts / "linux-rtx3090-driver550-proprietary").string(), "--catalogue",
                           file, "--json"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["backend"], "cu128");
  EXPECT_EQ(doc["primary_version"], "2.8.0+cu128");  // the small catalogue's newest, not 2.10.0
  EXPECT_NE(doc["catalogue"].get<std::string>().find(catalogue), std::string::npos) << doc["catalogue"];
  for (const auto& c : doc["candidates"]) EXPECT_NE(c["backend"], "cu126");  // not in it
  // A catalogue that does not parse names itself and the file that named it.
  const std::string broken = t.Write("broken-catalogue.json", "{\"schema_version\": 7}");
  const std::string names_broken = t.Write("o.json", "{\"format\": 1, \"catalogue\": \"" + broken + "\"}");
  const Result bad = Select({"--catalogue", names_broken});
  EXPECT_EQ(bad.code, kExitBadInputFile);
  EXPECT_NE(bad.err.find(broken + ": /schema_version"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("(named by " + names_broken + ")"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace torchdex::installer

namespace torchdex::installer {
namespace {

Result Install(std::vector<std::string> args) {
  const std::unique_ptr<ProcessRunner> runner = MakeSystemProcessRunner();
  const SteadyClock clock;
  Environment env = EnvironmentFromEnviron(environ);
  Deps deps{env, *runner, clock};
  args.insert(args.begin(), "install");
  std::ostringstream out, err;
  const int code = Main(args, deps, out, err);
  return {code, out.str(), err.str()};
}

TEST(SelectCliTest, NightlyChoosesFromTheNightlyVersionsAndInstallPlansThem) {
  const std::string host = (kHosts / "linux-rtx3090-driver550-proprietary").string();
  const nlohmann::json doc =
      SelectJson("linux-rtx3090-driver550-proprietary", {"--channel", "nightly"});
  EXPECT_EQ(doc["channel"], "nightly");
  const std::string version = doc["primary_version"];
  EXPECT_NE(version.find(".dev"), std::string::npos) << version;  // pre-releases allowed
  EXPECT_EQ(doc["index_url"],
            "https://download.pytorch.org/whl/nightly/" + doc["backend"].get<std::string>() + "/");
  EXPECT_EQ(doc["warnings"].size(), 0u) << doc["warnings"].dump();
  // The plan is the same version (offline: the compiled table's nightly channel).
  const Result plan =
      Install({"--dry-run", "--offline", "--channel", "nightly", "--root", host, "torch"});
  ASSERT_EQ(plan.code, kExitOk) << plan.err;
  EXPECT_NE(plan.out.find("  torch " + version + "\n"), std::string::npos) << plan.out;
  // The stable answer is untouched.
  EXPECT_EQ(SelectJson("linux-rtx3090-driver550-proprietary")["primary_version"], "2.10.0+cu129");
}

TEST(SelectCliTest, TestChoosesFromATestCatalogueAndInstallPlansIt) {
  // The snapshot holds no test page, so the embedded table has no test versions (and says so);
  // a test-channel catalogue named by an override file does.
  nlohmann::json doc = SelectJson("linux-rtx3090-driver550-proprietary", {"--channel", "test"});
  ASSERT_EQ(doc["warnings"].size(), 1u);
  EXPECT_NE(doc["warnings"][0].get<std::string>().find("holds no test versions"),
            std::string::npos);
  TempDir t;
  const std::string catalogue =
      std::string(TORCHDEX_FIXTURES_DIR) + "/catalogues/test-channel.json";
  const std::string file =
      t.Write("test.json", "{\"format\": 1, \"catalogue\": \"" + catalogue + "\"}");
  const std::string host = (kHosts / "linux-rtx3090-driver550-proprietary").string();
  doc =
      SelectJson("linux-rtx3090-driver550-proprietary", {"--channel", "test", "--catalogue", file});
  EXPECT_EQ(doc["backend"], "cu128");
  EXPECT_EQ(doc["primary_version"], "2.11.0+cu128");
  EXPECT_EQ(doc["warnings"].size(), 0u) << doc["warnings"].dump();
  const Result plan = Install({"--dry-run", "--offline", "--channel", "test", "--root", host,
                               "--catalogue", file, "torch"});
  ASSERT_EQ(plan.code, kExitOk) << plan.err;
  EXPECT_NE(plan.out.find("  torch 2.11.0+cu128\n"), std::string::npos) << plan.out;
}

}  // namespace
}  // namespace torchdex::installer
