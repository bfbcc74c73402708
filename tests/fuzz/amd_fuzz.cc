// Any bytes as AMD's files (KFD topology node properties, rocm_agent_enumerator output,
// /opt/rocm/.info/version): no parser crashes; every gfx name they give is a gfx name.
#include <string>

#include "installer/detect/amd_parsers.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace torchdex::installer;
  const std::string_view input = FuzzInput(data, size);
  if (auto properties = ParseKfdProperties(input)) {
    if (auto gfx = GfxFromTargetVersion(properties->gfx_target_version)) {
      TORCHDEX_FUZZ_CHECK(IsGfxName(*gfx));
    }
  }
  for (const std::string& name : ParseRocmAgentEnumerator(input)) {
    TORCHDEX_FUZZ_CHECK(IsGfxName(name));
    TORCHDEX_FUZZ_CHECK(name != "gfx000");
  }
  if (auto version = ParseRocmVersionFile(input)) {
    TORCHDEX_FUZZ_CHECK(!version->empty());
    TORCHDEX_FUZZ_CHECK(version->find('-') == std::string::npos);
  }
  if (size == sizeof(std::uint64_t)) {
    std::uint64_t value = 0;
    __builtin_memcpy(&value, data, sizeof value);
    if (auto gfx = GfxFromTargetVersion(value)) TORCHDEX_FUZZ_CHECK(IsGfxName(*gfx));
  }
  return 0;
}
