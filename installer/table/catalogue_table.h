// Typed lookups in the compiled package table (generated/catalogue_table.inc, made by
// torchdex-codegen from generated/catalogue.json and data/cuda-drivers.json, cuda-archs.json,
// rocm-archs.json). Only catalogue_table.cc includes the generated file.
//
// Everything here reads constexpr arrays in the binary: no start-up cost, no allocation (except
// building a TargetTags once per target interpreter), binary searches over sorted rows.
#ifndef TORCHDEX_INSTALLER_TABLE_CATALOGUE_TABLE_H_
#define TORCHDEX_INSTALLER_TABLE_CATALOGUE_TABLE_H_

#include <compare>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "core/accelerator.h"

namespace torchdex::core {
struct Tag;
}

namespace torchdex::installer::table {

enum class ProjectClass : std::uint8_t { kRouted, kCompanion, kMirror, kStale };
enum class CpuArch : std::uint8_t { kX86_64, kAarch64 };
// Whether a CUDA build carries PTX for its newest architecture (JIT on later GPUs).
enum class Ptx : std::uint8_t { kNone, kAll, kLinuxOnly };

inline constexpr std::uint16_t kNoTarget = 0xffff;

// ---- Row types of the generated arrays (plain aggregates, so the tables are constexpr) ----

struct BackendRow {
  std::string_view name;  // "cu128"
  core::BackendKind kind;
  std::string_view toolkit;  // "12.8", "6.4", "" for cpu and xpu
  bool legacy;               // *-full, *-pypi-*, cpu-cxx11-abi: recorded, never chosen
  core::BackendState state;
  // The oldest driver that runs the build's cubins: the minor-version-compatibility floor of
  // the toolkit's major (NVIDIA Table 2), or before CUDA 11 the toolkit's own driver.
  core::DriverVersion linux_floor;  // {0, 0, 0}: unknown
  core::DriverVersion windows_floor;
  // The driver the toolkit shipped with (NVIDIA Table 3): needed to JIT the build's PTX.
  core::DriverVersion linux_toolkit_driver;
  core::DriverVersion windows_toolkit_driver;
  // The real architectures the toolkit can build (data/cuda-archs.json toolkit_targets):
  // kToolkitTargetItems[first_toolkit_target, + toolkit_target_count); none for non-CUDA.
  std::uint16_t first_toolkit_target;
  std::uint16_t toolkit_target_count;
  // The backend's state in each channel the table holds (stable, test, nightly); nullopt when
  // the channel has no such backend.
  std::optional<core::BackendState> channel_states[3];
};

struct ProjectRow {
  std::string_view name;  // PEP 503 normal form
  ProjectClass project_class;
  std::uint16_t first_build;  // kBuildRows[first_build, first_build + build_count)
  std::uint16_t build_count;
  std::string_view reason;
};

// Where a build's versions come from.
enum class BuildSource : std::uint8_t {
  kPage,        // the backend's own page of the project
  kFlatPage,    // its page was missing; the flat page ("torch/" at the root) links its wheels
  kNotCrawled,  // its page was missing and nothing else says: no version is known
};

struct BuildRow {
  std::uint16_t backend;        // index into Backends()
  std::uint16_t version_count;  // kVersionRows[first_version, + version_count), PEP 440 order
  std::uint32_t first_version;
  BuildSource source;
  std::uint8_t channel;  // index into Channels(): a project's builds are sorted by channel, backend
};

struct VersionRow {
  // The version as the index spells it, with its local label ("2.3.1+cu121"): kVersionText[
  // text, + text_size). An offset rather than a string_view, so that the thousands of rows hold
  // no pointer: they stay in read-only pages that the dynamic loader never relocates (a
  // position-independent program writes every page of pointers at start-up).
  std::uint32_t text;
  std::uint8_t text_size;
  bool prerelease;          // PEP 440 pre- or dev-release
  std::uint16_t wheel_set;  // index into the wheel sets
  std::string_view Text() const;
};

struct TagRow {
  std::string_view interpreter;  // "cp312"
  std::string_view abi;          // "cp312"
  std::string_view platform;     // "manylinux_2_28_x86_64"
};

struct WheelTagsRow {
  std::string_view
      spelled;  // as filenames carry it: "cp310-abi3-manylinux_2_24_x86_64.manylinux_2_28_x86_64"
  std::uint16_t first_tag;  // its expanded tags: indexes into Tags()
  std::uint16_t tag_count;
};

struct WheelSetRow {
  std::uint16_t first;  // indexes into WheelTags(): the wheels one version offers
  std::uint16_t count;
};

struct ArchRangeRow {
  std::uint16_t backend;
  CpuArch cpu_arch;
  Ptx ptx;
  std::uint16_t ptx_target;   // index into ArchTargetNames() of the PTX's arch; kNoTarget: none
  std::uint32_t torch_min;    // 2.8 -> 2008000 (major * 1000000 + minor * 1000 + patch)
  std::uint32_t torch_below;  // exclusive; 0xffffffff: open
  std::uint16_t first_target;
  std::uint16_t target_count;
};

// A version's variants.json on a variant index (PEP 825), as the crawl read it.
struct VariantVersionRow {
  std::string_view project;
  std::uint8_t channel;   // index into Channels()
  std::uint16_t backend;  // index into Backends()
  std::string_view version;
  std::string_view url;     // relative to the index base: "test/variant/torch-2.10.0-variants.json"
  std::string_view sha256;
  std::string_view schema;  // "v0.0.3"
  std::string_view variants_json;  // canonical (catalogue::VariantsJsonToString)
  std::string_view wheels;    // "cuda12.8=py3-none-any;null=py3-none-any": each label's wheel tags
  std::string_view unlisted;  // the same for labels of wheels the file lacks
};

// ---- Lookups ----

// The catalogue the table was built from: "stable".
std::string_view CatalogueChannel();
// The channels the table holds, in the order of BuildRow::channel: stable, then test and nightly
// when they were given to codegen.
std::span<const std::string_view> Channels();
// The index of `channel` in Channels(), nullopt when the table does not hold it.
std::optional<std::uint8_t> ChannelIndex(std::string_view channel);
// The state of a backend in a channel (nullopt when the channel has no such backend).
std::optional<core::BackendState> StateIn(const BackendRow& backend, std::string_view channel);
// What it stands for: the index URL, the snapshot crawled ("" when live) and the day it
// describes (the snapshot's, else the day of its newest page).
std::string_view CatalogueIndexUrl();
std::string_view CatalogueSnapshot();
std::string_view CatalogueAsOf();

// Every backend of the channels the table holds, sorted by name. Backends(channel) is empty for
// a channel the table was not built from (the live index serves those); else the same rows, of
// which StateIn says which the channel has.
std::span<const BackendRow> Backends();
std::span<const BackendRow> Backends(std::string_view channel);
const BackendRow* FindBackend(std::string_view name);

// Every project of the catalogue, sorted by name. Names are matched PEP 503 style
// ("Torch_Vision" is torchvision) without allocating.
std::span<const ProjectRow> Projects();
const ProjectRow* FindProject(std::string_view name);
bool IsRouted(std::string_view name);  // routed or companion: never from the default index
std::optional<ProjectClass> ClassOfProject(std::string_view name);

// The versions a routed project offers on a backend, oldest first (PEP 440 order); empty when
// it offers none there.
std::span<const VersionRow> Versions(std::string_view project, std::string_view backend,
                                     std::string_view channel = "stable");
// Where the versions of `project` on `backend` come from; nullopt: the backend does not list
// the project (nothing of it is there).
std::optional<BuildSource> SourceOf(std::string_view project, std::string_view backend,
                                    std::string_view channel = "stable");
// One version: "2.3.1+cu121" exactly, or "2.3.1" matching any local label.
const VersionRow* FindVersion(std::string_view project, std::string_view backend,
                              std::string_view version, std::string_view channel = "stable");

// The supported tags of one target interpreter (core::SupportedTags), ranked once against the
// table's tags so that fit checks are array reads.
class TargetTags {
 public:
  explicit TargetTags(std::span<const core::Tag> supported);
  // Rank (0 = most preferred) of the table's tag `tag_index`, or nullopt when it does not fit.
  std::optional<std::uint32_t> Rank(std::uint16_t tag_index) const;

 private:
  std::vector<std::uint32_t> rank_;  // per Tags() row; kNoRank when it does not fit
};

struct WheelMatch {
  const VersionRow* version;
  std::string_view wheel_tags;  // the spelling of the best-fitting wheel
  std::uint32_t rank;           // its rank for the target (0 = best)
};
// The best wheel of `version` for the target, or nullopt when none fits.
std::optional<WheelMatch> WheelFits(std::string_view project, std::string_view backend,
                                    std::string_view version, const TargetTags& target,
                                    std::string_view channel = "stable");
std::optional<WheelMatch> WheelFits(const VersionRow& version, const TargetTags& target);
// The newest version (final releases before pre-releases) with a wheel for the target.
std::optional<WheelMatch> BestWheel(std::string_view project, std::string_view backend,
                                    const TargetTags& target, bool allow_prereleases = false,
                                    std::string_view channel = "stable");

// The GPU targets a build of `backend` for torch `torch_version` ("2.8.0+cu128", "2.8") and a
// CPU architecture carries: CUDA "sm_XY" cubins, ROCm "gfx..." targets. nullopt: not known.
struct ArchTargets {
  std::span<const std::uint16_t> targets;  // indexes into ArchTargetNames()
  Ptx ptx;
  std::uint16_t ptx_target = kNoTarget;  // the PTX's arch ("sm_50" for "5.0+PTX")
  std::string_view Name(size_t i) const;
  std::string_view PtxName() const;  // "" without PTX
  // The compute capability of a CUDA target (generated: never parsed at run time); nullopt for
  // a ROCm gfx target, or no PTX.
  std::optional<core::ComputeCapability> Capability(size_t i) const;
  std::optional<core::ComputeCapability> PtxCapability() const;
  bool Contains(std::string_view target) const;
};
std::optional<ArchTargets> ArchList(std::string_view backend, std::string_view torch_version,
                                    CpuArch cpu_arch);
// The real architectures ("sm_86") the toolkit of a CUDA backend can build, as ArchTargets
// without PTX; nullopt for a non-CUDA backend or a toolkit the data does not know.
std::optional<ArchTargets> ToolkitTargets(std::string_view backend);
// Integrated (Tegra) GPUs: "sm_53", "sm_62", "sm_72", "sm_87", "sm_101".
std::span<const std::string_view> IntegratedTargets();
std::span<const core::ComputeCapability> IntegratedCapabilities();  // the same, as values

// The oldest driver that runs `backend` on `os` (see BackendRow); nullopt for a non-CUDA
// backend or when the data does not know.
std::optional<core::DriverVersion> DriverFloor(std::string_view backend, core::TargetOs os);

// Variant indexes (PEP 825): whether a backend is one, and every variants.json the table holds,
// in catalogue order (channel, project, backend, version). Empty for a catalogue without one
// (the 2026-03-15 snapshot crawled no variant index).
bool IsVariantIndex(std::string_view backend);
std::span<const VariantVersionRow> VariantVersions();

// Raw rows, for tests and the benchmarks.
std::span<const TagRow> Tags();
std::span<const WheelTagsRow> WheelTags();
std::span<const std::uint16_t> TagsOf(const WheelTagsRow& wheel);
std::span<const std::uint16_t> WheelsOf(const VersionRow& version);  // indexes into WheelTags()
std::span<const BuildRow> BuildsOf(const ProjectRow& project);
std::span<const VersionRow> VersionsOf(const BuildRow& build);
std::span<const ArchRangeRow> ArchRanges();
std::span<const std::string_view> ArchTargetNames();
std::span<const std::uint16_t> TargetsOf(const ArchRangeRow& row);

// "2.8.0+cu128" -> 2008000; nullopt when it does not start with MAJOR.MINOR.
std::optional<std::uint32_t> TorchReleaseKey(std::string_view version);

}  // namespace torchdex::installer::table

#endif  // TORCHDEX_INSTALLER_TABLE_CATALOGUE_TABLE_H_
