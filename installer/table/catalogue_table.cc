// The one hand-written consumer of generated/catalogue_table.inc: typed lookups over sorted
// constexpr arrays. The layout: strings are string_views into literals, every repeated thing is
// interned once and referenced by a 16-bit index (tags, wheel tag spellings, sets of wheels a
// version offers, GPU targets), and rows of one parent are contiguous ranges of a flat array.
#include "installer/table/catalogue_table.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <limits>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "core/tags.h"

namespace torchdex::installer::table {
namespace {

using core::BackendKind;
using core::DriverVersion;
using core::TargetOs;

#include "generated/catalogue_table.inc"

constexpr std::uint32_t kNoRank = std::numeric_limits<std::uint32_t>::max();

char NormalChar(char c) {
  if (c >= 'A' && c <= 'Z') return static_cast<char>(c - 'A' + 'a');
  return c;
}
bool IsSeparator(char c) { return c == '-' || c == '_' || c == '.'; }

// Compares a table name (already PEP 503 normal) with a query as if the query were normalised:
// lower-case, every run of '-', '_', '.' one '-'. No allocation.
int CompareNormalized(std::string_view normal, std::string_view query) {
  size_t i = 0, j = 0;
  while (i < normal.size() && j < query.size()) {
    char q = query[j];
    if (IsSeparator(q)) {
      while (j < query.size() && IsSeparator(query[j])) ++j;
      q = '-';
    } else {
      q = NormalChar(q);
      ++j;
    }
    const char n = normal[i++];
    if (n != q) return n < q ? -1 : 1;
  }
  if (i < normal.size()) return 1;
  if (j < query.size()) return -1;
  return 0;
}

template <typename Row>
const Row* FindByName(std::span<const Row> rows, std::string_view name) {
  auto it = std::lower_bound(rows.begin(), rows.end(), name,
                             [](const Row& row, std::string_view key) { return row.name < key; });
  if (it == rows.end() || it->name != name) return nullptr;
  return &*it;
}

std::string_view PublicPart(std::string_view version) {
  return version.substr(0, version.find('+'));
}

const BuildRow* FindBuild(const ProjectRow& project, std::uint16_t backend, std::uint8_t channel) {
  const std::span<const BuildRow> builds = BuildsOf(project);
  const auto key = std::pair(channel, backend);
  auto it = std::lower_bound(
      builds.begin(), builds.end(), key,
      [](const BuildRow& row, const auto& k) { return std::pair(row.channel, row.backend) < k; });
  if (it == builds.end() || it->backend != backend || it->channel != channel) return nullptr;
  return &*it;
}

const BuildRow* FindBuild(std::string_view project, std::string_view backend,
                          std::string_view channel) {
  const ProjectRow* project_row = FindProject(project);
  const BackendRow* backend_row = FindBackend(backend);
  const std::optional<std::uint8_t> channel_index = ChannelIndex(channel);
  if (project_row == nullptr || backend_row == nullptr || !channel_index) return nullptr;
  return FindBuild(*project_row, static_cast<std::uint16_t>(backend_row - kBackendRows),
                   *channel_index);
}

}  // namespace

std::string_view CatalogueChannel() { return kCatalogueChannel; }
std::string_view CatalogueIndexUrl() { return kCatalogueIndexUrl; }
std::string_view CatalogueSnapshot() { return kCatalogueSnapshot; }
std::string_view CatalogueAsOf() { return kCatalogueAsOf; }

std::span<const std::string_view> Channels() { return kCatalogueChannels; }
std::optional<std::uint8_t> ChannelIndex(std::string_view channel) {
  for (std::size_t i = 0; i < std::size(kCatalogueChannels); ++i) {
    if (kCatalogueChannels[i] == channel) return static_cast<std::uint8_t>(i);
  }
  return std::nullopt;
}
std::optional<core::BackendState> StateIn(const BackendRow& backend, std::string_view channel) {
  const std::optional<std::uint8_t> index = ChannelIndex(channel);
  return index ? backend.channel_states[*index] : std::nullopt;
}

std::span<const BackendRow> Backends() { return kBackendRows; }
std::span<const BackendRow> Backends(std::string_view channel) {
  if (!ChannelIndex(channel)) return {};
  return kBackendRows;
}
const BackendRow* FindBackend(std::string_view name) { return FindByName(Backends(), name); }

std::span<const ProjectRow> Projects() { return kProjectRows; }
// True when `name` is already PEP 503 normal: no upper case, no '_' or '.', no "--".
bool IsNormal(std::string_view name) {
  char previous = '\0';
  for (char c : name) {
    if ((c >= 'A' && c <= 'Z') || c == '_' || c == '.' || (c == '-' && previous == '-')) {
      return false;
    }
    previous = c;
  }
  return true;
}

const ProjectRow* FindProject(std::string_view name) {
  const std::span<const ProjectRow> rows = Projects();
  // The common case (a name as requirements and the catalogue spell it) compares bytes.
  if (IsNormal(name)) return FindByName(rows, name);
  auto it = std::lower_bound(rows.begin(), rows.end(), name,
                             [](const ProjectRow& row, std::string_view key) {
                               return CompareNormalized(row.name, key) < 0;
                             });
  if (it == rows.end() || CompareNormalized(it->name, name) != 0) return nullptr;
  return &*it;
}
bool IsRouted(std::string_view name) {
  const ProjectRow* row = FindProject(name);
  return row != nullptr && (row->project_class == ProjectClass::kRouted ||
                            row->project_class == ProjectClass::kCompanion);
}
std::optional<ProjectClass> ClassOfProject(std::string_view name) {
  const ProjectRow* row = FindProject(name);
  if (row == nullptr) return std::nullopt;
  return row->project_class;
}

std::span<const BuildRow> BuildsOf(const ProjectRow& project) {
  return std::span<const BuildRow>(kBuildRows).subspan(project.first_build, project.build_count);
}
std::string_view VersionRow::Text() const { return std::string_view(kVersionText + text, text_size); }

std::span<const VersionRow> VersionsOf(const BuildRow& build) {
  return std::span<const VersionRow>(kVersionRows)
      .subspan(build.first_version, build.version_count);
}

std::span<const VersionRow> Versions(std::string_view project, std::string_view backend,
                                     std::string_view channel) {
  const BuildRow* build = FindBuild(project, backend, channel);
  if (build == nullptr) return {};
  return VersionsOf(*build);
}

std::optional<BuildSource> SourceOf(std::string_view project, std::string_view backend,
                                    std::string_view channel) {
  const BuildRow* build = FindBuild(project, backend, channel);
  if (build == nullptr) return std::nullopt;
  return build->source;
}

const VersionRow* FindVersion(std::string_view project, std::string_view backend,
                              std::string_view version, std::string_view channel) {
  const BuildRow* build = FindBuild(project, backend, channel);
  if (build == nullptr) return nullptr;
  const std::span<const VersionRow> versions = VersionsOf(*build);
  const std::span<const std::uint16_t> by_text =
      std::span<const std::uint16_t>(kVersionsByText)
          .subspan(build->first_version, build->version_count);
  const std::string_view wanted = PublicPart(version);
  auto it = std::lower_bound(by_text.begin(), by_text.end(), wanted,
                             [&](std::uint16_t offset, std::string_view key) {
                               return PublicPart(versions[offset].Text()) < key;
                             });
  for (; it != by_text.end() && PublicPart(versions[*it].Text()) == wanted; ++it) {
    if (wanted.size() == version.size() || versions[*it].Text() == version) return &versions[*it];
  }
  return nullptr;
}

std::span<const TagRow> Tags() { return kTagRows; }
std::span<const WheelTagsRow> WheelTags() { return kWheelTagsRows; }
std::span<const std::uint16_t> TagsOf(const WheelTagsRow& wheel) {
  return std::span<const std::uint16_t>(kWheelTagItems).subspan(wheel.first_tag, wheel.tag_count);
}
std::span<const std::uint16_t> WheelsOf(const VersionRow& version) {
  const WheelSetRow& set = kWheelSetRows[version.wheel_set];
  return std::span<const std::uint16_t>(kWheelSetItems).subspan(set.first, set.count);
}

TargetTags::TargetTags(std::span<const core::Tag> supported) : rank_(Tags().size(), kNoRank) {
  // The table has a few hundred distinct tags, a target thousands ("any CPython 3.9-3.14" on
  // Linux): index the table's and walk the target's once, in rank order, so that each table
  // tag gets its first (best) rank. Ranking the target's tags instead (core::TagRanking: a sort
  // of thousands of string triples) was 60% of a whole `select`. The index is a flat
  // open-addressing set of the table's row numbers, hashed on the three parts as they are (no
  // key string built, no node allocated a tag).
  constexpr std::uint16_t kEmpty = std::numeric_limits<std::uint16_t>::max();
  std::size_t size = 64;
  while (size < Tags().size() * 2) size *= 2;
  std::vector<std::uint16_t> slots(size, kEmpty);
  for (std::size_t i = 0; i < Tags().size(); ++i) {
    const TagRow& row = Tags()[i];
    std::size_t slot = core::TagHash(row.interpreter, row.abi, row.platform) & (size - 1);
    while (slots[slot] != kEmpty) slot = (slot + 1) & (size - 1);
    slots[slot] = static_cast<std::uint16_t>(i);
  }
  std::size_t left = Tags().size();
  for (std::size_t rank = 0; rank < supported.size() && left > 0; ++rank) {
    const core::Tag& tag = supported[rank];
    for (std::size_t slot = core::TagHash(tag.interpreter, tag.abi, tag.platform) & (size - 1);
         slots[slot] != kEmpty; slot = (slot + 1) & (size - 1)) {
      const TagRow& row = Tags()[slots[slot]];
      if (row.platform != tag.platform || row.abi != tag.abi || row.interpreter != tag.interpreter) {
        continue;
      }
      if (rank_[slots[slot]] == kNoRank) {
        rank_[slots[slot]] = static_cast<std::uint32_t>(rank);
        --left;
      }
      break;
    }
  }
}

std::optional<std::uint32_t> TargetTags::Rank(std::uint16_t tag_index) const {
  if (tag_index >= rank_.size() || rank_[tag_index] == kNoRank) return std::nullopt;
  return rank_[tag_index];
}

std::optional<WheelMatch> WheelFits(const VersionRow& version, const TargetTags& target) {
  std::optional<WheelMatch> best;
  for (std::uint16_t wheel : WheelsOf(version)) {
    for (std::uint16_t tag : TagsOf(kWheelTagsRows[wheel])) {
      const std::optional<std::uint32_t> rank = target.Rank(tag);
      if (rank && (!best || *rank < best->rank)) {
        best = WheelMatch{&version, kWheelTagsRows[wheel].spelled, *rank};
      }
    }
  }
  return best;
}

std::optional<WheelMatch> WheelFits(std::string_view project, std::string_view backend,
                                    std::string_view version, const TargetTags& target,
                                    std::string_view channel) {
  const VersionRow* row = FindVersion(project, backend, version, channel);
  if (row == nullptr) return std::nullopt;
  return WheelFits(*row, target);
}

std::optional<WheelMatch> BestWheel(std::string_view project, std::string_view backend,
                                    const TargetTags& target, bool allow_prereleases,
                                    std::string_view channel) {
  const std::span<const VersionRow> versions = Versions(project, backend, channel);
  for (auto it = versions.rbegin(); it != versions.rend(); ++it) {  // newest first
    if (it->prerelease && !allow_prereleases) continue;
    if (std::optional<WheelMatch> match = WheelFits(*it, target)) return match;
  }
  return std::nullopt;
}

std::optional<std::uint32_t> TorchReleaseKey(std::string_view version) {
  std::uint32_t parts[3] = {0, 0, 0};
  const char* at = version.data();
  const char* const end = version.data() + version.size();
  int count = 0;
  while (count < 3) {
    auto [next, error] = std::from_chars(at, end, parts[count]);
    if (error != std::errc() || parts[count] > 999) break;
    ++count;
    at = next;
    if (at == end || *at != '.') break;
    ++at;
  }
  if (count < 2) return std::nullopt;
  return parts[0] * 1000000 + parts[1] * 1000 + parts[2];
}

std::span<const ArchRangeRow> ArchRanges() { return kArchRangeRows; }
std::span<const std::string_view> ArchTargetNames() { return kArchTargets; }
std::span<const std::uint16_t> TargetsOf(const ArchRangeRow& row) {
  return std::span<const std::uint16_t>(kArchTargetItems)
      .subspan(row.first_target, row.target_count);
}

std::string_view ArchTargets::Name(size_t i) const { return kArchTargets[targets[i]]; }
namespace {
std::optional<core::ComputeCapability> CapabilityOf(std::uint16_t id) {
  const core::ComputeCapability cc = kArchTargetCapabilities[id];
  if (cc.major == 0) return std::nullopt;
  return cc;
}
}  // namespace
std::optional<core::ComputeCapability> ArchTargets::Capability(size_t i) const { return CapabilityOf(targets[i]); }
std::optional<core::ComputeCapability> ArchTargets::PtxCapability() const {
  return ptx_target == kNoTarget ? std::nullopt : CapabilityOf(ptx_target);
}
std::string_view ArchTargets::PtxName() const {
  return ptx_target == kNoTarget ? std::string_view() : kArchTargets[ptx_target];
}
bool ArchTargets::Contains(std::string_view target) const {
  for (std::uint16_t id : targets) {
    if (kArchTargets[id] == target) return true;
  }
  return false;
}

std::optional<ArchTargets> ArchList(std::string_view backend, std::string_view torch_version,
                                    CpuArch cpu_arch) {
  const BackendRow* backend_row = FindBackend(backend);
  const std::optional<std::uint32_t> key = TorchReleaseKey(torch_version);
  if (backend_row == nullptr || !key) return std::nullopt;
  const auto index = static_cast<std::uint16_t>(backend_row - kBackendRows);
  const std::span<const ArchRangeRow> rows = kArchRangeRows;
  // Rows are sorted by (backend, cpu arch, torch_min) and do not overlap: the candidate is the
  // last row with torch_min <= key.
  auto it = std::upper_bound(rows.begin(), rows.end(), std::tuple(index, cpu_arch, *key),
                             [](const auto& wanted, const ArchRangeRow& row) {
                               return wanted < std::tuple(row.backend, row.cpu_arch, row.torch_min);
                             });
  if (it == rows.begin()) return std::nullopt;
  --it;
  if (it->backend != index || it->cpu_arch != cpu_arch || *key >= it->torch_below)
    return std::nullopt;
  return ArchTargets{TargetsOf(*it), it->ptx, it->ptx_target};
}

std::span<const std::string_view> IntegratedTargets() { return kIntegratedTargets; }
std::span<const core::ComputeCapability> IntegratedCapabilities() { return kIntegratedCapabilities; }
std::optional<ArchTargets> ToolkitTargets(std::string_view backend) {
  const BackendRow* row = FindBackend(backend);
  if (row == nullptr || row->toolkit_target_count == 0) return std::nullopt;
  return ArchTargets{std::span<const std::uint16_t>(kToolkitTargetItems)
                         .subspan(row->first_toolkit_target, row->toolkit_target_count),
                     Ptx::kNone, kNoTarget};
}

std::optional<DriverVersion> DriverFloor(std::string_view backend, TargetOs os) {
  const BackendRow* row = FindBackend(backend);
  if (row == nullptr || row->kind != BackendKind::kCuda) return std::nullopt;
  const DriverVersion floor = os == TargetOs::kLinux ? row->linux_floor : row->windows_floor;
  if (!floor.known()) return std::nullopt;
  return floor;
}

bool IsVariantIndex(std::string_view backend) {
  return std::find(kVariantIndexes.begin(), kVariantIndexes.end(), backend) != kVariantIndexes.end();
}

std::span<const VariantVersionRow> VariantVersions() { return kVariantVersionRows; }

}  // namespace torchdex::installer::table
