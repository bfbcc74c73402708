// Any bytes as data/indexes.json: ParseIndexConfig must not crash or throw (its patterns are
// regular expressions, compiled here); an accepted config answers backend and legacy questions
// for a few real directory names. DescribeBackend takes the input itself as a name.
#include <string>

#include "store/index_config.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace torchdex::catalogue;
  const std::string_view input = FuzzInput(data, size);
  if (input.size() <= 64) {
    const BackendName name = DescribeBackend(input);
    TORCHDEX_FUZZ_CHECK(!torchdex::core::BackendKindWord(name.kind).empty());
  }
  auto config = ParseIndexConfig(input, "fuzz");
  if (!config) return 0;
  TORCHDEX_FUZZ_CHECK(!config->families.empty());
  for (const IndexFamily& family : config->families) {
    TORCHDEX_FUZZ_CHECK(family.base_url.ends_with('/'));
    TORCHDEX_FUZZ_CHECK(!family.channels.empty());
    for (const Channel& channel : family.channels) {
      TORCHDEX_FUZZ_CHECK(family.FindChannel(channel.name) != nullptr);
      TORCHDEX_FUZZ_CHECK(channel.path.empty() || channel.path.ends_with('/'));
    }
    for (std::string_view dir : {"cu128", "rocm6.3", "cpu", "cu121-full", "torch", "xpu"}) {
      const bool first = family.IsBackendName(dir);
      TORCHDEX_FUZZ_CHECK(family.IsBackendName(dir) == first);  // the memo answers the same
      (void)family.LegacyReason(dir);
    }
  }
  return 0;
}
