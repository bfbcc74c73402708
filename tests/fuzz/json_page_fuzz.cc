// Any bytes as a PEP 691 JSON page: ParseJsonPage must not crash (nor throw: the JSON library
// is used without exceptions); anchors carry no fragment and lower-case hashes, and the page
// is always tagged as JSON. ParsePage with the JSON content type gives the same answer, and a
// bounded parse keeps a prefix of the anchors.
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

bool IsSha256(std::string_view text) {
  return text.size() == 64 && text.find_first_not_of("0123456789abcdef") == std::string_view::npos;
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
    // A sha256 is 64 hex digits or nothing, and is the link's hash as pip reads it (issue 13
    // item 25: "#sha256=zzzz" was shown as a sha256).
    TORCHDEX_FUZZ_CHECK(anchor.sha256.empty() || IsSha256(anchor.sha256));
    TORCHDEX_FUZZ_CHECK(anchor.sha256.empty() || anchor.hash == "sha256=" + anchor.sha256);
    TORCHDEX_FUZZ_CHECK(!anchor.hash_malformed || anchor.sha256.empty());
  }
  // Bounded to 2 entries (the crawler's --max-links), the anchors are a prefix of these.
  auto bounded = ParseJsonPage(input, kPage, 2);
  TORCHDEX_FUZZ_CHECK(bounded.ok());
  TORCHDEX_FUZZ_CHECK(bounded->anchors.size() <= 2);
  TORCHDEX_FUZZ_CHECK(bounded->anchors.size() <= page->anchors.size());
  for (std::size_t i = 0; i < bounded->anchors.size(); ++i) {
    TORCHDEX_FUZZ_CHECK(bounded->anchors[i].url == page->anchors[i].url);
  }
  TORCHDEX_FUZZ_CHECK(page->anchors.size() <= 2 || bounded->more_anchors);
  return 0;
}
