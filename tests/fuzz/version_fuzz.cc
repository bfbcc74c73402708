// Any input: Version::Parse must not crash; a parsed version's normal form parses again to
// an equal version with the same normal form.
#include "core/version.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using torchdex::core::Version;
  auto parsed = Version::Parse(FuzzInput(data, size));
  if (!parsed) return 0;
  const std::string normal = parsed->ToString();
  auto again = Version::Parse(normal);
  TORCHDEX_FUZZ_CHECK(again.ok());
  TORCHDEX_FUZZ_CHECK(*again == *parsed);
  TORCHDEX_FUZZ_CHECK(again->ToString() == normal);
  TORCHDEX_FUZZ_CHECK((*parsed <=> *again) == 0);
  TORCHDEX_FUZZ_CHECK(parsed->Public() <= *parsed);
  return 0;
}
