// Override values: "NAME=value" lines become the environment. ParseOverrides must not crash;
// what it accepts is normalised (compute capabilities and gfx targets pass their own checks)
// and, fed back as the only value of its variable, is accepted again.
#include <string>

#include "installer/detect/amd_parsers.h"
#include "installer/detect/nvidia_parsers.h"
#include "installer/detect/env_overrides.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace torchdex::installer;
  const std::string_view input = FuzzInput(data, size);
  Environment env;
  std::size_t start = 0;
  while (start < input.size()) {
    std::size_t end = input.find('\n', start);
    if (end == std::string_view::npos) end = input.size();
    const std::string_view line = input.substr(start, end - start);
    const std::size_t equals = line.find('=');
    if (equals != std::string_view::npos) {
      env[std::string(line.substr(0, equals))] = std::string(line.substr(equals + 1));
    }
    start = end + 1;
  }
  auto overrides = ParseOverrides(env);
  if (!overrides) {
    TORCHDEX_FUZZ_CHECK(!overrides.error().message.empty());
    return 0;
  }
  for (const torchdex::core::ComputeCapability& cc : overrides->cuda_arch_list) {
    TORCHDEX_FUZZ_CHECK(torchdex::core::ComputeCapability::Parse(cc.ToString()) == cc);
  }
  for (const std::string& gfx : overrides->amd_gfx_list) TORCHDEX_FUZZ_CHECK(IsGfxName(gfx));
  TORCHDEX_FUZZ_CHECK(overrides->cuda_arch.has_value() == !overrides->cuda_arch_list.empty());
  for (const OverrideValue& value : overrides->Applied()) {
    TORCHDEX_FUZZ_CHECK(!value.value.empty());
    auto again = ParseOverrides(Environment{{value.variable, value.value}});
    TORCHDEX_FUZZ_CHECK(again.ok());
    TORCHDEX_FUZZ_CHECK(again->Applied().size() == 1);
    TORCHDEX_FUZZ_CHECK(again->Applied()[0].value == value.value);
  }
  return 0;
}
