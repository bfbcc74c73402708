#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "core/requirement.h"

namespace torchdex::core {
namespace {

Marker M(std::string_view text) {
  Expected<Marker> marker = Marker::Parse(text);
  EXPECT_TRUE(marker.ok()) << text << ": " << (marker.ok() ? "" : marker.error().message);
  return marker.ok() ? marker.value() : Marker();
}

// The machines torch's wheels are written for. Linux ones come from ForLinuxCPython; the
// others hold what CPython reports there (os.name, sys.platform, platform.system(),
// platform.machine()).
MarkerEnvironment Linux(int minor, int micro, std::string_view machine = "x86_64") {
  return MarkerEnvironment::ForLinuxCPython(3, minor, micro, machine);
}
MarkerEnvironment Windows312() {
  MarkerEnvironment env = Linux(12, 4, "AMD64");
  env.values["os_name"] = "nt";
  env.values["sys_platform"] = "win32";
  env.values["platform_system"] = "Windows";
  env.values["platform_release"] = "10";
  env.values["platform_version"] = "10.0.22631";
  return env;
}
MarkerEnvironment MacOS312() {
  MarkerEnvironment env = Linux(12, 4, "arm64");
  env.values["sys_platform"] = "darwin";
  env.values["platform_system"] = "Darwin";
  env.values["platform_release"] = "23.5.0";
  return env;
}

enum class Host {
  kLinux38,
  kLinux310,
  kLinux312,
  kLinux313,
  kLinux313rc2,
  kLinuxArm312,
  kWindows312,
  kMacOS312,
};

MarkerEnvironment EnvironmentOf(Host host) {
  switch (host) {
    case Host::kLinux38:
      return Linux(8, 10);
    case Host::kLinux310:
      return Linux(10, 14);
    case Host::kLinux312:
      return Linux(12, 4);
    case Host::kLinux313:
      return Linux(13, 1);
    case Host::kLinux313rc2: {
      MarkerEnvironment env = Linux(13, 0);
      env.values["python_full_version"] = "3.13.0rc2";
      env.values["implementation_version"] = "3.13.0rc2";
      return env;
    }
    case Host::kLinuxArm312:
      return Linux(12, 4, "aarch64");
    case Host::kWindows312:
      return Windows312();
    case Host::kMacOS312:
      return MacOS312();
  }
  return {};
}

TEST(MarkerEnvironmentTest, ForLinuxCPythonHoldsWhatCPythonReports) {
  const MarkerEnvironment env = MarkerEnvironment::ForLinuxCPython(3, 12, 4, "x86_64");
  const std::map<std::string, std::string, std::less<>> expected = {
      {"implementation_name", "cpython"},
      {"implementation_version", "3.12.4"},
      {"os_name", "posix"},
      {"platform_machine", "x86_64"},
      {"platform_python_implementation", "CPython"},
      {"platform_release", ""},
      {"platform_system", "Linux"},
      {"platform_version", ""},
      {"python_full_version", "3.12.4"},
      {"python_version", "3.12"},
      {"sys_platform", "linux"},
  };
  EXPECT_EQ(env.values, expected);
  EXPECT_EQ(MarkerEnvironment::ForLinuxCPython(3, 9, 0, "aarch64").values.at("platform_machine"),
            "aarch64");
  EXPECT_EQ(MarkerEnvironment::ForLinuxCPython(3, 9, 0).values.at("python_full_version"), "3.9.0");
  EXPECT_EQ(MarkerEnvironment::ForLinuxCPython(3, 9, 0).values.at("platform_machine"), "x86_64");
}

struct EvaluationCase {
  std::string marker;
  Host host;
  std::string extra;
  bool expected;
};

// Every row agrees with packaging 24.2's Marker(marker).evaluate(env | {"extra": extra}),
// except the two rows noted.
const EvaluationCase kEvaluationCases[] = {
    // The markers of torch's own Requires-Dist lines.
    {R"(platform_system == "Linux" and platform_machine == "x86_64")", Host::kLinux312, "", true},
    {R"(platform_system == "Linux" and platform_machine == "x86_64")", Host::kLinuxArm312, "",
     false},
    {R"(platform_system == "Linux" and platform_machine == "x86_64")", Host::kWindows312, "",
     false},
    {R"(platform_system == "Linux" and platform_machine == "x86_64")", Host::kMacOS312, "", false},
    {R"(platform_system == "Linux" and platform_machine == "x86_64" and python_version < "3.13")",
     Host::kLinux312, "", true},
    {R"(platform_system == "Linux" and platform_machine == "x86_64" and python_version < "3.13")",
     Host::kLinux313, "", false},
    {R"(platform_system == "Linux" and platform_machine == "x86_64" and python_version < "3.13")",
     Host::kLinux38, "", true},
    {R"(python_version >= "3.9")", Host::kLinux38, "", false},
    {R"(python_version >= "3.9")", Host::kLinux312, "", true},
    {R"(python_version >= "3.12")", Host::kLinux310, "", false},
    {R"(python_version >= "3.12")", Host::kLinux312, "", true},
    {R"(python_version >= "3.12")", Host::kLinux313, "", true},
    {R"(extra == "optree")", Host::kLinux312, "", false},
    {R"(extra == "optree")", Host::kLinux312, "optree", true},
    {R"(extra == "opt-einsum")", Host::kLinux312, "opt-einsum", true},
    {R"(extra == "opt-einsum")", Host::kLinux312, "optree", false},
    {R"(platform_system == "Linux")", Host::kLinux312, "", true},
    {R"(platform_system == "Linux")", Host::kMacOS312, "", false},
    {R"(platform_system == "Windows")", Host::kWindows312, "", true},
    {R"(platform_system == "Darwin")", Host::kMacOS312, "", true},
    {R"(platform_machine == "aarch64")", Host::kLinuxArm312, "", true},
    {R"(platform_machine == "x86_64" and sys_platform == "linux")", Host::kLinuxArm312, "", false},
    {R"(sys_platform == "win32")", Host::kWindows312, "", true},
    {R"(sys_platform != "darwin")", Host::kMacOS312, "", false},
    {R"(sys_platform != "darwin")", Host::kLinux312, "", true},
    {R"(os_name == "nt")", Host::kWindows312, "", true},
    {R"(os_name == "nt")", Host::kMacOS312, "", false},
    // Versions compare as versions, not strings: "3.12" > "3.10" and "3.8" < "3.10" as
    // versions, the opposite as strings.
    {R"(python_version > "3.10")", Host::kLinux312, "", true},
    {R"(python_version < "3.10")", Host::kLinux38, "", true},
    {R"(python_version < "3.10")", Host::kLinux312, "", false},
    {R"(python_version < "3.9")", Host::kLinux310, "", false},
    {R"(python_version <= "3.8")", Host::kLinux38, "", true},
    {R"(python_version != "3.12")", Host::kLinux312, "", false},
    {R"(python_version == "3.12.0")", Host::kLinux312, "", true},  // 3.12 == 3.12.0
    {R"(python_full_version >= "3.12.1")", Host::kLinux312, "", true},
    {R"(python_full_version >= "3.12.5")", Host::kLinux312, "", false},
    {R"(python_full_version == "3.12.*")", Host::kLinux312, "", true},
    {R"(python_full_version == "3.1.*")", Host::kLinux312, "", false},
    {R"(python_full_version != "3.13.*")", Host::kLinux313, "", false},
    {R"(python_version ~= "3.10")", Host::kLinux312, "", true},
    {R"(python_version ~= "3.10")", Host::kLinux38, "", false},
    {R"(python_full_version ~= "3.12.2")", Host::kLinux313, "", false},
    {R"(implementation_version >= "3.12")", Host::kLinux312, "", true},
    {R"(python_full_version < "3.13")", Host::kLinux312, "", true},
    // Markers allow pre-releases: a 3.13.0rc2 interpreter is newer than 3.12 and within
    // 3.13.*, though still older than 3.13 itself.
    {R"(python_full_version > "3.12")", Host::kLinux313rc2, "", true},
    {R"(python_full_version == "3.13.*")", Host::kLinux313rc2, "", true},
    {R"(python_full_version >= "3.13")", Host::kLinux313rc2, "", false},
    {R"(python_full_version < "3.13")", Host::kLinux313rc2, "", false},
    {R"(implementation_version >= "3.13.0rc1")", Host::kLinux313rc2, "", true},
    {R"(python_version == "3.13")", Host::kLinux313rc2, "", true},
    // The literal may be on the left; the comparison keeps its direction.
    {R"("3.10" < python_version)", Host::kLinux312, "", true},
    {R"("3.10" < python_version)", Host::kLinux38, "", false},
    {R"("Linux" == platform_system)", Host::kLinux312, "", true},
    // == and != on values that are not versions compare strings.
    {R"(platform_machine == "x86_64")", Host::kLinux312, "", true},
    {R"(platform_machine != "x86_64")", Host::kLinux312, "", false},
    // Here the right-hand side makes a specifier but "posix" is no version: packaging 24.2
    // raises InvalidVersion; we fall back to comparing strings, as == does for non-versions.
    {R"(os_name == "3.12")", Host::kLinux312, "", false},
    {R"(os_name != "3.12")", Host::kLinux312, "", true},
    {R"(platform_release == "")", Host::kLinux312, "", true},
    {R"(platform_python_implementation == "CPython")", Host::kLinux312, "", true},
    {R"(implementation_name == "pypy")", Host::kLinux312, "", false},
    // in / not in are substring tests.
    {R"("linux" in sys_platform)", Host::kLinux312, "", true},
    {R"("linux" in sys_platform)", Host::kWindows312, "", false},
    {R"("win" in sys_platform)", Host::kWindows312, "", true},
    {R"("win" not in sys_platform)", Host::kLinux312, "", true},
    {R"("win" not in sys_platform)", Host::kWindows312, "", false},
    {R"(platform_machine in "x86_64 AMD64")", Host::kWindows312, "", true},
    {R"(platform_machine in "x86_64 AMD64")", Host::kLinuxArm312, "", false},
    {R"(platform_machine not in "arm64 aarch64")", Host::kMacOS312, "", false},
    {R"(python_version in "3.11 3.12")", Host::kLinux312, "", true},
    // Extras compare normalised on both sides (PEP 685).
    {R"(extra == "Opt_Einsum")", Host::kLinux312, "opt-einsum", true},
    {R"(extra == "opt-einsum")", Host::kLinux312, "OPT.einsum", true},
    {R"(extra == "opt_einsum")", Host::kLinux312, "opt__einsum", true},
    {R"("Opt_Einsum" == extra)", Host::kLinux312, "opt-einsum", true},
    {R"(extra != "optree")", Host::kLinux312, "", true},
    {R"(extra != "optree")", Host::kLinux312, "OpTree", false},
    {R"("opt" in extra)", Host::kLinux312, "opt_einsum", true},
    // "and" binds tighter than "or"; parentheses override.
    {R"(os_name == "posix" or os_name == "nt" and python_version < "3")", Host::kLinux312, "",
     true},
    {R"((os_name == "posix" or os_name == "nt") and python_version < "3")", Host::kLinux312, "",
     false},
    {R"(python_version < "3" and os_name == "nt" or os_name == "posix")", Host::kLinux312, "",
     true},
    {R"(python_version < "3" and (os_name == "nt" or os_name == "posix"))", Host::kLinux312, "",
     false},
    {R"(sys_platform == "win32" or sys_platform == "darwin" or sys_platform == "linux")",
     Host::kMacOS312, "", true},
    {R"((extra == "a" or extra == "b") and (python_version >= "3.9" and os_name == "posix"))",
     Host::kLinux312, "b", true},
    {R"(((((python_version >= "3.9")))))", Host::kLinux38, "", false},
    // Legacy dotted names.
    {R"(os.name == "nt")", Host::kWindows312, "", true},
    {R"(sys.platform == "linux")", Host::kLinux312, "", true},
    {R"(platform.machine == "aarch64")", Host::kLinuxArm312, "", true},
    {R"(platform.python_implementation == "CPython")", Host::kLinux312, "", true},
    {R"(python_implementation == "PyPy")", Host::kLinux312, "", false},
    {R"(platform.version == "10.0.22631")", Host::kWindows312, "", true},
    // Either quote, and no whitespace at all.
    {R"(python_version>='3.9'and os_name=="posix")", Host::kLinux312, "", true},
    {R"("linux"in sys_platform)", Host::kLinux312, "", true},
};

class MarkerEvaluationTest : public testing::TestWithParam<EvaluationCase> {};

TEST_P(MarkerEvaluationTest, MatchesPackaging) {
  const EvaluationCase& c = GetParam();
  const Marker marker = M(c.marker);
  const Expected<bool> result = marker.Evaluate(EnvironmentOf(c.host), c.extra);
  ASSERT_TRUE(result.ok()) << c.marker << ": " << result.error().message;
  EXPECT_EQ(*result, c.expected) << c.marker << " with extra '" << c.extra << "'";
}

INSTANTIATE_TEST_SUITE_P(Table, MarkerEvaluationTest, testing::ValuesIn(kEvaluationCases));

TEST(MarkerTest, EmptyMarkerHoldsEverywhere) {
  const Marker marker;
  EXPECT_TRUE(marker.empty());
  EXPECT_EQ(marker.ToString(), "");
  const Expected<bool> result = marker.Evaluate(MarkerEnvironment{});
  ASSERT_TRUE(result.ok());
  EXPECT_TRUE(*result);
}

TEST(MarkerTest, CopiesAndMovesKeepTheExpression) {
  const Marker original = M(R"(python_version >= "3.9")");
  Marker copy = original;
  EXPECT_EQ(copy.ToString(), original.ToString());
  Marker moved = std::move(copy);
  EXPECT_EQ(moved.ToString(), R"(python_version >= "3.9")");
  Marker assigned;
  assigned = moved;
  EXPECT_FALSE(assigned.empty());
  EXPECT_FALSE(*assigned.Evaluate(Linux(8, 10)));
  EXPECT_TRUE(*assigned.Evaluate(Linux(12, 4)));
}

TEST(MarkerTest, TheVariableOnTheLeftIsLookedUpAndTheRightIsTakenAsWritten) {
  // packaging 26 (and so pip): with a variable on the left, the right side is its text even
  // when it names a variable; with a literal on the left, the right side is looked up, even
  // when it is a literal. PEP 508 allows variables on both sides; we follow pip (found by
  // tests/core/differential).
  const MarkerEnvironment env = Linux(12, 4);
  EXPECT_FALSE(*M(R"(python_full_version >= python_version)").Evaluate(env));
  EXPECT_FALSE(*M(R"(extra == extra)").Evaluate(env, "cuda"));
  EXPECT_TRUE(*M(R"(extra == extra)").Evaluate(env, "extra"));
  const Expected<bool> literals = M(R"("a" == "a")").Evaluate(env);
  ASSERT_FALSE(literals.ok());
  EXPECT_NE(literals.error().message.find("no value for 'a'"), std::string::npos)
      << literals.error().message;
  EXPECT_TRUE(*M(R"("3.8" < python_version)").Evaluate(env));  // a literal on the left
}

TEST(MarkerTest, OnlyVersionVariablesCompareAsVersions) {
  // packaging 26's MARKERS_REQUIRING_VERSION: python_version, python_full_version,
  // implementation_version and platform_release. Elsewhere strings compare: <= and >= as ==,
  // < and > never hold.
  MarkerEnvironment env = Linux(12, 4);
  env.values["platform_version"] = "3.12";
  EXPECT_FALSE(*M(R"(platform_version >= "3.1")").Evaluate(env));
  EXPECT_TRUE(*M(R"(platform_version >= "3.12")").Evaluate(env));
  EXPECT_TRUE(*M(R"(platform_version <= "3.12")").Evaluate(env));
  EXPECT_FALSE(*M(R"(platform_version > "3.1")").Evaluate(env));
  EXPECT_FALSE(*M(R"(os_name < "zzz")").Evaluate(env));
  EXPECT_FALSE(*M(R"("posix" > os_name)").Evaluate(env));
  EXPECT_TRUE(*M(R"(platform_machine >= "x86_64")").Evaluate(env));
  // A version variable whose value is no version matches no specifier.
  env.values["platform_release"] = "6.8.0-45-generic";
  EXPECT_FALSE(*M(R"(platform_release >= "5.0")").Evaluate(env));
  // "==6.8.0-45-generic" is no specifier either: strings, and they are equal.
  EXPECT_TRUE(*M(R"(platform_release == "6.8.0-45-generic")").Evaluate(env));
  // "===" compares the strings, versions or not.
  EXPECT_TRUE(*M(R"(platform_release === "6.8.0-45-GENERIC")").Evaluate(env));
  // "<3.8.*" is no specifier: strings then, where < never holds.
  EXPECT_FALSE(*M(R"(python_version < "3.8.*")").Evaluate(env));
}

TEST(MarkerTest, ExtraArgumentIsTheOnlyExtra) {
  // The environment's own "extra", if any, does not count: the argument decides.
  MarkerEnvironment env = Linux(12, 4);
  env.values["extra"] = "optree";
  const Marker marker = M(R"(extra == "optree")");
  EXPECT_FALSE(*marker.Evaluate(env));
  EXPECT_TRUE(*marker.Evaluate(env, "optree"));
}

struct FormatCase {
  std::string input;
  std::string normal_form;
};

// Normal forms as str(Marker(input)) prints them in packaging 24.2, except where noted.
const FormatCase kFormatCases[] = {
    {R"(python_version>='3.9')", R"(python_version >= "3.9")"},
    {R"(  python_version  >=  "3.9"  )", R"(python_version >= "3.9")"},
    {"platform_system=='Linux'and platform_machine=='x86_64'",
     R"(platform_system == "Linux" and platform_machine == "x86_64")"},
    {R"('linux' in sys_platform)", R"("linux" in sys_platform)"},
    {"'win'  not \t in sys_platform", R"("win" not in sys_platform)"},
    {R"(extra == "Opt_Einsum")", R"(extra == "opt-einsum")"},
    {R"("Opt_Einsum" == extra)", R"("opt-einsum" == extra)"},
    {R"(os.name == "nt" or sys.platform == "win32")",
     R"(os_name == "nt" or sys_platform == "win32")"},
    {R"(python_implementation == "CPython")", R"(platform_python_implementation == "CPython")"},
    {R"(platform.machine == "arm64" and platform.version == "x")",
     R"(platform_machine == "arm64" and platform_version == "x")"},
    {R"(platform.python_implementation == "PyPy")", R"(platform_python_implementation == "PyPy")"},
    // A group of one loses its parentheses; groups inside an expression keep theirs.
    {R"((python_version >= "3.9"))", R"(python_version >= "3.9")"},
    {R"((python_version >= "3.9" or os_name == "nt"))",
     R"(python_version >= "3.9" or os_name == "nt")"},
    {R"(( os_name == "nt" ) and python_version < "3.13")",
     R"(os_name == "nt" and python_version < "3.13")"},
    {R"((os_name == "nt" or os_name == "posix") and (python_version < "3.13"))",
     R"((os_name == "nt" or os_name == "posix") and python_version < "3.13")"},
    {R"(os_name == "nt" and (python_version < "3" and sys_platform == "win32"))",
     R"(os_name == "nt" and (python_version < "3" and sys_platform == "win32"))"},
    // packaging prints "a and b or c" here, which means something else; we keep the group.
    {R"(python_version > "3" and ((os_name == "a" or os_name == "b")))",
     R"(python_version > "3" and (os_name == "a" or os_name == "b"))"},
    // A value holding a double quote is printed in single quotes, so that it reads back.
    {R"(platform_version == 'say "hi"')", R"(platform_version == 'say "hi"')"},
    // Every extra comparison is normalised (packaging normalises only the first one).
    {R"(python_version >= "3" and extra == "Foo_Bar")",
     R"(python_version >= "3" and extra == "foo-bar")"},
};

TEST(MarkerFormatTest, NormalForm) {
  for (const FormatCase& c : kFormatCases) {
    const Marker marker = M(c.input);
    EXPECT_EQ(marker.ToString(), c.normal_form) << c.input;
    // The normal form reads back to itself.
    EXPECT_EQ(M(marker.ToString()).ToString(), c.normal_form) << c.input;
  }
}

TEST(MarkerEvaluationErrorTest, CompatibleAndArbitraryOnStringsAreUndefined) {
  const MarkerEnvironment env = Linux(12, 4);
  for (const std::string_view text : {
           R"(implementation_name ~= "cpython")", R"(implementation_name === "cpython")",
           R"(os_name ~= "posix")",
       }) {
    const Expected<bool> result = M(text).Evaluate(env);
    ASSERT_FALSE(result.ok()) << text;
    EXPECT_NE(result.error().message.find("undefined comparison"), std::string::npos)
        << result.error().message;
  }
}

TEST(MarkerEvaluationErrorTest, MessageNamesTheValuesAndTheMarker) {
  const Expected<bool> result = M(R"(os_name~='nt')").Evaluate(Linux(12, 4));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().message,
            "cannot evaluate marker 'os_name ~= \"nt\"': undefined comparison 'posix' ~= 'nt' "
            "(this operator needs versions on both sides)");
}

TEST(MarkerEvaluationErrorTest, UndefinedComparisonInAnyBranchIsReported) {
  // As packaging, every comparison is evaluated, so the error shows whatever the other
  // branch says.
  const Expected<bool> result =
      M(R"(python_version >= "3" or os_name ~= "nt")").Evaluate(Linux(12, 4));
  EXPECT_FALSE(result.ok());
}

TEST(MarkerEvaluationErrorTest, MissingVariableIsNamed) {
  MarkerEnvironment env = Linux(12, 4);
  env.values.erase("platform_machine");
  const Expected<bool> result =
      M(R"(platform_system == "Linux" and platform.machine == "x86_64")").Evaluate(env);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().message,
            "cannot evaluate marker 'platform_system == \"Linux\" and platform_machine == "
            "\"x86_64\"': the environment has no value for 'platform_machine'");
  // The extra never misses: it is the argument.
  EXPECT_TRUE(M(R"(extra == "")").Evaluate(MarkerEnvironment{}).ok());
  EXPECT_FALSE(M(R"(os_name == "nt")").Evaluate(MarkerEnvironment{}).ok());
}

struct ParseErrorCase {
  std::string input;
  std::string message;
};

const ParseErrorCase kParseErrors[] = {
    {"", "invalid marker '': expected a marker variable or a quoted string at column 1"},
    {"   ", "invalid marker '   ': expected a marker variable or a quoted string at column 4"},
    {R"(python_version >= )",
     "invalid marker 'python_version >= ': expected a marker variable or a quoted string at "
     "column 19"},
    {R"(python_version "3.9")",
     "invalid marker 'python_version \"3.9\"': expected a marker operator (<, <=, ==, !=, >=, "
     ">, ~=, ===, in, not in) at column 16"},
    {R"(python_version = "3.9")",
     "invalid marker 'python_version = \"3.9\"': expected a marker operator (<, <=, ==, !=, >=, "
     ">, ~=, ===, in, not in) at column 16"},
    {R"(python_version >= 3.9)",
     "invalid marker 'python_version >= 3.9': expected a marker variable or a quoted string, "
     "found unquoted '3.9' at column 19"},
    {R"(python_versoin >= "3.9")",
     "invalid marker 'python_versoin >= \"3.9\"': unknown marker variable 'python_versoin' "
     "(did you mean 'python_version'?) at column 1"},
    {R"(os_name == "nt" and gpu == "h100")",
     "invalid marker 'os_name == \"nt\" and gpu == \"h100\"': unknown marker variable 'gpu' at "
     "column 21"},
    {R"(platform.release == "6")",
     "invalid marker 'platform.release == \"6\"': unknown marker variable 'platform.release' "
     "(did you mean 'platform_release'?) at column 1"},
    // PEP 751's "extras" and "dependency_groups" are variables (packaging 26 reads them);
    // evaluating them needs a lock file's environment. A NUL is no string (ast.literal_eval).
    {R"(dependency_group == "x")",
     "invalid marker 'dependency_group == \"x\"': unknown marker variable 'dependency_group' "
     "(did you mean 'dependency_groups'?) at column 1"},
    {std::string("os_name == \"a") + '\0' + "b\"",
     // The message shows the NUL as an escape, so it stays one printable line.
     "invalid marker 'os_name == \"a\\x00b\"': NUL character in a quoted string at column 14"},
    {R"(python_version >= "3.9)",
     "invalid marker 'python_version >= \"3.9': unterminated string (no closing \") at column "
     "19"},
    {R"(os_name == 'nt)",
     "invalid marker 'os_name == 'nt': unterminated string (no closing ') at column 12"},
    {R"("win" not sys_platform)",
     "invalid marker '\"win\" not sys_platform': expected 'in' after 'not' at column 11"},
    {R"("win" notin sys_platform)",
     "invalid marker '\"win\" notin sys_platform': expected a marker operator (<, <=, ==, !=, "
     ">=, >, ~=, ===, in, not in) at column 7"},
    {R"("win" not"in" sys_platform)",
     "invalid marker '\"win\" not\"in\" sys_platform': expected whitespace after 'not' at "
     "column 10"},
    {R"(python_version >= "3.9" and)",
     "invalid marker 'python_version >= \"3.9\" and': expected a marker variable or a quoted "
     "string at column 28"},
    {R"(python_version >= "3.9" or or os_name == "nt")",
     "invalid marker 'python_version >= \"3.9\" or or os_name == \"nt\"': unknown marker "
     "variable 'or' at column 28"},
    {R"(python_version >= "3.9" os_name == "nt")",
     "invalid marker 'python_version >= \"3.9\" os_name == \"nt\"': expected 'and', 'or' or the "
     "end of the marker at column 25"},
    {R"(python_version >= "3.9" && os_name == "nt")",
     "invalid marker 'python_version >= \"3.9\" && os_name == \"nt\"': expected 'and', 'or' or "
     "the end of the marker at column 25"},
    {R"(python_version >= "3.9"andos_name == "nt")",
     "invalid marker 'python_version >= \"3.9\"andos_name == \"nt\"': expected 'and', 'or' or "
     "the end of the marker at column 24"},
    {R"((python_version >= "3.9")",
     "invalid marker '(python_version >= \"3.9\"': expected ')' (to close the '(' at column 1) "
     "at column 25"},
    {R"((os_name == "nt" or (python_version >= "3.9"))",
     "invalid marker '(os_name == \"nt\" or (python_version >= \"3.9\")': expected ')' (to "
     "close the '(' at column 1) at column 46"},
    {R"(python_version >= "3.9"))",
     "invalid marker 'python_version >= \"3.9\")': expected 'and', 'or' or the end of the "
     "marker at column 24"},
    {"()", "invalid marker '()': expected a marker variable or a quoted string at column 2"},
    {R"(python_version >= "3.9"; os_name == "nt")",
     "invalid marker 'python_version >= \"3.9\"; os_name == \"nt\"': expected 'and', 'or' or "
     "the end of the marker at column 24"},
};

TEST(MarkerParseErrorTest, SaysWhatWasExpectedAndWhere) {
  for (const ParseErrorCase& c : kParseErrors) {
    const Expected<Marker> marker = Marker::Parse(c.input);
    ASSERT_FALSE(marker.ok()) << c.input << " parsed as " << marker->ToString();
    EXPECT_EQ(marker.error().message, c.message);
  }
}

TEST(MarkerParseErrorTest, DeepNestingIsAnErrorNotACrash) {
  std::string text(10000, '(');
  const Expected<Marker> marker = Marker::Parse(text);
  ASSERT_FALSE(marker.ok());
  EXPECT_NE(marker.error().message.find("parentheses nest too deeply at column 65"),
            std::string::npos)
      << marker.error().message;
  // Nesting that real markers use is fine.
  EXPECT_TRUE(
      Marker::Parse(std::string(20, '(') + R"(os_name == "nt")" + std::string(20, ')')).ok());
}

}  // namespace
}  // namespace torchdex::core
