// Wheel filenames (PEP 427 and the binary distribution format spec):
// {name}-{version}(-{build tag})?-{python tag}-{abi tag}-{platform tag}.whl,
// where each tag part may be a compressed set ("manylinux_2_17_x86_64.manylinux2014_x86_64").
#ifndef TORCHDEX_CORE_WHEEL_H_
#define TORCHDEX_CORE_WHEEL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.h"
#include "core/tags.h"
#include "core/version.h"

namespace torchdex::core {

struct BuildTag {
  std::uint64_t number = 0;  // the leading digits
  std::string suffix;        // what follows them
  friend auto operator<=>(const BuildTag&, const BuildTag&) = default;
};

struct WheelFilename {
  std::string name;  // PEP 503 normalised
  Version version;
  std::optional<BuildTag> build;
  std::vector<std::string> python_tags;  // "cp312", "py3"
  std::vector<std::string> abi_tags;     // "cp312", "abi3", "none"
  std::vector<std::string> platform_tags;

  /// The expanded tag set: every (python, abi, platform) combination.
  std::vector<Tag> Tags() const;
};

/// The tags of a wheel's tag part, "python-abi-platform" with each '.'-compressed
/// ("cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64"), read as ParseWheelFilename reads
/// a filename's last three parts (lower-cased, the python tags identifiers); the expanded set.
Expected<std::vector<Tag>> ParseWheelTags(std::string_view spelled);

/// Parses a wheel filename, already percent-decoded ("torch-2.5.1+cu124-cp312-...").
/// Each malformed part has its own message naming the part and the filename.
Expected<WheelFilename> ParseWheelFilename(std::string_view filename);

}  // namespace torchdex::core

#endif  // TORCHDEX_CORE_WHEEL_H_
