#include "core/version.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <limits>
#include <optional>
#include <string>

#include "core/utf8.h"

namespace torchdex::core {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAlnum(char c) { return IsDigit(c) || (c >= 'a' && c <= 'z'); }
bool IsSeparator(char c) { return c == '.' || c == '-' || c == '_'; }
bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

// A cursor over the lowercased input. Every optional part of the PEP 440 grammar is tried
// from a saved position and abandoned by restoring it, as the reference regular expression
// would backtrack.
//
// kept_separator: the separator after a pre, post or dev label stays consumed when no number
// follows it, so "1.0post-" is 1.0.post0 and "4c_.dev" is 4rc0.dev0: the PEP's regular
// expression ("[-_\.]?(?P<post_n2>[0-9]+)?") matches the separator on its own, and packaging
// accepts both (found by tests/core/differential).
class Cursor {
 public:
  explicit Cursor(std::string_view text) : text_(text) {}

  bool AtEnd() const { return pos_ == text_.size(); }
  char Peek(std::size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  std::size_t pos() const { return pos_; }
  void Reset(std::size_t pos) { pos_ = pos; }
  void Advance(std::size_t n = 1) { pos_ += n; }
  std::string_view text() const { return text_; }

  bool Consume(std::string_view word) {
    if (text_.compare(pos_, word.size(), word) != 0) return false;
    pos_ += word.size();
    return true;
  }
  void SkipOptionalSeparator() {
    if (IsSeparator(Peek())) ++pos_;
  }

  // Reads a decimal number; false when there is none or it does not fit in 64 bits.
  enum class NumberResult { kNone, kOk, kOverflow };
  NumberResult ReadNumber(std::uint64_t* out) {
    if (!IsDigit(Peek())) return NumberResult::kNone;
    std::uint64_t value = 0;
    while (IsDigit(Peek())) {
      const std::uint64_t digit = static_cast<std::uint64_t>(Peek() - '0');
      if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) {
        return NumberResult::kOverflow;
      }
      value = value * 10 + digit;
      ++pos_;
    }
    *out = value;
    return NumberResult::kOk;
  }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
};

// Spellings PEP 440 accepts for each pre-release kind, longest first so that "alpha" is not
// read as "a" followed by garbage.
struct PreSpelling {
  std::string_view text;
  PreKind kind;
};
constexpr std::array<PreSpelling, 8> kPreSpellings = {{
    {"alpha", PreKind::kAlpha},
    {"a", PreKind::kAlpha},
    {"beta", PreKind::kBeta},
    {"b", PreKind::kBeta},
    {"preview", PreKind::kRc},
    {"pre", PreKind::kRc},
    {"rc", PreKind::kRc},
    {"c", PreKind::kRc},
}};
constexpr std::array<std::string_view, 3> kPostSpellings = {"post", "rev", "r"};


Error Invalid(std::string_view original, std::string_view why) {
  return MakeError("invalid version '" + std::string(original) + "': " + std::string(why));
}

Error InvalidAt(std::string_view original, std::size_t column, std::string_view why) {
  return MakeError("invalid version '" + std::string(original) + "': " + std::string(why) +
                   " at column " + std::to_string(column + 1));
}

// Three-way comparison of two local labels under PEP 440: segment by segment, numbers
// above strings, numbers by value, strings lexicographically, a shorter prefix first.
std::strong_ordering CompareLocal(const std::vector<LocalSegment>& a,
                                  const std::vector<LocalSegment>& b) {
  const std::size_t n = std::min(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    const bool a_num = std::holds_alternative<std::uint64_t>(a[i]);
    const bool b_num = std::holds_alternative<std::uint64_t>(b[i]);
    if (a_num != b_num) return a_num ? std::strong_ordering::greater : std::strong_ordering::less;
    if (a_num) {
      if (auto c = std::get<0>(a[i]) <=> std::get<0>(b[i]); c != 0) return c;
    } else {
      if (auto c = std::get<1>(a[i]).compare(std::get<1>(b[i])); c != 0) {
        return c < 0 ? std::strong_ordering::less : std::strong_ordering::greater;
      }
    }
  }
  return a.size() <=> b.size();
}

// The parse of one version text: the lowered text's cursor, and errors located in the
// original (`begin`: where the trimmed text starts in it).
struct VersionText {
  std::string_view original;
  std::size_t begin;
  Cursor& in;

  Error At(std::string_view why) const { return InvalidAt(original, begin + in.pos(), why); }
  Error Overflow() const { return At("number too large"); }
  // A number must stand here; `missing` is the error when none does.
  std::optional<Error> Require(std::uint64_t& number, std::string_view missing) const {
    switch (in.ReadNumber(&number)) {
      case Cursor::NumberResult::kNone:
        return At(missing);
      case Cursor::NumberResult::kOverflow:
        return Overflow();
      case Cursor::NumberResult::kOk:
        break;
    }
    return std::nullopt;
  }
  // An optional number after a separator: 0 when none.
  Expected<std::uint64_t> OptionalNumber() const {
    in.SkipOptionalSeparator();  // kept even when no number follows: see kept_separator
    std::uint64_t number = 0;
    if (in.ReadNumber(&number) == Cursor::NumberResult::kOverflow) return Overflow();
    return number;
  }
};

// Epoch and release: "1!2.0" or "2.0".
std::optional<Error> ReadRelease(const VersionText& t, std::uint64_t& epoch, std::vector<std::uint64_t>& release) {
  std::uint64_t number = 0;
  if (auto error = t.Require(number, "expected a release number")) return error;
  if (t.in.Peek() == '!') {
    t.in.Advance();
    epoch = number;
    if (auto error = t.Require(number, "expected a release number after the epoch")) return error;
  }
  release.push_back(number);
  while (t.in.Peek() == '.' && IsDigit(t.in.Peek(1))) {
    t.in.Advance();
    if (t.in.ReadNumber(&number) == Cursor::NumberResult::kOverflow) return t.Overflow();
    release.push_back(number);
  }
  return std::nullopt;
}

// Pre-release: [sep] (a|b|rc|...) [sep] [N]
std::optional<Error> ReadPre(const VersionText& t, std::optional<PreRelease>& pre) {
  const std::size_t saved = t.in.pos();
  t.in.SkipOptionalSeparator();
  for (const PreSpelling& spelling : kPreSpellings) {
    if (!t.in.Consume(spelling.text)) continue;
    Expected<std::uint64_t> number = t.OptionalNumber();
    if (!number) return number.error();
    pre = PreRelease{spelling.kind, *number};
    return std::nullopt;
  }
  t.in.Reset(saved);
  return std::nullopt;
}

// Post release: "-N" (implicit), or [sep] (post|rev|r) [sep] [N].
std::optional<Error> ReadPost(const VersionText& t, std::optional<std::uint64_t>& post) {
  const std::size_t saved = t.in.pos();
  if (t.in.Peek() == '-' && IsDigit(t.in.Peek(1))) {
    t.in.Advance();
    std::uint64_t number = 0;
    if (t.in.ReadNumber(&number) == Cursor::NumberResult::kOverflow) return t.Overflow();
    post = number;
    return std::nullopt;
  }
  t.in.SkipOptionalSeparator();
  for (std::string_view spelling : kPostSpellings) {
    if (!t.in.Consume(spelling)) continue;
    Expected<std::uint64_t> number = t.OptionalNumber();
    if (!number) return number.error();
    post = *number;
    return std::nullopt;
  }
  t.in.Reset(saved);
  return std::nullopt;
}

// Development release: [sep] dev [sep] [N]
std::optional<Error> ReadDev(const VersionText& t, std::optional<std::uint64_t>& dev) {
  const std::size_t saved = t.in.pos();
  t.in.SkipOptionalSeparator();
  if (!t.in.Consume("dev")) {
    t.in.Reset(saved);
    return std::nullopt;
  }
  Expected<std::uint64_t> number = t.OptionalNumber();
  if (!number) return number.error();
  dev = *number;
  return std::nullopt;
}

// Local label: "+" segment ([-_.] segment)*
std::optional<Error> ReadLocal(const VersionText& t, std::vector<LocalSegment>& local) {
  if (t.in.Peek() != '+') return std::nullopt;
  t.in.Advance();
  while (true) {
    const std::size_t start = t.in.pos();
    while (IsAlnum(t.in.Peek())) t.in.Advance();
    if (t.in.pos() == start) return t.At("expected a local version segment");
    std::string segment(t.in.text().substr(start, t.in.pos() - start));
    if (std::all_of(segment.begin(), segment.end(), IsDigit)) {
      Cursor digits(segment);
      std::uint64_t value = 0;
      if (digits.ReadNumber(&value) == Cursor::NumberResult::kOverflow) return t.Overflow();
      local.emplace_back(value);
    } else {
      local.emplace_back(std::move(segment));
    }
    if (!IsSeparator(t.in.Peek())) return std::nullopt;
    t.in.Advance();
  }
}

}  // namespace

Expected<Version> Version::Parse(std::string_view text) {
  // Trim surrounding whitespace and lowercase: PEP 440 normalisation is case-insensitive.
  std::size_t begin = 0;
  std::size_t end = text.size();
  while (begin < end && IsSpace(text[begin])) ++begin;
  while (end > begin && IsSpace(text[end - 1])) --end;
  std::string lowered(text.substr(begin, end - begin));
  std::transform(lowered.begin(), lowered.end(), lowered.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lowered.empty()) return Invalid(text, "empty");
  Cursor in(lowered);
  const VersionText t{text, begin, in};
  Version v;
  if (in.Peek() == 'v') in.Advance();
  if (auto error = ReadRelease(t, v.epoch_, v.release_)) return *error;
  if (auto error = ReadPre(t, v.pre_)) return *error;
  if (auto error = ReadPost(t, v.post_)) return *error;
  if (auto error = ReadDev(t, v.dev_)) return *error;
  if (auto error = ReadLocal(t, v.local_)) return *error;
  if (!in.AtEnd()) return t.At("unexpected '" + CharacterAt(in.text(), in.pos()) + "'");
  return v;
}

std::string Version::LocalString() const {
  std::string out;
  for (const LocalSegment& segment : local_) {
    if (!out.empty()) out.push_back('.');
    if (const auto* n = std::get_if<std::uint64_t>(&segment)) {
      out += std::to_string(*n);
    } else {
      out += std::get<std::string>(segment);
    }
  }
  return out;
}

std::string Version::ToString() const {
  std::string out;
  if (epoch_ != 0) {
    out += std::to_string(epoch_);
    out.push_back('!');
  }
  for (std::size_t i = 0; i < release_.size(); ++i) {
    if (i != 0) out.push_back('.');
    out += std::to_string(release_[i]);
  }
  if (pre_) {
    out += PreKindWord(pre_->kind);
    out += std::to_string(pre_->number);
  }
  // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string.
  if (post_) {
    out += ".post";
    out += std::to_string(*post_);
  }
  if (dev_) {
    out += ".dev";
    out += std::to_string(*dev_);
  }
  if (!local_.empty()) {
    out.push_back('+');
    out += LocalString();
  }
  return out;
}

Version Version::Public() const {
  Version v = *this;
  v.local_.clear();
  return v;
}

Version Version::Base() const {
  Version v;
  v.epoch_ = epoch_;
  v.release_ = release_;
  return v;
}

std::strong_ordering operator<=>(const Version& a, const Version& b) {
  if (auto c = a.epoch_ <=> b.epoch_; c != 0) return c;

  // Release: trailing zeros do not count (1.0 == 1.0.0).
  const std::size_t n = std::max(a.release_.size(), b.release_.size());
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t x = i < a.release_.size() ? a.release_[i] : 0;
    const std::uint64_t y = i < b.release_.size() ? b.release_[i] : 0;
    if (auto c = x <=> y; c != 0) return c;
  }

  // Pre-release. A bare dev release (1.0.dev1) sorts before any pre-release of the same
  // release; no pre-release sorts after all of them. Encoded as a rank, then the value.
  auto pre_rank = [](const Version& v) {
    if (!v.pre_ && !v.post_ && v.dev_) return 0;  // "-infinity"
    if (v.pre_) return 1;
    return 2;  // "+infinity"
  };
  if (auto c = pre_rank(a) <=> pre_rank(b); c != 0) return c;
  if (a.pre_ && b.pre_) {
    if (auto c = *a.pre_ <=> *b.pre_; c != 0) return c;
  }

  // Post release: none sorts first.
  if (auto c = a.post_.has_value() <=> b.post_.has_value(); c != 0) return c;
  if (a.post_ && b.post_) {
    if (auto c = *a.post_ <=> *b.post_; c != 0) return c;
  }

  // Dev release: none sorts last.
  if (auto c = b.dev_.has_value() <=> a.dev_.has_value(); c != 0) return c;
  if (a.dev_ && b.dev_) {
    if (auto c = *a.dev_ <=> *b.dev_; c != 0) return c;
  }

  // Local label: none sorts first.
  return CompareLocal(a.local_, b.local_);
}

std::string_view PreKindWord(PreKind kind) {
  switch (kind) {
    case PreKind::kAlpha:
      return "a";
    case PreKind::kBeta:
      return "b";
    case PreKind::kRc:
      return "rc";
  }
  return "";
}

}  // namespace torchdex::core
