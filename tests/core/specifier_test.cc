#include "core/specifier.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace torchdex::core {
namespace {

Version V(std::string_view text) {
  Expected<Version> v = Version::Parse(text);
  EXPECT_TRUE(v.ok()) << text;
  return v.ok() ? v.value() : Version();
}

SpecifierSet S(std::string_view text) {
  Expected<SpecifierSet> s = SpecifierSet::Parse(text);
  EXPECT_TRUE(s.ok()) << text << ": " << (s.ok() ? "" : s.error().message);
  return s.ok() ? s.value() : SpecifierSet();
}

struct MatchCase {
  std::string specifiers;
  std::string version;
  bool expected;
};

// Each row checked against packaging 24 (SpecifierSet(spec).contains(version)), which is what
// pip does; the comment says which rule the row pins down.
const MatchCase kMatchCases[] = {
    // == with and without local labels (PEP 440 "Version matching").
    {"==2.5.1", "2.5.1", true},
    {"==2.5.1", "2.5.1+cu124", true},  // the candidate's local label is ignored
    {"==2.5.1+cu124", "2.5.1+cu124", true},
    {"==2.5.1+cu124", "2.5.1+cu121", false},
    {"==2.5.1+cu124", "2.5.1", false},
    {"==2.5", "2.5.0", true},  // trailing zeros
    {"==2.5.1", "2.5.2", false},
    {"!=2.5.1", "2.5.1+cu124", false},
    {"!=2.5.1+cu124", "2.5.1+cu121", true},
    // Prefix matching.
    {"==2.5.*", "2.5.1+cu124", true},
    {"==2.5.*", "2.5", true},
    {"==2.5.*", "2.50.0", false},
    {"==2.5.*", "2.6.0", false},
    {"==2.*", "2.11.0", true},
    {"==2.5.0.*", "2.5", true},  // the candidate's release is padded with zeros
    {"==2.5.*", "2.5.1.post1", true},
    {"==2.5.*", "2.5.0rc1", false},  // pre-releases excluded by default
    {"!=2.5.*", "2.5.3", false},
    {"!=2.5.*", "2.6.0", true},
    {"==1!2.*", "2.0", false},  // epochs must agree
    {"==1!2.*", "1!2.3", true},
    // Ordered comparisons ignore the local label of the candidate.
    {">=2.5.1", "2.5.1+cu124", true},
    {"<=2.5.1", "2.5.1+cu124", true},
    {"<2.5.1", "2.5.1+cu124", false},
    {">2.5.1", "2.5.1+cu124", false},  // a local version of V is not greater than V
    {">2.5.1", "2.5.2+cu124", true},
    {">2.5", "2.5.post1", false},  // a post release of V is not greater than V
    {">2.5.post1", "2.5.post2", true},
    {">2.5", "2.5.1", true},
    {"<2.6", "2.6.0rc1", false},  // pre-releases of V are not less than V
    {"<2.6rc2,>=2.6rc1", "2.6.0rc1", true},
    {"<2.6", "2.5.9", true},
    {">=2.6", "2.6.0rc1", false},
    {">=2.6.0rc1", "2.6.0rc1", true},  // a pre-release in the specifier allows them
    {">=2.6.0rc1", "2.7.0rc1", true},
    {">=2.6.0rc1,<3", "2.7.0rc1", true},  // the set decides for all its members
    {">=2.6.0.dev0", "2.11.0.dev20260301+cu128", true},
    {">=2.5", "2.11.0.dev20260301+cu128", false},
    // Compatible release.
    {"~=2.5", "2.9.1", true},
    {"~=2.5", "3.0", false},
    {"~=2.5.1", "2.5.7", true},
    {"~=2.5.1", "2.6.0", false},
    {"~=2.5.1", "2.5.0", false},
    {"~=2.2.post3", "2.2.post3", true},
    {"~=2.2.post3", "2.3", true},
    {"~=2.2.post3", "3.0", false},
    {"~=1.4.5a4", "1.4.5", true},
    {"~=1.4.5a4", "1.5.0", false},
    {"~=1!2.5", "2.6", false},
    {"~=2.5.1", "2.5.3+cu124", true},
    // Arbitrary equality compares strings.
    {"===2.5.1", "2.5.1", true},
    {"===2.5.1", "2.5.1.0", false},
    {"===2.5.1+CU124", "2.5.1+cu124", true},
    // Empty set matches every final release.
    {"", "2.5.1+cu124", true},
    {"", "2.6.0rc1", false},
    // Real requirement shapes.
    {">=2.6,<2.9", "2.8.0+cu128", true},
    {">=2.6,<2.9", "2.9.0", false},
    {">=2.6,!=2.7.0,<3", "2.7.0+cpu", false},
    {">=2.6,!=2.7.0,<3", "2.7.1+cpu", true},
};

TEST(SpecifierTest, MatchesAsPackagingDoes) {
  for (const MatchCase& c : kMatchCases) {
    EXPECT_EQ(S(c.specifiers).Contains(V(c.version)), c.expected)
        << "'" << c.specifiers << "' contains " << c.version;
  }
}

TEST(SpecifierTest, PrereleasePolicyCanBeForced) {
  EXPECT_TRUE(S(">=2.5").Contains(V("2.6.0rc1"), Prereleases::kAllow));
  EXPECT_FALSE(S(">=2.6.0rc1").Contains(V("2.6.0rc1"), Prereleases::kDeny));
  EXPECT_TRUE(S("").Contains(V("2.6.0rc1"), Prereleases::kAllow));
  // Forcing does not loosen the other rules.
  EXPECT_FALSE(S("<2.6").Contains(V("2.6.0rc1"), Prereleases::kAllow));
}

TEST(SpecifierTest, AllowsPrereleasesWhereItNamesOneExceptWithNotEqual) {
  EXPECT_TRUE(S("==2.6.0rc1").AllowsPrereleasesByDefault());
  EXPECT_TRUE(S("<=2.6.0rc1").AllowsPrereleasesByDefault());
  EXPECT_TRUE(S("~=2.6.0rc1").AllowsPrereleasesByDefault());
  EXPECT_TRUE(S(">=2.6,<=3.0.dev0").AllowsPrereleasesByDefault());
  EXPECT_TRUE(S(">=2.6,<3.0.dev0").AllowsPrereleasesByDefault());  // packaging 26: < counts
  EXPECT_FALSE(S(">=2.6,<3.0").AllowsPrereleasesByDefault());
  EXPECT_FALSE(S("!=2.6.0rc1").AllowsPrereleasesByDefault());
  // packaging 26.0 counts < and > too (24.x did not), so pip 26 takes 2.6.0rc2 for
  // ">2.6.0rc1" (found by tests/core/differential).
  EXPECT_TRUE(S(">2.6.0rc1").AllowsPrereleasesByDefault());
  EXPECT_TRUE(S("<2.6.0rc1").AllowsPrereleasesByDefault());
  EXPECT_TRUE(S(">2.6.0rc1").Contains(V("2.6.0rc2")));
  EXPECT_FALSE(S(">=2.6").AllowsPrereleasesByDefault());
}

TEST(SpecifierTest, FilterFallsBackToPrereleasesWhenNothingElseMatches) {
  const std::vector<Version> nightly = {V("2.11.0.dev20260228+cu128"),
                                        V("2.11.0.dev20260301+cu128")};
  EXPECT_EQ(S(">=2.10").Filter(nightly), nightly);
  EXPECT_TRUE(S(">=2.10").Filter(nightly, Prereleases::kDeny).empty());
  EXPECT_TRUE(S(">=2.12").Filter(nightly).empty());

  const std::vector<Version> mixed = {V("2.9.1"), V("2.10.0rc1"), V("2.10.0")};
  EXPECT_EQ(S(">=2.9").Filter(mixed), (std::vector<Version>{V("2.9.1"), V("2.10.0")}));
  EXPECT_EQ(S(">=2.9").Filter(mixed, Prereleases::kAllow), mixed);
}

TEST(SpecifierTest, NormalisesWhenPrinted) {
  EXPECT_EQ(S("  >= 2.6 , < 3 ").ToString(), "<3,>=2.6");
  EXPECT_EQ(S("==2.5.*").ToString(), "==2.5.*");
  EXPECT_EQ(S("~=2.6.0RC1").ToString(), "~=2.6.0rc1");
  EXPECT_EQ(S("==2.5.1+CU124").ToString(), "==2.5.1+cu124");
  EXPECT_EQ(S("===foo").ToString(), "===foo");
  EXPECT_EQ(S("").ToString(), "");
}

TEST(SpecifierTest, RejectsMalformedSpecifiersSayingWhy) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"2.5", "expected an operator"},
      {"=>2.5", "expected an operator"},
      {">=", "expected a version after '>='"},
      {">=2.5.*", "only allowed with == and !="},
      {"~=2.5.*", "only allowed with == and !="},
      {"~=2", "at least two release numbers"},
      {">=2.5+cu124", "local version label is only allowed with == and !="},
      {"~=2.5+cu124", "local version label is only allowed with == and !="},
      {"==2.5rc1.*", "only an epoch and release numbers"},
      {"==2.5.*+cu124", "invalid version"},
      {">=2.x", "invalid version '2.x'"},
      {">=2.5 2", "unexpected whitespace"},
  };
  for (const auto& [text, why] : cases) {
    Expected<SpecifierSet> s = SpecifierSet::Parse(text);
    ASSERT_FALSE(s.ok()) << "'" << text << "' parsed as " << s->ToString();
    EXPECT_NE(s.error().message.find(why), std::string::npos)
        << "'" << text << "': " << s.error().message;
  }
}

// Issue 15: packaging's own vectors, 9 of 188 wrong. ">V" excludes the local versions of V's
// public version, not of its epoch and release.
TEST(SpecifierTest, GreaterThanExcludesOnlyLocalVersionsOfV) {
  EXPECT_TRUE(S(">1.0a1").Contains(V("1.0a2+local"), Prereleases::kAllow));
  EXPECT_TRUE(S(">1.0.dev1").Contains(V("1.0.dev2+local"), Prereleases::kAllow));
  EXPECT_TRUE(S(">1.0.post1").Contains(V("1.0.post2+local")));
  EXPECT_TRUE(S(">4.1.0a2.dev1234").Contains(V("4.1.0a2.dev1235+local"), Prereleases::kAllow));
  EXPECT_TRUE(S(">1.0.dev1").Contains(V("1.0+local"), Prereleases::kAllow));
  // PyTorch's nightlies.
  EXPECT_TRUE(S(">2.12.0.dev20260301").Contains(V("2.12.0.dev20260314+cu128")));
  // Local versions of V itself stay out.
  EXPECT_FALSE(S(">1.0").Contains(V("1.0+local")));
  EXPECT_FALSE(S(">1.0.dev1").Contains(V("1.0.dev1+local"), Prereleases::kAllow));
  EXPECT_FALSE(S(">1.0.post1").Contains(V("1.0.post1+local")));
}

// Found by tests/core/differential: "post releases of V" are V.postN with V's pre part.
TEST(SpecifierTest, GreaterThanExcludesPostReleasesOfVItself) {
  EXPECT_FALSE(S(">1.0").Contains(V("1.0.post1")));
  EXPECT_FALSE(S(">1.0a1").Contains(V("1.0a1.post1"), Prereleases::kAllow));
  EXPECT_TRUE(S(">1.0a1").Contains(V("1.0.post1")));      // a post release of 1.0
  EXPECT_TRUE(S(">1.0.dev1").Contains(V("1.0.post1")));   // V is a dev release
  EXPECT_TRUE(S(">1.0.post1").Contains(V("1.0.post2")));  // V is a post release
}

// Found by tests/core/differential: <V is <V.dev0 for a V that is no pre-release.
TEST(SpecifierTest, LessThanExcludesTheFamilyOfV) {
  EXPECT_TRUE(S("<1.0.post1").Contains(V("1.0a1"), Prereleases::kAllow));
  EXPECT_TRUE(S("<1.0.post1").Contains(V("1.0+local")));
  EXPECT_FALSE(S("<1.0.post1").Contains(V("1.0.post1.dev0"), Prereleases::kAllow));
  EXPECT_FALSE(S("<1.0").Contains(V("1.0rc1"), Prereleases::kAllow));
  EXPECT_TRUE(S("<1.0rc2").Contains(V("1.0rc1+local"), Prereleases::kAllow));
}

// Found by tests/core/differential: packaging's SpecifierSet skips empty items.
TEST(SpecifierTest, EmptyItemsAreSkipped) {
  EXPECT_EQ(S(">=2.5,").ToString(), ">=2.5");
  EXPECT_EQ(S(",>=2.5,,<3").ToString(), "<3,>=2.5");
  EXPECT_TRUE(S(",").empty());
  EXPECT_FALSE(SpecifierSet::Parse("===a;b").ok());  // === stops at ';' and ')'
}

}  // namespace
}  // namespace torchdex::core
