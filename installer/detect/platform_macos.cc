// macOS: no CUDA since CUDA 10.2 / macOS 10.13, no ROCm, no XPU. PyTorch on macOS is the default
// PyPI wheel (CPU + MPS), so detection only reports the host. Built on macOS instead of
// platform_linux.cc (installer/CMakeLists.txt chooses the file); not compiled on Linux.
#include <sys/utsname.h>

#include "installer/detect/detect_context.h"

namespace torchdex::installer {

void DetectPlatform(DetectContext& context) {
  const int64_t start = context.Now();
  HostFacts& facts = context.facts;
  facts.os = core::TargetOs::kMacOS;
  struct utsname name;
  if (::uname(&name) == 0) facts.arch = name.machine;  // "arm64" on Apple silicon
  if (facts.arch == "arm64") {
    context.Warn(
        "Apple silicon: PyTorch uses MPS from the default wheel; there is no CUDA, ROCm "
        "or XPU build for macOS");
  } else {
    context.Warn("Intel Mac: there is no CUDA, ROCm or XPU build of PyTorch for macOS");
  }
  context.AddTiming("host", start);
}

}  // namespace torchdex::installer
