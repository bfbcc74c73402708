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

namespace torchdex::installer::table {
namespace {

using core::BackendKind;
using core::DriverVersion;
using core::TargetOs;
using nlohmann::json;

// generated/catalogue.json, catalogue-test.json, catalogue-nightly.json: the channels the table
// holds, in the order of Channels().
const json& RealCatalogue(std::string_view channel = "stable") {
  static const std::map<std::string, json, std::less<>> catalogues = [] {
    std::map<std::string, json, std::less<>> out;
    for (const char* c : {"stable", "test", "nightly"}) {
      const std::string file =
          std::string(c) == "stable" ? "catalogue.json" : "catalogue-" + std::string(c) + ".json";
      std::ifstream in(std::filesystem::path(TORCHDEX_SOURCE_DIR) / "generated" / file);
      out[c] = json::parse(in);
    }
    return out;
  }();
  return catalogues.find(channel)->second;
}

std::string PublicOf(std::string_view version) {
  return std::string(version.substr(0, version.find('+')));
}

TEST(CatalogueTableInvariants, BackendsAreSortedUniqueAndAllOfTheCatalogue) {
  const auto backends = Backends();
  for (size_t i = 1; i < backends.size(); ++i) EXPECT_LT(backends[i - 1].name, backends[i].name);
  // The union of the channels' backends, with each channel's state.
  std::set<std::string> names;
  ASSERT_EQ(Channels().size(), 3u);
  for (std::string_view channel : Channels()) {
    for (const auto& [name, backend] : RealCatalogue(channel)["backends"].items()) {
      names.insert(name);
      const BackendRow* row = FindBackend(name);
      ASSERT_NE(row, nullptr) << name;
      EXPECT_EQ(row->name, name);
      EXPECT_EQ(StateIn(*row, channel), backend["state"].get<std::string>())
          << channel << " " << name;
      if (channel == "stable") {
        EXPECT_EQ(row->toolkit, backend["toolkit"].get<std::string>());
        EXPECT_EQ(row->legacy, backend["legacy"].get<bool>());
      }
    }
  }
  EXPECT_EQ(backends.size(), names.size());
  for (const BackendRow& row : backends) EXPECT_EQ(FindBackend(row.name), &row);
  EXPECT_EQ(FindBackend("cu999"), nullptr);
  EXPECT_EQ(CatalogueChannel(), "stable");
  EXPECT_EQ(Backends("stable").size(), backends.size());
  EXPECT_EQ(ChannelIndex("nightly"), std::optional<std::uint8_t>(2));
  EXPECT_TRUE(Backends("preview").empty());
  EXPECT_EQ(StateIn(*FindBackend("rocm7.2"), "stable"), "");  // nightly only
  EXPECT_EQ(StateIn(*FindBackend("rocm7.2"), "nightly"), "ok");
}

TEST(CatalogueTableInvariants, ProjectsRoundTripAndEveryRoutedProjectResolves) {
  const auto projects = Projects();
  for (size_t i = 1; i < projects.size(); ++i) EXPECT_LT(projects[i - 1].name, projects[i].name);
  std::set<std::string> names;
  for (std::string_view channel : Channels()) {
    for (const auto& [name, project] : RealCatalogue(channel)["projects"].items())
      names.insert(name);
  }
  EXPECT_EQ(projects.size(), names.size());
  size_t routed = 0;
  for (const auto& [name, project] : RealCatalogue()["projects"].items()) {
    const ProjectRow* row = FindProject(name);
    ASSERT_NE(row, nullptr) << name;
    EXPECT_EQ(row->reason, project["reason"].get<std::string>());
    const std::string cls = project["class"];
    const bool is_routed = cls == "routed" || cls == "companion";
    EXPECT_EQ(IsRouted(name), is_routed) << name;
    routed += is_routed;
    ASSERT_TRUE(ClassOfProject(name));
    EXPECT_EQ(*ClassOfProject(name), cls == "routed"      ? ProjectClass::kRouted
                                     : cls == "companion" ? ProjectClass::kCompanion
                                     : cls == "mirror"    ? ProjectClass::kMirror
                                                          : ProjectClass::kStale);
  }
  EXPECT_EQ(routed, 23u);  // 17 routed + 6 companions in the 2026-03-15 snapshot
  for (const ProjectRow& row : projects) EXPECT_EQ(FindProject(row.name), &row);
}

TEST(CatalogueTableInvariants, EveryBuildVersionAndWheelMatchesTheCatalogue) {
  size_t versions_seen = 0;
  for (const ProjectRow& project : Projects()) {
    // A build row per channel and backend with builds, and an empty "not crawled" one per
    // unfetched backend; sorted by channel, then backend.
    size_t expected_rows = 0;
    for (std::string_view channel : Channels()) {
      const json entry =
          RealCatalogue(channel)["projects"].value(std::string(project.name), json::object());
      expected_rows += entry.value("builds", json::object()).size() +
                       entry.value("unfetched", json::array()).size();
    }
    ASSERT_EQ(BuildsOf(project).size(), expected_rows) << project.name;
    std::pair<std::uint8_t, std::uint16_t> previous{0, 0};
    bool first = true;
    for (const BuildRow& build : BuildsOf(project)) {
      if (!first) {
        EXPECT_LT(previous, std::pair(build.channel, build.backend));
      }
      first = false;
      previous = {build.channel, build.backend};
      ASSERT_LT(build.backend, Backends().size());
      ASSERT_LT(build.channel, Channels().size());
      const std::string_view channel = Channels()[build.channel];
      const json entry =
          RealCatalogue(channel)["projects"].value(std::string(project.name), json::object());
      const json builds = entry.value("builds", json::object());
      const json unfetched = entry.value("unfetched", json::array());
      const json flat = entry.value("from_flat_page", json::array());
      const std::string_view backend = Backends()[build.backend].name;
      const bool listed_unfetched =
          std::find(unfetched.begin(), unfetched.end(), std::string(backend)) != unfetched.end();
      const bool from_flat =
          std::find(flat.begin(), flat.end(), std::string(backend)) != flat.end();
      EXPECT_EQ(build.source, listed_unfetched ? BuildSource::kNotCrawled
                              : from_flat      ? BuildSource::kFlatPage
                                               : BuildSource::kPage)
          << project.name << " " << backend;
      EXPECT_EQ(SourceOf(project.name, backend, channel), build.source);
      if (listed_unfetched) {
        EXPECT_EQ(build.version_count, 0u) << project.name << " " << backend;
        continue;
      }
      const json& versions = builds[std::string(backend)];
      const auto rows = Versions(project.name, backend, channel);
      ASSERT_EQ(rows.size(), versions.size()) << project.name << " " << backend;
      EXPECT_EQ(rows.data(), VersionsOf(build).data());
      for (size_t i = 0; i < rows.size(); ++i) {
        const VersionRow& row = rows[i];
        ++versions_seen;
        // Sorted by PEP 440, strictly.
        if (i > 0) {
          EXPECT_TRUE(*core::Version::Parse(rows[i - 1].version) <
                      *core::Version::Parse(row.version))
              << project.name << " " << backend << " " << row.version;
        }
        EXPECT_EQ(row.prerelease, core::Version::Parse(row.version)->IsPrerelease());
        // Round-trips through FindVersion, exactly and by its public version.
        EXPECT_EQ(FindVersion(project.name, backend, row.version, channel), &row);
        const VersionRow* by_public =
            FindVersion(project.name, backend, PublicOf(row.version), channel);
        ASSERT_NE(by_public, nullptr);
        EXPECT_EQ(PublicOf(by_public->version), PublicOf(row.version));
        // The same wheels as the catalogue.
        ASSERT_TRUE(versions.contains(std::string(row.version)));
        std::set<std::string> expected;
        for (const json& tags : versions[std::string(row.version)])
          expected.insert(tags.get<std::string>());
        std::set<std::string> actual;
        for (std::uint16_t wheel : WheelsOf(row)) {
          ASSERT_LT(wheel, WheelTags().size());
          actual.emplace(WheelTags()[wheel].spelled);
        }
        EXPECT_EQ(actual, expected) << project.name << " " << row.version;
      }
    }
  }
  EXPECT_GT(versions_seen, 2000u);
}

TEST(CatalogueTableInvariants, TagsAreSortedUniqueAndSpellTheirWheels) {
  const auto tags = Tags();
  for (size_t i = 1; i < tags.size(); ++i) {
    EXPECT_LT(std::tie(tags[i - 1].interpreter, tags[i - 1].abi, tags[i - 1].platform),
              std::tie(tags[i].interpreter, tags[i].abi, tags[i].platform));
  }
  for (size_t i = 1; i < WheelTags().size(); ++i)
    EXPECT_LT(WheelTags()[i - 1].spelled, WheelTags()[i].spelled);
  for (const WheelTagsRow& wheel : WheelTags()) {
    ASSERT_FALSE(TagsOf(wheel).empty());
    for (std::uint16_t tag : TagsOf(wheel)) {
      ASSERT_LT(tag, tags.size());
      // Each expanded tag is one combination of the dotted parts of the spelling.
      for (std::string_view part : {tags[tag].interpreter, tags[tag].abi, tags[tag].platform}) {
        EXPECT_NE(wheel.spelled.find(part), std::string_view::npos) << wheel.spelled;
      }
    }
  }
}

TEST(CatalogueTableInvariants, ArchRangesAreSortedDisjointAndRoundTrip) {
  const auto ranges = ArchRanges();
  ASSERT_FALSE(ranges.empty());
  for (size_t i = 0; i < ranges.size(); ++i) {
    const ArchRangeRow& row = ranges[i];
    ASSERT_LT(row.backend, Backends().size());
    EXPECT_LT(row.torch_min, row.torch_below);
    const BackendKind kind = Backends()[row.backend].kind;
    EXPECT_TRUE(kind == BackendKind::kCuda || kind == BackendKind::kRocm);
    if (i > 0) {
      const ArchRangeRow& previous = ranges[i - 1];
      EXPECT_LT(std::tuple(previous.backend, previous.cpu_arch, previous.torch_min),
                std::tuple(row.backend, row.cpu_arch, row.torch_min));
      if (previous.backend == row.backend && previous.cpu_arch == row.cpu_arch) {
        EXPECT_LE(previous.torch_below, row.torch_min) << "overlap at row " << i;
      }
    }
    for (std::uint16_t target : TargetsOf(row)) ASSERT_LT(target, ArchTargetNames().size());
    // The range's first release answers with this row.
    const std::string torch = std::to_string(row.torch_min / 1000000) + "." +
                              std::to_string(row.torch_min / 1000 % 1000) + "." +
                              std::to_string(row.torch_min % 1000);
    const auto list = ArchList(Backends()[row.backend].name, torch, row.cpu_arch);
    ASSERT_TRUE(list) << Backends()[row.backend].name << " " << torch;
    EXPECT_EQ(list->targets.data(), TargetsOf(row).data());
    EXPECT_EQ(list->ptx, row.ptx);
  }
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

TEST(CatalogueTableFacts, PagesMissingFromTheSnapshotAreNotCrawledOrFromTheFlatPage) {
  // The 2026-03-15 snapshot lists rocm7.0/rocm7.1 but holds none of their project pages; its
  // flat torch/ page links their torch 2.10.0 wheels.
  EXPECT_EQ(SourceOf("torch", "rocm7.1"), BuildSource::kFlatPage);
  ASSERT_EQ(Versions("torch", "rocm7.1").size(), 1u);
  EXPECT_EQ(Versions("torch", "rocm7.1")[0].version, "2.10.0+rocm7.1");
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
  EXPECT_EQ(nightly.back().version, "2.12.0.dev20260314+cu128");
  EXPECT_TRUE(nightly.back().prerelease);
  EXPECT_EQ(SourceOf("torch", "cu128", "nightly"), BuildSource::kFlatPage);
  EXPECT_EQ(Versions("torch", "cu128").back().version, "2.10.0+cu128");  // stable untouched
  EXPECT_TRUE(Versions("torch", "rocm7.2").empty());
  EXPECT_FALSE(Versions("torch", "rocm7.2", "nightly").empty());
  EXPECT_EQ(FindVersion("torch", "cu128", "2.12.0.dev20260314", "nightly"), &nightly.back());
  EXPECT_EQ(FindVersion("torch", "cu128", "2.12.0.dev20260314"), nullptr);
  EXPECT_TRUE(Versions("torch", "cu128", "test").empty());  // no test page in the snapshot
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
