// Where selection and installation get the catalogue from: the table compiled into torchdex,
// replaced by a newer catalogue.json when an override file names one, and extended by the
// override files (custom backends, routed packages added or removed).
#ifndef TORCHDEX_INSTALLER_SELECT_CATALOGUE_SOURCE_H_
#define TORCHDEX_INSTALLER_SELECT_CATALOGUE_SOURCE_H_

#include <memory>
#include <string>
#include <vector>

#include "core/expected.h"
#include "installer/override_files/override_files.h"
#include "installer/select/selection.h"

namespace torchdex::installer {

struct CatalogueSource {
  std::unique_ptr<CatalogueView> view;
  std::string
      description;  // "embedded table (stable channel of https://.../whl/ as of 2026-03-15, ...)"
  std::string default_base_url = "https://download.pytorch.org/whl/";
  /// Routed or companion after the overrides: never taken from the default index.
  std::vector<std::string> routed;  // sorted, normalised
  /// Why each routed project is routed, and where that came from ("embedded" or a file).
  std::vector<std::pair<std::string, std::string>> routed_reasons;
  std::vector<std::pair<std::string, std::string>> routed_origins;

  bool IsRouted(const std::string& normalized_name) const;
  /// Every backend name the catalogue knows in `channel` (for "did you mean" and listings).
  std::vector<std::string> BackendNames(const std::string& channel) const;
};

/// The embedded table, or the catalogue.json the overrides name, with the overrides applied.
/// Errors name the file (a catalogue.json that does not parse, a custom backend without what
/// selection needs).
core::Expected<CatalogueSource> LoadCatalogueSource(const EffectiveOverrides& overrides);

/// "cu12" -> "did you mean cu126?" over `known`; empty when nothing is close.
std::string ClosestBackend(const std::string& name, const std::vector<std::string>& known);

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_SELECT_CATALOGUE_SOURCE_H_
