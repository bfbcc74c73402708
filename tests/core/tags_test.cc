// Every expected list here comes from packaging 24.x's tags.py (cpython_tags, generic_tags,
// compatible_tags, mac_platforms) and _manylinux.py/_musllinux.py, worked through by hand for
// the interpreter named in each test; the counts are spelled out so that a wrong order or a
// missing block shows up as a wrong position. SysTagsGoldenTest then compares whole lists
// with the ones packaging itself wrote (tests/fixtures/sys-tags/generate.py).
#include "core/tags.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "core/wheel.h"

namespace torchdex::core {
namespace {

using Strings = std::vector<std::string>;

InterpreterInfo Linux(std::string arch, int glibc_minor, int python_minor = 12) {
  InterpreterInfo info;
  info.python_minor = python_minor;
  info.os = OperatingSystem::kLinux;
  info.arch = std::move(arch);
  info.libc = Libc::kGlibc;
  info.libc_major = 2;
  info.libc_minor = glibc_minor;
  return info;
}

InterpreterInfo Musl(std::string arch, int musl_minor) {
  InterpreterInfo info = Linux(std::move(arch), 0);
  info.libc = Libc::kMusl;
  info.libc_major = 1;
  info.libc_minor = musl_minor;
  return info;
}

InterpreterInfo MacOS(std::string arch, int major, int minor) {
  InterpreterInfo info;
  info.os = OperatingSystem::kMacOS;
  info.arch = std::move(arch);
  info.macos_major = major;
  info.macos_minor = minor;
  return info;
}

InterpreterInfo Windows(std::string arch, int python_minor = 12) {
  InterpreterInfo info;
  info.python_minor = python_minor;
  info.os = OperatingSystem::kWindows;
  info.arch = std::move(arch);
  return info;
}

Strings ToStrings(const std::vector<Tag>& tags) {
  Strings out;
  for (const Tag& tag : tags) out.push_back(tag.ToString());
  return out;
}

Strings Supported(const InterpreterInfo& info) { return ToStrings(SupportedTags(info)); }

// The position of `tag`, or -1.
long IndexOf(const Strings& tags, std::string_view tag) {
  const auto it = std::find(tags.begin(), tags.end(), tag);
  return it == tags.end() ? -1 : it - tags.begin();
}

Strings Slice(const Strings& tags, std::size_t begin, std::size_t count) {
  return Strings(tags.begin() + static_cast<long>(begin),
                 tags.begin() + static_cast<long>(begin + count));
}

// The 17 platforms of glibc 2.17 on x86_64, as _linux_platforms yields them: linux_ first
// (packaging 26.3), then 2.17 down to 2.5 (x86 goes back to manylinux1), each legacy alias
// right after its glibc.
const Strings kGlibc217X86_64 = {
    "linux_x86_64",
    "manylinux_2_17_x86_64", "manylinux2014_x86_64",  "manylinux_2_16_x86_64",
    "manylinux_2_15_x86_64", "manylinux_2_14_x86_64", "manylinux_2_13_x86_64",
    "manylinux_2_12_x86_64", "manylinux2010_x86_64",  "manylinux_2_11_x86_64",
    "manylinux_2_10_x86_64", "manylinux_2_9_x86_64",  "manylinux_2_8_x86_64",
    "manylinux_2_7_x86_64",  "manylinux_2_6_x86_64",  "manylinux_2_5_x86_64",
    "manylinux1_x86_64",
};

// ---- PlatformTags ----

TEST(PlatformTagsTest, Glibc217X86_64) {
  EXPECT_EQ(PlatformTags(Linux("x86_64", 17)), kGlibc217X86_64);
}

TEST(PlatformTagsTest, Glibc236X86_64) {
  const Strings platforms = PlatformTags(Linux("x86_64", 36));
  // linux_x86_64, then 2.36 .. 2.5 (32 versions) with 3 legacy aliases.
  ASSERT_EQ(platforms.size(), 36u);
  EXPECT_EQ(Slice(platforms, 0, 3),
            (Strings{"linux_x86_64", "manylinux_2_36_x86_64", "manylinux_2_35_x86_64"}));
  EXPECT_EQ(platforms[9], "manylinux_2_28_x86_64");
  EXPECT_EQ(Slice(platforms, 20, 3),
            (Strings{"manylinux_2_17_x86_64", "manylinux2014_x86_64", "manylinux_2_16_x86_64"}));
  EXPECT_EQ(Slice(platforms, 34, 2), (Strings{"manylinux_2_5_x86_64", "manylinux1_x86_64"}));
  // The tail from 2.17 on is the glibc 2.17 list without its linux_.
  EXPECT_EQ(Slice(platforms, 20, 16), Slice(kGlibc217X86_64, 1, 16));
}

TEST(PlatformTagsTest, Aarch64StartsAtGlibc217) {
  // Only x86 has manylinux wheels older than manylinux2014 (PEP 599).
  EXPECT_EQ(PlatformTags(Linux("aarch64", 17)),
            (Strings{"linux_aarch64", "manylinux_2_17_aarch64", "manylinux2014_aarch64"}));
  const Strings platforms = PlatformTags(Linux("aarch64", 39));
  ASSERT_EQ(platforms.size(), 25u);  // linux, 2.39 .. 2.17, manylinux2014
  EXPECT_EQ(Slice(platforms, 0, 2), (Strings{"linux_aarch64", "manylinux_2_39_aarch64"}));
  EXPECT_EQ(Slice(platforms, 23, 2), (Strings{"manylinux_2_17_aarch64", "manylinux2014_aarch64"}));
  EXPECT_EQ(IndexOf(platforms, "manylinux2010_aarch64"), -1);
  // Older than any manylinux: only the native tag.
  EXPECT_EQ(PlatformTags(Linux("aarch64", 12)), (Strings{"linux_aarch64"}));
}

TEST(PlatformTagsTest, LinuxArchSpellings) {
  EXPECT_EQ(PlatformTags(Linux("AMD64", 17)), kGlibc217X86_64);
  EXPECT_EQ(PlatformTags(Linux("arm64", 17)), PlatformTags(Linux("aarch64", 17)));
}

TEST(PlatformTagsTest, I686GoesBackToManylinux1) {
  const Strings platforms = PlatformTags(Linux("i686", 17));
  ASSERT_EQ(platforms.size(), 17u);
  EXPECT_EQ(platforms[16], "manylinux1_i686");
}

TEST(PlatformTagsTest, Armv8lAlsoRunsArmv7l) {
  // _linux_platforms: archs = ["armv8l", "armv7l"]; linux_ for each, then manylinux for each
  // arch in turn.
  EXPECT_EQ(PlatformTags(Linux("armv8l", 17)),
            (Strings{"linux_armv8l", "linux_armv7l", "manylinux_2_17_armv8l",
                     "manylinux2014_armv8l", "manylinux_2_17_armv7l", "manylinux2014_armv7l"}));
}

TEST(PlatformTagsTest, MuslHasNoManylinux) {
  EXPECT_EQ(PlatformTags(Musl("x86_64", 2)),
            (Strings{"linux_x86_64", "musllinux_1_2_x86_64", "musllinux_1_1_x86_64",
                     "musllinux_1_0_x86_64"}));
  EXPECT_EQ(PlatformTags(Musl("armv8l", 1)),
            (Strings{"linux_armv8l", "linux_armv7l", "musllinux_1_1_armv8l", "musllinux_1_0_armv8l",
                     "musllinux_1_1_armv7l", "musllinux_1_0_armv7l"}));
}

TEST(PlatformTagsTest, MacOS14Arm64) {
  // mac_platforms for 14.x: majors 14 .. 11 with minor 0, each [arm64, universal2]; then
  // 10.16 .. 10.4, where an arm64 machine can only use universal2 wheels. The minor (14.4)
  // does not matter from macOS 11 on.
  const Strings expected = {
      "macosx_14_0_arm64",       "macosx_14_0_universal2",  "macosx_13_0_arm64",
      "macosx_13_0_universal2",  "macosx_12_0_arm64",       "macosx_12_0_universal2",
      "macosx_11_0_arm64",       "macosx_11_0_universal2",  "macosx_10_16_universal2",
      "macosx_10_15_universal2", "macosx_10_14_universal2", "macosx_10_13_universal2",
      "macosx_10_12_universal2", "macosx_10_11_universal2", "macosx_10_10_universal2",
      "macosx_10_9_universal2",  "macosx_10_8_universal2",  "macosx_10_7_universal2",
      "macosx_10_6_universal2",  "macosx_10_5_universal2",  "macosx_10_4_universal2",
  };
  EXPECT_EQ(PlatformTags(MacOS("arm64", 14, 4)), expected);
  EXPECT_EQ(PlatformTags(MacOS("aarch64", 14, 0)), expected);
}

TEST(PlatformTagsTest, MacOS14X86_64) {
  const Strings platforms = PlatformTags(MacOS("x86_64", 14, 0));
  // 14, 13, 12, 11 and 10.16 .. 10.4: 17 versions, 6 formats each.
  ASSERT_EQ(platforms.size(), 102u);
  EXPECT_EQ(
      Slice(platforms, 0, 7),
      (Strings{"macosx_14_0_x86_64", "macosx_14_0_intel", "macosx_14_0_fat64", "macosx_14_0_fat3",
               "macosx_14_0_universal2", "macosx_14_0_universal", "macosx_13_0_x86_64"}));
  EXPECT_EQ(platforms[24], "macosx_10_16_x86_64");
  EXPECT_EQ(platforms[101], "macosx_10_4_universal");
}

TEST(PlatformTagsTest, MacOS1015X86_64UsesThePreElevenLoop) {
  const Strings platforms = PlatformTags(MacOS("x86_64", 10, 15));
  // 10.15 .. 10.4 with 6 formats; x86_64 has no formats below 10.4.
  ASSERT_EQ(platforms.size(), 72u);
  EXPECT_EQ(platforms.front(), "macosx_10_15_x86_64");
  EXPECT_EQ(platforms[6], "macosx_10_14_x86_64");
  EXPECT_EQ(platforms.back(), "macosx_10_4_universal");
  EXPECT_EQ(IndexOf(platforms, "macosx_10_16_x86_64"), -1);
  EXPECT_EQ(IndexOf(platforms, "macosx_11_0_x86_64"), -1);
}

TEST(PlatformTagsTest, Windows) {
  EXPECT_EQ(PlatformTags(Windows("x86_64")), (Strings{"win_amd64"}));
  EXPECT_EQ(PlatformTags(Windows("AMD64")), (Strings{"win_amd64"}));
  EXPECT_EQ(PlatformTags(Windows("amd64")), (Strings{"win_amd64"}));
  EXPECT_EQ(PlatformTags(Windows("arm64")), (Strings{"win_arm64"}));
  EXPECT_EQ(PlatformTags(Windows("aarch64")), (Strings{"win_arm64"}));
  EXPECT_EQ(PlatformTags(Windows("x86")), (Strings{"win32"}));
  EXPECT_EQ(PlatformTags(Windows("i686")), (Strings{"win32"}));
}

// ---- SupportedTags ----

TEST(SupportedTagsTest, Cp312Glibc217X86_64) {
  const Strings tags = Supported(Linux("x86_64", 17));
  // cpython_tags: 17 platforms x (cp312, abi3, none) + 17 x abi3 for cp311 .. cp32 = 221;
  // compatible_tags: 17 x 14 interpreters (py312, py3, py311 .. py30) + cp312-none-any + 14.
  ASSERT_EQ(tags.size(), 474u);
  EXPECT_EQ(Slice(tags, 0, 5), (Strings{
                                   "cp312-cp312-linux_x86_64",
                                   "cp312-cp312-manylinux_2_17_x86_64",
                                   "cp312-cp312-manylinux2014_x86_64",
                                   "cp312-cp312-manylinux_2_16_x86_64",
                                   "cp312-cp312-manylinux_2_15_x86_64",
                               }));
  EXPECT_EQ(tags[16], "cp312-cp312-manylinux1_x86_64");
  EXPECT_EQ(Slice(tags, 17, 2),
            (Strings{"cp312-abi3-linux_x86_64", "cp312-abi3-manylinux_2_17_x86_64"}));
  EXPECT_EQ(tags[33], "cp312-abi3-manylinux1_x86_64");
  EXPECT_EQ(tags[34], "cp312-none-linux_x86_64");
  EXPECT_EQ(tags[35], "cp312-none-manylinux_2_17_x86_64");
  EXPECT_EQ(tags[51], "cp311-abi3-linux_x86_64");
  EXPECT_EQ(tags[69], "cp310-abi3-manylinux_2_17_x86_64");
  EXPECT_EQ(tags[204], "cp32-abi3-linux_x86_64");
  EXPECT_EQ(tags[220], "cp32-abi3-manylinux1_x86_64");
  EXPECT_EQ(IndexOf(tags, "cp31-abi3-linux_x86_64"), -1);  // abi3 starts at 3.2
  EXPECT_EQ(tags[222], "py312-none-manylinux_2_17_x86_64");
  EXPECT_EQ(tags[239], "py3-none-manylinux_2_17_x86_64");
  EXPECT_EQ(tags[256], "py311-none-manylinux_2_17_x86_64");
  EXPECT_EQ(tags[442], "py30-none-linux_x86_64");
  EXPECT_EQ(Slice(tags, 459, 4),
            (Strings{"cp312-none-any", "py312-none-any", "py3-none-any", "py311-none-any"}));
  EXPECT_EQ(tags[473], "py30-none-any");
  // Each platform block keeps the platform order.
  for (std::size_t i = 0; i < kGlibc217X86_64.size(); ++i) {
    EXPECT_EQ(tags[i], "cp312-cp312-" + kGlibc217X86_64[i]);
    EXPECT_EQ(tags[17 + i], "cp312-abi3-" + kGlibc217X86_64[i]);
    EXPECT_EQ(tags[34 + i], "cp312-none-" + kGlibc217X86_64[i]);
    EXPECT_EQ(tags[221 + i], "py312-none-" + kGlibc217X86_64[i]);
  }
}

TEST(SupportedTagsTest, Cp312Glibc236X86_64) {
  const Strings tags = Supported(Linux("x86_64", 36));
  // 36 platforms: 36 x (3 + 10) + 36 x 14 + 15.
  ASSERT_EQ(tags.size(), 987u);
  EXPECT_EQ(tags[0], "cp312-cp312-linux_x86_64");
  EXPECT_EQ(tags[1], "cp312-cp312-manylinux_2_36_x86_64");
  EXPECT_EQ(tags[37], "cp312-abi3-manylinux_2_36_x86_64");
  EXPECT_EQ(tags[73], "cp312-none-manylinux_2_36_x86_64");
  EXPECT_EQ(tags[109], "cp311-abi3-manylinux_2_36_x86_64");
  EXPECT_EQ(tags[469], "py312-none-manylinux_2_36_x86_64");
  EXPECT_EQ(IndexOf(tags, "cp312-none-any"), 972);
}

TEST(SupportedTagsTest, Aarch64Glibc217) {
  const Strings tags = Supported(Linux("aarch64", 17));
  ASSERT_EQ(tags.size(), 96u);  // 3 platforms: 3 x 13 + 3 x 14 + 15
  EXPECT_EQ(Slice(tags, 0, 7), (Strings{
                                   "cp312-cp312-linux_aarch64",
                                   "cp312-cp312-manylinux_2_17_aarch64",
                                   "cp312-cp312-manylinux2014_aarch64",
                                   "cp312-abi3-linux_aarch64",
                                   "cp312-abi3-manylinux_2_17_aarch64",
                                   "cp312-abi3-manylinux2014_aarch64",
                                   "cp312-none-linux_aarch64",
                               }));
  EXPECT_EQ(tags[81], "cp312-none-any");
}

TEST(SupportedTagsTest, FreeThreadedHasAbi3tNotAbi3) {
  // 28 platforms (linux, 2.28 .. 2.5, 3 legacy). The GIL build: cp313, abi3, none, then abi3
  // for cp312 .. cp32; then 15 interpreters (py313, py3, py312 .. py30), cp313-none-any, 15.
  const Strings gil = Supported(Linux("x86_64", 28, 13));
  ASSERT_EQ(gil.size(), 28u * (3 + 11) + 28 * 15 + 16);
  EXPECT_EQ(gil[29], "cp313-abi3-manylinux_2_28_x86_64");
  // Free-threaded: the same shape with cp313t for cp313 and PEP 803's abi3t for abi3
  // (packaging 26.1 offers abi3t back to cp32, as it does abi3).
  InterpreterInfo info = Linux("x86_64", 28, 13);
  info.free_threaded = true;
  const Strings threaded = Supported(info);
  ASSERT_EQ(threaded.size(), gil.size());
  EXPECT_EQ(threaded[0], "cp313-cp313t-linux_x86_64");
  EXPECT_EQ(threaded[1], "cp313-cp313t-manylinux_2_28_x86_64");
  EXPECT_EQ(threaded[28], "cp313-abi3t-linux_x86_64");
  EXPECT_EQ(threaded[56], "cp313-none-linux_x86_64");
  EXPECT_EQ(threaded[84], "cp312-abi3t-linux_x86_64");
  EXPECT_EQ(threaded[392], "py313-none-linux_x86_64");
  EXPECT_EQ(threaded[812], "cp313-none-any");
  for (const std::string& tag : threaded) {
    EXPECT_EQ(tag.find("-abi3-"), std::string::npos) << tag;
    EXPECT_FALSE(tag.starts_with("cp313-cp313-")) << tag;  // nor the GIL build's ABI
  }
}

TEST(SupportedTagsTest, FreeThreadingNeedsPython313) {
  // Py_GIL_DISABLED is only looked at from 3.13 on.
  InterpreterInfo info = Linux("x86_64", 17);
  info.free_threaded = true;
  EXPECT_EQ(Supported(info), Supported(Linux("x86_64", 17)));
}

TEST(SupportedTagsTest, DebugBuildsAlsoLoadReleaseAbi) {
  InterpreterInfo info = Linux("x86_64", 28);
  info.debug = true;
  const Strings tags = Supported(info);
  ASSERT_EQ(tags.size(), 799u);  // 28 x (4 + 10) + 28 x 14 + 15
  EXPECT_EQ(tags[1], "cp312-cp312d-manylinux_2_28_x86_64");
  EXPECT_EQ(tags[29], "cp312-cp312-manylinux_2_28_x86_64");
  EXPECT_EQ(tags[57], "cp312-abi3-manylinux_2_28_x86_64");
  EXPECT_EQ(tags[85], "cp312-none-manylinux_2_28_x86_64");
  EXPECT_EQ(tags[113], "cp311-abi3-manylinux_2_28_x86_64");
}

TEST(SupportedTagsTest, FreeThreadedDebug) {
  InterpreterInfo info = Linux("x86_64", 28, 13);
  info.free_threaded = true;
  info.debug = true;
  const Strings tags = Supported(info);
  ASSERT_EQ(tags.size(), 856u);  // 28 x (td, t, abi3t, none, 11 older abi3t) + 28 x 15 + 16
  EXPECT_EQ(tags[1], "cp313-cp313td-manylinux_2_28_x86_64");
  EXPECT_EQ(tags[29], "cp313-cp313t-manylinux_2_28_x86_64");
  EXPECT_EQ(tags[57], "cp313-abi3t-manylinux_2_28_x86_64");
  EXPECT_EQ(tags[85], "cp313-none-manylinux_2_28_x86_64");
  EXPECT_EQ(tags[113], "cp312-abi3t-manylinux_2_28_x86_64");
  EXPECT_EQ(tags[421], "py313-none-manylinux_2_28_x86_64");
  EXPECT_EQ(IndexOf(tags, "cp313-abi3-linux_x86_64"), -1);
}

TEST(SupportedTagsTest, BeforePython38TheAbiHasPymallocsM) {
  InterpreterInfo info = Linux("x86_64", 17, 7);
  EXPECT_EQ(Supported(info)[1], "cp37-cp37m-manylinux_2_17_x86_64");
  info.debug = true;
  const Strings tags = Supported(info);
  EXPECT_EQ(tags[1], "cp37-cp37dm-manylinux_2_17_x86_64");
  EXPECT_EQ(tags[18], "cp37-abi3-manylinux_2_17_x86_64");  // no cp37m fallback before 3.8
}

// "Any CPython 3.9-3.14": the concatenation of each one's list with every repeat dropped,
// first places kept, on each kind of platform (the set's growth is crossed on Linux).
TEST(SupportedTagsTest, OfAnyIsTheConcatenationWithoutRepeats) {
  for (const InterpreterInfo& base : {Linux("x86_64", 35), Linux("aarch64", 28), Musl("x86_64", 2),
                                      MacOS("arm64", 14, 0), Windows("AMD64")}) {
    std::vector<InterpreterInfo> any;
    Strings expected;
    for (int minor = 9; minor <= 14; ++minor) {
      for (bool free_threaded : {false, true}) {
        if (free_threaded && minor < 13) continue;
        InterpreterInfo info = base;
        info.python_minor = minor;
        info.free_threaded = free_threaded;
        any.push_back(info);
        for (const std::string& tag : Supported(info)) {
          if (std::find(expected.begin(), expected.end(), tag) == expected.end()) expected.push_back(tag);
        }
      }
    }
    const Strings joined = ToStrings(SupportedTagsOfAny(any));
    EXPECT_EQ(joined, expected) << base.arch;
    if (base.arch == "x86_64" && base.libc == Libc::kGlibc) {
      EXPECT_GT(joined.size(), 512u);
    }
  }
  EXPECT_TRUE(SupportedTagsOfAny({}).empty());
}

// Interpreters on platform lists that overlap without being equal (two glibcs, armv8l's two
// architectures, Linux beside Windows): every repeat is still dropped, first places kept.
TEST(SupportedTagsTest, OfAnyAcrossPlatformListsDropsEveryRepeat) {
  const std::vector<std::vector<InterpreterInfo>> cases = {
      {Linux("x86_64", 35, 12), Linux("x86_64", 17, 13), Linux("x86_64", 28, 12)},
      {Linux("armv8l", 31, 11), Linux("armv7l", 31, 12)},
      {Windows("AMD64", 12), Linux("x86_64", 17, 12), Windows("AMD64", 13)},
  };
  for (const std::vector<InterpreterInfo>& any : cases) {
    Strings expected;
    for (const InterpreterInfo& info : any) {
      for (const std::string& tag : Supported(info)) {
        if (std::find(expected.begin(), expected.end(), tag) == expected.end()) expected.push_back(tag);
      }
    }
    EXPECT_EQ(ToStrings(SupportedTagsOfAny(any)), expected) << any.front().arch;
  }
}

TEST(SupportedTagsTest, Musl) {
  const Strings tags = Supported(Musl("x86_64", 2));
  ASSERT_EQ(tags.size(), 123u);  // 4 platforms: 4 x 13 + 4 x 14 + 15
  EXPECT_EQ(Slice(tags, 0, 5), (Strings{
                                   "cp312-cp312-linux_x86_64",
                                   "cp312-cp312-musllinux_1_2_x86_64",
                                   "cp312-cp312-musllinux_1_1_x86_64",
                                   "cp312-cp312-musllinux_1_0_x86_64",
                                   "cp312-abi3-linux_x86_64",
                               }));
  EXPECT_EQ(IndexOf(tags, "cp312-cp312-manylinux_2_17_x86_64"), -1);
}

TEST(SupportedTagsTest, MacOS14Arm64) {
  const Strings tags = Supported(MacOS("arm64", 14, 4));
  ASSERT_EQ(tags.size(), 582u);  // 21 platforms: 21 x 13 + 21 x 14 + 15
  EXPECT_EQ(Slice(tags, 0, 3),
            (Strings{"cp312-cp312-macosx_14_0_arm64", "cp312-cp312-macosx_14_0_universal2",
                     "cp312-cp312-macosx_13_0_arm64"}));
  EXPECT_EQ(tags[20], "cp312-cp312-macosx_10_4_universal2");
  EXPECT_EQ(tags[21], "cp312-abi3-macosx_14_0_arm64");
  EXPECT_EQ(tags[42], "cp312-none-macosx_14_0_arm64");
  EXPECT_EQ(tags[63], "cp311-abi3-macosx_14_0_arm64");
  EXPECT_EQ(tags[273], "py312-none-macosx_14_0_arm64");
  EXPECT_EQ(tags[567], "cp312-none-any");
}

TEST(SupportedTagsTest, WindowsFullList) {
  EXPECT_EQ(Supported(Windows("AMD64")),
            (Strings{
                "cp312-cp312-win_amd64", "cp312-abi3-win_amd64", "cp312-none-win_amd64",
                "cp311-abi3-win_amd64",  "cp310-abi3-win_amd64", "cp39-abi3-win_amd64",
                "cp38-abi3-win_amd64",   "cp37-abi3-win_amd64",  "cp36-abi3-win_amd64",
                "cp35-abi3-win_amd64",   "cp34-abi3-win_amd64",  "cp33-abi3-win_amd64",
                "cp32-abi3-win_amd64",   "py312-none-win_amd64", "py3-none-win_amd64",
                "py311-none-win_amd64",  "py310-none-win_amd64", "py39-none-win_amd64",
                "py38-none-win_amd64",   "py37-none-win_amd64",  "py36-none-win_amd64",
                "py35-none-win_amd64",   "py34-none-win_amd64",  "py33-none-win_amd64",
                "py32-none-win_amd64",   "py31-none-win_amd64",  "py30-none-win_amd64",
                "cp312-none-any",        "py312-none-any",       "py3-none-any",
                "py311-none-any",        "py310-none-any",       "py39-none-any",
                "py38-none-any",         "py37-none-any",        "py36-none-any",
                "py35-none-any",         "py34-none-any",        "py33-none-any",
                "py32-none-any",         "py31-none-any",        "py30-none-any",
            }));
}

TEST(SupportedTagsTest, PyPy) {
  InterpreterInfo info = Linux("x86_64", 17, 10);
  info.implementation = "pp";
  info.pypy_abi = "pypy310_pp73";
  const Strings tags = Supported(info);
  // generic_tags: pp310 x [pypy310_pp73, none] x 17; compatible_tags(interpreter="pp3"):
  // 12 interpreters (py310, py3, py39 .. py30) x 17, pp3-none-any, 12 x any.
  ASSERT_EQ(tags.size(), 251u);
  EXPECT_EQ(tags[0], "pp310-pypy310_pp73-linux_x86_64");
  EXPECT_EQ(tags[1], "pp310-pypy310_pp73-manylinux_2_17_x86_64");
  EXPECT_EQ(tags[18], "pp310-none-manylinux_2_17_x86_64");
  EXPECT_EQ(tags[35], "py310-none-manylinux_2_17_x86_64");
  EXPECT_EQ(tags[52], "py3-none-manylinux_2_17_x86_64");
  EXPECT_EQ(Slice(tags, 238, 3), (Strings{"pp3-none-any", "py310-none-any", "py3-none-any"}));
  EXPECT_EQ(IndexOf(tags, "pp310-none-any"), -1);
  for (const std::string& tag : tags) EXPECT_EQ(tag.find("abi3"), std::string::npos) << tag;
}

TEST(SupportedTagsTest, OtherImplementationsGetGenericTags) {
  InterpreterInfo info = Windows("x86_64", 11);
  info.implementation = "graalpy";
  EXPECT_EQ(Slice(Supported(info), 0, 4),
            (Strings{"graalpy311-none-win_amd64", "py311-none-win_amd64", "py3-none-win_amd64",
                     "py310-none-win_amd64"}));
  // No "<interpreter>-none-any": sys_tags passes no interpreter to compatible_tags.
  const Strings tags = Supported(info);
  ASSERT_EQ(tags.size(), 27u);  // 1 + 13 + 13
  EXPECT_EQ(tags[14], "py311-none-any");
}

// ---- Whole lists, as packaging 24.2 wrote them, in packaging 26's order ----

struct GoldenCase {
  const char* file;
  InterpreterInfo info;
};

InterpreterInfo With(InterpreterInfo info, int python_minor, bool free_threaded, bool debug) {
  info.python_minor = python_minor;
  info.free_threaded = free_threaded;
  info.debug = debug;
  return info;
}

InterpreterInfo Implementation(InterpreterInfo info, std::string name, int python_minor,
                               std::string pypy_abi = "") {
  info.implementation = std::move(name);
  info.python_minor = python_minor;
  info.pypy_abi = std::move(pypy_abi);
  return info;
}

std::vector<GoldenCase> GoldenCases() {
  return {
      {"cp312-linux-glibc2.17-x86_64", Linux("x86_64", 17)},
      {"cp312-linux-glibc2.36-x86_64", Linux("x86_64", 36)},
      {"cp312-linux-glibc2.39-aarch64", Linux("aarch64", 39)},
      {"cp311-linux-glibc2.31-armv8l", Linux("armv8l", 31, 11)},
      {"cp312d-linux-glibc2.28-x86_64", With(Linux("x86_64", 28), 12, false, true)},
      {"cp313t-linux-glibc2.28-x86_64", With(Linux("x86_64", 28), 13, true, false)},
      {"cp313td-linux-glibc2.28-x86_64", With(Linux("x86_64", 28), 13, true, true)},
      {"cp312-linux-musl1.2-x86_64", Musl("x86_64", 2)},
      {"cp312-macos14-arm64", MacOS("arm64", 14, 4)},
      {"cp312-macos10.15-x86_64", MacOS("x86_64", 10, 15)},
      {"cp312-windows-x86_64", Windows("x86_64")},
      {"cp313t-windows-arm64", With(Windows("arm64"), 13, true, false)},
      {"pp310-linux-glibc2.17-x86_64",
       Implementation(Linux("x86_64", 17), "pp", 10, "pypy310_pp73")},
      {"graalpy311-linux-glibc2.31-x86_64", Implementation(Linux("x86_64", 31), "graalpy", 11)},
  };
}

// The golden lists are packaging 24.2's. packaging 26 changed three things, which core
// follows (tests/core/differential checks core against the pinned packaging 26 itself):
//  - the native linux_ platforms come before manylinux and musllinux (26.3, pypa/packaging#160);
//  - macOS's three-way fat binaries are "fat3" (CPython's _osx_support name), not "fat32";
//  - free-threaded builds get PEP 803's abi3t tags (26.1).
// So each 24.2 list is put in packaging 26's order, and core's list loses its abi3t tags: what
// is left must agree line for line.
Strings InPackaging26Order(Strings lines) {
  for (std::string& line : lines) {
    if (const std::size_t at = line.find("_fat32"); at != std::string::npos) {
      line.replace(at, 6, "_fat3");
    }
  }
  const auto block = [](const std::string& tag) { return tag.substr(0, tag.find('-', tag.find('-') + 1)); };
  const auto is_native = [&](const std::string& tag) {
    return tag.compare(block(tag).size() + 1, 6, "linux_") == 0;
  };
  for (std::size_t start = 0; start < lines.size();) {
    std::size_t end = start;
    while (end < lines.size() && block(lines[end]) == block(lines[start])) ++end;
    std::stable_partition(lines.begin() + static_cast<long>(start),
                          lines.begin() + static_cast<long>(end), is_native);
    start = end;
  }
  return lines;
}

Strings WithoutAbi3t(Strings tags) {
  std::erase_if(tags, [](const std::string& tag) { return tag.find("-abi3t-") != std::string::npos; });
  return tags;
}

TEST(SysTagsGoldenTest, MatchesPackagingLineForLine) {
  for (const GoldenCase& golden : GoldenCases()) {
    SCOPED_TRACE(golden.file);
    std::ifstream in(std::string(TORCHDEX_FIXTURES_DIR "/sys-tags/") + golden.file + ".txt");
    ASSERT_TRUE(in) << "missing golden file";
    Strings expected;
    for (std::string line; std::getline(in, line);) expected.push_back(line);
    ASSERT_FALSE(expected.empty());
    expected = InPackaging26Order(std::move(expected));
    const Strings actual = WithoutAbi3t(Supported(golden.info));
    ASSERT_EQ(actual.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
      ASSERT_EQ(actual[i], expected[i]) << "at position " << i;
    }
  }
}

// ---- BestTagRank: real filenames from the captured index pages ----

std::vector<Tag> WheelTags(std::string_view filename) {
  Expected<WheelFilename> wheel = ParseWheelFilename(filename);
  EXPECT_TRUE(wheel.ok()) << filename;
  return wheel.ok() ? wheel->Tags() : std::vector<Tag>{};
}

std::optional<std::size_t> Rank(std::string_view filename, const InterpreterInfo& info) {
  const std::vector<Tag> supported = SupportedTags(info);
  const std::vector<Tag> wheel = WheelTags(filename);
  const std::optional<std::size_t> rank = BestTagRank(wheel, supported);
  // The page-wide lookup must agree with the scan.
  EXPECT_EQ(TagRanking(supported).BestRank(wheel), rank) << filename;
  return rank;
}

constexpr std::string_view kTorchManylinux228 =
    "torch-2.10.0+cu128-cp312-cp312-manylinux_2_28_x86_64.whl";
constexpr std::string_view kTorchWindows = "torch-2.10.0+cu128-cp312-cp312-win_amd64.whl";
constexpr std::string_view kTorchMacArm = "torch-2.10.0-cp312-none-macosx_11_0_arm64.whl";
constexpr std::string_view kTypingExtensions = "typing_extensions-4.12.2-py3-none-any.whl";

TEST(BestTagRankTest, ManylinuxWheelNeedsItsGlibc) {
  EXPECT_EQ(Rank(kTorchManylinux228, Linux("x86_64", 36)), 9u);  // after linux_ and 2.36 .. 2.29
  EXPECT_EQ(Rank(kTorchManylinux228, Linux("x86_64", 28)), 1u);
  EXPECT_EQ(Rank(kTorchManylinux228, Linux("x86_64", 17)), std::nullopt);
  EXPECT_EQ(Rank(kTorchManylinux228, Linux("aarch64", 36)), std::nullopt);
  EXPECT_EQ(Rank(kTorchManylinux228, Musl("x86_64", 2)), std::nullopt);
  EXPECT_EQ(Rank(kTorchManylinux228, Linux("x86_64", 36, 11)), std::nullopt);
}

TEST(BestTagRankTest, WindowsWheelOnlyOnWindows) {
  EXPECT_EQ(Rank(kTorchWindows, Linux("x86_64", 36)), std::nullopt);
  EXPECT_EQ(Rank(kTorchWindows, MacOS("x86_64", 14, 0)), std::nullopt);
  EXPECT_EQ(Rank(kTorchWindows, Windows("arm64")), std::nullopt);
  EXPECT_EQ(Rank(kTorchWindows, Windows("AMD64")), 0u);
}

TEST(BestTagRankTest, PurePythonFitsEverywhere) {
  EXPECT_EQ(Rank(kTypingExtensions, Linux("x86_64", 17)), 461u);
  EXPECT_EQ(Rank(kTypingExtensions, Linux("aarch64", 17)), 83u);
  EXPECT_EQ(Rank(kTypingExtensions, Musl("x86_64", 2)), 110u);
  EXPECT_EQ(Rank(kTypingExtensions, MacOS("arm64", 14, 4)), 569u);
  EXPECT_EQ(Rank(kTypingExtensions, Windows("x86_64")), 29u);
  InterpreterInfo pypy = Linux("x86_64", 17, 10);
  pypy.implementation = "pp";
  pypy.pypy_abi = "pypy310_pp73";
  EXPECT_EQ(Rank(kTypingExtensions, pypy), 240u);
}

TEST(BestTagRankTest, MacArmWheel) {
  // cp312-none block starts at 2 x 21; macosx_11_0_arm64 is the 7th platform.
  EXPECT_EQ(Rank(kTorchMacArm, MacOS("arm64", 14, 4)), 48u);
  // On 11.0: 15 platforms (11.0 arm64 and universal2, 10.16 .. 10.4), so cp312-none starts at 30.
  EXPECT_EQ(Rank(kTorchMacArm, MacOS("arm64", 11, 0)), 30u);
  EXPECT_EQ(Rank(kTorchMacArm, MacOS("x86_64", 14, 0)), std::nullopt);
  EXPECT_EQ(Rank(kTorchMacArm, MacOS("x86_64", 10, 15)), std::nullopt);
}

TEST(BestTagRankTest, CompressedSetTakesItsBestTag) {
  constexpr std::string_view kTriton =
      "triton-3.0.0-1-cp312-cp312-manylinux2014_x86_64.manylinux_2_17_x86_64.whl";
  EXPECT_EQ(Rank(kTriton, Linux("x86_64", 17)), 1u);
  EXPECT_EQ(Rank(kTriton, Linux("x86_64", 36)), 20u);  // manylinux_2_17 comes before 2014
  EXPECT_EQ(Rank(kTriton, Linux("x86_64", 16)), std::nullopt);
}

TEST(BestTagRankTest, Abi3WheelOfAnOlderPython) {
  // cp311-abi3 block at 108, cp310 at 144, cp39 at 180; manylinux_2_28 is platform 9.
  EXPECT_EQ(Rank("foo-1.0-cp39-abi3-manylinux_2_28_x86_64.whl", Linux("x86_64", 36)), 189u);
  InterpreterInfo threaded = Linux("x86_64", 36, 13);
  threaded.free_threaded = true;
  EXPECT_EQ(Rank("foo-1.0-cp39-abi3-manylinux_2_28_x86_64.whl", threaded), std::nullopt);
}

TEST(BestTagRankTest, FreeThreadedWheelOnlyOnFreeThreadedPython) {
  constexpr std::string_view kTorch313t = "torch-2.9.0-cp313-cp313t-manylinux_2_28_x86_64.whl";
  InterpreterInfo threaded = Linux("x86_64", 28, 13);
  threaded.free_threaded = true;
  EXPECT_EQ(Rank(kTorch313t, threaded), 1u);
  EXPECT_EQ(Rank(kTorch313t, Linux("x86_64", 28, 13)), std::nullopt);
}

TEST(BestTagRankTest, EmptyInputs) {
  const std::vector<Tag> supported = SupportedTags(Linux("x86_64", 17));
  EXPECT_EQ(BestTagRank({}, supported), std::nullopt);
  EXPECT_EQ(BestTagRank(WheelTags(kTypingExtensions), {}), std::nullopt);
  EXPECT_EQ(TagRanking({}).BestRank(WheelTags(kTypingExtensions)), std::nullopt);
}

TEST(TagRankingTest, RepeatedTagsKeepTheirFirstRank) {
  const std::vector<Tag> supported = {
      {"py3", "none", "any"}, {"cp312", "cp312", "linux_x86_64"}, {"py3", "none", "any"}};
  const TagRanking ranking(supported);
  EXPECT_EQ(ranking.Rank({"py3", "none", "any"}), 0u);
  EXPECT_EQ(ranking.Rank({"cp312", "cp312", "linux_x86_64"}), 1u);
  EXPECT_EQ(ranking.Rank({"cp312", "none", "any"}), std::nullopt);
}

TEST(TagRankingTest, AgreesWithEveryPositionOfALongList) {
  const std::vector<Tag> supported = SupportedTags(MacOS("x86_64", 14, 0));
  const TagRanking ranking(supported);
  for (std::size_t i = 0; i < supported.size(); ++i) {
    ASSERT_EQ(ranking.Rank(supported[i]), i) << supported[i].ToString();
    const Tag one[] = {supported[i]};
    ASSERT_EQ(BestTagRank(one, supported), i);
  }
}

}  // namespace
}  // namespace torchdex::core
