// Wheel variants (PEP 825, "Wheel Variants: Package Format", Draft): the index-level
// `{name}-{version}-variants.json` file, the variant label of a wheel's filename, and the
// variant ordering that picks the most preferred compatible variant for a host's supported
// properties. Pure: text in, values or located errors out (docs/variants.md).
//
// Two schema versions are read:
//   v0.0.3  https://variants-schema.wheelnext.dev/v0.0.3.json: what the repacked PyTorch 2.8-2.11
//           test wheels carry (wheelnext/variant-repack configs/torch-2.*/torch-*-variants.json);
//           it also has `providers` and `static-properties`, and `default-priorities.feature`
//           and `.property`.
//   v0.1.1  https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json: PEP 825 as of 2026-08,
//           `$schema`, `default-priorities.namespace` and `variants` only.
#ifndef TORCHDEX_CATALOGUE_VARIANTS_H_
#define TORCHDEX_CATALOGUE_VARIANTS_H_

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.h"

namespace torchdex::catalogue {

inline constexpr std::string_view kVariantsSchemaV003 =
    "https://variants-schema.wheelnext.dev/v0.0.3.json";
inline constexpr std::string_view kVariantsSchemaV011 =
    "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json";
/// The largest variants.json read: the real ones are about 4 KB.
inline constexpr std::size_t kMaxVariantsJsonBytes = 4u << 20;
/// The most keys one object of it may have (labels, namespaces, features), and the most values
/// one list may (a property's values, a priority list): PyTorch's have about a dozen labels and
/// a few features each. Within these the worst 4 MiB file parses in well under a second
/// (bench/variants_json_bench; issue 29, item 8).
inline constexpr std::size_t kMaxVariantsJsonObjectKeys = 256;
inline constexpr std::size_t kMaxVariantsJsonListItems = 1024;

enum class VariantsSchema { kV003, kV011 };
std::string_view VariantsSchemaName(VariantsSchema schema);  // "v0.0.3", "v0.1.1"

/// One feature and its values, in the order given (most preferred first where it is an order).
struct VariantFeature {
  std::string name;
  std::vector<std::string> values;
};
/// A namespace's features, in the order given.
struct VariantNamespace {
  std::string name;
  std::vector<VariantFeature> features;
};
/// What a variant label stands for: namespace -> feature -> values (any one value of each
/// feature must be supported). Empty for the null variant.
using VariantProperties = std::vector<VariantNamespace>;

struct VariantsJson {
  VariantsSchema schema = VariantsSchema::kV011;
  std::vector<std::string> namespace_priorities;  // default-priorities.namespace
  /// default-priorities.feature (v0.0.3): namespace -> features, most preferred first.
  std::map<std::string, std::vector<std::string>> feature_priorities;
  /// default-priorities.property (v0.0.3): namespace -> feature -> values.
  std::map<std::string, std::map<std::string, std::vector<std::string>>> property_priorities;
  /// static-properties (v0.0.3): namespaces no provider detects, supported as listed.
  VariantProperties static_properties;
  /// providers (v0.0.3): the namespaces it names a provider for, with `plugin-api` ("" for an
  /// install-time: false one). Read for the report only: torchdex runs no Python plugin.
  std::map<std::string, std::string> providers;
  std::map<std::string, VariantProperties> variants;  // label -> properties
};

/// Parses and checks a variants.json. Every error starts with `where` and names the place: a
/// line and column for bad JSON, a JSON pointer for a bad value ("/variants/cuda12.8/nvidia").
core::Expected<VariantsJson> ParseVariantsJson(std::string_view text, const std::string& where);

/// The canonical JSON of a parsed file (keys sorted, the schema it was read in), one line.
std::string VariantsJsonToString(const VariantsJson& file);

/// True when `label` is a valid variant label (`^[0-9a-z_.]+$`; 1-16 characters in v0.0.3).
bool IsVariantLabel(std::string_view label);

/// A wheel filename's variant label (PEP 825: a component after the platform tag), or nullopt
/// for a wheel without one. The rest of the name is what a plain wheel would be.
struct VariantWheelName {
  std::string plain_filename;  // "torch-2.10.0-cp312-cp312-manylinux_2_28_x86_64.whl"
  std::string label;           // "cuda12.8"
};
std::optional<VariantWheelName> SplitVariantLabel(std::string_view filename);

/// `{name}-{version}-variants.json` of a normalised wheel name part and version ("torch",
/// "2.10.0").
std::string VariantsJsonFilename(std::string_view wheel_name, std::string_view version);
/// The same of a wheel's file name: its name and version parts
/// ("torch-2.10.0-cp312-...-cuda12.8.whl" -> "torch-2.10.0-variants.json").
std::string VariantsJsonFilenameOf(std::string_view wheel_filename);

/// Checks that every label on wheels of the version is in the file. The error names the file,
/// the labels missing and the labels it has.
core::Status CheckWheelLabels(const VariantsJson& file, const std::vector<std::string>& labels,
                              const std::string& where);

/// A host's supported properties: per namespace, features with their values, most preferred
/// first (what a provider returns), and who said so.
struct SupportedNamespace {
  std::string name;
  std::string provider;  // "built-in nvidia", "torchdex-provider-acme (/usr/bin/...)"
  std::vector<VariantFeature> features;
};
using SupportedProperties = std::vector<SupportedNamespace>;

/// One property of a variant as ordered: its best supported value, and the indices of its
/// namespace, feature and value in the orders PEP 825 builds (lower is better).
struct RankedProperty {
  std::string ns, feature, value;
  std::size_t ns_index = 0, feature_index = 0, value_index = 0;
  std::string ToString() const { return ns + " :: " + feature + " :: " + value; }
};

struct RankedVariant {
  std::string label;
  bool compatible = false;
  std::string incompatible_because;  // "nvidia :: sm_arch: none of 50_real, 60_real ..."
  std::vector<RankedProperty> key;   // the sort key: best-value properties, sorted
};

/// PEP 825's variant ordering: the compatible variants, most preferred first (the null
/// variant last of them), then the incompatible ones in label order with the reason. The
/// static-properties of a v0.0.3 file count as supported, after `host`.
std::vector<RankedVariant> RankVariants(const VariantsJson& file, const SupportedProperties& host);

/// What decided between the first two compatible variants: the first property of the winner's
/// key that is better than the runner-up's ("nvidia :: cuda_version_lower_bound :: 13.0"), or
/// why it won otherwise ("the only compatible variant", "more properties", "label order").
std::string DecidingProperty(const RankedVariant& winner, const RankedVariant* runner_up);

}  // namespace torchdex::catalogue

#endif  // TORCHDEX_CATALOGUE_VARIANTS_H_
