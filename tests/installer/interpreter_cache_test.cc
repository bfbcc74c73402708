// The cache of the interpreter's answers (installer/python/interpreter_cache.h): a hit asks no
// process, anything the answer depends on changing is a miss, and a corrupt, foreign or
// unreadable entry is a miss that is written again, never an error.
#include "installer/python/interpreter_cache.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

extern char** environ;

namespace torchdex::installer {
namespace {

namespace fs = std::filesystem;

// What the query script prints for a CPython 3.12.4 on glibc 2.36; `executable` set per test.
std::string Reply(const std::string& executable, const std::string& version = "[3, 12, 4]") {
  return R"({"implementation": "cpython", "version": )" + version +
         R"(, "debug": false, "free_threaded": false, "soabi": "cpython-312-x86_64-linux-gnu",
    "sys_platform": "linux", "machine": "x86_64", "glibc": "2.36", "musl": "", "mac_ver": "",
    "os_name": "posix", "platform_system": "Linux", "platform_release": "6.1.0", "platform_version": "#1 SMP",
    "python_implementation": "CPython", "executable": ")" +
         executable + "\"}";
}

// Answers the query script with `reply` and counts how often it was asked.
class CountingRunner final : public ProcessRunner {
 public:
  ProcessResult Run(const std::vector<std::string>& argv, const Environment&, std::chrono::milliseconds) override {
    ++runs;
    last_argv = argv;
    ProcessResult r;
    r.status = ProcessResult::Status::kExited;
    r.exit_code = 0;
    r.output = reply;
    return r;
  }
  ProcessResult RunInChild(const std::function<std::string()>&, std::chrono::milliseconds) override {
    return {};
  }
  int runs = 0;
  std::string reply;
  std::vector<std::string> last_argv;
};

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

class InterpreterCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "torchdex-interpreter-cache-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    root_ = pattern;
    // A venv as `python -m venv` lays it out, its python a copy of a native executable (the
    // fake runner answers for it: it is never run).
    fs::create_directories(root_ / "venv/bin");
    python_ = (root_ / "venv/bin/python").string();
    fs::copy_file("/bin/true", python_);
    std::ofstream(root_ / "venv/pyvenv.cfg") << "home = /usr/bin\nversion = 3.12.4\n";
    env_ = {{"TORCHDEX_CACHE_DIR", (root_ / "cache").string()}};
    runner_.reply = Reply(python_);
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(root_, ignored);
  }
  core::Expected<Interpreter> Ask(CacheUse& use) {
    return QueryInterpreterCached(python_, runner_, env_, std::chrono::seconds(5), &use);
  }
  // The one entry the cache holds.
  fs::path Entry() const {
    fs::path found;
    for (const auto& e : fs::directory_iterator(root_ / "cache/interpreter-v1")) found = e.path();
    return found;
  }

  fs::path root_;
  std::string python_;
  Environment env_;
  CountingRunner runner_;
};

TEST_F(InterpreterCacheTest, TheSecondQueryIsAnsweredFromTheCacheWithTheSameFacts) {
  CacheUse use;
  auto first = Ask(use);
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ(use, CacheUse::kMissWritten);
  EXPECT_EQ(runner_.runs, 1);
  EXPECT_EQ(runner_.last_argv.front(), python_);
  auto second = Ask(use);
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_EQ(use, CacheUse::kHit);
  EXPECT_EQ(runner_.runs, 1);  // no process
  EXPECT_EQ(second->path, first->path);
  EXPECT_EQ(second->full_version, "3.12.4");
  EXPECT_EQ(second->description, first->description);
  EXPECT_EQ(second->markers.values, first->markers.values);
  EXPECT_EQ(core::SupportedTags(second->info), core::SupportedTags(first->info));
  // The entry is a file of the cache directory, written whole (no temporary file left).
  int files = 0;
  for (const auto& e : fs::directory_iterator(root_ / "cache/interpreter-v1")) {
    ++files;
    EXPECT_EQ(e.path().extension(), ".entry") << e.path();
  }
  EXPECT_EQ(files, 1);
}

TEST_F(InterpreterCacheTest, AChangedInterpreterIsAskedAgain) {
  CacheUse use;
  ASSERT_TRUE(Ask(use).ok());
  // Upgraded in place: new bytes, a new modification time.
  runner_.reply = Reply(python_, "[3, 12, 7]");
  {
    std::ofstream(python_, std::ios::binary | std::ios::app) << "more";
  }
  auto upgraded = Ask(use);
  ASSERT_TRUE(upgraded.ok());
  EXPECT_EQ(use, CacheUse::kMissWritten);
  EXPECT_EQ(upgraded->full_version, "3.12.7");
  EXPECT_EQ(runner_.runs, 2);
  ASSERT_EQ(Ask(use)->full_version, "3.12.7");
  EXPECT_EQ(use, CacheUse::kHit);

  // Replaced by another file of the same size (a new inode), its time set back as it was.
  const auto time = fs::last_write_time(python_);
  const fs::path other = root_ / "other";
  fs::copy_file(python_, other);
  fs::last_write_time(other, time);
  fs::rename(other, python_);
  ASSERT_EQ(fs::last_write_time(python_), time);
  ASSERT_TRUE(Ask(use).ok());
  EXPECT_EQ(use, CacheUse::kMissWritten);
  EXPECT_EQ(runner_.runs, 3);

  // The venv's python pointed elsewhere: a symbolic link to another executable.
  const fs::path base = root_ / "base-python";
  fs::copy_file("/bin/true", base);
  fs::remove(python_);
  fs::create_symlink(base, python_);
  ASSERT_TRUE(Ask(use).ok());
  EXPECT_EQ(use, CacheUse::kMissWritten);
  EXPECT_EQ(runner_.runs, 4);
  ASSERT_TRUE(Ask(use).ok());
  EXPECT_EQ(use, CacheUse::kHit);

  // The venv's pyvenv.cfg edited.
  std::ofstream(root_ / "venv/pyvenv.cfg", std::ios::app) << "include-system-site-packages = true\n";
  ASSERT_TRUE(Ask(use).ok());
  EXPECT_EQ(use, CacheUse::kMissWritten);
  EXPECT_EQ(runner_.runs, 5);

  // The library path the interpreter is run with.
  env_["LD_LIBRARY_PATH"] = "/opt/other/lib";
  ASSERT_TRUE(Ask(use).ok());
  EXPECT_EQ(use, CacheUse::kMissWritten);
  EXPECT_EQ(runner_.runs, 6);
}

TEST_F(InterpreterCacheTest, AVenvMadeAgainAtTheSamePathWithTheSameBaseIsAHit) {
  // What `rm -rf venv && python -m venv venv` does: new directory, new link, same target, same
  // pyvenv.cfg. The answer depends on neither the link's inode nor the directory's.
  const fs::path base = root_ / "base-python";
  fs::copy_file("/bin/true", base);
  fs::remove(python_);
  fs::create_symlink(base, python_);
  CacheUse use;
  ASSERT_TRUE(Ask(use).ok());
  const std::string cfg = ReadAll(root_ / "venv/pyvenv.cfg");
  fs::remove_all(root_ / "venv");
  fs::create_directories(root_ / "venv/bin");
  fs::create_symlink(base, python_);
  std::ofstream(root_ / "venv/pyvenv.cfg") << cfg;
  ASSERT_TRUE(Ask(use).ok());
  EXPECT_EQ(use, CacheUse::kHit);
  EXPECT_EQ(runner_.runs, 1);
}

TEST_F(InterpreterCacheTest, ACorruptOrForeignEntryIsAMissAndIsWrittenAgain) {
  CacheUse use;
  ASSERT_TRUE(Ask(use).ok());
  const fs::path entry = Entry();
  const std::string good = ReadAll(entry);
  int expected_runs = 1;
  for (const std::string& bad :
       {std::string(), std::string("garbage"), good.substr(0, good.size() / 2),
        good.substr(0, good.find('\n') + 1) + std::string(64, '0') + "\n" + Reply(python_),  // another key
        good.substr(0, good.find('\n', good.find('\n') + 1) + 1) + "{\"not\": \"an answer\"}",
        good.substr(0, good.find('\n', good.find('\n') + 1) + 1) + std::string(100000, 'x'),
        std::string("\0\0\0\xff", 4)}) {
    std::ofstream(entry, std::ios::binary | std::ios::trunc) << bad;
    auto answer = Ask(use);
    ASSERT_TRUE(answer.ok()) << answer.error().message;
    EXPECT_EQ(answer->full_version, "3.12.4");
    EXPECT_EQ(use, CacheUse::kMissWritten) << bad.substr(0, 80);
    EXPECT_EQ(runner_.runs, ++expected_runs);
    EXPECT_EQ(ReadAll(entry), good);  // written again, whole
  }
  // Another interpreter's entry put in this one's place: its key is not this one's.
  const fs::path other_python = root_ / "other/bin/python";
  fs::create_directories(other_python.parent_path());
  fs::copy_file("/bin/true", other_python);
  CountingRunner other_runner;
  other_runner.reply = Reply(other_python.string(), "[3, 10, 1]");
  ASSERT_TRUE(QueryInterpreterCached(other_python.string(), other_runner, env_, std::chrono::seconds(5)).ok());
  fs::path other_entry;
  for (const auto& e : fs::directory_iterator(root_ / "cache/interpreter-v1")) {
    if (e.path() != entry) other_entry = e.path();
  }
  ASSERT_FALSE(other_entry.empty());
  fs::copy_file(other_entry, entry, fs::copy_options::overwrite_existing);
  auto answer = Ask(use);
  ASSERT_TRUE(answer.ok());
  EXPECT_EQ(answer->full_version, "3.12.4");
  EXPECT_EQ(use, CacheUse::kMissWritten);
  // An entry that is a directory, or a link: not read, and the answer still comes.
  fs::remove(entry);
  fs::create_directories(entry);
  ASSERT_TRUE(Ask(use).ok());
  EXPECT_EQ(use, CacheUse::kMissNotWritten);
  fs::remove(entry);
  fs::create_symlink(other_entry, entry);
  ASSERT_TRUE(Ask(use).ok());
  EXPECT_NE(use, CacheUse::kHit);
}

TEST_F(InterpreterCacheTest, ACacheThatCannotBeWrittenChangesNothing) {
  std::ofstream(root_ / "cache") << "a file where the directory would go";
  CacheUse use;
  auto answer = Ask(use);
  ASSERT_TRUE(answer.ok()) << answer.error().message;
  EXPECT_EQ(use, CacheUse::kMissNotWritten);
  ASSERT_TRUE(Ask(use).ok());
  EXPECT_EQ(runner_.runs, 2);
}

TEST_F(InterpreterCacheTest, AWrongAnswerIsNeverCached) {
  runner_.reply = "Python 3.12.4";
  CacheUse use;
  EXPECT_FALSE(Ask(use).ok());
  EXPECT_FALSE(Ask(use).ok());
  EXPECT_EQ(runner_.runs, 2);
  EXPECT_FALSE(fs::exists(root_ / "cache/interpreter-v1"));
}

TEST_F(InterpreterCacheTest, ShimsAndTheSwitchAreNotCached) {
  // A pyenv-style shim picks its python when it runs: its answer is never cached.
  const fs::path shim = root_ / "shims/python3";
  fs::create_directories(shim.parent_path());
  std::ofstream(shim) << "#!/bin/sh\nexec \"$(pyenv which python3)\" \"$@\"\n";
  fs::permissions(shim, fs::perms::owner_all);
  EXPECT_EQ(InterpreterCacheKey(shim.string(), env_), "");
  CacheUse use;
  ASSERT_TRUE(QueryInterpreterCached(shim.string(), runner_, env_, std::chrono::seconds(5), &use).ok());
  EXPECT_EQ(use, CacheUse::kNotCached);
  EXPECT_EQ(InterpreterCacheKey((root_ / "missing").string(), env_), "");

  for (const char* off : {"1", "yes"}) {
    Environment no_cache = env_;
    no_cache["TORCHDEX_NO_CACHE"] = off;
    EXPECT_EQ(InterpreterCacheDirectory(no_cache), "");
    ASSERT_TRUE(QueryInterpreterCached(python_, runner_, no_cache, std::chrono::seconds(5), &use).ok());
    EXPECT_EQ(use, CacheUse::kNotCached);
  }
  EXPECT_FALSE(fs::exists(root_ / "cache"));
  Environment zero = env_;
  zero["TORCHDEX_NO_CACHE"] = "0";
  EXPECT_EQ(InterpreterCacheDirectory(zero), (root_ / "cache/interpreter-v1").string());
}

TEST(InterpreterCacheDirectoryTest, FollowsTheUsualVariables) {
  EXPECT_EQ(InterpreterCacheDirectory({{"TORCHDEX_CACHE_DIR", "/c"}, {"XDG_CACHE_HOME", "/x"}, {"HOME", "/h"}}),
            "/c/interpreter-v1");
  EXPECT_EQ(InterpreterCacheDirectory({{"XDG_CACHE_HOME", "/x"}, {"HOME", "/h"}}), "/x/torchdex/interpreter-v1");
  EXPECT_EQ(InterpreterCacheDirectory({{"XDG_CACHE_HOME", "relative"}, {"HOME", "/h"}}),
            "/h/.cache/torchdex/interpreter-v1");
  EXPECT_EQ(InterpreterCacheDirectory({{"HOME", "/h"}}), "/h/.cache/torchdex/interpreter-v1");
  EXPECT_EQ(InterpreterCacheDirectory({}), "");
}

// A real python3 (the build's, /usr/bin's first: a pyenv shim on PATH is a script, never
// cached), asked once through the cache and once from it: the same facts.
TEST(InterpreterCacheRealPythonTest, TheCachedAnswerIsTheInterpretersAnswer) {
  const Environment base = EnvironmentFromEnviron(environ);
  auto path = FindInterpreter(TORCHDEX_TEST_PYTHON, base);
  ASSERT_TRUE(path.ok()) << path.error().message;
  ASSERT_NE(InterpreterCacheKey(*path, base), "") << *path << " is not a native executable";
  std::string pattern = (fs::temp_directory_path() / "torchdex-interpreter-cache-real-XXXXXX").string();
  ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
  Environment env = base;
  env["TORCHDEX_CACHE_DIR"] = pattern;
  env.erase("TORCHDEX_NO_CACHE");
  auto runner = MakeSystemProcessRunner();
  auto direct = QueryInterpreter(*path, *runner, env, std::chrono::seconds(20));
  ASSERT_TRUE(direct.ok()) << direct.error().message;
  CacheUse use;
  auto first = QueryInterpreterCached(*path, *runner, env, std::chrono::seconds(20), &use);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(use, CacheUse::kMissWritten);
  auto cached = QueryInterpreterCached(*path, *runner, env, std::chrono::seconds(20), &use);
  ASSERT_TRUE(cached.ok());
  EXPECT_EQ(use, CacheUse::kHit);
  EXPECT_EQ(cached->path, direct->path);
  EXPECT_EQ(cached->description, direct->description);
  EXPECT_EQ(cached->markers.values, direct->markers.values);
  EXPECT_EQ(core::SupportedTags(cached->info), core::SupportedTags(direct->info));
  std::error_code ignored;
  fs::remove_all(pattern, ignored);
}

}  // namespace
}  // namespace torchdex::installer
