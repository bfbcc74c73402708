// Any bytes as the host's own files (/etc/nv_tegra_release, /proc/sys/kernel/{osrelease,arch},
// /proc/1/cgroup): no parser crashes; an L4T release is "major.minor.patch" digits; an arch is
// one plain word.
#include <cctype>
#include <string>

#include "installer/detect/host_parsers.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace torchdex::installer;
  const std::string_view input = FuzzInput(data, size);
  if (auto release = ParseNvTegraRelease(input)) {
    int dots = 0;
    for (char c : *release) {
      if (c == '.') {
        ++dots;
      } else {
        TORCHDEX_FUZZ_CHECK(c >= '0' && c <= '9');
      }
    }
    TORCHDEX_FUZZ_CHECK(dots == 2);
  }
  (void)OsReleaseIsWsl(input);
  if (auto arch = ParseKernelArch(input)) {
    TORCHDEX_FUZZ_CHECK(!arch->empty() && arch->size() <= 32);
    for (char c : *arch) {
      TORCHDEX_FUZZ_CHECK(std::isalnum(static_cast<unsigned char>(c)) || c == '_');
    }
  }
  const std::string runtime = ContainerRuntimeInCgroup(input);
  TORCHDEX_FUZZ_CHECK(runtime.empty() || input.find(runtime) != std::string_view::npos);
  return 0;
}
