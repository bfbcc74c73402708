#include "installer/detect/amd_parsers.h"

#include <algorithm>
#include <charconv>

#include "core/text.h"
#include "installer/platform/text.h"
#include "installer/table/hardware_table.h"

namespace torchdex::installer {

std::optional<KfdNodeProperties> ParseKfdProperties(std::string_view contents) {
  KfdNodeProperties properties;
  bool has_gfx = false;
  for (std::string_view line : SplitLines(contents)) {
    const size_t space = line.find(' ');
    if (space == std::string_view::npos) continue;
    const std::string_view key = line.substr(0, space);
    const std::string_view value = Trim(line.substr(space + 1));
    uint64_t number = 0;
    auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
    if (error != std::errc() || end != value.data() + value.size()) continue;
    if (key == "gfx_target_version") {
      properties.gfx_target_version = number;
      has_gfx = true;
    } else if (key == "vendor_id") {
      properties.vendor_id = static_cast<unsigned>(number);
    } else if (key == "device_id") {
      properties.device_id = static_cast<unsigned>(number);
    }
  }
  if (!has_gfx) return std::nullopt;
  return properties;
}

std::optional<std::string> GfxFromTargetVersion(uint64_t version) {
  if (version == 0) return std::nullopt;
  const uint64_t major = version / 10000;
  const uint64_t minor = (version / 100) % 100;
  const uint64_t stepping = version % 100;
  if (major == 0 || major > 99 || minor > 15 || stepping > 15) return std::nullopt;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string name = "gfx" + std::to_string(major);
  name += kHex[minor];
  name += kHex[stepping];
  return name;
}

bool IsGfxName(std::string_view text) {
  if (!StartsWith(text, "gfx")) return false;
  const std::string_view digits = text.substr(3);
  return digits.size() >= 3 && digits.size() <= 4 &&
         std::all_of(digits.begin(), digits.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

std::vector<std::string> ParseRocmAgentEnumerator(std::string_view output) {
  std::vector<std::string> names;
  for (std::string_view line : SplitLines(output)) {
    std::string_view name = Trim(line);
    name = name.substr(0, name.find(':'));
    if (!IsGfxName(name) || name == "gfx000") continue;
    if (std::find(names.begin(), names.end(), name) == names.end()) names.emplace_back(name);
  }
  return names;
}

std::optional<std::string> ParseRocmVersionFile(std::string_view contents) {
  std::string_view version = Trim(contents);
  version = version.substr(0, version.find('-'));
  const std::vector<unsigned> numbers = core::ParseDottedNumbers(version);
  if (numbers.size() < 2 || numbers.size() > 3) return std::nullopt;
  return std::string(version);
}

}  // namespace torchdex::installer
