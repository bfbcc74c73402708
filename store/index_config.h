// The crawl targets, read from data/indexes.json: index families, their channels, and the
// patterns that tell backend directories (and legacy ones) from projects. Declarative, so a
// new backend never needs a code change.
#ifndef TORCHDEX_STORE_INDEX_CONFIG_H_
#define TORCHDEX_STORE_INDEX_CONFIG_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/accelerator.h"
#include "core/expected.h"

namespace torchdex::catalogue {

/// A PEP 825 variant index of a channel (PyTorch's `test/variant/`): a flat index whose project
/// pages link wheels with a variant label and each version's `{name}-{version}-variants.json`.
/// The crawler stores it as a backend of the channel named `name`, whose wheels are told apart
/// by their labels, and reads every variants.json it links (docs/variants.md).
struct VariantIndex {
  std::string name;  // "variant": the backend name (`--torch-backend variant`)
  std::string path;  // relative to the channel: "variant/"
  std::string reason;
  std::string source;
};

struct Channel {
  std::string name;  // "stable"
  std::string path;  // relative to the base URL: "", "test/", "nightly/"
  std::vector<VariantIndex> variant_indexes = {};
};

struct LegacyPattern {
  std::string pattern;  // ECMAScript regular expression, matched against the whole name
  std::string reason;
};

/// A project the family routes whatever its wheels' local labels say (paddlepaddle-gpu: the same
/// version number on every backend), with why and where that is documented.
struct RoutedProject {
  std::string name;  // PEP 503 normal form
  std::string reason;
  std::string source;
};

struct CompiledPatterns;  // the regular expressions and a memo of answers; index_config.cc

struct IndexFamily {
  std::string name;
  std::string base_url;  // ends with '/'
  std::vector<std::string> hosts;  // hosts that serve the same tree (CDN copies)
  std::vector<Channel> channels;
  std::string backend_pattern;
  std::vector<LegacyPattern> legacy_patterns;
  std::shared_ptr<CompiledPatterns> compiled;  // set by ParseIndexConfig
  std::vector<std::string> not_projects;
  std::vector<std::string> discovery_projects;
  /// Ranks the backends and is asked when nothing is named: "torch", "paddlepaddle-gpu"
  /// (default: the first discovery project).
  std::string primary_project;
  std::vector<RoutedProject> routed_projects;

  const Channel* FindChannel(std::string_view name) const;
  bool IsBackendName(std::string_view dir) const;
  /// Whether `dir` is the name of a variant index of any channel ("variant").
  bool IsVariantIndex(std::string_view dir) const;
  /// The reason when `dir` is a legacy backend directory, nullopt otherwise.
  std::optional<std::string> LegacyReason(std::string_view dir) const;
};

struct IndexConfig {
  std::vector<IndexFamily> families;
};

/// Parses indexes.json; errors name `origin` (the file) and the JSON pointer.
core::Expected<IndexConfig> ParseIndexConfig(std::string_view json, std::string_view origin);
core::Expected<IndexConfig> LoadIndexConfig(const std::string& path);

/// The family named `name`, or a usage error naming `origin` and listing the known families
/// (with "did you mean").
core::Expected<const IndexFamily*> FindFamily(const IndexConfig& config, std::string_view name,
                                              std::string_view origin);

struct BackendName {
  core::BackendKind kind = core::BackendKind::kOther;
  std::string toolkit;  // "12.8" for cu128, "6.2.4" for rocm6.2.4, empty for cpu/xpu
};
/// What a backend directory's name says: cu128 -> CUDA 12.8, cu75 -> 7.5, rocm6.3 -> ROCm 6.3;
/// legacy spellings ("cu121-full", "cpu_pypi_pkg") by their prefix.
BackendName DescribeBackend(std::string_view name);

}  // namespace torchdex::catalogue

#endif  // TORCHDEX_STORE_INDEX_CONFIG_H_
