// Any input: SpecifierSet::Parse must not crash; a parsed set's normal form parses again to
// a set that agrees with it on a fixed list of versions.
#include <array>

#include "core/specifier.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using torchdex::core::SpecifierSet;
  using torchdex::core::Version;
  auto parsed = SpecifierSet::Parse(FuzzInput(data, size));
  if (!parsed) return 0;
  auto again = SpecifierSet::Parse(parsed->ToString());
  TORCHDEX_FUZZ_CHECK(again.ok());
  static const std::array<const char*, 8> kProbes = {
      "0", "1.0", "2.5.1+cu124", "2.6.0rc1", "2.11.0.dev20260301+cu128", "1!1.0", "3.0.post1",
      "2.5"};
  for (const char* text : kProbes) {
    const Version v = *Version::Parse(text);
    TORCHDEX_FUZZ_CHECK(parsed->Contains(v) == again->Contains(v));
  }
  return 0;
}
