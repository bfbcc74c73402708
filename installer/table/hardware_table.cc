// The one hand-written consumer of generated/*.inc: typed lookups over sorted constexpr arrays.
#include "installer/table/hardware_table.h"

#include <algorithm>
#include <charconv>

namespace torchdex::installer {
namespace {

#include "generated/intel_xpu_devices.inc"
#include "generated/nvidia_driver_cuda.inc"
#include "generated/nvidia_gpus.inc"

template <typename Row>
const Row* FindById(std::span<const Row> rows, unsigned pci_id) {
  auto it = std::lower_bound(rows.begin(), rows.end(), pci_id,
                             [](const Row& row, unsigned id) { return row.pci_id < id; });
  if (it == rows.end() || it->pci_id != pci_id) return nullptr;
  return &*it;
}

// Jetson GPUs, keyed by SoC. Compute capabilities from NVIDIA's CUDA GPU pages
// (developer.nvidia.com/cuda-gpus and /cuda-legacy-gpus): Orin 8.7, Xavier 7.2, TX2 6.2,
// TX1/Nano 5.3; Thor is 11.0 under CUDA 13 (10.1 before: pytorch PR #175029). See
// ../shared/research/detection.md section 3.4.
constexpr TegraGpu kTegraGpus[] = {
    {"tegra210", "Jetson TX1 / Nano (Maxwell)", {5, 3}}, {"tegra186", "Jetson TX2 (Pascal)", {6, 2}},
    {"tegra194", "Jetson Xavier (Volta)", {7, 2}},       {"tegra234", "Jetson Orin (Ampere)", {8, 7}},
    {"tegra264", "Jetson Thor (Blackwell)", {11, 0}},
};

}  // namespace

std::span<const NvidiaGpuRow> NvidiaGpuRows() { return kNvidiaGpuRows; }
std::span<const IntelPlatformRow> IntelPlatformRows() { return kIntelPlatformRows; }
std::span<const IntelGpuRow> IntelGpuRows() { return kIntelGpuRows; }
std::span<const CudaDriverRow> CudaDriverRows() { return kCudaDriverRows; }

const NvidiaGpuRow* FindNvidiaGpu(unsigned pci_id) { return FindById(NvidiaGpuRows(), pci_id); }
const IntelGpuRow* FindIntelGpu(unsigned pci_id) { return FindById(IntelGpuRows(), pci_id); }

const IntelPlatformRow* FindIntelPlatform(std::string_view platform) {
  auto rows = IntelPlatformRows();
  auto it = std::lower_bound(
      rows.begin(), rows.end(), platform,
      [](const IntelPlatformRow& row, std::string_view name) { return row.platform < name; });
  if (it == rows.end() || it->platform != platform) return nullptr;
  return &*it;
}


std::optional<CudaForDriver> MaxCudaForDriver(const core::DriverVersion& driver, DriverTable table) {
  if (table == DriverTable::kNone || !driver.known()) return std::nullopt;
  const CudaDriverRow* best = nullptr;
  const CudaDriverRow* newest_in_column = nullptr;
  for (const CudaDriverRow& row : CudaDriverRows()) {  // sorted by CUDA version
    const core::DriverVersion& minimum = table == DriverTable::kWindows ? row.windows_min : row.linux_min;
    if (!minimum.known()) continue;
    newest_in_column = &row;
    if (minimum <= driver) best = &row;
  }
  if (best == nullptr) return std::nullopt;
  const core::DriverVersion& minimum = table == DriverTable::kWindows ? best->windows_min : best->linux_min;
  CudaForDriver result;
  result.cuda = std::to_string(best->cuda_major) + "." + std::to_string(best->cuda_minor);
  result.first_driver = minimum.ToString();
  // A driver of a newer branch than the newest row may support a newer CUDA than the table
  // knows (R610 reports 13.3): the answer is a lower bound then.
  result.beyond_table = best == newest_in_column && driver.major() > minimum.major();
  return result;
}

std::optional<TegraGpu> FindTegraGpu(std::string_view compatible) {
  // NUL-separated list of strings, most specific first: "nvidia,p3701-0005\0nvidia,tegra234\0".
  for (const TegraGpu& gpu : kTegraGpus) {
    const std::string needle = "nvidia," + std::string(gpu.soc);
    size_t position = compatible.find(needle);
    while (position != std::string_view::npos) {
      const size_t after = position + needle.size();
      if (after == compatible.size() || compatible[after] == '\0' || compatible[after] == '\n') {
        return gpu;
      }
      position = compatible.find(needle, after);
    }
  }
  return std::nullopt;
}

}  // namespace torchdex::installer
