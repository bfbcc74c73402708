#include "core/requirement.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace torchdex::core {
namespace {

Requirement R(std::string_view text) {
  Expected<Requirement> requirement = Requirement::Parse(text);
  EXPECT_TRUE(requirement.ok()) << text << ": "
                                << (requirement.ok() ? "" : requirement.error().message);
  return requirement.ok() ? requirement.value() : Requirement();
}

// ---- torch's own dependencies ----

// Requires-Dist lines of torch 2.5.1+cu124 (and the nightly pytorch-triton pin), as the
// wheels' METADATA lists them.
const std::vector<std::string> kTorchRequiresDist = {
    "filelock",
    "typing-extensions>=4.8.0",
    "networkx",
    "jinja2",
    "fsspec",
    R"(nvidia-cuda-nvrtc-cu12==12.4.127; platform_system == "Linux" and platform_machine == "x86_64")",
    R"(nvidia-cuda-runtime-cu12==12.4.127; platform_system == "Linux" and platform_machine == "x86_64")",
    R"(nvidia-cudnn-cu12==9.1.0.70; platform_system == "Linux" and platform_machine == "x86_64")",
    R"(triton==3.1.0; platform_system == "Linux" and platform_machine == "x86_64" and python_version < "3.13")",
    R"(setuptools; python_version >= "3.12")",
    R"(sympy==1.12.1; python_version == "3.8")",
    R"(sympy==1.13.1; python_version >= "3.9")",
    R"(opt-einsum>=3.3; extra == "opt-einsum")",
    R"(optree>=0.12.0; extra == "optree")",
    R"(pytorch-triton==3.3.0+git96316ce5; platform_system == "Linux")",
};

TEST(RequirementTest, TorchRequiresDistRoundTrips) {
  // packaging's str(Requirement(line)) is the line itself for each of these.
  for (const std::string& line : kTorchRequiresDist) {
    EXPECT_EQ(R(line).ToString(), line);
  }
}

TEST(RequirementTest, TorchRequiresDistFields) {
  const Requirement cuda = R(kTorchRequiresDist[6]);
  EXPECT_EQ(cuda.name, "nvidia-cuda-runtime-cu12");
  EXPECT_TRUE(cuda.extras.empty());
  ASSERT_EQ(cuda.specifiers.specifiers().size(), 1u);
  EXPECT_EQ(cuda.specifiers.specifiers()[0].op(), SpecOp::kEqual);
  EXPECT_EQ(cuda.specifiers.specifiers()[0].version_text(), "12.4.127");
  EXPECT_EQ(cuda.url, "");
  EXPECT_EQ(cuda.marker.ToString(),
            R"(platform_system == "Linux" and platform_machine == "x86_64")");

  const Requirement triton = R(kTorchRequiresDist.back());
  EXPECT_EQ(triton.name, "pytorch-triton");
  EXPECT_EQ(triton.specifiers.ToString(), "==3.3.0+git96316ce5");
  EXPECT_TRUE(triton.specifiers.Contains(*Version::Parse("3.3.0+git96316ce5")));
  EXPECT_FALSE(triton.specifiers.Contains(*Version::Parse("3.3.0")));

  const Requirement plain = R("typing-extensions>=4.8.0");
  EXPECT_TRUE(plain.marker.empty());
  EXPECT_EQ(plain.NormalizedName(), "typing-extensions");
}

struct TorchDependencyCase {
  std::string host;
  MarkerEnvironment env;
  std::string extra;
  std::set<std::string> applies;
};

MarkerEnvironment Windows312() {
  MarkerEnvironment env = MarkerEnvironment::ForLinuxCPython(3, 12, 4, "AMD64");
  env.values["os_name"] = "nt";
  env.values["sys_platform"] = "win32";
  env.values["platform_system"] = "Windows";
  return env;
}
MarkerEnvironment MacOS312() {
  MarkerEnvironment env = MarkerEnvironment::ForLinuxCPython(3, 12, 4, "arm64");
  env.values["sys_platform"] = "darwin";
  env.values["platform_system"] = "Darwin";
  return env;
}

// Which of torch's dependencies each machine installs, as pip decides with packaging 24.2;
// each line is named by its name and pin ("sympy==1.13.1").
TEST(RequirementTest, WhichTorchDependenciesApply) {
  const std::set<std::string> always = {"filelock", "typing-extensions>=4.8.0", "networkx",
                                        "jinja2", "fsspec"};
  const std::set<std::string> linux_x86 = {"nvidia-cuda-nvrtc-cu12==12.4.127",
                                           "nvidia-cuda-runtime-cu12==12.4.127",
                                           "nvidia-cudnn-cu12==9.1.0.70"};
  auto join = [](std::set<std::string> a, const std::set<std::string>& b,
                 std::initializer_list<std::string> more = {}) {
    a.insert(b.begin(), b.end());
    a.insert(more.begin(), more.end());
    return a;
  };
  const std::set<std::string> none;
  const TorchDependencyCase cases[] = {
      {"linux-3.12-x86_64", MarkerEnvironment::ForLinuxCPython(3, 12, 4), "",
       join(always, linux_x86,
            {"triton==3.1.0", "setuptools", "sympy==1.13.1", "pytorch-triton==3.3.0+git96316ce5"})},
      {"linux-3.13-x86_64", MarkerEnvironment::ForLinuxCPython(3, 13, 1), "",
       join(always, linux_x86,
            {"setuptools", "sympy==1.13.1", "pytorch-triton==3.3.0+git96316ce5"})},
      {"linux-3.8-x86_64", MarkerEnvironment::ForLinuxCPython(3, 8, 20), "",
       join(always, linux_x86,
            {"triton==3.1.0", "sympy==1.12.1", "pytorch-triton==3.3.0+git96316ce5"})},
      {"linux-3.10-x86_64", MarkerEnvironment::ForLinuxCPython(3, 10, 14), "",
       join(always, linux_x86,
            {"triton==3.1.0", "sympy==1.13.1", "pytorch-triton==3.3.0+git96316ce5"})},
      {"linux-3.12-aarch64", MarkerEnvironment::ForLinuxCPython(3, 12, 4, "aarch64"), "",
       join(always, none, {"setuptools", "sympy==1.13.1", "pytorch-triton==3.3.0+git96316ce5"})},
      {"windows-3.12", Windows312(), "", join(always, none, {"setuptools", "sympy==1.13.1"})},
      {"macos-3.12", MacOS312(), "", join(always, none, {"setuptools", "sympy==1.13.1"})},
      {"macos-3.12[optree]", MacOS312(), "optree",
       join(always, none, {"setuptools", "sympy==1.13.1", "optree>=0.12.0"})},
      {"macos-3.12[Opt_Einsum]", MacOS312(), "Opt_Einsum",
       join(always, none, {"setuptools", "sympy==1.13.1", "opt-einsum>=3.3"})},
  };
  for (const TorchDependencyCase& c : cases) {
    std::set<std::string> applies;
    for (const std::string& line : kTorchRequiresDist) {
      const Requirement requirement = R(line);
      const Expected<bool> result = requirement.marker.Evaluate(c.env, c.extra);
      ASSERT_TRUE(result.ok()) << c.host << ": " << result.error().message;
      if (*result) applies.insert(requirement.name + requirement.specifiers.ToString());
    }
    EXPECT_EQ(applies, c.applies) << c.host;
  }
}

// ---- the grammar ----

struct ParseCase {
  std::string input;
  std::string normal_form;  // ToString()
  std::string name;
  std::vector<std::string> extras;
  std::string specifiers;
  std::string url;
  std::string marker;
};

// The normal forms are packaging 24.2's str(Requirement(input)), but for extras, which we
// normalise (packaging keeps them as written).
const ParseCase kParseCases[] = {
    {"torch", "torch", "torch", {}, "", "", ""},
    {"torch>=2.0", "torch>=2.0", "torch", {}, ">=2.0", "", ""},
    {"  torch  >=  2.0 , < 3  ", "torch<3,>=2.0", "torch", {}, "<3,>=2.0", "", ""},
    {"torch (>=2.0, <3)", "torch<3,>=2.0", "torch", {}, "<3,>=2.0", "", ""},
    {"torch(>=2.0,<3)", "torch<3,>=2.0", "torch", {}, "<3,>=2.0", "", ""},
    {"torch ( >=2.0 )", "torch>=2.0", "torch", {}, ">=2.0", "", ""},
    {"torch ()", "torch", "torch", {}, "", "", ""},
    {"torch>=2.0,", "torch>=2.0", "torch", {}, ">=2.0", "", ""},  // packaging allows it
    {"torch==2.5.*", "torch==2.5.*", "torch", {}, "==2.5.*", "", ""},
    {"torch==2.5.1+cu124", "torch==2.5.1+cu124", "torch", {}, "==2.5.1+cu124", "", ""},
    {"torch!=2.5.0,~=2.5", "torch!=2.5.0,~=2.5", "torch", {}, "!=2.5.0,~=2.5", "", ""},
    {"torch===2.5.1-custom", "torch===2.5.1-custom", "torch", {}, "===2.5.1-custom", "", ""},
    {"torch>=2.6.0rc1", "torch>=2.6.0rc1", "torch", {}, ">=2.6.0rc1", "", ""},
    {"torch[]", "torch", "torch", {}, "", "", ""},
    {"torch [ ] >=1", "torch>=1", "torch", {}, ">=1", "", ""},
    {"Torch_Audio[X_Y, a,a]>=2",
     "Torch_Audio[a,x-y]>=2",
     "Torch_Audio",
     {"a", "x-y"},
     ">=2",
     "",
     ""},
    {"torch[opt-einsum,optree]",
     "torch[opt-einsum,optree]",
     "torch",
     {"opt-einsum", "optree"},
     "",
     "",
     ""},
    {"torch [ optree ]", "torch[optree]", "torch", {"optree"}, "", "", ""},
    {"torch>=2.0;python_version>='3.9'",
     R"(torch>=2.0; python_version >= "3.9")",
     "torch",
     {},
     ">=2.0",
     "",
     R"(python_version >= "3.9")"},
    {"torch;python_version>='3.9'",
     R"(torch; python_version >= "3.9")",
     "torch",
     {},
     "",
     "",
     R"(python_version >= "3.9")"},
    {"torch\t>=2.0\t;\tos_name=='nt'\t",
     R"(torch>=2.0; os_name == "nt")",
     "torch",
     {},
     ">=2.0",
     "",
     R"(os_name == "nt")"},
    {"torch (>=2.0) ; extra == 'Opt_Einsum'",
     R"(torch>=2.0; extra == "opt-einsum")",
     "torch",
     {},
     ">=2.0",
     "",
     R"(extra == "opt-einsum")"},
    {"torch[cuda]>=2; (os_name == 'nt' or os_name == 'posix') and python_version < '3.14'",
     R"(torch[cuda]>=2; (os_name == "nt" or os_name == "posix") and python_version < "3.14")",
     "torch",
     {"cuda"},
     ">=2",
     "",
     R"((os_name == "nt" or os_name == "posix") and python_version < "3.14")"},
    // URLs run to whitespace; packaging 26 prints "name @ url".
    {"torch @ "
     "https://download.pytorch.org/whl/cu124/torch-2.5.1%2Bcu124-cp312-cp312-linux_x86_64.whl",
     "torch @ "
     "https://download.pytorch.org/whl/cu124/torch-2.5.1%2Bcu124-cp312-cp312-linux_x86_64.whl",
     "torch",
     {},
     "",
     "https://download.pytorch.org/whl/cu124/torch-2.5.1%2Bcu124-cp312-cp312-linux_x86_64.whl",
     ""},
    {"torch@file:///tmp/torch.whl",
     "torch @ file:///tmp/torch.whl",
     "torch",
     {},
     "",
     "file:///tmp/torch.whl",
     ""},
    {"torch[cuda] @ file:///tmp/torch.whl  ",
     "torch[cuda] @ file:///tmp/torch.whl",
     "torch",
     {"cuda"},
     "",
     "file:///tmp/torch.whl",
     ""},
    {"torch @ https://x/t.whl ; python_version >= '3.12'",
     R"(torch @ https://x/t.whl ; python_version >= "3.12")",
     "torch",
     {},
     "",
     "https://x/t.whl",
     R"(python_version >= "3.12")"},
    {"torch @ https://x/t.whl\t;python_version >= '3.12'",
     R"(torch @ https://x/t.whl ; python_version >= "3.12")",
     "torch",
     {},
     "",
     "https://x/t.whl",
     R"(python_version >= "3.12")"},
    // Without whitespace the ';' is part of the URL, as in packaging.
    {R"(torch @ https://x/t.whl;python_version>"3")",
     R"(torch @ https://x/t.whl;python_version>"3")",
     "torch",
     {},
     "",
     R"(https://x/t.whl;python_version>"3")",
     ""},
};

TEST(RequirementParseTest, Fields) {
  for (const ParseCase& c : kParseCases) {
    const Expected<Requirement> parsed = Requirement::Parse(c.input);
    ASSERT_TRUE(parsed.ok()) << c.input << ": " << parsed.error().message;
    const Requirement& r = *parsed;
    EXPECT_EQ(r.ToString(), c.normal_form) << c.input;
    EXPECT_EQ(r.name, c.name) << c.input;
    EXPECT_EQ(r.extras, c.extras) << c.input;
    EXPECT_EQ(r.specifiers.ToString(), c.specifiers) << c.input;
    EXPECT_EQ(r.url, c.url) << c.input;
    EXPECT_EQ(r.marker.ToString(), c.marker) << c.input;
    // The normal form reads back to the same requirement.
    EXPECT_EQ(R(r.ToString()).ToString(), c.normal_form) << c.input;
  }
}

TEST(RequirementParseTest, NormalizedName) {
  EXPECT_EQ(R("Torch_Audio>=2").NormalizedName(), "torch-audio");
  EXPECT_EQ(R("zope..Interface").NormalizedName(), "zope-interface");
  EXPECT_EQ(R("Jinja2").name, "Jinja2");  // the name is kept as written
}

TEST(RequirementParseTest, MarkerOfARequirementEvaluates) {
  const Requirement r = R("triton==3.1.0 ; platform_system=='Linux' and python_version<'3.13'");
  EXPECT_TRUE(*r.marker.Evaluate(MarkerEnvironment::ForLinuxCPython(3, 12, 4)));
  EXPECT_FALSE(*r.marker.Evaluate(MarkerEnvironment::ForLinuxCPython(3, 13, 0)));
  EXPECT_TRUE(R("torch").marker.empty());
  EXPECT_TRUE(*R("torch").marker.Evaluate(MarkerEnvironment{}));
}

struct ErrorCase {
  std::string input;
  std::string message;
};

const ErrorCase kErrorCases[] = {
    {"torch>=", "invalid requirement 'torch>=': expected a version after '>=' at column 8"},
    {"torch >= ", "invalid requirement 'torch >= ': expected a version after '>=' at column 10"},
    // packaging accepts an empty "===" operand; Specifier::Parse does not.
    {"torch===", "invalid requirement 'torch===': expected a version after '===' at column 9"},
    {"torch>=;python_version>'3'",
     "invalid requirement 'torch>=;python_version>'3'': expected a version after '>=' at "
     "column 8"},
    {"torch>=2.0,<",
     "invalid requirement 'torch>=2.0,<': expected a version after '<' at column 13"},
    {"", "invalid requirement '': expected a package name at column 1"},
    {"   ", "invalid requirement '   ': expected a package name at column 4"},
    {">=2.0", "invalid requirement '>=2.0': expected a package name at column 1"},
    {"[cuda]", "invalid requirement '[cuda]': expected a package name at column 1"},
    {"-torch",
     "invalid requirement '-torch': invalid package name '-torch' (it must start with a letter "
     "or digit and end with one or '_') at column 1"},
    // "> =2" is no ">=2" (found by tests/core/differential: it was read as ">=2").
    {"torch> =2",
     "invalid requirement 'torch> =2': expected a version after '>' at column 8"},
    {"torch 2.0",
     "invalid requirement 'torch 2.0': expected a version specifier, '@', ';' or the end at "
     "column 7"},
    {"torch=2.0",
     "invalid requirement 'torch=2.0': expected a version specifier, '@', ';' or the end at "
     "column 6"},
    {"torch>=2.0 <3",
     "invalid requirement 'torch>=2.0 <3': expected ',', ';' or the end after the version "
     "specifier at column 12"},
    {"torch>=2.0)",
     "invalid requirement 'torch>=2.0)': expected ',', ';' or the end after the version "
     "specifier at column 11"},
    {"torch () >=2",
     "invalid requirement 'torch () >=2': expected ';' or the end after the version specifier "
     "at column 10"},
    {"torch>=2.0,,<3",
     "invalid requirement 'torch>=2.0,,<3': expected a version specifier after ',' at column 12"},
    {"torch>=2.0, cuda",
     "invalid requirement 'torch>=2.0, cuda': expected a version specifier after ',' at column "
     "13"},
    {"torch (>=2.0",
     "invalid requirement 'torch (>=2.0': expected ')' (to close the '(' at column 7) at column "
     "13"},
    {"torch (>=2.0;os_name=='nt')",
     "invalid requirement 'torch (>=2.0;os_name=='nt')': expected ')' (to close the '(' at "
     "column 7) at column 13"},
    // Specifiers the specifier parser rejects, located at their operator.
    {"torch>=2.0.*",
     "invalid requirement 'torch>=2.0.*': invalid specifier '>=2.0.*': a '.*' prefix match is "
     "only allowed with == and != at column 6"},
    {"torch<=2.5.1+cu124",
     "invalid requirement 'torch<=2.5.1+cu124': invalid specifier '<=2.5.1+cu124': a local "
     "version label is only allowed with == and != at column 6"},
    {"torch>=2,~=2",
     "invalid requirement 'torch>=2,~=2': invalid specifier '~=2': '~=' needs at least two "
     "release numbers (~=2.5, not ~=2) at column 10"},
    // Extras.
    {"torch[cuda",
     "invalid requirement 'torch[cuda': expected ',' or ']' (to close the '[' at column 6) at "
     "column 11"},
    {"torch[cuda;rocm]",
     "invalid requirement 'torch[cuda;rocm]': expected ',' or ']' (to close the '[' at column "
     "6) at column 11"},
    {"torch[cuda rocm]",
     "invalid requirement 'torch[cuda rocm]': expected ',' between extra names at column 12"},
    {"torch[cuda,]",
     "invalid requirement 'torch[cuda,]': expected an extra name after ',' at column 12"},
    {"torch[,cuda]",
     "invalid requirement 'torch[,cuda]': expected an extra name or ']' (to close the '[' at "
     "column 6) at column 7"},
    {"torch[cuda-]",
     "invalid requirement 'torch[cuda-]': invalid extra name 'cuda-' (it must start with a letter or digit and end with one or '_') "
     "at column 7"},
    // URLs.
    {"torch @", "invalid requirement 'torch @': expected a URL after '@' at column 8"},
    {"torch @   ", "invalid requirement 'torch @   ': expected a URL after '@' at column 11"},
    {"torch>=2 @ https://x/t.whl",
     "invalid requirement 'torch>=2 @ https://x/t.whl': expected ',', ';' or the end after the "
     "version specifier at column 10"},
    {"torch @ https://x/t.whl python_version>'3'",
     "invalid requirement 'torch @ https://x/t.whl python_version>'3'': expected ';' or the end "
     "after the URL at column 25"},
    // Markers, with columns in the whole line.
    {"torch;",
     "invalid requirement 'torch;': expected a marker variable or a quoted string at "
     "column 7"},
    {"torch; ",
     "invalid requirement 'torch; ': expected a marker variable or a quoted string at "
     "column 8"},
    {"torch; gpu == 'h100'",
     "invalid requirement 'torch; gpu == 'h100'': unknown marker variable 'gpu' at column 8"},
    {"torch; os_name == 'nt' extra",
     "invalid requirement 'torch; os_name == 'nt' extra': expected 'and', 'or' or the end of the "
     "requirement at column 24"},
    {"torch; os_name == 'nt')",
     "invalid requirement 'torch; os_name == 'nt')': expected 'and', 'or' or the end of the "
     "requirement at column 23"},
    {"torch; os_name == 'nt' and",
     "invalid requirement 'torch; os_name == 'nt' and': expected a marker variable or a quoted "
     "string at column 27"},
    {"torch; python_version >= 3.9",
     "invalid requirement 'torch; python_version >= 3.9': expected a marker variable or a quoted "
     "string, found unquoted '3.9' at column 26"},
    {"torch; (os_name == 'nt'",
     "invalid requirement 'torch; (os_name == 'nt'': expected ')' (to close the '(' at column 8) "
     "at column 24"},
    {"torch @ https://x/t.whl ; os_name ~ 'nt'",
     "invalid requirement 'torch @ https://x/t.whl ; os_name ~ 'nt'': expected a marker operator "
     "(<, <=, ==, !=, >=, >, ~=, ===, in, not in) at column 35"},
    {"torch>=2.0; python_version >= '3.9'; os_name == 'nt'",
     "invalid requirement 'torch>=2.0; python_version >= '3.9'; os_name == 'nt'': expected "
     "'and', 'or' or the end of the requirement at column 36"},
};

TEST(RequirementParseTest, AMessageShowsControlCharactersAsEscapes) {
  auto parsed = Requirement::Parse("torch\r");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.error().message.rfind("invalid requirement 'torch\\r'", 0), 0u) << parsed.error().message;
  auto vt = Requirement::Parse("torch\v");
  ASSERT_FALSE(vt.ok());
  EXPECT_NE(vt.error().message.find("'torch\\x0b'"), std::string::npos) << vt.error().message;
}

TEST(RequirementParseTest, AnInnerPlaceIsNotFollowedByAnOuterOne) {
  // It read "... expected a release number at column 1 at column 6" (issue 13, D.16).
  auto parsed = Requirement::Parse("torch==a");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.error().message,
            "invalid requirement 'torch==a' at column 6: invalid specifier '==a': invalid version 'a': "
            "expected a release number at column 1");
}

TEST(RequirementParseTest, ErrorsSayWhatWasExpectedAndWhere) {
  for (const ErrorCase& c : kErrorCases) {
    const Expected<Requirement> parsed = Requirement::Parse(c.input);
    ASSERT_FALSE(parsed.ok()) << c.input << " parsed as " << parsed->ToString();
    EXPECT_EQ(parsed.error().message, c.message);
  }
}

// Found by tests/core/differential: packaging's IDENTIFIER (and so pip) lets a name or an
// extra end in '_'; PEP 508 does not. We follow pip.
TEST(RequirementParseTest, NameMayEndInUnderscoreAsInPip) {
  const Expected<Requirement> r = Requirement::Parse("torch_[cuda_]>=2");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->NormalizedName(), "torch-");
  EXPECT_EQ(r->extras, (std::vector<std::string>{"cuda-"}));
  EXPECT_FALSE(Requirement::Parse("torch->=2").ok());
}

// Found by requirement_fuzz: an extra ending in '_' normalises to a trailing '-', and the normal
// form must still parse back to the same requirement.
TEST(Requirement, AnExtraEndingInAnUnderscoreSurvivesItsNormalForm) {
  auto parsed = Requirement::Parse("torch[cud_, Opt_Einsum] (>=2.0) ; os_name == 'nt'");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_EQ(parsed->extras, (std::vector<std::string>{"cud-", "opt-einsum"}));
  auto again = Requirement::Parse(parsed->ToString());
  ASSERT_TRUE(again.ok()) << parsed->ToString() << ": " << again.error().message;
  EXPECT_EQ(again->extras, parsed->extras);
  EXPECT_EQ(again->ToString(), parsed->ToString());
}

}  // namespace
}  // namespace torchdex::core
