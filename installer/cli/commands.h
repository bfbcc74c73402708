// Internal to the CLI: the subcommand table. Each command is a row: a name, a summary, its
// options bound to its member of Options, where its positional arguments go, and Run.
#ifndef TORCHDEX_INSTALLER_CLI_COMMANDS_H_
#define TORCHDEX_INSTALLER_CLI_COMMANDS_H_

#include <ostream>
#include <span>

#include <boost/program_options.hpp>

#include "installer/cli/run.h"

namespace torchdex::installer {

struct Subcommand {
  const char* name;
  const char* usage;    // "torchdex detect [--json] [--root DIR] [--probe-timeout SECONDS]"
  const char* summary;  // one line for the global help
  const char* details;  // paragraphs after the options in `torchdex NAME --help`
  void (*add_options)(boost::program_options::options_description& description, Options& options);
  // The option that takes the positional arguments ("requirement"), or nullptr for none.
  const char* positional;
  // Checks the values once parsed, and parses what the command takes as values (the
  // requirements, once); an error is a usage error.
  core::Expected<bool> (*validate)(Options& options);
  int (*run)(const Options& options, Deps& deps, std::ostream& out, std::ostream& err);
};

std::span<const Subcommand> Subcommands();

// detect_command.cc
void AddDetectOptions(boost::program_options::options_description& description, Options& options);
core::Expected<bool> ValidateDetectOptions(Options& options);
// --probe-timeout of detect and select: seconds in (0, 600].
core::Expected<bool> CheckProbeTimeout(double seconds);
int RunDetect(const Options& options, Deps& deps, std::ostream& out, std::ostream& err);
extern const char* const kDetectDetails;

// select_command.cc
void AddSelectOptions(boost::program_options::options_description& description, Options& options);
core::Expected<bool> ValidateSelectOptions(Options& options);
int RunSelect(const Options& options, Deps& deps, std::ostream& out, std::ostream& err);
extern const char* const kSelectDetails;
// catalogue_command.cc
void AddCatalogueOptions(boost::program_options::options_description& description, Options& options);
core::Expected<bool> ValidateCatalogueOptions(Options& options);
int RunCatalogue(const Options& options, Deps& deps, std::ostream& out, std::ostream& err);
extern const char* const kCatalogueDetails;

// The options and checks `select` shares with `install`.
void AddSelectionOptions(boost::program_options::options_description& description,
                         ChoiceOptions& options);
core::Expected<bool> ValidateSelectionOptions(ChoiceOptions& options);
// install_command.cc: `install` and `export` share options and the plan.
void AddInstallOptions(boost::program_options::options_description& description, Options& options);
void AddExportOptions(boost::program_options::options_description& description, Options& options);
core::Expected<bool> ValidateInstallOptions(Options& options);
int RunInstall(const Options& options, Deps& deps, std::ostream& out, std::ostream& err);
int RunExport(const Options& options, Deps& deps, std::ostream& out, std::ostream& err);
extern const char* const kInstallDetails;
extern const char* const kExportDetails;

// The requirement lines of a -r file (install_command.cc): comments dropped, options refused.
core::Status ReadRequirementFile(const std::string& path, std::vector<std::string>& into);
/// What was asked, as written: the command line's requirements, then each -r file's lines
/// (install, export, lock; ParseAskedRequirements parses them once).
core::Expected<std::vector<std::string>> RequirementTexts(const std::vector<std::string>& requirements,
                                                         const std::vector<std::string>& files);

// lock_command.cc: `lock` writes a PEP 751 lock per backend; sync_command.cc: `sync` installs
// the one that fits (sync_uv_project.cc: `sync --uv-project`).
void AddLockOptions(boost::program_options::options_description& description, Options& options);
core::Expected<bool> ValidateLockOptions(Options& options);
int RunLock(const Options& options, Deps& deps, std::ostream& out, std::ostream& err);
extern const char* const kLockDetails;
void AddSyncOptions(boost::program_options::options_description& description, Options& options);
core::Expected<bool> ValidateSyncOptions(Options& options);
int RunSync(const Options& options, Deps& deps, std::ostream& out, std::ostream& err);
extern const char* const kSyncDetails;

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_CLI_COMMANDS_H_
