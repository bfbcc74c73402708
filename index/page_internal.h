// What index/page.cc and index/html_scan.cc share: the anchor's URL and hash, and how a parsed
// HTML page is finished (heading, shape). Not part of the index library's interface.
#ifndef TORCHDEX_INDEX_PAGE_INTERNAL_H_
#define TORCHDEX_INDEX_PAGE_INTERNAL_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "index/page.h"

namespace torchdex::index::detail {

std::string_view Trim(std::string_view s);
void TrimInPlace(std::string& s);
// "sha256=<hex>" -> "<hex>" lowercased; "" for anything else.
std::string Sha256FromHashSpec(std::string_view spec);
// The anchor's url (resolved against the page, no fragment), sha256, hash and hash_malformed.
void SetUrlAndHash(Anchor& anchor, std::string_view page_url, std::string_view href);
// Trims every anchor's text, reads the heading out of the <h1> text and tells the page's shape.
void FinishHtmlPage(IndexPage& page, std::string_view html, std::string_view raw_h1,
                    std::string_view raw_title);

// Where the last ScanHtmlPage of this thread deferred: the scanner's source line (0 when it
// answered) and the offset in the page; for tests and benchmarks that ask why.
extern thread_local int scan_deferred_line;
extern thread_local std::size_t scan_deferred_offset;

}  // namespace torchdex::index::detail

#endif  // TORCHDEX_INDEX_PAGE_INTERNAL_H_
