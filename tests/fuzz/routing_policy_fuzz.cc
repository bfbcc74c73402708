// Any bytes as data/routing-policy.json: ParseRoutingPolicy must not crash or throw; accepted
// entries have a known class and non-empty reason and source.
#include <string>

#include "store/classify.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace torchdex::catalogue;
  auto policy = ParseRoutingPolicy(FuzzInput(data, size), "fuzz");
  if (!policy) return 0;
  for (const auto& [name, entry] : policy->projects) {
    TORCHDEX_FUZZ_CHECK(entry.cls == "routed" || entry.cls == "companion" ||
                        entry.cls == "mirror" || entry.cls == "stale");
    TORCHDEX_FUZZ_CHECK(!entry.reason.empty() && !entry.source.empty());
  }
  return 0;
}
