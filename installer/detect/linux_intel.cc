// Intel on Linux: PCI display devices with vendor 0x8086, matched by device id against the
// compiled table (data/intel-xpu-devices.json). Every Intel iGPU has vendor 0x8086, so the id
// decides; an iGPU that PyTorch XPU does not support is reported, but not as an XPU.
#include "installer/table/hardware_table.h"
#include "installer/detect/linux_sources.h"

namespace torchdex::installer {

void DetectIntelLinux(DetectContext& context, const std::vector<PciDisplayDevice>& pci) {
  const int64_t start = context.Now();
  IntelFacts intel;
  bool found = false;
  for (const PciDisplayDevice& device : pci) {
    if (device.vendor != 0x8086) continue;
    found = true;
    IntelGpu gpu;
    gpu.pci_id = HexId(device.device);
    gpu.pci_bus_id = device.bus_id;
    gpu.driver = device.driver;
    const IntelGpuRow* row = FindIntelGpu(device.device);
    // Some PVC ids are also old Atom iGPU ids (pci.ids): only a 0x0380 device is the PVC.
    if (row != nullptr && row->requires_class != 0 &&
        (device.class_code >> 8) != row->requires_class) {
      row = nullptr;
    }
    const IntelPlatformRow* platform = row != nullptr ? FindIntelPlatform(row->platform) : nullptr;
    if (row != nullptr) {
      gpu.name = row->name;
      gpu.platform = row->platform;
    }
    if (platform == nullptr) {
      gpu.reason = "device id not in the Intel GPU table";
      intel.other_gpus.push_back(std::move(gpu));
      continue;
    }
    gpu.support_level = platform->support_level;
    if (!platform->xpu_supported) {
      gpu.reason = platform->reason;
      intel.other_gpus.push_back(std::move(gpu));
      continue;
    }
    if (gpu.driver != "i915" && gpu.driver != "xe") {
      gpu.reason = gpu.driver.empty() ? "no kernel driver bound (needs i915 or xe)"
                                      : "bound to " + gpu.driver + ", not i915 or xe";
      intel.other_gpus.push_back(std::move(gpu));
      continue;
    }
    gpu.reason = platform->reason;
    intel.xpu_devices.push_back(std::move(gpu));
  }
  if (found) {
    intel.source = "/sys/bus/pci/devices";
    context.facts.intel = std::move(intel);
  }
  context.AddTiming("intel", start);
}

}  // namespace torchdex::installer
