// Simple-repository pages (PEP 503 HTML, PEP 691 JSON) as the PyTorch index serves them:
// generated pages, PyPI copies and NVIDIA copies, with their quirks (see
// ../shared/research/index-format.md §2 and §6). Pure: bytes in, anchors out.
#ifndef TORCHDEX_INDEX_PAGE_H_
#define TORCHDEX_INDEX_PAGE_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.h"

namespace torchdex::index {

struct Anchor {
  std::string url;   // resolved against the page, without the fragment
  std::string text;  // the anchor text, whitespace-trimmed
  std::string sha256;  // from a well-formed sha256 in the link (64 hex digits), lowercase; or ""
  /// The link's hash as pip reads it (pip's LinkHash: the first "[#&](sha512|sha384|sha256|
  /// sha224|sha1|md5)=([^&]*)" in the URL), as "name=value" with the value lowercase: what pip
  /// would check a download against when it installs from this page; "" when none.
  std::string hash;
  bool hash_malformed = false;  // `hash`'s value is not hex of its algorithm's length
  std::string metadata_sha256;  // PEP 658/714 "sha256=<hex>"; empty when absent
  bool has_metadata = false;    // data-core-metadata / data-dist-info-metadata present
  std::string requires_python;  // entities decoded ("&gt;=3.10" -> ">=3.10")
  std::optional<std::string> yanked;  // data-yanked: the reason ("" when given none)
  std::string upload_time;            // data-upload-time, as written

  friend bool operator==(const Anchor&, const Anchor&) = default;
};

enum class PageShape : std::uint8_t {
  kGenerated,  // PyTorch's generator: <h1>Links for x</h1>, <br/>, TIMESTAMP comment
  kPypiCopy,   // pypi.org's page: pypi:repository-version meta, <br />
  kNvidiaCopy, // pypi.nvidia.com's page: <title>Package Index</title>, no <h1>, <br>
  kJson,       // PEP 691
  kOther,
};
std::string_view PageShapeName(PageShape shape);

struct IndexPage {
  PageShape shape = PageShape::kOther;
  std::string heading;             // the name in "<h1>Links for x</h1>", empty when none
  std::string repository_version;  // pypi:repository-version / meta.api-version
  std::vector<Anchor> anchors;     // in page order
  /// The page holds more anchors than the `max_anchors` it was parsed with; `anchors` holds
  /// the first max_anchors, and the rest was not read (so a page of a million links costs
  /// max_anchors of memory, not a million).
  bool more_anchors = false;

  friend bool operator==(const IndexPage&, const IndexPage&) = default;
};

/// No bound on the anchors of a page.
inline constexpr std::size_t kAnyNumberOfAnchors = static_cast<std::size_t>(-1);

/// Parses an HTML simple-index page. Lenient with markup (<br>, <br/>, <br />, scripts,
/// comments, missing <h1>), exact with what it extracts; anchors inside <script> are text,
/// not links. Fails only on input that is not HTML at all: binary data (NUL or other C0 control
/// bytes than tab, newline, form feed and carriage return).
core::Expected<IndexPage> ParseHtmlPage(std::string_view html, std::string_view page_url,
                                        std::size_t max_anchors = kAnyNumberOfAnchors);

/// ParseHtmlPage's two halves. ScanHtmlPage is a hand-written scanner of what a PEP 503 page
/// holds (DOCTYPE, comments, html/head/body, meta, title, h1, a and br; the entities &amp; &lt;
/// &gt; &quot; &apos; and numeric references; quoted and unquoted attributes, any case), which
/// gives the answer libxml2 would give or, for anything it does not handle (other tags, other
/// entities, bytes outside printable ASCII, markup that libxml2 would repair), nullopt: it
/// defers. ParseHtmlPageWithLibxml2 is the libxml2 HTML parser (SAX, no DOM) that ParseHtmlPage
/// falls back to; html_scan_fuzz holds the two to the same result wherever the scanner answers.
std::optional<IndexPage> ScanHtmlPage(std::string_view html, std::string_view page_url,
                                      std::size_t max_anchors = kAnyNumberOfAnchors);
core::Expected<IndexPage> ParseHtmlPageWithLibxml2(std::string_view html,
                                                   std::string_view page_url,
                                                   std::size_t max_anchors = kAnyNumberOfAnchors);

/// Parses a PEP 691 JSON page (application/vnd.pypi.simple.v1+json), project or list page.
core::Expected<IndexPage> ParseJsonPage(std::string_view json, std::string_view page_url,
                                        std::size_t max_anchors = kAnyNumberOfAnchors);

/// Picks the parser by content type ("application/vnd.pypi.simple.v1+json" is JSON; text/html,
/// application/vnd.pypi.simple.v1+html, application/xhtml+xml and none at all are HTML); any
/// other type is an error naming it, as pip skips such pages.
core::Expected<IndexPage> ParsePage(std::string_view body, std::string_view content_type,
                                    std::string_view page_url,
                                    std::size_t max_anchors = kAnyNumberOfAnchors);

}  // namespace torchdex::index

#endif  // TORCHDEX_INDEX_PAGE_H_
