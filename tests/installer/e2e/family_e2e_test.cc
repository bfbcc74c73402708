// The paddle family end to end (docs/families.md): the loopback copy of PaddlePaddle's
// per-backend indexes that tests/fixtures/paddle-index/make_paddle_index.py builds (tiny but
// valid wheels, one build of each version per CUDA folder, a default index with a bait
// paddlepaddle-gpu 9.9.9) served by a real nginx; `torchdex install --family paddle` in
// process on a captured A100 host (driver 535.104.05), through the family's mirror override;
// the real pip of a fresh venv and the tools venv's uv install the plan.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
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
const std::string kA100 = (kFixtures / "hosts/container-with-devices-a100-driver535").string();

using e2e::Output;
using e2e::ReadBytes;

class FamilyE2eTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const fs::path root = e2e::MakeTempRoot("family-e2e");
    ASSERT_FALSE(root.empty());
    root_ = new fs::path(root);
    runner_ = MakeSystemProcessRunner().release();
    env_ = new Environment(e2e::ChildEnvironment(root));
    Output index = Child({TORCHDEX_TEST_PYTHON, (kFixtures / "paddle-index/make_paddle_index.py").string(),
                          (*root_ / "index").string()});
    ASSERT_EQ(index.exit_code, 0) << index.err;
    auto nginx = testing::Nginx::Start(*root_ / "index");
    ASSERT_TRUE(nginx.ok()) << nginx.error().message;
    nginx_ = nginx->release();
    Output venv = Child({TORCHDEX_TEST_PYTHON, "-m", "venv", (*root_ / "base-venv").string()});
    ASSERT_EQ(venv.exit_code, 0) << venv.err;
    overrides_ = new std::string((*root_ / "paddle-mirror.json").string());
    std::ofstream(*overrides_) << "{\"format\": 1, \"families\": {\"paddle\": {\"mirror\": \"" +
                                      nginx_->Url("/packages/") + "\"}}}\n";
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

  static Output Child(const std::vector<std::string>& argv, const Environment* env = nullptr) {
    return e2e::RunChild(*runner_, argv, env ? *env : *env_);
  }
  static std::string NewVenv(const std::string& name) { return e2e::CopyVenv(*root_, name); }
  static Output Torchdex(std::vector<std::string> args, const Environment* env = nullptr) {
    return e2e::RunTorchdex(args, env ? *env : *env_, *runner_);
  }
  // The tag of the venv's interpreter: "cp311".
  static std::string PythonTag(const std::string& python) {
    Output tag = Child({python, "-c", "import sys; print(f'cp{sys.version_info[0]}{sys.version_info[1]}')"});
    return tag.out.substr(0, tag.out.find('\n'));
  }

  static fs::path* root_;
  static testing::Nginx* nginx_;
  static ProcessRunner* runner_;
  static Environment* env_;
  static std::string* overrides_;
};
fs::path* FamilyE2eTest::root_ = nullptr;
testing::Nginx* FamilyE2eTest::nginx_ = nullptr;
ProcessRunner* FamilyE2eTest::runner_ = nullptr;
Environment* FamilyE2eTest::env_ = nullptr;
std::string* FamilyE2eTest::overrides_ = nullptr;

TEST_F(FamilyE2eTest, TheDryRunOnAnA100PlansTheCudaBuildItsDriverRuns) {
  const std::string python = NewVenv("venv-dry");
  const std::string tag = PythonTag(python);
  const Output r = Torchdex({"install", "--dry-run", "--explain", "--family", "paddle", "--torch-backend=auto", "--root",
                             kA100, "--python", python, "--catalogue", *overrides_, "--index-url",
                             nginx_->Url("/simple/"), "paddlepaddle-gpu"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("chose cu118 (CUDA): paddlepaddle-gpu 3.1.0 is the newest that fits"));
  EXPECT_THAT(r.out, HasSubstr("backend: cu118 (" + nginx_->Url("/packages/stable/cu118/") + ")"));
  // The wheel of the cu118 folder, by URL and by the hash of its bytes (cu126 has a file of the
  // same name with other bytes).
  const std::string file = "paddlepaddle_gpu-3.1.0-" + tag + "-" + tag + "-manylinux1_x86_64.whl";
  const fs::path cu118 = *root_ / "index/packages/stable/cu118/paddlepaddle-gpu" / file;
  const fs::path cu126 = *root_ / "index/packages/stable/cu126/paddlepaddle-gpu" / file;
  const std::string hash118 = core::Sha256Hex(ReadBytes(cu118));
  ASSERT_NE(hash118, core::Sha256Hex(ReadBytes(cu126)));
  EXPECT_THAT(r.out, HasSubstr(nginx_->Url("/packages/stable/cu118/paddlepaddle-gpu/" + file)));
  EXPECT_THAT(r.out, HasSubstr(hash118));
  EXPECT_THAT(r.out, Not(HasSubstr("/cu126/paddlepaddle-gpu/")));
  // The floor of the CUDA 11.8 build (PaddlePaddle documents the same as NVIDIA for 11.x).
  EXPECT_THAT(r.out, HasSubstr("driver 535.104.05 >= 450.80.02 (Linux)"));
}

TEST_F(FamilyE2eTest, PipInstallsTheCu118BuildAndNotTheDefaultIndexBait) {
  const std::string python = NewVenv("venv-pip");
  const Output r = Torchdex({"install", "--family", "paddle", "--root", kA100, "--python", python, "--catalogue",
                             *overrides_, "--index-url", nginx_->Url("/simple/"), "paddlepaddle-gpu"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const Output built = Child({python, "-c",
                              "import importlib.metadata as m, paddlepaddle_gpu as p; "
                              "print(m.version('paddlepaddle-gpu'), p.built_for, m.version('numpy'))"});
  ASSERT_EQ(built.exit_code, 0) << built.err;
  EXPECT_EQ(built.out, "3.1.0 stable/cu118 2.2.0\n");  // numpy from the default index
  EXPECT_THAT(nginx_->AccessLog(), Not(HasSubstr("GET /simple/paddlepaddle-gpu")));
}

TEST_F(FamilyE2eTest, UvInstallsTheBuildTheNewerDriverRuns) {
  // The RTX 3090 host's driver 550.144.03 runs the CUDA 12.6 build: uv gets cu126's wheel.
  const std::string python = NewVenv("venv-uv");
  Environment env = *env_;
  env["PATH"] = std::string(TORCHDEX_TOOLS_BIN_DIR) + ":" + env["PATH"];
  env["UV_CACHE_DIR"] = (*root_ / "uv-cache").string();
  env["UV_NO_CONFIG"] = "1";
  env["UV_PYTHON_DOWNLOADS"] = "never";
  const Output r = Torchdex({"install", "--installer", "uv", "--family", "paddle", "--root",
                             (kFixtures / "hosts/linux-rtx3090-driver550-proprietary").string(), "--python", python,
                             "--catalogue", *overrides_, "--index-url", nginx_->Url("/simple/"), "paddlepaddle-gpu"},
                            &env);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const Output built = Child({python, "-c", "import paddlepaddle_gpu as p; print(p.built_for)"});
  EXPECT_EQ(built.out, "stable/cu126\n") << built.err;
}

// Extras chosen by the driver: `install --torch-backend=auto jax` on the A100 host (driver
// 535.104.05) asks the default index for jax[cuda12], since jax[cuda13] needs 580; pip installs
// jax with the CUDA 12 plugin its extra requires, and never the CUDA 13 one.
TEST_F(FamilyE2eTest, InstallJaxGetsTheExtraTheDriverRuns) {
  const std::string python = NewVenv("venv-jax");
  const std::vector<std::string> args = {"--torch-backend=auto", "--root", kA100, "--python", python,
                                         "--index-url", nginx_->Url("/simple/"), "jax"};
  std::vector<std::string> dry = {"install", "--dry-run"};
  dry.insert(dry.end(), args.begin(), args.end());
  const Output plan = Torchdex(dry);
  ASSERT_EQ(plan.exit_code, 0) << plan.out << plan.err;
  EXPECT_THAT(plan.out, HasSubstr("jax: jax[cuda12] for driver 535.104.05 (>= 525); [cuda13] needs driver >= 580"));
  EXPECT_THAT(plan.out, HasSubstr("jax[cuda12]"));
  std::vector<std::string> real = {"install"};
  real.insert(real.end(), args.begin(), args.end());
  const Output r = Torchdex(real);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const Output installed = Child({python, "-c",
                                  "import importlib.metadata as m\n"
                                  "print(sorted(d.metadata['Name'] for d in m.distributions() if 'jax' in d.metadata['Name']))"});
  EXPECT_EQ(installed.out, "['jax', 'jax-cuda12-plugin']\n") << installed.err;
}

}  // namespace
}  // namespace torchdex::installer
