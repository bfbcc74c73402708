// Override variables: values, precedence, "empty means absent", and errors that name the variable.
#include <gtest/gtest.h>

#include "installer/detect/overrides.h"
#include "tests/installer/test_support.h"

namespace torchdex::installer {
namespace {

TEST(ParseOverrides, NothingSet) {
  auto overrides = ParseOverrides({});
  ASSERT_TRUE(overrides);
  EXPECT_FALSE(overrides->AnyNvidia());
  EXPECT_TRUE(overrides->Applied().empty());
}

TEST(ParseOverrides, EmptyAndBlankMeanAbsent) {
  auto overrides = ParseOverrides({{"TORCHDEX_CUDA_DRIVER_VERSION", ""},
                                   {"TORCHDEX_CUDA_ARCH", "  "},
                                   {"CONDA_OVERRIDE_CUDA", ""},
                                   {"TORCHDEX_XPU", ""}});
  ASSERT_TRUE(overrides);
  EXPECT_TRUE(overrides->Applied().empty());
}

TEST(ParseOverrides, TorchdexWinsOverUv) {
  auto overrides = ParseOverrides({{"TORCHDEX_CUDA_DRIVER_VERSION", "560.35.03"},
                                   {"UV_CUDA_DRIVER_VERSION", "550.144.03"},
                                   {"UV_AMD_GPU_ARCHITECTURE", "gfx942"}});
  ASSERT_TRUE(overrides);
  EXPECT_EQ(overrides->driver_version->variable, "TORCHDEX_CUDA_DRIVER_VERSION");
  EXPECT_EQ(overrides->driver_version->value, "560.35.03");
  EXPECT_EQ(overrides->amd_gfx_list, std::vector<std::string>{"gfx942"});
}

TEST(ParseOverrides, ListsAreNormalised) {
  auto overrides = ParseOverrides({{"TORCHDEX_CUDA_ARCH", "8.6, 9.0,12.0"},
                                   {"TORCHDEX_AMD_GPU_ARCH", "GFX1100,gfx90a"},
                                   {"CONDA_OVERRIDE_CUDA", "12"},
                                   {"TORCHDEX_XPU", "1"}});
  ASSERT_TRUE(overrides);
  EXPECT_EQ(overrides->cuda_arch_list, (std::vector<std::string>{"8.6", "9.0", "12.0"}));
  EXPECT_EQ(overrides->amd_gfx_list, (std::vector<std::string>{"gfx1100", "gfx90a"}));
  EXPECT_EQ(overrides->cuda_version->value, "12.0");
  EXPECT_TRUE(overrides->xpu_enabled);
}

TEST(ParseOverrides, MalformedValuesNameTheVariable) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"TORCHDEX_CUDA_DRIVER_VERSION", "latest"},
      {"TORCHDEX_CUDA_DRIVER_VERSION", "12.4"},  // a CUDA version in the driver variable
      {"UV_CUDA_DRIVER_VERSION", "invalid"},
      {"CONDA_OVERRIDE_CUDA", "twelve"},
      {"TORCHDEX_CUDA_ARCH", "sm_86"},
      {"TORCHDEX_CUDA_ARCH", "8.6,,9.0"},
      {"TORCHDEX_AMD_GPU_ARCH", "navi31"},
      {"UV_AMD_GPU_ARCHITECTURE", "gfx1100,gfx90a"},
      {"TORCHDEX_XPU", "yes"},
  };
  for (const auto& [variable, value] : cases) {
    auto overrides = ParseOverrides({{variable, value}});
    ASSERT_FALSE(overrides) << variable << "=" << value;
    EXPECT_EQ(overrides.error().message.rfind(variable + "=", 0), 0u) << overrides.error().message;
  }
  auto cuda_in_driver = ParseOverrides({{"TORCHDEX_CUDA_DRIVER_VERSION", "12.4"}});
  EXPECT_NE(cuda_in_driver.error().message.find("CONDA_OVERRIDE_CUDA"), std::string::npos);
}

TEST(DetectWithOverrides, ReplaceDetectedFactsAndSaySo) {
  using testing::DetectUnder;
  using testing::kFixtures;
  const HostFacts facts =
      DetectUnder(kFixtures / "hosts" / "linux-rtx3090-driver550-proprietary",
                  {{"TORCHDEX_CUDA_ARCH", "7.5"}, {"CONDA_OVERRIDE_CUDA", "12.1"}});
  ASSERT_TRUE(facts.nvidia);
  EXPECT_EQ(facts.nvidia->driver_version, "550.144.03");  // not overridden: still detected
  EXPECT_EQ(facts.nvidia->cuda_driver_api, "12.1");
  EXPECT_EQ(facts.nvidia->cuda_driver_api_source, "env CONDA_OVERRIDE_CUDA");
  ASSERT_EQ(facts.nvidia->gpus.size(), 1u);
  EXPECT_EQ(facts.nvidia->gpus[0].compute_capability, "7.5");
  EXPECT_EQ(facts.nvidia->gpus[0].compute_capability_source, "env TORCHDEX_CUDA_ARCH");
  ASSERT_EQ(facts.overrides.size(), 2u);
  EXPECT_EQ(facts.overrides[0].first, "CONDA_OVERRIDE_CUDA");
}

TEST(DetectWithOverrides, XpuZeroDemotesAnArc) {
  using testing::DetectUnder;
  using testing::kFixtures;
  const HostFacts facts =
      DetectUnder(kFixtures / "hosts" / "intel-arc-a770-xpu-plus-uhd770", {{"TORCHDEX_XPU", "0"}});
  ASSERT_TRUE(facts.intel);
  EXPECT_TRUE(facts.intel->xpu_devices.empty());
  EXPECT_EQ(facts.intel->other_gpus.size(), 2u);
}

TEST(DetectWithOverrides, CudaVisibleDevicesIndexAndEmpty) {
  using testing::DetectUnder;
  using testing::kFixtures;
  const auto host = kFixtures / "hosts" / "linux-v100-rtx4090-driver580-mixed";
  HostFacts facts = DetectUnder(host, {{"CUDA_VISIBLE_DEVICES", "1"}});
  ASSERT_EQ(facts.nvidia->gpus.size(), 2u);
  EXPECT_FALSE(facts.nvidia->gpus[0].visible);
  EXPECT_TRUE(facts.nvidia->gpus[1].visible);
  EXPECT_TRUE(testing::AnyWarningContains(facts, "narrows 2 NVIDIA GPU(s) to 1"));
  facts = DetectUnder(host, {{"CUDA_VISIBLE_DEVICES", ""}});
  EXPECT_FALSE(facts.nvidia->gpus[0].visible);
  EXPECT_FALSE(facts.nvidia->gpus[1].visible);
  facts = DetectUnder(host, {{"CUDA_VISIBLE_DEVICES", "0,7,1"}});  // stops at 7, as CUDA does
  EXPECT_TRUE(facts.nvidia->gpus[0].visible);
  EXPECT_FALSE(facts.nvidia->gpus[1].visible);
  EXPECT_TRUE(testing::AnyWarningContains(facts, "stops at \"7\""));
}

}  // namespace
}  // namespace torchdex::installer
