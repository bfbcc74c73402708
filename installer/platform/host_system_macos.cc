#include <sys/utsname.h>

#include "installer/platform/host_system.h"

namespace torchdex::installer {

HostSystem CurrentHostSystem() {
  HostSystem system;
  utsname name{};
  if (::uname(&name) == 0) system.machine = name.machine;  // "arm64" on Apple silicon
  system.glibc_minor = 0;
  return system;
}

}  // namespace torchdex::installer
