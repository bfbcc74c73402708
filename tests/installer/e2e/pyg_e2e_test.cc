// Indexes keyed by the chosen torch end to end (docs/families.md): the loopback torch index of
// make_index.py and the copy of PyG's find-links pages that tests/fixtures/pyg-index/
// make_pyg_index.py builds, served by a real nginx; `torchdex install torch torch-scatter` in
// process with an override file pointing the torch mirror and PyG's find_links at nginx; the
// real pip of a fresh venv installs the plan, and the default index's bait torch-scatter 9.9.9
// is never asked for.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/sha256.h"
#include "installer/cli/run.h"
#include "installer/platform/clock.h"
#include "installer/platform/process_runner.h"
#include "tests/installer/e2e/e2e_support.h"
#include "tests/support/nginx.h"

namespace torchdex::installer {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

const fs::path kFixtures = TORCHDEX_FIXTURES_DIR;

using e2e::Output;
using e2e::ReadBytes;

class PygE2eTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const fs::path root = e2e::MakeTempRoot("pyg-e2e");
    ASSERT_FALSE(root.empty());
    root_ = new fs::path(root);
    runner_ = MakeSystemProcessRunner().release();
    env_ = new Environment(e2e::ChildEnvironment(root));
    Output torch = Child({TORCHDEX_TEST_PYTHON, TORCHDEX_MAKE_INDEX_SCRIPT, (*root_ / "index").string()});
    ASSERT_EQ(torch.exit_code, 0) << torch.err;
    Output pyg = Child({TORCHDEX_TEST_PYTHON, (kFixtures / "pyg-index/make_pyg_index.py").string(),
                        (*root_ / "index").string()});
    ASSERT_EQ(pyg.exit_code, 0) << pyg.err;
    auto nginx = testing::Nginx::Start(*root_ / "index");
    ASSERT_TRUE(nginx.ok()) << nginx.error().message;
    nginx_ = nginx->release();
    Output venv = Child({TORCHDEX_TEST_PYTHON, "-m", "venv", (*root_ / "base-venv").string()});
    ASSERT_EQ(venv.exit_code, 0) << venv.err;
    overrides_ = new std::string((*root_ / "pyg-mirror.json").string());
    std::ofstream(*overrides_) << "{\"format\": 1, \"mirror\": \"" + nginx_->Url("/whl/") +
                                      "\", \"find_links\": {\"pyg\": \"" + nginx_->Url("/pyg/whl/") + "\"}}\n";
  }
  static void TearDownTestSuite() {
    delete nginx_;
    delete runner_;
    delete env_;
    delete overrides_;
    if (root_ != nullptr) fs::remove_all(*root_);
    delete root_;
  }
  void SetUp() override {
    if (nginx_ == nullptr || overrides_ == nullptr) GTEST_SKIP() << "suite setup failed";
  }

  static Output Child(const std::vector<std::string>& argv) { return e2e::RunChild(*runner_, argv, *env_); }
  static std::string NewVenv(const std::string& name) { return e2e::CopyVenv(*root_, name); }
  static Output Torchdex(std::vector<std::string> args) { return e2e::RunTorchdex(args, *env_, *runner_); }
  static std::vector<std::string> Args(const std::string& command, const std::string& backend,
                                       const std::string& python, std::vector<std::string> requirements) {
    std::vector<std::string> args = {"install"};
    if (command == "dry-run") args.push_back("--dry-run");
    for (const std::string& a : {std::string("--explain"), std::string("--torch-backend"), backend,
                                 std::string("--python"), python, std::string("--catalogue"), *overrides_,
                                 std::string("--index-url"), nginx_->Url("/simple/")}) {
      args.push_back(a);
    }
    args.insert(args.end(), requirements.begin(), requirements.end());
    return args;
  }
  // "cp311-cp311-linux_x86_64": the tag make_pyg_index.py built the wheels for.
  static std::string WheelTag(const std::string& python) {
    Output tag = Child({python, "-c",
                        "import sys, platform; t = f'cp{sys.version_info[0]}{sys.version_info[1]}'; "
                        "print(f'{t}-{t}-linux_{platform.machine()}')"});
    return tag.out.substr(0, tag.out.find('\n'));
  }

  static fs::path* root_;
  static testing::Nginx* nginx_;
  static ProcessRunner* runner_;
  static Environment* env_;
  static std::string* overrides_;
};
fs::path* PygE2eTest::root_ = nullptr;
testing::Nginx* PygE2eTest::nginx_ = nullptr;
ProcessRunner* PygE2eTest::runner_ = nullptr;
Environment* PygE2eTest::env_ = nullptr;
std::string* PygE2eTest::overrides_ = nullptr;

TEST_F(PygE2eTest, TheDryRunPlansTorchScatterFromThePageOfTheChosenTorch) {
  const std::string python = NewVenv("venv-dry");
  const std::string tag = WheelTag(python);
  // torch==2.5.1: the page of torch 2.5 (torch-2.5.0+cu124.html), its newest torch-scatter.
  const Output r = Torchdex(Args("dry-run", "cu124", python, {"torch==2.5.1", "torch-scatter"}));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string file = "torch_scatter-2.1.2+pt25cu124-" + tag + ".whl";
  const std::string hash = core::Sha256Hex(ReadBytes(*root_ / "index/pyg/whl/torch-2.5.0+cu124" / file));
  EXPECT_THAT(r.out, HasSubstr("torch-scatter 2.1.2+pt25cu124: from the pyg page for torch 2.5.1+cu124 on cu124, "
                               "torch-2.5.0+cu124.html (its wheels are labelled +pt25cu124): torch 2.5.1+cu124 is "
                               "what torchdex chose"));
  EXPECT_THAT(r.out, HasSubstr("base URL from " + *overrides_));
  EXPECT_THAT(r.out, HasSubstr("  torch-scatter 2.1.2+pt25cu124\n    url:    " +
                               nginx_->Url("/pyg/whl/torch-2.5.0%2Bcu124/torch_scatter-2.1.2%2Bpt25cu124-" + tag +
                                           ".whl") +
                               "\n    sha256: " + hash + "\n    page:   " +
                               nginx_->Url("/pyg/whl/torch-2.5.0+cu124.html")));
  // The routing index keeps every PyG name off the default index.
  EXPECT_THAT(r.out, HasSubstr("torch-scatter"));
  EXPECT_THAT(r.out, HasSubstr("torch-scatter @ " + nginx_->Url("/pyg/whl/torch-2.5.0%2Bcu124/")));
  EXPECT_THAT(nginx_->AccessLog(), Not(HasSubstr("GET /simple/torch-scatter")));
}

TEST_F(PygE2eTest, PipInstallsTorchAndTheTorchScatterOfItsPage) {
  const std::string python = NewVenv("venv-pip");
  // No version asked: torch 2.6.0+cu124, the newest on the backend, and so the 2.6 page.
  const Output r = Torchdex(Args("install", "cu124", python, {"torch", "torch-scatter"}));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("from the pyg page for torch 2.6.0+cu124 on cu124, torch-2.6.0+cu124.html"));
  EXPECT_THAT(r.out, HasSubstr("this page is not in data/dependent-indexes.json: read as published"));
  const Output built = Child({python, "-c",
                              "import importlib.metadata as m, torch_scatter as s; "
                              "print(m.version('torch'), m.version('torch-scatter'), s.built_for)"});
  ASSERT_EQ(built.exit_code, 0) << built.err;
  EXPECT_EQ(built.out, "2.6.0+cu124 2.1.2+pt26cu124 torch-2.6.0+cu124\n");
  EXPECT_THAT(nginx_->AccessLog(), HasSubstr("GET /pyg/whl/torch-2.6.0+cu124.html"));
  EXPECT_THAT(nginx_->AccessLog(), Not(HasSubstr("GET /simple/torch-scatter")));
}

TEST_F(PygE2eTest, NoPageForTheChosenTorchNamesTheNearestAndInstallsNothing) {
  const std::string python = NewVenv("venv-none");
  // cu121 has torch 2.5.1+cu121; the copy has no torch-2.5.0+cu121.html.
  const Output r = Torchdex(Args("install", "cu121", python, {"torch", "torch-scatter"}));
  EXPECT_EQ(r.exit_code, 4) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr("torch-scatter: pyg publishes no page for torch 2.5.1+cu121 on cu121 (" +
                               nginx_->Url("/pyg/whl/torch-2.5.0+cu121.html") +
                               " answered 404); the nearest pages: torch-2.5.0+cpu.html, torch-2.5.0+cu118.html, "
                               "torch-2.5.0+cu124.html, torch-2.4.0+cu121.html"));
  const Output none = Child({python, "-c", "import torch"});
  EXPECT_NE(none.exit_code, 0);
}

TEST_F(PygE2eTest, APageListingWheelsForAnotherTorchIsRefused) {
  const std::string python = NewVenv("venv-hostile");
  const Output r = Torchdex(Args("dry-run", "cpu", python, {"torch", "torch-scatter"}));
  EXPECT_EQ(r.exit_code, 6) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr(nginx_->Url("/pyg/whl/torch-2.5.0+cpu.html") + ": link 2, torch_scatter-2.1.2+pt24cu121-"));
  EXPECT_THAT(r.err, HasSubstr("built for +pt24cu121, not for +pt25cpu as the page torch-2.5.0+cpu.html is keyed"));
}

}  // namespace
}  // namespace torchdex::installer
