// Typed lookups in the compiled family table (generated/family_table.inc, made by
// torchdex-codegen from data/indexes.json, data/cuda-drivers.json and the family catalogues
// generated/family-<name>.json): every index family the installer can choose from with
// --family, what differs between them (base URL, channels, the primary project, the routed
// projects, documented driver floors), and the catalogues of the families other than the one
// of the package table (catalogue_table.h). Only family_table.cc includes the generated file.
#ifndef TORCHDEX_INSTALLER_TABLE_FAMILY_TABLE_H_
#define TORCHDEX_INSTALLER_TABLE_FAMILY_TABLE_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "core/accelerator.h"

namespace torchdex::installer::table {

struct FamilyRow {
  std::string_view name;      // "paddle"
  std::string_view base_url;  // "https://www.paddlepaddle.org.cn/packages/"
  std::string_view primary;   // "paddlepaddle-gpu": ranks the backends, asked when nothing is named
  std::uint16_t first_host, host_count;        // kFamilyHosts
  std::uint16_t first_channel, channel_count;  // kFamilyChannels
  std::uint16_t first_routed, routed_count;    // kFamilyRouted
  std::uint16_t first_floor, floor_count;      // kFamilyFloors
  std::string_view catalogue_file;  // "generated/family-paddle.json"; "" when none was compiled in
  std::string_view catalogue;       // its canonical JSON; ""
};

struct FamilyChannelRow {
  std::string_view name;  // "stable"
  std::string_view path;  // under the base URL: "stable/" ("" for PyTorch's stable)
};

struct FamilyRoutedRow {
  std::string_view name;  // normal form
  std::string_view reason;
  std::string_view source;
};

// A driver floor the family documents for one of its backends.
struct FamilyFloorRow {
  std::string_view backend;
  core::DriverVersion linux_floor;
  core::DriverVersion windows_floor;  // {0, 0, 0}: not documented
  std::string_view source;
};

struct CudaMajorFloorRow {
  unsigned cuda_major;
  core::DriverVersion linux_floor;
  core::DriverVersion windows_floor;
};

// A package of the default index that chooses its accelerator by an extra
// (data/accelerator-extras.json): jax[cuda13], jax[cuda12].
struct AcceleratorExtraRow {
  std::string_view project;  // normal form
  std::string_view extra;    // "cuda12"
  core::DriverVersion linux_floor;
  unsigned min_cc_major, min_cc_minor;  // the oldest GPU it runs on
  std::string_view source;              // where that is documented
};
/// The extras of `project` (normal form) in the order they are tried; empty for any other.
std::span<const AcceleratorExtraRow> ExtrasOf(std::string_view project);

// An index keyed by the chosen torch (data/dependent-indexes.json): PyG's find-links pages.
struct DependentIndexRow {
  std::string_view name;         // "pyg"
  std::string_view base_url;     // "https://data.pyg.org/whl/"
  std::string_view page;         // "torch-{torch}+{backend}.html"
  std::string_view local_label;  // "pt{major}{minor}{backend}"
  std::string_view depends_on;   // "torch"
  std::string_view source;       // where that is documented
};
struct DependentProjectRow {
  std::string_view index;    // "pyg"
  std::string_view project;  // normal form: "torch-scatter"
};
// One published page: the torch release series it serves, its key and backend.
struct DependentPageRow {
  std::string_view index;    // "pyg"
  std::string_view series;   // "2.5": torch 2.5.*
  std::string_view torch;    // "2.5.0": the page's key
  std::string_view backend;  // "cu124"
  std::string_view source;
};
std::span<const DependentIndexRow> DependentIndexes();  // in the order of the data file
std::span<const DependentProjectRow> DependentProjects();
std::span<const DependentPageRow> DependentPages();     // per index, newest torch first

std::span<const FamilyRow> Families();  // in the order of data/indexes.json
const FamilyRow* FindFamily(std::string_view name);
std::span<const std::string_view> HostsOf(const FamilyRow& family);
std::span<const FamilyChannelRow> ChannelsOf(const FamilyRow& family);
std::span<const FamilyRoutedRow> RoutedOf(const FamilyRow& family);
std::span<const FamilyFloorRow> FloorsOf(const FamilyRow& family);
/// The path of `channel` under the family's base URL; nullopt when the family has no such channel.
std::optional<std::string_view> ChannelPathOf(const FamilyRow& family, std::string_view channel);
/// NVIDIA's minor-version-compatibility floor of a CUDA major (Table 2); nullopt when unknown.
std::optional<core::DriverVersion> MajorFloor(unsigned cuda_major, core::TargetOs os);

}  // namespace torchdex::installer::table

#endif  // TORCHDEX_INSTALLER_TABLE_FAMILY_TABLE_H_
