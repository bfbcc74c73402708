// Any input: ParseWheelFilename must not crash; what it accepts is well formed (a normalised
// valid name, non-empty tag sets without empty elements, every combination in Tags()), and the
// filename written back from the parsed parts parses to the same parts.
#include <string>

#include "core/name.h"
#include "core/wheel.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

std::string Join(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& part : parts) {
    if (!out.empty()) out.push_back('.');
    out.append(part);
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using torchdex::core::ParseWheelFilename;
  auto parsed = ParseWheelFilename(FuzzInput(data, size));
  if (!parsed) {
    TORCHDEX_FUZZ_CHECK(parsed.error().message.starts_with("invalid wheel filename '"));
    return 0;
  }
  const auto& wheel = *parsed;
  // The name part as packaging's parse_wheel_filename takes it (word characters, '.', '_'; a
  // trailing '.' included, which a PEP 508 requirement name may not have), normalised.
  TORCHDEX_FUZZ_CHECK(!wheel.name.empty());
  TORCHDEX_FUZZ_CHECK(torchdex::core::NormalizeName(wheel.name) == wheel.name);
  for (const auto* tags : {&wheel.python_tags, &wheel.abi_tags, &wheel.platform_tags}) {
    TORCHDEX_FUZZ_CHECK(!tags->empty());
    for (const std::string& tag : *tags) TORCHDEX_FUZZ_CHECK(!tag.empty());
  }
  TORCHDEX_FUZZ_CHECK(wheel.Tags().size() == wheel.python_tags.size() * wheel.abi_tags.size() *
                                                 wheel.platform_tags.size());

  // Written back the way build backends escape names ('-' becomes '_').
  std::string name = wheel.name;
  for (char& c : name) {
    if (c == '-') c = '_';
  }
  std::string again = name + "-" + wheel.version.ToString();
  if (wheel.build) again += "-" + std::to_string(wheel.build->number) + wheel.build->suffix;
  again += "-" + Join(wheel.python_tags) + "-" + Join(wheel.abi_tags) + "-" +
           Join(wheel.platform_tags) + ".whl";
  auto reparsed = ParseWheelFilename(again);
  TORCHDEX_FUZZ_CHECK(reparsed.ok());
  TORCHDEX_FUZZ_CHECK(reparsed->name == wheel.name);
  TORCHDEX_FUZZ_CHECK(reparsed->version == wheel.version);
  TORCHDEX_FUZZ_CHECK(reparsed->build == wheel.build);
  TORCHDEX_FUZZ_CHECK(reparsed->Tags() == wheel.Tags());
  return 0;
}
