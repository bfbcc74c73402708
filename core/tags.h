// Platform compatibility tags: the ordered list of tags an interpreter supports, in the order
// packaging.tags.sys_tags() yields them (most preferred first), and whether a wheel fits.
#ifndef TORCHDEX_CORE_TAGS_H_
#define TORCHDEX_CORE_TAGS_H_

#include <compare>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.h"

namespace torchdex::core {

struct Tag {
  std::string interpreter;  // "cp312"
  std::string abi;          // "cp312", "cp313t", "abi3", "none"
  std::string platform;     // "manylinux_2_17_x86_64", "win_amd64", "any"
  std::string ToString() const;  // "cp312-cp312-manylinux_2_17_x86_64"
  friend auto operator<=>(const Tag&, const Tag&) = default;
};

/// A hash of a tag's three parts as they are (no "a-b-c" string built): what the sets of tags
/// (core's, the installer table's) index by.
std::size_t TagHash(std::string_view interpreter, std::string_view abi, std::string_view platform);

enum class OperatingSystem : std::uint8_t { kLinux, kMacOS, kWindows };
enum class Libc : std::uint8_t { kGlibc, kMusl };

/// What the tags of an interpreter depend on. Everything an installer learns by asking the
/// target interpreter once, or by the user naming a target platform.
struct InterpreterInfo {
  std::string implementation = "cp";  // "cp" (CPython) or "pp" (PyPy); others get generic tags
  int python_major = 3;
  int python_minor = 12;
  bool free_threaded = false;  // CPython built with Py_GIL_DISABLED (3.13t)
  bool debug = false;          // CPython built with Py_DEBUG
  std::string pypy_abi;        // PyPy's SOABI-derived ABI, "pypy310_pp73"
  OperatingSystem os = OperatingSystem::kLinux;
  std::string arch = "x86_64";  // "x86_64", "aarch64", "arm64", "AMD64"-style names normalised
  Libc libc = Libc::kGlibc;
  int libc_major = 2;   // glibc 2.36 -> 2, 36; musl 1.2 -> 1, 2
  int libc_minor = 17;
  int macos_major = 11;  // macOS 14.4 -> 14, 4
  int macos_minor = 0;
};

/// The bounds of the numbers that size the tag lists' loops (a minor version counts down to 0):
/// far beyond any real interpreter or libc, and each answer from outside (an interpreter's
/// reply, --python-version, --platform, the machine's glibc) is checked against them where it
/// enters (issue 29, item 7: a minor version of 2147483648 ran out of memory).
inline constexpr int kMaxPythonMajor = 9;
inline constexpr int kMaxPythonMinor = 99;
inline constexpr int kMaxLibcMajor = 9;
inline constexpr int kMaxLibcMinor = 999;
inline constexpr int kMaxMacosVersion = 99;

/// An error naming the first number out of its bound ("python minor version 2147483648 is out of
/// range (0-99)"), or ok.
Status CheckInterpreterBounds(const InterpreterInfo& info);

/// Every tag the interpreter accepts, most preferred first (packaging.tags.sys_tags order).
/// The numbers of `info` must pass CheckInterpreterBounds; past them the lists are cut there.
std::vector<Tag> SupportedTags(const InterpreterInfo& info);

/// The tags that any of `interpreters` accepts, each once, at its first place in the
/// concatenation of their SupportedTags lists: what "any of these Pythons" may install. The
/// order of first places is the concatenation's, so BestTagRank and TagRanking rank wheels
/// against it as they would against the concatenation (the numbers are smaller). Joining the
/// six CPythons 3.9-3.14 this way gives about a quarter of the concatenation's tags.
std::vector<Tag> SupportedTagsOfAny(std::span<const InterpreterInfo> interpreters);

/// The platform tags alone, most preferred first ("manylinux_2_36_x86_64", ..., "linux_x86_64").
std::vector<std::string> PlatformTags(const InterpreterInfo& info);

/// The rank (0 = best) of the best tag of `wheel_tags` in `supported`, or nullopt when no tag
/// fits. `supported` is what SupportedTags returned.
std::optional<std::size_t> BestTagRank(std::span<const Tag> wheel_tags,
                                       std::span<const Tag> supported);

/// BestTagRank for many wheels against one `supported` list (every wheel of an index page):
/// the lookup is built once, then each wheel tag costs a binary search instead of a scan.
class TagRanking {
 public:
  explicit TagRanking(std::span<const Tag> supported);

  /// The rank of `tag` in `supported` (its first position), or nullopt.
  std::optional<std::size_t> Rank(const Tag& tag) const;
  /// Same answer as BestTagRank(wheel_tags, supported).
  std::optional<std::size_t> BestRank(std::span<const Tag> wheel_tags) const;

 private:
  struct Entry {
    Tag tag;
    std::size_t rank;
  };
  std::vector<Entry> by_tag_;  // sorted by tag, one entry per distinct tag
};

}  // namespace torchdex::core

#endif  // TORCHDEX_CORE_TAGS_H_
