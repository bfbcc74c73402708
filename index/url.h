// URLs as the index uses them: resolving an href against its page, and the parts a crawler
// keys on (host, path). Enough of RFC 3986 for simple-index pages, no more.
#ifndef TORCHDEX_INDEX_URL_H_
#define TORCHDEX_INDEX_URL_H_

#include <cstring>
#include <string>
#include <string_view>

namespace torchdex::index {

/// Resolves `href` against `base` (RFC 3986 §5.2): absolute ("https://h/x"), scheme-relative
/// ("//h/x"), root-relative ("/whl/x"), and relative ("x", "../x") references. Dot segments
/// are removed; the fragment of `href` is kept.
std::string ResolveUrl(std::string_view base, std::string_view href);

/// "https://host:1/a/b?q#f" -> "https://host:1"; empty for a reference without a scheme.
/// For http, https and the other special schemes of the WHATWG URL standard the authority ends
/// at the first '/', '\\', '?' or '#', as browsers and urllib3 (so pip) read it:
/// "http://0.0.0.0:1\\@127.0.0.1:1/" is on 0.0.0.0, not 127.0.0.1.
std::string_view UrlOrigin(std::string_view url);
/// "https://user@host:1/a/b?q#f" -> "host:1": the authority after its last '@'.
std::string_view UrlHost(std::string_view url);
/// True when parsers disagree on the host of `url`: a '\\' inside the authority as RFC 3986
/// reads it (up to the first '/', '?' or '#'). libcurl and Python's urlsplit take the host after
/// the '@' of "http://0.0.0.0:1\\@127.0.0.1:1/", WHATWG and urllib3 the one before the '\\'.
bool HasAmbiguousAuthority(std::string_view url);
/// "https://host/a/b?q#f" -> "/a/b" (no query, no fragment).
std::string_view UrlPath(std::string_view url);
/// The fragment without '#', empty when none.
std::string_view UrlFragment(std::string_view url);
/// The URL without its fragment.
std::string_view StripFragment(std::string_view url);

/// The first position at or after `from` of any byte of `set`, or npos: string_view's
/// find_first_of, which calls memchr over `set` once for every byte of `s` (a tenth of a
/// crawl's own time went there). Here memchr runs over `s` once for each byte of `set` (a URL's
/// separators: two to four), each search stopping where the one before found its byte.
inline std::size_t FindAnyOf(std::string_view s, std::string_view set, std::size_t from = 0) {
  if (from >= s.size()) return std::string_view::npos;
  const char* const begin = s.data() + from;
  std::size_t limit = s.size() - from;
  const char* found = nullptr;
  for (const char c : set) {
    if (const void* at = std::memchr(begin, static_cast<unsigned char>(c), limit)) {
      found = static_cast<const char*>(at);
      limit = static_cast<std::size_t>(found - begin);
    }
  }
  return found == nullptr ? std::string_view::npos : static_cast<std::size_t>(found - s.data());
}

/// The file a URL names: its last path segment, percent-decoded ("torch-2.5.1+cu124-....whl").
std::string UrlFilename(std::string_view url);

}  // namespace torchdex::index

#endif  // TORCHDEX_INDEX_URL_H_
