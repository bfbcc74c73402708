#include "installer/cli/exit_codes.h"

namespace torchdex::installer {

int ExitStatus(core::ErrorCode code) {
  switch (code) {
    case core::ErrorCode::kFailure:
    case core::ErrorCode::kInstallerFailed:
      return kExitFailure;
    case core::ErrorCode::kUsage:
      return kExitUsage;
    case core::ErrorCode::kBadEnvironment:
      return kExitBadOverride;
    case core::ErrorCode::kNotOffered:
      return kExitNoBackend;
    case core::ErrorCode::kBadInputFile:
      return kExitBadInputFile;
    case core::ErrorCode::kNetwork:
      return kExitNetwork;
  }
  return kExitFailure;
}

const char* const kExitCodesHelp =
    "exit codes: 0 ok, 1 failure (the message says what), 2 usage error, 3 malformed override\n"
    "variable, 4 no backend offers what was asked, 5 bad input file, 6 network error; install\n"
    "exits with the installer's own status once it has run\n";

}  // namespace torchdex::installer
