// "base\nhref": ResolveUrl must not crash. When the base has an origin and the reference is
// relative (no scheme, not "//host"), the result keeps the base's origin and its path has no
// "." or ".." segment left. The accessors return parts of their input; PercentDecode never
// grows its input.
#include <cctype>
#include <string>
#include <string_view>

#include "core/url.h"
#include "index/url.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

bool HasDotSegment(std::string_view path) {
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    const std::string_view segment = path.substr(start, end - start);
    if (segment == "." || segment == "..") return true;
    start = end + 1;
  }
  return false;
}

bool IsPartOf(std::string_view part, std::string_view whole) {
  return part.empty() ||
         (part.data() >= whole.data() && part.data() + part.size() <= whole.data() + whole.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace torchdex::index;
  const std::string_view input = FuzzInput(data, size);
  const std::size_t newline = input.find('\n');
  const std::string_view base = input.substr(0, newline);
  const std::string_view href =
      newline == std::string_view::npos ? std::string_view() : input.substr(newline + 1);

  for (std::string_view url : {base, href}) {
    TORCHDEX_FUZZ_CHECK(IsPartOf(UrlOrigin(url), url));
    TORCHDEX_FUZZ_CHECK(IsPartOf(UrlHost(url), url));
    TORCHDEX_FUZZ_CHECK(IsPartOf(UrlPath(url), url));
    TORCHDEX_FUZZ_CHECK(IsPartOf(UrlFragment(url), url));
    TORCHDEX_FUZZ_CHECK(url.starts_with(StripFragment(url)));
    TORCHDEX_FUZZ_CHECK(torchdex::core::PercentDecode(url).size() <= url.size());
    TORCHDEX_FUZZ_CHECK(UrlFilename(url).size() <= url.size());
    // FindAnyOf is string_view::find_first_of, from any start.
    for (std::string_view set : {"/?#", "/\\?#", "#&", ""}) {
      for (std::size_t from : {std::size_t{0}, std::size_t{1}, url.size() / 2, url.size() + 1}) {
        TORCHDEX_FUZZ_CHECK(FindAnyOf(url, set, from) == url.find_first_of(set, from));
      }
    }
  }

  const std::string resolved = ResolveUrl(base, href);
  const std::string_view origin = UrlOrigin(StripFragment(base));
  // Relative: no scheme (a letter, then letters, digits, "+-." up to a ':') and no "//host".
  const std::size_t colon = href.find(':');
  bool has_scheme = colon != std::string_view::npos && colon > 0 &&
                    std::isalpha(static_cast<unsigned char>(href[0]));
  for (std::size_t i = 0; has_scheme && i < colon; ++i) {
    const unsigned char c = static_cast<unsigned char>(href[i]);
    has_scheme = (c < 0x80 && std::isalnum(c)) || c == '+' || c == '-' || c == '.';
  }
  const bool relative = !has_scheme && !href.starts_with("//");
  // A base whose authority holds a backslash is refused wherever a URL is used (parsers
  // disagree on its host: HasAmbiguousAuthority), so what it resolves to is not checked.
  if (!origin.empty() && relative && !HasAmbiguousAuthority(base)) {
    TORCHDEX_FUZZ_CHECK(UrlOrigin(resolved) == origin);
    if (!href.empty() && href.front() != '?' && href.front() != '#') {
      TORCHDEX_FUZZ_CHECK(!HasDotSegment(UrlPath(resolved)));
    }
    // Resolving the result again changes nothing: it is absolute now.
    TORCHDEX_FUZZ_CHECK(ResolveUrl(base, resolved) == resolved);
  }
  return 0;
}
