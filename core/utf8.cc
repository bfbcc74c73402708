#include "core/utf8.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>

namespace torchdex::core {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// How many bytes of a sequence are well-formed so far, and whether they make a whole one:
// Unicode Table 3-7 (the second byte's range depends on the first, which rules out overlong
// forms, surrogates and code points past U+10FFFF).
struct Prefix {
  std::size_t length = 0;  // well-formed bytes from pos, at least 1 when `complete`
  bool complete = false;
};

Prefix ReadSequence(std::string_view text, std::size_t pos) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(pos);
  if (lead < 0x80) return {1, true};
  std::size_t needed = 0;
  unsigned char low = 0x80, high = 0xBF;  // the range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    needed = 1;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    needed = 2;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    needed = 3;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  } else {
    return {0, false};  // a continuation byte, C0, C1 or F5..FF: never a lead
  }
  std::size_t length = 1;
  for (std::size_t k = 0; k < needed; ++k, ++length) {
    const std::size_t i = pos + length;
    if (i >= text.size()) return {length, false};
    const unsigned char b = byte(i);
    if (b < (k == 0 ? low : 0x80) || b > (k == 0 ? high : 0xBF)) return {length, false};
  }
  return {length, true};
}

}  // namespace

std::size_t Utf8SequenceLength(std::string_view text, std::size_t pos) {
  if (pos >= text.size()) return 0;
  const Prefix p = ReadSequence(text, pos);
  return p.complete ? p.length : 0;
}

bool IsValidUtf8(std::string_view text) {
  for (std::size_t pos = 0; pos < text.size();) {
    const std::size_t n = Utf8SequenceLength(text, pos);
    if (n == 0) return false;
    pos += n;
  }
  return true;
}

std::string ToValidUtf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t pos = 0; pos < text.size();) {
    const Prefix p = ReadSequence(text, pos);
    if (p.complete) {
      out.append(text.substr(pos, p.length));
      pos += p.length;
    } else {
      // A maximal subpart (a lead and the continuation bytes that fit it) is one U+FFFD; the
      // byte that broke it starts afresh.
      out.append(kReplacement);
      pos += p.length == 0 ? 1 : p.length;
    }
  }
  return out;
}

std::string CharacterAt(std::string_view text, std::size_t pos) {
  if (pos >= text.size()) return {};
  if (const std::size_t n = Utf8SequenceLength(text, pos); n != 0) {
    return std::string(text.substr(pos, n));
  }
  static constexpr char kHex[] = "0123456789abcdef";
  const auto b = static_cast<unsigned char>(text[pos]);
  return std::string("\\x") + kHex[b >> 4] + kHex[b & 0xF];
}

namespace {

bool Unsafe(std::uint32_t cp) {
  return (cp < 0x20 && cp != '\n' && cp != '\t') || (cp >= 0x7F && cp <= 0x9F) || cp == 0x061C || cp == 0x200E ||
         cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

std::uint32_t Decode(std::string_view s) {
  const auto b = [&](std::size_t i) { return static_cast<std::uint32_t>(static_cast<unsigned char>(s[i])); };
  switch (s.size()) {
    case 1: return b(0);
    case 2: return ((b(0) & 0x1F) << 6) | (b(1) & 0x3F);
    case 3: return ((b(0) & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
    default: return ((b(0) & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) | (b(3) & 0x3F);
  }
}

// Whether the bytes from `pos` to the end are the start of a sequence more bytes could finish.
bool Unfinished(std::string_view text, std::size_t pos) {
  const auto lead = static_cast<unsigned char>(text[pos]);
  const std::size_t need = lead >= 0xF0 && lead <= 0xF4 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC2 && lead < 0xE0 ? 2 : 0;
  if (need == 0 || text.size() - pos >= need) return false;
  for (std::size_t i = pos + 1; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) return false;
  }
  return true;
}

}  // namespace

std::string ForTerminal(std::string_view text, std::size_t* consumed) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  char buffer[16];
  while (i < text.size()) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte >= 0x20 && byte < 0x7F) {  // the common case
      out.push_back(static_cast<char>(byte));
      ++i;
      continue;
    }
    const std::size_t n = Utf8SequenceLength(text, i);
    if (n == 0) {
      if (consumed != nullptr && Unfinished(text, i)) break;
      std::snprintf(buffer, sizeof(buffer), "\\x%02x", byte);
      out += buffer;
      ++i;
      continue;
    }
    const std::uint32_t cp = Decode(text.substr(i, n));
    if (Unsafe(cp)) {
      std::snprintf(buffer, sizeof(buffer), "\\u%04x", static_cast<unsigned>(cp));
      out += buffer;
    } else {
      out.append(text.substr(i, n));
    }
    i += n;
  }
  if (consumed != nullptr) *consumed = i;
  return out;
}

std::string OneLine(std::string_view text, std::size_t at_most) {
  std::size_t cut = std::min(at_most, text.size());
  while (cut > 0 && cut < text.size() && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  const std::string_view kept = text.substr(0, cut);
  std::string out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= kept.size(); ++i) {
    const char c = i < kept.size() ? kept[i] : '\0';
    if (i < kept.size() && c != '\n' && c != '\r' && c != '\t') continue;
    out += ForTerminal(kept.substr(start, i - start));
    if (i < kept.size()) out += c == '\n' ? "\\n" : c == '\r' ? "\\r" : "\\t";
    start = i + 1;
  }
  if (cut < text.size()) out += "...";
  return out;
}

}  // namespace torchdex::core
