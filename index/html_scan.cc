// ScanHtmlPage: a scanner of the HTML a PEP 503 simple page holds, which gives libxml2's answer
// (ParseHtmlPageWithLibxml2, the SAX parser of libxml2 2.9's HTMLparser.c in push mode) or
// defers. Its model of libxml2, for the elements it accepts (html, head, body, meta, title, h1,
// a, br): a stack of open elements; a start tag first closes what it closes ("a" closes "a";
// "a", "body", "br" and "h1" close "head"; "body" closes "title"), then implies "html", and
// "head" (for meta and title, before any head) or "body" (for the others, before any body or
// while neither is open); meta and br are empty; an end tag closes up to its element when no
// head, body or html stands above it (libxml2's end priorities), and ignores itself when the
// element is not open; once an end tag empties the stack, libxml2 reads nothing more. Anything
// where that model would be incomplete defers: another tag, a second html, head or body, a tag
// inside a, h1 or title, text where libxml2 would imply a <p>, a byte that is not printable
// ASCII, tab or newline, an entity other than amp, lt, gt, quot, apos or a numeric one ended by
// ';', a comment that is not ended by "-->", a start tag without '>', an <a> without href, a
// meta that names an encoding other than UTF-8. tests/fuzz/html_scan_fuzz.cc holds the two to
// the same result on every input the scanner answers.
#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "index/page.h"
#include "index/page_internal.h"

namespace torchdex::index {
namespace {

enum class Tag : std::uint8_t { kHtml, kHead, kBody, kMeta, kTitle, kH1, kA, kBr, kScript, kOther };

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\n'; }
bool IsLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + ('a' - 'A')) : c; }
// libxml2's htmlParseHTMLName: what a tag or attribute name is made of.
bool IsHtmlNameChar(char c) {
  return IsLetter(c) || IsDigit(c) || c == ':' || c == '-' || c == '_' || c == '.';
}
// libxml2's htmlParseName (entity names), ASCII.
bool IsEntityNameStart(char c) { return IsLetter(c) || c == '_' || c == ':'; }
bool IsEntityNameChar(char c) { return IsHtmlNameChar(c); }

// libxml2 copies names into a 100-byte buffer; longer ones are not modelled.
constexpr std::size_t kMaxName = 90;
// The libxml2 path feeds the page in chunks of this size and stops after the chunk in which the
// anchor bound is reached; past it, the two would differ.
constexpr std::size_t kLibxml2Chunk = 1 << 20;

bool EqualsLower(std::string_view lower_name, std::string_view raw) {
  if (lower_name.size() != raw.size()) return false;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (Lower(raw[i]) != lower_name[i]) return false;
  }
  return true;
}

Tag TagOf(std::string_view raw) {
  switch (raw.size()) {
    case 1:
      return Lower(raw[0]) == 'a' ? Tag::kA : Tag::kOther;
    case 2:
      if (EqualsLower("h1", raw)) return Tag::kH1;
      if (EqualsLower("br", raw)) return Tag::kBr;
      return Tag::kOther;
    case 4:
      if (EqualsLower("html", raw)) return Tag::kHtml;
      if (EqualsLower("head", raw)) return Tag::kHead;
      if (EqualsLower("body", raw)) return Tag::kBody;
      if (EqualsLower("meta", raw)) return Tag::kMeta;
      return Tag::kOther;
    case 5:
      return EqualsLower("title", raw) ? Tag::kTitle : Tag::kOther;
    case 6:
      return EqualsLower("script", raw) ? Tag::kScript : Tag::kOther;
    default:
      return Tag::kOther;
  }
}

// htmlStartClose, restricted to the accepted elements: does `opening` close `open`?
bool Closes(Tag opening, Tag open) {
  switch (open) {
    case Tag::kA:
      return opening == Tag::kA;
    case Tag::kHead:
      return opening == Tag::kA || opening == Tag::kBody || opening == Tag::kBr ||
             opening == Tag::kH1;
    case Tag::kTitle:
      return opening == Tag::kBody;
    default:
      return false;
  }
}

// htmlEndPriority.
int EndPriority(Tag tag) {
  switch (tag) {
    case Tag::kHead:
    case Tag::kBody:
      return 200;
    case Tag::kHtml:
      return 220;
    default:
      return 100;
  }
}

// libxml2's IS_CHAR for a character reference's value.
bool IsXmlChar(std::uint32_t c) {
  return c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) ||
         (c >= 0xE000 && c <= 0xFFFD) || (c >= 0x10000 && c <= 0x10FFFF);
}

void AppendUtf8(std::string& out, std::uint32_t c) {
  if (c < 0x80) {
    out.push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (c >> 6)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (c >> 12)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (c >> 18)));
    out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

// htmlParseCharRef: &#DDD; or &#xHHH;, `i` just after the '&', then after the ';'. False where
// libxml2's answer is not modelled (no digits, no ';', not an XML character).
bool AppendCharRef(std::string& out, std::string_view raw, std::size_t& i) {
  ++i;
  const bool hex = i < raw.size() && (raw[i] == 'x' || raw[i] == 'X');
  if (hex) ++i;
  std::uint32_t value = 0;
  std::size_t digits = 0;
  while (i < raw.size()) {
    const char c = raw[i];
    std::uint32_t d;
    if (IsDigit(c)) d = static_cast<std::uint32_t>(c - '0');
    else if (hex && c >= 'a' && c <= 'f') d = static_cast<std::uint32_t>(c - 'a' + 10);
    else if (hex && c >= 'A' && c <= 'F') d = static_cast<std::uint32_t>(c - 'A' + 10);
    else break;
    if (value < 0x110000) value = value * (hex ? 16 : 10) + d;
    ++digits;
    ++i;
  }
  if (digits == 0 || i >= raw.size() || raw[i] != ';' || !IsXmlChar(value)) return false;
  ++i;
  AppendUtf8(out, value);
  return true;
}

// XML's five predefined entities; nullopt for any other name.
std::optional<char> PredefinedEntity(std::string_view name) {
  if (name == "amp") return '&';
  if (name == "lt") return '<';
  if (name == "gt") return '>';
  if (name == "quot") return '"';
  if (name == "apos") return '\'';
  return std::nullopt;
}

// Appends `raw` (attribute value or text) to `out` with its references decoded as libxml2
// decodes them; false where libxml2's answer is not modelled. `at_end`: `raw` ends where the
// input ends (libxml2 reads a name running into the end of its input differently).
bool AppendDecoded(std::string& out, std::string_view raw, bool at_end) {
  std::size_t i = 0;
  while (i < raw.size()) {
    const std::size_t amp = raw.find('&', i);
    if (amp == std::string_view::npos) {
      out.append(raw.substr(i));
      return true;
    }
    out.append(raw.substr(i, amp - i));
    i = amp + 1;
    if (i < raw.size() && raw[i] == '#') {
      if (!AppendCharRef(out, raw, i)) return false;
      continue;
    }
    if (i >= raw.size() || !IsEntityNameStart(raw[i])) {
      out.push_back('&');  // libxml2: no name, a lone '&'
      continue;
    }
    std::size_t end = i + 1;
    while (end < raw.size() && IsEntityNameChar(raw[end])) ++end;
    if (end == raw.size() && at_end) return false;
    const std::string_view name = raw.substr(i, end - i);
    if (end < raw.size() && raw[end] == ';') {
      const std::optional<char> decoded = PredefinedEntity(name);
      if (!decoded) return false;  // one of libxml2's 250 other entities, or none: not modelled
      out.push_back(*decoded);
      i = end + 1;
      continue;
    }
    // No ';': libxml2 keeps "&name" as it is.
    out.push_back('&');
    out.append(name);
    i = end;
  }
  return true;
}

struct Attribute {
  std::string_view raw;  // as written, between the quotes
  bool present = false;
};

class Scanner {
 public:
  Scanner(std::string_view html, std::string_view page_url, std::size_t max_anchors)
      : in_(html), page_url_(page_url), max_anchors_(max_anchors) {}

  std::optional<IndexPage> Run() {
    if (!PrintableAscii()) {
      Defer(__LINE__);
      return std::nullopt;
    }
    if (!Prolog() || !Content()) {
      Defer(__LINE__);  // where a reference was not modelled (else an earlier line is kept)
      return std::nullopt;
    }
    detail::FinishHtmlPage(page_, in_, h1_, title_);
    return std::move(page_);
  }

 private:
  bool Defer(int line) {
    if (detail::scan_deferred_line == 0) {
      detail::scan_deferred_line = line;
      detail::scan_deferred_offset = pos_;
    }
    return false;
  }

  static bool PrintableByte(char ch) {
    const auto c = static_cast<unsigned char>(ch);
    return (c >= 0x20 && c < 0x7F) || c == '\t' || c == '\n';
  }
  // Every byte printable ASCII, tab or newline; eight bytes at a time, as most words hold none of
  // the others (a word with a byte below 0x20, 0x7F or above is looked at byte by byte).
  bool PrintableAscii() const {
    constexpr std::uint64_t kOnes = 0x0101010101010101ull;
    constexpr std::uint64_t kHigh = 0x8080808080808080ull;
    const char* data = in_.data();
    const std::size_t n = in_.size();
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      std::uint64_t w;
      std::memcpy(&w, data + i, 8);
      const std::uint64_t below_space = (w - kOnes * 0x20) & ~w & kHigh;
      const std::uint64_t x7f = w ^ (kOnes * 0x7F);
      const std::uint64_t del = (x7f - kOnes) & ~x7f & kHigh;
      if (((w & kHigh) | below_space | del) == 0) continue;
      for (std::size_t j = i; j < i + 8; ++j) {
        if (!PrintableByte(data[j])) return false;
      }
    }
    for (; i < n; ++i) {
      if (!PrintableByte(data[i])) return false;
    }
    return true;
  }

  bool At(std::size_t offset, char c) const {
    return pos_ + offset < in_.size() && in_[pos_ + offset] == c;
  }
  void SkipBlanks() {
    while (pos_ < in_.size() && IsBlank(in_[pos_])) ++pos_;
  }

  bool AtComment() const { return At(0, '<') && At(1, '!') && At(2, '-') && At(3, '-'); }
  // htmlParseComment: ends at the first "-->" from the fifth character on; "--!>" also ends one
  // in libxml2 and is not modelled.
  bool Comment() {
    const std::size_t body = pos_ + 4;
    const std::size_t end = in_.find("-->", body);
    if (end == std::string_view::npos) return Defer(__LINE__);
    if (in_.substr(body, end + 3 - body).find("--!") != std::string_view::npos) return Defer(__LINE__);
    pos_ = end + 3;
    return true;
  }

  bool AtDoctype() const {
    if (!At(0, '<') || !At(1, '!') || pos_ + 9 > in_.size()) return false;
    return EqualsLower("doctype", in_.substr(pos_ + 2, 7));
  }
  // "<!DOCTYPE" blanks name blanks ">": no public or system identifier.
  bool Doctype() {
    pos_ += 9;
    const std::size_t before = pos_;
    SkipBlanks();
    if (pos_ == before || pos_ >= in_.size() || !IsLetter(in_[pos_])) return Defer(__LINE__);
    while (pos_ < in_.size() && IsLetter(in_[pos_])) ++pos_;
    SkipBlanks();
    if (!At(0, '>')) return Defer(__LINE__);
    ++pos_;
    return true;
  }

  // Blanks, one DOCTYPE and comments before the content (libxml2's START, MISC and PROLOG).
  bool Prolog() {
    bool doctype = false;
    for (;;) {
      SkipBlanks();
      if (AtComment()) {
        if (!Comment()) return Defer(__LINE__);
      } else if (AtDoctype()) {
        if (doctype || !Doctype()) return Defer(__LINE__);
        doctype = true;
      } else {
        return true;
      }
    }
  }

  Tag Top() const { return depth_ == 0 ? Tag::kOther : stack_[depth_ - 1]; }
  bool Open(Tag tag) const {
    for (std::size_t i = 0; i < depth_; ++i) {
      if (stack_[i] == tag) return true;
    }
    return false;
  }
  bool Push(Tag tag) {
    if (depth_ == stack_.size()) return Defer(__LINE__);
    if (tag == Tag::kHead && html_ < 3) html_ = 3;
    if (tag == Tag::kBody && html_ < 10) html_ = 10;
    stack_[depth_++] = tag;
    return true;
  }
  // The end of the element on top: what the SAX callbacks do at its end.
  void Pop() {
    if (Top() == Tag::kA) collecting_anchor_ = false;
    --depth_;
  }
  // Elements whose text is read: their content must be text up to their own end tag.
  static bool TextOnly(Tag tag) {
    return tag == Tag::kA || tag == Tag::kH1 || tag == Tag::kTitle || tag == Tag::kScript;
  }

  // A script's content is raw text up to "</script" (libxml2 in recovery mode); nobody reads it.
  bool ScriptText() {
    for (std::size_t lt = in_.find("</", pos_); lt != std::string_view::npos;
         lt = in_.find("</", lt + 1)) {
      if (lt + 8 <= in_.size() && EqualsLower("script", in_.substr(lt + 2, 6))) {
        if (lt + 8 < in_.size() && IsHtmlNameChar(in_[lt + 8])) return Defer(__LINE__);
        pos_ = lt;
        return true;
      }
    }
    pos_ = in_.size();
    return true;
  }

  bool Content() {
    while (pos_ < in_.size()) {
      if (Top() == Tag::kScript && !(At(1, '/') && pos_ + 8 <= in_.size() &&
                                     EqualsLower("script", in_.substr(pos_ + 2, 6)))) {
        if (!ScriptText()) return false;
        continue;
      }
      if (in_[pos_] != '<') {
        if (!Text()) return Defer(__LINE__);
        continue;
      }
      if (At(1, '/')) {
        bool stop = false;
        if (!EndTag(stop)) return Defer(__LINE__);
        if (stop) return true;  // libxml2's EPILOG: nothing after it is read
      } else if (TextOnly(Top())) {
        return Defer(__LINE__);  // markup inside a, h1 or title: libxml2 repairs it
      } else if (AtComment()) {
        if (!Comment()) return Defer(__LINE__);
      } else if (pos_ + 1 < in_.size() && IsLetter(in_[pos_ + 1])) {
        if (!StartTag()) return Defer(__LINE__);
      } else {
        return Defer(__LINE__);  // "<!x", "<?", "< ", a DOCTYPE in the content, a '<' at the end
      }
    }
    return true;
  }

  bool Text() {
    const void* lt = std::memchr(in_.data() + pos_, '<', in_.size() - pos_);
    const std::size_t end =
        lt == nullptr ? in_.size()
                      : static_cast<std::size_t>(static_cast<const char*>(lt) - in_.data());
    const std::string_view text = in_.substr(pos_, end - pos_);
    pos_ = end;
    const Tag top = Top();
    if (top == Tag::kA) {
      return !collecting_anchor_ ||
             AppendDecoded(page_.anchors.back().text, text, end == in_.size());
    }
    if (top == Tag::kH1) return AppendDecoded(h1_, text, end == in_.size());
    if (top == Tag::kTitle) return AppendDecoded(title_, text, end == in_.size());
    if (top == Tag::kBody) return true;  // text of the page itself: nobody reads it
    // Outside any element, in html or in head, text that is not blank makes libxml2 imply a <p>
    // (and a body); blanks are dropped.
    for (const char c : text) {
      if (!IsBlank(c)) return Defer(__LINE__);
    }
    return true;
  }

  // `end` past a tag or attribute name starting at `start`; 0 when there is none.
  std::size_t NameEnd(std::size_t start) const {
    if (start >= in_.size()) return 0;
    const char first = in_[start];
    if (!IsLetter(first) && first != '_' && first != ':' && first != '.') return 0;
    std::size_t end = start + 1;
    while (end < in_.size() && IsHtmlNameChar(in_[end])) ++end;
    return end - start > kMaxName ? 0 : end;
  }

  bool EndTag(bool& stop) {
    const std::size_t name_end = NameEnd(pos_ + 2);
    if (name_end == 0) return Defer(__LINE__);
    const Tag tag = TagOf(in_.substr(pos_ + 2, name_end - pos_ - 2));
    if (tag == Tag::kOther) return Defer(__LINE__);
    if (TextOnly(Top()) && tag != Top()) return Defer(__LINE__);
    pos_ = name_end;
    SkipBlanks();
    if (!At(0, '>')) return Defer(__LINE__);
    ++pos_;
    // htmlParseEndTag and htmlAutoCloseOnClose.
    std::size_t match = depth_;
    while (match > 0 && stack_[match - 1] != tag) --match;
    if (match > 0) {
      bool outranked = false;
      for (std::size_t i = depth_; i > match; --i) {
        if (EndPriority(stack_[i - 1]) > EndPriority(tag)) outranked = true;
      }
      if (!outranked) {
        while (depth_ >= match) Pop();
      }
    }
    stop = depth_ == 0;
    return true;
  }

  // The attributes a start tag's handling reads; the first of each name counts (libxml2 drops a
  // redefined attribute).
  struct TagAttributes {
    Attribute href, core, dist, requires_python, yanked, upload;  // <a>
    Attribute name, content, charset, equiv;                      // <meta>

    Attribute* SlotOf(Tag tag, std::string_view attr) {
      if (tag == Tag::kA) {
        if (EqualsLower("href", attr)) return &href;
        if (EqualsLower("data-core-metadata", attr)) return &core;
        if (EqualsLower("data-dist-info-metadata", attr)) return &dist;
        if (EqualsLower("data-requires-python", attr)) return &requires_python;
        if (EqualsLower("data-yanked", attr)) return &yanked;
        if (EqualsLower("data-upload-time", attr)) return &upload;
      } else if (tag == Tag::kMeta) {
        if (EqualsLower("name", attr)) return &name;
        if (EqualsLower("content", attr)) return &content;
        if (EqualsLower("charset", attr)) return &charset;
        if (EqualsLower("http-equiv", attr)) return &equiv;
      }
      return nullptr;
    }
  };

  // htmlAutoClose, then htmlCheckImplied: the elements a start tag closes and implies. False
  // where libxml2's answer is not modelled (it drops a misplaced html, head or body and counts
  // it). Each of these steps defers at its own line; the caller's Defer keeps the first.
  bool ImplyParents(Tag tag) {
    while (depth_ > 0 && Closes(tag, Top())) Pop();
    if (tag != Tag::kHtml) {
      if (depth_ == 0 && !Push(Tag::kHtml)) return Defer(__LINE__);
      if (tag != Tag::kBody && tag != Tag::kHead) {
        if (depth_ <= 1 && (tag == Tag::kMeta || tag == Tag::kTitle || tag == Tag::kScript)) {
          if (html_ < 3 && !Push(Tag::kHead)) return Defer(__LINE__);
        } else if (html_ < 10 && !Open(Tag::kBody) && !Open(Tag::kHead)) {
          if (!Push(Tag::kBody)) return Defer(__LINE__);
        }
      }
    }
    if (tag == Tag::kHtml && depth_ > 0) return Defer(__LINE__);
    if (tag == Tag::kHead && depth_ != 1) return Defer(__LINE__);
    if (tag == Tag::kBody && Open(Tag::kBody)) return Defer(__LINE__);
    return true;
  }

  // `=value` after an attribute's name, quoted or not; false where the tag does not end.
  bool ReadAttributeValue(Attribute& value) {
    value.present = true;
    if (!At(0, '=')) return true;
    ++pos_;
    SkipBlanks();
    if (At(0, '"') || At(0, '\'')) {
      const char quote = in_[pos_];
      const std::size_t close = in_.find(quote, pos_ + 1);
      if (close == std::string_view::npos) return Defer(__LINE__);
      value.raw = in_.substr(pos_ + 1, close - pos_ - 1);
      pos_ = close + 1;
      return true;
    }
    const std::size_t start = pos_;
    while (pos_ < in_.size() && !IsBlank(in_[pos_]) && in_[pos_] != '>') ++pos_;
    if (pos_ >= in_.size()) return Defer(__LINE__);
    value.raw = in_.substr(start, pos_ - start);
    return true;
  }

  // The attributes up to the tag's '>' (or "/>": `self_closing`); false where libxml2's answer
  // is not modelled (no '>', a bogus attribute, a value the input ends in).
  bool ReadAttributes(Tag tag, TagAttributes& attributes, bool& self_closing) {
    for (;;) {
      SkipBlanks();
      if (pos_ >= in_.size()) return Defer(__LINE__);  // no '>': libxml2 ends the element unlike us
      if (in_[pos_] == '>') {
        ++pos_;
        return true;
      }
      if (in_[pos_] == '/' && At(1, '>')) {
        pos_ += 2;
        self_closing = true;
        return true;
      }
      const std::size_t attr_end = NameEnd(pos_);
      if (attr_end == 0) return Defer(__LINE__);  // a bogus attribute
      const std::string_view attr = in_.substr(pos_, attr_end - pos_);
      pos_ = attr_end;
      SkipBlanks();
      Attribute value;
      if (!ReadAttributeValue(value)) return Defer(__LINE__);
      Attribute* slot = attributes.SlotOf(tag, attr);
      if (slot != nullptr && !slot->present) *slot = value;
    }
  }

  bool StartTag() {
    const std::size_t name_end = NameEnd(pos_ + 1);
    if (name_end == 0) return Defer(__LINE__);
    const Tag tag = TagOf(in_.substr(pos_ + 1, name_end - pos_ - 1));
    if (tag == Tag::kOther) return Defer(__LINE__);
    pos_ = name_end;
    if (!ImplyParents(tag)) return Defer(__LINE__);
    TagAttributes a;
    bool self_closing = false;
    if (!ReadAttributes(tag, a, self_closing)) return Defer(__LINE__);
    // An attribute value runs to the end of its tag at most, so the input does not end inside
    // one here.
    if (!Push(tag)) return Defer(__LINE__);
    if (tag == Tag::kA && !StartAnchor(a.href, a.core, a.dist, a.requires_python, a.yanked, a.upload)) {
      return Defer(__LINE__);
    }
    if (tag == Tag::kMeta && !Meta(a.name, a.content, a.charset, a.equiv)) return Defer(__LINE__);
    if (self_closing || tag == Tag::kMeta || tag == Tag::kBr) Pop();
    return true;
  }

  bool Decode(const Attribute& attribute, std::string& out) {
    out.clear();
    return AppendDecoded(out, attribute.raw, false);
  }

  bool StartAnchor(const Attribute& href, const Attribute& core, const Attribute& dist,
                   const Attribute& requires_python, const Attribute& yanked,
                   const Attribute& upload) {
    if (!href.present) return Defer(__LINE__);  // an <a> that is no link: not modelled
    if (page_.anchors.size() >= max_anchors_) {
      // libxml2 is fed no more after the chunk where the bound is reached.
      if (in_.size() > kLibxml2Chunk) return Defer(__LINE__);
      page_.more_anchors = true;
      return true;
    }
    Anchor anchor;
    if (!Decode(href, scratch_)) return Defer(__LINE__);
    detail::SetUrlAndHash(anchor, page_url_, scratch_);
    const Attribute& metadata = core.present ? core : dist;
    if (metadata.present) {
      anchor.has_metadata = true;
      if (!Decode(metadata, scratch_)) return Defer(__LINE__);
      anchor.metadata_sha256 = detail::Sha256FromHashSpec(scratch_);
    }
    if (requires_python.present) {
      if (!Decode(requires_python, scratch_)) return Defer(__LINE__);
      anchor.requires_python = std::string(detail::Trim(scratch_));
    }
    if (yanked.present) {
      std::string reason;
      if (!AppendDecoded(reason, yanked.raw, false)) return Defer(__LINE__);
      anchor.yanked = std::move(reason);
    }
    if (upload.present && !AppendDecoded(anchor.upload_time, upload.raw, false)) return Defer(__LINE__);
    page_.anchors.push_back(std::move(anchor));
    collecting_anchor_ = true;
    return true;
  }

  bool Meta(const Attribute& name, const Attribute& content, const Attribute& charset,
            const Attribute& equiv) {
    // htmlCheckMeta: a charset or http-equiv may switch libxml2's decoding; UTF-8 is what it
    // decodes already.
    if (equiv.present) return Defer(__LINE__);
    if (charset.present) {
      if (!Decode(charset, scratch_)) return Defer(__LINE__);
      if (!EqualsLower("utf-8", scratch_) && !EqualsLower("utf8", scratch_)) return Defer(__LINE__);
    }
    if (name.present && content.present) {
      if (!Decode(name, scratch_)) return Defer(__LINE__);
      if (scratch_ == "pypi:repository-version") {
        std::string version;
        if (!AppendDecoded(version, content.raw, false)) return Defer(__LINE__);
        page_.repository_version = std::move(version);
      }
    }
    return true;
  }

  std::string_view in_;
  std::string_view page_url_;
  std::size_t max_anchors_;
  std::size_t pos_ = 0;
  std::array<Tag, 16> stack_{};
  std::size_t depth_ = 0;
  int html_ = 0;  // libxml2's ctxt->html: 3 once a head was opened, 10 once a body
  bool collecting_anchor_ = false;
  IndexPage page_;
  std::string h1_;
  std::string title_;
  std::string scratch_;
};

}  // namespace

namespace detail {
thread_local int scan_deferred_line = 0;
thread_local std::size_t scan_deferred_offset = 0;
}  // namespace detail

std::optional<IndexPage> ScanHtmlPage(std::string_view html, std::string_view page_url,
                                      std::size_t max_anchors) {
  detail::scan_deferred_line = 0;
  detail::scan_deferred_offset = 0;
  if (html.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) return std::nullopt;
  return Scanner(html, page_url, max_anchors).Run();
}

}  // namespace torchdex::index
