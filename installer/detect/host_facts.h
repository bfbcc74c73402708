// What detection found: plain data, printed by report.h, consumed by selection (select/).
// Every fact carries where it came from, so every answer can be explained.
#ifndef TORCHDEX_INSTALLER_DETECT_HOST_FACTS_H_
#define TORCHDEX_INSTALLER_DETECT_HOST_FACTS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/accelerator.h"
#include "installer/table/hardware_table.h"  // DriverTable

namespace torchdex::installer {

struct NvidiaGpu {
  std::string name;                       // "NVIDIA GeForce RTX 3090"; "" when unknown
  std::optional<core::ComputeCapability> compute_capability;  // 8.6; nullopt when unknown
  std::string compute_capability_source;  // "PCI id table", "NVML", "TORCHDEX_CUDA_ARCH" ...
  std::string pci_bus_id;                 // "0000:01:00.0"; "" when unknown
  std::string pci_id;                     // "0x2204"; "" when not seen on the PCI bus
  std::string uuid;                       // "GPU-eaf23aa1-..."; "" when unknown
  bool visible = true;                    // counted under CUDA_VISIBLE_DEVICES
};

struct NvidiaFacts {
  std::optional<core::DriverVersion> driver_version;  // 550.144.03; nullopt when unknown
  std::string driver_source;   // "/sys/module/nvidia/version", "NVML", "env TORCHDEX_..."
  DriverTable driver_table = DriverTable::kLinux;
  std::string cuda_driver_api;         // the newest CUDA the driver supports, "12.4"
  std::string cuda_driver_api_source;  // "NVML", "libcuda", "driver table (550.54.14 or newer)"
  bool devices_exposed = false;
  std::string devices_exposed_source;  // "/dev/nvidiactl", "/dev/dxg", "missing /dev/nvidiactl"
  std::optional<std::string> cuda_visible_devices;  // the variable, when set
  std::vector<NvidiaGpu> gpus;                      // sorted by pci_bus_id
};

struct AmdGpu {
  std::string gfx;     // "gfx1100"
  std::string pci_id;  // "0x744c" (KFD device_id); "" when unknown
  int kfd_node = -1;   // KFD topology node; -1 when not from KFD
};

struct AmdFacts {
  std::vector<std::string> gfx;  // distinct, in node order
  std::string gfx_source;  // "/sys/class/kfd/kfd/topology/nodes", "rocm_agent_enumerator", env
  std::vector<AmdGpu> gpus;
  std::string rocm_version;           // "6.4.0" from /opt/rocm/.info/version; "" when absent
  std::string amdgpu_module_version;  // "6.12.12" from /sys/module/amdgpu/version; "" when absent
  bool kfd_access = false;            // /dev/kfd exists and is readable and writable
};

struct IntelGpu {
  std::string pci_id;         // "0x56a0"
  std::string name;           // from the table; "" when the id is unknown
  std::string driver;         // "i915", "xe", or "" when no driver is bound
  std::string pci_bus_id;     // "0000:03:00.0"
  std::string platform;       // "DG2"; "" when the id is unknown
  std::string support_level;  // "validated", "unsupported" ...
  std::string reason;         // why it is or is not an XPU
};

struct IntelFacts {
  std::vector<IntelGpu> xpu_devices;  // usable by PyTorch XPU wheels
  std::vector<IntelGpu> other_gpus;   // Intel GPUs that are not XPUs (UHD iGPUs ...), and why
  std::string source;                 // "/sys/bus/pci/devices", "env TORCHDEX_XPU"
};

struct JetsonFacts {
  std::string l4t;  // "36.4.3"
  std::string source = "/etc/nv_tegra_release";
};

// One child process run during detection.
struct ProbeRecord {
  std::string what;     // "nvml", "libcuda", "nvidia-smi", "rocm_agent_enumerator"
  std::string path;     // host path of the library or tool ("" for a plain soname search)
  std::string outcome;  // "answered", "no answer: ...", "timed out after 5 s and was killed" ...
};

struct HostFacts {
  core::TargetOs os = core::TargetOs::kLinux;
  std::string arch;  // "x86_64", "aarch64", "arm64"
  bool wsl = false;
  std::string wsl_source;
  bool container = false;
  std::string container_source;
  std::optional<JetsonFacts> jetson;
  std::optional<NvidiaFacts> nvidia;  // nullopt: nothing NVIDIA found
  std::optional<AmdFacts> amd;
  std::optional<IntelFacts> intel;
  std::vector<std::pair<std::string, std::string>> overrides;  // variable, value: those applied
  std::vector<ProbeRecord> probes;
  std::vector<std::string> warnings;
  std::vector<std::pair<std::string, int64_t>> timings_us;  // in the order they were taken
};

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_DETECT_HOST_FACTS_H_
