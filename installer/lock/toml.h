// A small, strict TOML (https://toml.io/en/v1.0.0) reader and writer for what PEP 751 lock files
// use (https://peps.python.org/pep-0751/): tables, arrays of tables, inline tables, basic and
// literal strings (multi-line too) with their escapes, integers, booleans, arrays, and dates
// and times, which are kept as their text. Floats are refused: no lock file key is one.
// Errors say where: "FILE:LINE:COLUMN: what". Pure; no I/O.
#ifndef TORCHDEX_INSTALLER_LOCK_TOML_H_
#define TORCHDEX_INSTALLER_LOCK_TOML_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/expected.h"

namespace torchdex::installer::toml {

struct Entry;

struct Value {
  enum class Kind { kString, kInteger, kBoolean, kDateTime, kArray, kTable };
  Kind kind = Kind::kTable;
  std::string text;          // kString: the value; kDateTime: as written (RFC 3339)
  std::int64_t integer = 0;  // kInteger
  bool boolean = false;      // kBoolean
  std::vector<Value> items;  // kArray
  std::vector<Entry> entries;  // kTable, in the order written
  // Where the value (a table: its header or its first key) was written; 0 when built in code.
  int line = 0;
  int column = 0;
  // The writer's form: an inline table `{ a = 1 }`, an array on one line per item. A table
  // read from an inline table keeps it.
  bool inline_form = false;
  // The reader's bookkeeping: how a table or array came to be (a header, dotted keys, [[x]]),
  // so that a table is defined once and an inline one never extended. Ignored elsewhere.
  std::uint8_t origin = 0;
  // Find's index of a large table's keys (key -> position in `entries`), made on first need;
  // copies share it until one of them adds a key (issue 29, item 8: a table of 100,000 keys
  // took a scan of every key before it for each).
  using KeyIndex = std::unordered_map<std::string, std::size_t>;
  mutable std::shared_ptr<KeyIndex> key_index;

  // Defined after the class, where Value and Entry are complete.
  static Value String(std::string s);
  static Value Integer(std::int64_t i);
  static Value Boolean(bool b);
  static Value Array();
  static Value Table(bool inline_form = false);

  /// The entry `key` of a table; null when absent (or when this is not a table). A table of
  /// many keys is looked up through an index, so reading one is linear in its size.
  const Value* Find(std::string_view key) const;
  Value* Find(std::string_view key) { return const_cast<Value*>(std::as_const(*this).Find(key)); }
  /// Adds or replaces `key` in a table; returns the stored value.
  Value& Set(std::string key, Value value);
  bool is_table() const { return kind == Kind::kTable; }
  bool is_array() const { return kind == Kind::kArray; }
  bool is_string() const { return kind == Kind::kString; }
};

/// One key of a table and its value (a plain struct, not std::pair: a pair of an incomplete
/// Value cannot be checked for default construction, which libstdc++ does under clang).
struct Entry {
  std::string key;
  Value value;
};

inline Value Value::String(std::string s) {
  Value v;
  v.kind = Kind::kString;
  v.text = std::move(s);
  return v;
}
inline Value Value::Integer(std::int64_t i) {
  Value v;
  v.kind = Kind::kInteger;
  v.integer = i;
  return v;
}
inline Value Value::Boolean(bool b) {
  Value v;
  v.kind = Kind::kBoolean;
  v.boolean = b;
  return v;
}
inline Value Value::Array() {
  Value v;
  v.kind = Kind::kArray;
  return v;
}
inline Value Value::Table(bool inline_form) {
  Value v;
  v.kind = Kind::kTable;
  v.inline_form = inline_form;
  return v;
}

/// Equal as TOML sees them: the same kinds and values, tables whatever their order; not where
/// they were written or how (line, column, inline form). What Write then Parse must keep.
bool Same(const Value& a, const Value& b);

/// "a string", "an integer", ... for errors.
std::string_view KindName(Value::Kind kind);

/// Parses a whole document into its root table. `file` prefixes every error message.
core::Expected<Value> Parse(std::string_view text, std::string_view file);

/// Writes a root table: its plain keys first, then each sub-table as `[a.b]`, each array of
/// tables as `[[a.b]]`; tables and arrays marked inline_form are written in place. The text
/// parses back to the same values. Strings are written as basic strings with escapes.
std::string Write(const Value& root);

/// A key as TOML writes it: bare when it can be, else a quoted basic string.
std::string Key(std::string_view key);
/// A basic string with its escapes: "a\"b\n".
std::string Quote(std::string_view text);

}  // namespace torchdex::installer::toml

#endif  // TORCHDEX_INSTALLER_LOCK_TOML_H_
