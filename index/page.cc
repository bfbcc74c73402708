#include "index/page.h"

#include <libxml/HTMLparser.h>
#include <libxml/parser.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <nlohmann/json.hpp>
#include <utility>

#include "index/lazy_libs.h"
#include "index/page_internal.h"
#include "index/url.h"

namespace torchdex::index {
namespace detail {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Trims `s` in place: no new string (the parser trims every anchor's text).
void TrimInPlace(std::string& s) {
  const std::string_view trimmed = Trim(s);
  if (trimmed.size() == s.size()) return;
  const std::size_t start = static_cast<std::size_t>(trimmed.data() - s.data());
  s.erase(start + trimmed.size());
  s.erase(0, start);
}

}  // namespace detail
namespace {

using detail::Trim;
using detail::TrimInPlace;

// ASCII only, as std::tolower in the "C" locale that torchdex runs in (no setlocale), without a
// call per character: every anchor's hashes go through it.
char LowerAscii(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + ('a' - 'A')) : c; }

std::string Lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = LowerAscii(c);
  return out;
}

bool StartsWithLowercase(std::string_view s, std::string_view lower_prefix) {
  if (s.size() < lower_prefix.size()) return false;
  for (std::size_t i = 0; i < lower_prefix.size(); ++i) {
    if (LowerAscii(s[i]) != lower_prefix[i]) return false;
  }
  return true;
}

}  // namespace
namespace detail {

// "sha256=<hex>" -> "<hex>" lowercased; other algorithms are not used by this index.
std::string Sha256FromHashSpec(std::string_view spec) {
  constexpr std::string_view kPrefix = "sha256=";
  if (spec.size() > kPrefix.size() && StartsWithLowercase(spec, kPrefix)) {
    return Lowercase(spec.substr(kPrefix.size()));
  }
  return {};
}

}  // namespace detail
namespace {

// A project name as one relative path segment: valid names ([A-Za-z0-9._-]) are unchanged;
// anything else ('#', '?', '/', '%', spaces, bytes >= 0x80) is percent-encoded, so a hostile
// name in a JSON list page cannot add a fragment, a query or path segments to the project's URL
// (found by json_page_fuzz). "." and ".." are encoded too, so they stay names.
std::string EscapePathSegment(std::string_view name) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  const bool dots_only = !name.empty() && name.find_first_not_of('.') == std::string_view::npos &&
                         name.size() <= 2;
  std::string out;
  for (unsigned char c : name) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '-' || c == '_' || c == '~' || (c == '.' && !dots_only);
    if (plain) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
    }
  }
  return out;
}

// pip's supported link hashes (pip/_internal/models/link.py, _SUPPORTED_HASHES) and the length
// of each in hex digits.
constexpr std::pair<std::string_view, std::size_t> kLinkHashes[] = {
    {"sha512", 128}, {"sha384", 96}, {"sha256", 64}, {"sha224", 56}, {"sha1", 40}, {"md5", 32}};

bool IsHex(std::string_view text) {
  for (const char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) return false;
  }
  return true;
}

// The first "[#&]<name>=<value up to '&'>" in `url` as pip's regex finds it: names are matched
// as written (lowercase), the leftmost match wins, and the value may be anything.
void ReadLinkHash(std::string_view url, Anchor& anchor) {
  for (std::size_t at = FindAnyOf(url, "#&"); at != std::string_view::npos;
       at = FindAnyOf(url, "#&", at + 1)) {
    const std::string_view rest = url.substr(at + 1);
    for (const auto& [name, length] : kLinkHashes) {
      if (!rest.starts_with(name) || rest.substr(name.size(), 1) != "=") continue;
      const std::string_view value_and_more = rest.substr(name.size() + 1);
      const std::string_view raw = value_and_more.substr(0, value_and_more.find('&'));
      anchor.hash.resize(name.size() + 1 + raw.size());
      char* out = anchor.hash.data();
      out = std::copy(name.begin(), name.end(), out);
      *out++ = '=';
      for (const char c : raw) *out++ = LowerAscii(c);
      const std::string_view value = std::string_view(anchor.hash).substr(name.size() + 1);
      anchor.hash_malformed = value.size() != length || !IsHex(value);
      if (name == "sha256" && !anchor.hash_malformed) anchor.sha256 = value;
      return;
    }
  }
}

}  // namespace
namespace detail {

void SetUrlAndHash(Anchor& anchor, std::string_view page_url, std::string_view href) {
  std::string resolved = ResolveUrl(page_url, Trim(href));
  ReadLinkHash(resolved, anchor);
  // Cut where the fragment starts, in place: no second allocation an anchor. The crawler copies
  // what it keeps of an anchor into its page's rows, so the spare capacity goes with the page.
  resolved.resize(StripFragment(resolved).size());
  anchor.url = std::move(resolved);
}

void FinishHtmlPage(IndexPage& page, std::string_view html, std::string_view raw_h1,
                    std::string_view raw_title) {
  // An anchor the parser closed implicitly (a new <a> inside it, the end of a malformed page)
  // got no end-element callback; trim those too (found by html_page_fuzz).
  for (Anchor& anchor : page.anchors) TrimInPlace(anchor.text);
  const std::string_view h1 = Trim(raw_h1);
  constexpr std::string_view kLinksFor = "Links for ";
  if (h1.starts_with(kLinksFor)) page.heading = std::string(h1.substr(kLinksFor.size()));
  else page.heading = std::string(h1);

  if (!page.repository_version.empty()) {
    page.shape = PageShape::kPypiCopy;
  } else if (Trim(raw_title) == "Package Index" && h1.empty()) {
    page.shape = PageShape::kNvidiaCopy;
  } else if (html.find("<!--TIMESTAMP") != std::string_view::npos || !h1.empty() ||
             html.find("<br/>") != std::string_view::npos) {
    page.shape = PageShape::kGenerated;
  }
}

}  // namespace detail
namespace {

using detail::SetUrlAndHash;
using detail::Sha256FromHashSpec;

// SAX state: libxml2 calls these while it reads, so no tree of 300,000 nodes is built.
struct SaxState {
  std::string_view page_url;
  std::size_t max_anchors = kAnyNumberOfAnchors;
  IndexPage page;
  bool in_anchor = false;
  bool in_h1 = false;
  bool in_title = false;
  std::string title;
  std::string h1;
  bool saw_br_space_slash = false;  // "<br />" is PyPI's spelling; tells shapes apart
};

const char* Attr(const xmlChar** attrs, const char* name) {
  if (attrs == nullptr) return nullptr;
  for (const xmlChar** a = attrs; a[0] != nullptr; a += 2) {
    if (std::strcmp(reinterpret_cast<const char*>(a[0]), name) == 0) {
      return a[1] == nullptr ? "" : reinterpret_cast<const char*>(a[1]);
    }
  }
  return nullptr;
}

void OnStartElement(void* ctx, const xmlChar* raw_name, const xmlChar** attrs) {
  auto* state = static_cast<SaxState*>(ctx);
  const char* name = reinterpret_cast<const char*>(raw_name);
  if (std::strcmp(name, "a") == 0) {
    const char* href = Attr(attrs, "href");
    if (href == nullptr) return;  // an anchor without href is not a link
    if (state->page.anchors.size() >= state->max_anchors) {
      state->page.more_anchors = true;
      return;
    }
    Anchor anchor;
    SetUrlAndHash(anchor, state->page_url, href);
    const char* core = Attr(attrs, "data-core-metadata");
    const char* dist = Attr(attrs, "data-dist-info-metadata");
    if (core != nullptr || dist != nullptr) {
      anchor.has_metadata = true;
      anchor.metadata_sha256 = Sha256FromHashSpec(core != nullptr ? core : dist);
    }
    if (const char* rp = Attr(attrs, "data-requires-python")) {
      anchor.requires_python = std::string(Trim(rp));
    }
    if (const char* yanked = Attr(attrs, "data-yanked")) anchor.yanked = yanked;
    if (const char* upload = Attr(attrs, "data-upload-time")) anchor.upload_time = upload;
    state->page.anchors.push_back(std::move(anchor));
    state->in_anchor = true;
  } else if (std::strcmp(name, "h1") == 0) {
    state->in_h1 = true;
  } else if (std::strcmp(name, "title") == 0) {
    state->in_title = true;
  } else if (std::strcmp(name, "meta") == 0) {
    const char* meta_name = Attr(attrs, "name");
    const char* content = Attr(attrs, "content");
    if (meta_name != nullptr && content != nullptr &&
        std::strcmp(meta_name, "pypi:repository-version") == 0) {
      state->page.repository_version = content;
    }
  }
}

void OnEndElement(void* ctx, const xmlChar* raw_name) {
  auto* state = static_cast<SaxState*>(ctx);
  const char* name = reinterpret_cast<const char*>(raw_name);
  if (std::strcmp(name, "a") == 0 && state->in_anchor) {
    state->in_anchor = false;
    TrimInPlace(state->page.anchors.back().text);
  } else if (std::strcmp(name, "h1") == 0) {
    state->in_h1 = false;
  } else if (std::strcmp(name, "title") == 0) {
    state->in_title = false;
  }
}

void OnCharacters(void* ctx, const xmlChar* text, int length) {
  auto* state = static_cast<SaxState*>(ctx);
  const std::string_view chunk(reinterpret_cast<const char*>(text),
                               static_cast<std::size_t>(length));
  if (state->in_anchor) {
    state->page.anchors.back().text.append(chunk);
  } else if (state->in_h1) {
    state->h1.append(chunk);
  } else if (state->in_title) {
    state->title.append(chunk);
  }
}

void IgnoreMessage(void*, const char*, ...) {}

bool LooksBinary(std::string_view body) {
  // HTML never holds NUL or other C0 control bytes but tab, newline, form feed and carriage
  // return (HTML: "control characters" are parse errors); a page that does is not a page (a
  // wheel served by mistake, garbage from a broken proxy). Random bytes hold one in 8.
  return std::any_of(body.begin(), body.end(), [](char c) {
    const auto b = static_cast<unsigned char>(c);
    return (b < 0x20 && b != '\t' && b != '\n' && b != '\f' && b != '\r') || b == 0x7f;
  });
}

// The media type of a Content-Type header, lower case: "text/html; charset=utf-8" -> "text/html".
std::string MediaType(std::string_view content_type) {
  return Lowercase(Trim(content_type.substr(0, content_type.find(';'))));
}

}  // namespace

std::string_view PageShapeName(PageShape shape) {
  switch (shape) {
    case PageShape::kGenerated:
      return "generated";
    case PageShape::kPypiCopy:
      return "pypi-copy";
    case PageShape::kNvidiaCopy:
      return "nvidia-copy";
    case PageShape::kJson:
      return "json";
    case PageShape::kOther:
      return "other";
  }
  return "other";
}

core::Expected<IndexPage> ParseHtmlPage(std::string_view html, std::string_view page_url,
                                        std::size_t max_anchors) {
  // The scanner reads the pages of the index (the few tags a PEP 503 page has) at a fraction of
  // libxml2's cost and hands anything else to libxml2, so the answer is libxml2's either way.
  // libxml2 stays what parsing needs: without it every page fails naming the package to install
  // (docs/http.md), not only the first page the scanner hands over, somewhere in a crawl.
  std::string unavailable;
  if (lazy::LoadXml(&unavailable) == nullptr) {
    return core::MakeError("cannot parse " + std::string(page_url) + ": " + unavailable);
  }
  if (std::optional<IndexPage> scanned = ScanHtmlPage(html, page_url, max_anchors)) {
    return std::move(*scanned);
  }
  return ParseHtmlPageWithLibxml2(html, page_url, max_anchors);
}

core::Expected<IndexPage> ParseHtmlPageWithLibxml2(std::string_view html,
                                                   std::string_view page_url,
                                                   std::size_t max_anchors) {
  if (LooksBinary(html)) {
    return core::MakeError("page " + std::string(page_url) +
                           " is not HTML: it holds binary data (NUL or other control bytes)");
  }
  if (html.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    return core::MakeError("page " + std::string(page_url) + " is too large to parse");
  }
  SaxState state;
  state.page_url = page_url;
  state.max_anchors = max_anchors;

  htmlSAXHandler sax;
  std::memset(&sax, 0, sizeof(sax));
  sax.startElement = OnStartElement;
  sax.endElement = OnEndElement;
  sax.characters = OnCharacters;
  sax.warning = IgnoreMessage;
  sax.error = IgnoreMessage;

  std::string unavailable;
  const lazy::Xml* xml = lazy::LoadXml(&unavailable);
  if (xml == nullptr) return core::MakeError("cannot parse " + std::string(page_url) + ": " + unavailable);
  htmlParserCtxtPtr ctxt =
      xml->create_push_parser(&sax, &state, nullptr, 0, nullptr, XML_CHAR_ENCODING_UTF8);
  if (ctxt == nullptr) return core::MakeError("out of memory parsing " + std::string(page_url));
  xml->use_options(ctxt, HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING |
                               HTML_PARSE_NONET | HTML_PARSE_NOBLANKS);
  // Feed in chunks: the push parser takes an int length.
  constexpr std::size_t kChunk = 1 << 20;
  // Past the anchor bound the rest of the page is not read.
  for (std::size_t offset = 0; offset < html.size() && !state.page.more_anchors; offset += kChunk) {
    const std::size_t n = std::min(kChunk, html.size() - offset);
    xml->parse_chunk(ctxt, html.data() + offset, static_cast<int>(n), 0);
  }
  xml->parse_chunk(ctxt, nullptr, 0, 1);
  xml->free_parser(ctxt);

  IndexPage page = std::move(state.page);
  detail::FinishHtmlPage(page, html, state.h1, state.title);
  return page;
}

namespace {

// pip's link hashes are {**hashes, **fragment}: the dictionary's name comes first, with the
// fragment's value when it names the same one. The dictionary's order is lost here, so sha256 is
// preferred, then the strongest.
void ReadJsonHashes(const nlohmann::json& hashes, Anchor& anchor) {
  for (const auto& [name, length] : kLinkHashes) {
    auto h = hashes.find(std::string(name));
    if (name != "sha256" && hashes.contains("sha256")) continue;
    if (h == hashes.end() || !h->is_string()) continue;
    std::string value = Lowercase(h->get<std::string>());
    if (anchor.hash.starts_with(std::string(name) + "=")) value = anchor.hash.substr(name.size() + 1);
    anchor.hash = std::string(name) + "=" + value;
    anchor.hash_malformed = value.size() != length || !IsHex(value);
    anchor.sha256 = name == "sha256" && !anchor.hash_malformed ? value : "";
    return;
  }
}

// core-metadata (or its older name): a boolean, or an object of hashes (PEP 714).
void ReadJsonMetadata(const nlohmann::json& f, Anchor& anchor) {
  for (const char* key : {"core-metadata", "dist-info-metadata"}) {
    auto m = f.find(key);
    if (m == f.end() || anchor.has_metadata) continue;
    if (m->is_boolean()) {
      anchor.has_metadata = m->get<bool>();
    } else if (m->is_object()) {
      anchor.has_metadata = true;
      if (auto sha = m->find("sha256"); sha != m->end() && sha->is_string()) {
        anchor.metadata_sha256 = Lowercase(sha->get<std::string>());
      }
    }
  }
}

// One entry of "files"; an error names where it is.
core::Expected<Anchor> ReadJsonFile(const nlohmann::json& f, std::string_view page_url, std::size_t i) {
  auto error_at = [&](std::string_view what) {
    return core::MakeError("page " + std::string(page_url) + ": /files/" + std::to_string(i) + ": " + std::string(what));
  };
  if (!f.is_object()) return error_at("is not an object");
  auto url = f.find("url");
  auto filename = f.find("filename");
  if (url == f.end() || !url->is_string()) return error_at("has no string \"url\"");
  Anchor anchor;
  SetUrlAndHash(anchor, page_url, url->get<std::string>());
  if (filename != f.end() && filename->is_string()) anchor.text = filename->get<std::string>();
  if (auto hashes = f.find("hashes"); hashes != f.end() && hashes->is_object()) ReadJsonHashes(*hashes, anchor);
  ReadJsonMetadata(f, anchor);
  if (auto rp = f.find("requires-python"); rp != f.end() && rp->is_string()) {
    anchor.requires_python = rp->get<std::string>();
  }
  if (auto y = f.find("yanked"); y != f.end()) {
    if (y->is_string()) anchor.yanked = y->get<std::string>();
    else if (y->is_boolean() && y->get<bool>()) anchor.yanked = "";
  }
  if (auto t = f.find("upload-time"); t != f.end() && t->is_string()) anchor.upload_time = t->get<std::string>();
  return anchor;
}

// Past max_anchors entries of "files" or "projects", each entry is dropped as soon as it is
// read, so a page of a million files costs max_anchors of them in memory, not the whole
// document (issue 13 item 24). `more`: whether entries were dropped.
nlohmann::json ParseBoundedJson(std::string_view json, std::size_t max_anchors, bool& more) {
  if (max_anchors == kAnyNumberOfAnchors) return nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  bool in_list = false;
  std::string key;
  std::size_t entries = 0;
  const auto bound = [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    if (depth == 1 && event == Event::key) key = parsed.get<std::string>();
    if (depth == 1 && event == Event::array_start) in_list = key == "files" || key == "projects";
    if (depth == 1 && event == Event::array_end) in_list = false;
    const bool entry_read = event == Event::object_end || event == Event::array_end || event == Event::value;
    if (in_list && depth == 2 && entry_read && ++entries > max_anchors) {
      more = true;
      return false;
    }
    return true;
  };
  return nlohmann::json::parse(json, bound, /*allow_exceptions=*/false);
}

// A root page's "projects": each a link to its page.
void ReadJsonProjects(const nlohmann::json& projects, std::string_view page_url, std::size_t max_anchors,
                      IndexPage& page) {
  for (const nlohmann::json& p : projects) {
    if (page.anchors.size() >= max_anchors) {
      page.more_anchors = true;
      return;
    }
    if (!p.is_object()) continue;
    auto name = p.find("name");
    if (name == p.end() || !name->is_string()) continue;
    Anchor anchor;
    anchor.text = name->get<std::string>();
    anchor.url = ResolveUrl(page_url, EscapePathSegment(anchor.text) + "/");
    page.anchors.push_back(std::move(anchor));
  }
}

}  // namespace

core::Expected<IndexPage> ParseJsonPage(std::string_view json, std::string_view page_url,
                                        std::size_t max_anchors) {
  bool more = false;
  nlohmann::json doc = ParseBoundedJson(json, max_anchors, more);
  if (doc.is_discarded() || !doc.is_object()) {
    return core::MakeError("page " + std::string(page_url) + " is not a PEP 691 JSON object");
  }
  IndexPage page;
  page.more_anchors = more;
  page.shape = PageShape::kJson;
  if (auto meta = doc.find("meta"); meta != doc.end() && meta->is_object()) {
    if (auto v = meta->find("api-version"); v != meta->end() && v->is_string()) {
      page.repository_version = v->get<std::string>();
    }
  }
  if (auto name = doc.find("name"); name != doc.end() && name->is_string()) page.heading = name->get<std::string>();
  if (auto files = doc.find("files"); files != doc.end()) {
    if (!files->is_array()) return core::MakeError("page " + std::string(page_url) + ": /files is not an array");
    for (std::size_t i = 0; i < files->size(); ++i) {
      if (i >= max_anchors) {
        page.more_anchors = true;
        break;
      }
      core::Expected<Anchor> anchor = ReadJsonFile((*files)[i], page_url, i);
      if (!anchor) return anchor.error();
      page.anchors.push_back(std::move(anchor).value());
    }
  } else if (auto projects = doc.find("projects"); projects != doc.end() && projects->is_array()) {
    ReadJsonProjects(*projects, page_url, max_anchors, page);
  }
  return page;
}

core::Expected<IndexPage> ParsePage(std::string_view body, std::string_view content_type,
                                    std::string_view page_url, std::size_t max_anchors) {
  const std::string media = MediaType(content_type);
  if (media == "application/vnd.pypi.simple.v1+json") {
    return ParseJsonPage(body, page_url, max_anchors);
  }
  // What pip reads as an index page (pip's _get_simple_response), and XHTML; a server that
  // names no type is sniffed as HTML. Anything else (application/octet-stream, image/png,
  // application/json) is not a page, whatever its bytes parse as (issue 13 item 27).
  if (!media.empty() && media != "text/html" && media != "application/vnd.pypi.simple.v1+html" &&
      media != "application/xhtml+xml") {
    return core::MakeError(
        "page " + std::string(page_url) + " is not an index page: Content-Type " +
        std::string(Trim(content_type)) +
        " (pages are text/html or application/vnd.pypi.simple.v1+html or +json)");
  }
  return ParseHtmlPage(body, page_url, max_anchors);
}

}  // namespace torchdex::index
