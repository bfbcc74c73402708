#include "core/url.h"

#include <algorithm>

namespace torchdex::core {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string PercentDecode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  // The text between escapes is appended as a whole (a crawl decodes 200,000 filenames, most
  // with one escape or none).
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t percent = text.find('%', i);
    if (percent == std::string_view::npos) {
      out.append(text.substr(i));
      break;
    }
    out.append(text.substr(i, percent - i));
    i = percent;
    if (i + 2 < text.size()) {
      const int hi = HexValue(text[i + 1]);
      const int lo = HexValue(text[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out.push_back(static_cast<char>(hi * 16 + lo));
        i += 3;
        continue;
      }
    }
    out.push_back(text[i++]);
  }
  return out;
}

std::string UrlFileName(std::string_view url) {
  url = url.substr(0, url.find_first_of("?#"));
  return PercentDecode(url.substr(url.rfind('/') + 1));
}

std::string StripCredentials(std::string_view url) {
  const std::size_t scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) return std::string(url);
  const std::size_t authority = scheme_end + 3;
  const std::size_t end = std::min(url.find_first_of("/?#", authority), url.size());
  const std::size_t at = url.substr(authority, end - authority).rfind('@');
  if (at == std::string_view::npos) return std::string(url);
  std::string out(url.substr(0, authority));
  out.append(url.substr(authority + at + 1));
  return out;
}

namespace {

// Every URL of `text` with its user information hidden ("user:****", "****") or, with `strip`,
// removed along with its '@'.
std::string RewriteUserinfo(std::string_view text, bool strip) {
  std::string out;
  out.reserve(text.size());
  std::size_t at = 0;
  while (true) {
    const std::size_t scheme_end = text.find("://", at);
    if (scheme_end == std::string_view::npos) break;
    const std::size_t authority = scheme_end + 3;
    std::size_t end = authority;
    // The authority ends where the path, query or fragment starts, or the URL itself does.
    while (end < text.size() && std::string_view("/?#\\ \t\r\n\"'<>").find(text[end]) == std::string_view::npos) {
      ++end;
    }
    const std::string_view host_part = text.substr(authority, end - authority);
    const std::size_t user_end = host_part.rfind('@');
    out.append(text.substr(at, authority - at));
    if (user_end == std::string_view::npos) {
      out.append(host_part);
    } else if (strip) {
      out.append(host_part.substr(user_end + 1));
    } else {
      const std::string_view userinfo = host_part.substr(0, user_end);
      const std::size_t colon = userinfo.find(':');
      if (colon == std::string_view::npos) {
        out.append("****");
      } else {
        out.append(userinfo.substr(0, colon)).append(":****");
      }
      out.append(host_part.substr(user_end));
    }
    at = end;
  }
  out.append(text.substr(at));
  return out;
}

}  // namespace

std::string RedactCredentials(std::string_view text) { return RewriteUserinfo(text, false); }

std::string StripCredentialsInText(std::string_view text) { return RewriteUserinfo(text, true); }

}  // namespace torchdex::core
