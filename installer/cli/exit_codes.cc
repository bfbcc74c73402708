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

std::string ExitCodesHelp(std::string_view command) {
  struct Status {
    int status;
    const char* meaning;
  };
  static constexpr Status kStatuses[] = {
      {kExitOk, "ok"},
      {kExitFailure, "failure (the message says what)"},
      {kExitUsage, "usage error"},
      {kExitBadOverride, "malformed override variable"},
      {kExitNoBackend, "no backend offers what was asked"},
      {kExitBadInputFile, "bad input file"},
      {kExitNetwork, "network error"},
  };
  // What each command can return (detect reads no file of the user's and asks no index).
  std::string_view codes = "0123456";
  if (command == "detect") codes = "0123";
  if (command == "select") codes = "012345";
  if (command == "catalogue") codes = "0125";
  std::string text = "exit codes:";
  for (const Status& s : kStatuses) {
    if (codes.find(static_cast<char>('0' + s.status)) == std::string_view::npos) continue;
    text += (s.status == 0 ? " " : ", ") + std::to_string(s.status) + " " + s.meaning;
  }
  if (command.empty() || command == "install" || command == "sync") text += "; install and sync exit with the installer's own status once it has run";
  // Folded at 96 columns.
  std::string out;
  std::size_t column = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find(' ', start + 1);
    if (end == std::string::npos) end = text.size();
    const std::string_view word(text.data() + start, end - start);
    if (column + word.size() > 96 && column > 0) {
      out += "\n";
      column = 0;
      out += word.substr(1);
      column += word.size() - 1;
    } else {
      out += word;
      column += word.size();
    }
    start = end;
  }
  return out + "\n";
}

}  // namespace torchdex::installer
