// Wheel variants: the variants.json parser (both schemas, located errors), PEP 825's ordering
// against the properties of captured hosts, the built-in providers' value orderings, and
// external providers that answer, hang, crash, flood or lie (docs/variants.md).
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "catalogue/variants.h"
#include "installer/variants/providers.h"
#include "tests/installer/test_support.h"

namespace torchdex::installer::testing {
namespace {

using catalogue::ParseVariantsJson;
using catalogue::RankVariants;
using catalogue::SupportedProperties;
using catalogue::VariantsJson;

const std::filesystem::path kProviders =
    std::filesystem::path(TORCHDEX_SOURCE_DIR) / "tests/installer/fakes/providers";

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

VariantsJson Fixture(const std::string& name) {
  const std::filesystem::path path = kFixtures / "variants" / name;
  auto parsed = ParseVariantsJson(ReadFile(path), path.string());
  if (!parsed) throw std::runtime_error(parsed.error().message);
  return *parsed;
}

SupportedProperties HostProperties(const std::string& host) {
  return BuiltInProperties(DetectUnder(kFixtures / "hosts" / host, {}));
}

std::string Best(const VariantsJson& file, const SupportedProperties& host) {
  const auto ranked = RankVariants(file, host);
  return ranked.empty() || !ranked.front().compatible ? "" : ranked.front().label;
}

std::vector<std::string> Values(const SupportedProperties& props, const std::string& ns,
                                const std::string& feature) {
  for (const auto& n : props) {
    if (n.name != ns) continue;
    for (const auto& f : n.features) {
      if (f.name == feature) return f.values;
    }
  }
  return {};
}

std::string ParseError(const std::string& text) {
  auto parsed = ParseVariantsJson(text, "x-1.0-variants.json");
  return parsed ? "" : parsed.error().message;
}

constexpr const char* kV011 = "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json";

TEST(VariantsJson, ReadsBothSchemas) {
  const VariantsJson v003 = Fixture("torch-2.10.0-variants.json");
  EXPECT_EQ(v003.schema, catalogue::VariantsSchema::kV003);
  EXPECT_EQ(v003.namespace_priorities,
            (std::vector<std::string>{"nvidia", "intel", "amd", "priority"}));
  EXPECT_EQ(v003.variants.size(), 7u);
  ASSERT_EQ(v003.static_properties.size(), 1u);
  EXPECT_EQ(v003.static_properties[0].features[0].values,
            (std::vector<std::string>{"1", "2", "3"}));
  EXPECT_EQ(v003.providers.at("nvidia"), "nvidia_variant_provider.plugin:NvidiaVariantPlugin");
  EXPECT_TRUE(v003.variants.at("null").empty());

  const VariantsJson v011 = Fixture("torch-2.11.0-variants.json");
  EXPECT_EQ(v011.schema, catalogue::VariantsSchema::kV011);
  EXPECT_TRUE(v011.providers.empty());
  EXPECT_EQ(v011.variants.at("cuda13.0")[0].features[1].values.back(), "120_virtual");
  // The canonical form parses back to the same file.
  const std::string canonical = catalogue::VariantsJsonToString(v011);
  auto again = ParseVariantsJson(canonical, "canonical");
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(catalogue::VariantsJsonToString(*again), canonical);
}

TEST(VariantsJson, BadFilesAreLocatedErrors) {
  EXPECT_EQ(ParseError("{\n  \"$schema\": \n}"),
            "x-1.0-variants.json:3:1: not valid JSON: "
            "syntax error while parsing value - unexpected '}'; "
            "expected '[', '{', or a literal");
  EXPECT_NE(
      ParseError(R"({"$schema": "https://variants-schema.wheelnext.dev/v0.0.9.json"})")
          .find(
              "at /$schema: unknown schema \"https://variants-schema.wheelnext.dev/v0.0.9.json\""),
      std::string::npos);
  const std::string base = std::string(R"({"$schema": ")") + kV011 + R"(", "default-priorities": )";
  EXPECT_EQ(ParseError(base + R"({"namespace": ["cpu"]}, "providers": {}, "variants": {}})"),
            "x-1.0-variants.json: at /providers: not a key of the v0.1.1 schema");
  EXPECT_EQ(ParseError(base + R"({"namespace": []}, "variants": {}})"),
            "x-1.0-variants.json: at /default-priorities/namespace: expected at least one value");
  EXPECT_EQ(ParseError(base + R"({"namespace": ["cpu", "cpu"]}, "variants": {}})"),
            "x-1.0-variants.json: at /default-priorities/namespace/1: \"cpu\" is given twice");
  EXPECT_EQ(
      ParseError(base +
                 R"({"namespace": ["cpu"]}, "variants": {"fast": {"gpu": {"cuda": ["12"]}}}})"),
      "x-1.0-variants.json: at /variants/fast/gpu: the namespace is not in "
      "/default-priorities/namespace (cpu)");
  EXPECT_EQ(
      ParseError(base + R"({"namespace": ["cpu"]}, "variants": {"fast": {"cpu": {"level": []}}}})"),
      "x-1.0-variants.json: at /variants/fast/cpu/level: expected at least one value");
  EXPECT_EQ(
      ParseError(base +
                 R"({"namespace": ["cpu"]}, "variants": {"null": {"cpu": {"level": ["v3"]}}}})"),
      "x-1.0-variants.json: at /variants/null: the null variant must have no properties");
  EXPECT_EQ(ParseError(base + R"({"namespace": ["cpu"]}, "variants": {"Fast": {}}})"),
            "x-1.0-variants.json: at /variants/Fast: the label does not match ^[0-9a-z_.]+$");
  EXPECT_EQ(ParseError(base + R"({"namespace": ["cpu"]}, "variants": {"a": {}, "a": {}}})"),
            "x-1.0-variants.json: at /variants/a: the key is given twice");
  EXPECT_EQ(ParseError(base +
                       R"({"namespace": ["cpu"]}, "variants": {"a": {"cpu": {"level": ["V3"]}}}})"),
            "x-1.0-variants.json: at /variants/a/cpu/level/0: \"V3\" does not match ^[a-z0-9_.]+$");
  EXPECT_EQ(ParseError("[]"), "x-1.0-variants.json: at the top: expected an object");
}

// Issue 29, item 8: 200,000 features in one namespace (3.5 MB, under the 4 MiB cap) took about
// 70 s to parse; an object past 256 keys or a list past 1,024 values is refused where it is.
TEST(VariantsJson, HugeObjectsAndListsAreRefusedWhereTheyAre) {
  const std::string base = std::string(R"({"$schema": ")") + kV011 + R"(", "default-priorities": )";
  std::string features;
  for (int i = 0; i < 200000; ++i) features.append(i ? ", " : "").append("\"f").append(std::to_string(i)).append("\": [\"1\"]");
  EXPECT_EQ(ParseError(base + R"({"namespace": ["cpu"]}, "variants": {"fast": {"cpu": {)" + features + "}}}}"),
            "x-1.0-variants.json: at /variants/fast/cpu: more than 256 keys in one object (a variants.json has a "
            "few labels, namespaces and features)");
  std::string values;
  for (int i = 0; i < 1025; ++i) values.append(i ? ", " : "").append("\"v").append(std::to_string(i)).append("\"");
  EXPECT_EQ(ParseError(base + R"({"namespace": ["cpu"]}, "variants": {"fast": {"cpu": {"level": [)" + values + "]}}}}"),
            "x-1.0-variants.json: at /variants/fast/cpu/level: more than 1024 values in one list");
}

TEST(VariantsJson, LabelsOfWheelsMustBeInTheFile) {
  const VariantsJson file = Fixture("torch-2.11.0-variants.json");
  EXPECT_TRUE(catalogue::CheckWheelLabels(file, {"cuda12.8", "null"}, "f"));
  core::Status bad = catalogue::CheckWheelLabels(file, {"cuda12.8", "cuda12.9"}, "f");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("f: the wheels' variant label cuda12.9 is not in the file"),
            std::string::npos)
      << bad.error().message;
}

TEST(VariantsJson, SplitsTheLabelOffAWheelName) {
  auto v =
      catalogue::SplitVariantLabel("torch-2.10.0-cp312-cp312-manylinux_2_28_x86_64-cuda12.8.whl");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->label, "cuda12.8");
  EXPECT_EQ(v->plain_filename, "torch-2.10.0-cp312-cp312-manylinux_2_28_x86_64.whl");
  EXPECT_EQ(catalogue::SplitVariantLabel("torch-2.10.0-1-cp312-cp312-linux_x86_64-null.whl")->label,
            "null");
  EXPECT_FALSE(catalogue::SplitVariantLabel("torch-2.10.0-cp312-cp312-manylinux_2_28_x86_64.whl"));
  EXPECT_FALSE(
      catalogue::SplitVariantLabel("torch-2.10.0-1-cp312-cp312-manylinux_2_28_x86_64.whl"));
  EXPECT_FALSE(catalogue::SplitVariantLabel("torch-2.10.0-cp312-cp312-linux_x86_64-CUDA.whl"));
}

TEST(VariantProviders, NvidiaValueOrderingsAreTheProviders) {
  const std::vector<std::string> lower = CudaLowerBounds(12, 4);
  ASSERT_EQ(lower.size(), 5u + 1u + 21u + 1u);
  EXPECT_EQ(lower[0], "12.4");
  EXPECT_EQ(lower[4], "12.0");
  EXPECT_EQ(lower[5], "12");
  EXPECT_EQ(lower[6], "11.20");
  EXPECT_EQ(lower.back(), "11");
  EXPECT_TRUE(CudaLowerBounds(16, 0).empty());
  EXPECT_TRUE(CudaLowerBounds(10, 2).empty());
  const std::vector<std::string> upper = CudaUpperBounds(13, 0);
  EXPECT_EQ(upper.front(), "15.20");
  EXPECT_EQ(upper.back(), "13.1");
  EXPECT_EQ(SmArchValues({8, 6}),
            (std::vector<std::string>{"86_real", "85_real", "84_real", "83_real", "82_real",
                                      "81_real", "80_real", "80_virtual"}));
  EXPECT_TRUE(SmArchValues({3, 5}).empty());
}

TEST(VariantProviders, CapturedHostsGiveTheirProperties) {
  const SupportedProperties a100 = HostProperties("linux-a100-driver550");
  ASSERT_EQ(a100.size(), 1u);
  EXPECT_EQ(Values(a100, "nvidia", "cuda_version_lower_bound").front(), "12.4");
  EXPECT_EQ(Values(a100, "nvidia", "sm_arch"), (std::vector<std::string>{"80_real", "80_virtual"}));
  const SupportedProperties b580 = HostProperties("intel-arc-b580-xpu");
  EXPECT_EQ(Values(b580, "intel", "device_ip"), (std::vector<std::string>{"20.1.0"}));
  EXPECT_EQ(Values(HostProperties("intel-arc-a770-xpu-plus-uhd770"), "intel", "device_ip"),
            (std::vector<std::string>{"12.55.8"}));
  const SupportedProperties amd = HostProperties("amd-rx7900xtx-gfx1100-rocm6.4");
  EXPECT_EQ(Values(amd, "amd", "gfx_arch"), (std::vector<std::string>{"gfx1100"}));
  EXPECT_EQ(Values(amd, "amd", "rocm_version"), (std::vector<std::string>{"6.4"}));
  EXPECT_TRUE(HostProperties("linux-no-gpu").empty());
}

// The done-when hosts against the real configs' variants: v0.0.3 (2.10) orders cuda12.8 before
// cuda12.6 through its `priority :: order` static property; v0.1.1 (2.11) has none, so the tie
// falls to label order.
TEST(VariantSelection, DoneWhenHosts) {
  const VariantsJson v210 = Fixture("torch-2.10.0-variants.json");
  const VariantsJson v211 = Fixture("torch-2.11.0-variants.json");
  const SupportedProperties a100 = HostProperties("linux-a100-driver550");
  EXPECT_EQ(Best(v210, a100), "cuda12.8");
  EXPECT_EQ(Best(v211, a100), "cuda12.6");
  for (const VariantsJson* file : {&v210, &v211}) {
    EXPECT_EQ(Best(*file, HostProperties("linux-rtx5090-driver575")), "cuda12.8");
    EXPECT_EQ(Best(*file, HostProperties("linux-rtx5090-driver580")), "cuda13.0");
    EXPECT_EQ(Best(*file, HostProperties("intel-arc-b580-xpu")), "xpu");
    EXPECT_EQ(Best(*file, HostProperties("linux-no-gpu")), "null");
    // ROCm 6.4 is installed, the variants want 7.0 or 7.1: the fallback.
    EXPECT_EQ(Best(*file, HostProperties("amd-rx7900xtx-gfx1100-rocm6.4")), "null");
  }
}

TEST(VariantSelection, OrderingAndTheDecidingProperty) {
  const VariantsJson v210 = Fixture("torch-2.10.0-variants.json");
  auto ranked = RankVariants(v210, HostProperties("linux-a100-driver550"));
  // cuda12.8, cuda12.6, null compatible; cuda13.0 needs a 13.0 driver; xpu, rocm no provider.
  ASSERT_GE(ranked.size(), 3u);
  EXPECT_EQ(ranked[0].label, "cuda12.8");
  EXPECT_EQ(ranked[1].label, "cuda12.6");
  EXPECT_EQ(ranked[2].label, "null");
  EXPECT_EQ(catalogue::DecidingProperty(ranked[0], &ranked[1]),
            "priority :: order :: 2 (before cuda12.6's priority :: order :: 3)");
  bool saw13 = false;
  for (const auto& r : ranked) {
    if (r.label != "cuda13.0") continue;
    saw13 = true;
    EXPECT_FALSE(r.compatible);
    EXPECT_EQ(r.incompatible_because.rfind("nvidia :: cuda_version_lower_bound: none of 13.0", 0),
              0u)
        << r.incompatible_because;
  }
  EXPECT_TRUE(saw13);
  auto r580 = RankVariants(v210, HostProperties("linux-rtx5090-driver580"));
  EXPECT_EQ(catalogue::DecidingProperty(r580[0], &r580[1]),
            "nvidia :: cuda_version_lower_bound :: 13.0 (before cuda12.8's nvidia :: "
            "cuda_version_lower_bound :: 12.0)");
  auto v211 =
      RankVariants(Fixture("torch-2.11.0-variants.json"), HostProperties("linux-a100-driver550"));
  EXPECT_EQ(catalogue::DecidingProperty(v211[0], &v211[1]),
            "label order (same properties as cuda12.8)");
  auto none = RankVariants(v210, {});
  EXPECT_EQ(catalogue::DecidingProperty(none[0], &none[1]),
            "the only compatible variant (no properties: the fallback)");
}

// External providers -----------------------------------------------------------------------

VariantDetection RunProviders(const std::vector<std::pair<std::string, std::string>>& providers,
                              const HostFacts& facts = {}) {
  std::vector<ExternalProvider> external;
  for (const auto& [ns, file] : providers)
    external.push_back({ns, (kProviders / file).string(), "test"});
  std::unique_ptr<ProcessRunner> runner = MakeSystemProcessRunner();
  return DetectVariantProperties(facts, external, {{"PATH", "/usr/bin:/bin"}}, *runner,
                                 std::chrono::milliseconds(2000));
}

bool AnyContains(const std::vector<std::string>& list, const std::string& needle) {
  for (const std::string& s : list) {
    if (s.find(needle) != std::string::npos) return true;
  }
  return false;
}

TEST(ExternalProviders, AVendorAddsANamespace) {
  VariantDetection d = RunProviders({{"acme", "torchdex-provider-acme"}},
                                    DetectUnder(kFixtures / "hosts" / "linux-a100-driver550", {}));
  ASSERT_EQ(d.properties.size(), 2u);
  EXPECT_EQ(d.properties[0].name, "nvidia");
  EXPECT_EQ(d.properties[1].name, "acme");
  EXPECT_EQ(Values(d.properties, "acme", "isa"), (std::vector<std::string>{"v3", "v2", "v1"}));
  EXPECT_TRUE(d.warnings.empty());
  // ... and a variant of that namespace becomes selectable.
  auto file = ParseVariantsJson(std::string(R"({"$schema": ")") + kV011 +
                                    R"(", "default-priorities": {"namespace": ["acme"]},
                                    "variants": {"fast": {"acme": {"isa": ["v3"]}}, "null": {}}})",
                                "acme-1.0-variants.json");
  ASSERT_TRUE(file) << file.error().message;
  EXPECT_EQ(Best(*file, d.properties), "fast");
}

TEST(ExternalProviders, TheAnswerIsTakenWhenTheProviderExitsNotWhenItsChildLetsGoOfItsOutput) {
  // Before: the provider's `sleep 30 &` held the pipe, and at the 2 s timeout the answer was lost.
  VariantDetection d = RunProviders({{"daemon", "torchdex-provider-daemon"}});
  ASSERT_EQ(d.properties.size(), 1u) << (d.warnings.empty() ? "" : d.warnings.front());
  EXPECT_EQ(Values(d.properties, "daemon", "mode"), (std::vector<std::string>{"on"}));
  EXPECT_TRUE(d.warnings.empty());
}

TEST(ExternalProviders, AVendorReplacesABuiltInOne) {
  VariantDetection d = RunProviders({{"nvidia", "nvidia-replacement"}},
                                    DetectUnder(kFixtures / "hosts" / "linux-a100-driver550", {}));
  ASSERT_EQ(d.properties.size(), 1u);
  EXPECT_EQ(Values(d.properties, "nvidia", "sm_arch"), (std::vector<std::string>{"120_real"}));
  EXPECT_NE(d.properties[0].provider.find("nvidia-replacement"), std::string::npos);
}

TEST(ExternalProviders, BadProvidersAreBoundedAndNamed) {
  VariantDetection d = RunProviders({{"hang", "hang"},
                                     {"crash", "crash"},
                                     {"huge", "huge"},
                                     {"flood", "flood"},
                                     {"garbage", "garbage"},
                                     {"other", "other-namespace"},
                                     {"fails", "fails"},
                                     {"acme", "torchdex-provider-acme"}});
  // Only the good one is merged; every bad one is a warning naming it, and detection went on.
  ASSERT_EQ(d.properties.size(), 1u);
  EXPECT_EQ(d.properties[0].name, "acme");
  EXPECT_TRUE(AnyContains(d.warnings, "torchdex-provider-hang (" + (kProviders / "hang").string() +
                                          ") timed out after 2 s"));
  EXPECT_TRUE(AnyContains(
      d.warnings,
      "torchdex-provider-crash (" + (kProviders / "crash").string() + ") crashed (signal 11"));
  EXPECT_TRUE(AnyContains(d.warnings, "torchdex-provider-huge (" + (kProviders / "huge").string() +
                                          "): printed 1 MiB or more"));
  EXPECT_TRUE(AnyContains(d.warnings, "torchdex-provider-garbage (" +
                                          (kProviders / "garbage").string() + "): not valid JSON"));
  EXPECT_TRUE(
      AnyContains(d.warnings, "): at /namespace: \"nvidia\", but the provider is for \"other\""));
  EXPECT_TRUE(AnyContains(d.warnings, "torchdex-provider-fails (" +
                                          (kProviders / "fails").string() + ") exited with 3"));
  EXPECT_TRUE(AnyContains(
      d.warnings,
      "torchdex-provider-flood (" + (kProviders / "flood").string() + ") timed out after 2 s"));
  EXPECT_EQ(d.warnings.size(), 7u);
}

// A provider that runs torchdex (a wrapper, the Python provider package) must not start a
// chain of them: the torchdex it runs finds TORCHDEX_PROVIDER_FOR set and runs no provider. Each
// run of the provider adds a line to `runs`; without the guard the chain grows until killed.
TEST(ExternalProviders, AProviderThatRunsTorchdexRunsOnce) {
  TempRoot dir;
  const std::string bin = dir.path().string();
  dir.Write("/torchdex-provider-rec",
            "#!/bin/sh\necho \"$TORCHDEX_PROVIDER_FOR\" >> " + bin + "/runs\nexec " + TORCHDEX_BINARY +
                " detect --variants --json --provider-timeout 5\n");
  std::filesystem::permissions(dir.path() / "torchdex-provider-rec", std::filesystem::perms::owner_all);
  std::unique_ptr<ProcessRunner> runner = MakeSystemProcessRunner();
  const Environment env = {{"PATH", bin + ":/usr/bin:/bin"}, {"HOME", bin}};
  VariantDetection d = DetectVariantProperties({}, {{"rec", bin + "/torchdex-provider-rec", "PATH"}}, env,
                                               *runner, std::chrono::milliseconds(5000));
  EXPECT_EQ(ReadFile(dir.path() / "runs"), "rec\n");
  // The inner torchdex answered (in detect's format, not a provider's: an invalid answer).
  ASSERT_EQ(d.warnings.size(), 1u);
  EXPECT_NE(d.warnings[0].find("torchdex-provider-rec (" + bin + "/torchdex-provider-rec): at /namespace"),
            std::string::npos)
      << d.warnings[0];

  // And a torchdex that is itself a provider says why it runs none.
  VariantDetection inner = DetectVariantProperties({}, {{"hang", (kProviders / "hang").string(), "PATH"}},
                                                   {{"TORCHDEX_PROVIDER_FOR", "rec"}}, *runner,
                                                   std::chrono::milliseconds(5000));
  ASSERT_EQ(inner.warnings.size(), 1u);
  EXPECT_NE(inner.warnings[0].find("running as the provider torchdex-provider-rec (TORCHDEX_PROVIDER_FOR is "
                                   "set): external providers are not run"),
            std::string::npos)
      << inner.warnings[0];
  for (const ProviderRun& run : inner.providers) EXPECT_NE(run.name_space, "hang");
}

// A provider (every child) dies with the torchdex that started it, even killed with SIGKILL,
// which leaves torchdex no time to kill it: Linux's parent-death signal.
TEST(ExternalProviders, AProviderDiesWithTorchdex) {
  TempRoot dir;
  const std::string bin = dir.path().string();
  dir.Write("/torchdex-provider-slow", "#!/bin/sh\necho $$ > " + bin + "/pid.tmp\nmv " + bin + "/pid.tmp " + bin +
                                           "/pid\nexec sleep 60\n");
  std::filesystem::permissions(dir.path() / "torchdex-provider-slow", std::filesystem::perms::owner_all);
  const pid_t torchdex = ::fork();
  ASSERT_GE(torchdex, 0);
  if (torchdex == 0) {
    const std::string path = "PATH=" + bin + ":/usr/bin:/bin";
    const std::string home = "HOME=" + bin;
    char* const argv[] = {const_cast<char*>(TORCHDEX_BINARY), const_cast<char*>("detect"),
                          const_cast<char*>("--variants"), const_cast<char*>("--provider-timeout"),
                          const_cast<char*>("60"), nullptr};
    char* const envp[] = {const_cast<char*>(path.c_str()), const_cast<char*>(home.c_str()), nullptr};
    ::execve(TORCHDEX_BINARY, argv, envp);
    ::_exit(127);
  }
  pid_t provider = 0;
  for (int i = 0; i < 200 && provider == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::ifstream pid_file(dir.path() / "pid");
    if (pid_file) pid_file >> provider;
  }
  ASSERT_GT(provider, 0) << "the provider never ran";
  ASSERT_EQ(::kill(provider, 0), 0);
  ::kill(torchdex, SIGKILL);
  int status = 0;
  ::waitpid(torchdex, &status, 0);
  bool gone = false;
  for (int i = 0; i < 100 && !gone; ++i) {
    // Reaped by init once killed; until then it may linger as a zombie, which kill() still finds.
    std::ifstream stat("/proc/" + std::to_string(provider) + "/stat");
    std::string line;
    std::getline(stat, line);
    gone = !stat || line.find(") Z ") != std::string::npos;
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(gone) << "provider " << provider << " outlived torchdex";
  if (!gone) ::kill(provider, SIGKILL);
}

TEST(ExternalProviders, OutputIsChecked) {
  auto parse = [](const std::string& text) {
    auto r = ParseProviderOutput(text, "acme", "p");
    return r ? std::string() : r.error().message;
  };
  EXPECT_EQ(parse(R"({"version": 2, "namespace": "acme", "features": []})"),
            "provider p: at /version: protocol version 2; torchdex speaks 1");
  EXPECT_EQ(
      parse(R"({"version": 1, "namespace": "acme", "features": [{"name": "Isa", "values": []}]})"),
      "provider p: at /features/0/name: expected a feature name matching ^[a-z0-9_]+$");
  EXPECT_EQ(
      parse(
          R"({"version": 1, "namespace": "acme", "features": [{"name": "isa", "values": ["v1", "v1"]}]})"),
      "provider p: at /features/0/values/1: \"v1\" is given twice");
  EXPECT_EQ(parse(R"({"version": 1, "namespace": "acme", "features": [], "extra": 1})"),
            "provider p: at /extra: not a key of protocol version 1");
  EXPECT_EQ(
      parse(
          R"({"version": 1, "namespace": "acme", "features": [{"name": "isa", "values": ["v 1"]}]})"),
      "provider p: at /features/0/values/0: expected a value matching ^[a-z0-9_.]+$, got \"v 1\"");
  EXPECT_EQ(
      parse(
          R"({"version": 1, "namespace": "acme", "features": [{"name": "isa", "values": ["v1"]}]})"),
      "");
}

// Issue 29, item 18: a provider on the PATH of a host captured under --root is a file of the
// capture; `detect --variants --root DIR` runs it only with --root-providers, and says so.
TEST(ExternalProviders, ProvidersOfACapturedHostRunOnlyWhenAskedTo) {
  TempRoot root;
  root.Write("/usr/bin/torchdex-provider-acme", ReadFile(kProviders / "torchdex-provider-acme"));
  std::filesystem::permissions(root.path() / "usr/bin/torchdex-provider-acme", std::filesystem::perms::owner_all);
  const Environment env = {{"PATH", "/usr/bin"}, {"HOME", root.path().string()}};
  CliResult plain = RunTorchdex({"detect", "--variants", "--json", "--root", root.path().string()}, env);
  ASSERT_EQ(plain.code, 0) << plain.err;
  EXPECT_EQ(plain.out.find("\"acme\""), std::string::npos) << plain.out;
  EXPECT_NE(plain.out.find("on the PATH of the host captured under --root, not run"), std::string::npos) << plain.out;
  CliResult opted = RunTorchdex({"detect", "--variants", "--json", "--root", root.path().string(), "--root-providers"}, env);
  ASSERT_EQ(opted.code, 0) << opted.err;
  EXPECT_NE(opted.out.find("\"namespace\": \"acme\""), std::string::npos) << opted.out;
}

// Issue 29, item 12: a provider's path with an escape sequence and a newline is printed as text.
TEST(ExternalProviders, APathThatWouldDriveTheTerminalIsPrintedEscaped) {
  TempRoot root;
  root.Write("/usr/bin/torchdex-provider-\x1b[2J\xC2\x9b", "#!/bin/sh\n");
  const Environment env = {{"PATH", "/usr/bin"}, {"HOME", root.path().string()}};
  CliResult r = RunTorchdex({"detect", "--variants", "--root", root.path().string(), "--root-providers"}, env);
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string all = r.out + r.err;
  EXPECT_EQ(all.find('\x1b'), std::string::npos) << all;
  EXPECT_EQ(all.find("\xC2\x9b"), std::string::npos) << all;
  EXPECT_NE(all.find("torchdex-provider-\\u001b[2J\\u009b"), std::string::npos) << all;
}

TEST(ExternalProviders, FoundOnPathUnderTheRoot) {
  TempRoot root;
  root.Write("/usr/local/bin/torchdex-provider-acme",
             ReadFile(kProviders / "torchdex-provider-acme"));
  root.Write("/usr/bin/torchdex-provider-acme", "#!/bin/sh\nexit 1\n");  // later on PATH: shadowed
  root.Write("/usr/bin/torchdex-provider-Bad", "#!/bin/sh\n");
  root.Write("/usr/bin/torchdex-provider-notexec", "#!/bin/sh\n");
  std::filesystem::create_directories(root.path() / "usr/bin/torchdex-provider-adir");
  for (const char* file : {"usr/local/bin/torchdex-provider-acme", "usr/bin/torchdex-provider-acme",
                           "usr/bin/torchdex-provider-Bad"}) {
    std::filesystem::permissions(root.path() / file, std::filesystem::perms::owner_all);
  }
  FileReader files(root.path().string());
  std::vector<std::string> warnings;
  auto found =
      FindExternalProviders(files, {{"PATH", "/usr/local/bin:/usr/bin:relative"}}, &warnings);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].name_space, "acme");
  EXPECT_EQ(found[0].path, (root.path() / "usr/local/bin/torchdex-provider-acme").string());
  ASSERT_EQ(warnings.size(), 3u);
  EXPECT_NE(warnings[0].find("\"Bad\" is not a namespace"), std::string::npos);
  EXPECT_NE(warnings[1].find("/usr/bin/torchdex-provider-adir: not an executable file; not run"), std::string::npos)
      << warnings[1];
  EXPECT_NE(warnings[2].find("/usr/bin/torchdex-provider-notexec: not an executable file; not run"), std::string::npos)
      << warnings[2];
}

TEST(DetectVariantsCommand, PrintsPropertiesAsJson) {
  const std::string root = (kFixtures / "hosts" / "linux-rtx5090-driver580").string();
  CliResult r = RunTorchdex({"detect", "--variants", "--json", "--root", root});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["version"], 1);
  ASSERT_EQ(doc["namespaces"].size(), 1u);
  EXPECT_EQ(doc["namespaces"][0]["namespace"], "nvidia");
  EXPECT_EQ(doc["namespaces"][0]["features"][0]["name"], "cuda_version_lower_bound");
  EXPECT_EQ(doc["namespaces"][0]["features"][0]["values"][0], "13.0");
  EXPECT_EQ(doc["namespaces"][0]["features"][2]["values"],
            (nlohmann::json{"120_real", "120_virtual"}));
  CliResult text = RunTorchdex({"detect", "--variants", "--root", root});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("  nvidia :: sm_arch :: 120_real, 120_virtual\n"), std::string::npos)
      << text.out;
  CliResult bad = RunTorchdex({"detect", "--variants", "--provider-timeout", "0", "--root", root});
  EXPECT_NE(bad.code, 0);
  EXPECT_NE(bad.err.find("--provider-timeout: expected seconds in (0, 600], got 0"),
            std::string::npos)
      << bad.err;
}

}  // namespace
}  // namespace torchdex::installer::testing

namespace torchdex::installer::testing {
namespace {

TEST(DetectVariantsCommand, AProviderNamedInAnOverrideFile) {
  TempRoot config;
  const std::string acme = (kProviders / "torchdex-provider-acme").string();
  config.Write("/o.json", R"({"format": 1, "providers": {"acme": ")" + acme + "\"}}");
  const std::string root = (kFixtures / "hosts" / "linux-no-gpu").string();
  CliResult r = RunTorchdex({"detect", "--variants", "--json", "--root", root},
                            {{"TORCHDEX_CATALOGUE", (config.path() / "o.json").string()},
                             {"HOME", config.path().string()}});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["namespaces"].size(), 1u);
  EXPECT_EQ(doc["namespaces"][0]["namespace"], "acme");
  EXPECT_EQ(doc["providers"].back()["provider"], acme);
  EXPECT_EQ(doc["providers"].back()["outcome"], "answered");

  config.Write("/o.json", R"({"format": 1, "providers": {"Acme": "relative/path"}})");
  CliResult bad = RunTorchdex({"detect", "--variants", "--root", root},
                              {{"TORCHDEX_CATALOGUE", (config.path() / "o.json").string()},
                               {"HOME", config.path().string()}});
  EXPECT_NE(bad.code, 0);
  EXPECT_NE(bad.err.find("/providers/Acme: not a variant namespace"), std::string::npos) << bad.err;
}

// The tests' embedded table (the 2026-03-15 snapshot) crawled no variant index: select says
// where variants are chosen from instead (variant_index_test.cc selects from a crawled one).
TEST(DetectVariantsCommand, SelectSaysWhereVariantsAreChosen) {
  CliResult r = RunTorchdex({"select", "--torch-backend", "variant", "--channel", "test", "--root",
                             (kFixtures / "hosts" / "linux-no-gpu").string(), "torch"});
  EXPECT_EQ(r.code, kExitNoBackend);
  EXPECT_NE(r.err.find("holds no variant index of the test channel; crawl it (torchdex-crawl crawl "
                       "--channel test"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("`torchdex install --dry-run --torch-backend variant --channel test`"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace torchdex::installer::testing
