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
#include "installer/cli/exit_codes.h"
#include "installer/platform/clock.h"
#include "installer/platform/environment.h"
#include "installer/platform/host_system.h"
#include "installer/platform/process_runner.h"
#include "installer/select/decide.h"

namespace torchdex::installer {

struct DetectCommandOptions {
  bool json = false;
  std::string root = "/";
  double probe_timeout_seconds = 5.0;
  bool variants = false;  // --variants: PEP 825 properties instead of the facts
  double provider_timeout_seconds = 5.0;
  bool root_providers = false;  // --root-providers: run the providers on the --root host's PATH
};

// What steers the choice of a backend: the same for `select`, `install` and `export`.
struct ChoiceOptions {
  std::vector<std::string> requirements;  // positional, as written
  std::string torch_backend;  // "" (then the environment and the config file), "auto", a name
  std::string torch_backend_flag = "--torch-backend";  // what set it, for messages ("--backend": lock)
  std::string channel;        // "" means stable
  std::string python;         // the target interpreter; install: "" = $VIRTUAL_ENV, python3
  std::string python_version;  // select: a described target instead of an interpreter
  std::string platform;        // select: the target platform
  std::string root;            // "" or "/" means this machine
  bool root_providers = false; // --root-providers: run the providers on the --root host's PATH
  std::vector<std::string> catalogues;
  std::string family = "pytorch";  // the index family (data/indexes.json): --family
  double probe_timeout_seconds = 5.0;
  bool explain = false;
  bool json = false;
  /// `requirements` parsed, by the command's validation: each is parsed once, here.
  std::vector<AskedRequirement> parsed;
};

struct CatalogueCommandOptions {
  std::vector<std::string> args;   // "show" | "check" FILE
  std::vector<std::string> files;  // --catalogue
  bool json = false;
};

// `install` and `export` (install_command.cc): the choice, and what the plan and the
// installer need beyond it.
struct InstallCliOptions {
  ChoiceOptions choice;
  std::vector<std::string> requirement_files;  // -r
  std::string index_url;  // the default index for everything not routed; "" = the installer's
  bool dry_run = false;
  bool offline = false;
  bool json = false;  // install --dry-run, export: the plan as JSON
  std::string installer = "pip";
  std::string format = "requirements";  // export
  std::vector<std::string> backends;    // export --format uv-project: --backend, repeatable
  std::string output;                   // export: a file; "" = stdout
};

// `lock` (lock_command.cc): the choice for each backend, the requirements and where the
// locks go.
struct LockCliOptions {
  ChoiceOptions choice;                        // requirements, --python, --root, --catalogue ...
  std::vector<std::string> requirement_files;  // -r
  std::vector<std::string> backends;           // --backend, repeatable; none: auto
  std::string index_url;   // the default index for everything not routed; "" = uv's own
  std::string output_dir = ".";  // -o
};

// `sync` (sync_command.cc): which lock fits this machine, and how it is installed.
struct SyncCliOptions {
  std::string lock_dir = ".";
  std::string python;  // "" = $VIRTUAL_ENV, python3
  std::string installer = "pip";
  std::string root;    // detect the host captured under DIR
  bool root_providers = false;  // --root-providers
  std::vector<std::string> catalogues;
  double probe_timeout_seconds = 5.0;
  bool dry_run = false;
  bool explain = false;
  bool uv_project = false;  // uv lock, check uv.lock, uv sync --frozen --extra <backend> in --lock-dir instead
};

// The whole command line as plain data. Each subcommand has its own member.
struct Options {
  std::string command;  // "detect"; "" with --help or --version alone
  bool help = false;
  bool version = false;
  DetectCommandOptions detect;
  ChoiceOptions select;
  CatalogueCommandOptions catalogue;
  InstallCliOptions install;
  LockCliOptions lock;
  SyncCliOptions sync;
  std::vector<std::string> passthrough;  // after `--`: the installer's own arguments (install)
};

struct Deps {
  const Environment& env;
  ProcessRunner& runner;
  const Clock& clock;
  // HTTP for install/export; null: a curl fetcher made per run.
  index::Fetcher* fetcher = nullptr;
  // What uname() and the C library say of this machine; tests describe another.
  HostSystem system = CurrentHostSystem();
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
