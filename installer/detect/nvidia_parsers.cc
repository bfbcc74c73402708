#include "installer/detect/nvidia_parsers.h"

#include <cctype>

#include "installer/table/hardware_table.h"
#include "installer/platform/text.h"

namespace torchdex::installer {

std::optional<core::DriverVersion> ParseDriverVersion(std::string_view text) {
  std::optional<core::DriverVersion> version = core::DriverVersion::Parse(text);
  if (!version || version->size() < 2 || version->size() > 3) return std::nullopt;
  return version;
}

std::optional<core::DriverVersion> ParseSysModuleVersion(std::string_view contents) {
  return ParseDriverVersion(Trim(contents));
}

std::optional<ProcNvidiaVersion> ParseProcNvidiaVersion(std::string_view contents) {
  constexpr std::string_view kAnchor = "NVRM version:";
  for (std::string_view line : SplitLines(contents)) {
    if (!StartsWith(line, kAnchor)) continue;
    std::string_view rest = line.substr(kAnchor.size());
    const size_t first = rest.find_first_not_of(' ');
    if (first == std::string_view::npos) return std::nullopt;
    rest = rest.substr(first);
    // "NVIDIA UNIX x86_64 Kernel Module  570.86.15  Wed Jan 22 2025": the description ends at the
    // first double space and the version follows.
    const size_t gap = rest.find("  ");
    if (gap == std::string_view::npos) return std::nullopt;
    const std::string_view description = rest.substr(0, gap);
    std::string_view after = rest.substr(gap);
    after = after.substr(after.find_first_not_of(' ') == std::string_view::npos
                             ? after.size()
                             : after.find_first_not_of(' '));
    const std::string_view version = after.substr(0, after.find_first_of(" \t"));
    const std::optional<core::DriverVersion> parsed = ParseDriverVersion(version);
    if (!parsed) return std::nullopt;
    ProcNvidiaVersion result;
    result.version = *parsed;
    result.open_module = description.find("Open Kernel Module") != std::string_view::npos;
    for (std::string_view arch : {"x86_64", "aarch64", "ppc64le"}) {
      if (description.find(arch) != std::string_view::npos) result.arch = std::string(arch);
    }
    return result;
  }
  return std::nullopt;
}

std::optional<GpuInformation> ParseGpuInformation(std::string_view contents) {
  GpuInformation info;
  for (std::string_view line : SplitLines(contents)) {
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view key = Trim(line.substr(0, colon));
    const std::string_view value = Trim(line.substr(colon + 1));
    if (key == "Model") info.model = std::string(value);
    if (key == "GPU UUID") info.uuid = std::string(value);
    if (key == "Bus Location") info.bus_location = NormalizePciBusId(value);
  }
  if (info.model.empty() && info.uuid.empty() && info.bus_location.empty()) return std::nullopt;
  if (!IsPlainText(info.model)) info.model.clear();
  if (!IsPlainText(info.uuid)) info.uuid.clear();
  return info;
}

std::string NormalizePciBusId(std::string_view text) {
  text = Trim(text);
  // domain:bus:device.function with a 4- or 8-hex-digit domain.
  const std::vector<std::string_view> parts = Split(text, ':');
  if (parts.size() != 3) return "";
  std::string_view domain = parts[0];
  if (domain.size() == 8 && domain.substr(0, 4) == "0000") domain = domain.substr(4);
  auto is_hex = [](std::string_view s) {
    for (char c : s) {
      if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
    }
    return !s.empty();
  };
  const std::string_view bus = parts[1];
  const size_t dot = parts[2].find('.');
  if (dot == std::string_view::npos) return "";
  const std::string_view device = parts[2].substr(0, dot);
  const std::string_view function = parts[2].substr(dot + 1);
  if (domain.size() != 4 || bus.size() != 2 || device.size() != 2 || function.size() != 1 ||
      !is_hex(domain) || !is_hex(bus) || !is_hex(device) || !is_hex(function)) {
    return "";
  }
  return ToLower(std::string(domain) + ":" + std::string(bus) + ":" + std::string(device) + "." +
                 std::string(function));
}

std::vector<SmiGpu> ParseNvidiaSmiCsv(std::string_view output, bool with_compute_cap) {
  std::vector<SmiGpu> gpus;
  const size_t fields = with_compute_cap ? 4 : 3;
  for (std::string_view line : SplitLines(output)) {
    if (Trim(line).empty()) continue;
    const std::vector<std::string_view> parts = Split(line, ',');
    if (parts.size() != fields) continue;
    SmiGpu gpu;
    const std::optional<core::DriverVersion> driver = ParseDriverVersion(Trim(parts[0]));
    if (!driver) continue;
    gpu.driver_version = *driver;
    size_t next = 1;
    if (with_compute_cap) gpu.compute_capability = core::ComputeCapability::Parse(parts[next++]);
    const std::string_view name = Trim(parts[next++]);
    if (name != "[N/A]" && IsPlainText(name)) gpu.name = std::string(name);
    gpu.pci_bus_id = NormalizePciBusId(parts[next]);
    gpus.push_back(std::move(gpu));
  }
  return gpus;
}

bool NvidiaSmiRejectsComputeCap(std::string_view output) {
  return output.find("is not a valid field to query") != std::string_view::npos;
}

bool NvidiaSmiCannotReachDriver(std::string_view output) {
  return output.find("couldn't communicate with the NVIDIA driver") != std::string_view::npos;
}

}  // namespace torchdex::installer
