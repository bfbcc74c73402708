// Choosing a wheel variant from the catalogue (PEP 825, docs/variants.md): `select
// --torch-backend variant` over the variants.json files a crawl of the variant index stored,
// ranked by catalogue::RankVariants, the ordering `install` applies to the live pages. Pure.
#ifndef TORCHDEX_INSTALLER_SELECT_VARIANT_CHOICE_H_
#define TORCHDEX_INSTALLER_SELECT_VARIANT_CHOICE_H_

#include <map>
#include <string>
#include <vector>

#include "catalogue/catalogue.h"
#include "catalogue/variants.h"
#include "core/expected.h"
#include "core/requirement.h"
#include "core/tags.h"

namespace torchdex::installer {

struct VariantChoice {
  std::string version;     // "2.11.0"
  std::string label;       // "cuda13.0"
  std::string decided_by;  // catalogue::DecidingProperty
  /// Every variant of the version in the order chosen, the incompatible ones with why:
  /// "cuda12.8", ..., "cuda13.0 (incompatible: nvidia :: ...)".
  std::vector<std::string> ranking;
  const catalogue::CatalogueVariants* file = nullptr;  // the version's variants.json
  std::vector<std::string> warnings;  // labels of wheels the file lacks, versions passed over
};

/// The newest version of `project` that `requirement` allows (pre-releases when `prereleases`
/// or the requirement names one) with a wheel for `supported` (every wheel when empty) whose
/// label is compatible with `host`, and its most preferred such variant. Errors (kNotOffered)
/// say what the versions offer.
core::Expected<VariantChoice> ChooseVariant(
    const std::map<std::string, catalogue::CatalogueVariants>& versions, const std::string& project,
    const core::Requirement& requirement, bool prereleases, const std::vector<core::Tag>& supported,
    const catalogue::SupportedProperties& host);

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_SELECT_VARIANT_CHOICE_H_
