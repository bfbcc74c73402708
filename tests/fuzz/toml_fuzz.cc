// Any bytes as a TOML document and as a lock file: the reader must not crash, hang or
// overflow; every error names the file with a line and column; what it accepts is written
// back (toml::Write, WritePyLock) as text that reads back to the same values.
#include <string>

#include "installer/lock/pylock.h"
#include "installer/lock/toml.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using torchdex::installer::toml::Value;

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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace toml = torchdex::installer::toml;
  const std::string_view input = FuzzInput(data, size);
  auto doc = toml::Parse(input, "f.toml");
  if (!doc) {
    TORCHDEX_FUZZ_CHECK(doc.error().message.rfind("f.toml:", 0) == 0);
  } else {
    const std::string written = toml::Write(*doc);
    auto again = toml::Parse(written, "w.toml");
    TORCHDEX_FUZZ_CHECK(again.ok());
    TORCHDEX_FUZZ_CHECK(Same(*doc, *again));
  }
  auto lock = torchdex::installer::ParsePyLock(input, "pylock.f.toml");
  if (!lock) {
    TORCHDEX_FUZZ_CHECK(lock.error().message.rfind("pylock.f.toml:", 0) == 0);
    return 0;
  }
  const std::string written = torchdex::installer::WritePyLock(*lock);
  auto again = torchdex::installer::ParsePyLock(written, "pylock.w.toml");
  TORCHDEX_FUZZ_CHECK(again.ok());
  TORCHDEX_FUZZ_CHECK(torchdex::installer::WritePyLock(*again) == written);
  return 0;
}
