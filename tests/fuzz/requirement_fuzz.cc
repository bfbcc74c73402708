// Any input: Requirement::Parse must not crash; a parsed requirement's normal form parses
// again to the same normal form, and its marker evaluates the same way in a fixed environment.
#include "core/requirement.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using torchdex::core::MarkerEnvironment;
  using torchdex::core::Requirement;
  auto parsed = Requirement::Parse(FuzzInput(data, size));
  if (!parsed) return 0;
  const std::string normal_form = parsed->ToString();
  auto again = Requirement::Parse(normal_form);
  TORCHDEX_FUZZ_CHECK(again.ok());
  TORCHDEX_FUZZ_CHECK(again->ToString() == normal_form);
  static const MarkerEnvironment env = MarkerEnvironment::ForLinuxCPython(3, 12, 4);
  auto first = parsed->marker.Evaluate(env, "cuda");
  auto second = again->marker.Evaluate(env, "cuda");
  TORCHDEX_FUZZ_CHECK(first.ok() == second.ok());
  if (first.ok()) TORCHDEX_FUZZ_CHECK(*first == *second);
  return 0;
}
