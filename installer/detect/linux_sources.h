// Internal to the Linux detection files: the PCI display devices every vendor looks at, and one
// function per vendor. Each reads only through the DetectContext.
#ifndef TORCHDEX_INSTALLER_DETECT_LINUX_SOURCES_H_
#define TORCHDEX_INSTALLER_DETECT_LINUX_SOURCES_H_

#include <string>
#include <vector>

#include "installer/detect/detect_context.h"

namespace torchdex::installer {

// A PCI device of class 0x03 (display: VGA 0x0300, 3D controller 0x0302, other 0x0380).
struct PciDisplayDevice {
  std::string bus_id;  // "0000:01:00.0", the sysfs directory name
  unsigned vendor = 0;
  unsigned device = 0;
  unsigned class_code = 0;  // 0x030000
  std::string driver;       // "nvidia", "i915", "xe", "amdgpu"; "" when none is bound
};

std::vector<PciDisplayDevice> ReadPciDisplayDevices(DetectContext& context);

void DetectNvidiaLinux(DetectContext& context, const std::vector<PciDisplayDevice>& pci);
void DetectAmdLinux(DetectContext& context, const std::vector<PciDisplayDevice>& pci);
void DetectIntelLinux(DetectContext& context, const std::vector<PciDisplayDevice>& pci);

// "0x2204" for 0x2204.
std::string HexId(unsigned id);

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_DETECT_LINUX_SOURCES_H_
