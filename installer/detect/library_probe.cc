// The platform-independent half of the library probes: the answer format.
#include "installer/detect/library_probe.h"

#include <charconv>

#include "installer/detect/nvidia_parsers.h"
#include "installer/platform/text.h"

namespace torchdex::installer {
namespace {

std::string Clean(std::string_view text) {
  std::string cleaned;
  for (char c : text) cleaned += (c == '\t' || c == '\n' || c == '\r') ? ' ' : c;
  return cleaned;
}

}  // namespace

std::string FormatProbeAnswer(const ProbeAnswer& answer) {
  std::string text;
  if (!answer.library.empty()) text += "library\t" + Clean(answer.library) + "\n";
  if (answer.driver_version) text += "driver_version\t" + answer.driver_version->ToString() + "\n";
  if (answer.cuda_version != 0)
    text += "cuda_version\t" + std::to_string(answer.cuda_version) + "\n";
  if (answer.devices_counted) text += "device_count\t" + std::to_string(answer.gpus.size()) + "\n";
  for (const ProbeGpu& gpu : answer.gpus) {
    text += "gpu\t" + (gpu.compute_capability ? gpu.compute_capability->ToString() : "") + "\t" + Clean(gpu.pci_bus_id) + "\t" +
            Clean(gpu.uuid) + "\t" + Clean(gpu.name) + "\n";
  }
  if (!answer.error.empty()) text += "error\t" + Clean(answer.error) + "\n";
  return text;
}

ProbeAnswer ParseProbeAnswer(std::string_view text) {
  ProbeAnswer answer;
  // Only complete lines count: a child killed mid-write leaves a partial last line.
  const size_t last_newline = text.rfind('\n');
  text = last_newline == std::string_view::npos ? std::string_view() : text.substr(0, last_newline);
  for (std::string_view line : SplitLines(text)) {
    const std::vector<std::string_view> fields = Split(line, '\t');
    const std::string_view key = fields[0];
    if (key == "library" && fields.size() == 2) {
      answer.library = std::string(fields[1]);
    } else if (key == "driver_version" && fields.size() == 2) {
      answer.driver_version = ParseDriverVersion(fields[1]);
    } else if (key == "cuda_version" && fields.size() == 2) {
      int value = 0;
      auto [end, error] =
          std::from_chars(fields[1].data(), fields[1].data() + fields[1].size(), value);
      if (error == std::errc() && end == fields[1].data() + fields[1].size() &&
          !CudaVersionString(value).empty()) {
        answer.cuda_version = value;
      }
    } else if (key == "device_count") {
      answer.devices_counted = true;
    } else if (key == "gpu" && fields.size() == 5) {
      ProbeGpu gpu;
      gpu.compute_capability = core::ComputeCapability::Parse(fields[1]);
      gpu.pci_bus_id = NormalizePciBusId(fields[2]);
      gpu.uuid = IsPlainText(fields[3]) ? std::string(fields[3]) : "";
      gpu.name = IsPlainText(fields[4]) ? std::string(fields[4]) : "";
      answer.gpus.push_back(std::move(gpu));
    } else if (key == "error" && fields.size() >= 2) {
      answer.error = std::string(fields[1]);
    }
  }
  return answer;
}

std::string CudaVersionString(int encoded) {
  if (encoded < 1000 || encoded > 99990) return "";
  return std::to_string(encoded / 1000) + "." + std::to_string((encoded % 1000) / 10);
}

}  // namespace torchdex::installer
