// Any bytes as generated/catalogue.json: ParseCatalogueJson must not crash or throw, and what
// it accepts writes back to canonical JSON that parses to the same canonical bytes.
#include <string>

#include "catalogue/catalogue.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace torchdex::catalogue;
  auto parsed = ParseCatalogueJson(FuzzInput(data, size), "fuzz");
  if (!parsed) return 0;
  const std::string canonical = WriteCatalogueJson(*parsed);
  auto again = ParseCatalogueJson(canonical, "canonical");
  if (!again) {
    std::fprintf(stderr, "%s\n", again.error().message.c_str());
  }
  TORCHDEX_FUZZ_CHECK(again.ok());
  TORCHDEX_FUZZ_CHECK(WriteCatalogueJson(*again) == canonical);
  return 0;
}
