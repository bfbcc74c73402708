// Files torchdex and torchdex-crawl write for the user (catalogue::WriteFileAtomically) are replaced whole
// was already in the directory (a symlink a hostile repository committed beside a lock file).
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "catalogue/catalogue.h"
#include "tests/installer/test_support.h"

namespace torchdex::installer::testing {
namespace {

namespace fs = std::filesystem;

std::string Read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> Names(const fs::path& dir) {
  std::vector<std::string> names;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST(FileWriter, ReplacesTheFileWholeWithTheUsersMode) {
  TempRoot dir;
  const fs::path lock = dir.path() / "pylock.cpu.toml";
  ASSERT_TRUE(catalogue::WriteFileAtomically(lock.string(), "old\n"));
  ASSERT_TRUE(catalogue::WriteFileAtomically(lock.string(), "new\n"));
  EXPECT_EQ(Read(lock), "new\n");
  EXPECT_EQ(Names(dir.path()), (std::vector<std::string>{"pylock.cpu.toml"}));
  const mode_t mask = ::umask(022);
  ASSERT_TRUE(catalogue::WriteFileAtomically(lock.string(), "x"));
  ::umask(mask);
  struct stat st {};
  ASSERT_EQ(::stat(lock.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
  ASSERT_TRUE(catalogue::WriteFileAtomically((dir.path() / "entry").string(), "x", nullptr, catalogue::FileAccess::kPrivate));
  ASSERT_EQ(::stat((dir.path() / "entry").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

// The attack of the old fixed temporary name ("pylock.cpu.toml.torchdex-tmp" committed as a
// symlink to a file of the CI user's): nothing is written through a symlink, neither one at that
// name nor one at the target's.
TEST(FileWriter, NeverWritesThroughASymlink) {
  TempRoot dir;
  const fs::path victim = dir.path() / "victim";
  std::ofstream(victim) << "precious\n";
  fs::create_symlink(victim, dir.path() / "pylock.cpu.toml.torchdex-tmp");
  fs::create_symlink(victim, dir.path() / "pylock.cpu.toml");
  ASSERT_TRUE(catalogue::WriteFileAtomically((dir.path() / "pylock.cpu.toml").string(), "lock\n"));
  EXPECT_EQ(Read(victim), "precious\n");
  EXPECT_FALSE(fs::is_symlink(dir.path() / "pylock.cpu.toml"));
  EXPECT_EQ(Read(dir.path() / "pylock.cpu.toml"), "lock\n");
}

TEST(FileWriter, AFailureSaysWhyAndLeavesNoTemporary) {
  TempRoot dir;
  fs::create_directory(dir.path() / "pylock.cpu.toml");
  core::Status written = catalogue::WriteFileAtomically((dir.path() / "pylock.cpu.toml").string(), "lock\n");
  ASSERT_FALSE(written);
  EXPECT_EQ(written.error().message, "cannot replace " + (dir.path() / "pylock.cpu.toml").string() + ": Is a directory (nothing was changed)");
  EXPECT_EQ(Names(dir.path()), (std::vector<std::string>{"pylock.cpu.toml"}));
  core::Status missing = catalogue::WriteFileAtomically((dir.path() / "no" / "such").string(), "x");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find(": No such file or directory"), std::string::npos) << missing.error().message;
}

}  // namespace
}  // namespace torchdex::installer::testing
