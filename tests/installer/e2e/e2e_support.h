// What the end-to-end suites of install_e2e_tests share (install, lock, family, pyg): a
// temporary root, the clean environment their children see, child runs with a bound, venvs
// copied from a base one, the tools venv's pinned pip given to a venv, and `torchdex` run in
// process with a clock that stands still.
#ifndef TORCHDEX_TESTS_INSTALLER_E2E_E2E_SUPPORT_H_
#define TORCHDEX_TESTS_INSTALLER_E2E_E2E_SUPPORT_H_

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "installer/cli/run.h"
#include "installer/platform/clock.h"
#include "installer/platform/environment.h"
#include "installer/platform/process_runner.h"

namespace torchdex::installer::e2e {

namespace fs = std::filesystem;

struct Output {
  int exit_code = -1;  // -1: the child did not exit (killed, timed out, not started)
  std::string out;
  std::string err;
};

class ZeroClock final : public Clock {
 public:
  int64_t NowMicros() const override { return 0; }
};

inline std::string ReadBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

inline void WriteBytes(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

/// A new directory "torchdex-<name>-XXXXXX" under the system's temporary one; "" when it cannot
/// be made.
inline fs::path MakeTempRoot(const std::string& name) {
  std::string pattern = (fs::temp_directory_path() / ("torchdex-" + name + "-XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) return {};
  return pattern;
}

/// What children see: `path`, a home of their own under `root` (made here), and no pip
/// configuration, version check or prompt of the machine's.
inline Environment ChildEnvironment(const fs::path& root,
                                    const std::string& path = "/usr/local/bin:/usr/bin:/bin") {
  fs::create_directories(root / "home");
  return Environment{{"PATH", path},
                     {"HOME", (root / "home").string()},
                     {"PIP_CONFIG_FILE", "/dev/null"},
                     {"PIP_DISABLE_PIP_VERSION_CHECK", "1"},
                     {"PIP_NO_INPUT", "1"}};
}

inline Output RunChild(ProcessRunner& runner, const std::vector<std::string>& argv,
                       const Environment& env,
                       std::chrono::seconds timeout = std::chrono::seconds(120)) {
  ProcessResult result = runner.Run(argv, env, timeout);
  return {result.status == ProcessResult::Status::kExited ? result.exit_code : -1, result.output,
          result.errors + result.failure};
}

/// root/name: a copy of root/base (a venv made once per suite); its python.
inline std::string CopyVenv(const fs::path& root, const std::string& name,
                            const std::string& base = "base-venv") {
  fs::copy(root / base, root / name, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  return (root / name / "bin/python").string();
}

/// `torchdex ARGS` in process.
inline Output RunTorchdex(const std::vector<std::string>& args, const Environment& env,
                          ProcessRunner& runner) {
  ZeroClock clock;
  Deps deps{env, runner, clock};
  std::ostringstream out, err;
  const int code = Main(args, deps, out, err);
  return {code, out.str(), err.str()};
}

/// Makes `venv` without the bundled pip and gives it the tools venv's pinned pip (pure Python,
/// copied; the same Python), since the tests have no network to install it with. "" when done,
/// else what went wrong.
inline std::string MakeVenvWithPinnedPip(const fs::path& venv, const std::string& python,
                                         const std::string& tools_bin, ProcessRunner& runner,
                                         const Environment& env) {
  Output made = RunChild(runner, {python, "-m", "venv", "--without-pip", venv.string()}, env);
  if (made.exit_code != 0) return "python -m venv: " + made.err;
  const std::string purelib = "import sysconfig; print(sysconfig.get_paths()['purelib'])";
  Output from = RunChild(runner, {tools_bin + "/python", "-c", purelib}, env);
  if (from.exit_code != 0) return "the tools venv (scripts/setup.sh: torchdex_tools_venv): " + from.err;
  Output to = RunChild(runner, {(venv / "bin/python").string(), "-c", purelib}, env);
  if (to.exit_code != 0) return to.err;
  const fs::path source = from.out.substr(0, from.out.find('\n'));
  const fs::path target = to.out.substr(0, to.out.find('\n'));
  for (const fs::directory_entry& entry : fs::directory_iterator(source)) {
    const std::string name = entry.path().filename().string();
    if (name == "pip" || (name.rfind("pip-", 0) == 0 && name.find(".dist-info") != name.npos)) {
      fs::copy(entry.path(), target / name, fs::copy_options::recursive);
    }
  }
  Output version = RunChild(runner, {(venv / "bin/python").string(), "-m", "pip", "--version"}, env);
  if (version.out.find("pip 26.3 ") == std::string::npos) {
    return "expected pip 26.3 in " + venv.string() + ": " + version.out + version.err;
  }
  return "";
}

}  // namespace torchdex::installer::e2e

#endif  // TORCHDEX_TESTS_INSTALLER_E2E_E2E_SUPPORT_H_
