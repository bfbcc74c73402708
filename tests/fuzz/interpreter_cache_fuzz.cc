// Any bytes as an entry of the interpreter cache (a file anyone with the user's rights can
// damage) and as the interpreter's reply: no crash, hang or overflow; an entry is taken only
// with its header and the key's hash, and a reply that parses names its interpreter.
#include <string>

#include "installer/python/interpreter.h"
#include "installer/python/interpreter_cache.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace installer = torchdex::installer;
  const std::string_view input = FuzzInput(data, size);
  const std::string key = "script=1:x\n";
  const std::string reply = installer::InterpreterCacheEntryReply(input, key);
  if (!reply.empty()) {
    TORCHDEX_FUZZ_CHECK(input.starts_with("torchdex interpreter cache 1\n"));
    TORCHDEX_FUZZ_CHECK(input.ends_with(reply));
  }
  for (std::string_view text : {input, std::string_view(reply)}) {
    auto parsed = installer::ParseInterpreterReply(text, "/f/python");
    if (!parsed) {
      TORCHDEX_FUZZ_CHECK(parsed.error().message.rfind("python interpreter /f/python: ", 0) == 0);
    } else {
      TORCHDEX_FUZZ_CHECK(!parsed->path.empty());
      TORCHDEX_FUZZ_CHECK(!parsed->full_version.empty());
    }
  }
  return 0;
}
