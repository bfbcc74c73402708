#include "installer/select/variant_choice.h"

#include <algorithm>
#include <set>

#include "core/version.h"
#include "core/wheel.h"

namespace torchdex::installer {
namespace {

// Whether one of the wheel tag sets ("py3-none-any") fits the target (every one when the
// target's tags are not known).
bool Fits(const std::vector<std::string>& wheels, const std::set<core::Tag>& accepted, bool any) {
  for (const std::string& spelled : wheels) {
    if (any) return true;
    auto tags = core::ParseWheelTags(spelled);
    if (!tags) continue;
    for (const core::Tag& t : *tags) {
      if (accepted.contains(t)) return true;
    }
  }
  return false;
}

}  // namespace

core::Expected<VariantChoice> ChooseVariant(
    const std::map<std::string, catalogue::CatalogueVariants>& versions, const std::string& project,
    const core::Requirement& requirement, bool prereleases, const std::vector<core::Tag>& supported,
    const catalogue::SupportedProperties& host) {
  const std::set<core::Tag> accepted(supported.begin(), supported.end());
  const bool any_tags = supported.empty();
  std::vector<core::Version> candidates;
  std::map<std::string, std::string> text_of;  // normal form -> the catalogue's key
  for (const auto& [text, file] : versions) {
    if (auto v = core::Version::Parse(text)) {
      candidates.push_back(*v);
      text_of[v->ToString()] = text;
    }
  }
  std::vector<core::Version> allowed = requirement.specifiers.Filter(
      candidates, prereleases ? core::Prereleases::kAllow : core::Prereleases::kDefault);
  std::sort(allowed.begin(), allowed.end(), [](const core::Version& a, const core::Version& b) { return b < a; });
  std::vector<std::string> passed_over;
  for (const core::Version& version : allowed) {
    const catalogue::CatalogueVariants& file = versions.at(text_of.at(version.ToString()));
    core::Expected<catalogue::VariantsJson> json =
        catalogue::ParseVariantsJson(file.variants_json, file.url);
    if (!json) return json.error();  // the catalogue checked it when it was read
    const std::vector<catalogue::RankedVariant> ranked = catalogue::RankVariants(*json, host);
    const catalogue::RankedVariant* chosen = nullptr;
    const catalogue::RankedVariant* next = nullptr;
    for (const catalogue::RankedVariant& r : ranked) {
      if (!r.compatible) continue;
      if (chosen != nullptr) {
        next = &r;
        break;
      }
      auto label = file.labels.find(r.label);
      if (label != file.labels.end() && Fits(label->second.wheels, accepted, any_tags)) chosen = &r;
    }
    if (chosen == nullptr) {
      passed_over.push_back(version.ToString());
      continue;
    }
    VariantChoice out;
    out.version = version.ToString();
    out.label = chosen->label;
    out.decided_by = catalogue::DecidingProperty(*chosen, next);
    out.file = &file;
    for (const catalogue::RankedVariant& r : ranked) {
      out.ranking.push_back(r.compatible ? r.label
                                         : r.label + " (incompatible: " + r.incompatible_because + ")");
    }
    for (const auto& [label, wheels] : file.unlisted) {
      out.warnings.push_back(project + " " + out.version + ": wheels labelled " + label + " are not in " +
                             file.url + " (PEP 825: never chosen)");
    }
    if (!passed_over.empty()) {
      std::string list;
      for (const std::string& v : passed_over) list += (list.empty() ? "" : ", ") + v;
      out.warnings.push_back(project + " " + list + ": no variant wheel fits this host and target");
    }
    return out;
  }
  std::string offered;
  for (const auto& [text, file] : versions) offered += (offered.empty() ? "" : ", ") + text;
  return core::MakeError(
      "no variant of " + requirement.ToString() + " in the catalogue fits this host and target" +
          (offered.empty() ? std::string() : " (versions with a variants.json: " + offered + ")"),
      core::ErrorCode::kNotOffered);
}

}  // namespace torchdex::installer
