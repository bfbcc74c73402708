// `torchdex lock` and `torchdex sync` on the command line, without an index: usage errors, and
// the lock files sync refuses before it asks any interpreter or installs anything. The runs
// against indexes, uv and pip are in tests/installer/e2e/lock_e2e_test.cc.
#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <tuple>
#include <gtest/gtest.h>
#include "installer/cli/lock_support.h"
#include "core/url.h"

#include "installer/lock/pylock.h"
#include "tests/installer/test_support.h"

namespace torchdex::installer {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::CliResult;
using testing::RunTorchdex;

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

class LockCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "torchdex-lock-cli-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
  void Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name, std::ios::binary) << text;
  }
  static std::string Lock(const std::string& backend, std::string url = "",
                          const std::string& tags = "py3-none-any") {
    const std::string file = "torch-2.5.1+" + backend + "-" + tags + ".whl";
    if (url.empty()) url = "https://download.pytorch.org/whl/" + backend + "/torch-2.5.1%2B" + backend + "-" + tags + ".whl";
    PyLock lock;
    LockedPackage torch;
    torch.name = "torch";
    torch.version = "2.5.1+" + backend;
    torch.routed = true;
    torch.wheels.push_back({file, url, std::string(64, 'a'), {}, "", 0});
    lock.packages = {torch};
    lock.torchdex.backend = backend;
    lock.torchdex.channel = "stable";
    return WritePyLock(lock);
  }
  fs::path dir_;
};

TEST_F(LockCliTest, UsageErrors) {
  EXPECT_EQ(RunTorchdex({"lock"}).code, 2);
  EXPECT_THAT(RunTorchdex({"lock"}).err, HasSubstr("lock: no requirements given"));
  EXPECT_THAT(RunTorchdex({"lock", "--backend", "cpu", "--backend", "cpu", "torch"}).err,
              HasSubstr("--backend cpu is given twice"));
  EXPECT_EQ(RunTorchdex({"sync", "--installer", "conda"}).code, 2);
  EXPECT_EQ(RunTorchdex({"sync", "torch"}).code, 2);  // sync takes no requirements
  EXPECT_THAT(RunTorchdex({"export", "--format", "uv", "--backend", "cpu", "torch"}).err,
              HasSubstr("--backend is for --format uv-project"));
}

// --backend all-compatible and all name the backends from the decision over the host, before
// uv is needed: here uv is not on PATH, so the run stops after saying which backends it would
// lock. The locks themselves are made by the same LockOne as named backends (lock_e2e_test.cc).
TEST_F(LockCliTest, AllCompatibleLocksTheCandidatesOfTheHostAndAllEveryBackendOffering) {
  auto lock = [&](const std::string& backend, const std::string& host) {
    return RunTorchdex({"lock", "--backend", backend, "--python-version", "3.12", "--platform", "linux_x86_64",
                        "--root", (testing::kFixtures / "hosts" / host).string(), "-o", dir_.string(),
                        "--explain", "torch==2.5.1"});
  };
  const CliResult a100 = lock("all-compatible", "container-with-devices-a100-driver535");
  EXPECT_THAT(a100.out, HasSubstr("locking for cu124, "));
  EXPECT_THAT(a100.out, HasSubstr(", cpu: the backends that fit this machine, best first\n"));
  EXPECT_THAT(a100.out, Not(HasSubstr("locking for cpu")));
  EXPECT_THAT(a100.out, HasSubstr("not locked: cu128: "));   // no torch 2.5.1 there
  EXPECT_THAT(a100.out, HasSubstr("not locked: rocm6.2: "));  // no AMD GPU
  EXPECT_THAT(a100.err, HasSubstr("torchdex lock: ")) << a100.err;
  EXPECT_THAT(a100.err, HasSubstr("uv"));
  EXPECT_TRUE(fs::is_empty(dir_));  // nothing written

  const CliResult none = lock("all-compatible", "linux-no-gpu");
  EXPECT_THAT(none.out, HasSubstr("locking for cpu: the backends that fit this machine, best first\n")) << none.out;
  EXPECT_THAT(none.out, HasSubstr("not locked: cu124: no NVIDIA GPU found"));

  // all: whatever the hardware, every backend offering torch 2.5.1.
  const CliResult all = lock("all", "linux-no-gpu");
  const size_t at = all.out.find("locking for ");
  ASSERT_NE(at, std::string::npos) << all.out << all.err;
  const std::string listed = ", " + all.out.substr(at + 12, all.out.find(':', at) - at - 12) + ",";
  for (const char* backend : {"cpu", "cu118", "cu121", "cu124", "rocm6.2"}) {
    EXPECT_THAT(listed, HasSubstr(std::string(", ") + backend + ",")) << backend << ": " << all.out;
  }
  EXPECT_THAT(listed, Not(HasSubstr(", cu128,")));
  EXPECT_THAT(all.out, HasSubstr("not locked: cu128: "));
  EXPECT_THAT(all.out, HasSubstr(": every backend of the catalogue that offers what was asked\n"));

  // Without --explain, how many were left out.
  const CliResult quiet = RunTorchdex({"lock", "--backend", "all-compatible", "--python-version", "3.12", "--root",
                                       (testing::kFixtures / "hosts/linux-no-gpu").string(), "torch==2.5.1"});
  EXPECT_THAT(quiet.out, ::testing::MatchesRegex("not locked: [0-9]+ other backends of the catalogue \\(--explain "
                                                 "says why\\)\nlocking for cpu: .*"));

  // Alone or not at all.
  const CliResult both = RunTorchdex({"lock", "--backend", "all-compatible", "--backend", "cpu", "torch"});
  EXPECT_EQ(both.code, 2);
  EXPECT_THAT(both.err, HasSubstr("--backend all-compatible stands alone"));
}

TEST_F(LockCliTest, HelpNamesTheCommands) {
  const CliResult help = RunTorchdex({"--help"});
  EXPECT_THAT(help.out, HasSubstr("  lock      write a PEP 751 lock file per backend"));
  EXPECT_THAT(help.out, HasSubstr("  sync      install the lock file that fits this machine"));
  EXPECT_THAT(RunTorchdex({"sync", "--help"}).out, HasSubstr("--lock-dir DIR"));
  EXPECT_THAT(RunTorchdex({"lock", "--help"}).out, HasSubstr("--backend NAME"));
  EXPECT_THAT(RunTorchdex({"lock", "--help"}).out, HasSubstr("all-compatible"));
}

TEST_F(LockCliTest, SyncWithoutLocksSaysWhereItLooked) {
  const CliResult run = RunTorchdex({"sync", "--lock-dir", dir_.string()});
  EXPECT_EQ(run.code, 5);
  EXPECT_THAT(run.err, HasSubstr(dir_.string() + ": no pylock.*.toml lock files"));
  EXPECT_EQ(RunTorchdex({"sync", "--lock-dir", (dir_ / "missing").string()}).code, 5);
}

TEST_F(LockCliTest, TwoLocksForOneBackendAreAnErrorNamingBoth) {
  // PEP 751's plain pylock.toml may hold any backend: beside pylock.cpu.toml, a second cpu lock.
  Write("pylock.cpu.toml", Lock("cpu"));
  Write("pylock.toml", Lock("cpu"));
  const CliResult run = RunTorchdex({"sync", "--lock-dir", dir_.string()});
  EXPECT_EQ(run.code, 5);
  EXPECT_THAT(run.err, HasSubstr("two lock files for the backend cpu: " + (dir_ / "pylock.cpu.toml").string() +
                                 " and " + (dir_ / "pylock.toml").string()));
}

// A lock named for one backend that holds another's (pylock.cu124.toml with cpu wheels) is refused,
// not chosen by what its name promises.
TEST_F(LockCliTest, ALockNamedForAnotherBackendIsRefused) {
  Write("pylock.cu124.toml", Lock("cpu"));
  const CliResult run = RunTorchdex({"sync", "--lock-dir", dir_.string()});
  EXPECT_EQ(run.code, 5) << run.err;
  EXPECT_THAT(run.err, HasSubstr((dir_ / "pylock.cu124.toml").string() + ":"));
  EXPECT_THAT(run.err, HasSubstr("[tool.torchdex] backend is \"cpu\", but the file is named for another; a lock "
                                 "for it is named pylock.cpu.toml"));
}

TEST_F(LockCliTest, ALockThatDoesNotParseIsALocatedError) {
  Write("pylock.cpu.toml", Lock("cpu"));
  Write("pylock.cu124.toml", "lock-version = \"1.0\"\ncreated-by = \"x\"\npackages = [\n");
  const CliResult run = RunTorchdex({"sync", "--lock-dir", dir_.string()});
  EXPECT_EQ(run.code, 5);
  EXPECT_THAT(run.err, HasSubstr((dir_ / "pylock.cu124.toml").string() + ":4:1: "));
}

TEST_F(LockCliTest, FilesThatAreNotLockNamesAreLeftAlone) {
  Write("pylock.cpu.toml.torchdex-tmp", "garbage");
  Write("pylock.rocm6.3.toml", "garbage");  // not a PEP 751 name: a dot in the middle
  const CliResult run = RunTorchdex({"sync", "--lock-dir", dir_.string()});
  EXPECT_THAT(run.err, HasSubstr("no pylock.*.toml lock files"));
}

// A lock's URLs go into the installer's requirements file: one that breaks the HTTPS rule or
// could start another line is refused with where it is, before anything runs.
TEST_F(LockCliTest, AWheelUrlThatBreaksTheRulesIsRefusedWithItsLine) {
  const std::string host = (testing::kFixtures / "hosts/linux-no-gpu").string();
  Write("pylock.cpu.toml", Lock("cpu", "http://example.com/torch-2.5.1%2Bcpu-py3-none-any.whl"));
  CliResult run = RunTorchdex({"sync", "--lock-dir", dir_.string(), "--python", "/usr/bin/python3", "--root", host,
                               "--dry-run"});
  EXPECT_EQ(run.code, 5) << run.out << run.err;
  EXPECT_THAT(run.err, HasSubstr((dir_ / "pylock.cpu.toml").string() + ":9: torch 2.5.1+cpu: "));
  EXPECT_THAT(run.err, HasSubstr("http://example.com/torch-2.5.1%2Bcpu-py3-none-any.whl"));
  Write("pylock.cpu.toml", Lock("cpu", "https://h/t.whl\n--index-url https://evil/"));
  run = RunTorchdex({"sync", "--lock-dir", dir_.string(), "--python", "/usr/bin/python3", "--root", host, "--dry-run"});
  EXPECT_EQ(run.code, 5) << run.out << run.err;
  // Refused where the lock is read, with its line and column.
  EXPECT_THAT(run.err, HasSubstr((dir_ / "pylock.cpu.toml").string() + ":9:"));
  EXPECT_THAT(run.err, HasSubstr("packages[0] (torch): url holds the control character 0x0a"));
  // A space is no control character: the sync's own check refuses it.
  Write("pylock.cpu.toml", Lock("cpu", "https://h/t.whl --index-url https://evil/"));
  run = RunTorchdex({"sync", "--lock-dir", dir_.string(), "--python", "/usr/bin/python3", "--root", host, "--dry-run"});
  EXPECT_EQ(run.code, 5) << run.out << run.err;
  EXPECT_THAT(run.err, HasSubstr("the wheel URL holds a space or a control character"));
  // The same lock with a good URL: chosen, and the dry run says what it would run.
  Write("pylock.cpu.toml", Lock("cpu", "https://download.pytorch.org/whl/cpu/torch-2.5.1%2Bcpu-py3-none-any.whl"));
  run = RunTorchdex({"sync", "--lock-dir", dir_.string(), "--python", "/usr/bin/python3", "--root", host, "--dry-run"});
  EXPECT_EQ(run.code, 0) << run.out << run.err;
  EXPECT_THAT(run.out, HasSubstr("would install: torch 2.5.1+cpu https://download.pytorch.org/whl/cpu/torch-2.5.1%2Bcpu-py3-none-any.whl\n"));
  EXPECT_THAT(run.out, HasSubstr("would run: /usr/bin/python3 -m pip install --no-deps --require-hashes"));
  // pip's check for a newer pip (a request to PyPI) is not made; the rest is pip's default.
  EXPECT_THAT(run.out, HasSubstr(" --no-input --disable-pip-version-check -r "));
  EXPECT_THAT(run.out, Not(HasSubstr("--no-compile")));
}

// pip and uv accept a URL's own "#sha256=" beside --hash, so a fragment would let another wheel
// than the lock's pass (issue 29, item 1): refused with the line, whatever the fragment says.
TEST_F(LockCliTest, AWheelUrlWithAFragmentIsRefusedWithItsLine) {
  const std::string host = (testing::kFixtures / "hosts/linux-no-gpu").string();
  for (const std::string& fragment : std::vector<std::string>{"#sha256=" + std::string(64, 'b'), "#md5=00", "#egg=torch", "#"}) {
    Write("pylock.cpu.toml", Lock("cpu", "https://download.pytorch.org/whl/cpu/torch-2.5.1%2Bcpu-py3-none-any.whl" + fragment));
    CliResult run = RunTorchdex({"sync", "--lock-dir", dir_.string(), "--python", "/usr/bin/python3", "--root", host,
                                 "--dry-run"});
    EXPECT_EQ(run.code, 5) << fragment << run.out << run.err;
    EXPECT_THAT(run.err, HasSubstr((dir_ / "pylock.cpu.toml").string() + ":9: torch 2.5.1+cpu: the wheel url "
                                   "carries a fragment (" + fragment.substr(0, 80) + ")"));
    EXPECT_THAT(run.out, Not(HasSubstr("would install")));
  }
}

// Locks that lie (issue 29, item 11): a routed package must be a wheel of the lock's own backend,
// on the family's index or its mirror, and exactly one entry of a routed name applies.
TEST_F(LockCliTest, ALockWhoseRoutedPackagesAreNotItsBackendsIsRefused) {
  const std::string host = (testing::kFixtures / "hosts/linux-no-gpu").string();
  auto sync = [&](const PyLock& lock) {
    Write("pylock.cpu.toml", WritePyLock(lock));
    return RunTorchdex({"sync", "--lock-dir", dir_.string(), "--python", "/usr/bin/python3", "--root", host, "--dry-run"});
  };
  auto base = [&] {
    PyLock lock = *ParsePyLock(Lock("cpu"), "pylock.cpu.toml");
    lock.torchdex.requirements = {"torch"};
    return lock;
  };
  {  // the default index's torch, said to be routed
    PyLock lock = base();
    lock.packages[0].version = "9.9.9";
    lock.packages[0].wheels[0] = {"torch-9.9.9-py3-none-any.whl", "https://pypi.org/packages/torch-9.9.9-py3-none-any.whl",
                                  std::string(64, 'a'), {}, "", 0};
    CliResult run = sync(lock);
    EXPECT_EQ(run.code, 5) << run.out << run.err;
    EXPECT_THAT(run.err, HasSubstr("the routed package torch 9.9.9 comes from https://pypi.org/packages/"
                                   "torch-9.9.9-py3-none-any.whl, which is not under the family's index"));
    EXPECT_THAT(run.out, Not(HasSubstr("would install")));
  }
  {  // another backend's build
    PyLock lock = base();
    lock.packages[0].version = "2.5.1+cu121";
    lock.packages[0].wheels[0] = {"torch-2.5.1+cu121-py3-none-any.whl",
                                  "https://download.pytorch.org/whl/cu121/torch-2.5.1%2Bcu121-py3-none-any.whl",
                                  std::string(64, 'a'), {}, "", 0};
    CliResult run = sync(lock);
    EXPECT_EQ(run.code, 5) << run.out << run.err;
    EXPECT_THAT(run.err, HasSubstr("which is a build of backend cu121, not a wheel of backend cpu"));
  }
  // Past a prefix check (the second attack's G1-G3): dot segments, literal or encoded; a '\\' in
  // the authority; a name that says another version than the lock; another backend's directory.
  for (const auto& [url, version, why] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"https://download.pytorch.org/whl/cpu/../../simple/torch-9.9.9-py3-none-any.whl", "9.9.9",
            "has a dot segment or an encoded '/' in its path"},
           {"https://download.pytorch.org/whl/cpu/%2e%2e/%2E%2E/x/torch-9.9.9-py3-none-any.whl", "9.9.9",
            "has a dot segment or an encoded '/' in its path"},
           {"https://download.pytorch.org/whl/cpu%2f..%2fx/torch-9.9.9-py3-none-any.whl", "9.9.9",
            "has a dot segment or an encoded '/' in its path"},
           {"https://download.pytorch.org.evil.example/whl/cpu/torch-9.9.9-py3-none-any.whl", "9.9.9",
            "is not under the family's index"},
           {"https://download.pytorch.org/whl/cu121/torch-2.5.1-py3-none-any.whl", "2.5.1",
            "lies in another backend's directory"}}) {
    PyLock lock = base();
    lock.packages[0].version = version;
    lock.packages[0].wheels[0] = {core::UrlFileName(url), url, std::string(64, 'a'), {}, "", 0};
    CliResult run = sync(lock);
    EXPECT_EQ(run.code, 5) << url << run.out << run.err;
    EXPECT_THAT(run.err, HasSubstr(why)) << url;
    EXPECT_THAT(run.out, Not(HasSubstr("would install"))) << url;
  }
  // Where the lock writer would clean the URL: the rule itself, on a mirror's root.
  const std::vector<std::string> roots = {"https://mirror.example/whl/"};
  for (const std::string& url : {std::string("https://evil.example\\@mirror.example/whl/cpu/torch-2.5.1%2Bcpu-py3-none-any.whl"),
                                 std::string("https://mirror.example/whlx/cpu/torch-2.5.1%2Bcpu-py3-none-any.whl"),
                                 std::string("https://mirror.example/torch-2.5.1%2Bcpu-py3-none-any.whl")}) {
    EXPECT_FALSE(lockcli::RoutedFileOfBackend("w", "torch", "2.5.1+cpu", url, "cpu", roots).ok()) << url;
  }
  // A file whose name says another version than the lock (sync's name check says so first; the
  // rule holds on its own for the readers that call it without that check).
  const core::Status other_version = lockcli::RoutedFileOfBackend(
      "w", "torch", "2.5.1", "https://mirror.example/whl/cu121/torch-2.5.1%2Bcu121-py3-none-any.whl", "cpu", roots);
  ASSERT_FALSE(other_version.ok());
  EXPECT_THAT(other_version.error().message, HasSubstr("is the file of version 2.5.1+cu121"));
  EXPECT_TRUE(lockcli::RoutedFileOfBackend("w", "torch", "2.5.1+cpu",
                                           "https://u:p@MIRROR.example/whl/cpu/torch-2.5.1%2Bcpu-py3-none-any.whl", "cpu",
                                           roots)
                  .ok());
  {  // two entries that both apply here
    PyLock lock = base();
    LockedPackage second = lock.packages[0];
    second.marker = "python_version >= \"3\"";
    lock.packages.push_back(second);
    CliResult run = sync(lock);
    EXPECT_EQ(run.code, 5) << run.out << run.err;
    EXPECT_THAT(run.err, HasSubstr("torch is locked twice for "));
  }
  {  // the only torch applies to no machine like this one, though the lock asks for torch
    PyLock lock = base();
    lock.packages[0].marker = "sys_platform == \"win32\"";
    CliResult run = sync(lock);
    EXPECT_EQ(run.code, 5) << run.out << run.err;
    EXPECT_THAT(run.err, HasSubstr("the lock asks for torch, but none of its entries of torch applies to"));
  }
}

// The lock's wheel name is what sync checks (package, version, tags): a URL that names another
// file is refused with its line, before anything is installed.
TEST_F(LockCliTest, AWheelWhoseUrlNamesAnotherFileIsRefused) {
  const std::string host = (testing::kFixtures / "hosts/linux-no-gpu").string();
  Write("pylock.cpu.toml", Lock("cpu", "https://h/evil-9.9-py3-none-any.whl"));
  CliResult run = RunTorchdex({"sync", "--lock-dir", dir_.string(), "--python", "/usr/bin/python3", "--root", host,
                               "--dry-run"});
  EXPECT_EQ(run.code, 5) << run.out << run.err;
  EXPECT_THAT(run.err, HasSubstr((dir_ / "pylock.cpu.toml").string() + ":9: torch 2.5.1+cpu: the wheel's name "
                                 "torch-2.5.1+cpu-py3-none-any.whl is not the file its url names (evil-9.9-py3-none-any.whl)"));
  EXPECT_THAT(run.out, Not(HasSubstr("would install")));
}

// A lock whose wheels fit no wheel tag of the interpreter (made for another platform) is turned
// down like one whose requires-python excludes it, and another lock is chosen.
TEST_F(LockCliTest, ALockForAnotherPlatformIsTurnedDown) {
  const std::string host = (testing::kFixtures / "hosts/linux-no-gpu").string();
  Write("pylock.cpu.toml", Lock("cpu", "", "cp312-cp312-manylinux_2_28_aarch64"));
  CliResult run = RunTorchdex({"sync", "--lock-dir", dir_.string(), "--python", "/usr/bin/python3", "--root", host,
                               "--dry-run"});
  EXPECT_EQ(run.code, 4) << run.out << run.err;
  EXPECT_THAT(run.err, HasSubstr((dir_ / "pylock.cpu.toml").string() + ":5: torch 2.5.1+cpu: no wheel of the lock fits "));
  EXPECT_THAT(run.err, HasSubstr("(torch-2.5.1+cpu-cp312-cp312-manylinux_2_28_aarch64.whl)"));
  Write("pylock.cu124.toml", Lock("cu124"));
  run = RunTorchdex({"sync", "--lock-dir", dir_.string(), "--python", "/usr/bin/python3", "--root",
                     (testing::kFixtures / "hosts/linux-a100-driver550").string(), "--dry-run", "--explain"});
  // (its CUDA 12.4 driver runs cu124, and an A100 is sm_80)
  EXPECT_EQ(run.code, 0) << run.out << run.err;
  EXPECT_THAT(run.out, HasSubstr("backend cu124"));
  EXPECT_THAT(run.out, HasSubstr("pylock.cpu.toml:5: torch 2.5.1+cpu: no wheel of the lock fits "));
}

// A variants.json table that cannot describe its package's wheels is refused with its line,
// before anything is fetched: another version's file, or a package without variant wheels.
TEST_F(LockCliTest, AVariantsJsonThatIsNotTheWheelsIsRefused) {
  const std::string host = (testing::kFixtures / "hosts/linux-no-gpu").string();
  auto variant_lock = [](const std::string& wheel, const std::string& json_url, const std::string& backend) {
    PyLock lock;
    LockedPackage torch;
    torch.name = "torch";
    torch.version = "2.10.0";
    torch.routed = true;
    torch.wheels.push_back({wheel, "http://127.0.0.1:9/" + wheel, std::string(64, 'a'), {}, "", 0});
    torch.variants_json = LockedVariantsJson{json_url, std::string(64, 'b')};
    lock.packages = {torch};
    lock.torchdex.backend = backend;
    lock.torchdex.channel = "test";
    return WritePyLock(lock);
  };
  Write("pylock.variant.toml",
        variant_lock("torch-2.10.0-py3-none-any-null.whl", "http://127.0.0.1:9/torch-2.9.0-variants.json", "variant"));
  CliResult run = RunTorchdex({"sync", "--lock-dir", dir_.string(), "--python", "/usr/bin/python3", "--root", host,
                               "--dry-run"});
  EXPECT_EQ(run.code, 5) << run.out << run.err;
  EXPECT_THAT(run.err, HasSubstr("pylock.variant.toml:12: torch 2.10.0: its variants.json url names "
                                 "torch-2.9.0-variants.json, not torch-2.10.0-variants.json"));
  fs::remove(dir_ / "pylock.variant.toml");
  Write("pylock.cpu.toml",
        variant_lock("torch-2.10.0-py3-none-any.whl", "http://127.0.0.1:9/torch-2.10.0-variants.json", "cpu"));
  run = RunTorchdex({"sync", "--lock-dir", dir_.string(), "--python", "/usr/bin/python3", "--root", host, "--dry-run"});
  EXPECT_EQ(run.code, 5) << run.out << run.err;
  EXPECT_THAT(run.err, HasSubstr("torch 2.10.0: it locks a variants.json, but none of its wheels is a variant wheel"));
}

// Every wheel name of a lock is checked when the lock is read, whatever the machine: one that
// does not parse, a variant label without a variants.json, another package's wheel listed
// among a variant package's: exit 5 with the line (not a lock that fits no machine, or one that
// fits only where the bad wheel is not chosen). A URL's decoded control characters are not
// printed.
TEST_F(LockCliTest, EveryWheelNameIsCheckedWhenTheLockIsRead) {
  const std::string host = (testing::kFixtures / "hosts/linux-no-gpu").string();
  auto sync = [&] {
    return RunTorchdex({"sync", "--lock-dir", dir_.string(), "--python", "/usr/bin/python3", "--root", host, "--dry-run"});
  };
  Write("pylock.cpu.toml", Replace(Lock("cpu"), "py3-none-any.whl\"", "py3-none.whl\""));
  CliResult run = sync();
  EXPECT_EQ(run.code, 5) << run.out << run.err;
  EXPECT_THAT(run.err, HasSubstr((dir_ / "pylock.cpu.toml").string() + ":9: torch 2.5.1+cpu: "));
  Write("pylock.cpu.toml", Lock("cpu", "", "py3-none-any-cuda12.8"));
  run = sync();
  EXPECT_EQ(run.code, 5) << run.out << run.err;
  EXPECT_THAT(run.err, HasSubstr(":9: torch 2.5.1+cpu: torch-2.5.1+cpu-py3-none-any-cuda12.8.whl is a variant wheel "
                                 "(PEP 825, label cuda12.8), but the package has no [packages.variants-json]"));
  Write("pylock.cpu.toml", Lock("cpu", "https://h/torch-2.5.1+cpu-py3-none-any.whl%0a%1b[31mRED"));
  run = sync();
  EXPECT_EQ(run.code, 5) << run.out << run.err;
  EXPECT_THAT(run.err, HasSubstr("is not the file its url names (torch-2.5.1+cpu-py3-none-any.whl%0a%1b[31mRED)"));
  EXPECT_EQ(run.err.find('\x1b'), std::string::npos);
}

// sync asks the interpreter through the cache of its answers (interpreter_cache_test.cc has
// the cache's own tests): an entry is written where the environment says, none when it is off.
TEST_F(LockCliTest, SyncCachesTheInterpretersAnswers) {
  const std::string host = (testing::kFixtures / "hosts/linux-no-gpu").string();
  Write("pylock.cpu.toml", Lock("cpu", "https://download.pytorch.org/whl/cpu/torch-2.5.1%2Bcpu-py3-none-any.whl"));
  const std::vector<std::string> args = {"sync", "--lock-dir", dir_.string(), "--python", "/usr/bin/python3",
                                         "--root", host, "--dry-run"};
  const fs::path cache = dir_ / "cache";
  auto entries = [&] {
    std::error_code missing;
    int n = 0;
    for (auto it = fs::directory_iterator(cache / "interpreter-v1", missing); !missing && it != fs::directory_iterator();
         ++it) {
      ++n;
    }
    return n;
  };
  CliResult off = RunTorchdex(args, {{"TORCHDEX_CACHE_DIR", cache.string()}, {"TORCHDEX_NO_CACHE", "1"}});
  ASSERT_EQ(off.code, 0) << off.err;
  EXPECT_EQ(entries(), 0);
  CliResult first = RunTorchdex(args, {{"TORCHDEX_CACHE_DIR", cache.string()}});
  ASSERT_EQ(first.code, 0) << first.err;
  EXPECT_EQ(entries(), 1);
  CliResult second = RunTorchdex(args, {{"TORCHDEX_CACHE_DIR", cache.string()}});
  ASSERT_EQ(second.code, 0) << second.err;
  // The same output but for the name of the temporary requirements file.
  auto stable = [](const std::string& out) { return out.substr(0, out.find(" -r /")); };
  EXPECT_EQ(stable(second.out), stable(first.out));
  EXPECT_EQ(stable(second.out), stable(off.out));
  EXPECT_THAT(second.out, HasSubstr("would run: /usr/bin/python3 -m pip"));
  EXPECT_EQ(entries(), 1);
}

// A lock with torchvision beside one without: each lock is judged on what it was asked for, so
// the cpu lock of `torch` alone still fits a machine without a GPU (it used to be turned down
// because the cu124 lock had asked for torchvision: "no torchvision builds on this backend").
TEST_F(LockCliTest, EachLockIsJudgedOnItsOwnRequirements) {
  auto lock = [](const std::string& backend, const std::vector<std::string>& asked,
                 const std::vector<std::string>& held) {
    PyLock out;
    for (const std::string& name : held) {
      LockedPackage p;
      p.name = name;
      p.version = (name == "torch" ? "2.5.1+" : "0.20.1+") + backend;
      p.routed = true;
      p.wheels.push_back({name + "-" + p.version + "-py3-none-any.whl",
                          "https://download.pytorch.org/whl/" + backend + "/" + name + "-" + p.version + "-py3-none-any.whl", std::string(64, 'a'), {}, "", 0});
      out.packages.push_back(p);
    }
    out.torchdex.backend = backend;
    out.torchdex.channel = "stable";
    out.torchdex.requirements = asked;
    return WritePyLock(out);
  };
  Write("pylock.cpu.toml", lock("cpu", {"torch"}, {"torch"}));
  Write("pylock.cu124.toml", lock("cu124", {"torch", "torchvision"}, {"torch", "torchvision"}));
  auto sync = [&](const std::string& host) {
    return RunTorchdex({"sync", "--lock-dir", dir_.string(), "--python", "/usr/bin/python3", "--root",
                        (testing::kFixtures / "hosts" / host).string(), "--dry-run", "--explain"});
  };
  CliResult none = sync("linux-no-gpu");
  EXPECT_EQ(none.code, 0) << none.out << none.err;
  EXPECT_THAT(none.out, HasSubstr("lock: " + (dir_ / "pylock.cpu.toml").string()));
  EXPECT_THAT(none.out, HasSubstr("would install: torch 2.5.1+cpu"));
  EXPECT_THAT(none.out, Not(HasSubstr("would install: torchvision")));
  CliResult a100 = sync("container-with-devices-a100-driver535");
  EXPECT_EQ(a100.code, 0) << a100.out << a100.err;
  EXPECT_THAT(a100.out, HasSubstr("lock: " + (dir_ / "pylock.cu124.toml").string()));
  EXPECT_THAT(a100.out, HasSubstr("would install: torchvision 0.20.1+cu124"));
  EXPECT_THAT(a100.out, HasSubstr("pylock.cpu.toml (cpu): fits, ranked lower"));

  // A lock that asked for torchvision and does not hold it is still turned down for it.
  Write("pylock.cpu.toml", lock("cpu", {"torch", "torchvision"}, {"torch"}));
  CliResult short_lock = sync("linux-no-gpu");
  EXPECT_EQ(short_lock.code, 4) << short_lock.out << short_lock.err;
  EXPECT_THAT(short_lock.err, HasSubstr("(cpu): no torchvision builds on this backend"));
}

// What docs/teams.md promises for images built on a machine that is not the one they run on:
// the override variables choose among the locks as they choose for select.
TEST_F(LockCliTest, TheOverrideVariablesChooseTheLock) {
  const std::string host = (testing::kFixtures / "hosts/linux-no-gpu").string();
  Write("pylock.cpu.toml", Lock("cpu", "https://download.pytorch.org/whl/cpu/torch-2.5.1%2Bcpu-py3-none-any.whl"));
  Write("pylock.cu124.toml", Lock("cu124", "https://download.pytorch.org/whl/cu124/torch-2.5.1%2Bcu124-py3-none-any.whl"));
  const std::vector<std::string> args = {"sync", "--lock-dir", dir_.string(), "--python", "/usr/bin/python3",
                                         "--root", host, "--dry-run"};
  CliResult run = RunTorchdex(args);
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("lock: " + (dir_ / "pylock.cpu.toml").string()));
  run = RunTorchdex(args, {{"TORCHDEX_TORCH_BACKEND", "cu124"}});
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("lock: " + (dir_ / "pylock.cu124.toml").string()));
  EXPECT_THAT(run.out, HasSubstr("named by TORCHDEX_TORCH_BACKEND"));
  run = RunTorchdex(args, {{"TORCHDEX_CUDA_DRIVER_VERSION", "550.54.14"}, {"TORCHDEX_CUDA_ARCH", "8.6"}});
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("lock: " + (dir_ / "pylock.cu124.toml").string())) << run.out;
  // A named backend without a lock is refused, not replaced by another lock.
  run = RunTorchdex(args, {{"TORCHDEX_TORCH_BACKEND", "cu126"}});
  EXPECT_EQ(run.code, 4) << run.out;
  EXPECT_THAT(run.err, HasSubstr("no lock file in " + dir_.string() + " fits"));
  EXPECT_THAT(run.err, HasSubstr("unknown backend 'cu126' (from TORCHDEX_TORCH_BACKEND)"));
}

}  // namespace
}  // namespace torchdex::installer
