// Pure parsers for the files that describe the host itself: Jetson's /etc/nv_tegra_release,
// /proc/sys/kernel/{osrelease,arch}, /proc/1/cgroup.
#ifndef TORCHDEX_INSTALLER_DETECT_HOST_PARSERS_H_
#define TORCHDEX_INSTALLER_DETECT_HOST_PARSERS_H_

#include <optional>
#include <string>
#include <string_view>

namespace torchdex::installer {

// "# R36 (release), REVISION: 4.3, GCID: ..." -> "36.4.3" (the L4T release).
std::optional<std::string> ParseNvTegraRelease(std::string_view contents);

// /proc/sys/kernel/osrelease of a WSL kernel: "5.15.167.4-microsoft-standard-WSL2".
bool OsReleaseIsWsl(std::string_view contents);

// /proc/sys/kernel/arch: "x86_64\n" -> "x86_64"; nullopt when it is not a plain word.
std::optional<std::string> ParseKernelArch(std::string_view contents);

// /proc/1/cgroup naming a container runtime ("docker", "kubepods", "containerd", "libpod",
// "lxc"). Returns the runtime word found, or "".
std::string ContainerRuntimeInCgroup(std::string_view contents);

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_DETECT_HOST_PARSERS_H_
