// Walks every generated row for invariants, and spot-checks typed lookups.
#include <gtest/gtest.h>

#include "tests/installer/test_support.h"

#include <string>

#include "installer/table/hardware_table.h"

namespace torchdex::installer {
namespace {

TEST(NvidiaGpuTable, SortedUniqueAndSane) {
  const auto rows = NvidiaGpuRows();
  ASSERT_GT(rows.size(), 800u);
  for (size_t i = 0; i < rows.size(); ++i) {
    if (i > 0) {
      EXPECT_LT(rows[i - 1].pci_id, rows[i].pci_id) << "row " << i;
    }
    EXPECT_LE(rows[i].pci_id, 0xffffu);
    EXPECT_GE(rows[i].cc_major, 3u) << std::hex << rows[i].pci_id;
    EXPECT_LE(rows[i].cc_major, 12u);
    EXPECT_LE(rows[i].cc_minor, 9u);
    EXPECT_FALSE(std::string(rows[i].name).empty());
    EXPECT_EQ(FindNvidiaGpu(rows[i].pci_id), &rows[i]);  // lookup round-trips
  }
}

TEST(NvidiaGpuTable, KnownGpus) {
  const NvidiaGpuRow* rtx3090 = FindNvidiaGpu(0x2204);
  ASSERT_NE(rtx3090, nullptr);
  EXPECT_STREQ(rtx3090->name, "NVIDIA GeForce RTX 3090");
  EXPECT_EQ(rtx3090->cc_major * 10 + rtx3090->cc_minor, 86u);
  const NvidiaGpuRow* h100 = FindNvidiaGpu(0x2331);
  ASSERT_NE(h100, nullptr);
  EXPECT_EQ(h100->cc_major * 10 + h100->cc_minor, 90u);
  const NvidiaGpuRow* rtx5090 = FindNvidiaGpu(0x2b85);
  ASSERT_NE(rtx5090, nullptr);
  EXPECT_EQ(rtx5090->cc_major * 10 + rtx5090->cc_minor, 120u);
  EXPECT_EQ(FindNvidiaGpu(0x2fff), nullptr);
}

TEST(IntelGpuTable, SortedUniquePlatformsKnown) {
  const auto rows = IntelGpuRows();
  ASSERT_GT(rows.size(), 400u);
  for (size_t i = 0; i < rows.size(); ++i) {
    if (i > 0) {
      EXPECT_LT(rows[i - 1].pci_id, rows[i].pci_id);
    }
    EXPECT_NE(FindIntelPlatform(rows[i].platform), nullptr) << rows[i].platform;
    EXPECT_EQ(FindIntelGpu(rows[i].pci_id), &rows[i]);
  }
  const auto platforms = IntelPlatformRows();
  for (size_t i = 1; i < platforms.size(); ++i) {
    EXPECT_LT(std::string(platforms[i - 1].platform), std::string(platforms[i].platform));
  }
}

TEST(IntelGpuTable, ArcIsAnXpuAndUhd770IsNot) {
  const IntelGpuRow* arc = FindIntelGpu(0x56a0);
  ASSERT_NE(arc, nullptr);
  EXPECT_TRUE(FindIntelPlatform(arc->platform)->xpu_supported);
  const IntelGpuRow* uhd = FindIntelGpu(0x4680);
  ASSERT_NE(uhd, nullptr);
  EXPECT_FALSE(FindIntelPlatform(uhd->platform)->xpu_supported);
  EXPECT_EQ(FindIntelGpu(0x0be1)->requires_class, 0x0380u);
}

TEST(CudaDriverTable, SortedByCudaWithRisingDrivers) {
  const auto rows = CudaDriverRows();
  ASSERT_GT(rows.size(), 20u);
  for (size_t i = 1; i < rows.size(); ++i) {
    EXPECT_LT(rows[i - 1].cuda_major * 100 + rows[i - 1].cuda_minor,
              rows[i].cuda_major * 100 + rows[i].cuda_minor);
    EXPECT_LT(rows[i - 1].linux_min, rows[i].linux_min);
  }
}

TEST(TegraTable, FromTheDeviceTree) {
  const std::string compatible("nvidia,p3768-0000+p3767-0005\0nvidia,tegra234\0", 46);
  auto orin = FindTegraGpu(compatible);
  ASSERT_TRUE(orin);
  EXPECT_EQ(testing::Text(orin->compute_capability), "8.7");
  EXPECT_FALSE(FindTegraGpu(std::string("nvidia,tegra2345\0", 17)));
}

}  // namespace
}  // namespace torchdex::installer
