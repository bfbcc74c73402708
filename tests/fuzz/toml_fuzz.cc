// Any bytes as a TOML document and as a lock file: the reader must not crash, hang or
// overflow; every error names the file with a line and column; what it accepts is written
// back (toml::Write, WritePyLock) as text that reads back to the same values.
#include <string>

#include "installer/lock/pylock.h"
#include "installer/lock/toml.h"
#include "tests/fuzz/fuzz_support.h"

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
    TORCHDEX_FUZZ_CHECK(toml::Same(*doc, *again));
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
