#include "installer/table/family_table.h"

#include <array>

namespace torchdex::installer::table {
namespace {

#include "generated/family_table.inc"
#include "generated/accelerator_extras.inc"
#include "generated/dependent_indexes.inc"

template <typename Row, std::size_t N>
std::span<const Row> Slice(const std::array<Row, N>& rows, std::uint16_t first, std::uint16_t count) {
  return std::span<const Row>(rows.data() + first, count);
}

}  // namespace

std::span<const AcceleratorExtraRow> ExtrasOf(std::string_view project) {
  std::size_t first = 0;
  while (first < kAcceleratorExtras.size() && kAcceleratorExtras[first].project != project) ++first;
  std::size_t end = first;
  while (end < kAcceleratorExtras.size() && kAcceleratorExtras[end].project == project) ++end;
  return std::span<const AcceleratorExtraRow>(kAcceleratorExtras.data() + first, end - first);
}

std::span<const DependentIndexRow> DependentIndexes() { return kDependentIndexes; }
std::span<const DependentProjectRow> DependentProjects() { return kDependentProjects; }
std::span<const DependentPageRow> DependentPages() { return kDependentPages; }

std::span<const FamilyRow> Families() { return kFamilyRows; }

const FamilyRow* FindFamily(std::string_view name) {
  for (const FamilyRow& f : kFamilyRows) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::span<const std::string_view> HostsOf(const FamilyRow& f) { return Slice(kFamilyHosts, f.first_host, f.host_count); }
std::span<const FamilyChannelRow> ChannelsOf(const FamilyRow& f) {
  return Slice(kFamilyChannels, f.first_channel, f.channel_count);
}
std::span<const FamilyRoutedRow> RoutedOf(const FamilyRow& f) { return Slice(kFamilyRouted, f.first_routed, f.routed_count); }
std::span<const FamilyFloorRow> FloorsOf(const FamilyRow& f) { return Slice(kFamilyFloors, f.first_floor, f.floor_count); }

std::optional<std::string_view> ChannelPathOf(const FamilyRow& family, std::string_view channel) {
  for (const FamilyChannelRow& c : ChannelsOf(family)) {
    if (c.name == channel) return c.path;
  }
  return std::nullopt;
}

std::optional<core::DriverVersion> MajorFloor(unsigned cuda_major, core::TargetOs os) {
  for (const CudaMajorFloorRow& row : kCudaMajorFloors) {
    if (row.cuda_major != cuda_major) continue;
    const core::DriverVersion& floor = os == core::TargetOs::kWindows ? row.windows_floor : row.linux_floor;
    if (!floor.known()) return std::nullopt;
    return floor;
  }
  return std::nullopt;
}

}  // namespace torchdex::installer::table
