// The torchdex command line as a library: main() builds Deps from the real process and calls
// Main; tests call Main or Run in-process with their own environment, runner and clock.
#ifndef TORCHDEX_INSTALLER_CLI_RUN_H_
#define TORCHDEX_INSTALLER_CLI_RUN_H_

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.h"
#include "index/fetcher.h"
#include "installer/cli/backend_choice.h"
#include "installer/platform/clock.h"
#include "installer/platform/environment.h"
#include "installer/platform/process_runner.h"

namespace torchdex::installer {

// Exit codes of torchdex (also printed by --help).
enum ExitCode : int {
  kExitOk = 0,
  kExitFailure = 1,      // an unexpected failure
  kExitUsage = 2,        // bad command line: unknown command or option, bad value
  kExitBadOverride = 3,  // a malformed override variable (TORCHDEX_CUDA_ARCH=...)
  kExitNoBackend = 4,    // select: no backend offers what was asked for this machine
};

struct DetectCommandOptions {
  bool json = false;
  std::string root = "/";
  double probe_timeout_seconds = 5.0;
};

// What steers the choice of a backend: the same for `select` and `install`.
struct SelectionOptions {
  std::vector<std::string> requirements;
  std::string torch_backend;  // "" (then the environment and the config file), "auto", a name
  std::string channel;        // "" means stable
  std::string python_version;
  std::string python;
  std::string platform;
  std::string root;  // "" means this machine
  std::vector<std::string> catalogues;
  double probe_timeout_seconds = 5.0;
  bool explain = false;
  bool json = false;
};

struct CatalogueCommandOptions {
  std::vector<std::string> args;   // "show" | "check" FILE
  std::vector<std::string> files;  // --catalogue
  bool json = false;
};

// `install` and `export` (install_command.cc).
struct InstallCliOptions {
  std::vector<std::string> requirements;       // positional
  std::vector<std::string> requirement_files;  // -r
  std::string torch_backend;  // "": the environment, the config file, else auto
  std::string channel = "stable";
  std::string python;     // "" = $VIRTUAL_ENV, then python3 on PATH
  std::string index_url;  // the default index for everything not routed; "" = the installer's
  bool dry_run = false;
  bool explain = false;
  bool offline = false;
  std::string installer = "pip";
  std::string root = "/";
  std::vector<std::string> catalogues;
  std::string format = "requirements";  // export
  std::string output;                   // export: a file; "" = stdout
};

// The whole command line as plain data. Each subcommand has its own member.
struct Options {
  std::string command;  // "detect"; "" with --help or --version alone
  bool help = false;
  bool version = false;
  DetectCommandOptions detect;
  SelectionOptions select;
  CatalogueCommandOptions catalogue;
  InstallCliOptions install;
  std::vector<std::string> passthrough;  // after `--`: the installer's own arguments (install)
};

struct Deps {
  const Environment& env;
  ProcessRunner& runner;
  const Clock& clock;
  // How install/export learn the chosen backend; empty: ChooseBackend (selection, as
  // `select` decides). Tests may put a fixed choice here.
  ChooseBackendFn choose_backend = {};
  // HTTP for install/export; null: a curl fetcher made per run.
  index::Fetcher* fetcher = nullptr;
};

// `args` excludes argv[0]. An error is a usage error; its message says what is wrong.
core::Expected<Options> ParseCommandLine(const std::vector<std::string>& args);

int Run(const Options& options, Deps& deps, std::ostream& out, std::ostream& err);

// ParseCommandLine, then Run; usage errors go to `err` with exit code kExitUsage.
int Main(const std::vector<std::string>& args, Deps& deps, std::ostream& out, std::ostream& err);

// The help text: global for "", else that subcommand's.
std::string HelpText(std::string_view command);

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_CLI_RUN_H_
