// Any bytes as what the NVIDIA driver and tools write (/sys/module/nvidia/version,
// /proc/driver/nvidia/version, gpus/*/information, nvidia-smi CSV): no parser crashes, and
// what they return is normalised (normalising it again changes nothing) and is a driver
// version where one is promised. The driver table answers for every accepted version.
#include <string>

#include "installer/table/hardware_table.h"
#include "installer/detect/nvidia_parsers.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using namespace torchdex::installer;

void CheckDriver(const std::string& version) {
  TORCHDEX_FUZZ_CHECK(IsDriverVersion(version));
  for (DriverTable table : {DriverTable::kLinux, DriverTable::kWindows}) {
    if (auto cuda = MaxCudaForDriver(version, table)) {
      TORCHDEX_FUZZ_CHECK(!cuda->cuda.empty());
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input = FuzzInput(data, size);
  if (auto version = ParseSysModuleVersion(input)) CheckDriver(*version);
  if (auto proc = ParseProcNvidiaVersion(input)) CheckDriver(proc->version);
  if (auto info = ParseGpuInformation(input)) {
    TORCHDEX_FUZZ_CHECK(info->bus_location.empty() ||
                        NormalizePciBusId(info->bus_location) == info->bus_location);
  }
  for (bool with_cc : {true, false}) {
    for (const SmiGpu& gpu : ParseNvidiaSmiCsv(input, with_cc)) {
      CheckDriver(gpu.driver_version);
      TORCHDEX_FUZZ_CHECK(with_cc || gpu.compute_capability.empty());
      const std::string& cc = gpu.compute_capability;
      TORCHDEX_FUZZ_CHECK(cc.empty() || NormalizeComputeCapability(cc) == cc);
      TORCHDEX_FUZZ_CHECK(gpu.pci_bus_id.empty() ||
                          NormalizePciBusId(gpu.pci_bus_id) == gpu.pci_bus_id);
    }
  }
  if (size <= 64) {
    const std::string bus = NormalizePciBusId(input);
    TORCHDEX_FUZZ_CHECK(bus.empty() || NormalizePciBusId(bus) == bus);
    const std::string cc = NormalizeComputeCapability(input);
    TORCHDEX_FUZZ_CHECK(cc.empty() || NormalizeComputeCapability(cc) == cc);
    (void)FindTegraGpu(input);
  }
  (void)NvidiaSmiRejectsComputeCap(input);
  (void)NvidiaSmiCannotReachDriver(input);
  return 0;
}
