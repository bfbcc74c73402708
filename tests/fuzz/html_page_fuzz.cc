// Any bytes as an HTML simple-index page: ParseHtmlPage must not crash, and what it extracts
// keeps its documented shape: anchor URLs carry no fragment, hashes are lower case, anchor
// text is trimmed. The page URL is fixed; url_fuzz covers resolution on its own.
#include <cctype>
#include <string>

#include "index/page.h"
#include "index/url.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

bool HasUpper(const std::string& s) {
  for (unsigned char c : s) {
    if (c >= 'A' && c <= 'Z') return true;
  }
  return false;
}

bool IsTrimmed(const std::string& s) {
  return s.empty() || (!std::isspace(static_cast<unsigned char>(s.front())) &&
                       !std::isspace(static_cast<unsigned char>(s.back())));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace torchdex::index;
  auto page = ParseHtmlPage(FuzzInput(data, size), "https://download.pytorch.org/whl/cu128/torch/");
  if (!page) return 0;
  TORCHDEX_FUZZ_CHECK(page->shape != PageShape::kJson);
  for (const Anchor& anchor : page->anchors) {
    TORCHDEX_FUZZ_CHECK(anchor.url.find('#') == std::string::npos);
    TORCHDEX_FUZZ_CHECK(!HasUpper(anchor.sha256));
    TORCHDEX_FUZZ_CHECK(!HasUpper(anchor.metadata_sha256));
    TORCHDEX_FUZZ_CHECK(IsTrimmed(anchor.text));
    TORCHDEX_FUZZ_CHECK(anchor.metadata_sha256.empty() || anchor.has_metadata);
  }
  return 0;
}
