// Any input: Marker::Parse must not crash; a parsed marker's normal form parses again to
// itself and evaluates as the original does in a fixed environment.
#include "core/requirement.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using torchdex::core::Marker;
  using torchdex::core::MarkerEnvironment;
  auto parsed = Marker::Parse(FuzzInput(data, size));
  if (!parsed) return 0;
  const std::string normal_form = parsed->ToString();
  auto again = Marker::Parse(normal_form);
  TORCHDEX_FUZZ_CHECK(again.ok());
  TORCHDEX_FUZZ_CHECK(again->ToString() == normal_form);
  static const MarkerEnvironment env = MarkerEnvironment::ForLinuxCPython(3, 12, 4, "aarch64");
  for (const char* extra : {"", "optree"}) {
    auto first = parsed->Evaluate(env, extra);
    auto second = again->Evaluate(env, extra);
    TORCHDEX_FUZZ_CHECK(first.ok() == second.ok());
    if (first.ok()) TORCHDEX_FUZZ_CHECK(*first == *second);
  }
  return 0;
}
