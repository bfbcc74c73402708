#include <gnu/libc-version.h>
#include <sys/utsname.h>

#include <charconv>
#include <string_view>

#include "installer/platform/host_system.h"

namespace torchdex::installer {

HostSystem CurrentHostSystem() {
  HostSystem system;
  utsname name{};
  if (::uname(&name) == 0) system.machine = name.machine;
  const std::string_view version = gnu_get_libc_version();  // "2.36"
  if (const std::size_t dot = version.find('.'); dot != std::string_view::npos) {
    int minor = 0;
    const char* first = version.data() + dot + 1;
    const char* last = version.data() + version.size();
    if (auto [end, error] = std::from_chars(first, last, minor); error == std::errc() && end != first) {
      system.glibc_minor = minor;
    }
  }
  return system;
}

}  // namespace torchdex::installer
