// The corpus of captured hosts: tests/fixtures/hosts/<name>/ holds a host's files (sys/, proc/,
// dev/, etc/, fake tools under usr/), an optional env.json (its environment) and expected.json
// (the `torchdex detect --json` answer without timings_us; each "warnings" entry is a substring
// of the warning at that position). A new machine is a new folder.
//
// TORCHDEX_UPDATE_EXPECTED=1 writes expected.json from the current answer: review the diff.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "tests/installer/test_support.h"

namespace torchdex::installer::testing {
namespace {

using nlohmann::json;

std::vector<std::string> HostNames() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(kFixtures / "hosts")) {
    if (entry.is_directory()) names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

json ReadJson(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) return json();
  return json::parse(in);
}

class HostCorpusTest : public ::testing::TestWithParam<std::string> {};

TEST_P(HostCorpusTest, DetectsTheExpectedAnswer) {
  const std::filesystem::path folder = kFixtures / "hosts" / GetParam();
  Environment env;
  const json env_json = ReadJson(folder / "env.json");
  if (env_json.is_object()) {
    for (const auto& [name, value] : env_json.items()) env[name] = value.get<std::string>();
  }
  json actual = ToJson(DetectUnder(folder, env));
  ASSERT_TRUE(actual.contains("timings_us"));
  actual.erase("timings_us");

  if (const char* update = std::getenv("TORCHDEX_UPDATE_EXPECTED"); update && *update == '1') {
    std::ofstream(folder / "expected.json") << actual.dump(2) << "\n";
    GTEST_SKIP() << "wrote " << (folder / "expected.json");
  }
  const json expected = ReadJson(folder / "expected.json");
  ASSERT_TRUE(expected.is_object()) << "missing or empty expected.json in " << folder;

  for (const auto& [key, value] : expected.items()) {
    ASSERT_TRUE(actual.contains(key)) << "no \"" << key << "\" in the answer";
    if (key == "warnings") continue;
    EXPECT_EQ(actual[key], value) << "field \"" << key << "\"\n expected: " << value.dump(2)
                                  << "\n actual:   " << actual[key].dump(2);
  }
  for (const auto& [key, value] : actual.items()) {
    EXPECT_TRUE(expected.contains(key))
        << "expected.json lacks \"" << key << "\": " << value.dump();
  }
  const json& warnings = actual["warnings"];
  ASSERT_EQ(warnings.size(), expected["warnings"].size()) << "warnings: " << warnings.dump(2);
  for (size_t i = 0; i < warnings.size(); ++i) {
    const std::string want = expected["warnings"][i].get<std::string>();
    EXPECT_NE(warnings[i].get<std::string>().find(want), std::string::npos)
        << "warning " << i << " is " << warnings[i] << ", expected it to contain " << want;
  }
}

INSTANTIATE_TEST_SUITE_P(Hosts, HostCorpusTest, ::testing::ValuesIn(HostNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

// The list of hosts the corpus must hold, so that none is dropped by accident.
TEST(HostCorpus, HoldsEveryRequiredKindOfHost) {
  const std::vector<std::string> names = HostNames();
  auto has = [&](const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  for (const char* required :
       {"linux-no-gpu", "linux-rtx3090-driver550-proprietary", "linux-h100-driver570-open",
        "linux-v100-rtx4090-driver580-mixed", "container-no-devices-driver550",
        "container-with-devices-a100-driver535", "wsl2-two-gpus-572.60", "jetson-xavier-r35",
        "jetson-orin-r36", "amd-rx7900xtx-gfx1100-rocm6.4", "amd-apu-gfx1036-unsupported",
        "intel-arc-a770-xpu-plus-uhd770", "intel-uhd770-igpu-only-no-xpu",
        "laptop-rtx4060-driver560-intel-iris-xe", "linux-rtx5090-driver575",
        "linux-gh200-aarch64-driver580-sbsa", "dgx-spark-gb10-aarch64-driver580"}) {
    EXPECT_TRUE(has(required)) << required;
  }
}

}  // namespace
}  // namespace torchdex::installer::testing
