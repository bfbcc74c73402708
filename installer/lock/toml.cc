#include "installer/lock/toml.h"

#include <algorithm>
#include <cstdio>
#include <limits>

#include "core/utf8.h"

namespace torchdex::installer::toml {

namespace {
// Below this many keys a scan is as quick as an index.
constexpr std::size_t kIndexedFrom = 16;
}  // namespace

const Value* Value::Find(std::string_view key) const {
  if (entries.size() < kIndexedFrom) {
    for (const auto& [k, v] : entries) {
      if (k == key) return &v;
    }
    return nullptr;
  }
  // Made again when the table has keys the index lacks (entries added directly).
  if (!key_index || key_index->size() != entries.size()) {
    auto index = std::make_shared<KeyIndex>();
    index->reserve(entries.size());
    for (std::size_t i = 0; i < entries.size(); ++i) index->emplace(entries[i].key, i);
    key_index = std::move(index);
  }
  const auto it = key_index->find(std::string(key));
  return it == key_index->end() ? nullptr : &entries[it->second].value;
}

Value& Value::Set(std::string key, Value value) {
  if (Value* old = Find(key)) return *old = std::move(value);
  if (key_index) {
    // Shared with a copy of this table: this one gets its own before adding to it.
    if (key_index.use_count() > 1) key_index = std::make_shared<KeyIndex>(*key_index);
    key_index->emplace(key, entries.size());
  }
  entries.push_back(Entry{std::move(key), std::move(value)});
  return entries.back().value;
}

std::string_view KindName(Value::Kind kind) {
  switch (kind) {
    case Value::Kind::kString: return "a string";
    case Value::Kind::kInteger: return "an integer";
    case Value::Kind::kBoolean: return "a boolean";
    case Value::Kind::kDateTime: return "a date-time";
    case Value::Kind::kArray: return "an array";
    case Value::Kind::kTable: return "a table";
  }
  return "a value";
}

namespace {

// How a table or array came to be (Value::origin): a table is defined once, an inline table
// is never extended, and `[[x]]` appends only to an array of tables.
enum class Origin : std::uint8_t { kImplicit, kHeader, kDotted, kInline, kArrayOfTables, kStaticArray };

// How deep tables and arrays may nest, counting each part of a dotted key or header as a level:
// far beyond any lock file or pyproject.toml, and shallow enough for the recursive reader and
// the tables' destructors (issue 29, item 6: 200,000 parts crashed them).
constexpr int kMaxDepth = 64;
constexpr std::size_t kMaxKeyParts = kMaxDepth;

struct Reader {
  std::string_view text;
  std::string_view file;
  std::size_t pos = 0;
  int line = 1;
  std::size_t line_start = 0;
  Value root = Value::Table();
  // The current table: a path of keys from the root (arrays of tables: their last element).
  std::vector<std::string> current;
  core::Error error;
  bool failed = false;

  int column() const { return static_cast<int>(pos - line_start) + 1; }

  bool Fail(const std::string& what) { return FailAt(line, column(), what); }
  bool FailAt(int at_line, int at_column, const std::string& what) {
    if (!failed) {
      std::string message(file);
      message.append(":").append(std::to_string(at_line)).append(":").append(std::to_string(at_column));
      message.append(": ").append(what);
      error = core::MakeError(std::move(message), core::ErrorCode::kBadInputFile);
      failed = true;
    }
    return false;
  }

  static Origin OriginOf(const Value* v) { return static_cast<Origin>(v->origin); }
  static void Remember(Value* v, Origin o) { v->origin = static_cast<std::uint8_t>(o); }

  bool AtEnd() const { return pos >= text.size(); }
  char Peek(std::size_t ahead = 0) const { return pos + ahead < text.size() ? text[pos + ahead] : '\0'; }
  void Advance() {
    if (text[pos] == '\n') {
      ++line;
      line_start = pos + 1;
    }
    ++pos;
  }

  void SkipSpaces() {
    while (!AtEnd() && (Peek() == ' ' || Peek() == '\t')) Advance();
  }
  // A comment runs to the end of the line; it may not hold control characters but tab.
  bool SkipComment() {
    if (Peek() != '#') return true;
    while (!AtEnd() && Peek() != '\n') {
      const auto c = static_cast<unsigned char>(Peek());
      if ((c < 0x20 && c != '\t' && !(c == '\r' && Peek(1) == '\n')) || c == 0x7f) {
        return Fail("control character in a comment");
      }
      Advance();
    }
    return true;
  }
  // Spaces, newlines and comments (inside arrays).
  bool SkipBlank() {
    for (;;) {
      SkipSpaces();
      if (Peek() == '#') {
        if (!SkipComment()) return false;
        continue;
      }
      if (Peek() == '\n') {
        Advance();
        continue;
      }
      if (Peek() == '\r' && Peek(1) == '\n') {
        Advance();
        Advance();
        continue;
      }
      return true;
    }
  }
  // After a key/value pair or a header: spaces, a comment, then the end of the line.
  bool EndOfLine() {
    SkipSpaces();
    if (!SkipComment()) return false;
    if (AtEnd()) return true;
    if (Peek() == '\n') {
      Advance();
      return true;
    }
    if (Peek() == '\r' && Peek(1) == '\n') {
      Advance();
      Advance();
      return true;
    }
    return Fail("expected the end of the line, found " + Shown());
  }
  std::string Shown() const {
    if (AtEnd()) return "the end of the file";
    const auto c = static_cast<unsigned char>(Peek());
    if (c < 0x20 || c == 0x7f) {
      char buffer[16];
      std::snprintf(buffer, sizeof buffer, "U+%04X", c);
      return buffer;
    }
    return "'" + core::CharacterAt(text, pos) + "'";
  }

  static bool BareKeyChar(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
  }

  bool ReadKeyPart(std::string& out) {
    if (Peek() == '"') {
      if (Peek(1) == '"' && Peek(2) == '"') return Fail("a key cannot be a multi-line string");
      return ReadBasicString(out);
    }
    if (Peek() == '\'') {
      if (Peek(1) == '\'' && Peek(2) == '\'') return Fail("a key cannot be a multi-line string");
      return ReadLiteralString(out);
    }
    const std::size_t start = pos;
    while (!AtEnd() && BareKeyChar(Peek())) Advance();
    if (pos == start) return Fail("expected a key, found " + Shown());
    out.assign(text.substr(start, pos - start));
    return true;
  }
  // a.b."c d". Each part is a table level, as a nested value is: bounded alike, so a key of
  // 200,000 parts is an error here and not a stack overflow in the tables' destructors.
  bool ReadKey(std::vector<std::string>& parts) {
    for (;;) {
      if (parts.size() == kMaxKeyParts) return Fail("a key of more than " + std::to_string(kMaxKeyParts) + " dotted parts");
      SkipSpaces();
      std::string part;
      if (!ReadKeyPart(part)) return false;
      parts.push_back(std::move(part));
      SkipSpaces();
      if (Peek() != '.') return true;
      Advance();
    }
  }

  bool AppendCodePoint(std::uint32_t cp, std::string& out) {
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return Fail("escape is not a Unicode scalar value");
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
    return true;
  }

  bool ReadEscape(std::string& out) {
    Advance();  // the backslash
    const char c = Peek();
    switch (c) {
      case 'b': out += '\b'; break;
      case 't': out += '\t'; break;
      case 'n': out += '\n'; break;
      case 'f': out += '\f'; break;
      case 'r': out += '\r'; break;
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case 'u':
      case 'U': {
        const int digits = c == 'u' ? 4 : 8;
        std::uint32_t cp = 0;
        for (int i = 1; i <= digits; ++i) {
          const char h = Peek(i);
          int d = -1;
          if (h >= '0' && h <= '9') d = h - '0';
          if (h >= 'a' && h <= 'f') d = h - 'a' + 10;
          if (h >= 'A' && h <= 'F') d = h - 'A' + 10;
          if (d < 0) return Fail(std::string("\\") + c + " needs " + std::to_string(digits) + " hex digits");
          cp = cp * 16 + static_cast<std::uint32_t>(d);
        }
        if (!AppendCodePoint(cp, out)) return false;
        for (int i = 0; i < digits; ++i) Advance();
        break;
      }
      default:
        return Fail("unknown escape \\" + (AtEnd() ? std::string() : core::CharacterAt(text, pos)));
    }
    Advance();
    return true;
  }

  // A character of a string's body: not a control character but tab (and, in multi-line
  // strings, newlines, which the callers handle).
  bool BodyChar(std::string& out) {
    const auto c = static_cast<unsigned char>(Peek());
    if ((c < 0x20 && c != '\t') || c == 0x7f) return Fail("control character " + Shown() + " in a string");
    out += static_cast<char>(c);
    Advance();
    return true;
  }

  bool ReadBasicString(std::string& out) {
    const int start_line = line, start_column = column();
    Advance();
    for (;;) {
      if (AtEnd() || Peek() == '\n') return FailAt(start_line, start_column, "unterminated string");
      if (Peek() == '"') {
        Advance();
        return true;
      }
      if (Peek() == '\\') {
        if (!ReadEscape(out)) return false;
        continue;
      }
      if (!BodyChar(out)) return false;
    }
  }
  bool ReadLiteralString(std::string& out) {
    const int start_line = line, start_column = column();
    Advance();
    for (;;) {
      if (AtEnd() || Peek() == '\n') return FailAt(start_line, start_column, "unterminated string");
      if (Peek() == '\'') {
        Advance();
        return true;
      }
      if (!BodyChar(out)) return false;
    }
  }
  // Up to two quotes may end the body just before the closing delimiter.
  bool ReadClosingQuotes(std::string& out, char quote) {
    int run = 3;
    while (Peek(run) == quote && run < 5) ++run;
    if (Peek(run) == quote) return Fail("too many quotes closing a multi-line string");
    for (int i = 0; i < run - 3; ++i) out += quote;
    for (int i = 0; i < run; ++i) Advance();
    return true;
  }

  // A line-ending backslash (only whitespace before the newline) trims the newline and the
  // whitespace after it.
  bool AtLineEndingBackslash() const {
    std::size_t ahead = 1;
    while (Peek(ahead) == ' ' || Peek(ahead) == '\t') ++ahead;
    return Peek(ahead) == '\n' || (Peek(ahead) == '\r' && Peek(ahead + 1) == '\n');
  }
  bool SkipLineEndingBackslash() {
    Advance();
    while (!AtEnd() && (Peek() == ' ' || Peek() == '\t' || Peek() == '\n' || Peek() == '\r')) {
      if (Peek() == '\r' && Peek(1) != '\n') return Fail("bare carriage return in a string");
      Advance();
    }
    return true;
  }

  bool ReadMultiLine(std::string& out, char quote) {
    const int start_line = line, start_column = column();
    Advance();
    Advance();
    Advance();
    // A newline right after the opening delimiter is trimmed.
    if (Peek() == '\n') {
      Advance();
    } else if (Peek() == '\r' && Peek(1) == '\n') {
      Advance();
      Advance();
    }
    for (;;) {
      if (AtEnd()) return FailAt(start_line, start_column, "unterminated multi-line string");
      if (Peek() == quote && Peek(1) == quote && Peek(2) == quote) return ReadClosingQuotes(out, quote);
      if (Peek() == '\n') {
        out += '\n';
        Advance();
        continue;
      }
      if (Peek() == '\r' && Peek(1) == '\n') {
        out += '\n';
        Advance();
        Advance();
        continue;
      }
      if (quote == '"' && Peek() == '\\') {
        if (AtLineEndingBackslash()) {
          if (!SkipLineEndingBackslash()) return false;
          continue;
        }
        if (!ReadEscape(out)) return false;
        continue;
      }
      if (!BodyChar(out)) return false;
    }
  }

  static bool Digit(char c) { return c >= '0' && c <= '9'; }

  // The value of digit `c` in `base`; -1 when it is none.
  static int DigitValue(char c, int base) {
    int d = -1;
    if (c >= '0' && c <= '9') d = c - '0';
    if (base == 16 && c >= 'a' && c <= 'f') d = c - 'a' + 10;
    if (base == 16 && c >= 'A' && c <= 'F') d = c - 'A' + 10;
    return d < base ? d : -1;
  }

  // The digits' value, negated into `result` (accumulated as a negative number: the range of
  // int64 is asymmetric); what is wrong with them ("...: " to be followed by the token), or
  // nullptr.
  static const char* NegatedDigits(std::string_view digits, int base, std::int64_t& result) {
    const std::int64_t minimum = std::numeric_limits<std::int64_t>::min();
    bool last_digit = false;
    for (std::size_t i = 0; i < digits.size(); ++i) {
      const char c = digits[i];
      if (c == '_') {
        if (!last_digit || i + 1 == digits.size()) return "an underscore must be between digits: ";
        last_digit = false;
        continue;
      }
      const int d = DigitValue(c, base);
      if (d < 0) return "not a value: ";
      if (result < (minimum + d) / base) return "integer out of range: ";
      result = result * base - d;
      last_digit = true;
    }
    return nullptr;
  }

  // Decimal with underscores between digits, or 0x/0o/0b; floats refused.
  bool ReadInteger(const std::string& token, int start_column, Value& value) {
    std::string_view digits = token;
    bool negative = false;
    int base = 10;
    if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'o' || digits[1] == 'b')) {
      base = digits[1] == 'x' ? 16 : digits[1] == 'o' ? 8 : 2;
      digits.remove_prefix(2);
    } else if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) {
      negative = digits[0] == '-';
      digits.remove_prefix(1);
    }
    const bool looks_float = token.find_first_of(".eE") != std::string::npos && base == 10;
    if (looks_float || digits == "inf" || digits == "nan") {
      return FailAt(line, start_column, "floats are not supported in lock files: " + token);
    }
    if (digits.empty()) return FailAt(line, start_column, "not a value: " + token);
    if (base == 10 && digits.size() > 1 && digits[0] == '0') {
      return FailAt(line, start_column, "leading zeros are not allowed: " + token);
    }
    std::int64_t result = 0;
    const std::int64_t minimum = std::numeric_limits<std::int64_t>::min();
    if (const char* why = NegatedDigits(digits, base, result)) return FailAt(line, start_column, why + token);
    if (!negative) {
      if (result == minimum) return FailAt(line, start_column, "integer out of range: " + token);
      result = -result;
    }
    value.kind = Value::Kind::kInteger;
    value.integer = result;
    return true;
  }

  static bool LooksLikeDate(const std::string& t) {
    return t.size() >= 10 && Digit(t[0]) && Digit(t[1]) && Digit(t[2]) && Digit(t[3]) && t[4] == '-';
  }
  static bool LooksLikeTime(const std::string& t) { return t.size() >= 8 && Digit(t[0]) && Digit(t[1]) && t[2] == ':'; }

  // Integers (decimal with underscores between digits, 0x/0o/0b), date-times kept as text.
  bool ReadScalar(Value& value) {
    const std::size_t start = pos;
    const int start_column = column();
    // A date-time may have one space between its date and its time.
    auto token_char = [](char c) {
      return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
             c == '+' || c == '-' || c == ':' || c == '.';
    };
    while (!AtEnd() && token_char(Peek())) Advance();
    std::string token(text.substr(start, pos - start));
    const bool date = LooksLikeDate(token);
    const bool time = LooksLikeTime(token);
    if (date && token.size() == 10 && Peek() == ' ' && Digit(Peek(1))) {
      Advance();
      while (!AtEnd() && token_char(Peek())) Advance();
      token.assign(text.substr(start, pos - start));
    }
    if (date || time) {
      if (!ValidDateTime(token, date)) return FailAt(line, start_column, "not a valid date-time: " + token);
      value.kind = Value::Kind::kDateTime;
      value.text = token;
      return true;
    }
    if (token.empty()) return FailAt(line, start_column, "expected a value, found " + Shown());
    if (token == "true" || token == "false") {
      value.kind = Value::Kind::kBoolean;
      value.boolean = token == "true";
      return true;
    }
    return ReadInteger(token, start_column, value);
  }


  // Reads fixed-width numbers of a date-time, from `i` on.
  struct DateTimeDigits {
    const std::string& t;
    std::size_t i = 0;
    bool Number(std::size_t n, int low, int high) {
      if (i + n > t.size()) return false;
      int v = 0;
      for (std::size_t k = 0; k < n; ++k) {
        if (!Digit(t[i + k])) return false;
        v = v * 10 + (t[i + k] - '0');
      }
      i += n;
      return v >= low && v <= high;
    }
    bool Char(char c) { return i < t.size() && t[i++] == c; }
    bool AtEnd() const { return i == t.size(); }
  };

  // yyyy-mm-dd
  static bool ValidDate(DateTimeDigits& d) {
    return d.Number(4, 0, 9999) && d.Char('-') && d.Number(2, 1, 12) && d.Char('-') && d.Number(2, 1, 31);
  }

  // hh:mm:ss with an optional fraction.
  static bool ValidTime(DateTimeDigits& d) {
    if (!d.Number(2, 0, 23) || !d.Char(':') || !d.Number(2, 0, 59) || !d.Char(':') || !d.Number(2, 0, 60)) return false;
    if (d.AtEnd() || d.t[d.i] != '.') return true;
    ++d.i;
    const std::size_t start = d.i;
    while (d.i < d.t.size() && Digit(d.t[d.i])) ++d.i;
    return d.i != start;
  }

  // RFC 3339 as TOML allows it: a date, a time, or both (T, t or a space between), with an
  // optional fraction and offset (Z or +hh:mm). The text is kept as written.
  static bool ValidDateTime(const std::string& t, bool has_date) {
    DateTimeDigits d{t};
    if (has_date) {
      if (!ValidDate(d)) return false;
      if (d.AtEnd()) return true;
      if (t[d.i] != 'T' && t[d.i] != 't' && t[d.i] != ' ') return false;
      ++d.i;
    }
    if (!ValidTime(d)) return false;
    if (d.AtEnd()) return true;
    if (!has_date) return false;  // a local time has no offset
    if ((t[d.i] == 'Z' || t[d.i] == 'z') && d.i + 1 == t.size()) return true;
    if (t[d.i] != '+' && t[d.i] != '-') return false;
    ++d.i;
    return d.Number(2, 0, 23) && d.Char(':') && d.Number(2, 0, 59) && d.AtEnd();
  }

  bool ReadValue(Value& value, int depth) {
    if (depth > kMaxDepth) return Fail("values nested deeper than " + std::to_string(kMaxDepth) + " levels");
    value.line = line;
    value.column = column();
    if (Peek() == '"' || Peek() == '\'') {
      value.kind = Value::Kind::kString;
      if (Peek(1) == Peek() && Peek(2) == Peek()) return ReadMultiLine(value.text, Peek());
      return Peek() == '"' ? ReadBasicString(value.text) : ReadLiteralString(value.text);
    }
    if (Peek() == '[') return ReadArray(value, depth);
    if (Peek() == '{') return ReadInlineTable(value, depth);
    return ReadScalar(value);
  }

  bool ReadArray(Value& value, int depth) {
    value.kind = Value::Kind::kArray;
    Advance();
    for (;;) {
      if (!SkipBlank()) return false;
      if (Peek() == ']') {
        Advance();
        return true;
      }
      Value item;
      if (!ReadValue(item, depth + 1)) return false;
      value.items.push_back(std::move(item));
      if (!SkipBlank()) return false;
      if (Peek() == ',') {
        Advance();
        continue;
      }
      if (Peek() == ']') {
        Advance();
        return true;
      }
      return Fail("expected ',' or ']' in an array, found " + Shown());
    }
  }

  bool ReadInlineTable(Value& value, int depth) {
    value.kind = Value::Kind::kTable;
    value.inline_form = true;
    Advance();
    SkipSpaces();
    if (Peek() == '}') {
      Advance();
      return true;
    }
    for (;;) {
      SkipSpaces();
      const int key_line = line, key_column = column();
      std::vector<std::string> key;
      if (!ReadKey(key)) return false;
      if (Peek() != '=') return Fail("expected '=' after a key, found " + Shown());
      Advance();
      SkipSpaces();
      Value item;
      // A dotted key nests a table a part, as a value does: both count toward the depth.
      if (!ReadValue(item, depth + static_cast<int>(key.size()))) return false;
      if (!Insert(value, key, std::move(item), key_line, key_column, true)) return false;
      SkipSpaces();
      if (Peek() == ',') {
        Advance();
        SkipSpaces();
        if (Peek() == '}') return Fail("a trailing comma is not allowed in an inline table");
        continue;
      }
      if (Peek() == '}') {
        Advance();
        return true;
      }
      return Fail("expected ',' or '}' in an inline table, found " + Shown());
    }
  }

  static std::string Dotted(const std::vector<std::string>& key, std::size_t n) {
    std::string out;
    for (std::size_t i = 0; i < n && i < key.size(); ++i) {
      if (i) out += '.';
      out += Key(key[i]);
    }
    return out;
  }

  // Puts `item` at the dotted `key` under `table`; tables made on the way are dotted ones,
  // which only more dotted keys of the same table may extend.
  bool Insert(Value& table, const std::vector<std::string>& key, Value item, int at_line, int at_column,
              bool inside_inline) {
    Value* here = &table;
    for (std::size_t i = 0; i + 1 < key.size(); ++i) {
      Value* next = here->Find(key[i]);
      if (next == nullptr) {
        Value made = Value::Table(inside_inline);
        made.line = at_line;
        made.column = at_column;
        next = &here->Set(key[i], std::move(made));
        Remember(next, Origin::kDotted);
      } else if (!next->is_table() || (next->inline_form && !inside_inline) ||
                 OriginOf(next) != Origin::kDotted) {
        return FailAt(at_line, at_column, "cannot add keys to " + Dotted(key, i + 1) + ": it is already " +
                                              std::string(KindName(next->kind)) + " defined at line " +
                                              std::to_string(next->line));
      }
      here = next;
    }
    if (const Value* old = here->Find(key.back())) {
      return FailAt(at_line, at_column,
                    "duplicate key " + Dotted(key, key.size()) + " (first at line " + std::to_string(old->line) + ")");
    }
    const bool is_inline_table = item.is_table();
    const bool is_array = item.is_array();
    Value& stored = here->Set(key.back(), std::move(item));
    if (is_inline_table) Remember(&stored, Origin::kInline);
    if (is_array) Remember(&stored, Origin::kStaticArray);
    return true;
  }

  // Walks to the table of a header path; arrays of tables step into their last element.
  Value* Walk(const std::vector<std::string>& key, std::size_t n, int at_line, int at_column) {
    Value* here = &root;
    for (std::size_t i = 0; i < n; ++i) {
      Value* next = here->Find(key[i]);
      if (next == nullptr) {
        Value made = Value::Table();
        made.line = at_line;
        made.column = at_column;
        next = &here->Set(key[i], std::move(made));
      } else if (next->is_array() && OriginOf(next) == Origin::kArrayOfTables) {
        next = &next->items.back();
      } else if (!next->is_table() || next->inline_form) {
        FailAt(at_line, at_column, "cannot define a table under " + Dotted(key, i + 1) + ": it is " +
                                       std::string(KindName(next->kind)) + " (line " + std::to_string(next->line) + ")");
        return nullptr;
      }
      here = next;
    }
    return here;
  }

  bool ReadHeader() {
    const int at_line = line, at_column = column();
    const bool array = Peek(1) == '[';
    Advance();
    if (array) Advance();
    std::vector<std::string> key;
    if (!ReadKey(key)) return false;
    if (Peek() != ']' || (array && Peek(1) != ']')) return Fail(std::string("expected '") + (array ? "]]" : "]") + "' closing a table header, found " + Shown());
    Advance();
    if (array) Advance();
    Value* parent = Walk(key, key.size() - 1, at_line, at_column);
    if (parent == nullptr) return false;
    Value* existing = parent->Find(key.back());
    if (array) {
      if (existing == nullptr) {
        Value list = Value::Array();
        list.line = at_line;
        list.column = at_column;
        existing = &parent->Set(key.back(), std::move(list));
        Remember(existing, Origin::kArrayOfTables);
      } else if (!existing->is_array() || OriginOf(existing) != Origin::kArrayOfTables) {
        return FailAt(at_line, at_column, "[[" + Dotted(key, key.size()) + "]]: already " +
                                              std::string(KindName(existing->kind)) + " defined at line " +
                                              std::to_string(existing->line));
      }
      Value table = Value::Table();
      table.line = at_line;
      table.column = at_column;
      existing->items.push_back(std::move(table));
    } else if (existing == nullptr) {
      Value table = Value::Table();
      table.line = at_line;
      table.column = at_column;
      existing = &parent->Set(key.back(), std::move(table));
      Remember(existing, Origin::kHeader);
    } else if (!existing->is_table() || existing->inline_form || OriginOf(existing) == Origin::kHeader ||
               OriginOf(existing) == Origin::kDotted) {
      return FailAt(at_line, at_column, "[" + Dotted(key, key.size()) + "]: already " +
                                            std::string(KindName(existing->kind)) + " defined at line " +
                                            std::to_string(existing->line));
    } else {
      Remember(existing, Origin::kHeader);  // an implicit table, now defined
      existing->line = at_line;
      existing->column = at_column;
    }
    current = key;
    return EndOfLine();
  }

  bool ReadKeyValue() {
    const int at_line = line, at_column = column();
    std::vector<std::string> key;
    if (!ReadKey(key)) return false;
    if (Peek() != '=') return Fail("expected '=' after the key " + Dotted(key, key.size()) + ", found " + Shown());
    Advance();
    SkipSpaces();
    if (AtEnd() || Peek() == '\n' || Peek() == '#') return Fail("expected a value after '='");
    Value item;
    if (!ReadValue(item, static_cast<int>(current.size() + key.size()) - 1)) return false;
    Value* table = Walk(current, current.size(), at_line, at_column);
    if (table == nullptr) return false;
    if (!Insert(*table, key, std::move(item), at_line, at_column, false)) return false;
    return EndOfLine();
  }

  bool ReadDocument() {
    if (!core::IsValidUtf8(text)) {
      // Find the first bad byte for the location.
      std::size_t i = 0;
      while (i < text.size()) {
        const std::size_t n = core::Utf8SequenceLength(text, i);
        if (n == 0) break;
        i += n;
      }
      while (pos < i) Advance();
      return Fail("not valid UTF-8");
    }
    for (;;) {
      if (!SkipBlank()) return false;
      if (AtEnd()) return true;
      if (Peek() == '[') {
        if (!ReadHeader()) return false;
      } else {
        if (!ReadKeyValue()) return false;
      }
    }
  }
};

bool BareKey(std::string_view key) {
  if (key.empty()) return false;
  return std::all_of(key.begin(), key.end(), [](char c) { return Reader::BareKeyChar(c); });
}

void WriteInline(const Value& v, std::string& out);

void WriteScalarOrInline(const Value& v, std::string& out) {
  switch (v.kind) {
    case Value::Kind::kString: out += Quote(v.text); break;
    case Value::Kind::kInteger: out += std::to_string(v.integer); break;
    case Value::Kind::kBoolean: out += v.boolean ? "true" : "false"; break;
    case Value::Kind::kDateTime: out += v.text; break;
    case Value::Kind::kArray:
    case Value::Kind::kTable: WriteInline(v, out); break;
  }
}

void WriteInline(const Value& v, std::string& out) {
  if (v.is_table()) {
    if (v.entries.empty()) {
      out += "{}";
      return;
    }
    out += "{ ";
    bool first = true;
    for (const auto& [k, item] : v.entries) {
      if (!first) out += ", ";
      first = false;
      out += Key(k);
      out += " = ";
      WriteScalarOrInline(item, out);
    }
    out += " }";
    return;
  }
  // Arrays: one item a line when they hold tables or several items, else on one line.
  const bool tall = v.items.size() > 1 || (!v.items.empty() && v.items[0].is_table());
  if (!tall) {
    out += "[";
    for (const Value& item : v.items) WriteScalarOrInline(item, out);
    out += "]";
    return;
  }
  out += "[\n";
  for (const Value& item : v.items) {
    out += "    ";
    WriteScalarOrInline(item, out);
    out += ",\n";
  }
  out += "]";
}

// An array written as [[path]] tables: every item a table not marked inline.
bool ArrayOfTables(const Value& v) {
  if (!v.is_array() || v.items.empty() || v.inline_form) return false;
  return std::all_of(v.items.begin(), v.items.end(), [](const Value& i) { return i.is_table() && !i.inline_form; });
}

void WriteTable(const Value& table, const std::string& path, bool header_written, std::string& out) {
  // Plain keys first.
  bool wrote_plain = false;
  for (const auto& [k, v] : table.entries) {
    if ((v.is_table() && !v.inline_form) || ArrayOfTables(v)) continue;
    out += Key(k);
    out += " = ";
    WriteScalarOrInline(v, out);
    out += "\n";
    wrote_plain = true;
  }
  (void)header_written;
  (void)wrote_plain;
  for (const auto& [k, v] : table.entries) {
    const std::string child = path.empty() ? Key(k) : path + "." + Key(k);
    if (v.is_table() && !v.inline_form) {
      // A table of tables alone needs no header of its own: [a.b] defines a.
      const bool only_tables = !v.entries.empty() && std::all_of(v.entries.begin(), v.entries.end(), [](const auto& e) {
        return (e.value.is_table() && !e.value.inline_form) || ArrayOfTables(e.value);
      });
      if (!only_tables) {
        if (!out.empty()) out += "\n";
        out += "[" + child + "]\n";
      }
      WriteTable(v, child, true, out);
    } else if (ArrayOfTables(v)) {
      for (const Value& item : v.items) {
        if (!out.empty()) out += "\n";
        out += "[[" + child + "]]\n";
        WriteTable(item, child, true, out);
      }
    }
  }
}

}  // namespace

std::string Key(std::string_view key) { return BareKey(key) ? std::string(key) : Quote(key); }

std::string Quote(std::string_view text) {
  std::string out = "\"";
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\f': out += "\\f"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buffer[8];
          std::snprintf(buffer, sizeof buffer, "\\u%04X", c);
          out += buffer;
        } else {
          out += ch;
        }
    }
  }
  out += "\"";
  return out;
}

core::Expected<Value> Parse(std::string_view text, std::string_view file) {
  Reader reader;
  reader.text = text;
  reader.file = file;
  if (!reader.ReadDocument()) return reader.error;
  return std::move(reader.root);
}

std::string Write(const Value& root) {
  std::string out;
  WriteTable(root, "", false, out);
  return out;
}

bool Same(const Value& a, const Value& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case Value::Kind::kString:
    case Value::Kind::kDateTime: return a.text == b.text;
    case Value::Kind::kInteger: return a.integer == b.integer;
    case Value::Kind::kBoolean: return a.boolean == b.boolean;
    case Value::Kind::kArray:
      if (a.items.size() != b.items.size()) return false;
      for (std::size_t i = 0; i < a.items.size(); ++i) {
        if (!Same(a.items[i], b.items[i])) return false;
      }
      return true;
    case Value::Kind::kTable:
      // Tables are unordered (TOML 1.0): the writer puts plain keys before sub-tables.
      if (a.entries.size() != b.entries.size()) return false;
      for (const auto& [key, value] : a.entries) {
        const Value* other = b.Find(key);
        if (other == nullptr || !Same(value, *other)) return false;
      }
      return true;
  }
  return false;
}

}  // namespace torchdex::installer::toml
