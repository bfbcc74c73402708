// Any bytes as an HTML simple-index page: ParseHtmlPage must not crash, and what it extracts
// keeps its documented shape: anchor URLs carry no fragment, hashes are lower case, anchor
// text is trimmed. The page URL is fixed; url_fuzz covers resolution on its own.
#include <algorithm>
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

bool IsSha256(std::string_view text) {
  return text.size() == 64 && text.find_first_not_of("0123456789abcdef") == std::string_view::npos;
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
    // A sha256 is 64 hex digits or nothing, and is the link's hash as pip reads it (issue 13
    // item 25: "#sha256=zzzz" was shown as a sha256).
    TORCHDEX_FUZZ_CHECK(anchor.sha256.empty() || IsSha256(anchor.sha256));
    TORCHDEX_FUZZ_CHECK(anchor.sha256.empty() || anchor.hash == "sha256=" + anchor.sha256);
    TORCHDEX_FUZZ_CHECK(!anchor.hash_malformed || anchor.sha256.empty());
  }
  // Bounded to 2 anchors (the crawler's --max-links): a prefix of these, and says so.
  auto bounded =
      ParseHtmlPage(FuzzInput(data, size), "https://download.pytorch.org/whl/cu128/torch/", 2);
  TORCHDEX_FUZZ_CHECK(bounded.ok());
  TORCHDEX_FUZZ_CHECK(bounded->anchors.size() == std::min<std::size_t>(2, page->anchors.size()));
  for (std::size_t i = 0; i < bounded->anchors.size(); ++i) {
    TORCHDEX_FUZZ_CHECK(bounded->anchors[i].url == page->anchors[i].url);
  }
  TORCHDEX_FUZZ_CHECK(bounded->more_anchors == (page->anchors.size() > 2));
  return 0;
}
