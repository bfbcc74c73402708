// The order of every list here is the order of packaging.tags (packaging 26.x, tags.py,
// _manylinux.py and _musllinux.py); the function named in each comment is the one reproduced.
// pip ranks candidate wheels by the position of their best tag in sys_tags(), so a different
// order here picks a different wheel than pip would.
#include "core/tags.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <tuple>
#include <unordered_set>
#include <utility>

namespace torchdex::core {
namespace {

std::string ToLowerAscii(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// packaging.tags._normalize_string, plus the lowercasing that packaging.tags.Tag applies.
std::string NormalizeTagString(std::string_view text) {
  std::string out = ToLowerAscii(text);
  std::replace_if(
      out.begin(), out.end(), [](char c) { return c == '.' || c == '-' || c == ' '; }, '_');
  return out;
}

// "3", "12" -> "312" (packaging.tags._version_nodot).
std::string VersionNodot(int major, int minor) {
  return std::to_string(major) + std::to_string(minor);
}

bool AtLeast(int major, int minor, int want_major, int want_minor) {
  return std::pair(major, minor) >= std::pair(want_major, want_minor);
}

// Builds the tag in its place in the list (no temporary Tag moved in).
void AppendTag(std::vector<Tag>& out, std::string_view interpreter, std::string_view abi,
               std::string_view platform) {
  Tag& tag = out.emplace_back();
  tag.interpreter.assign(interpreter);
  tag.abi.assign(abi);
  tag.platform.assign(platform);
}

// Where the tag generators below put what they yield: a list, or a list that keeps each tag once.
class TagSink {
 public:
  virtual void Add(std::string_view interpreter, std::string_view abi, std::string_view platform) = 0;
  /// interpreter-abi on each of `platforms`, in their order.
  virtual void AddRow(std::string_view interpreter, std::string_view abi,
                      const std::vector<std::string>& platforms) {
    for (const std::string& platform : platforms) Add(interpreter, abi, platform);
  }

 protected:
  ~TagSink() = default;
};

class ListSink final : public TagSink {
 public:
  explicit ListSink(std::vector<Tag>& out) : out_(out) {}
  void Add(std::string_view interpreter, std::string_view abi, std::string_view platform) override {
    AppendTag(out_, interpreter, abi, platform);
  }

 private:
  std::vector<Tag>& out_;
};

// ---- Linux: packaging.tags._linux_platforms ----

// glibc and musl tags name the machine as uname does; accept the other spellings callers use.
std::string LinuxArch(std::string_view arch) {
  std::string normal = NormalizeTagString(arch);
  if (normal == "amd64") return "x86_64";
  if (normal == "arm64") return "aarch64";
  return normal;
}

// packaging._manylinux._LEGACY_MANYLINUX_MAP: the PEP 513/571/599 names, each yielded right
// after the manylinux_2_x tag of the same glibc.
std::string_view LegacyManylinux(int glibc_major, int glibc_minor) {
  if (glibc_major != 2) return {};
  switch (glibc_minor) {
    case 17:
      return "manylinux2014";  // CentOS 7, PEP 599
    case 12:
      return "manylinux2010";  // CentOS 6, PEP 571
    case 5:
      return "manylinux1";  // CentOS 5, PEP 513
    default:
      return {};
  }
}

// packaging._manylinux.platform_tags.
void AppendManylinux(const InterpreterInfo& info, const std::vector<std::string>& archs,
                     std::vector<std::string>& out) {
  // The oldest glibc with manylinux wheels: 2.17 everywhere, 2.5 on x86 (manylinux1).
  int too_old_major = 2;
  int too_old_minor = 16;
  for (const std::string& arch : archs) {
    if (arch == "x86_64" || arch == "i686") too_old_minor = 4;
  }
  // "We can assume compatibility across glibc major versions": every older major counts, from
  // _LAST_GLIBC_MINOR (a defaultdict that answers 50) down to its minor 0.
  constexpr int kLastGlibcMinor = 50;
  std::vector<std::pair<int, int>> glibc_max_list = {{info.libc_major, info.libc_minor}};
  for (int major = info.libc_major - 1; major > 1; --major) {
    glibc_max_list.emplace_back(major, kLastGlibcMinor);
  }
  for (const std::string& arch : archs) {
    for (const auto& [major, max_minor] : glibc_max_list) {
      const int min_minor = (major == too_old_major) ? too_old_minor : -1;
      for (int minor = max_minor; minor > min_minor; --minor) {
        out.push_back("manylinux_" + std::to_string(major) + "_" + std::to_string(minor) + "_" +
                      arch);
        const std::string_view legacy = LegacyManylinux(major, minor);
        if (!legacy.empty()) out.push_back(std::string(legacy) + "_" + arch);
      }
    }
  }
}

// packaging._musllinux.platform_tags.
void AppendMusllinux(const InterpreterInfo& info, const std::vector<std::string>& archs,
                     std::vector<std::string>& out) {
  for (const std::string& arch : archs) {
    for (int minor = info.libc_minor; minor >= 0; --minor) {
      out.push_back("musllinux_" + std::to_string(info.libc_major) + "_" + std::to_string(minor) +
                    "_" + arch);
    }
  }
}

std::vector<std::string> LinuxPlatforms(const InterpreterInfo& info) {
  const std::string arch = LinuxArch(info.arch);
  // A 32-bit ARM userland on a 64-bit core reports armv8l and runs armv7l wheels.
  std::vector<std::string> archs = {arch};
  if (arch == "armv8l") archs.push_back("armv7l");
  std::vector<std::string> out;
  // The native linux_ tags come first since packaging 26.3 (pypa/packaging#160): a wheel
  // built on this machine is preferred to a portable one. Before, they came last.
  for (const std::string& each : archs) out.push_back("linux_" + each);
  // Only one of the two yields anything: _manylinux asks for glibc, _musllinux for musl.
  if (info.libc == Libc::kGlibc) AppendManylinux(info, archs, out);
  if (info.libc == Libc::kMusl) AppendMusllinux(info, archs, out);
  return out;
}

// ---- macOS: packaging.tags.mac_platforms ----

std::string MacArch(std::string_view arch) {
  std::string normal = NormalizeTagString(arch);
  if (normal == "aarch64") return "arm64";
  if (normal == "amd64") return "x86_64";
  return normal;
}

// packaging.tags._mac_binary_formats: the fat/universal formats that contain `arch`.
std::vector<std::string> MacBinaryFormats(int major, int minor, const std::string& arch) {
  const auto version = std::pair(major, minor);
  const auto v10_4 = std::pair(10, 4);
  std::vector<std::string> formats = {arch};
  // "fat3" (i386, ppc and x86_64) as CPython's _osx_support names it; packaging before 26
  // wrote "fat32", a name no build ever had.
  if (arch == "x86_64") {
    if (version < v10_4) return {};
    formats.insert(formats.end(), {"intel", "fat64", "fat3"});
  } else if (arch == "i386") {
    if (version < v10_4) return {};
    formats.insert(formats.end(), {"intel", "fat3", "fat"});
  } else if (arch == "ppc64") {
    if (version > std::pair(10, 5) || version < v10_4) return {};
    formats.push_back("fat64");
  } else if (arch == "ppc") {
    if (version > std::pair(10, 6)) return {};
    formats.insert(formats.end(), {"fat3", "fat"});
  }
  if (arch == "arm64" || arch == "x86_64") formats.push_back("universal2");
  if (arch == "x86_64" || arch == "i386" || arch == "ppc64" || arch == "ppc" || arch == "intel") {
    formats.push_back("universal");
  }
  return formats;
}

void AppendMacVersion(int major, int minor, const std::string& arch,
                      std::vector<std::string>& out) {
  for (const std::string& format : MacBinaryFormats(major, minor, arch)) {
    out.push_back("macosx_" + std::to_string(major) + "_" + std::to_string(minor) + "_" + format);
  }
}

std::vector<std::string> MacPlatforms(const InterpreterInfo& info) {
  const std::string arch = MacArch(info.arch);
  const auto version = std::pair(info.macos_major, info.macos_minor);
  std::vector<std::string> out;
  if (version >= std::pair(10, 0) && version < std::pair(11, 0)) {
    // Before macOS 11 each yearly release bumped the minor version; the major was always 10.
    for (int minor = info.macos_minor; minor >= 0; --minor) AppendMacVersion(10, minor, arch, out);
  }
  if (version >= std::pair(11, 0)) {
    // From macOS 11 each yearly release bumps the major; minors are midyear updates, and
    // wheels are tagged with minor 0.
    for (int major = info.macos_major; major > 10; --major) AppendMacVersion(major, 0, arch, out);
    // x86_64 runs binaries built for every earlier release. arm64 first shipped in 11.0, so
    // only universal2 wheels (whose x86_64 half may target 10.x) carry an older tag.
    // 10.16 is what macOS 11 reports to Pythons built against an old SDK.
    for (int minor = 16; minor > 3; --minor) {
      if (arch == "x86_64") {
        AppendMacVersion(10, minor, arch, out);
      } else {
        out.push_back("macosx_10_" + std::to_string(minor) + "_universal2");
      }
    }
  }
  return out;
}

// ---- Windows: packaging.tags._generic_platforms, i.e. sysconfig.get_platform() ----

std::vector<std::string> WindowsPlatforms(const InterpreterInfo& info) {
  const std::string arch = NormalizeTagString(info.arch);
  if (arch == "x86_64" || arch == "amd64") return {"win_amd64"};
  if (arch == "arm64" || arch == "aarch64") return {"win_arm64"};
  if (arch == "x86" || arch == "i686" || arch == "i386" || arch == "win32") return {"win32"};
  return {"win_" + arch};  // sysconfig spells any other as "win-<arch>"
}

// ---- Interpreter tags: packaging.tags.cpython_tags, generic_tags, compatible_tags ----

// packaging.tags._cpython_abis, with the build flags given instead of read from sysconfig.
std::vector<std::string> CpythonAbis(const InterpreterInfo& info) {
  const std::string version = VersionNodot(info.python_major, info.python_minor);
  const bool before_3_8 = !AtLeast(info.python_major, info.python_minor, 3, 8);
  // Free-threading exists from 3.13 on (Py_GIL_DISABLED).
  const std::string threading =
      (info.free_threaded && AtLeast(info.python_major, info.python_minor, 3, 13)) ? "t" : "";
  const std::string debug = info.debug ? "d" : "";
  // Before 3.8 the ABI carried pymalloc's "m" (on by default). The "u" of UCS-4 builds before
  // 3.3 depends on the build and is not modelled: nothing torchdex installs supports them.
  const std::string pymalloc = before_3_8 ? "m" : "";
  std::vector<std::string> abis = {"cp" + version + threading + debug + pymalloc};
  // From 3.8 on, debug builds also load extension modules built for the release ABI.
  if (!before_3_8 && info.debug) abis.push_back("cp" + version + threading);
  return abis;
}

// packaging.tags._py_interpreter_range: "py312", "py3", "py311", ..., "py30".
std::vector<std::string> PyInterpreterRange(const InterpreterInfo& info) {
  std::vector<std::string> range = {"py" + VersionNodot(info.python_major, info.python_minor),
                                    "py" + std::to_string(info.python_major)};
  for (int minor = info.python_minor - 1; minor >= 0; --minor) {
    range.push_back("py" + VersionNodot(info.python_major, minor));
  }
  return range;
}

void CpythonTags(const InterpreterInfo& info, const std::vector<std::string>& platforms,
                 TagSink& out) {
  const std::string interpreter = "cp" + VersionNodot(info.python_major, info.python_minor);
  const std::vector<std::string> abis = CpythonAbis(info);
  for (const std::string& abi : abis) {
    out.AddRow(interpreter, abi, platforms);
  }
  // packaging.tags._abi3_applies and _abi3t_applies: PEP 384 arrived in 3.2; a free-threaded
  // build has no abi3 but PEP 803's abi3t (packaging 26.1), which packaging offers back to 3.2
  // as it does abi3. It looks for the "t" in the first ABI, which CpythonAbis put there.
  const bool threaded = abis.front().find('t') != std::string::npos;
  const std::string_view stable_abi = threaded ? "abi3t" : "abi3";
  const bool use_stable_abi = AtLeast(info.python_major, info.python_minor, 3, 2);
  if (use_stable_abi) {
    out.AddRow(interpreter, stable_abi, platforms);
  }
  out.AddRow(interpreter, "none", platforms);
  if (use_stable_abi) {
    // Stable-ABI wheels built for any older 3.x down to 3.2, newest first.
    for (int minor = info.python_minor - 1; minor > 1; --minor) {
      const std::string older = "cp" + VersionNodot(info.python_major, minor);
      out.AddRow(older, stable_abi, platforms);
    }
  }
}

// packaging.tags.generic_tags: each ABI, then "none" unless it was one of them.
void GenericTags(const std::string& interpreter, std::vector<std::string> abis,
                 const std::vector<std::string>& platforms, TagSink& out) {
  if (std::find(abis.begin(), abis.end(), "none") == abis.end()) abis.push_back("none");
  for (const std::string& abi : abis) {
    out.AddRow(interpreter, abi, platforms);
  }
}

// packaging.tags.compatible_tags: pure-Python wheels, platform-specific ones first.
void CompatibleTags(const InterpreterInfo& info, std::string_view interpreter,
                    const std::vector<std::string>& platforms, TagSink& out) {
  const std::vector<std::string> range = PyInterpreterRange(info);
  for (const std::string& version : range) {
    out.AddRow(version, "none", platforms);
  }
  if (!interpreter.empty()) out.Add(interpreter, "none", "any");
  for (const std::string& version : range) out.Add(version, "none", "any");
}

bool SameTag(const Tag& a, const Tag& b) {
  // Platforms differ most often between a wheel's tags and the supported ones: test them first.
  return a.platform == b.platform && a.abi == b.abi && a.interpreter == b.interpreter;
}

}  // namespace

std::string Tag::ToString() const { return interpreter + "-" + abi + "-" + platform; }

std::size_t TagHash(std::string_view interpreter, std::string_view abi, std::string_view platform) {
  const std::hash<std::string_view> hash;
  return hash(platform) ^ (hash(abi) * 31) ^ (hash(interpreter) * 1000003);
}

Status CheckInterpreterBounds(const InterpreterInfo& info) {
  const struct {
    const char* what;
    int value, low, high;
  } numbers[] = {{"python major version", info.python_major, 2, kMaxPythonMajor},
                 {"python minor version", info.python_minor, 0, kMaxPythonMinor},
                 {"libc major version", info.libc_major, 0, kMaxLibcMajor},
                 {"libc minor version", info.libc_minor, 0, kMaxLibcMinor},
                 {"macOS major version", info.macos_major, 0, kMaxMacosVersion},
                 {"macOS minor version", info.macos_minor, 0, kMaxMacosVersion}};
  for (const auto& n : numbers) {
    if (n.value < n.low || n.value > n.high) {
      return MakeError(std::string(n.what) + " " + std::to_string(n.value) + " is out of range (" +
                       std::to_string(n.low) + "-" + std::to_string(n.high) + ")");
    }
  }
  return {};
}

namespace {

// `info` within the bounds, for the loops below: every caller checks first, so this only holds
// when one did not.
InterpreterInfo Bounded(InterpreterInfo info) {
  info.python_major = std::clamp(info.python_major, 2, kMaxPythonMajor);
  info.python_minor = std::clamp(info.python_minor, 0, kMaxPythonMinor);
  info.libc_major = std::clamp(info.libc_major, 0, kMaxLibcMajor);
  info.libc_minor = std::clamp(info.libc_minor, 0, kMaxLibcMinor);
  info.macos_major = std::clamp(info.macos_major, 0, kMaxMacosVersion);
  info.macos_minor = std::clamp(info.macos_minor, 0, kMaxMacosVersion);
  return info;
}

}  // namespace

std::vector<std::string> PlatformTags(const InterpreterInfo& given) {
  const InterpreterInfo info = Bounded(given);
  switch (info.os) {
    case OperatingSystem::kLinux:
      return LinuxPlatforms(info);
    case OperatingSystem::kMacOS:
      return MacPlatforms(info);
    case OperatingSystem::kWindows:
      return WindowsPlatforms(info);
  }
  return {};
}

namespace {

// packaging.tags.sys_tags.
void YieldSupportedTags(const InterpreterInfo& given, TagSink& tags) {
  const InterpreterInfo info = Bounded(given);
  const std::vector<std::string> platforms = PlatformTags(info);
  const std::string implementation = ToLowerAscii(info.implementation);
  const std::string version = VersionNodot(info.python_major, info.python_minor);
  if (implementation == "cp") {
    CpythonTags(info, platforms, tags);
    CompatibleTags(info, "cp" + version, platforms, tags);
  } else if (implementation == "pp") {
    // interpreter_name() + interpreter_version(): PyPy's Python version, "pp310".
    std::vector<std::string> abis;
    if (!info.pypy_abi.empty()) abis.push_back(NormalizeTagString(info.pypy_abi));
    GenericTags("pp" + version, std::move(abis), platforms, tags);
    // sys_tags names PyPy "pp3" here, whatever its version.
    CompatibleTags(info, "pp3", platforms, tags);
  } else {
    GenericTags(implementation + version, {}, platforms, tags);
    CompatibleTags(info, "", platforms, tags);
  }
}

// A list that keeps each tag once, at its first place. Joined interpreters of one platform
// repeat whole rows (py39-none on every platform tag, for each CPython after 3.9): a row seen
// before, on the same platform list, is skipped at the cost of one lookup, and while every row
// is on one list of distinct platforms, none of them "any", a new row cannot repeat a tag and is
// appended as it is. Otherwise (lists that overlap without being equal, a tag added alone on
// another platform) each tag goes through an open-addressing set of positions in the list,
// hashed on its three parts, so that every repeat is still dropped.
class UniqueSink final : public TagSink {
 public:
  explicit UniqueSink(std::vector<Tag>& out) : out_(out), slots_(1024, kEmpty) {}

  // The next rows come from another interpreter's lists (see AddRow).
  void NextInterpreter() { last_platforms_ = nullptr; }

  void AddRow(std::string_view interpreter, std::string_view abi,
              const std::vector<std::string>& platforms) override {
    // An interpreter's rows all name the one platform list it made: which of the lists seen it
    // is, is looked up (comparing every platform) once an interpreter, not once a row.
    std::size_t list = last_list_;
    if (&platforms != last_platforms_) {
      list = 0;
      while (list < platform_lists_.size() && platform_lists_[list] != platforms) ++list;
      if (list == platform_lists_.size()) {
        platform_lists_.push_back(platforms);
        if (list > 0 || !Distinct(platforms)) Exact();
      }
      last_platforms_ = &platforms;
      last_list_ = list;
    }
    std::string row;
    row.append(interpreter).append(1, '\0').append(abi).append(1, '\0').append(std::to_string(list));
    if (!rows_.insert(std::move(row)).second) return;
    if (exact_) {
      TagSink::AddRow(interpreter, abi, platforms);
      return;
    }
    for (const std::string& platform : platforms) AppendTag(out_, interpreter, abi, platform);
  }

  void Add(std::string_view interpreter, std::string_view abi, std::string_view platform) override {
    if (platform != "any") Exact();
    std::size_t slot = TagHash(interpreter, abi, platform) & (slots_.size() - 1);
    for (; slots_[slot] != kEmpty; slot = (slot + 1) & (slots_.size() - 1)) {
      const Tag& seen = out_[slots_[slot]];
      if (seen.platform == platform && seen.abi == abi && seen.interpreter == interpreter) return;
    }
    slots_[slot] = static_cast<std::uint32_t>(out_.size());
    AppendTag(out_, interpreter, abi, platform);
    if (out_.size() * 2 > slots_.size()) Index(slots_.size() * 2);
  }

 private:
  static constexpr std::uint32_t kEmpty = 0xFFFFFFFF;

  static bool Distinct(const std::vector<std::string>& platforms) {
    for (std::size_t i = 0; i < platforms.size(); ++i) {
      if (platforms[i] == "any") return false;
      for (std::size_t j = 0; j < i; ++j) {
        if (platforms[j] == platforms[i]) return false;
      }
    }
    return true;
  }

  // From here on every tag goes through the set, which must then hold every tag so far.
  void Exact() {
    if (exact_) return;
    exact_ = true;
    std::size_t size = slots_.size();
    while (out_.size() * 2 > size) size *= 2;
    Index(size);
  }

  // The set, `size` slots (a power of two), anew from the list. Before Exact(), only the tags
  // added alone are in it: the rows' cannot be repeated by them (none is on "any").
  void Index(std::size_t size) {
    std::vector<std::uint32_t> slots(size, kEmpty);
    for (std::uint32_t i = 0; i < out_.size(); ++i) {
      const Tag& tag = out_[i];
      if (!exact_ && tag.platform != "any") continue;
      std::size_t slot = TagHash(tag.interpreter, tag.abi, tag.platform) & (size - 1);
      while (slots[slot] != kEmpty) slot = (slot + 1) & (size - 1);
      slots[slot] = i;
    }
    slots_ = std::move(slots);
  }

  std::vector<Tag>& out_;
  std::vector<std::uint32_t> slots_;  // a power of two, at most half full
  bool exact_ = false;
  std::vector<std::vector<std::string>> platform_lists_;  // each distinct list seen
  // The list the interpreter's rows so far named, and which of platform_lists_ it is.
  const std::vector<std::string>* last_platforms_ = nullptr;
  std::size_t last_list_ = 0;
  std::unordered_set<std::string> rows_;                  // interpreter, abi, list number
};

}  // namespace

std::vector<Tag> SupportedTags(const InterpreterInfo& info) {
  std::vector<Tag> tags;
  tags.reserve(1024);
  ListSink sink(tags);
  YieldSupportedTags(info, sink);
  return tags;
}

std::vector<Tag> SupportedTagsOfAny(std::span<const InterpreterInfo> interpreters) {
  std::vector<Tag> tags;
  tags.reserve(2048);
  UniqueSink sink(tags);
  for (const InterpreterInfo& info : interpreters) {
    sink.NextInterpreter();
    YieldSupportedTags(info, sink);
  }
  return tags;
}

std::optional<std::size_t> BestTagRank(std::span<const Tag> wheel_tags,
                                       std::span<const Tag> supported) {
  // Walking `supported` in order, the first tag that the wheel has is its best one, so the
  // scan stops there. A wheel has one tag or a few, and tags of the wrong platform fail on the
  // first compare. To rank a whole page against one list, TagRanking builds a lookup once.
  for (std::size_t rank = 0; rank < supported.size(); ++rank) {
    for (const Tag& tag : wheel_tags) {
      if (SameTag(tag, supported[rank])) return rank;
    }
  }
  return std::nullopt;
}

TagRanking::TagRanking(std::span<const Tag> supported) {
  by_tag_.reserve(supported.size());
  for (std::size_t rank = 0; rank < supported.size(); ++rank) {
    by_tag_.push_back(Entry{supported[rank], rank});
  }
  // Sorted by (tag, rank), so that of repeated tags the first kept is the best ranked.
  std::sort(by_tag_.begin(), by_tag_.end(), [](const Entry& a, const Entry& b) {
    return std::tie(a.tag, a.rank) < std::tie(b.tag, b.rank);
  });
  by_tag_.erase(std::unique(by_tag_.begin(), by_tag_.end(),
                            [](const Entry& a, const Entry& b) { return a.tag == b.tag; }),
                by_tag_.end());
}

std::optional<std::size_t> TagRanking::Rank(const Tag& tag) const {
  const auto it = std::lower_bound(by_tag_.begin(), by_tag_.end(), tag,
                                   [](const Entry& entry, const Tag& t) { return entry.tag < t; });
  if (it == by_tag_.end() || it->tag != tag) return std::nullopt;
  return it->rank;
}

std::optional<std::size_t> TagRanking::BestRank(std::span<const Tag> wheel_tags) const {
  std::optional<std::size_t> best;
  for (const Tag& tag : wheel_tags) {
    const std::optional<std::size_t> rank = Rank(tag);
    if (rank && (!best || *rank < *best)) best = rank;
  }
  return best;
}

}  // namespace torchdex::core
