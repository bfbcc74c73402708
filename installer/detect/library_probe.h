// Probes that load an NVIDIA library (NVML, libcuda) and ask it. They run inside a child
// process (ProcessRunner::RunInChild): a library that hangs in cuInit, crashes, or prints
// cannot take torchdex with it. The child answers in a small line format, one fact a line:
//   library<TAB>/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1
//   driver_version<TAB>550.144.03
//   cuda_version<TAB>12040
//   gpu<TAB>8.6<TAB>0000:01:00.0<TAB>GPU-eaf2...<TAB>NVIDIA GeForce RTX 3090
//   error<TAB>nvmlInit_v2 returned 9
#ifndef TORCHDEX_INSTALLER_DETECT_LIBRARY_PROBE_H_
#define TORCHDEX_INSTALLER_DETECT_LIBRARY_PROBE_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/accelerator.h"

namespace torchdex::installer {

struct ProbeGpu {
  std::optional<core::ComputeCapability> compute_capability;  // nullopt: the library did not say
  std::string pci_bus_id;          // normalised "0000:01:00.0"; "" when unknown
  std::string uuid;
  std::string name;
};

struct ProbeAnswer {
  std::string library;           // the path that loaded
  std::optional<core::DriverVersion> driver_version;  // NVML only: 550.144.03
  int cuda_version = 0;          // 1000*major + 10*minor; 0 when unknown
  bool devices_counted = false;  // the library enumerated devices (so an empty gpus means none)
  std::vector<ProbeGpu> gpus;
  std::string error;  // the first failure, when the probe stopped early
};

std::string FormatProbeAnswer(const ProbeAnswer& answer);
// Lenient: unknown or malformed lines are ignored (a crashed child may leave half a line).
ProbeAnswer ParseProbeAnswer(std::string_view text);

// 12040 -> "12.4"; "" outside 1000..99990 (the range rattler accepts too).
std::string CudaVersionString(int encoded);

// Child-side bodies: try each candidate with dlopen, in order, and query the first that loads.
// `candidates` are paths on this machine or plain sonames ("libnvidia-ml.so.1": the loader's
// search). Returns FormatProbeAnswer text.
std::string ProbeNvml(const std::vector<std::string>& candidates);
std::string ProbeLibcuda(const std::vector<std::string>& candidates);

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_DETECT_LIBRARY_PROBE_H_
