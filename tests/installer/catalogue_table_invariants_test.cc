// The compiled package table against the catalogue it was compiled from: sorted, unique, every
// row round-trips through the lookups and says what the JSON says. These hold for any
// catalogue, so they run twice: in installer_tests over the fixture table
// (tests/fixtures/catalogue/), and as catalogue_invariant_tests over the live
// generated/catalogue_table.inc, which is what scripts/sync runs after regenerating it (ctest
// label catalogue-invariant). TORCHDEX_TABLE_CATALOGUE names the JSON the linked table was
// compiled from.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>

#include "core/version.h"
#include "installer/table/catalogue_table.h"

namespace torchdex::installer::table {
namespace {

using core::BackendKind;
using nlohmann::json;


// The catalogue of one channel: TORCHDEX_TABLE_CATALOGUE for stable, the file beside it with
// "-test" or "-nightly" before ".json" for the others (generated/catalogue-nightly.json,
// tests/fixtures/catalogue/2026-03-15-nightly.json).
const json& RealCatalogue(std::string_view channel = "stable") {
  static const std::map<std::string, json, std::less<>> catalogues = [] {
    std::map<std::string, json, std::less<>> out;
    const std::string stable = TORCHDEX_TABLE_CATALOGUE;
    for (const char* c : {"stable", "test", "nightly"}) {
      const std::string file = std::string(c) == "stable"
                                   ? stable
                                   : stable.substr(0, stable.size() - 5) + "-" + c + ".json";
      std::ifstream in{std::filesystem::path(file)};
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
      EXPECT_EQ(StateIn(*row, channel), core::ParseBackendState(backend["state"].get<std::string>()))
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
  EXPECT_EQ(StateIn(*FindBackend("rocm7.2"), "stable"), std::nullopt);  // nightly only
  EXPECT_EQ(StateIn(*FindBackend("rocm7.2"), "nightly"), core::BackendState::kOk);
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
          EXPECT_TRUE(*core::Version::Parse(rows[i - 1].Text()) <
                      *core::Version::Parse(row.Text()))
              << project.name << " " << backend << " " << row.Text();
        }
        EXPECT_EQ(row.prerelease, core::Version::Parse(row.Text())->IsPrerelease());
        // Round-trips through FindVersion, exactly and by its public version.
        EXPECT_EQ(FindVersion(project.name, backend, row.Text(), channel), &row);
        const VersionRow* by_public =
            FindVersion(project.name, backend, PublicOf(row.Text()), channel);
        ASSERT_NE(by_public, nullptr);
        EXPECT_EQ(PublicOf(by_public->Text()), PublicOf(row.Text()));
        // The same wheels as the catalogue.
        ASSERT_TRUE(versions.contains(std::string(row.Text())));
        std::set<std::string> expected;
        for (const json& tags : versions[std::string(row.Text())])
          expected.insert(tags.get<std::string>());
        std::set<std::string> actual;
        for (std::uint16_t wheel : WheelsOf(row)) {
          ASSERT_LT(wheel, WheelTags().size());
          actual.emplace(WheelTags()[wheel].spelled);
        }
        EXPECT_EQ(actual, expected) << project.name << " " << row.Text();
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

}  // namespace
}  // namespace torchdex::installer::table
