#include "core/wheel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/url.h"

namespace torchdex::core {
namespace {

std::vector<std::string> TagStrings(const std::vector<Tag>& tags) {
  std::vector<std::string> out;
  for (const Tag& tag : tags) out.push_back(tag.ToString());
  return out;
}

WheelFilename MustParse(std::string_view filename) {
  Expected<WheelFilename> wheel = ParseWheelFilename(filename);
  EXPECT_TRUE(wheel.ok()) << filename << ": " << (wheel.ok() ? "" : wheel.error().message);
  return wheel.ok() ? std::move(wheel).value() : WheelFilename{};
}

// gtest without gmock: the matchers that these tests need.
::testing::AssertionResult HasSubstr(const std::string& text, std::string_view part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << text << "' does not contain '" << part << "'";
}
::testing::AssertionResult StartsWith(const std::string& text, std::string_view prefix) {
  if (text.starts_with(prefix)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << text << "' does not start with '" << prefix << "'";
}

std::string ErrorOf(std::string_view filename) {
  Expected<WheelFilename> wheel = ParseWheelFilename(filename);
  EXPECT_FALSE(wheel.ok()) << filename << " parsed";
  return wheel.ok() ? "" : wheel.error().message;
}

TEST(ParseWheelFilenameTest, TorchWithLocalVersion) {
  const WheelFilename wheel = MustParse("torch-2.5.1+cu124-cp312-cp312-linux_x86_64.whl");
  EXPECT_EQ(wheel.name, "torch");
  EXPECT_EQ(wheel.version.release(), (std::vector<std::uint64_t>{2, 5, 1}));
  EXPECT_EQ(wheel.version.LocalString(), "cu124");
  EXPECT_FALSE(wheel.build.has_value());
  EXPECT_EQ(wheel.python_tags, (std::vector<std::string>{"cp312"}));
  EXPECT_EQ(wheel.abi_tags, (std::vector<std::string>{"cp312"}));
  EXPECT_EQ(wheel.platform_tags, (std::vector<std::string>{"linux_x86_64"}));
  EXPECT_EQ(TagStrings(wheel.Tags()), (std::vector<std::string>{"cp312-cp312-linux_x86_64"}));
}

TEST(ParseWheelFilenameTest, NightlyDevReleaseWithLocalVersion) {
  const WheelFilename wheel =
      MustParse("torch-2.11.0.dev20260301+cu128-cp312-cp312-manylinux_2_28_x86_64.whl");
  EXPECT_EQ(wheel.name, "torch");
  EXPECT_EQ(wheel.version.release(), (std::vector<std::uint64_t>{2, 11, 0}));
  EXPECT_EQ(wheel.version.dev(), std::optional<std::uint64_t>(20260301));
  EXPECT_FALSE(wheel.version.pre().has_value());
  EXPECT_EQ(wheel.version.LocalString(), "cu128");
  EXPECT_EQ(wheel.platform_tags, (std::vector<std::string>{"manylinux_2_28_x86_64"}));
}

TEST(ParseWheelFilenameTest, NamesAreNormalised) {
  EXPECT_EQ(MustParse("typing_extensions-4.12.2-py3-none-any.whl").name, "typing-extensions");
  EXPECT_EQ(MustParse("Jinja2-3.1.4-py3-none-any.whl").name, "jinja2");
  EXPECT_EQ(MustParse("zope.interface-6.4-cp312-cp312-manylinux_2_17_x86_64.whl").name,
            "zope-interface");
  EXPECT_EQ(MustParse("nvidia_cudnn_cu12-9.1.0.70-py3-none-manylinux2014_x86_64.whl").name,
            "nvidia-cudnn-cu12");
  EXPECT_EQ(MustParse("Foo_Bar._baz-1.0-py3-none-any.whl").name, "foo-bar-baz");
}

TEST(ParseWheelFilenameTest, PureWheel) {
  const WheelFilename wheel = MustParse("typing_extensions-4.12.2-py3-none-any.whl");
  EXPECT_EQ(wheel.version.release(), (std::vector<std::uint64_t>{4, 12, 2}));
  EXPECT_FALSE(wheel.version.HasLocal());
  EXPECT_EQ(TagStrings(wheel.Tags()), (std::vector<std::string>{"py3-none-any"}));
}

TEST(ParseWheelFilenameTest, BuildTagNumberAlone) {
  // A real one: the cu128 page lists triton 3.0.0 with build tag 1.
  const WheelFilename wheel =
      MustParse("triton-3.0.0-1-cp312-cp312-manylinux2014_x86_64.manylinux_2_17_x86_64.whl");
  ASSERT_TRUE(wheel.build.has_value());
  EXPECT_EQ(wheel.build->number, 1u);
  EXPECT_EQ(wheel.build->suffix, "");
  EXPECT_EQ(wheel.version.release(), (std::vector<std::uint64_t>{3, 0, 0}));
  EXPECT_EQ(wheel.platform_tags,
            (std::vector<std::string>{"manylinux2014_x86_64", "manylinux_2_17_x86_64"}));
}

TEST(ParseWheelFilenameTest, BuildTagNumberAndSuffix) {
  const WheelFilename wheel = MustParse("foo-1.0-0042abc.1-py3-none-any.whl");
  ASSERT_TRUE(wheel.build.has_value());
  EXPECT_EQ(wheel.build->number, 42u);
  EXPECT_EQ(wheel.build->suffix, "abc.1");
}

TEST(ParseWheelFilenameTest, BuildTagsCompareNumberFirst) {
  // The binary distribution format spec: build tags sort as (int, str), so 10 > 9 and a
  // suffix only breaks ties.
  EXPECT_LT((BuildTag{9, "zzz"}), (BuildTag{10, ""}));
  EXPECT_LT((BuildTag{1, ""}), (BuildTag{1, "a"}));
}

TEST(ParseWheelFilenameTest, BuildTagAtTheLimitOf64Bits) {
  const WheelFilename wheel = MustParse("foo-1.0-18446744073709551615x-py3-none-any.whl");
  ASSERT_TRUE(wheel.build.has_value());
  EXPECT_EQ(wheel.build->number, 18446744073709551615u);
  EXPECT_EQ(wheel.build->suffix, "x");
}

TEST(ParseWheelFilenameTest, CompressedTagSetsExpandPythonThenAbiThenPlatform) {
  const WheelFilename wheel =
      MustParse("foo-1.0-cp311.cp312-abi3.none-manylinux1_x86_64.linux_x86_64.whl");
  EXPECT_EQ(wheel.python_tags, (std::vector<std::string>{"cp311", "cp312"}));
  EXPECT_EQ(wheel.abi_tags, (std::vector<std::string>{"abi3", "none"}));
  EXPECT_EQ(wheel.platform_tags, (std::vector<std::string>{"manylinux1_x86_64", "linux_x86_64"}));
  EXPECT_EQ(TagStrings(wheel.Tags()), (std::vector<std::string>{
                                          "cp311-abi3-manylinux1_x86_64",
                                          "cp311-abi3-linux_x86_64",
                                          "cp311-none-manylinux1_x86_64",
                                          "cp311-none-linux_x86_64",
                                          "cp312-abi3-manylinux1_x86_64",
                                          "cp312-abi3-linux_x86_64",
                                          "cp312-none-manylinux1_x86_64",
                                          "cp312-none-linux_x86_64",
                                      }));
}

TEST(ParseWheelFilenameTest, PyTwoAndThree) {
  EXPECT_EQ(TagStrings(MustParse("six-1.16.0-py2.py3-none-any.whl").Tags()),
            (std::vector<std::string>{"py2-none-any", "py3-none-any"}));
}

TEST(ParseWheelFilenameTest, TagsAreLowercasedAsPackagingDoes) {
  // packaging.tags.Tag lowercases every field, so that an odd-cased filename still matches.
  EXPECT_EQ(TagStrings(MustParse("foo-1.0-PY3-None-Any.whl").Tags()),
            (std::vector<std::string>{"py3-none-any"}));
}

TEST(ParseWheelFilenameTest, MissingExtension) {
  EXPECT_EQ(ErrorOf("torch-2.5.1-cp312-cp312-linux_x86_64.zip"),
            "invalid wheel filename 'torch-2.5.1-cp312-cp312-linux_x86_64.zip': "
            "missing the '.whl' extension");
  EXPECT_EQ(ErrorOf("torch-2.5.1-cp312-cp312-linux_x86_64"),
            "invalid wheel filename 'torch-2.5.1-cp312-cp312-linux_x86_64': "
            "missing the '.whl' extension");
  // As in packaging, the extension is case-sensitive.
  EXPECT_TRUE(HasSubstr(ErrorOf("torch-2.5.1-cp312-cp312-linux_x86_64.WHL"),
                        "missing the '.whl' extension"));
  EXPECT_TRUE(HasSubstr(ErrorOf(""), "missing the '.whl' extension"));
}

TEST(ParseWheelFilenameTest, WrongNumberOfParts) {
  EXPECT_EQ(ErrorOf("torch-2.5.1-py3-any.whl"),
            "invalid wheel filename 'torch-2.5.1-py3-any.whl': expected 5 or 6 '-'-separated "
            "parts (name-version[-build]-python-abi-platform), found 4");
  EXPECT_EQ(ErrorOf("torch-2.5.1-1-x-py3-none-any.whl"),
            "invalid wheel filename 'torch-2.5.1-1-x-py3-none-any.whl': expected 5 or 6 "
            "'-'-separated parts (name-version[-build]-python-abi-platform), found 7");
  // A name written with '-' instead of '_' is one part too many.
  EXPECT_TRUE(HasSubstr(ErrorOf("typing-extensions-4.12.2-1-py3-none-any.whl"), "found 7"));
  EXPECT_TRUE(HasSubstr(ErrorOf(".whl"), "found 1"));
}

TEST(ParseWheelFilenameTest, InvalidName) {
  EXPECT_EQ(ErrorOf("tor$ch-2.5.1-py3-none-any.whl"),
            "invalid wheel filename 'tor$ch-2.5.1-py3-none-any.whl': name 'tor$ch' is not a "
            "wheel's project name (letters, digits, '.' and '_', never two '_' together)");
  EXPECT_TRUE(HasSubstr(ErrorOf("-2.5.1-py3-none-any.whl"), "name '' is not a wheel's"));
  // packaging.utils.parse_wheel_filename (and so pip) refuses "__" (PEP 427 escapes every
  // run of separators to one '_') and takes a leading or trailing '_' (found by
  // tests/core/differential).
  EXPECT_TRUE(HasSubstr(ErrorOf("Foo__Bar-1.0-py3-none-any.whl"), "name 'Foo__Bar' is not"));
  EXPECT_EQ(MustParse("_torch-2.5.1-py3-none-any.whl").name, "-torch");
}

TEST(ParseWheelFilenameTest, PythonTagsAreIdentifiers) {
  // packaging 26.3: "3.12" in a python tag is two interpreters, "3" and "12", neither an
  // identifier (found by tests/core/differential).
  EXPECT_TRUE(HasSubstr(ErrorOf("foo-1.0-cp3.12-none-any.whl"), "python tag '3' is not an identifier") ||
              HasSubstr(ErrorOf("foo-1.0-cp3.12-none-any.whl"), "python tag '12' is not an identifier"));
  EXPECT_TRUE(HasSubstr(ErrorOf("foo-1.0-1-2-3.whl"), "python tag '1' is not an identifier"));
  EXPECT_EQ(MustParse("foo-1.0-_x-none-any.whl").python_tags, (std::vector<std::string>{"_x"}));
}

TEST(ParseWheelFilenameTest, InvalidVersionQuotesTheVersionParser) {
  const std::string filename = "torch-2.x-py3-none-any.whl";
  Expected<Version> version = Version::Parse("2.x");
  ASSERT_FALSE(version.ok());
  EXPECT_EQ(ErrorOf(filename),
            "invalid wheel filename 'torch-2.x-py3-none-any.whl': version "
            "'2.x' is invalid: " +
                version.error().message);
  EXPECT_TRUE(StartsWith(ErrorOf("torch--py3-none-any.whl"),
                         "invalid wheel filename "
                         "'torch--py3-none-any.whl': "
                         "version '' is invalid: "));
}

TEST(ParseWheelFilenameTest, InvalidBuildTag) {
  EXPECT_EQ(ErrorOf("x-1.0-abc-py3-none-any.whl"),
            "invalid wheel filename 'x-1.0-abc-py3-none-any.whl': "
            "build tag 'abc' must start with a digit");
  EXPECT_EQ(ErrorOf("x-1.0--py3-none-any.whl"),
            "invalid wheel filename 'x-1.0--py3-none-any.whl': "
            "build tag '' must start with a digit");
  EXPECT_EQ(ErrorOf("x-1.0-18446744073709551616-py3-none-any.whl"),
            "invalid wheel filename 'x-1.0-18446744073709551616-py3-none-any.whl': "
            "build tag '18446744073709551616' has a number too large for 64 bits");
}

TEST(ParseWheelFilenameTest, EmptyTags) {
  EXPECT_EQ(ErrorOf("x-1.0--none-any.whl"),
            "invalid wheel filename 'x-1.0--none-any.whl': python tag is empty");
  EXPECT_EQ(ErrorOf("x-1.0-py3--any.whl"),
            "invalid wheel filename 'x-1.0-py3--any.whl': abi tag is empty");
  EXPECT_EQ(ErrorOf("x-1.0-py3-none-.whl"),
            "invalid wheel filename 'x-1.0-py3-none-.whl': platform tag is empty");
}

TEST(ParseWheelFilenameTest, EmptyElementsOfCompressedTagSets) {
  EXPECT_EQ(ErrorOf("x-1.0-py2..py3-none-any.whl"),
            "invalid wheel filename 'x-1.0-py2..py3-none-any.whl': python tag 'py2..py3' has "
            "an empty element in its '.'-separated set");
  EXPECT_EQ(ErrorOf("x-1.0-py3-.none-any.whl"),
            "invalid wheel filename 'x-1.0-py3-.none-any.whl': abi tag '.none' has an empty "
            "element in its '.'-separated set");
  EXPECT_EQ(ErrorOf("x-1.0-py3-none-linux_x86_64..whl"),
            "invalid wheel filename 'x-1.0-py3-none-linux_x86_64..whl': platform tag "
            "'linux_x86_64.' has an empty element in its '.'-separated set");
}

TEST(ParseWheelFilenameTest, EveryMalformedPartHasItsOwnMessage) {
  const std::vector<std::string> bad = {
      "x-1.0-py3-none-any.zip",   "x-1.0-py3-any.whl",        "x!-1.0-py3-none-any.whl",
      "x-1.0.x-py3-none-any.whl", "x-1.0-a-py3-none-any.whl", "x-1.0--none-any.whl",
      "x-1.0-py3--any.whl",       "x-1.0-py3-none-.whl",      "x-1.0-.py3-none-any.whl",
      "x-1.0-py3-none.-any.whl",  "x-1.0-py3-none-.any.whl",
  };
  std::set<std::string> reasons;
  for (const std::string& filename : bad) {
    const std::string message = ErrorOf(filename);
    const std::string prefix = "invalid wheel filename '" + filename + "': ";
    ASSERT_TRUE(StartsWith(message, prefix));
    reasons.insert(message.substr(prefix.size()));
  }
  EXPECT_EQ(reasons.size(), bad.size());
}

// ---- Every wheel that the captured download.pytorch.org pages link to ----

struct IndexWheels {
  std::size_t anchors = 0;          // hrefs to a .whl, counting repeats across pages
  std::set<std::string> filenames;  // percent-decoded, distinct
};

// The href values of a page, each without its "#sha256=..." fragment. The pages are
// generated HTML with double-quoted attributes, which is all this needs to read.
std::vector<std::string> Hrefs(const std::string& html) {
  std::vector<std::string> hrefs;
  constexpr std::string_view kOpen = "href=\"";
  for (std::size_t at = html.find(kOpen); at != std::string::npos; at = html.find(kOpen, at)) {
    at += kOpen.size();
    const std::size_t end = html.find('"', at);
    if (end == std::string::npos) break;
    std::string href = html.substr(at, end - at);
    href = href.substr(0, href.find('#'));
    hrefs.push_back(std::move(href));
    at = end;
  }
  return hrefs;
}

IndexWheels ReadIndexWheels() {
  IndexWheels wheels;
  const std::filesystem::path root = TORCHDEX_FIXTURES_DIR "/pytorch-index";
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".html") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::ostringstream html;
    html << in.rdbuf();
    for (const std::string& href : Hrefs(html.str())) {
      if (!href.ends_with(".whl")) continue;
      ++wheels.anchors;
      wheels.filenames.insert(PercentDecode(href.substr(href.rfind('/') + 1)));
    }
  }
  return wheels;
}

TEST(ParseWheelFilenameTest, EveryWheelOfThePytorchIndexFixturesParses) {
  const IndexWheels wheels = ReadIndexWheels();
  // Counted independently of this code, in tests/fixtures/pytorch-index:
  //   find . -name '*.html' -print0 | xargs -0 grep -oh 'href="[^"#]*' | sed 's/^href="//' |
  //     grep -E '[.]whl$' > /tmp/whl-hrefs
  //   wc -l < /tmp/whl-hrefs                                                     # 13526
  //   sed 's_.*/__' /tmp/whl-hrefs | python3 -c 'import sys, urllib.parse;
  //     print(len({urllib.parse.unquote(l.strip()) for l in sys.stdin}))'       # 6828
  EXPECT_EQ(wheels.anchors, 13526u);
  EXPECT_EQ(wheels.filenames.size(), 6828u);

  std::size_t with_build_tag = 0;
  std::size_t with_compressed_tags = 0;
  std::size_t with_local_version = 0;
  std::vector<std::string> failures;
  for (const std::string& filename : wheels.filenames) {
    Expected<WheelFilename> wheel = ParseWheelFilename(filename);
    if (!wheel.ok()) {
      failures.push_back(wheel.error().message);
      continue;
    }
    if (wheel->build) ++with_build_tag;
    if (wheel->Tags().size() > 1) ++with_compressed_tags;
    if (wheel->version.HasLocal()) ++with_local_version;
  }
  // The shapes the parser must get right are all there (counted the same way: 26 names with
  // six parts, 586 with a '.' in a tag part, 4278 with a '+' once decoded).
  EXPECT_EQ(with_build_tag, 26u);
  EXPECT_EQ(with_compressed_tags, 586u);
  EXPECT_EQ(with_local_version, 4278u);
  EXPECT_TRUE(failures.empty()) << failures.size() << " failed, the first: " << failures.front();
}

InterpreterInfo Interpreter(OperatingSystem os, std::string arch, int python_minor,
                            int libc_minor = 0, int macos_major = 0) {
  InterpreterInfo info;
  info.os = os;
  info.arch = std::move(arch);
  info.python_minor = python_minor;
  info.libc_minor = libc_minor;
  info.macos_major = macos_major;
  return info;
}

TEST(ParseWheelFilenameTest, FixtureWheelsRankAsPackagingRanksThem) {
  // How many of the distinct fixture wheels fit each interpreter, and the sum of their best
  // ranks, as packaging computes them: parse_wheel_filename's tags, then the first position of
  // any of them in sys_tags(). The fits are packaging 24.2's (tests/fixtures/sys-tags/); the
  // Linux sums are packaging 26.4's, whose linux_ tags come first (tests/core/differential
  // checks that these lists are packaging 26.4's).
  struct Case {
    const char* name;
    InterpreterInfo info;
    std::size_t fit;
    std::size_t rank_sum;
  };
  InterpreterInfo threaded = Interpreter(OperatingSystem::kLinux, "x86_64", 13, 28);
  threaded.free_threaded = true;
  const Case cases[] = {
      {"cp312-linux-glibc2.17-x86_64", Interpreter(OperatingSystem::kLinux, "x86_64", 12, 17), 292,
       46545},
      {"cp312-linux-glibc2.36-x86_64", Interpreter(OperatingSystem::kLinux, "x86_64", 12, 36), 519,
       135811},
      {"cp312-macos14-arm64", Interpreter(OperatingSystem::kMacOS, "arm64", 12, 0, 14), 123, 39203},
      {"cp312-windows-x86_64", Interpreter(OperatingSystem::kWindows, "x86_64", 12), 362, 3302},
      {"cp313t-linux-glibc2.28-x86_64", threaded, 376, 109989},
  };
  const IndexWheels wheels = ReadIndexWheels();
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::vector<Tag> supported = SupportedTags(c.info);
    const TagRanking ranking(supported);
    std::size_t fit = 0;
    std::size_t rank_sum = 0;
    for (const std::string& filename : wheels.filenames) {
      Expected<WheelFilename> wheel = ParseWheelFilename(filename);
      ASSERT_TRUE(wheel.ok()) << wheel.error().message;
      const std::vector<Tag> tags = wheel->Tags();
      const std::optional<std::size_t> rank = BestTagRank(tags, supported);
      ASSERT_EQ(ranking.BestRank(tags), rank) << filename;
      if (rank) {
        ++fit;
        rank_sum += *rank;
      }
    }
    EXPECT_EQ(fit, c.fit);
    EXPECT_EQ(rank_sum, c.rank_sum);
  }
}

}  // namespace
}  // namespace torchdex::core

namespace torchdex::core {
namespace {

// A wheel's tag part alone, as catalogues keep it: the same reading as a filename's.
TEST(ParseWheelTagsTest, ExpandsCompressedSetsAsAFilenameDoes) {
  auto tags = ParseWheelTags("cp312.cp313-abi3-manylinux_2_17_x86_64.manylinux2014_x86_64");
  ASSERT_TRUE(tags.ok()) << tags.error().message;
  EXPECT_EQ(tags->size(), 4u);
  auto wheel = ParseWheelFilename("torch-2.5.1-cp312.cp313-abi3-manylinux_2_17_x86_64.manylinux2014_x86_64.whl");
  ASSERT_TRUE(wheel.ok());
  EXPECT_EQ(*tags, wheel->Tags());
  auto upper = ParseWheelTags("CP312-None-Any");
  ASSERT_TRUE(upper.ok());
  EXPECT_EQ(upper->front(), (Tag{"cp312", "none", "any"}));
}

TEST(ParseWheelTagsTest, RefusesWhatIsNotThreeParts) {
  for (const char* bad : {"py3-none", "py3-none-any-extra", "py3--any", "py3-none-linux..x86_64", "3py-none-any"}) {
    EXPECT_FALSE(ParseWheelTags(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace torchdex::core
