// Where selection and installation get the catalogue from: the table compiled into torchdex,
// replaced by a newer catalogue.json when an override file names one, and extended by the
// override files (custom backends, routed packages added or removed).
#ifndef TORCHDEX_INSTALLER_SELECT_CATALOGUE_SOURCE_H_
#define TORCHDEX_INSTALLER_SELECT_CATALOGUE_SOURCE_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/expected.h"
#include "installer/override_files/override_files.h"
#include "installer/select/selection.h"

namespace torchdex::installer {

struct CatalogueSource {
  /// The index family (data/indexes.json) the catalogue describes: "pytorch", "paddle".
  std::string family = "pytorch";
  /// The project that ranks the backends and is asked when nothing is named.
  std::string primary = "torch";
  /// Each channel's path under the base URL ("" for PyTorch's stable, "stable/" for Paddle's).
  std::map<std::string, std::string> channel_paths = {{"stable", ""}, {"test", "test/"}, {"nightly", "nightly/"}};
  std::unique_ptr<CatalogueView> view;  // the stable channel (or the override file's catalogue)
  /// The channels whose versions the catalogue holds, each with its view (null: `view`).
  std::map<std::string, std::unique_ptr<CatalogueView>> channel_views;
  std::string
      description;  // "embedded table (stable channel of https://.../whl/ as of 2026-03-15, ...)"
  std::string default_base_url = "https://download.pytorch.org/whl/";
  /// The hosts the family's pages link to (data/indexes.json "hosts"): a mirror serves their
  /// files under its own base URL.
  std::vector<std::string> upstream_hosts = {"download.pytorch.org", "download-r2.pytorch.org"};
  /// Routed or companion after the overrides: never taken from the default index.
  std::vector<std::string> routed;  // sorted, normalised
  /// Why each routed project is routed, and where that came from ("embedded" or a file).
  std::vector<std::pair<std::string, std::string>> routed_reasons;
  std::vector<std::pair<std::string, std::string>> routed_origins;

  bool IsRouted(const std::string& normalized_name) const;
  /// Whether the catalogue holds `channel`'s versions (else the live index decides them).
  bool HoldsChannel(const std::string& channel) const;
  /// The view of `channel`, or `view` when the catalogue does not hold it.
  const CatalogueView& ViewFor(const std::string& channel) const;
  /// The path of `channel`'s backends under the base URL.
  std::string ChannelPath(const std::string& channel) const;
  /// Every backend name the catalogue knows in `channel` (for "did you mean" and listings).
  std::vector<std::string> BackendNames(const std::string& channel) const;
};

/// What custom backends' own index pages offer, read live (the catalogue cannot know them):
/// backend -> project -> version -> the tag spellings of its wheels.
using LivePages = std::map<std::string, std::map<std::string, std::map<std::string, std::vector<std::string>>>>;

/// `view` with the live pages answering Versions and HasWheelFor for the backends they hold.
std::unique_ptr<CatalogueView> WithLivePages(std::unique_ptr<CatalogueView> view, LivePages pages);

/// The embedded table, or the catalogue.json the overrides name, with the overrides applied.
/// Errors name the file (a catalogue.json that does not parse, a custom backend without what
/// selection needs).
core::Expected<CatalogueSource> LoadCatalogueSource(const EffectiveOverrides& overrides);

/// The catalogue of index family `family`: the package table's family ("pytorch") is
/// LoadCatalogueSource; another family's is the catalogue compiled in for it
/// (generated/family-<name>.json) or the one its override section names, with the family's
/// base URL, hosts, channels, primary project, routed projects and driver floors
/// (generated/family_table.inc). `overrides` are the family's (OverridesForFamily). An unknown
/// family is a usage error listing the known ones; a family without a catalogue, an error
/// saying how to give one.
core::Expected<CatalogueSource> LoadFamilyCatalogueSource(const EffectiveOverrides& overrides,
                                                          const std::string& family);

/// "cu12" -> "did you mean cu126?" over `known`; empty when nothing is close.
std::string ClosestBackend(const std::string& name, const std::vector<std::string>& known);

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_SELECT_CATALOGUE_SOURCE_H_
