#include "installer/detect/host_parsers.h"

#include <cctype>

#include "installer/platform/text.h"

namespace torchdex::installer {
namespace {

bool AllDigits(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

}  // namespace

std::optional<std::string> ParseNvTegraRelease(std::string_view contents) {
  const std::vector<std::string_view> lines = SplitLines(contents);
  if (lines.empty()) return std::nullopt;
  std::string_view line = Trim(lines[0]);
  if (!StartsWith(line, "# R")) return std::nullopt;
  line.remove_prefix(3);
  const std::string_view major = line.substr(0, line.find_first_not_of("0123456789"));
  if (!AllDigits(major)) return std::nullopt;
  constexpr std::string_view kRevision = "REVISION:";
  const size_t at = line.find(kRevision);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view revision = Trim(line.substr(at + kRevision.size()));
  revision = revision.substr(0, revision.find(','));
  revision = Trim(revision);
  const size_t dot = revision.find('.');
  if (dot == std::string_view::npos || !AllDigits(revision.substr(0, dot)) ||
      !AllDigits(revision.substr(dot + 1))) {
    return std::nullopt;
  }
  return std::string(major) + "." + std::string(revision);
}

bool OsReleaseIsWsl(std::string_view contents) {
  return ContainsIgnoringCase(contents, "microsoft") ||
         contents.find("WSL") != std::string_view::npos;
}

std::optional<std::string> ParseKernelArch(std::string_view contents) {
  const std::string_view arch = Trim(contents);
  if (arch.empty() || arch.size() > 32) return std::nullopt;
  for (char c : arch) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return std::nullopt;
  }
  return std::string(arch);
}

std::string ContainerRuntimeInCgroup(std::string_view contents) {
  for (std::string_view runtime : {"docker", "kubepods", "containerd", "libpod", "lxc"}) {
    if (contents.find(runtime) != std::string_view::npos) return std::string(runtime);
  }
  return "";
}

}  // namespace torchdex::installer
