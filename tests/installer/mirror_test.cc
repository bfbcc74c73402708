// With a mirror, nothing leaves it (issue 13, C.13): links on mirrored pages to the family's own
// hosts are fetched from the mirror, links elsewhere are refused, and auto on a mirror that
// lacks the chosen backend takes the next one that qualified, saying why.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "installer/cli/run.h"
#include "installer/platform/clock.h"
#include "tests/installer/test_support.h"
#include "tests/support/nginx.h"

namespace torchdex::installer {
namespace {

namespace fs = std::filesystem;
const fs::path kHosts = fs::path(TORCHDEX_FIXTURES_DIR) / "hosts";
const std::string kSha = std::string(64, 'b');

class MirrorTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ = new fs::path(fs::temp_directory_path() / ("torchdex-mirror-" + std::to_string(::getpid())));
    // The mirror carries cu126 and cpu only; its pages link the real hosts absolutely, as
    // nightly pages and some mirrors' copies do.
    for (const char* backend : {"cu126", "cpu"}) {
      fs::create_directories(*root_ / "whl" / backend / "torch");
      std::ofstream(*root_ / "whl" / backend / "torch" / "index.html")
          << "<html><body><h1>Links for torch</h1>\n"
          << "<a href=\"https://download.pytorch.org/whl/" << backend << "/torch-2.5.1%2B" << backend
          << "-py3-none-any.whl#sha256=" << kSha << "\">torch</a><br/>\n"
          << "<a href=\"https://download-r2.pytorch.org/whl/" << backend << "/torch-2.4.1%2B" << backend
          << "-py3-none-any.whl#sha256=" << kSha << "\">torch</a><br/>\n"
          << "<a href=\"https://evil.example/torch-2.3.1%2B" << backend << "-py3-none-any.whl#sha256=" << kSha
          << "\">torch</a><br/>\n</body></html>\n";
    }
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
  using Result = testing::CliResult;

  Result Install(std::vector<std::string> extra) {
    std::vector<std::string> args = {"install", "--dry-run", "--python", "/usr/bin/python3", "--catalogue", *mirror_};
    args.insert(args.end(), extra.begin(), extra.end());
    return testing::RunTorchdex(args);
  }
  static fs::path* root_;
  static torchdex::testing::Nginx* nginx_;
  static std::string* mirror_;
};
fs::path* MirrorTest::root_ = nullptr;
torchdex::testing::Nginx* MirrorTest::nginx_ = nullptr;
std::string* MirrorTest::mirror_ = nullptr;

TEST_F(MirrorTest, FilesOfTheFamilysHostsComeFromTheMirror) {
  for (const char* version : {"2.5.1", "2.4.1"}) {  // download.pytorch.org, download-r2.pytorch.org
    const Result r = Install({"--torch-backend", "cpu", std::string("torch==") + version});
    ASSERT_EQ(r.code, kExitOk) << r.err;
    EXPECT_NE(r.out.find("torch @ " + nginx_->Url("/whl/cpu/torch-") + version + "%2Bcpu-py3-none-any.whl"),
              std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("pytorch.org"), std::string::npos) << r.out;
  }
}

TEST_F(MirrorTest, AFileOnAnyOtherHostIsRefusedByName) {
  const Result r = Install({"--torch-backend", "cpu", "torch==2.3.1"});
  EXPECT_EQ(r.code, kExitNetwork);
  EXPECT_NE(r.err.find("is on evil.example, not the mirror"), std::string::npos) << r.err;
}

TEST_F(MirrorTest, AutoTakesTheNextBackendTheMirrorHas) {
  // An RTX 3090 on 550 gets cu128 first; this mirror has no cu128 (nginx answers 404).
  const Result r = Install({"--root", (kHosts / "linux-rtx3090-driver550-proprietary").string(), "torch"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_NE(r.out.find("skipped cu128 on the mirror: backend cu128 has no page for torch"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("chose cu126 instead"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("torch @ " + nginx_->Url("/whl/cu126/")), std::string::npos) << r.out;
}

}  // namespace
}  // namespace torchdex::installer
