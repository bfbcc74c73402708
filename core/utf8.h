// UTF-8 as RFC 3629 defines it, for text that leaves torchdex as JSON: hrefs, environment
// variables and file contents are bytes, and a JSON document must be UTF-8 (RFC 8259 §8.1;
// nlohmann::json refuses to dump anything else, type_error.316).
#ifndef TORCHDEX_CORE_UTF8_H_
#define TORCHDEX_CORE_UTF8_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace torchdex::core {

/// The length of the well-formed UTF-8 sequence that starts at `text[pos]` (1 to 4), or 0 when
/// the bytes there are not one: a stray continuation byte, a truncated sequence, an overlong
/// form, a surrogate (U+D800..U+DFFF) or a code point past U+10FFFF.
std::size_t Utf8SequenceLength(std::string_view text, std::size_t pos);

/// True when all of `text` is well-formed UTF-8.
bool IsValidUtf8(std::string_view text);

/// `text` with every ill-formed sequence replaced by U+FFFD, one for each maximal subpart
/// (Unicode §3.9 U+FFFD substitution, as the WHATWG decoder and Python's errors="replace" do):
/// "1.0\xE2\x82" is "1.0\uFFFD", "\xFF\xFE" is two of them. Well-formed text is unchanged.
std::string ToValidUtf8(std::string_view text);

/// The character at `text[pos]` for a message: the whole UTF-8 sequence when it is one ("€",
/// never half of it), else the byte as "\xNN".
std::string CharacterAt(std::string_view text, std::size_t pos);

/// `text` safe to show on a terminal (issue 29, item 12): every byte and character that moves
/// the cursor, changes colours, reorders text or is no character at all is written out as an
/// escape: C0 controls but '\n' and '\t', DEL and the C1 controls (U+0080..U+009F, U+009B is
/// a CSI) as "\u001b", the bidirectional controls (U+061C, U+200E, U+200F, U+202A..U+202E,
/// U+2066..U+2069) as "\u202e", and an ill-formed byte as "\xff". Everything else is kept, so
/// text that is already safe is unchanged. `*consumed` (when given) is how much of `text` was
/// handled: a trailing sequence that may still be completed by more bytes is left for the next
/// call.
std::string ForTerminal(std::string_view text, std::size_t* consumed = nullptr);

/// A value inside a one-line message (an error naming what was read): ForTerminal's escapes,
/// and '\n', '\r', '\t' written as "\n", "\r", "\t", so the message stays one line; at most
/// `at_most` bytes of `text`, cut where a character ends, then "...". The one escaper of values
/// in messages (issue 29, item 12).
std::string OneLine(std::string_view text, std::size_t at_most = std::string_view::npos);

}  // namespace torchdex::core

#endif  // TORCHDEX_CORE_UTF8_H_
