#include "installer/select/catalogue_source.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>

#include "catalogue/catalogue.h"
#include "core/name.h"
#include "core/spelling.h"
#include "core/version.h"
#include "core/wheel.h"
#include "installer/table/catalogue_table.h"
#include "installer/table/family_table.h"
#include "installer/table/hardware_table.h"

namespace torchdex::installer {
namespace {

// Whether the table knows what a backend offers in a channel (it is there, and its pages or the
// flat page were read).
bool OffersBuildsIn(const table::BackendRow& b, std::string_view channel) {
  const std::optional<core::BackendState> state = table::StateIn(b, channel);
  return state && core::OffersBuilds(*state);
}

// Whether one of the wheels, by the tags their filenames spell ("cp312-cp312-linux_x86_64"),
// fits one of `supported`.
bool AnyTagFits(const std::vector<std::string>& spelled_tags, const std::vector<core::Tag>& supported) {
  const std::set<core::Tag> accepted(supported.begin(), supported.end());
  for (const std::string& spelled : spelled_tags) {
    auto tags = core::ParseWheelTags(spelled);
    if (!tags) continue;
    for (const core::Tag& t : *tags) {
      if (accepted.count(t) != 0) return true;
    }
  }
  return false;
}

// What every view shares: backends, driver floors and arch lists from the compiled table, and
// the custom backends of the override files.
class ViewBase : public CatalogueView {
 public:
  // `channel`: the table's channel this view answers for (stable, test, nightly).
  ViewBase(const EffectiveOverrides& overrides, std::string channel)
      : channel_(std::move(channel)) {
    for (const auto& [name, sourced] : overrides.custom_backends) custom_[name] = sourced.value;
  }

  std::vector<BackendView> Backends(const std::string&) const override {
    std::vector<BackendView> out;
    for (const table::BackendRow& b : table::Backends()) {
      // Recorded, never chosen: legacy and empty backends, and those of other channels (a
      // backend whose pages are missing but whose wheels the flat page links is "ok (flat page
      // only)").
      if (b.legacy || !OffersBuildsIn(b, channel_)) continue;
      out.push_back({std::string(b.name), b.kind, std::string(b.toolkit), table::IsVariantIndex(b.name)});
    }
    for (const auto& [name, c] : custom_) out.push_back({name, c.kind, c.toolkit});
    return out;
  }

  std::optional<ArchView> Arch(const std::string& backend, const std::string& torch_version,
                               const std::string& cpu_arch) const override {
    if (auto it = custom_.find(backend); it != custom_.end()) {
      if (!it->second.HasArchList()) return std::nullopt;
      return ArchView{it->second.cuda_arch, it->second.ptx, it->second.gfx_arch};
    }
    const table::CpuArch arch = cpu_arch == "aarch64" || cpu_arch == "arm64" ? table::CpuArch::kAarch64
                                                                              : table::CpuArch::kX86_64;
    const std::optional<table::ArchTargets> targets = table::ArchList(backend, torch_version, arch);
    if (!targets) return std::nullopt;
    ArchView view;
    for (std::size_t i = 0; i < targets->targets.size(); ++i) {
      if (std::optional<core::ComputeCapability> cc = targets->Capability(i)) {
        view.cubins.push_back(*cc);
      } else {
        view.gfx.emplace_back(targets->Name(i));
      }
    }
    // The PTX of the list's "X+PTX" entry. kLinuxOnly counts here: torch's Windows builds are
    // not chosen by this table.
    if (targets->ptx != table::Ptx::kNone) view.ptx = targets->PtxCapability();
    return view;
  }

  CudaLimits Limits(const std::string& backend) const override {
    // Asked once per backend and torch version by selection: parsed once per backend.
    if (auto it = limits_.find(backend); it != limits_.end()) return it->second;
    return limits_.emplace(backend, ComputeLimits(backend)).first->second;
  }

  CudaLimits ComputeLimits(const std::string& backend) const {
    CudaLimits limits;
    const std::span<const core::ComputeCapability> integrated = table::IntegratedCapabilities();
    limits.integrated.assign(integrated.begin(), integrated.end());
    std::string toolkit = backend;
    if (auto it = custom_.find(backend); it != custom_.end()) {
      // A custom CUDA backend: the toolkit of the same version in the table, if any.
      toolkit.clear();
      for (const table::BackendRow& b : table::Backends()) {
        if (b.kind == core::BackendKind::kCuda && b.toolkit == it->second.toolkit)
          toolkit = std::string(b.name);
      }
    }
    if (const std::optional<table::ArchTargets> targets = table::ToolkitTargets(toolkit)) {
      for (std::size_t i = 0; i < targets->targets.size(); ++i) {
        if (auto cc = targets->Capability(i)) limits.toolkit_targets.push_back(*cc);
      }
      std::sort(limits.toolkit_targets.begin(), limits.toolkit_targets.end());
    }
    return limits;
  }

  std::optional<core::DriverVersion> DriverFloor(const std::string& backend, core::TargetOs os) const override {
    if (auto it = custom_.find(backend); it != custom_.end()) {
      auto floor = it->second.driver_floor.find(os);
      if (floor == it->second.driver_floor.end()) return std::nullopt;
      return floor->second;
    }
    return table::DriverFloor(backend, os);
  }

  std::optional<core::DriverVersion> ReleaseDriver(const std::string& backend, core::TargetOs os) const override {
    const table::BackendRow* row = table::FindBackend(backend);
    if (row == nullptr) return std::nullopt;
    const core::DriverVersion& driver =
        os == core::TargetOs::kWindows ? row->windows_toolkit_driver : row->linux_toolkit_driver;
    if (!driver.known()) return std::nullopt;
    return driver;
  }

 protected:
  std::string channel_;
  std::map<std::string, CustomBackend> custom_;
  mutable std::map<std::string, CudaLimits> limits_;  // Limits, by backend
};

// "cuda12.8=py3-none-any,cp312-...;null=py3-none-any" (codegen's encoding) -> label -> tags.
std::map<std::string, std::vector<std::string>> DecodeVariantWheels(std::string_view text,
                                                                    std::map<std::string, std::vector<std::string>> out) {
  while (!text.empty()) {
    const std::size_t end = std::min(text.find(';'), text.size());
    const std::string_view item = text.substr(0, end);
    const std::size_t eq = item.find('=');
    std::vector<std::string>& tags = out[std::string(item.substr(0, eq))];
    std::string_view rest = eq == std::string_view::npos ? std::string_view() : item.substr(eq + 1);
    while (!rest.empty()) {
      const std::size_t comma = std::min(rest.find(','), rest.size());
      tags.emplace_back(rest.substr(0, comma));
      rest.remove_prefix(std::min(comma + 1, rest.size()));
    }
    text.remove_prefix(std::min(end + 1, text.size()));
  }
  return out;
}

// The table compiled into torchdex.
class TableView : public ViewBase {
 public:
  using ViewBase::ViewBase;

  const std::map<std::string, catalogue::CatalogueVariants>* Variants(
      const std::string& project, const std::string& backend) const override {
    const std::string key = project + '\n' + backend;
    if (auto it = variants_.find(key); it != variants_.end()) return it->second.empty() ? nullptr : &it->second;
    std::map<std::string, catalogue::CatalogueVariants>& out = variants_[key];
    const std::optional<std::uint8_t> channel = table::ChannelIndex(channel_);
    const table::BackendRow* row = table::FindBackend(backend);
    if (!channel || row == nullptr) return nullptr;
    const auto backend_index = static_cast<std::uint16_t>(row - table::Backends().data());
    for (const table::VariantVersionRow& v : table::VariantVersions()) {
      if (v.channel != *channel || v.backend != backend_index || v.project != project) continue;
      core::Expected<catalogue::CatalogueVariants> made = catalogue::MakeCatalogueVariants(
          std::string(v.url), std::string(v.sha256), v.variants_json,
          DecodeVariantWheels(v.unlisted, DecodeVariantWheels(v.wheels, {})), "the embedded table: " + std::string(v.url));
      // Codegen read the file with the same parser: a failure is a torchdex bug, and the version
      // is left out rather than chosen from.
      if (made) out.emplace(std::string(v.version), std::move(made).value());
    }
    return out.empty() ? nullptr : &out;
  }

  bool NotCrawled(const std::string& project, const std::string& backend) const override {
    return table::SourceOf(project, backend, channel_) == table::BuildSource::kNotCrawled;
  }
  std::string AsOf() const override { return std::string(table::CatalogueAsOf()); }

  std::vector<std::string> Versions(const std::string& project, const std::string& backend) const override {
    std::vector<std::string> out;
    for (const table::VersionRow& v : table::Versions(project, backend, channel_))
      out.emplace_back(v.Text());
    return out;
  }

  bool HasWheelFor(const std::string& project, const std::string& backend, const std::string& version,
                   const std::vector<core::Tag>& supported) const override {
    // Ranking the table's tags for a target is the costly part: done once per target.
    if (supported.empty()) return true;
    if (cached_for_ != &supported || cached_size_ != supported.size()) {
      tags_ = std::make_unique<table::TargetTags>(supported);
      cached_for_ = &supported;
      cached_size_ = supported.size();
    }
    return table::WheelFits(project, backend, version, *tags_, channel_).has_value();
  }

 private:
  mutable std::map<std::string, std::map<std::string, catalogue::CatalogueVariants>> variants_;
  mutable std::unique_ptr<table::TargetTags> tags_;
  mutable const std::vector<core::Tag>* cached_for_ = nullptr;
  mutable std::size_t cached_size_ = 0;
};

// A newer catalogue.json named by an override file: its versions and wheel tags replace the
// table's; backends of the table it lacks are left out.
class JsonView : public ViewBase {
 public:
  JsonView(const EffectiveOverrides& overrides, catalogue::Catalogue cat)
      : ViewBase(overrides, "stable"), cat_(std::move(cat)) {}

  std::vector<BackendView> Backends(const std::string& channel) const override {
    std::vector<BackendView> out;
    for (const BackendView& b : ViewBase::Backends(channel)) {
      if (custom_.count(b.name) != 0 || cat_.backends.count(b.name) != 0) out.push_back(b);
    }
    for (const auto& [name, b] : cat_.backends) {
      if (b.legacy || !core::OffersBuilds(b.state) || table::FindBackend(name) != nullptr) continue;
      // New in the newer catalogue; its kind was checked when the file was read.
      out.push_back({name, core::ParseBackendKind(b.kind).value_or(core::BackendKind::kOther), b.toolkit,
                     b.kind == "variant"});
    }
    return out;
  }

  const std::map<std::string, catalogue::CatalogueVariants>* Variants(
      const std::string& project, const std::string& backend) const override {
    auto p = cat_.projects.find(project);
    if (p == cat_.projects.end()) return nullptr;
    auto b = p->second.variants.find(backend);
    return b == p->second.variants.end() ? nullptr : &b->second;
  }

  bool NotCrawled(const std::string& project, const std::string& backend) const override {
    auto p = cat_.projects.find(project);
    if (p == cat_.projects.end()) return false;
    return std::find(p->second.unfetched.begin(), p->second.unfetched.end(), backend) !=
           p->second.unfetched.end();
  }
  std::string AsOf() const override { return cat_.AsOf(); }

  std::vector<std::string> Versions(const std::string& project, const std::string& backend) const override {
    std::vector<std::string> out;
    auto p = cat_.projects.find(project);
    if (p == cat_.projects.end()) return out;
    auto b = p->second.builds.find(backend);
    if (b == p->second.builds.end()) return out;
    for (const auto& [version, tags] : b->second) out.push_back(version);
    return out;
  }

  bool HasWheelFor(const std::string& project, const std::string& backend, const std::string& version,
                   const std::vector<core::Tag>& supported) const override {
    if (supported.empty()) return true;
    auto p = cat_.projects.find(project);
    if (p == cat_.projects.end()) return false;
    auto b = p->second.builds.find(backend);
    if (b == p->second.builds.end()) return false;
    auto v = b->second.find(version);
    if (v == b->second.end()) return false;
    return AnyTagFits(v->second, supported);
  }

 private:
  catalogue::Catalogue cat_;
};

// Live pages of custom backends over another view.
class LivePagesView final : public CatalogueView {
 public:
  LivePagesView(std::unique_ptr<CatalogueView> base, LivePages pages)
      : base_(std::move(base)), pages_(std::move(pages)) {}

  std::vector<BackendView> Backends(const std::string& channel) const override { return base_->Backends(channel); }
  std::vector<std::string> Versions(const std::string& project, const std::string& backend) const override {
    const auto* versions = Find(project, backend);
    if (versions == nullptr) return base_->Versions(project, backend);
    std::vector<std::string> out;
    for (const auto& [version, tags] : *versions) out.push_back(version);
    return out;
  }
  bool HasWheelFor(const std::string& project, const std::string& backend, const std::string& version,
                   const std::vector<core::Tag>& supported) const override {
    const auto* versions = Find(project, backend);
    if (versions == nullptr) return base_->HasWheelFor(project, backend, version, supported);
    if (supported.empty()) return true;
    auto v = versions->find(version);
    return v != versions->end() && AnyTagFits(v->second, supported);
  }
  std::optional<ArchView> Arch(const std::string& backend, const std::string& torch_version,
                               const std::string& cpu_arch) const override {
    return base_->Arch(backend, torch_version, cpu_arch);
  }
  std::optional<core::DriverVersion> DriverFloor(const std::string& backend, core::TargetOs os) const override {
    return base_->DriverFloor(backend, os);
  }
  std::optional<core::DriverVersion> ReleaseDriver(const std::string& backend, core::TargetOs os) const override {
    return base_->ReleaseDriver(backend, os);
  }
  CudaLimits Limits(const std::string& backend) const override { return base_->Limits(backend); }
  bool NotCrawled(const std::string& project, const std::string& backend) const override {
    return Find(project, backend) == nullptr && base_->NotCrawled(project, backend);
  }
  std::string AsOf() const override { return base_->AsOf(); }
  const std::map<std::string, catalogue::CatalogueVariants>* Variants(
      const std::string& project, const std::string& backend) const override {
    return base_->Variants(project, backend);
  }

 private:
  const std::map<std::string, std::vector<std::string>>* Find(const std::string& project,
                                                             const std::string& backend) const {
    auto b = pages_.find(backend);
    if (b == pages_.end()) return nullptr;
    auto p = b->second.find(project);
    return p == b->second.end() ? &kNone : &p->second;
  }
  static inline const std::map<std::string, std::vector<std::string>> kNone = {};
  std::unique_ptr<CatalogueView> base_;
  LivePages pages_;
};

// The catalogue of another index family (generated/family-<name>.json compiled in, or an
// override's): its own backends, versions and wheel tags; driver floors from what the family
// documents (data/indexes.json "driver_floors"), else NVIDIA's minor-version-compatibility
// floor of the toolkit's major, as for PyTorch; arch lists are not known (not checked).
class FamilyView final : public CatalogueView {
 public:
  FamilyView(const table::FamilyRow& family, catalogue::Catalogue cat) : family_(family), cat_(std::move(cat)) {}

  std::vector<BackendView> Backends(const std::string&) const override {
    std::vector<BackendView> out;
    for (const auto& [name, b] : cat_.backends) {
      if (b.legacy || !core::OffersBuilds(b.state)) continue;
      out.push_back({name, core::ParseBackendKind(b.kind).value_or(core::BackendKind::kOther), b.toolkit});
    }
    return out;
  }
  std::vector<std::string> Versions(const std::string& project, const std::string& backend) const override {
    std::vector<std::string> out;
    if (const catalogue::VersionTags* versions = Find(project, backend)) {
      for (const auto& [version, tags] : *versions) out.push_back(version);
    }
    return out;
  }
  bool HasWheelFor(const std::string& project, const std::string& backend, const std::string& version,
                   const std::vector<core::Tag>& supported) const override {
    if (supported.empty()) return true;
    const catalogue::VersionTags* versions = Find(project, backend);
    if (versions == nullptr) return false;
    auto v = versions->find(version);
    return v != versions->end() && AnyTagFits(v->second, supported);
  }
  std::optional<ArchView> Arch(const std::string&, const std::string&, const std::string&) const override {
    return std::nullopt;
  }
  std::optional<core::DriverVersion> DriverFloor(const std::string& backend, core::TargetOs os) const override {
    for (const table::FamilyFloorRow& row : table::FloorsOf(family_)) {
      if (row.backend != backend) continue;
      const core::DriverVersion& floor = os == core::TargetOs::kWindows ? row.windows_floor : row.linux_floor;
      if (floor.known()) return floor;
    }
    const std::optional<std::pair<unsigned, unsigned>> toolkit = Toolkit(backend);
    if (!toolkit) return std::nullopt;
    if (std::optional<core::DriverVersion> floor = table::MajorFloor(toolkit->first, os)) return floor;
    return ReleaseDriver(backend, os);
  }
  std::optional<core::DriverVersion> ReleaseDriver(const std::string& backend, core::TargetOs os) const override {
    const std::optional<std::pair<unsigned, unsigned>> toolkit = Toolkit(backend);
    if (!toolkit) return std::nullopt;
    for (const CudaDriverRow& row : CudaDriverRows()) {
      if (row.cuda_major != toolkit->first || row.cuda_minor != toolkit->second) continue;
      const core::DriverVersion& driver = os == core::TargetOs::kWindows ? row.windows_min : row.linux_min;
      if (driver.known()) return driver;
    }
    return std::nullopt;
  }
  CudaLimits Limits(const std::string& backend) const override {
    CudaLimits limits;
    const std::span<const core::ComputeCapability> integrated = table::IntegratedCapabilities();
    limits.integrated.assign(integrated.begin(), integrated.end());
    // What a CUDA toolkit can build does not depend on the family: the package table's backend
    // of the same toolkit answers, when it has one.
    auto b = cat_.backends.find(backend);
    if (b == cat_.backends.end() || b->second.kind != "cuda") return limits;
    for (const table::BackendRow& row : table::Backends()) {
      if (row.kind != core::BackendKind::kCuda || row.toolkit != b->second.toolkit) continue;
      if (const std::optional<table::ArchTargets> targets = table::ToolkitTargets(row.name)) {
        for (std::size_t i = 0; i < targets->targets.size(); ++i) {
          if (auto cc = targets->Capability(i)) limits.toolkit_targets.push_back(*cc);
        }
        std::sort(limits.toolkit_targets.begin(), limits.toolkit_targets.end());
        break;
      }
    }
    return limits;
  }
  bool NotCrawled(const std::string& project, const std::string& backend) const override {
    auto p = cat_.projects.find(project);
    if (p == cat_.projects.end()) return false;
    return std::find(p->second.unfetched.begin(), p->second.unfetched.end(), backend) != p->second.unfetched.end();
  }
  std::string AsOf() const override { return cat_.AsOf(); }

 private:
  const catalogue::VersionTags* Find(const std::string& project, const std::string& backend) const {
    auto p = cat_.projects.find(project);
    if (p == cat_.projects.end()) return nullptr;
    auto b = p->second.builds.find(backend);
    return b == p->second.builds.end() ? nullptr : &b->second;
  }
  // "12.6" of a CUDA backend as {12, 6}.
  std::optional<std::pair<unsigned, unsigned>> Toolkit(const std::string& backend) const {
    auto b = cat_.backends.find(backend);
    if (b == cat_.backends.end() || b->second.kind != "cuda") return std::nullopt;
    const std::string& text = b->second.toolkit;
    const std::size_t dot = text.find('.');
    if (dot == std::string::npos || dot == 0 || dot + 1 >= text.size()) return std::nullopt;
    unsigned major = 0, minor = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
      if (i == dot) continue;
      if (text[i] < '0' || text[i] > '9') return std::nullopt;
      (i < dot ? major : minor) = (i < dot ? major : minor) * 10 + static_cast<unsigned>(text[i] - '0');
    }
    return std::pair{major, minor};
  }

  const table::FamilyRow& family_;
  catalogue::Catalogue cat_;
};

}  // namespace

std::unique_ptr<CatalogueView> WithLivePages(std::unique_ptr<CatalogueView> view, LivePages pages) {
  if (pages.empty()) return view;
  return std::make_unique<LivePagesView>(std::move(view), std::move(pages));
}

bool CatalogueSource::IsRouted(const std::string& normalized_name) const {
  return std::binary_search(routed.begin(), routed.end(), normalized_name);
}

bool CatalogueSource::HoldsChannel(const std::string& channel) const {
  return channel_views.contains(channel);
}

const CatalogueView& CatalogueSource::ViewFor(const std::string& channel) const {
  auto it = channel_views.find(channel);
  return it == channel_views.end() || it->second == nullptr ? *view : *it->second;
}

std::string CatalogueSource::ChannelPath(const std::string& channel) const {
  auto it = channel_paths.find(channel);
  return it == channel_paths.end() ? std::string() : it->second;
}

std::vector<std::string> CatalogueSource::BackendNames(const std::string& channel) const {
  std::vector<std::string> out;
  for (const BackendView& b : ViewFor(channel).Backends(channel)) out.push_back(b.name);
  std::sort(out.begin(), out.end());
  return out;
}

namespace {

// The end of both loaders: the override files' routed.add/remove applied to the catalogue's
// routed names (name -> reason, origin), and the files named in the description.
void FinishSource(const EffectiveOverrides& overrides,
                  std::map<std::string, std::pair<std::string, std::string>> routed,
                  CatalogueSource& source) {
  for (const auto& [name, sourced] : overrides.routed_add) routed[name] = {sourced.value, sourced.origin};
  for (const auto& [name, sourced] : overrides.routed_remove) routed.erase(name);
  for (const auto& [name, why] : routed) {
    source.routed.push_back(name);
    source.routed_reasons.emplace_back(name, why.first);
    source.routed_origins.emplace_back(name, why.second);
  }
  if (!overrides.files.empty()) {
    source.description += "; overrides: ";
    for (std::size_t i = 0; i < overrides.files.size(); ++i) source.description += (i ? ", " : "") + overrides.files[i];
  }
}

}  // namespace

core::Expected<CatalogueSource> LoadCatalogueSource(const EffectiveOverrides& overrides) {
  CatalogueSource source;
  std::map<std::string, std::pair<std::string, std::string>> routed;  // name -> reason, origin
  if (overrides.catalogue) {
    auto cat = catalogue::LoadCatalogueJson(overrides.catalogue->value);
    if (!cat) return core::MakeError(cat.error().message + " (named by " + overrides.catalogue->origin + ")");
    for (const auto& [name, p] : cat->projects) {
      if (p.cls == "routed" || p.cls == "companion") routed[name] = {p.reason, overrides.catalogue->value};
    }
    source.description = overrides.catalogue->value + " (" + cat->channel + " channel of " +
                         (cat->index_url.empty() ? std::string("the index") : cat->index_url) +
                         " as of " + cat->AsOf() + "), named by " + overrides.catalogue->origin;
    const std::string channel = cat->channel;
    source.view = std::make_unique<JsonView>(overrides, std::move(cat).value());
    source.channel_views[channel] = nullptr;  // the file's own channel: answered by `view`
  } else {
    for (const table::ProjectRow& p : table::Projects()) {
      if (p.project_class == table::ProjectClass::kRouted || p.project_class == table::ProjectClass::kCompanion) {
        routed[std::string(p.name)] = {std::string(p.reason), "embedded"};
      }
    }
    // Every channel of the table with a backend to choose: a channel whose pages were all
    // missing when it was crawled holds nothing to decide from.
    std::string channels;
    for (std::string_view channel : table::Channels()) {
      const bool any = std::any_of(
          table::Backends().begin(), table::Backends().end(), [&](const table::BackendRow& b) {
            return !b.legacy && OffersBuildsIn(b, channel);
          });
      if (!any) continue;
      channels += (channels.empty() ? "" : ", ") + std::string(channel);
      source.channel_views[std::string(channel)] =
          std::make_unique<TableView>(overrides, std::string(channel));
    }
    source.description =
        "embedded table (" + channels + " of " +
        std::string(table::CatalogueIndexUrl().empty() ? "the index" : table::CatalogueIndexUrl()) +
        " as of " + std::string(table::CatalogueAsOf()) +
        (table::CatalogueSnapshot().empty() ? "" : ", from a snapshot") + ")";
    source.view = std::make_unique<TableView>(overrides, "stable");
  }
  FinishSource(overrides, std::move(routed), source);
  return source;
}

core::Expected<CatalogueSource> LoadFamilyCatalogueSource(const EffectiveOverrides& overrides,
                                                          const std::string& family) {
  if (family == "pytorch") return LoadCatalogueSource(overrides);
  const table::FamilyRow* row = table::FindFamily(family);
  if (row == nullptr) {
    std::vector<std::string> known;
    for (const table::FamilyRow& f : table::Families()) known.emplace_back(f.name);
    std::string list;
    for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
    return core::MakeError("--family " + family + ": no such index family" + core::DidYouMean(family, known) +
                               "; known families (data/indexes.json): " + list,
                           core::ErrorCode::kUsage);
  }
  if (!overrides.custom_backends.empty()) {
    const auto& [name, sourced] = *overrides.custom_backends.begin();
    return core::MakeError(sourced.origin + ": /families/" + family + "/backends/" + name +
                               ": custom backends are not supported for index family " + family +
                               " (only for pytorch); give the backend's \"url\" without \"kind\" to move a known one",
                           core::ErrorCode::kBadInputFile);
  }
  CatalogueSource source;
  source.family = family;
  source.primary = std::string(row->primary);
  source.default_base_url = std::string(row->base_url);
  source.upstream_hosts.clear();
  for (std::string_view host : table::HostsOf(*row)) source.upstream_hosts.emplace_back(host);
  source.channel_paths.clear();
  for (const table::FamilyChannelRow& c : table::ChannelsOf(*row)) source.channel_paths[std::string(c.name)] = c.path;

  core::Expected<catalogue::Catalogue> cat = core::MakeError("");
  std::string description;
  if (overrides.catalogue) {
    cat = catalogue::LoadCatalogueJson(overrides.catalogue->value);
    if (!cat) return core::MakeError(cat.error().message + " (named by " + overrides.catalogue->origin + ")");
    description = overrides.catalogue->value;
  } else if (!row->catalogue.empty()) {
    cat = catalogue::ParseCatalogueJson(row->catalogue, row->catalogue_file);
    if (!cat) return cat.error();
    description = "embedded catalogue";
  } else {
    return core::MakeError("index family " + family + ": this build of torchdex has no catalogue of it (" +
                               "generated/family-" + family + ".json was not crawled); crawl one with " +
                               "`torchdex-crawl crawl --family " + family + " --export FILE` and name it with " +
                               "{\"families\": {\"" + family + "\": {\"catalogue\": FILE}}} in an override file " +
                               "(docs/families.md)",
                           core::ErrorCode::kBadInputFile);
  }
  if (cat->family != family) {
    return core::MakeError(description + ": /provenance/family: \"" + cat->family +
                               "\", but it was given as the catalogue of index family " + family,
                           core::ErrorCode::kBadInputFile);
  }
  std::map<std::string, std::pair<std::string, std::string>> routed;  // name -> reason, origin
  const std::string origin = overrides.catalogue ? overrides.catalogue->value : "embedded";
  for (const auto& [name, p] : cat->projects) {
    if (p.cls == "routed" || p.cls == "companion") routed[name] = {p.reason, origin};
  }
  for (const table::FamilyRoutedRow& r : table::RoutedOf(*row)) {
    routed.emplace(std::string(r.name), std::pair{std::string(r.reason) + " (source: " + std::string(r.source) + ")",
                                                  std::string("data/indexes.json")});
  }
  source.description = family + " family: " + description + " (" + cat->channel + " channel of " +
                       (cat->index_url.empty() ? std::string(row->base_url) : cat->index_url) + " as of " +
                       cat->AsOf() + (cat->snapshot.empty() ? "" : ", from a snapshot") + ")" +
                       (overrides.catalogue ? ", named by " + overrides.catalogue->origin : "");
  const std::string channel = cat->channel;
  source.view = std::make_unique<FamilyView>(*row, std::move(cat).value());
  source.channel_views[channel] = nullptr;
  FinishSource(overrides, std::move(routed), source);
  return source;
}

std::string ClosestBackend(const std::string& name, const std::vector<std::string>& known) {
  return core::DidYouMean(name, known, /*quote=*/false);
}

}  // namespace torchdex::installer
