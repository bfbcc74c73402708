// What pip and uv see of torchdex's environment (installer/install/installer_environment.h;
// issue 29, items 2 and 14): every variable that can give them another index, torch source or
// backend is dropped and named, what only tunes them is kept, and their configuration files are
// not read. The end-to-end runs with real pip and uv are in tests/installer/e2e.
#include "installer/install/installer_environment.h"

#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace torchdex::installer {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Each can add an index, a file source, a constraint or a backend (pip install --help; uv's
// environment reference).
const char* const kPipSources[] = {"PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "PIP_NO_INDEX",
                                   "PIP_CONSTRAINT", "PIP_REQUIREMENT", "PIP_PRE", "PIP_TRUSTED_HOST",
                                   "PIP_CONFIG_FILE", "PIP_SRC", "PIP_UPGRADE_STRATEGY"};
const char* const kUvSources[] = {"UV_TORCH_BACKEND", "UV_INDEX", "UV_INDEX_URL", "UV_DEFAULT_INDEX",
                                  "UV_EXTRA_INDEX_URL", "UV_FIND_LINKS", "UV_NO_SOURCES", "UV_CONFIG_FILE",
                                  "UV_INDEX_STRATEGY", "UV_OVERRIDE", "UV_CONSTRAINT", "UV_BUILD_CONSTRAINT",
                                  "UV_PRERELEASE", "UV_NO_INDEX", "UV_INSECURE_HOST", "UV_EXCLUDE_NEWER",
                                  "UV_PYTHON", "UV_SYSTEM_PYTHON", "UV_NO_CONFIG"};

TEST(InstallerEnvironmentTest, EveryVariableThatNamesASourceIsKeptFromPip) {
  Environment env = {{"PATH", "/usr/bin"}, {"HOME", "/home/u"}, {"PIP_CACHE_DIR", "/c"}, {"PIP_CERT", "/ca.pem"},
                     {"PIP_PROXY", "http://proxy:3128"}, {"UV_TORCH_BACKEND", "cu121"}};
  for (const char* name : kPipSources) env[name] = "https://bait.example/simple/";
  core::Expected<InstallerEnvironment> child = EnvironmentForInstaller(env, InstallerRun::kPip);
  ASSERT_TRUE(child.ok()) << child.error().message;
  for (const char* name : kPipSources) {
    if (std::string(name) == "PIP_CONFIG_FILE") continue;
    EXPECT_FALSE(child->env.contains(name)) << name;
    EXPECT_THAT(child->left_out, ::testing::Contains(std::string(name)));
  }
  // No configuration file at all: pip reads none when this is os.devnull.
  EXPECT_EQ(child->env.at("PIP_CONFIG_FILE"), "/dev/null");
  EXPECT_THAT(child->left_out, ::testing::Not(::testing::Contains(std::string("PIP_CONFIG_FILE"))));
  // What only tunes pip, and what is not pip's, stays.
  for (const char* kept : {"PATH", "HOME", "PIP_CACHE_DIR", "PIP_CERT", "PIP_PROXY", "UV_TORCH_BACKEND"}) {
    EXPECT_EQ(child->env.at(kept), env.at(kept)) << kept;
  }
  EXPECT_THAT(LeftOutNote(*child, "pip"), HasSubstr("PIP_CONSTRAINT, PIP_EXTRA_INDEX_URL, PIP_FIND_LINKS, "));
  EXPECT_THAT(LeftOutNote(*child, "pip"), HasSubstr(" are not passed to pip: "));
  // Names only: a value may hold credentials.
  EXPECT_THAT(LeftOutNote(*child, "pip"), ::testing::Not(HasSubstr("bait.example")));
}

TEST(InstallerEnvironmentTest, EveryVariableThatNamesASourceIsKeptFromUv) {
  Environment env = {{"PATH", "/usr/bin"}, {"UV_CACHE_DIR", "/c"}, {"UV_HTTP_TIMEOUT", "30"},
                     {"UV_INDEX_PYTORCH_CU128_USERNAME", "u"}, {"UV_INDEX_PYTORCH_CU128_PASSWORD", "p"},
                     {"PIP_INDEX_URL", "https://not-uvs/"}};
  for (const char* name : kUvSources) env[name] = "cu121";
  for (InstallerRun run : {InstallerRun::kUvPip, InstallerRun::kUvSync}) {
    core::Expected<InstallerEnvironment> child = EnvironmentForInstaller(env, run);
    ASSERT_TRUE(child.ok()) << child.error().message;
    for (const char* name : kUvSources) {
      if (run == InstallerRun::kUvPip && std::string(name) == "UV_NO_CONFIG") continue;
      EXPECT_FALSE(child->env.contains(name)) << name;
      EXPECT_THAT(child->left_out, ::testing::Contains(std::string(name)));
    }
    for (const char* kept : {"PATH", "UV_CACHE_DIR", "UV_HTTP_TIMEOUT", "UV_INDEX_PYTORCH_CU128_USERNAME",
                             "UV_INDEX_PYTORCH_CU128_PASSWORD", "PIP_INDEX_URL"}) {
      EXPECT_EQ(child->env.at(kept), env.at(kept)) << kept;
    }
    // uv pip reads no configuration file; uv sync must read the project's.
    EXPECT_EQ(child->env.contains("UV_NO_CONFIG"), run == InstallerRun::kUvPip);
  }
}

class UvSyncConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("torchdex-uv-config-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "project");
  }
  void TearDown() override { fs::remove_all(root_); }
  void Touch(const fs::path& file) {
    fs::create_directories(file.parent_path());
    std::ofstream(file) << "index-url = \"https://bait.example/simple/\"\n";
  }
  fs::path root_;
};

TEST_F(UvSyncConfigTest, TheUsersUvTomlIsHiddenAndOneThatCannotBeIsRefused) {
  Environment env = {{"HOME", (root_ / "home").string()}, {"XDG_CONFIG_DIRS", (root_ / "xdg").string()}};
  EXPECT_EQ(UserUvConfig(env), "");
  Touch(root_ / "home/.config/uv/uv.toml");
  EXPECT_EQ(UserUvConfig(env), (root_ / "home/.config/uv/uv.toml").string());
  env["XDG_CONFIG_HOME"] = (root_ / "config").string();
  EXPECT_EQ(UserUvConfig(env), "");  // XDG_CONFIG_HOME is where uv looks, when set
  Touch(root_ / "config/uv/uv.toml");
  EXPECT_EQ(UserUvConfig(env), (root_ / "config/uv/uv.toml").string());
  core::Expected<InstallerEnvironment> hidden =
      EnvironmentForInstaller(env, InstallerRun::kUvSync, (root_ / "empty").string(), (root_ / "project").string());
  ASSERT_TRUE(hidden.ok()) << hidden.error().message;
  EXPECT_EQ(hidden->env.at("XDG_CONFIG_HOME"), (root_ / "empty").string());

  Touch(root_ / "project/uv.toml");
  core::Expected<InstallerEnvironment> beside =
      EnvironmentForInstaller(env, InstallerRun::kUvSync, "", (root_ / "project").string());
  ASSERT_FALSE(beside.ok());
  EXPECT_THAT(beside.error().message, HasSubstr((root_ / "project/uv.toml").string() + ": uv reads it in place"));
  EXPECT_EQ(beside.error().code, core::ErrorCode::kBadInputFile);

  Touch(root_ / "xdg/uv/uv.toml");
  core::Expected<InstallerEnvironment> system = EnvironmentForInstaller(env, InstallerRun::kUvSync);
  ASSERT_FALSE(system.ok());
  EXPECT_THAT(system.error().message, HasSubstr((root_ / "xdg/uv/uv.toml").string() + ": a system uv.toml"));
  // uv pip runs with --no-config: no file matters there.
  EXPECT_TRUE(EnvironmentForInstaller(env, InstallerRun::kUvPip).ok());
}

}  // namespace
}  // namespace torchdex::installer
