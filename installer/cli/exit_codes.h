// The exit statuses of torchdex: one table from core::ErrorCode to a status, used by every
// command, printed by --help and documented in docs/exit-codes.md and the man pages. No status
// is chosen by reading an error's message.
#ifndef TORCHDEX_INSTALLER_CLI_EXIT_CODES_H_
#define TORCHDEX_INSTALLER_CLI_EXIT_CODES_H_

#include <string>
#include <string_view>

#include "core/expected.h"

namespace torchdex::installer {

enum ExitCode : int {
  kExitOk = 0,
  kExitFailure = 1,         // an unexpected failure, or the installer could not be started
  kExitUsage = 2,           // bad command line: unknown command, option or backend, bad value
  kExitBadOverride = 3,     // a malformed override variable (TORCHDEX_CUDA_ARCH=...)
  kExitNoBackend = 4,       // no backend (or not the named one) offers what was asked
  kExitBadInputFile = 5,    // an override, config, requirements or catalogue file is bad
  kExitNetwork = 6,         // an index could not be reached or answered with an error
};

/// The status a command exits with for an error of `code`.
int ExitStatus(core::ErrorCode code);

/// The lines `torchdex COMMAND --help` prints: the statuses that command can exit with; all of
/// them for "" (the global help).
std::string ExitCodesHelp(std::string_view command);

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_CLI_EXIT_CODES_H_
