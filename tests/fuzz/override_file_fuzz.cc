// Any bytes as an override file: ParseOverrideFile must not crash, throw or abort (1e999999
// once aborted every command), every error names the file, and an accepted file carries only
// values that cannot inject lines into an export (no control characters or spaces in URLs and
// trusted hosts) and that parse again through the typed values they became.
#include <algorithm>
#include <string>

#include "installer/override_files/override_files.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

bool Clean(const std::string& text) {
  return !text.empty() && std::none_of(text.begin(), text.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u <= 0x20 || u == 0x7f;
  });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace torchdex::installer;
  const std::string_view input = FuzzInput(data, size);
  auto file = ParseOverrideFile(input, "/fuzz/o.json");
  if (!file) {
    TORCHDEX_FUZZ_CHECK(file.error().message.rfind("/fuzz/o.json", 0) == 0);
    return 0;
  }
  if (file->mirror) TORCHDEX_FUZZ_CHECK(Clean(*file->mirror) && file->mirror->back() == '/');
  for (const auto& [name, url] : file->backend_urls) TORCHDEX_FUZZ_CHECK(Clean(url));
  for (const std::string& host : file->trusted_hosts) TORCHDEX_FUZZ_CHECK(Clean(host));
  for (const auto& [name, b] : file->custom_backends) {
    TORCHDEX_FUZZ_CHECK(Clean(b.index_url));
    for (const auto& [os, floor] : b.driver_floor) {
      TORCHDEX_FUZZ_CHECK(torchdex::core::DriverVersion::Parse(floor.ToString()) == floor);
    }
    for (const auto& cc : b.cuda_arch) TORCHDEX_FUZZ_CHECK(torchdex::core::ComputeCapability::Parse(cc.ToString()) == cc);
  }
  return 0;
}
