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
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>

#include "core/version.h"
#include "installer/table/catalogue_table.h"

namespace torchdex::installer::table {
namespace {

using core::BackendKind;
using nlohmann::json;

const json& TheTablesCatalogue() {
  static const json catalogue = [] {
    std::ifstream in{std::filesystem::path(TORCHDEX_TABLE_CATALOGUE)};
    return json::parse(in);
  }();
  return catalogue;
}

std::string PublicOf(std::string_view version) {
  return std::string(version.substr(0, version.find('+')));
}

TEST(CatalogueTableInvariants, BackendsAreSortedUniqueAndAllOfTheCatalogue) {
  const auto backends = Backends();
  for (size_t i = 1; i < backends.size(); ++i) EXPECT_LT(backends[i - 1].name, backends[i].name);
  EXPECT_EQ(backends.size(), TheTablesCatalogue()["backends"].size());
  for (const auto& [name, backend] : TheTablesCatalogue()["backends"].items()) {
    const BackendRow* row = FindBackend(name);
    ASSERT_NE(row, nullptr) << name;
    EXPECT_EQ(row->name, name);
    EXPECT_EQ(row->toolkit, backend["toolkit"].get<std::string>());
    EXPECT_EQ(row->legacy, backend["legacy"].get<bool>());
  }
  for (const BackendRow& row : backends) EXPECT_EQ(FindBackend(row.name), &row);
  EXPECT_EQ(FindBackend("cu999"), nullptr);
  const std::string channel = TheTablesCatalogue()["provenance"]["channel"];
  EXPECT_EQ(CatalogueChannel(), channel);
  EXPECT_EQ(Backends(channel).size(), backends.size());
  EXPECT_TRUE(Backends("no-such-channel").empty());
}

TEST(CatalogueTableInvariants, ProjectsRoundTripAndEveryRoutedProjectResolves) {
  const auto projects = Projects();
  for (size_t i = 1; i < projects.size(); ++i) EXPECT_LT(projects[i - 1].name, projects[i].name);
  EXPECT_EQ(projects.size(), TheTablesCatalogue()["projects"].size());
  size_t routed = 0;
  for (const auto& [name, project] : TheTablesCatalogue()["projects"].items()) {
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
  EXPECT_GT(routed, 0u);  // torch at least; the snapshot's own count is a fact (catalogue_table_test)
  for (const ProjectRow& row : projects) EXPECT_EQ(FindProject(row.name), &row);
}

TEST(CatalogueTableInvariants, EveryBuildVersionAndWheelMatchesTheCatalogue) {
  size_t versions_in_catalogue = 0;
  for (const auto& [name, project] : TheTablesCatalogue()["projects"].items()) {
    if (!project.contains("builds")) continue;
    for (const auto& [backend, versions] : project["builds"].items())
      versions_in_catalogue += versions.size();
  }
  size_t versions_seen = 0;
  for (const ProjectRow& project : Projects()) {
    const json& builds =
        TheTablesCatalogue()["projects"][std::string(project.name)].value("builds", json::object());
    ASSERT_EQ(BuildsOf(project).size(), builds.size()) << project.name;
    std::uint16_t previous_backend = 0;
    bool first = true;
    for (const BuildRow& build : BuildsOf(project)) {
      if (!first) {
        EXPECT_LT(previous_backend, build.backend);
      }
      first = false;
      previous_backend = build.backend;
      ASSERT_LT(build.backend, Backends().size());
      const std::string_view backend = Backends()[build.backend].name;
      const json& versions = builds[std::string(backend)];
      const auto rows = Versions(project.name, backend);
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
        EXPECT_EQ(FindVersion(project.name, backend, row.version), &row);
        const VersionRow* by_public = FindVersion(project.name, backend, PublicOf(row.version));
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
  EXPECT_GT(versions_seen, 0u);
  EXPECT_EQ(versions_seen, versions_in_catalogue);
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
