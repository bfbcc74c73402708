#include "core/version.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace torchdex::core {
namespace {

Version V(std::string_view text) {
  Expected<Version> v = Version::Parse(text);
  EXPECT_TRUE(v.ok()) << text << ": " << (v.ok() ? "" : v.error().message);
  return v.ok() ? v.value() : Version();
}

std::string Normal(std::string_view text) { return V(text).ToString(); }

TEST(VersionTest, ParsesTheFieldsOfPyTorchVersions) {
  Version v = V("2.11.0.dev20260301+cu128");
  EXPECT_EQ(v.epoch(), 0u);
  EXPECT_EQ(v.release(), (std::vector<std::uint64_t>{2, 11, 0}));
  EXPECT_FALSE(v.pre().has_value());
  EXPECT_FALSE(v.post().has_value());
  ASSERT_TRUE(v.dev().has_value());
  EXPECT_EQ(*v.dev(), 20260301u);
  EXPECT_EQ(v.LocalString(), "cu128");
  EXPECT_TRUE(v.IsPrerelease());
  EXPECT_TRUE(v.IsDevrelease());

  Version cxx11 = V("1.0.0+cpu.cxx11.abi");
  ASSERT_EQ(cxx11.local().size(), 3u);
  EXPECT_EQ(std::get<std::string>(cxx11.local()[0]), "cpu");
  EXPECT_EQ(std::get<std::string>(cxx11.local()[2]), "abi");
  EXPECT_FALSE(cxx11.IsPrerelease());

  Version triton = V("3.3.0+git96316ce5");
  EXPECT_EQ(triton.LocalString(), "git96316ce5");

  Version full = V("1!2.0rc1.post2.dev3+ubuntu.1");
  EXPECT_EQ(full.epoch(), 1u);
  ASSERT_TRUE(full.pre().has_value());
  EXPECT_EQ(full.pre()->kind, PreKind::kRc);
  EXPECT_EQ(full.pre()->number, 1u);
  EXPECT_EQ(*full.post(), 2u);
  EXPECT_EQ(*full.dev(), 3u);
  ASSERT_EQ(full.local().size(), 2u);
  EXPECT_EQ(std::get<std::uint64_t>(full.local()[1]), 1u);
}

TEST(VersionTest, NormalisesEverySpellingPep440Allows) {
  // Each pair: as written, normal form (PEP 440 "Normalization").
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"1.0", "1.0"},
      {"v1.0", "1.0"},
      {"V1.0", "1.0"},
      {"  1.0\n", "1.0"},
      {"01.002.0003", "1.2.3"},
      {"1.0a1", "1.0a1"},
      {"1.0alpha1", "1.0a1"},
      {"1.0.alpha.1", "1.0a1"},
      {"1.0-a-1", "1.0a1"},
      {"1.0_A_1", "1.0a1"},
      {"1.0a", "1.0a0"},
      {"1.0beta2", "1.0b2"},
      {"1.0B2", "1.0b2"},
      {"1.0c1", "1.0rc1"},
      {"1.0pre1", "1.0rc1"},
      {"1.0preview1", "1.0rc1"},
      {"1.0RC1", "1.0rc1"},
      {"1.0-1", "1.0.post1"},
      {"1.0post1", "1.0.post1"},
      {"1.0.post", "1.0.post0"},
      {"1.0-post-1", "1.0.post1"},
      {"1.0rev3", "1.0.post3"},
      {"1.0r3", "1.0.post3"},
      {"1.0-r", "1.0.post0"},
      {"1.0dev", "1.0.dev0"},
      {"1.0-dev1", "1.0.dev1"},
      {"1.0_dev_1", "1.0.dev1"},
      {"1.0a1-1", "1.0a1.post1"},
      {"1.0rc1.post2.dev3", "1.0rc1.post2.dev3"},
      {"0!1.0", "1.0"},
      {"2!1.0", "2!1.0"},
      {"1.0+Ubuntu-1", "1.0+ubuntu.1"},
      {"1.0+abc_def.01", "1.0+abc.def.1"},
      {"2.5.1+CU124", "2.5.1+cu124"},
  };
  for (const auto& [written, normal] : cases) {
    EXPECT_EQ(Normal(written), normal) << "written as " << written;
  }
}

TEST(VersionTest, RejectsWhatPep440DoesNotAllowWithAColumn) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "empty"},
      {"   ", "empty"},
      {"a1", "expected a release number at column 1"},
      {"1.0.", "unexpected '.' at column 4"},
      {"1..0", "unexpected '.' at column 2"},
      {"1.0+", "expected a local version segment at column 5"},
      {"1.0+abc.", "expected a local version segment at column 9"},
      {"1.0+abc!", "unexpected '!' at column 8"},
      {"1.0 1", "unexpected ' ' at column 4"},
      {"1!", "expected a release number after the epoch at column 3"},
      {"1.0.x", "unexpected '.' at column 4"},
      {"1.0rc1rc2", "unexpected 'c' at column 8"},  // "1.0rc1r" is a post release
      {"99999999999999999999", "number too large"},
      {"1!99999999999999999999", "number too large"},
      {"1.0dev1.post1", "unexpected '.' at column 8"},  // dev must come last
  };
  for (const auto& [text, why] : cases) {
    Expected<Version> v = Version::Parse(text);
    ASSERT_FALSE(v.ok()) << "'" << text << "' parsed as " << v->ToString();
    EXPECT_NE(v.error().message.find(why), std::string::npos)
        << "'" << text << "': " << v.error().message;
    EXPECT_NE(v.error().message.find("invalid version '" + text + "'"), std::string::npos);
  }
}

TEST(VersionTest, OrdersAsPep440Does) {
  // Strictly increasing, from the PEP 440 summary of ordering plus PyTorch's own forms.
  const std::vector<std::string> ordered = {
      "1.0.dev456",   "1.0a1",        "1.0a2.dev456",  "1.0a12.dev456", "1.0a12",
      "1.0b1.dev456", "1.0b2",        "1.0b2.post345.dev456",            "1.0b2.post345",
      "1.0rc1.dev456", "1.0rc1",      "1.0",           "1.0+abc.5",     "1.0+abc.7",
      "1.0+5",        "1.0.post456.dev34",             "1.0.post456",   "1.0.15",
      "1.1.dev1",     "2.5.0",        "2.5.1",         "2.5.1+cpu",     "2.5.1+cu121",
      "2.5.1+cu124",  "2.10.0",       "2.11.0.dev20260228+cu128",       "2.11.0.dev20260301",
      "2.11.0.dev20260301+cu126",     "2.11.0.dev20260301+cu128",       "2.11.0rc1",
      "2.11.0",       "1!0.1",
  };
  for (std::size_t i = 0; i + 1 < ordered.size(); ++i) {
    const Version a = V(ordered[i]);
    const Version b = V(ordered[i + 1]);
    EXPECT_LT(a, b) << ordered[i] << " < " << ordered[i + 1];
    EXPECT_GT(b, a) << ordered[i + 1] << " > " << ordered[i];
    EXPECT_NE(a, b);
  }
  // Sorting a shuffled copy gives the same order: the comparison is a total order.
  std::vector<Version> versions;
  for (const std::string& s : ordered) versions.push_back(V(s));
  std::vector<Version> shuffled = versions;
  std::mt19937 rng(42);
  std::shuffle(shuffled.begin(), shuffled.end(), rng);
  std::sort(shuffled.begin(), shuffled.end());
  EXPECT_EQ(shuffled, versions);
}

TEST(VersionTest, EqualityIgnoresTrailingZerosAndSpelling) {
  EXPECT_EQ(V("1.0"), V("1.0.0"));
  EXPECT_EQ(V("1"), V("1.0.0.0"));
  EXPECT_EQ(V("1.0c1"), V("1.0rc1"));
  EXPECT_EQ(V("1.0-1"), V("1.0.post1"));
  EXPECT_EQ(V("0!1.0"), V("1.0"));
  EXPECT_EQ(V("1.0+01"), V("1.0+1"));
  EXPECT_NE(V("1.0+cu124"), V("1.0"));
  EXPECT_NE(V("1.0+cu124"), V("1.0+cu121"));
  // Numbers compare as numbers, not strings.
  EXPECT_LT(V("2.9"), V("2.10"));
  EXPECT_LT(V("1.0+9"), V("1.0+10"));
  // In a local label a number ranks above any string segment.
  EXPECT_LT(V("1.0+zzz"), V("1.0+0"));
  EXPECT_LT(V("1.0+abc"), V("1.0+abc.0"));
}

TEST(VersionTest, PublicAndBaseDropTheRightParts) {
  EXPECT_EQ(V("1!2.0rc1.post2.dev3+cu124").Public().ToString(), "1!2.0rc1.post2.dev3");
  EXPECT_EQ(V("1!2.0rc1.post2.dev3+cu124").Base().ToString(), "1!2.0");
  EXPECT_EQ(V("2.5.1+cu124").Public(), V("2.5.1"));
}

TEST(VersionTest, RoundTripsItsNormalForm) {
  for (const char* text : {"2.5.1+cu124", "1!2.0rc1.post2.dev3+ubuntu.1", "0.0.0", "3.3.0+git96316ce5",
                           "2.11.0.dev20260301+cu128", "1.0a0", "18446744073709551615"}) {
    const Version v = V(text);
    const Version again = V(v.ToString());
    EXPECT_EQ(v, again) << text;
    EXPECT_EQ(v.ToString(), again.ToString()) << text;
  }
}

// Found by tests/core/differential: the separator after a pre, post or dev label may stand
// without a number, as in the PEP's regular expression and packaging.
TEST(VersionTest, SeparatorAfterALabelWithoutANumber) {
  EXPECT_EQ(V("6post-").ToString(), "6.post0");
  EXPECT_EQ(V("4c_.dev").ToString(), "4rc0.dev0");
  EXPECT_EQ(V("1.0a..dev").ToString(), "1.0a0.dev0");
  EXPECT_EQ(V("1.0.dev-").ToString(), "1.0.dev0");
  EXPECT_FALSE(Version::Parse("1.0.dev--").ok());
}

}  // namespace
}  // namespace torchdex::core
