// The variables uv and conda users already set mean there what they mean here, and a MIG id in
// CUDA_VISIBLE_DEVICES selects an instance of a GPU instead of hiding them all (issue 13, B.6-7).
#include <gtest/gtest.h>

#include <filesystem>

#include "installer/select/selection.h"
#include "tests/installer/test_support.h"

namespace torchdex::installer {
namespace {

namespace fs = std::filesystem;
using testing::AnyWarningContains;
using testing::DetectUnder;
using testing::Text;
const fs::path kHosts = fs::path(TORCHDEX_FIXTURES_DIR) / "hosts";

TEST(EnvMeaningTest, UvDriverVersionAloneMeansAGpuWithThatDriver) {
  // It gave cpu "because CUDA_VISIBLE_DEVICES hides them all" on a CI image without a GPU.
  const HostFacts facts = DetectUnder(kHosts / "linux-no-gpu", {{"UV_CUDA_DRIVER_VERSION", "550.54.14"}});
  ASSERT_TRUE(facts.nvidia);
  EXPECT_EQ(Text(facts.nvidia->driver_version), "550.54.14");
  ASSERT_EQ(facts.nvidia->gpus.size(), 1u);
  EXPECT_TRUE(facts.nvidia->gpus[0].visible);
  EXPECT_FALSE(facts.nvidia->gpus[0].compute_capability);
  EXPECT_TRUE(AnyWarningContains(facts, "UV_CUDA_DRIVER_VERSION is set and no NVIDIA GPU is visible here: "
                                        "assumed one GPU of unknown compute capability"));
}

TEST(EnvMeaningTest, CondaCudaVersionMeansADriverThatSupportsIt) {
  // CONDA_OVERRIDE_CUDA=12.4 with TORCHDEX_CUDA_ARCH gave cpu: "driver version unknown".
  const HostFacts facts = DetectUnder(kHosts / "linux-no-gpu",
                                      {{"CONDA_OVERRIDE_CUDA", "12.4"}, {"TORCHDEX_CUDA_ARCH", "8.6"}});
  ASSERT_TRUE(facts.nvidia);
  EXPECT_EQ(Text(facts.nvidia->driver_version), "550.54.14");  // NVIDIA's first driver for 12.4
  EXPECT_EQ(facts.nvidia->cuda_driver_api, "12.4");
  EXPECT_TRUE(AnyWarningContains(facts, "CONDA_OVERRIDE_CUDA=12.4: assumed NVIDIA driver 550.54.14"));
  ASSERT_EQ(facts.nvidia->gpus.size(), 1u);
  EXPECT_EQ(Text(facts.nvidia->gpus[0].compute_capability), "8.6");
}

TEST(EnvMeaningTest, AMigInstanceKeepsItsGpus) {
  const fs::path host = kHosts / "linux-two-gpus-cuda-visible-devices-uuid";
  // A new-style MIG id cannot be mapped without NVML: every GPU stays, with a warning.
  HostFacts facts = DetectUnder(host, {{"CUDA_VISIBLE_DEVICES", "MIG-4f1a3b6c-9d2e-5a7b-8c0d-1e2f3a4b5c6d"}});
  ASSERT_TRUE(facts.nvidia);
  ASSERT_EQ(facts.nvidia->gpus.size(), 2u);
  EXPECT_TRUE(facts.nvidia->gpus[0].visible);
  EXPECT_TRUE(facts.nvidia->gpus[1].visible);
  EXPECT_TRUE(AnyWarningContains(facts, "cannot be mapped to a GPU without NVML; every NVIDIA GPU is kept"));
  // An old-style one names its GPU: that GPU alone.
  facts = DetectUnder(host, {{"CUDA_VISIBLE_DEVICES", "MIG-GPU-0a1b2c3d-1111-2222-3333-444455556666/1/0"}});
  int visible = 0;
  for (const NvidiaGpu& gpu : facts.nvidia->gpus) {
    if (gpu.visible) {
      ++visible;
      EXPECT_EQ(gpu.uuid, "GPU-0a1b2c3d-1111-2222-3333-444455556666");
    }
  }
  EXPECT_EQ(visible, 1);
}

}  // namespace
}  // namespace torchdex::installer
