// Windows: what detection does there, in one file. NOT BUILT YET: it needs
// process_runner_win32.cc and a Windows FileReader, and cannot be tested on our Linux CI.
// installer/CMakeLists.txt leaves it out of non-Windows builds.
//
// Sources, in order (../shared/research/detection.md section 3.5):
//   1. NVML: nvml.dll from System32, then "C:\Program Files\NVIDIA Corporation\NVSMI", in a
//      child process with the timeout (as library_probe_posix.cc does with dlopen on Linux).
//   2. nvidia-smi.exe from PATH, System32, NVSMI, or the newest
//      System32\DriverStore\FileRepository\nv*\nvidia-smi.exe (libmamba's fallback), with the
//      same CSV query and parser as Linux (ParseNvidiaSmiCsv). Driver numbers are Windows
//      numbers: DriverTable::kWindows.
//   3. GPUs and their compute capability from the PnP ids (PCI\VEN_10DE&DEV_2484...) through the
//      same PCI id table, so a known GPU needs no probe at all.
//   4. Intel: PnP VEN_8086 display devices against the XPU table. AMD: no ROCm wheels on Windows.
#include "installer/detect/detect_context.h"
#include "installer/table/hardware_table.h"
#include "installer/detect/nvidia_parsers.h"

namespace torchdex::installer {

void DetectPlatform(DetectContext& context) {
  HostFacts& facts = context.facts;
  facts.os = core::TargetOs::kWindows;
  facts.arch = "x86_64";  // PyTorch publishes Windows wheels for x86_64 only

  const int64_t start = context.Now();
  std::optional<std::string> smi = context.FindTool(
      "nvidia-smi.exe", {"C:/Windows/System32", "C:/Program Files/NVIDIA Corporation/NVSMI"});
  if (!smi) {
    context.AddTiming("nvidia", start);
    return;
  }
  ProcessResult result = context.RunTool(
      "nvidia-smi",
      {*smi, "--query-gpu=driver_version,compute_cap,name,pci.bus_id", "--format=csv,noheader"});
  const std::vector<SmiGpu> gpus = ParseNvidiaSmiCsv(result.output, /*with_compute_cap=*/true);
  if (!gpus.empty()) {
    NvidiaFacts nvidia;
    nvidia.driver_table = DriverTable::kWindows;
    nvidia.driver_version = gpus.front().driver_version;
    nvidia.driver_source = "nvidia-smi (" + *smi + ")";
    nvidia.devices_exposed = true;
    nvidia.devices_exposed_source = "nvidia-smi listed the GPUs";
    for (const SmiGpu& found : gpus) {
      NvidiaGpu gpu;
      gpu.name = found.name;
      gpu.compute_capability = found.compute_capability;
      gpu.compute_capability_source = "nvidia-smi";
      gpu.pci_bus_id = found.pci_bus_id;
      nvidia.gpus.push_back(std::move(gpu));
    }
    facts.nvidia = std::move(nvidia);
  }
  context.AddTiming("nvidia", start);
}

}  // namespace torchdex::installer
