// `torchdex lock` and `torchdex sync` end to end (issue 16): a PyTorch-style index with cpu,
// cu124 and cu128 builds and a default index with a bait `torch` (make_index.py --lock), served
// by a real nginx on 127.0.0.1; the real uv 0.13.9 of the tools venv resolves, packaging 26.4's
// pylock module and uv read the locks, the real pip 26.3 and uv install them into fresh venvs;
// captured hosts (an A100 on driver 535, a machine without a GPU) decide which lock fits.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/sha256.h"
#include "installer/cli/exit_codes.h"
#include "installer/cli/run.h"
#include "installer/lock/pylock.h"
#include "installer/platform/clock.h"
#include "installer/platform/process_runner.h"
#include "tests/installer/e2e/e2e_support.h"
#include "tests/support/nginx.h"

namespace torchdex::installer {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

const char* const kPython = TORCHDEX_TEST_PYTHON;
const char* const kMakeIndex = TORCHDEX_MAKE_INDEX_SCRIPT;
const char* const kToolsBin = TORCHDEX_TOOLS_BIN_DIR;
constexpr std::chrono::seconds kChildTimeout{180};

const auto& ReadText = e2e::ReadBytes;
const auto& WriteText = e2e::WriteBytes;

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

using e2e::Output;

std::string Sha256OfFile(const fs::path& path) { return core::Sha256Hex(ReadText(path)); }

class LockE2eTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const fs::path root = e2e::MakeTempRoot("lock-e2e");
    ASSERT_FALSE(root.empty());
    root_ = new fs::path(root);
    runner_ = MakeSystemProcessRunner().release();
    // Children see only this: the tools venv first on PATH (uv), no configuration of the
    // machine's pip or uv, a cache of the suite's own.
    env_ = new Environment(e2e::ChildEnvironment(root, std::string(kToolsBin) + ":/usr/local/bin:/usr/bin:/bin"));
    (*env_)["UV_CACHE_DIR"] = (root / "uv-cache").string();
    (*env_)["UV_NO_CONFIG"] = "1";
    (*env_)["UV_PYTHON_DOWNLOADS"] = "never";
    Output index = RunChild({kPython, kMakeIndex, (*root_ / "index").string(), "--lock"});
    ASSERT_EQ(index.exit_code, 0) << index.err;
    auto nginx = testing::Nginx::Start(*root_ / "index");
    ASSERT_TRUE(nginx.ok()) << nginx.error().message;
    nginx_ = nginx->release();
    WriteText(*root_ / "mirror.json", "{\"format\": 1, \"mirror\": \"" + nginx_->Url("/whl/") + "\"}\n");
    MakeBaseVenv();
  }

  // A venv without the bundled pip, given the tools venv's pinned pip 26.3 (pure Python,
  // copied; the same Python): the tests have no network to install it with.
  static void MakeBaseVenv() {
    ASSERT_EQ(e2e::MakeVenvWithPinnedPip(*root_ / "base-venv", kPython, kToolsBin, *runner_, *env_), "");
  }

  static void TearDownTestSuite() {
    delete nginx_;
    delete env_;
    delete runner_;
    if (root_ != nullptr) {
      std::error_code ignored;
      fs::remove_all(*root_, ignored);
    }
    delete root_;
  }

  void SetUp() override {
    if (nginx_ == nullptr || !fs::exists(*root_ / "base-venv/bin/python")) GTEST_SKIP() << "suite setup failed";
  }

  static Output RunChild(const std::vector<std::string>& argv, const Environment* env = nullptr) {
    return e2e::RunChild(*runner_, argv, env ? *env : *env_, kChildTimeout);
  }

  static std::string NewVenv(const std::string& name) { return e2e::CopyVenv(*root_, name); }

  static Output Torchdex(std::vector<std::string> args, const Environment* env = nullptr) {
    return e2e::RunTorchdex(args, env ? *env : *env_, *runner_);
  }

  // name -> version of every distribution in the venv but pip.
  static std::map<std::string, std::string> Installed(const std::string& python) {
    Output listed = RunChild({python, "-c",
                              "import importlib.metadata as m, json\n"
                              "print(json.dumps({d.metadata['Name']: d.version for d in m.distributions()}))"});
    EXPECT_EQ(listed.exit_code, 0) << listed.err;
    std::map<std::string, std::string> installed;
    const nlohmann::json listing = nlohmann::json::parse(listed.out, nullptr, false);
    EXPECT_TRUE(listing.is_object()) << listed.out << listed.err;
    if (!listing.is_object()) return installed;
    for (const auto& [name, version] : listing.items()) {
      EXPECT_TRUE(version.is_string()) << python << ": " << listed.out;
      if (name != "pip" && version.is_string()) installed[name] = version.get<std::string>();
    }
    return installed;
  }

  static std::string Host(const std::string& name) { return std::string(TORCHDEX_FIXTURES_DIR) + "/hosts/" + name; }

  // The locks for cu124 and cpu, made once (by the first test that needs them) into locks/.
  static const fs::path& Locks() {
    static bool made = false;
    static fs::path dir = *root_ / "locks";
    if (!made) {
      made = true;
      fs::create_directories(dir);
      lock_log_start_ = nginx_->AccessLog().size();
      const std::string python = NewVenv("venv-lock-target");
      lock_run_ = new Output(Torchdex({"lock", "--backend", "cu124", "--backend", "cpu", "--python", python,
                                       "--catalogue", (*root_ / "mirror.json").string(), "--index-url",
                                       nginx_->Url("/simple/"), "-o", dir.string(), "torch", "torchvision",
                                       "needs-torch"}));
      lock_log_ = new std::string(nginx_->AccessLog().substr(lock_log_start_));
    }
    return dir;
  }

  // A copy of the locks to spoil.
  static fs::path CopyOfLocks(const std::string& name) {
    const fs::path dir = *root_ / name;
    fs::create_directories(dir);
    for (const fs::directory_entry& e : fs::directory_iterator(Locks())) fs::copy(e.path(), dir / e.path().filename());
    return dir;
  }

  static inline fs::path* root_ = nullptr;
  static inline ProcessRunner* runner_ = nullptr;
  static inline Environment* env_ = nullptr;
  static inline testing::Nginx* nginx_ = nullptr;
  static inline Output* lock_run_ = nullptr;
  static inline std::string* lock_log_ = nullptr;
  static inline size_t lock_log_start_ = 0;
};

TEST_F(LockE2eTest, LockWritesAPep751FilePerBackendResolvedByUvThroughTheRoutingIndex) {
  const fs::path& dir = Locks();
  ASSERT_EQ(lock_run_->exit_code, 0) << lock_run_->out << lock_run_->err;
  EXPECT_THAT(lock_run_->out, HasSubstr("wrote " + (dir / "pylock.cu124.toml").string()));
  EXPECT_THAT(lock_run_->out, HasSubstr("wrote " + (dir / "pylock.cpu.toml").string()));
  const std::string cu124 = ReadText(dir / "pylock.cu124.toml");
  const std::string cpu = ReadText(dir / "pylock.cpu.toml");
  auto cu124_lock = ParsePyLock(cu124, "pylock.cu124.toml");
  ASSERT_TRUE(cu124_lock.ok()) << cu124_lock.error().message;
  std::map<std::string, std::string> versions;
  for (const LockedPackage& p : cu124_lock->packages) {
    versions[p.name] = p.version;
    ASSERT_EQ(p.wheels.size(), 1u) << p.name;
    EXPECT_EQ(p.wheels[0].sha256.size(), 64u);
    // Routed packages from the backend, everything else from the default index.
    const bool from_backend = p.wheels[0].url.rfind(nginx_->Url("/whl/cu124/"), 0) == 0;
    const bool from_default = p.wheels[0].url.rfind(nginx_->Url("/simple/"), 0) == 0;
    EXPECT_EQ(p.routed, from_backend) << p.name << " " << p.wheels[0].url;
    EXPECT_EQ(!p.routed, from_default) << p.name << " " << p.wheels[0].url;
  }
  EXPECT_EQ(versions, (std::map<std::string, std::string>{{"torch", "2.6.0+cu124"},
                                                          {"torchvision", "0.21.0+cu124"},
                                                          {"triton", "3.2.0"},
                                                          {"filelock", "3.16.1"},
                                                          {"needs-torch", "1.0"}}));
  EXPECT_EQ(cu124_lock->torchdex.backend, "cu124");
  EXPECT_EQ(cu124_lock->torchdex.catalogue_date, "2026-03-15");
  EXPECT_THAT(cu124, HasSubstr("decision = [\"backend cu124 named by --backend; torch 2.6.0+cu124\"]"));
  EXPECT_THAT(cpu, HasSubstr("name = \"torch\"\nversion = \"2.5.1+cpu\"\n"));
  EXPECT_THAT(cpu, Not(HasSubstr("triton")));
  // The bait: no routed name was ever asked of the default index, by uv or by torchdex.
  for (const char* bait : {"GET /simple/torch", "GET /simple/triton", "torch-9.9.9"}) {
    EXPECT_THAT(*lock_log_, Not(HasSubstr(bait))) << *lock_log_;
  }
  EXPECT_THAT(*lock_log_, HasSubstr("GET /simple/needs-torch/"));
}

TEST_F(LockE2eTest, PackagingsPylockParserAndUvReadTheLocks) {
  const fs::path& dir = Locks();
  ASSERT_EQ(lock_run_->exit_code, 0) << lock_run_->err;
  for (const char* name : {"pylock.cu124.toml", "pylock.cpu.toml"}) {
    const std::string file = (dir / name).string();
    Output checked = RunChild({std::string(kToolsBin) + "/python", "-c",
                               "import sys, tomllib, pathlib\n"
                               "from packaging.pylock import Pylock, is_valid_pylock_path\n"
                               "assert is_valid_pylock_path(pathlib.Path(sys.argv[1]))\n"
                               "lock = Pylock.from_dict(tomllib.load(open(sys.argv[1], 'rb')))\n"
                               "lock.validate()\n"
                               "print(sorted(f'{p.name} {p.version}' for p in lock.packages))\n",
                               file});
    EXPECT_EQ(checked.exit_code, 0) << name << ": " << checked.err;
    EXPECT_THAT(checked.out, HasSubstr("'torch ")) << checked.out;
    // uv reads the lock as a PEP 751 file (a dry run: it reports what it would install).
    const std::string python = NewVenv(std::string("venv-uv-reads-") + name);
    Output read = RunChild({std::string(kToolsBin) + "/uv", "pip", "install", "--dry-run", "--python", python, "-r", file});
    EXPECT_EQ(read.exit_code, 0) << name << ": " << read.out << read.err;
    EXPECT_THAT(read.out + read.err, HasSubstr("torch==")) << read.out << read.err;
    // pip 26.3 reads it too (`pip install -r pylock.toml`, experimental in pip) and would
    // install exactly the locked versions.
    Output pip = RunChild({python, "-m", "pip", "install", "--dry-run", "--no-cache-dir", "-r", file});
    EXPECT_EQ(pip.exit_code, 0) << name << ": " << pip.out << pip.err;
    auto lock = ParsePyLock(ReadText(file), file);
    ASSERT_TRUE(lock.ok()) << lock.error().message;
    for (const LockedPackage& p : lock->packages) {
      EXPECT_THAT(pip.out, HasSubstr(p.name + "-" + p.version)) << pip.out;
    }
  }
}

// --backend all-compatible on a machine without a GPU: the one backend that fits, locked by the
// real uv like a named one (the backends of an A100 include cu118 and cu121, which this loopback
// index does not serve; lock_cli_test.cc checks that list without uv).
TEST_F(LockE2eTest, AllCompatibleLocksEveryBackendThatFitsTheHost) {
  const fs::path dir = *root_ / "locks-all-compatible";
  fs::create_directories(dir);
  const std::string python = NewVenv("venv-all-compatible");
  Output run = Torchdex({"lock", "--backend", "all-compatible", "--root", Host("linux-no-gpu"), "--python", python,
                         "--catalogue", (*root_ / "mirror.json").string(), "--index-url", nginx_->Url("/simple/"),
                         "-o", dir.string(), "torch", "needs-torch"});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_THAT(run.out, HasSubstr("locking for cpu: the backends that fit this machine, best first\n"));
  EXPECT_THAT(run.out, HasSubstr("wrote " + (dir / "pylock.cpu.toml").string()));
  std::vector<std::string> written;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) written.push_back(e.path().filename().string());
  EXPECT_EQ(written, std::vector<std::string>{"pylock.cpu.toml"});
  auto lock = ParsePyLock(ReadText(dir / "pylock.cpu.toml"), "pylock.cpu.toml");
  ASSERT_TRUE(lock.ok()) << lock.error().message;
  EXPECT_EQ(lock->torchdex.backend, "cpu");
  std::map<std::string, std::string> versions;
  for (const LockedPackage& p : lock->packages) versions[p.name] = p.version;
  EXPECT_EQ(versions["torch"], "2.5.1+cpu");
  EXPECT_EQ(versions["needs-torch"], "1.0");
}

// A lock for a described target (--python-version, --platform): uv resolves for it without an
// interpreter, and the lock says what it is for.
TEST_F(LockE2eTest, ALockForADescribedTarget) {
  const fs::path dir = *root_ / "locks-described";
  fs::create_directories(dir);
  Output run = Torchdex({"lock", "--backend", "cpu", "--python-version", "3.12", "--platform", "linux_aarch64",
                         "--catalogue", (*root_ / "mirror.json").string(), "--index-url", nginx_->Url("/simple/"),
                         "-o", dir.string(), "torch==2.5.1", "needs-torch"});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  auto lock = ParsePyLock(ReadText(dir / "pylock.cpu.toml"), "pylock.cpu.toml");
  ASSERT_TRUE(lock.ok()) << lock.error().message;
  EXPECT_EQ(lock->torchdex.target, "CPython 3.12 on linux aarch64 (--python-version, --platform linux_aarch64)");
  EXPECT_EQ(lock->requires_python, ">=3.12");
  std::map<std::string, std::string> versions;
  for (const LockedPackage& p : lock->packages) versions[p.name] = p.version;
  EXPECT_EQ(versions["torch"], "2.5.1+cpu");
  EXPECT_EQ(versions["needs-torch"], "1.0");
  Output refused = Torchdex({"lock", "--backend", "cpu", "--python-version", "3.12", "--platform", "win_amd64",
                             "-o", dir.string(), "torch"});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_THAT(refused.err, HasSubstr("describes Linux targets only"));
}

// What pip's own `pip lock` (experimental in 26.3) does with a package of the default index
// that requires torch: it takes the bait torch 9.9.9 of the default index, as pip alone does.
// torchdex reads its file (PEP 751, [[packages.wheels]] tables) but never locks this way.
TEST_F(LockE2eTest, PipLockAloneTakesTheBaitTorch) {
  const fs::path out = *root_ / "pip-lock" / "pylock.pip.toml";
  fs::create_directories(out.parent_path());
  Output locked = RunChild({(*root_ / "base-venv/bin/python").string(), "-m", "pip", "lock", "--no-cache-dir",
                            "--index-url", nginx_->Url("/simple/"), "-o", out.string(), "needs-torch"});
  ASSERT_EQ(locked.exit_code, 0) << locked.out << locked.err;
  auto lock = ParsePyLock(ReadText(out), out.string(), false);
  ASSERT_TRUE(lock.ok()) << lock.error().message;
  std::map<std::string, std::string> versions;
  for (const LockedPackage& p : lock->packages) versions[p.name] = p.version;
  EXPECT_EQ(versions["torch"], "9.9.9");
}

TEST_F(LockE2eTest, SyncInstallsTheCu124LockOnAnA100AndTheCpuLockWithoutAGpu) {
  const fs::path& dir = Locks();
  ASSERT_EQ(lock_run_->exit_code, 0) << lock_run_->err;
  const size_t log_start = nginx_->AccessLog().size();
  const std::string a100 = NewVenv("venv-sync-a100");
  Output gpu = Torchdex({"sync", "--catalogue", (*root_ / "mirror.json").string(), "--lock-dir", dir.string(), "--python", a100, "--root",
                         Host("container-with-devices-a100-driver535"), "--explain"});
  ASSERT_EQ(gpu.exit_code, 0) << gpu.out << gpu.err;
  EXPECT_THAT(gpu.out, HasSubstr("lock: " + (dir / "pylock.cu124.toml").string() + " (backend cu124"));
  EXPECT_THAT(gpu.out, HasSubstr("pylock.cpu.toml (cpu): fits, ranked lower"));
  EXPECT_EQ(Installed(a100), (std::map<std::string, std::string>{{"torch", "2.6.0+cu124"},
                                                                 {"torchvision", "0.21.0+cu124"},
                                                                 {"triton", "3.2.0"},
                                                                 {"filelock", "3.16.1"},
                                                                 {"needs-torch", "1.0"}}));
  const std::string none = NewVenv("venv-sync-no-gpu");
  Output cpu = Torchdex({"sync", "--catalogue", (*root_ / "mirror.json").string(), "--lock-dir", dir.string(), "--python", none, "--installer", "uv", "--root",
                         Host("linux-no-gpu"), "--explain"});
  ASSERT_EQ(cpu.exit_code, 0) << cpu.out << cpu.err;
  EXPECT_THAT(cpu.out, HasSubstr("lock: " + (dir / "pylock.cpu.toml").string() + " (backend cpu"));
  EXPECT_THAT(cpu.out, HasSubstr("pylock.cu124.toml (cu124): no NVIDIA GPU found"));
  EXPECT_EQ(Installed(none), (std::map<std::string, std::string>{{"torch", "2.5.1+cpu"},
                                                                 {"torchvision", "0.20.1+cpu"},
                                                                 {"filelock", "3.16.1"},
                                                                 {"needs-torch", "1.0"}}));
  // No resolution: no index page was read, only the locked wheels downloaded; never the bait.
  const std::string log = nginx_->AccessLog().substr(log_start);
  EXPECT_THAT(log, Not(HasSubstr("/index.html"))) << log;
  EXPECT_THAT(log, Not(HasSubstr("GET /simple/torch"))) << log;
  EXPECT_THAT(log, HasSubstr("GET /whl/cu124/torch-2.6.0%2Bcu124-py3-none-any.whl"));
  EXPECT_THAT(log, HasSubstr("GET /whl/cpu/torch-2.5.1%2Bcpu-py3-none-any.whl"));
}

// Locks are written together: when one backend's cannot be made (cpu has no triton for
// needs-triton), none is written, and the locks already there stay as they were, never a set
// of which some hold the new requirements and some the old.
TEST_F(LockE2eTest, ABackendThatFailsWritesNoLock) {
  const fs::path dir = CopyOfLocks("locks-all-or-nothing");
  const std::string cu124_before = ReadText(dir / "pylock.cu124.toml");
  const std::string cpu_before = ReadText(dir / "pylock.cpu.toml");
  const std::string python = NewVenv("venv-all-or-nothing");
  Output run = Torchdex({"lock", "--backend", "cu124", "--backend", "cpu", "--python", python, "--catalogue",
                         (*root_ / "mirror.json").string(), "--index-url", nginx_->Url("/simple/"), "-o",
                         dir.string(), "torch", "needs-triton"});
  EXPECT_NE(run.exit_code, 0) << run.out << run.err;
  EXPECT_THAT(run.err, HasSubstr("no lock was written"));
  EXPECT_EQ(ReadText(dir / "pylock.cu124.toml"), cu124_before);
  EXPECT_EQ(ReadText(dir / "pylock.cpu.toml"), cpu_before);
  std::vector<std::string> files;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) files.push_back(e.path().filename().string());
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files, (std::vector<std::string>{"pylock.cpu.toml", "pylock.cu124.toml"}));
}

// A default index that cannot be read: uv says only "502 Bad Gateway" of the routing index; the
// lock says which index and why, as a network error (exit 6). A URL with a space is refused
// before anything runs (exit 2).
TEST_F(LockE2eTest, AnUnreadableDefaultIndexIsNamed) {
  const fs::path dir = *root_ / "locks-unreadable";
  fs::create_directories(dir);
  const std::string python = NewVenv("venv-unreadable");
  Output run = Torchdex({"lock", "--backend", "cpu", "--python", python, "--catalogue", (*root_ / "mirror.json").string(),
                         "--index-url", "http://127.0.0.1:9/simple/", "-o", dir.string(), "torch", "needs-torch"});
  EXPECT_EQ(run.exit_code, 6) << run.out << run.err;
  EXPECT_THAT(run.err, HasSubstr("the cpu lock cannot be made: an index could not be read:"));
  EXPECT_THAT(run.err, HasSubstr("cannot read the default index's page of "));
  EXPECT_TRUE(fs::is_empty(dir));
  Output spaced = Torchdex({"lock", "--backend", "cpu", "--python", python, "--index-url",
                            nginx_->Url("/simple/") + " --extra-index-url http://x/", "-o", dir.string(), "torch"});
  EXPECT_EQ(spaced.exit_code, 2) << spaced.err;
  EXPECT_THAT(spaced.err, HasSubstr("--index-url: a URL has no spaces or control characters"));
}

TEST_F(LockE2eTest, NoLockFitsAndTheReasonIsGivenPerLock) {
  const fs::path dir = CopyOfLocks("locks-cuda-only");
  fs::remove(dir / "pylock.cpu.toml");
  const std::string python = NewVenv("venv-no-fit");
  Output run = Torchdex({"sync", "--catalogue", (*root_ / "mirror.json").string(), "--lock-dir", dir.string(), "--python", python, "--root", Host("linux-no-gpu")});
  EXPECT_EQ(run.exit_code, 4) << run.out << run.err;
  EXPECT_THAT(run.err, HasSubstr("no lock file in " + dir.string() + " fits"));
  EXPECT_THAT(run.err, HasSubstr((dir / "pylock.cu124.toml").string() + " (cu124): no NVIDIA GPU found"));
  EXPECT_TRUE(Installed(python).empty());
}

TEST_F(LockE2eTest, BadLocksAreLocatedErrorsAndInstallNothing) {
  const std::string python = NewVenv("venv-bad");
  auto sync = [&](const fs::path& dir) {
    return Torchdex({"sync", "--catalogue", (*root_ / "mirror.json").string(), "--lock-dir", dir.string(), "--python", python, "--root",
                     Host("container-with-devices-a100-driver535")});
  };
  {  // two locks for one backend
    const fs::path dir = CopyOfLocks("locks-twice");
    fs::copy(dir / "pylock.cpu.toml", dir / "pylock.toml");
    Output run = sync(dir);
    EXPECT_EQ(run.exit_code, 5);
    EXPECT_THAT(run.err, HasSubstr("two lock files for the backend cpu: " + (dir / "pylock.cpu.toml").string() +
                                   " and " + (dir / "pylock.toml").string()));
  }
  {  // does not parse
    const fs::path dir = CopyOfLocks("locks-garbage");
    WriteText(dir / "pylock.cu124.toml", "lock-version = \"1.0\"\n[[packages]\n");
    Output run = sync(dir);
    EXPECT_EQ(run.exit_code, 5);
    EXPECT_THAT(run.err, HasSubstr((dir / "pylock.cu124.toml").string() + ":2:"));
  }
  {  // a backend the catalogue does not know
    const fs::path dir = CopyOfLocks("locks-unknown");
    const fs::path file = dir / "pylock.cu1244.toml";  // named for the backend it holds
    WriteText(file, Replace(ReadText(dir / "pylock.cu124.toml"), "backend = \"cu124\"", "backend = \"cu1244\""));
    fs::remove(dir / "pylock.cu124.toml");
    Output run = sync(dir);
    EXPECT_EQ(run.exit_code, 5);
    EXPECT_THAT(run.err, HasSubstr(file.string() + ":"));
    EXPECT_THAT(run.err, HasSubstr("backend \"cu1244\" is not a backend the catalogue knows"));
  }
  {  // requires-python excludes this interpreter: every lock turned down, with where
    const fs::path dir = CopyOfLocks("locks-python");
    for (const char* name : {"pylock.cu124.toml", "pylock.cpu.toml"}) {
      const fs::path file = dir / name;
      // uv wrote the interpreter's own bound (">=3.11.2"); this one excludes it.
      std::string text = ReadText(file);
      const size_t at = text.find("requires-python = \"");
      ASSERT_NE(at, std::string::npos) << text;
      const size_t value = at + 19;
      text.replace(value, text.find('"', value) - value, ">=3.99");
      WriteText(file, text);
    }
    Output run = sync(dir);
    EXPECT_EQ(run.exit_code, 4);
    EXPECT_THAT(run.err, HasSubstr((dir / "pylock.cpu.toml").string() + ": requires-python >=3.99 excludes"));
  }
  {  // a wheel whose download does not match the lock's sha256
    const fs::path dir = CopyOfLocks("locks-hash");
    const fs::path file = dir / "pylock.cu124.toml";
    auto lock = ParsePyLock(ReadText(file), file.string());
    ASSERT_TRUE(lock.ok()) << lock.error().message;
    std::string sha;
    for (const LockedPackage& p : lock->packages) {
      if (p.name == "torch") sha = p.wheels[0].sha256;
    }
    WriteText(file, Replace(ReadText(file), sha, std::string(64, 'e')));
    Output run = sync(dir);
    EXPECT_NE(run.exit_code, 0);
    EXPECT_THAT(run.err, HasSubstr(file.string() + ":"));
    EXPECT_THAT(run.err, HasSubstr("torch 2.6.0+cu124: the downloaded wheel"));
  }
  EXPECT_TRUE(Installed(python).empty());
}

// export --format uv-project, then the real `uv lock` and `torchdex sync --uv-project` (which
// runs `uv sync --extra <backend>`), on loopback indexes.
TEST_F(LockE2eTest, AUvProjectPerBackendLocksWithUvAndSyncsTheBackendThatFits) {
  const fs::path project = *root_ / "uv-project";
  fs::create_directories(project);
  const std::string python = NewVenv("venv-uv-project-target");
  Output exported = Torchdex({"export", "--format", "uv-project", "--backend", "cu124", "--backend", "cpu",
                              "--python", python, "--catalogue", (*root_ / "mirror.json").string(), "--index-url",
                              nginx_->Url("/simple/"), "--output", (project / "pyproject.toml").string(), "torch",
                              "torchvision", "needs-torch"});
  ASSERT_EQ(exported.exit_code, 0) << exported.out << exported.err;
  const std::string pyproject = ReadText(project / "pyproject.toml");
  EXPECT_THAT(pyproject, HasSubstr("[[tool.uv.index]]\nname = \"pytorch-cu124\"\nurl = \"" +
                                   nginx_->Url("/whl/cu124/") + "\"\nexplicit = true\n"));
  EXPECT_THAT(pyproject, HasSubstr("torch = [\n    { index = \"pytorch-cu124\", extra = \"cu124\" },\n"
                                   "    { index = \"pytorch-cpu\", extra = \"cpu\" },\n]\n"));
  EXPECT_THAT(pyproject, HasSubstr("triton = [\n    { index = \"pytorch-cu124\", extra = \"cu124\" },\n]\n"));
  // torch needs triton on Linux only: so does the project (uv locks for every platform).
  EXPECT_THAT(pyproject, HasSubstr("\"triton ; platform_system == \\\"Linux\\\"\""));
  EXPECT_THAT(pyproject, HasSubstr("conflicts = [\n    [\n        { extra = \"cu124\" },\n        { extra = \"cpu\" },\n"));

  // uv reads a project's own [tool.uv] settings (its indexes) only without UV_NO_CONFIG; HOME
  // is the suite's, so no configuration of the machine's is found.
  Environment project_env = *env_;
  project_env.erase("UV_NO_CONFIG");
  const size_t log_start = nginx_->AccessLog().size();
  Output locked = RunChild({std::string(kToolsBin) + "/uv", "lock", "--project", project.string()}, &project_env);
  ASSERT_EQ(locked.exit_code, 0) << locked.out << locked.err << "\n" << pyproject;
  const std::string uv_lock = ReadText(project / "uv.lock");
  EXPECT_THAT(uv_lock, HasSubstr("version = \"2.6.0+cu124\""));
  EXPECT_THAT(uv_lock, HasSubstr("version = \"2.5.1+cpu\""));
  EXPECT_THAT(uv_lock, Not(HasSubstr("9.9.9")));
  const std::string log = nginx_->AccessLog().substr(log_start);
  EXPECT_THAT(log, Not(HasSubstr("GET /simple/torch"))) << log;

  Output synced = Torchdex({"sync", "--catalogue", (*root_ / "mirror.json").string(), "--uv-project", "--lock-dir", project.string(), "--python", python, "--root",
                            Host("container-with-devices-a100-driver535")});
  ASSERT_EQ(synced.exit_code, 0) << synced.out << synced.err;
  // The suite's environment sets UV_NO_CONFIG, which would make uv ignore the project's indexes.
  EXPECT_THAT(synced.out, HasSubstr("note: UV_NO_CONFIG is not passed to uv sync"));
  EXPECT_THAT(synced.out, HasSubstr("backend: cu124"));
  EXPECT_THAT(synced.out, HasSubstr(" sync --project " + project.string() + " --python " + python + " --extra cu124"));
  // Into the venv --python names, not a .venv uv would make beside the project.
  EXPECT_THAT(synced.out, HasSubstr("environment: " + fs::path(python).parent_path().parent_path().string() +
                                    " (UV_PROJECT_ENVIRONMENT"));
  EXPECT_FALSE(fs::exists(project / ".venv"));
  const std::map<std::string, std::string> installed = Installed(python);
  EXPECT_EQ(installed.at("torch"), "2.6.0+cu124");
  EXPECT_EQ(installed.at("triton"), "3.2.0");
  EXPECT_EQ(installed.at("needs-torch"), "1.0");
}

// SIGTERM while uv resolves (here a stand-in uv that only sleeps): uv's whole group is killed,
// the lock unwinds and removes its temporary directory, nothing is written, and torchdex ends by
// SIGTERM (exit status 143 in the shell).
TEST_F(LockE2eTest, ASigtermDuringTheResolverLeavesNoTemporaryDirectory) {
  const fs::path bin = *root_ / "sleeping-uv";
  const fs::path tmp = *root_ / "sigterm-tmp";
  const fs::path dir = *root_ / "locks-sigterm";
  fs::create_directories(bin);
  fs::create_directories(tmp);
  fs::create_directories(dir);
  // It says its pid (the sleep's, after exec) where the test can see it: no pgrep needed.
  const fs::path started = *root_ / "sleeping-uv.pid";
  WriteText(bin / "uv", "#!/bin/sh\necho $$ > '" + started.string() + ".tmp'; mv '" + started.string() + ".tmp' '" +
                            started.string() + "'\nexec sleep 61\n");
  fs::permissions(bin / "uv", fs::perms::owner_all);
  Environment env = *env_;
  env["PATH"] = bin.string() + ":/usr/bin:/bin";
  env["TMPDIR"] = tmp.string();
  const std::string lock = std::string(TORCHDEX_BINARY) + " lock --backend cpu --python-version 3.12 --catalogue " +
                           (*root_ / "mirror.json").string() + " --index-url " + nginx_->Url("/simple/") + " -o " +
                           dir.string() + " torch==2.5.1";
  // The shell starts it, waits until its uv runs, and sends SIGTERM to torchdex only.
  const std::string script = lock + " & pid=$!; i=0; while [ ! -s '" + started.string() + "' ] && [ $i -lt 200 ]; do "
                             "sleep 0.05; i=$((i+1)); done; ls \"$TMPDIR\"; kill -TERM $pid; wait $pid; "
                             "echo \"status=$?\"; ls \"$TMPDIR\" | wc -l; sleep 0.2; "
                             "if kill -0 \"$(cat '" + started.string() + "')\" 2>/dev/null; then echo uv-alive; fi";
  Output run = RunChild({"/bin/sh", "-c", script}, &env);
  EXPECT_THAT(run.out, HasSubstr("torchdex-lock-")) << run.out << run.err;  // it existed while uv ran
  EXPECT_THAT(run.out, HasSubstr("status=143\n0\n")) << run.out << run.err;
  EXPECT_TRUE(fs::is_empty(dir));
  EXPECT_THAT(run.out, Not(HasSubstr("uv-alive"))) << "a stand-in uv outlived torchdex";
}

// A backend the catalogue does not know is a usage error that names the flag it came from.
TEST_F(LockE2eTest, AnUnknownBackendIsNamedWithItsFlag) {
  Output run = Torchdex({"lock", "--backend", "cu1288", "--python-version", "3.12", "-o", root_->string(), "torch"});
  EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
  EXPECT_THAT(run.err, HasSubstr("unknown backend 'cu1288' (from --backend) (did you mean cu128?)"));
}

// --- The routing guarantee and the lock's hashes (issue 29).

// `lock lightning-like` (issue 29, item 5; docs/teams.md): a package of the default index that
// requires torch without naming it. uv takes torch through the routing index, from the backend;
// the lock holds it as routed, and sync installs it. uv's own index settings (variables, a
// configuration file) are kept from it (item 14): none is asked, and the bait never.
TEST_F(LockE2eTest, ALockOfAPackageThatRequiresTorchHoldsTheBackendsTorch) {
  const fs::path dir = *root_ / "locks-lightning-like";
  fs::create_directories(dir);
  const fs::path uv_toml = *root_ / "bait-uv.toml";
  WriteText(uv_toml, "extra-index-url = [\"" + nginx_->Url("/simple/") + "\"]\n");
  Environment env = *env_;
  env["UV_CONFIG_FILE"] = uv_toml.string();
  env["UV_EXTRA_INDEX_URL"] = nginx_->Url("/simple/");
  env["UV_INDEX_STRATEGY"] = "unsafe-best-match";
  env["UV_FIND_LINKS"] = (*root_ / "index/bait").string();
  const size_t log_start = nginx_->AccessLog().size();
  Output run = Torchdex({"lock", "--backend", "cu124", "--python", NewVenv("venv-lightning-like"), "--catalogue",
                         (*root_ / "mirror.json").string(), "--index-url", nginx_->Url("/simple/"), "-o", dir.string(),
                         "needs-needs-torch"},
                        &env);
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_THAT(run.out, HasSubstr("UV_CONFIG_FILE, UV_EXTRA_INDEX_URL, UV_FIND_LINKS, UV_INDEX_STRATEGY are not "
                                 "passed to uv pip compile"));
  EXPECT_THAT(run.out, HasSubstr("(routed: torch 2.6.0+cu124, triton 3.2.0)"));
  auto lock = ParsePyLock(ReadText(dir / "pylock.cu124.toml"), "pylock.cu124.toml");
  ASSERT_TRUE(lock.ok()) << lock.error().message;
  for (const LockedPackage& p : lock->packages) {
    if (p.name != "torch") continue;
    EXPECT_TRUE(p.routed);
    EXPECT_EQ(p.wheels.at(0).url, nginx_->Url("/whl/cu124/torch-2.6.0%2Bcu124-py3-none-any.whl"));
  }
  const std::string log = nginx_->AccessLog().substr(log_start);
  EXPECT_THAT(log, Not(HasSubstr("GET /simple/torch"))) << log;
  const std::string python = NewVenv("venv-lightning-like-sync");
  Output synced = Torchdex({"sync", "--catalogue", (*root_ / "mirror.json").string(), "--lock-dir", dir.string(), "--python", python, "--root",
                            Host("container-with-devices-a100-driver535")});
  ASSERT_EQ(synced.exit_code, 0) << synced.out << synced.err;
  EXPECT_EQ(Installed(python).at("torch"), "2.6.0+cu124");
}

// A lock whose torch url carries a "#sha256=" of its own (issue 29, item 1): pip and uv would
// accept either hash, so the bait (here a file of the same name on another path) would pass.
// sync refuses it with the line, installs nothing, and the bait is never downloaded.
TEST_F(LockE2eTest, AWheelUrlWithItsOwnHashIsRefusedAndTheBaitIsNeverFetched) {
  const fs::path dir = CopyOfLocks("locks-fragment");
  const fs::path file = dir / "pylock.cu124.toml";
  const std::string text = ReadText(file);
  const std::string good = nginx_->Url("/whl/cu124/torch-2.6.0%2Bcu124-py3-none-any.whl");
  fs::create_directories(*root_ / "index/bait/cu124");
  fs::copy_file(*root_ / "index/bait/torch-99.0.0-py3-none-any.whl", *root_ / "index/bait/cu124/torch-2.6.0+cu124-py3-none-any.whl",
                fs::copy_options::overwrite_existing);
  const std::string bait = nginx_->Url("/bait/cu124/torch-2.6.0%2Bcu124-py3-none-any.whl") + "#sha256=" +
                           Sha256OfFile(*root_ / "index/bait/cu124/torch-2.6.0+cu124-py3-none-any.whl");
  WriteText(file, Replace(text, "url = \"" + good + "\"", "url = \"" + bait + "\""));
  const std::string python = NewVenv("venv-fragment");
  for (const char* installer : {"pip", "uv"}) {
    const size_t log_start = nginx_->AccessLog().size();
    Output run = Torchdex({"sync", "--catalogue", (*root_ / "mirror.json").string(), "--lock-dir", dir.string(), "--python", python, "--installer", installer,
                           "--root", Host("container-with-devices-a100-driver535")});
    EXPECT_EQ(run.exit_code, 5) << installer << run.out << run.err;
    EXPECT_THAT(run.err, HasSubstr(file.string() + ":"));
    EXPECT_THAT(run.err, HasSubstr("torch 2.6.0+cu124: the wheel url carries a fragment (#sha256="));
    EXPECT_THAT(nginx_->AccessLog().substr(log_start), Not(HasSubstr("/bait/")));
  }
  EXPECT_TRUE(Installed(python).empty());
}

// sync --uv-project checks uv's own lock before it installs (issue 29, item 4): a project that
// does not name torch leaves it to the default index in uv.lock (the bait 9.9.9), and the sync
// refuses with the package that requires it; `export --format uv-project` names the routed
// packages the requirements reach, so its project locks the backend's torch; UV_NO_SOURCES in
// the environment does not reach uv sync.
TEST_F(LockE2eTest, SyncUvProjectRefusesAUvLockThatTakesARoutedNameFromElsewhere) {
  const fs::path project = *root_ / "uv-project-reached";
  fs::create_directories(project);
  const std::string python = NewVenv("venv-uv-project-reached");
  Output exported = Torchdex({"export", "--format", "uv-project", "--backend", "cu124", "--python", python,
                              "--catalogue", (*root_ / "mirror.json").string(), "--index-url", nginx_->Url("/simple/"),
                              "--output", (project / "pyproject.toml").string(), "needs-torch"});
  ASSERT_EQ(exported.exit_code, 0) << exported.out << exported.err;
  const std::string pyproject = ReadText(project / "pyproject.toml");
  EXPECT_THAT(pyproject, HasSubstr("    \"torch\",\n"));
  EXPECT_THAT(pyproject, HasSubstr("    \"triton ; sys_platform == 'linux'\",\n")) << pyproject;
  EXPECT_THAT(pyproject, HasSubstr("torch = { index = \"pytorch-cu124\" }\n"));
  EXPECT_THAT(pyproject, HasSubstr("triton = { index = \"pytorch-cu124\" }\n"));
  Environment env = *env_;
  env["UV_NO_SOURCES"] = "1";
  Output synced = Torchdex({"sync", "--catalogue", (*root_ / "mirror.json").string(), "--uv-project", "--lock-dir", project.string(), "--python", python, "--root",
                            Host("container-with-devices-a100-driver535")},
                           &env);
  ASSERT_EQ(synced.exit_code, 0) << synced.out << synced.err << pyproject;
  EXPECT_THAT(synced.out, HasSubstr("UV_NO_CONFIG, UV_NO_SOURCES are not passed to uv sync"));
  EXPECT_EQ(Installed(python).at("torch"), "2.6.0+cu124");

  // The same project without torch named: uv.lock takes the default index's torch.
  const fs::path bare = *root_ / "uv-project-bare";
  fs::create_directories(bare);
  std::string text = Replace(pyproject, "    \"torch\",\n", "");
  text = Replace(text, "torch = { index = \"pytorch-cu124\" }\n", "");
  WriteText(bare / "pyproject.toml", text);
  const std::string other = NewVenv("venv-uv-project-bare");
  Output refused = Torchdex({"sync", "--catalogue", (*root_ / "mirror.json").string(), "--uv-project", "--lock-dir", bare.string(), "--python", other, "--root",
                             Host("container-with-devices-a100-driver535")});
  EXPECT_EQ(refused.exit_code, 5) << refused.out << refused.err << text;
  EXPECT_THAT(refused.err, HasSubstr((bare / "uv.lock").string() + ":"));
  EXPECT_THAT(refused.err, HasSubstr(": torch 9.9.9 comes from registry " + nginx_->Url("/simple/") +
                                     " (required by needs-torch 1.0), not from a pytorch-<backend> index"));
  EXPECT_THAT(refused.err, HasSubstr("nothing was installed"));
  EXPECT_TRUE(Installed(other).empty());
  // A uv.toml beside the project, or a system one, is refused before uv runs.
  WriteText(bare / "uv.toml", "index-url = \"" + nginx_->Url("/simple/") + "\"\n");
  Output beside = Torchdex({"sync", "--catalogue", (*root_ / "mirror.json").string(), "--uv-project", "--lock-dir", bare.string(), "--python", other, "--root",
                            Host("container-with-devices-a100-driver535")});
  EXPECT_EQ(beside.exit_code, 5) << beside.out << beside.err;
  EXPECT_THAT(beside.err, HasSubstr((bare / "uv.toml").string() + ": uv reads it in place of the project's [tool.uv]"));
  fs::remove(bare / "uv.toml");
  fs::create_directories(*root_ / "xdg-system/uv");
  WriteText(*root_ / "xdg-system/uv/uv.toml", "index-url = \"" + nginx_->Url("/simple/") + "\"\n");
  Environment system = *env_;
  system["XDG_CONFIG_DIRS"] = (*root_ / "xdg-system").string();
  Output by_system = Torchdex({"sync", "--catalogue", (*root_ / "mirror.json").string(), "--uv-project", "--lock-dir", project.string(), "--python", other, "--root",
                               Host("container-with-devices-a100-driver535")},
                              &system);
  EXPECT_EQ(by_system.exit_code, 5) << by_system.out << by_system.err;
  EXPECT_THAT(by_system.err, HasSubstr((*root_ / "xdg-system/uv/uv.toml").string() + ": a system uv.toml"));
  EXPECT_TRUE(Installed(other).empty());

  // The project's word that an index is cu124's is checked against the catalogue and the
  // override files (the attack's F4), and a project inside a uv workspace is refused: uv would
  // lock and sync the workspace (F5).
  const fs::path lying = *root_ / "uv-project-lying-index";
  fs::create_directories(lying);
  WriteText(lying / "pyproject.toml", Replace(pyproject, "url = \"" + nginx_->Url("/whl/cu124/") + "\"",
                                              "url = \"" + nginx_->Url("/simple/") + "\""));
  Output lied = Torchdex({"sync", "--catalogue", (*root_ / "mirror.json").string(), "--uv-project", "--lock-dir",
                          lying.string(), "--python", other, "--root", Host("container-with-devices-a100-driver535")});
  EXPECT_EQ(lied.exit_code, 5) << lied.out << lied.err;
  EXPECT_THAT(lied.err, HasSubstr("the index pytorch-cu124 is " + nginx_->Url("/simple/") + ", not backend cu124's (" +
                                  nginx_->Url("/whl/cu124/") + ")"));
  const fs::path workspace = *root_ / "uv-workspace";
  fs::create_directories(workspace / "proj");
  WriteText(workspace / "pyproject.toml", "[project]\nname = \"ws\"\nversion = \"0\"\n[tool.uv.workspace]\n"
                                          "members = [\"proj\"]\n");
  WriteText(workspace / "proj/pyproject.toml", pyproject);
  Output member = Torchdex({"sync", "--catalogue", (*root_ / "mirror.json").string(), "--uv-project", "--lock-dir",
                            (workspace / "proj").string(), "--python", other, "--root",
                            Host("container-with-devices-a100-driver535")});
  EXPECT_EQ(member.exit_code, 5) << member.out << member.err;
  EXPECT_THAT(member.err, HasSubstr((workspace / "pyproject.toml").string() + ": a uv workspace above "));
  EXPECT_TRUE(Installed(other).empty());
}

// `lock --backend variant` (issue 17): the test channel's variant index of make_index.py
// --lock, torch 2.10.0 in every label of the variants.json fixture. The A100 on driver 550 gets
// cuda12.8 (its priority over cuda12.6); uv resolves what that wheel requires (its PEP 658
// metadata: filelock, the fake cu12 runtime) from the default index, and the lock holds the
// variant wheel with PEP 825's [packages.variants-json]. sync checks the locked variant
// against each machine before it would install it.
class VariantLockE2eTest : public LockE2eTest {
 protected:
  static const fs::path& VariantLocks() {
    static bool made = false;
    static fs::path dir = *root_ / "variant-locks";
    if (!made) {
      made = true;
      fs::create_directories(dir);
      variant_run_ = new Output(Torchdex({"lock", "--backend", "variant", "--channel", "test", "--explain", "--root",
                                          Host("linux-a100-driver550"), "--python", NewVenv("venv-variant-lock"),
                                          "--catalogue", (*root_ / "mirror.json").string(), "--index-url",
                                          nginx_->Url("/simple/"), "-o", dir.string(), "torch==2.10.0"}));
    }
    return dir;
  }
  static Output Sync(const fs::path& dir, const std::string& host, bool dry_run = true) {
    static int made = 0;
    std::vector<std::string> args = {"sync", "--lock-dir", dir.string(), "--root", Host(host), "--python",
                                     NewVenv("venv-variant-sync-" + std::to_string(++made)), "--catalogue",
                                     (*root_ / "mirror.json").string()};
    if (dry_run) args.push_back("--dry-run");
    return Torchdex(args);
  }
  static inline Output* variant_run_ = nullptr;
};

TEST_F(VariantLockE2eTest, TheVariantWheelIsLockedWithItsVariantsJsonAndUvResolvesWhatItRequires) {
  const fs::path& dir = VariantLocks();
  ASSERT_EQ(variant_run_->exit_code, 0) << variant_run_->out << variant_run_->err;
  EXPECT_THAT(variant_run_->out, HasSubstr("variant: torch 2.10.0: variant cuda12.8, by "));
  EXPECT_THAT(variant_run_->out, HasSubstr("wrote " + (dir / "pylock.variant.toml").string()));
  const std::string text = ReadText(dir / "pylock.variant.toml");
  auto lock = ParsePyLock(text, "pylock.variant.toml");
  ASSERT_TRUE(lock.ok()) << lock.error().message;
  EXPECT_EQ(lock->torchdex.backend, "variant");
  EXPECT_EQ(lock->torchdex.index_url, nginx_->Url("/whl/test/variant/"));
  std::map<std::string, std::string> versions;
  for (const LockedPackage& p : lock->packages) versions[p.name] = p.version;
  EXPECT_EQ(versions, (std::map<std::string, std::string>{
                          {"torch", "2.10.0"}, {"filelock", "3.16.1"}, {"nvidia-fake-cu12", "12.8"}}));
  for (const LockedPackage& p : lock->packages) {
    ASSERT_EQ(p.wheels.size(), 1u) << p.name;
    if (p.name != "torch") {
      EXPECT_FALSE(p.variants_json.has_value()) << p.name;
      EXPECT_EQ(p.wheels[0].url.rfind(nginx_->Url("/simple/"), 0), 0u) << p.wheels[0].url;
      continue;
    }
    EXPECT_TRUE(p.routed);
    EXPECT_EQ(p.wheels[0].name, "torch-2.10.0-py3-none-any-cuda12.8.whl");
    EXPECT_EQ(p.wheels[0].url, nginx_->Url("/whl/test/variant/torch-2.10.0-py3-none-any-cuda12.8.whl"));
    EXPECT_EQ(p.wheels[0].sha256,
              Sha256OfFile(*root_ / "index/whl/test/variant/torch-2.10.0-py3-none-any-cuda12.8.whl"));
    ASSERT_TRUE(p.variants_json.has_value());
    EXPECT_EQ(p.variants_json->url, nginx_->Url("/whl/test/variant/torch-2.10.0-variants.json"));
    EXPECT_EQ(p.variants_json->sha256, Sha256OfFile(*root_ / "index/whl/test/variant/torch-2.10.0-variants.json"));
  }
  EXPECT_THAT(text, HasSubstr("[packages.variants-json]\nurl = \"" +
                              nginx_->Url("/whl/test/variant/torch-2.10.0-variants.json") + "\""));
  EXPECT_THAT(text, HasSubstr("torch 2.10.0: variant cuda12.8, by "));
  // packaging 26.4's PEP 751 reader reads a variant wheel's label as a bad build number and
  // refuses the name (docs/variants.md); with that name made plain, it takes the rest of the
  // file, [packages.variants-json] included.
  const fs::path plain = *root_ / "pylock.variant-plain-name.toml";
  WriteText(plain, Replace(text, "name = \"torch-2.10.0-py3-none-any-cuda12.8.whl\"",
                           "name = \"torch-2.10.0-py3-none-any.whl\""));
  const std::string check =
      "import sys, tomllib\n"
      "from packaging.pylock import Pylock\n"
      "lock = Pylock.from_dict(tomllib.load(open(sys.argv[1], 'rb')))\n"
      "lock.validate()\n"
      "print(sorted(p.name for p in lock.packages))\n";
  Output checked = RunChild({std::string(kToolsBin) + "/python", "-c", check, plain.string()});
  EXPECT_EQ(checked.exit_code, 0) << checked.err;
  EXPECT_THAT(checked.out, HasSubstr("'torch'"));
  Output refused = RunChild({std::string(kToolsBin) + "/python", "-c", check, (dir / "pylock.variant.toml").string()});
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_THAT(refused.err, HasSubstr("Invalid wheel filename 'torch-2.10.0-py3-none-any-cuda12.8.whl'"));
}

TEST_F(VariantLockE2eTest, SyncChecksTheLockedVariantAgainstEachMachine) {
  const fs::path& dir = VariantLocks();
  ASSERT_EQ(variant_run_->exit_code, 0) << variant_run_->err;
  // The machine that locked: the variant fits, and sync would install exactly the lock.
  Output a100 = Sync(dir, "linux-a100-driver550");
  EXPECT_EQ(a100.exit_code, 0) << a100.out << a100.err;
  EXPECT_THAT(a100.out, HasSubstr("lock: " + (dir / "pylock.variant.toml").string() + " (the variant index"));
  EXPECT_THAT(a100.out, HasSubstr("why: torch 2.10.0: the locked variant cuda12.8 fits this machine"));
  EXPECT_THAT(a100.out, HasSubstr("would install: torch 2.10.0 " +
                                  nginx_->Url("/whl/test/variant/torch-2.10.0-py3-none-any-cuda12.8.whl")));
  EXPECT_THAT(a100.out, HasSubstr("would install: nvidia-fake-cu12 12.8 "));
  // A newer driver: cuda12.8 still runs, cuda13.0 would be better, and sync says so.
  Output rtx = Sync(dir, "linux-rtx5090-driver580");
  EXPECT_EQ(rtx.exit_code, 0) << rtx.out << rtx.err;
  EXPECT_THAT(rtx.out, HasSubstr("warning: torch 2.10.0: this machine's best variant is cuda13.0"));
  // No GPU: the CUDA variant does not fit; nothing is installed.
  Output none = Sync(dir, "linux-no-gpu");
  EXPECT_EQ(none.exit_code, kExitNoBackend) << none.out << none.err;
  EXPECT_THAT(none.err, HasSubstr("the locked variant cuda12.8 does not fit this machine ("));
  EXPECT_THAT(none.out, Not(HasSubstr("install")));
  // pip and uv cannot install a variant wheel yet: said, with the lock's line, nothing run.
  Output real = Sync(dir, "linux-a100-driver550", false);
  EXPECT_EQ(real.exit_code, kExitFailure) << real.out << real.err;
  EXPECT_THAT(real.err, HasSubstr("torch-2.10.0-py3-none-any-cuda12.8.whl is a variant wheel (PEP 825, a draft)"));
  EXPECT_THAT(real.out, Not(HasSubstr("running:")));
}

TEST_F(VariantLockE2eTest, AVariantsJsonThatIsNotTheLockedOneIsRefused) {
  const fs::path& dir = VariantLocks();
  ASSERT_EQ(variant_run_->exit_code, 0) << variant_run_->err;
  const fs::path spoiled = *root_ / "variant-locks-spoiled";
  fs::create_directories(spoiled);
  const std::string text = ReadText(dir / "pylock.variant.toml");
  const std::string sha = Sha256OfFile(*root_ / "index/whl/test/variant/torch-2.10.0-variants.json");
  WriteText(spoiled / "pylock.variant.toml", Replace(text, sha, std::string(64, 'a')));
  Output run = Sync(spoiled, "linux-a100-driver550");
  EXPECT_EQ(run.exit_code, kExitNetwork) << run.out << run.err;
  EXPECT_THAT(run.err, HasSubstr("the lock says " + std::string(64, 'a')));
  EXPECT_THAT(run.err, HasSubstr(spoiled.string() + "/pylock.variant.toml:"));
}

TEST_F(VariantLockE2eTest, WhatCannotBeLockedIsSaidAndNothingIsWritten) {
  const fs::path dir = *root_ / "variant-locks-refused";
  fs::create_directories(dir);
  int made = 0;
  auto lock = [&](const std::string& requirement) {
    return Torchdex({"lock", "--backend", "variant", "--channel", "test", "--root", Host("linux-a100-driver550"),
                     "--python", NewVenv("venv-variant-refused-" + std::to_string(++made)), "--catalogue", (*root_ / "mirror.json").string(),
                     "--index-url", nginx_->Url("/simple/"), "-o", dir.string(), requirement});
  };
  // 2.11.0's page gives no PEP 658 metadata: what the wheel requires is unknown.
  Output no_metadata = lock("torch==2.11.0");
  EXPECT_EQ(no_metadata.exit_code, kExitNoBackend) << no_metadata.out << no_metadata.err;
  EXPECT_THAT(no_metadata.err, HasSubstr("torch 2.11.0 (variant cuda12.8): the page "));
  EXPECT_THAT(no_metadata.err, HasSubstr("gives no PEP 658 metadata for torch-2.11.0-py3-none-any-cuda12.8.whl"));
  // A plain wheel that requires the variant one would be resolved by uv, which cannot read it.
  Output needs = lock("torchvision");
  EXPECT_EQ(needs.exit_code, kExitNoBackend) << needs.out << needs.err;
  EXPECT_THAT(needs.err, HasSubstr("torchvision requires torch, a variant wheel (torch-2.10.0-py3-none-any-cuda12.8.whl)"));
  EXPECT_TRUE(fs::is_empty(dir));
}

// A variants.json linked without a hash is read unverified: said, and the plan (and so a lock)
// pins the bytes that were read.
TEST_F(VariantLockE2eTest, AVariantsJsonWithoutAHashIsReadWithAWarningAndPinnedAsRead) {
  Output run = Torchdex({"install", "--dry-run", "--json", "--torch-backend", "variant", "--channel", "test", "--root",
                         Host("linux-a100-driver550"), "--python", NewVenv("venv-variant-unhashed"), "--catalogue",
                         (*root_ / "mirror.json").string(), "torch==2.11.0"});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const nlohmann::json plan = nlohmann::json::parse(run.out, nullptr, false);
  ASSERT_TRUE(plan.is_object()) << run.out;
  const std::string url = nginx_->Url("/whl/test/variant/torch-2.11.0-variants.json");
  EXPECT_THAT(plan.dump(), HasSubstr(url + ": the page " + nginx_->Url("/whl/test/variant/torch/") +
                                     " gives no sha256 for it, so it was read unverified"));
  ASSERT_EQ(plan["routed"].size(), 1u);
  EXPECT_EQ(plan["routed"][0]["variants_json"]["sha256"],
            Sha256OfFile(*root_ / "index/whl/test/variant/torch-2.11.0-variants.json"));
}

// A mirror's credentials (user:token@ in the override file) reach the servers but never the lock
// (docs/teams.md) nor what install prints.
TEST_F(VariantLockE2eTest, AMirrorsCredentialsAreNeitherWrittenNorPrinted) {
  const fs::path dir = *root_ / "variant-locks-credentials";
  fs::create_directories(dir);
  const std::string mirror = Replace(nginx_->Url("/whl/"), "http://", "http://alice:tok3n@");
  const fs::path overrides = *root_ / "mirror-credentials.json";
  WriteText(overrides, "{\"format\": 1, \"mirror\": \"" + mirror + "\"}\n");
  Output run = Torchdex({"lock", "--backend", "variant", "--channel", "test", "--root", Host("linux-a100-driver550"),
                         "--python", NewVenv("venv-variant-credentials"), "--catalogue", overrides.string(),
                         "--index-url", nginx_->Url("/simple/"), "-o", dir.string(), "torch==2.10.0"});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const std::string text = ReadText(dir / "pylock.variant.toml");
  EXPECT_EQ(text.find("tok3n"), std::string::npos) << text;
  EXPECT_EQ(text.find("alice"), std::string::npos) << text;
  EXPECT_THAT(text, HasSubstr("[packages.variants-json]\nurl = \"" +
                              nginx_->Url("/whl/test/variant/torch-2.10.0-variants.json") + "\""));
  EXPECT_EQ((run.out + run.err).find("tok3n"), std::string::npos) << run.out << run.err;
  Output plan = Torchdex({"install", "--dry-run", "--json", "--torch-backend", "variant", "--channel", "test", "--root",
                          Host("linux-a100-driver550"), "--python", NewVenv("venv-variant-credentials-plan"),
                          "--catalogue", overrides.string(), "torch==2.10.0"});
  ASSERT_EQ(plan.exit_code, 0) << plan.out << plan.err;
  EXPECT_EQ(plan.out.find("tok3n"), std::string::npos) << plan.out;
  EXPECT_THAT(plan.out, HasSubstr("alice:****@"));
}

// PEP 825 lets a lock list several variants; sync resolves them for the machine it runs on (the
// best compatible one), and refuses a wheel whose name says another label than its URL.
TEST_F(VariantLockE2eTest, SeveralLockedVariantsAreResolvedOnEachMachine) {
  const fs::path& dir = VariantLocks();
  ASSERT_EQ(variant_run_->exit_code, 0) << variant_run_->err;
  const std::string text = ReadText(dir / "pylock.variant.toml");
  const std::string cuda = "torch-2.10.0-py3-none-any-cuda12.8.whl";
  const std::string xpu = "torch-2.10.0-py3-none-any-xpu.whl";
  const size_t line_end = text.find('\n', text.find("{ name = \"" + cuda + "\""));
  ASSERT_NE(line_end, std::string::npos) << text;
  std::string two = text;
  two.insert(line_end + 1, "    { name = \"" + xpu + "\", url = \"" + nginx_->Url("/whl/test/variant/" + xpu) +
                               "\", hashes = { sha256 = \"" +
                               Sha256OfFile(*root_ / ("index/whl/test/variant/" + xpu)) + "\" } },\n");
  const fs::path several = *root_ / "variant-locks-several";
  fs::create_directories(several);
  WriteText(several / "pylock.variant.toml", two);
  Output a100 = Sync(several, "linux-a100-driver550");
  EXPECT_EQ(a100.exit_code, 0) << a100.out << a100.err;
  EXPECT_THAT(a100.out, HasSubstr("why: torch 2.10.0: the locked variant cuda12.8 fits this machine (the best of the "
                                  "locked cuda12.8, xpu)"));
  EXPECT_THAT(a100.out, HasSubstr("would install: torch 2.10.0 " + nginx_->Url("/whl/test/variant/" + cuda)));
  Output arc = Sync(several, "intel-arc-b580-xpu");
  EXPECT_EQ(arc.exit_code, 0) << arc.out << arc.err;
  EXPECT_THAT(arc.out, HasSubstr("would install: torch 2.10.0 " + nginx_->Url("/whl/test/variant/" + xpu)));
  Output none = Sync(several, "linux-no-gpu");
  EXPECT_EQ(none.exit_code, kExitNoBackend) << none.out << none.err;
  EXPECT_THAT(none.err, HasSubstr("none of the locked variants (cuda12.8, xpu) does fit this machine ("));
  // The torch the lock asks for, with a marker that excludes the machine: refused, since the
  // lock would install no torch here (issue 29, item 11), and its variants are not resolved.
  const fs::path elsewhere = *root_ / "variant-locks-elsewhere";
  fs::create_directories(elsewhere);
  WriteText(elsewhere / "pylock.variant.toml",
            Replace(text, "name = \"torch\"\nversion = \"2.10.0\"\n",
                    "name = \"torch\"\nversion = \"2.10.0\"\nmarker = \"sys_platform == 'win32'\"\n"));
  Output skipped = Sync(elsewhere, "linux-no-gpu");
  EXPECT_EQ(skipped.exit_code, kExitBadInputFile) << skipped.out << skipped.err;
  EXPECT_THAT(skipped.err, HasSubstr("the lock asks for torch==2.10.0, but none of its entries of torch applies to "));
  EXPECT_THAT(skipped.out, Not(HasSubstr("would install")));
  // Another package's wheel among the variant package's: refused on every machine.
  const fs::path evil = *root_ / "variant-locks-evil";
  fs::create_directories(evil);
  const std::string bad = "evil-2.10.0-py3-none-any-null.whl";
  std::string with_evil = text;
  with_evil.insert(line_end + 1, "    { name = \"" + bad + "\", url = \"" + nginx_->Url("/whl/test/variant/" + bad) +
                                     "\", hashes = { sha256 = \"" + std::string(64, 'e') + "\" } },\n");
  WriteText(evil / "pylock.variant.toml", with_evil);
  Output on_a100 = Sync(evil, "linux-a100-driver550");
  EXPECT_EQ(on_a100.exit_code, kExitBadInputFile) << on_a100.out << on_a100.err;
  EXPECT_THAT(on_a100.err, HasSubstr("the wheel " + bad + " is not of this package and version"));
  // A name that says another label than the URL fetches: refused where it is written.
  const fs::path lying = *root_ / "variant-locks-lying";
  fs::create_directories(lying);
  WriteText(lying / "pylock.variant.toml",
            Replace(text, "name = \"" + cuda + "\"", "name = \"torch-2.10.0-py3-none-any-null.whl\""));
  Output lie = Sync(lying, "linux-no-gpu");
  EXPECT_EQ(lie.exit_code, kExitBadInputFile) << lie.out << lie.err;
  EXPECT_THAT(lie.err, HasSubstr("the wheel's name torch-2.10.0-py3-none-any-null.whl is not the file its url names (" +
                                 cuda + ")"));
}

}  // namespace
}  // namespace torchdex::installer
