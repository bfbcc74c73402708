// What this machine's kernel and C library say of themselves: the one place that asks
// uname() and gnu_get_libc_version(). Commands get it through Deps, so tests describe any
// machine, and a captured host (--root) is never mistaken for this one.
#ifndef TORCHDEX_INSTALLER_PLATFORM_HOST_SYSTEM_H_
#define TORCHDEX_INSTALLER_PLATFORM_HOST_SYSTEM_H_

#include <string>

namespace torchdex::installer {

struct HostSystem {
  std::string machine = "x86_64";  // uname -m: "x86_64", "aarch64", "arm64"
  int glibc_minor = 17;            // 2.36 -> 36; 17 (manylinux2014's floor) when not glibc
};

/// Asks the running machine.
HostSystem CurrentHostSystem();

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_PLATFORM_HOST_SYSTEM_H_
