// Any bytes as a variants.json (PEP 825; both schemas) and as a provider's output: the parsers
// must not crash, throw or abort; every error names the file or the provider; an accepted
// variants.json comes back from its canonical form unchanged, and ranking it against a fixed
// host never crashes and puts every compatible variant before every incompatible one.
#include <string>

#include "catalogue/variants.h"
#include "installer/variants/providers.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace torchdex;
  const std::string_view input = FuzzInput(data, size);
  auto file = catalogue::ParseVariantsJson(input, "/fuzz/x-1-variants.json");
  if (!file) {
    TORCHDEX_FUZZ_CHECK(file.error().message.rfind("/fuzz/x-1-variants.json", 0) == 0);
  } else {
    const std::string canonical = catalogue::VariantsJsonToString(*file);
    auto again = catalogue::ParseVariantsJson(canonical, "canonical");
    TORCHDEX_FUZZ_CHECK(again.ok());
    TORCHDEX_FUZZ_CHECK(catalogue::VariantsJsonToString(*again) == canonical);
    const catalogue::SupportedProperties host = {
        {"nvidia",
         "fuzz",
         {{"cuda_version_lower_bound", {"12.4", "12.0"}}, {"sm_arch", {"80_real", "80_virtual"}}}},
        {"intel", "fuzz", {{"device_ip", {"20.1.0"}}}}};
    const auto ranked = catalogue::RankVariants(*file, host);
    TORCHDEX_FUZZ_CHECK(ranked.size() == file->variants.size());
    bool incompatible_seen = false;
    for (const auto& r : ranked) {
      if (!r.compatible) incompatible_seen = true;
      TORCHDEX_FUZZ_CHECK(!(r.compatible && incompatible_seen));
      TORCHDEX_FUZZ_CHECK(r.compatible == r.incompatible_because.empty());
    }
    if (ranked.size() >= 2) (void)catalogue::DecidingProperty(ranked[0], &ranked[1]);
  }
  auto provided = installer::ParseProviderOutput(input, "acme", "fuzz");
  if (!provided) {
    TORCHDEX_FUZZ_CHECK(provided.error().message.rfind("provider fuzz: ", 0) == 0);
  } else {
    TORCHDEX_FUZZ_CHECK(provided->name == "acme");
    for (const auto& f : provided->features) TORCHDEX_FUZZ_CHECK(!f.values.empty());
  }
  return 0;
}
