// The compiled package table: invariants over every generated row (sorted, unique, round-trips
// through the lookups, the same facts as generated/catalogue.json) and facts of the real
// 2026-03-15 catalogue and of the curated driver and arch data.
#include "installer/table/catalogue_table.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include <nlohmann/json.hpp>

#include "core/tags.h"
#include "core/version.h"
#include "installer/select/catalogue_source.h"
#include "installer/select/selection.h"

namespace torchdex::installer::table {
namespace {

using core::BackendKind;
using core::DriverVersion;
using core::TargetOs;
using nlohmann::json;


// Whether the build of `backend` for torch `version` runs on `gpu` ("8.6") or has `gfx`, as
// selection asks it: through the compiled table's catalogue view and the one CubinRunsOn.
bool Covers(const std::string& backend, const std::string& version, const std::string& cpu_arch,
            const std::string& gpu) {
  static const CatalogueSource source = std::move(LoadCatalogueSource({})).value();
  const CatalogueView& view = source.ViewFor("stable");
  const std::optional<ArchView> arch = view.Arch(backend, version, cpu_arch);
  if (!arch) return false;
  if (gpu.starts_with("gfx")) return std::find(arch->gfx.begin(), arch->gfx.end(), gpu) != arch->gfx.end();
  return BuildRunsOn(*arch, *core::ComputeCapability::Parse(gpu), view.Limits(backend).integrated);
}

std::string PublicOf(std::string_view version) {
  return std::string(version.substr(0, version.find('+')));
}

// ---- Facts of the real catalogue (2026-03-15 snapshot) and the curated data ----

// TargetTags ranks each of the table's tags by its first position among the target's tags;
// the same answer as core::TagRanking, which it replaced for speed.
TEST(CatalogueTableFacts, TargetTagsRankAsTagRankingDoes) {
  std::set<std::tuple<std::string_view, std::string_view, std::string_view>> distinct;
  for (const TagRow& t : Tags()) distinct.insert({t.interpreter, t.abi, t.platform});
  EXPECT_EQ(distinct.size(), Tags().size()) << "the table's tags are distinct";
  for (int minor : {9, 12, 14}) {
    core::InterpreterInfo info;
    info.python_minor = minor;
    info.libc_minor = 35;
    std::vector<core::Tag> supported = core::SupportedTags(info);
    // A repeated tag keeps its first rank.
    supported.push_back(supported.front());
    const core::TagRanking ranking(supported);
    const TargetTags target(supported);
    int ranked = 0;
    for (std::size_t i = 0; i < Tags().size(); ++i) {
      const core::Tag tag{std::string(Tags()[i].interpreter), std::string(Tags()[i].abi),
                          std::string(Tags()[i].platform)};
      const std::optional<std::size_t> want = ranking.Rank(tag);
      const std::optional<std::uint32_t> got = target.Rank(static_cast<std::uint16_t>(i));
      ASSERT_EQ(want.has_value(), got.has_value()) << tag.ToString();
      if (want) {
        EXPECT_EQ(*want, *got) << tag.ToString();
        ++ranked;
      }
    }
    EXPECT_GT(ranked, 0) << "python 3." << minor;
  }
}

TEST(CatalogueTableFacts, Torch231IsInCu121AndCu118ButNotCu124) {
  ASSERT_NE(FindVersion("torch", "cu121", "2.3.1"), nullptr);
  EXPECT_EQ(FindVersion("torch", "cu121", "2.3.1")->Text(), "2.3.1+cu121");
  ASSERT_NE(FindVersion("torch", "cu118", "2.3.1"), nullptr);
  EXPECT_EQ(FindVersion("torch", "cu124", "2.3.1"), nullptr);
  EXPECT_EQ(FindVersion("torch", "cu121", "2.3.1+cu118"), nullptr);  // a local label must match
  EXPECT_NE(FindVersion("torch", "cu124", "2.4.0"), nullptr);
}

TEST(CatalogueTableFacts, PagesMissingFromTheSnapshotAreNotCrawledOrFromTheFlatPage) {
  // The 2026-03-15 snapshot lists rocm7.0/rocm7.1 but holds none of their project pages; its
  // flat torch/ page links their torch 2.10.0 wheels.
  EXPECT_EQ(SourceOf("torch", "rocm7.1"), BuildSource::kFlatPage);
  ASSERT_EQ(Versions("torch", "rocm7.1").size(), 1u);
  EXPECT_EQ(Versions("torch", "rocm7.1")[0].Text(), "2.10.0+rocm7.1");
  EXPECT_EQ(SourceOf("torchvision", "rocm7.1"), BuildSource::kNotCrawled);
  EXPECT_TRUE(Versions("torchvision", "rocm7.1").empty());
  EXPECT_EQ(SourceOf("torch", "cu128"), BuildSource::kPage);
  EXPECT_EQ(SourceOf("torch", "no-such-backend"), std::nullopt);
  EXPECT_EQ(CatalogueIndexUrl(), "https://download.pytorch.org/whl/");
  EXPECT_EQ(CatalogueAsOf(), "2026-03-15");
  EXPECT_FALSE(CatalogueSnapshot().empty());
}

TEST(CatalogueTableFacts, TheNightlyChannelHasItsOwnVersions) {
  // The snapshot's nightly torch/ page: 60 dated 2.11/2.12 dev builds per CUDA backend.
  const auto nightly = Versions("torch", "cu128", "nightly");
  ASSERT_EQ(nightly.size(), 60u);
  EXPECT_EQ(nightly.back().Text(), "2.12.0.dev20260314+cu128");
  EXPECT_TRUE(nightly.back().prerelease);
  EXPECT_EQ(SourceOf("torch", "cu128", "nightly"), BuildSource::kFlatPage);
  EXPECT_EQ(Versions("torch", "cu128").back().Text(), "2.10.0+cu128");  // stable untouched
  EXPECT_TRUE(Versions("torch", "rocm7.2").empty());
  EXPECT_FALSE(Versions("torch", "rocm7.2", "nightly").empty());
  EXPECT_EQ(FindVersion("torch", "cu128", "2.12.0.dev20260314", "nightly"), &nightly.back());
  EXPECT_EQ(FindVersion("torch", "cu128", "2.12.0.dev20260314"), nullptr);
  EXPECT_TRUE(Versions("torch", "cu128", "test").empty());  // no test page in the snapshot
}

TEST(CatalogueTableFacts, XpuStartsAt260) {
  const auto versions = Versions("torch", "xpu");
  ASSERT_FALSE(versions.empty());
  EXPECT_EQ(PublicOf(versions.front().Text()), "2.6.0");
  EXPECT_EQ(FindVersion("torch", "xpu", "2.5.1"), nullptr);
}

TEST(CatalogueTableFacts, Cu128HasNoSm61From28AndCu126KeepsSm50ToSm90) {
  const auto cu128 = ArchList("cu128", "2.8.0+cu128", CpuArch::kX86_64);
  ASSERT_TRUE(cu128);
  EXPECT_FALSE(Covers("cu128", "2.8.0", "x86_64", "6.1"));
  EXPECT_FALSE(Covers("cu128", "2.8.0", "x86_64", "5.0"));
  EXPECT_TRUE(Covers("cu128", "2.8.0", "x86_64", "7.0"));  // Volta until 2.11
  EXPECT_TRUE(Covers("cu128", "2.8.0", "x86_64", "8.9"));  // by the sm_86 cubin
  EXPECT_TRUE(Covers("cu128", "2.8.0", "x86_64", "12.0"));
  const auto cu128_211 = ArchList("cu128", "2.11.0", CpuArch::kX86_64);
  ASSERT_TRUE(cu128_211);
  EXPECT_FALSE(Covers("cu128", "2.11.0", "x86_64", "7.0"));
  EXPECT_FALSE(ArchList("cu128", "2.12.0", CpuArch::kX86_64));  // removed

  const auto cu126 = ArchList("cu126", "2.8.0+cu126", CpuArch::kX86_64);
  ASSERT_TRUE(cu126);
  std::vector<std::string_view> names;
  for (size_t i = 0; i < cu126->targets.size(); ++i) names.push_back(cu126->Name(i));
  EXPECT_EQ(names, (std::vector<std::string_view>{"sm_50", "sm_60", "sm_70", "sm_75", "sm_80",
                                                  "sm_86", "sm_90"}));
  EXPECT_TRUE(Covers("cu126", "2.8.0", "x86_64", "6.1"));
  EXPECT_FALSE(Covers("cu126", "2.8.0", "x86_64", "12.0"));  // Blackwell must not get cu126
  EXPECT_EQ(cu126->ptx, Ptx::kNone);
}

TEST(CatalogueTableFacts, Cu130StartsAtTuringWithPtxOnLinuxOnly) {
  const auto cu130 = ArchList("cu130", "2.9.1", CpuArch::kX86_64);
  ASSERT_TRUE(cu130);
  EXPECT_FALSE(Covers("cu130", "2.9.1", "x86_64", "7.0"));
  EXPECT_TRUE(Covers("cu130", "2.9.1", "x86_64", "7.5"));
  EXPECT_TRUE(Covers("cu130", "2.9.1", "x86_64", "12.1"));  // cubin sm_120
  EXPECT_TRUE(Covers("cu130", "2.9.1", "x86_64", "13.0"));  // PTX
  EXPECT_EQ(cu130->ptx, Ptx::kLinuxOnly);  // torch's Windows builds have none
  EXPECT_FALSE(Covers("cu130", "2.9.1", "x86_64", "11.0"));  // older than the PTX, no cubin
  const auto arm = ArchList("cu130", "2.10.0", CpuArch::kAarch64);
  ASSERT_TRUE(arm);
  EXPECT_TRUE(Covers("cu130", "2.10.0", "aarch64", "11.0"));  // Thor
}

TEST(CatalogueTableFacts, RocmGfxLists) {
  const auto rocm63 = ArchList("rocm6.3", "2.7.1+rocm6.3", CpuArch::kX86_64);
  ASSERT_TRUE(rocm63);
  EXPECT_TRUE(Covers("rocm6.3", "2.7.1", "x86_64", "gfx1100"));
  EXPECT_TRUE(Covers("rocm6.3", "2.7.1", "x86_64", "gfx1201"));
  EXPECT_FALSE(Covers("rocm6.3", "2.7.1", "x86_64", "gfx1036"));
  EXPECT_FALSE(Covers("rocm6.3", "2.7.1", "x86_64", "gfx950"));
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
  EXPECT_EQ(fit->version->Text(), "2.8.0+cu128");
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
  EXPECT_EQ(best->version->Text(), Versions("torch", "cu128").back().Text());
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
