// The compiled package table: facts of the real 2026-03-15 catalogue (the frozen fixture
// tests/fixtures/catalogue/2026-03-15.json, which installer_tests compile in place of
// generated/) and of the curated driver and arch data. The invariants that hold for any
// catalogue are in catalogue_table_invariants_test.cc.
#include "installer/table/catalogue_table.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/tags.h"

namespace torchdex::installer::table {
namespace {

using core::DriverVersion;
using core::TargetOs;

std::string PublicOf(std::string_view version) {
  return std::string(version.substr(0, version.find('+')));
}

// ---- Facts of the real catalogue (2026-03-15 snapshot) and the curated data ----

TEST(CatalogueTableFacts, Torch231IsInCu121AndCu118ButNotCu124) {
  ASSERT_NE(FindVersion("torch", "cu121", "2.3.1"), nullptr);
  EXPECT_EQ(FindVersion("torch", "cu121", "2.3.1")->version, "2.3.1+cu121");
  ASSERT_NE(FindVersion("torch", "cu118", "2.3.1"), nullptr);
  EXPECT_EQ(FindVersion("torch", "cu124", "2.3.1"), nullptr);
  EXPECT_EQ(FindVersion("torch", "cu121", "2.3.1+cu118"), nullptr);  // a local label must match
  EXPECT_NE(FindVersion("torch", "cu124", "2.4.0"), nullptr);
}

TEST(CatalogueTableFacts, TheStableChannelOnly) {
  EXPECT_EQ(CatalogueChannel(), "stable");
  EXPECT_EQ(Backends("stable").size(), Backends().size());
  EXPECT_TRUE(Backends("nightly").empty());
}

TEST(CatalogueTableFacts, SeventeenRoutedPackagesAndSixCompanions) {
  size_t routed = 0, companions = 0;
  for (const ProjectRow& row : Projects()) {
    routed += row.project_class == ProjectClass::kRouted;
    companions += row.project_class == ProjectClass::kCompanion;
  }
  EXPECT_EQ(routed, 17u);
  EXPECT_EQ(companions, 6u);
}

TEST(CatalogueTableFacts, XpuStartsAt260) {
  const auto versions = Versions("torch", "xpu");
  ASSERT_FALSE(versions.empty());
  EXPECT_EQ(PublicOf(versions.front().version), "2.6.0");
  EXPECT_EQ(FindVersion("torch", "xpu", "2.5.1"), nullptr);
}

TEST(CatalogueTableFacts, Cu128HasNoSm61From28AndCu126KeepsSm50ToSm90) {
  const auto cu128 = ArchList("cu128", "2.8.0+cu128", CpuArch::kX86_64);
  ASSERT_TRUE(cu128);
  EXPECT_FALSE(Covers(*cu128, "sm_61", TargetOs::kLinux));
  EXPECT_FALSE(Covers(*cu128, "sm_50", TargetOs::kLinux));
  EXPECT_TRUE(Covers(*cu128, "sm_70", TargetOs::kLinux));  // Volta until 2.11
  EXPECT_TRUE(Covers(*cu128, "sm_89", TargetOs::kLinux));  // by the sm_86 cubin
  EXPECT_TRUE(Covers(*cu128, "sm_120", TargetOs::kLinux));
  const auto cu128_211 = ArchList("cu128", "2.11.0", CpuArch::kX86_64);
  ASSERT_TRUE(cu128_211);
  EXPECT_FALSE(Covers(*cu128_211, "sm_70", TargetOs::kLinux));
  EXPECT_FALSE(ArchList("cu128", "2.12.0", CpuArch::kX86_64));  // removed

  const auto cu126 = ArchList("cu126", "2.8.0+cu126", CpuArch::kX86_64);
  ASSERT_TRUE(cu126);
  std::vector<std::string_view> names;
  for (size_t i = 0; i < cu126->targets.size(); ++i) names.push_back(cu126->Name(i));
  EXPECT_EQ(names, (std::vector<std::string_view>{"sm_50", "sm_60", "sm_70", "sm_75", "sm_80",
                                                  "sm_86", "sm_90"}));
  EXPECT_TRUE(Covers(*cu126, "sm_61", TargetOs::kLinux));
  EXPECT_FALSE(Covers(*cu126, "sm_120", TargetOs::kLinux));  // Blackwell must not get cu126
  EXPECT_EQ(cu126->ptx, Ptx::kNone);
}

TEST(CatalogueTableFacts, Cu130StartsAtTuringWithPtxOnLinuxOnly) {
  const auto cu130 = ArchList("cu130", "2.9.1", CpuArch::kX86_64);
  ASSERT_TRUE(cu130);
  EXPECT_FALSE(Covers(*cu130, "sm_70", TargetOs::kLinux));
  EXPECT_TRUE(Covers(*cu130, "sm_75", TargetOs::kLinux));
  EXPECT_TRUE(Covers(*cu130, "sm_121", TargetOs::kLinux));  // cubin sm_120
  EXPECT_TRUE(Covers(*cu130, "sm_130", TargetOs::kLinux));  // PTX
  EXPECT_FALSE(Covers(*cu130, "sm_130", TargetOs::kWindows));
  EXPECT_FALSE(Covers(*cu130, "sm_110", TargetOs::kLinux));  // older than the PTX, no cubin
  const auto arm = ArchList("cu130", "2.10.0", CpuArch::kAarch64);
  ASSERT_TRUE(arm);
  EXPECT_TRUE(Covers(*arm, "sm_110", TargetOs::kLinux));  // Thor
}

TEST(CatalogueTableFacts, RocmGfxLists) {
  const auto rocm63 = ArchList("rocm6.3", "2.7.1+rocm6.3", CpuArch::kX86_64);
  ASSERT_TRUE(rocm63);
  EXPECT_TRUE(Covers(*rocm63, "gfx1100", TargetOs::kLinux));
  EXPECT_TRUE(Covers(*rocm63, "gfx1201", TargetOs::kLinux));
  EXPECT_FALSE(Covers(*rocm63, "gfx1036", TargetOs::kLinux));
  EXPECT_FALSE(Covers(*rocm63, "gfx950", TargetOs::kLinux));
  const auto rocm57 = ArchList("rocm5.7", "2.3.1", CpuArch::kX86_64);
  ASSERT_TRUE(rocm57);
  EXPECT_FALSE(rocm57->Contains("gfx942"));  // added for ROCm >= 6.0
  EXPECT_TRUE(ArchList("rocm6.0", "2.3.1", CpuArch::kX86_64)->Contains("gfx942"));
  EXPECT_FALSE(ArchList("rocm6.3", "2.7.1", CpuArch::kAarch64));
  EXPECT_FALSE(ArchList("cpu", "2.7.1", CpuArch::kX86_64));
  EXPECT_FALSE(ArchList("rocm6.3", "garbage", CpuArch::kX86_64));
}

TEST(CatalogueTableFacts, DriverFloors) {
  EXPECT_EQ(DriverFloor("cu128", TargetOs::kLinux), (DriverVersion{525, 60, 13}));
  EXPECT_EQ(DriverFloor("cu128", TargetOs::kWindows), (DriverVersion{528, 33, 0}));
  EXPECT_EQ(DriverFloor("cu118", TargetOs::kLinux), (DriverVersion{450, 80, 2}));
  EXPECT_EQ(DriverFloor("cu118", TargetOs::kWindows), (DriverVersion{452, 39, 0}));
  EXPECT_EQ(DriverFloor("cu130", TargetOs::kLinux), (DriverVersion{580, 0, 0}));
  EXPECT_EQ(DriverFloor("cu102", TargetOs::kLinux),
            (DriverVersion{440, 33, 0}));  // no MVC before 11
  EXPECT_EQ(FindBackend("cu128")->linux_toolkit_driver, (DriverVersion{570, 26, 0}));
  EXPECT_FALSE(DriverFloor("cu92", TargetOs::kLinux));  // not in the data
  EXPECT_FALSE(DriverFloor("rocm6.3", TargetOs::kLinux));
  EXPECT_FALSE(DriverFloor("nope", TargetOs::kLinux));
}

TEST(CatalogueTableFacts, IsRoutedMatchesNamesPep503Style) {
  EXPECT_TRUE(IsRouted("torch"));
  EXPECT_TRUE(IsRouted("Torch"));
  EXPECT_TRUE(IsRouted("TorchVision"));
  EXPECT_TRUE(IsRouted("pytorch_triton"));
  EXPECT_TRUE(IsRouted("pytorch..Triton"));
  EXPECT_TRUE(IsRouted("fbgemm_gpu_genai"));
  EXPECT_FALSE(IsRouted("torch-vision"));  // a different project
  EXPECT_FALSE(IsRouted("certifi"));       // a mirror: the default index serves it
  EXPECT_FALSE(IsRouted("numpy"));
  EXPECT_FALSE(IsRouted(""));
  EXPECT_EQ(ClassOfProject("triton"), ProjectClass::kCompanion);
  EXPECT_EQ(ClassOfProject("certifi"), ProjectClass::kMirror);
  EXPECT_EQ(ClassOfProject("numpy"), ProjectClass::kMirror);  // the index mirrors it
  EXPECT_FALSE(ClassOfProject("no-such-project"));
}

core::InterpreterInfo Cp312(core::OperatingSystem os) {
  core::InterpreterInfo info;
  info.python_minor = 12;
  info.os = os;
  info.arch = os == core::OperatingSystem::kWindows ? "AMD64" : "x86_64";
  info.libc_minor = 28;
  return info;
}

TEST(CatalogueTableFacts, WheelFitsAndBestWheel) {
  const std::vector<core::Tag> linux_tags =
      core::SupportedTags(Cp312(core::OperatingSystem::kLinux));
  const TargetTags linux_target(linux_tags);
  auto fit = WheelFits("torch", "cu128", "2.8.0", linux_target);
  ASSERT_TRUE(fit);
  EXPECT_EQ(fit->version->version, "2.8.0+cu128");
  EXPECT_EQ(fit->wheel_tags, "cp312-cp312-manylinux_2_28_x86_64");

  const std::vector<core::Tag> windows_tags =
      core::SupportedTags(Cp312(core::OperatingSystem::kWindows));
  const TargetTags windows_target(windows_tags);
  fit = WheelFits("torch", "cu128", "2.8.0", windows_target);
  ASSERT_TRUE(fit);
  EXPECT_EQ(fit->wheel_tags, "cp312-cp312-win_amd64");

  // torch 1.0.0 has no cp312 wheels; glibc 2.17 cannot take manylinux_2_28.
  EXPECT_FALSE(WheelFits("torch", "cu100", "1.0.0", linux_target));
  core::InterpreterInfo old_glibc = Cp312(core::OperatingSystem::kLinux);
  old_glibc.libc_minor = 17;
  const std::vector<core::Tag> old_tags = core::SupportedTags(old_glibc);
  EXPECT_FALSE(WheelFits("torch", "cu128", "2.8.0", TargetTags(old_tags)));

  const auto best = BestWheel("torch", "cu128", linux_target);
  ASSERT_TRUE(best);
  EXPECT_EQ(best->version->version, Versions("torch", "cu128").back().version);
  EXPECT_FALSE(BestWheel("torch", "cu999", linux_target));
}

TEST(CatalogueTableFacts, TorchReleaseKey) {
  EXPECT_EQ(TorchReleaseKey("2.8.0+cu128"), 2008000u);
  EXPECT_EQ(TorchReleaseKey("2.11"), 2011000u);
  EXPECT_EQ(TorchReleaseKey("2.10.0rc1"), 2010000u);
  EXPECT_FALSE(TorchReleaseKey("2"));
  EXPECT_FALSE(TorchReleaseKey("x"));
}

}  // namespace
}  // namespace torchdex::installer::table
