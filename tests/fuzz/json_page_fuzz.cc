// Any bytes as a PEP 691 JSON page: ParseJsonPage must not crash (nor throw: the JSON library
// is used without exceptions); anchors carry no fragment and lower-case hashes, and the page
// is always tagged as JSON. ParsePage with the JSON content type gives the same answer.
#include <string>

#include "index/page.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

bool HasUpper(const std::string& s) {
  for (unsigned char c : s) {
    if (c >= 'A' && c <= 'Z') return true;
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace torchdex::index;
  const std::string_view input = FuzzInput(data, size);
  constexpr std::string_view kPage = "https://download.pytorch.org/whl/simple/torch/";
  auto page = ParseJsonPage(input, kPage);
  auto via_type = ParsePage(input, "application/vnd.pypi.simple.v1+json", kPage);
  TORCHDEX_FUZZ_CHECK(page.ok() == via_type.ok());
  if (!page) return 0;
  TORCHDEX_FUZZ_CHECK(page->shape == PageShape::kJson);
  TORCHDEX_FUZZ_CHECK(page->anchors.size() == via_type->anchors.size());
  for (const Anchor& anchor : page->anchors) {
    TORCHDEX_FUZZ_CHECK(anchor.url.find('#') == std::string::npos);
    TORCHDEX_FUZZ_CHECK(!HasUpper(anchor.sha256));
    TORCHDEX_FUZZ_CHECK(!HasUpper(anchor.metadata_sha256));
    TORCHDEX_FUZZ_CHECK(anchor.metadata_sha256.empty() || anchor.has_metadata);
  }
  return 0;
}
