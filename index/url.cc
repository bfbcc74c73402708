#include "index/url.h"

#include "core/url.h"

#include <cctype>
#include <string>
#include <vector>

namespace torchdex::index {
namespace {

bool IsSchemeChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '+' ||
         c == '-' || c == '.';
}

// Length of "scheme:" at the start of `s`, or 0.
std::size_t SchemeLength(std::string_view s) {
  const std::size_t colon = s.find(':');
  if (colon == std::string_view::npos || colon == 0) return 0;
  // RFC 3986 §3.1: a scheme starts with a letter, so "2.5:x" is a relative path, not a scheme.
  const char first = s[0];
  if (!((first >= 'a' && first <= 'z') || (first >= 'A' && first <= 'Z'))) return 0;
  for (std::size_t i = 0; i < colon; ++i) {
    if (!IsSchemeChar(s[i])) return 0;
  }
  return colon + 1;
}

// WHATWG URL "special schemes": their authority also ends at a backslash.
// Compared in place, case-insensitively: every UrlOrigin asks this, several times an anchor.
bool IsSpecialScheme(std::string_view scheme) {
  auto is = [scheme](std::string_view name) {
    if (scheme.size() != name.size()) return false;
    for (std::size_t i = 0; i < name.size(); ++i) {
      const char c = scheme[i];
      if ((c >= 'A' && c <= 'Z' ? static_cast<char>(c + ('a' - 'A')) : c) != name[i]) return false;
    }
    return true;
  };
  return is("http") || is("https") || is("ws") || is("wss") || is("ftp") || is("file");
}

// RFC 3986 §5.2.4: removes "." and ".." segments.
std::string RemoveDotSegments(std::string_view path) {
  // No segment is "." or ".." (none starts with a dot): the path is its own result, as the
  // loop below would rebuild it. Nearly every href of an index page.
  if (!path.starts_with('.') && path.find("/.") == std::string_view::npos) return std::string(path);
  std::vector<std::string_view> out;
  std::size_t pos = 0;
  const bool absolute = !path.empty() && path.front() == '/';
  if (absolute) pos = 1;
  bool trailing_slash = false;
  while (pos <= path.size()) {
    std::size_t slash = path.find('/', pos);
    if (slash == std::string_view::npos) slash = path.size();
    const std::string_view segment = path.substr(pos, slash - pos);
    const bool last = slash == path.size();
    if (segment == ".") {
      trailing_slash = last;
    } else if (segment == "..") {
      if (!out.empty()) out.pop_back();
      trailing_slash = last;
    } else {
      out.push_back(segment);
      trailing_slash = false;
    }
    pos = slash + 1;
  }
  std::string result = absolute ? "/" : "";
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (i != 0) result.push_back('/');
    result.append(out[i]);
  }
  if (trailing_slash && (result.empty() || result.back() != '/')) result.push_back('/');
  return result;
}

}  // namespace

std::string_view UrlOrigin(std::string_view url) {
  const std::size_t scheme = SchemeLength(url);
  if (scheme == 0 || url.substr(scheme, 2) != "//") return {};
  const std::size_t end =
      FindAnyOf(url, IsSpecialScheme(url.substr(0, scheme - 1)) ? "/\\?#" : "/?#", scheme + 2);
  return url.substr(0, end);
}

bool HasAmbiguousAuthority(std::string_view url) {
  const std::size_t scheme = SchemeLength(url);
  if (scheme == 0 || url.substr(scheme, 2) != "//") return false;
  const std::size_t end = FindAnyOf(url, "/?#", scheme + 2);
  return url.substr(scheme + 2, end == std::string_view::npos ? end : end - scheme - 2)
             .find('\\') != std::string_view::npos;
}

std::string_view UrlHost(std::string_view url) {
  const std::string_view origin = UrlOrigin(url);
  if (origin.empty()) return {};
  std::string_view host = origin.substr(origin.find("//") + 2);
  if (const std::size_t at = host.rfind('@'); at != std::string_view::npos) {
    host.remove_prefix(at + 1);
  }
  return host;
}

std::string_view UrlPath(std::string_view url) {
  std::string_view rest = url.substr(UrlOrigin(url).size());
  if (const std::size_t end = FindAnyOf(rest, "?#"); end != std::string_view::npos) {
    rest = rest.substr(0, end);
  }
  return rest;
}

std::string_view UrlFragment(std::string_view url) {
  const std::size_t hash = url.find('#');
  return hash == std::string_view::npos ? std::string_view() : url.substr(hash + 1);
}

std::string_view StripFragment(std::string_view url) { return url.substr(0, url.find('#')); }

std::string ResolveUrl(std::string_view base, std::string_view href) {
  if (SchemeLength(href) != 0) return std::string(href);
  const std::string_view base_no_fragment = StripFragment(base);
  const std::size_t scheme = SchemeLength(base_no_fragment);
  if (href.starts_with("//")) return std::string(base_no_fragment.substr(0, scheme)).append(href);

  const std::string_view origin = UrlOrigin(base_no_fragment);
  // Split the reference into path and the query/fragment tail.
  const std::size_t tail_at = FindAnyOf(href, "?#");
  const std::string_view ref_path = href.substr(0, tail_at);
  const std::string_view ref_tail =
      tail_at == std::string_view::npos ? std::string_view() : href.substr(tail_at);

  std::string path;
  if (ref_path.empty()) {
    path = std::string(UrlPath(base_no_fragment));
    if (!ref_tail.empty() && ref_tail.front() == '#') {
      // Same document: keep the base's query.
      const std::string_view base_rest = base_no_fragment.substr(origin.size());
      return std::string(origin).append(base_rest).append(ref_tail);
    }
  } else if (ref_path.front() == '/') {
    path = RemoveDotSegments(ref_path);
  } else {
    std::string_view base_path = UrlPath(base_no_fragment);
    if (base_path.empty()) base_path = "/";
    std::string merged(base_path.substr(0, base_path.rfind('/') + 1));
    merged.append(ref_path);
    path = RemoveDotSegments(merged);
  }
  return std::string(origin).append(path).append(ref_tail);
}

std::string UrlFilename(std::string_view url) {
  const std::string_view path = UrlPath(url);
  return core::PercentDecode(path.substr(path.rfind('/') + 1));
}

}  // namespace torchdex::index
