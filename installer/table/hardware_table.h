// Typed lookups in the compiled hardware tables (generated/*.inc, made by torchdex-codegen from
// data/*.json). Only hardware_table.cc includes the generated files.
#ifndef TORCHDEX_INSTALLER_TABLE_HARDWARE_TABLE_H_
#define TORCHDEX_INSTALLER_TABLE_HARDWARE_TABLE_H_

#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/accelerator.h"

namespace torchdex::installer {

// Which column of NVIDIA's driver tables the driver number belongs to.
enum class DriverTable {
  kLinux,    // the Linux driver numbers (550.144.03)
  kWindows,  // Windows and WSL2: WSL reports the Windows driver (572.60)
  kNone,     // Jetson: the number is an L4T release or a Tegra driver; no desktop table applies
};


// Row types of the generated arrays. Plain aggregates, so the tables are constexpr.
struct NvidiaGpuRow {
  unsigned pci_id;
  unsigned cc_major;
  unsigned cc_minor;
  bool doubtful;  // data/nvidia-gpus.json flags the row (see its note)
  const char* architecture;
  const char* name;
};

struct IntelPlatformRow {
  const char* platform;
  bool xpu_supported;
  const char* support_level;
  const char* reason;
};

struct IntelGpuRow {
  unsigned pci_id;
  unsigned requires_class;  // e.g. 0x0380: only a device of that class is this GPU; 0: any
  const char* platform;
  const char* name;
};

struct CudaDriverRow {
  unsigned cuda_major;
  unsigned cuda_minor;
  core::DriverVersion linux_min;    // {0, 0, 0}: none
  core::DriverVersion windows_min;  // {0, 0, 0}: none published (13.x)
};

std::span<const NvidiaGpuRow> NvidiaGpuRows();
std::span<const IntelPlatformRow> IntelPlatformRows();
std::span<const IntelGpuRow> IntelGpuRows();
std::span<const CudaDriverRow> CudaDriverRows();

const NvidiaGpuRow* FindNvidiaGpu(unsigned pci_id);
const IntelGpuRow* FindIntelGpu(unsigned pci_id);
const IntelPlatformRow* FindIntelPlatform(std::string_view platform);

// The newest CUDA a driver supports, from its version and the column it belongs to. nullopt when
// the version predates the table. `beyond_table` is set when
// the driver is newer than the newest row of its column (the answer is then a lower bound).
struct CudaForDriver {
  std::string cuda;          // "12.4"
  std::string first_driver;  // "550.54.14": the row's minimum driver
  bool beyond_table = false;
};
std::optional<CudaForDriver> MaxCudaForDriver(const core::DriverVersion& driver, DriverTable table);

// Jetson (Tegra) SoC from /proc/device-tree/compatible ("nvidia,tegra234") -> GPU name and
// compute capability: the integrated GPU is not a PCI device, so the PCI table cannot answer.
struct TegraGpu {
  std::string_view soc;  // "tegra234"
  std::string_view name;
  core::ComputeCapability compute_capability;
};
std::optional<TegraGpu> FindTegraGpu(std::string_view device_tree_compatible);

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_TABLE_HARDWARE_TABLE_H_
