// Custom backends of override files, against their own index on loopback nginx: a named or
// pinned one is read live; one that says what it runs on takes part in auto (issue 13, B.5).
// Before, each of these said "torch is not offered on internal".
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "core/sha256.h"
#include "installer/cli/run.h"
#include "installer/platform/clock.h"
#include "tests/installer/test_support.h"
#include "tests/support/nginx.h"

namespace torchdex::installer {
namespace {

namespace fs = std::filesystem;
const fs::path kHosts = fs::path(TORCHDEX_FIXTURES_DIR) / "hosts";
const std::string kSha = std::string(64, 'a');

using Result = testing::CliResult;

class CustomBackendTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ = new fs::path(fs::temp_directory_path() / ("torchdex-custom-" + std::to_string(::getpid())));
    fs::create_directories(*root_ / "internal/torch");
    std::ofstream(*root_ / "internal/torch/index.html")
        << "<!DOCTYPE html><html><body><h1>Links for torch</h1>\n"
        << "<a href=\"torch-2.5.1%2Bcu124-py3-none-any.whl#sha256=" << kSha << "\">torch-2.5.1+cu124-py3-none-any.whl</a><br/>\n"
        << "<a href=\"torch-2.4.1%2Bcu124-py3-none-any.whl#sha256=" << kSha << "\">torch-2.4.1+cu124-py3-none-any.whl</a><br/>\n"
        << "</body></html>\n";
    // AMD's multi-arch index layout for ROCm 7.14 (research/field-2026.md; TheRock
    // docs/packaging/python_packaging.md): torch's device code comes from per-target extras.
    fs::create_directories(*root_ / "amd/torch");
    const std::string metadata =
        "Metadata-Version: 2.1\nName: torch\nVersion: 2.14.0+rocm7.14\n"
        "Provides-Extra: device-all\nProvides-Extra: gfx942\nProvides-Extra: gfx1100\n"
        "Requires-Dist: filelock\nRequires-Dist: rocm[libraries]==7.14.*\n"
        "Requires-Dist: rocm[device-all]==7.14.*; extra == \"device-all\"\n"
        "Requires-Dist: rocm[device-gfx942]==7.14.*; extra == \"gfx942\"\n"
        "Requires-Dist: rocm[device-gfx1100]==7.14.*; extra == \"gfx1100\"\n\n";
    std::ofstream(*root_ / "amd/torch/torch-2.14.0+rocm7.14-py3-none-any.whl.metadata") << metadata;
    std::ofstream(*root_ / "amd/torch/index.html")
        << "<!DOCTYPE html><html><body><h1>Links for torch</h1>\n"
        << "<a href=\"torch-2.14.0%2Brocm7.14-py3-none-any.whl#sha256=" << kSha
        << "\" data-core-metadata=\"sha256=" << core::Sha256Hex(metadata)
        << "\">torch-2.14.0+rocm7.14-py3-none-any.whl</a><br/>\n</body></html>\n";
    auto nginx = torchdex::testing::Nginx::Start(*root_);
    ASSERT_TRUE(nginx.ok()) << nginx.error().message;
    nginx_ = nginx->release();
  }
  static void TearDownTestSuite() {
    delete nginx_;
    fs::remove_all(*root_);
    delete root_;
  }

  std::string Override(const std::string& body) {
    std::string name = "o";
    name.append(std::to_string(++files_)).append(".json");
    const fs::path file = *root_ / name;
    std::ofstream(file) << body;
    return file.string();
  }
  std::string Internal(const std::string& extra = "") {
    return Override(R"({"format": 1, "backends": {"internal": {"kind": "cuda", "toolkit": "12.4", "url": ")" +
                    nginx_->Url("/internal/") + "\"" + extra + "}}}");
  }
  Result Run(const std::vector<std::string>& args) { return testing::RunTorchdex(args); }

  static fs::path* root_;
  static torchdex::testing::Nginx* nginx_;
  int files_ = 0;
};
fs::path* CustomBackendTest::root_ = nullptr;
torchdex::testing::Nginx* CustomBackendTest::nginx_ = nullptr;

TEST_F(CustomBackendTest, ANamedCustomBackendReadsItsLivePage) {
  const std::string file = Internal();
  Result r = Run({"select", "--catalogue", file, "--torch-backend", "internal", "--explain"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_NE(r.out.find("internal  " + nginx_->Url("/internal/")), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("backend internal named by --torch-backend; torch 2.5.1+cu124"), std::string::npos) << r.out;
  r = Run({"select", "--catalogue", file, "--torch-backend", "internal", "torch==2.6.0"});
  EXPECT_EQ(r.code, kExitNoBackend);
  EXPECT_NE(r.err.find("torch==2.6.0 is not offered on internal"), std::string::npos) << r.err;
  // A pin names it as well.
  const std::string pin = Override(R"({"format": 1, "pin": {"torch": "internal"}})");
  r = Run({"select", "--catalogue", file, "--catalogue", pin, "torch==2.4.1", "--explain"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_NE(r.out.find("torch 2.4.1+cu124"), std::string::npos) << r.out;
}

TEST_F(CustomBackendTest, InstallPlansTheCustomBackendsWheel) {
  const Result r = Run({"install", "--dry-run", "--python", "/usr/bin/python3", "--catalogue", Internal(),
                        "--torch-backend", "internal", "torch==2.5.1"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_NE(r.out.find("torch @ " + nginx_->Url("/internal/torch/torch-2.5.1%2Bcu124-py3-none-any.whl") +
                       "#sha256=" + kSha),
            std::string::npos) << r.out;
}

TEST_F(CustomBackendTest, RocmDeviceCodeIsAskedForTheDetectedTargetOnly) {
  const std::string file = Override(R"({"format": 1, "backends": {"amd-7.14": {"kind": "rocm", "toolkit": "7.14", "url": ")" +
                                    nginx_->Url("/amd/") + "\"}}}");
  Result r = Run({"install", "--dry-run", "--python", "/usr/bin/python3", "--catalogue", file,
                  "--root", (kHosts / "amd-rx7900xtx-gfx1100-rocm6.4").string(), "--torch-backend", "amd-7.14",
                  "torch"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_NE(r.out.find("device: gfx1100 only (torch[gfx1100], the wheel's per-target extra)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("torch[gfx1100] @ " + nginx_->Url("/amd/torch/torch-2.14.0%2Brocm7.14-py3-none-any.whl")),
            std::string::npos) << r.out;
  // An APU whose target the wheel has no extra for: refused with what is offered (exit 4).
  r = Run({"install", "--dry-run", "--python", "/usr/bin/python3", "--catalogue", file,
           "--root", (kHosts / "amd-apu-gfx1036-unsupported").string(), "--torch-backend", "amd-7.14", "torch"});
  EXPECT_EQ(r.code, kExitNoBackend) << r.out << r.err;
  EXPECT_NE(r.err.find("offers device code for gfx942, gfx1100 (its extras), not for gfx1036"), std::string::npos) << r.err;
}

// `torchdex lock` narrows ROCm 7.14 device code as install does: the resolver is asked for
// torch[gfx1100] on a gfx1100 host. A stand-in uv records what it was asked and stops (the lock
// runs against the real uv in lock_e2e_test.cc; this index has no `rocm` packages to resolve).
TEST_F(CustomBackendTest, LockAsksTheResolverForTheHostsRocmDeviceCodeOnly) {
  const std::string file = Override(R"({"format": 1, "backends": {"amd-7.14": {"kind": "rocm", "toolkit": "7.14", "url": ")" +
                                    nginx_->Url("/amd/") + "\"}}}");
  const fs::path bin = *root_ / "fake-uv-bin";
  fs::create_directories(bin);
  std::ofstream(bin / "uv") << "#!/bin/sh\nfor last; do :; done\ncp \"$last\" \"$(dirname \"$0\")/asked.txt\"\n"
                               "echo 'stand-in uv: stops here' >&2\nexit 3\n";
  fs::permissions(bin / "uv", fs::perms::owner_all);
  const fs::path out = *root_ / "locks";
  fs::create_directories(out);
  auto lock = [&](const std::vector<std::string>& extra) {
    fs::remove(bin / "asked.txt");
    std::vector<std::string> args = {"lock", "--backend", "amd-7.14", "--catalogue", file, "--index-url",
                                     nginx_->Url("/simple/"), "-o", out.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back("torch");
    return testing::RunTorchdex(args, {{"PATH", bin.string() + ":/usr/bin:/bin"}});
  };
  Result r = lock({"--python", "/usr/bin/python3", "--root", (kHosts / "amd-rx7900xtx-gfx1100-rocm6.4").string()});
  EXPECT_NE(r.code, kExitOk);
  EXPECT_NE(r.err.find("stand-in uv: stops here"), std::string::npos) << r.out << r.err;
  std::ifstream asked(bin / "asked.txt");
  std::stringstream text;
  text << asked.rdbuf();
  EXPECT_EQ(text.str(), "torch[gfx1100]==2.14.0+rocm7.14\n");
  EXPECT_TRUE(fs::is_empty(out));
  // A host whose target the wheel has no extra for: refused before uv runs, as install refuses.
  r = lock({"--python", "/usr/bin/python3", "--root", (kHosts / "amd-apu-gfx1036-unsupported").string()});
  EXPECT_EQ(r.code, kExitNoBackend) << r.out << r.err;
  EXPECT_NE(r.err.find("offers device code for gfx942, gfx1100 (its extras), not for gfx1036"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(bin / "asked.txt"));
  // A described target has no host to read: the wheel as it is, and a warning saying how to choose.
  r = lock({"--python-version", "3.12"});
  std::ifstream plain(bin / "asked.txt");
  std::stringstream plain_text;
  plain_text << plain.rdbuf();
  EXPECT_EQ(plain_text.str(), "torch==2.14.0+rocm7.14\n") << r.out << r.err;
  EXPECT_NE(r.out.find("amd-7.14: warning: torch 2.14.0+rocm7.14 installs no device code without one of its extras"),
            std::string::npos) << r.out;
}

TEST_F(CustomBackendTest, OneThatSaysWhatItRunsOnTakesPartInAuto) {
  const std::string file = Internal(R"(, "driver_floor": {"linux": "525.60.13"}, "arch": ["8.6"])");
  const Result r = Run({"select", "--catalogue", file, "--root", (kHosts / "linux-rtx3090-driver550-proprietary").string(),
                        "torch==2.5.1", "--json"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  bool candidate = false;
  for (const auto& c : doc["candidates"]) {
    if (c["backend"] == "internal") {
      candidate = true;
      EXPECT_EQ(c["version"], "2.5.1+cu124");
    }
  }
  EXPECT_TRUE(candidate) << r.out;
  // An unreachable one is a warning, not an error, in auto; an error when named.
  const std::string gone = Override(R"({"format": 1, "backends": {"gone": {"kind": "cuda", "toolkit": "12.4", "url": "http://127.0.0.1:9/x/", "driver_floor": {"linux": "525.60.13"}, "arch": ["8.6"]}}})");
  const Result warned = Run({"select", "--catalogue", gone, "--root", (kHosts / "linux-rtx3090-driver550-proprietary").string(), "--json"});
  EXPECT_EQ(warned.code, kExitOk) << warned.err;
  EXPECT_NE(warned.out.find("custom backend gone"), std::string::npos) << warned.out;
  EXPECT_EQ(Run({"select", "--catalogue", gone, "--torch-backend", "gone"}).code, kExitNetwork);
}

TEST_F(CustomBackendTest, TheDocumentedExampleWorks) {
  // docs/overrides.md shows a cu126-internal backend: its example, pointed at loopback.
  std::ifstream in(fs::path(TORCHDEX_SOURCE_DIR) / "docs/overrides.md");
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  const std::size_t start = doc.find("```jsonc\n");
  ASSERT_NE(start, std::string::npos);
  std::string example = doc.substr(start + 9, doc.find("```", start + 9) - start - 9);
  example = std::regex_replace(example, std::regex("https://pypi.internal/cu126/"), nginx_->Url("/internal/"));
  example = std::regex_replace(example, std::regex(R"(\"catalogue\": \"catalogue.json\",)"), "");
  const Result r = Run({"select", "--catalogue", Override(example), "--torch-backend", "cu126-internal", "torch==2.5.1"});
  EXPECT_EQ(r.code, kExitOk) << r.err << "\n" << example;
  EXPECT_NE(r.out.find("cu126-internal  " + nginx_->Url("/internal/")), std::string::npos) << r.out;
}

}  // namespace
}  // namespace torchdex::installer
