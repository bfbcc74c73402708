// Differential: any bytes as an HTML simple-index page, read by the hand-written scanner
// (ScanHtmlPage) and by libxml2 (ParseHtmlPageWithLibxml2). Wherever the scanner answers
// rather than defers, its page must be libxml2's, field for field, unbounded and bounded to 2
// anchors (the crawler's --max-links); and ParseHtmlPage, which tries the scanner first, must
// give libxml2's answer on every input. scripts/fuzz seeds it with the real pages of
// tests/fixtures/pytorch-index as well as tests/fuzz/corpus/html_scan/.
#include <string>

#include "index/page.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace torchdex::index;
  const std::string_view html = FuzzInput(data, size);
  constexpr std::string_view kUrl = "https://download.pytorch.org/whl/cu128/torch/";
  for (const std::size_t bound : {kAnyNumberOfAnchors, std::size_t{2}}) {
    const auto reference = ParseHtmlPageWithLibxml2(html, kUrl, bound);
    const auto scanned = ScanHtmlPage(html, kUrl, bound);
    if (scanned) {
      TORCHDEX_FUZZ_CHECK(reference.ok());
      TORCHDEX_FUZZ_CHECK(*scanned == *reference);
    }
    const auto parsed = ParseHtmlPage(html, kUrl, bound);
    TORCHDEX_FUZZ_CHECK(parsed.ok() == reference.ok());
    if (parsed.ok()) TORCHDEX_FUZZ_CHECK(*parsed == *reference);
  }
  return 0;
}
