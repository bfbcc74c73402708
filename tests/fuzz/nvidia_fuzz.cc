// Any bytes as what the NVIDIA driver and tools write (/sys/module/nvidia/version,
// /proc/driver/nvidia/version, gpus/*/information, nvidia-smi CSV): no parser crashes, and
// what they return is a value that prints and parses back to itself (driver versions, compute
// capabilities, PCI addresses). The driver table answers for every accepted version.
#include <string>

#include "installer/table/hardware_table.h"
#include "installer/detect/nvidia_parsers.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using namespace torchdex::installer;

void CheckDriver(const torchdex::core::DriverVersion& version) {
  const auto again = ParseDriverVersion(version.ToString());
  TORCHDEX_FUZZ_CHECK(again.has_value() && *again == version && again->ToString() == version.ToString());
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
      TORCHDEX_FUZZ_CHECK(with_cc || !gpu.compute_capability);
      if (gpu.compute_capability) {
        TORCHDEX_FUZZ_CHECK(torchdex::core::ComputeCapability::Parse(gpu.compute_capability->ToString()) ==
                            gpu.compute_capability);
      }
      TORCHDEX_FUZZ_CHECK(gpu.pci_bus_id.empty() ||
                          NormalizePciBusId(gpu.pci_bus_id) == gpu.pci_bus_id);
    }
  }
  if (size <= 64) {
    const std::string bus = NormalizePciBusId(input);
    TORCHDEX_FUZZ_CHECK(bus.empty() || NormalizePciBusId(bus) == bus);
    if (const auto cc = torchdex::core::ComputeCapability::Parse(input)) {
      TORCHDEX_FUZZ_CHECK(torchdex::core::ComputeCapability::Parse(cc->ToString()) == cc);
      TORCHDEX_FUZZ_CHECK(torchdex::core::ComputeCapability::ParseSm(cc->Sm()) == cc);
    }
    if (const auto driver = torchdex::core::DriverVersion::Parse(input)) {
      TORCHDEX_FUZZ_CHECK(driver->ToString() == input);  // printed exactly as parsed
    }
    (void)FindTegraGpu(input);
  }
  (void)NvidiaSmiRejectsComputeCap(input);
  (void)NvidiaSmiCannotReachDriver(input);
  return 0;
}
