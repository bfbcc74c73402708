// Pure parsers for what the NVIDIA driver writes: /sys/module/nvidia/version,
// /proc/driver/nvidia/version, /proc/driver/nvidia/gpus/*/information and nvidia-smi's CSV.
// Formats and samples: ../shared/research/detection.md section 3.1.
#ifndef TORCHDEX_INSTALLER_DETECT_NVIDIA_PARSERS_H_
#define TORCHDEX_INSTALLER_DETECT_NVIDIA_PARSERS_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/accelerator.h"

namespace torchdex::installer {

// A driver version as the driver and its tools write it: two or three dot-separated numbers
// ("550.144.03", "550.54", "572.60"); nullopt for anything else.
std::optional<core::DriverVersion> ParseDriverVersion(std::string_view text);

// /sys/module/nvidia/version: one line, "550.144.03\n".
std::optional<core::DriverVersion> ParseSysModuleVersion(std::string_view contents);

struct ProcNvidiaVersion {
  core::DriverVersion version;  // 570.86.15
  bool open_module = false;
  std::string arch;  // "x86_64", "aarch64", or "" when not named
};
// /proc/driver/nvidia/version: the token after the double space on the "NVRM version:" line
// (never the GCC line). Proprietary, open-module and aarch64 variants.
std::optional<ProcNvidiaVersion> ParseProcNvidiaVersion(std::string_view contents);

struct GpuInformation {
  std::string model;         // "NVIDIA GeForce RTX 3090"
  std::string uuid;          // "GPU-eaf23aa1-..."
  std::string bus_location;  // "0000:01:00.0"
};
// /proc/driver/nvidia/gpus/<bdf>/information: "Key: \t value" lines.
std::optional<GpuInformation> ParseGpuInformation(std::string_view contents);

// "00000000:01:00.0" (NVML, nvidia-smi) or "0000:01:00.0" -> "0000:01:00.0", lower case.
// "" when it is not a PCI address.
std::string NormalizePciBusId(std::string_view text);

struct SmiGpu {
  core::DriverVersion driver_version;
  std::optional<core::ComputeCapability> compute_capability;  // nullopt: not queried, "[N/A]"
  std::string name;
  std::string pci_bus_id;
};
// nvidia-smi --query-gpu=driver_version[,compute_cap],name,pci.bus_id --format=csv,noheader:
// one line per GPU. `with_compute_cap` says whether compute_cap was asked for. Lines that do not
// have the asked number of fields, or whose driver field is not a version, are skipped.
std::vector<SmiGpu> ParseNvidiaSmiCsv(std::string_view output, bool with_compute_cap);

// R470-era nvidia-smi: 'Field "compute_cap" is not a valid field to query.'
bool NvidiaSmiRejectsComputeCap(std::string_view output);
// "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver."
bool NvidiaSmiCannotReachDriver(std::string_view output);

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_DETECT_NVIDIA_PARSERS_H_
