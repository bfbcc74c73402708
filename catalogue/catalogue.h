// The catalogue: what one channel of an index offers, as the installer and codegen need it.
// Built from the crawler's store (store/read_catalogue.h), written as canonical JSON (generated/catalogue.json), read back for
// diffs and codegen. Its URLs are relative to the index base, so it applies to any mirror.
#ifndef TORCHDEX_CATALOGUE_CATALOGUE_H_
#define TORCHDEX_CATALOGUE_CATALOGUE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/accelerator.h"
#include "core/expected.h"

namespace torchdex::catalogue {

struct CatalogueBackend {
  std::string kind;     // cpu, cuda, rocm, xpu, other
  std::string toolkit;  // "12.8", "6.3", "" for cpu/xpu
  bool legacy = false;
  core::BackendState state = core::BackendState::kOk;
  std::string discovered_from;  // root index, links of torch/
  std::int64_t projects = 0;    // entries of its project list
};

/// version (normal form, with its local label) -> wheel tag sets, as the filenames spell them
using VersionTags = std::map<std::string, std::vector<std::string>>;

/// One variant label of a version on a variant index (PEP 825): its properties as the
/// variants.json gives them ("nvidia :: sm_arch :: 80_real"), and the tag sets of its wheels.
struct CatalogueVariantLabel {
  std::vector<std::string> properties;
  std::vector<std::string> wheels;
};

/// A version's `{name}-{version}-variants.json` on a variant index, as the crawl read it.
struct CatalogueVariants {
  std::string url;     // relative to the index base: "test/variant/torch-2.10.0-variants.json"
  std::string sha256;  // of the file as served
  std::string schema;  // "v0.0.3", "v0.1.1"
  std::vector<std::string> namespace_priorities;       // default-priorities.namespace
  std::map<std::string, CatalogueVariantLabel> labels;  // every label of the file
  /// Labels of wheels that the file lacks (PEP 825: those wheels are incompatible), with the
  /// wheels' tag sets.
  std::map<std::string, std::vector<std::string>> unlisted;
  /// The file itself, canonical (catalogue::VariantsJsonToString): what ranking reads, and what a
  /// lock records. `labels`, `namespace_priorities` and `schema` must say what it says.
  std::string variants_json;
};

struct CatalogueProject {
  std::string cls;  // routed, companion, mirror, stale
  std::string reason;
  std::vector<std::string> listed_in;  // backends whose project list names it
  /// routed and companion projects only: backend -> versions and their wheel tags
  std::map<std::string, VersionTags> builds;
  /// Backends whose list names the project but whose page of it was missing (4xx): what the
  /// backend offers of it is not known, unless from_flat_page has it.
  std::vector<std::string> unfetched;
  /// Backends whose builds come from the flat page ("torch/" at the channel root, with its
  /// hashes in the store) because their own page is missing.
  std::vector<std::string> from_flat_page;
  /// Variant indexes only: backend -> version -> its variants.json and the labels of its wheels.
  std::map<std::string, std::map<std::string, CatalogueVariants>> variants;
};

/// The catalogue entry of a variants.json: the summary (schema, namespace priorities, each
/// label's properties) from the canonical JSON, and the wheels by label. Errors name `where`.
core::Expected<CatalogueVariants> MakeCatalogueVariants(
    std::string url, std::string sha256, std::string_view variants_json,
    const std::map<std::string, std::vector<std::string>>& wheels_by_label, const std::string& where);

struct Catalogue {
  static constexpr int kSchemaVersion = 1;
  std::string family;      // "pytorch"
  std::string channel;     // "stable"
  std::string crawled_from;  // the base URL of the crawl (a mirror, a loopback copy)
  std::string updated_at;    // the newest change of any page (RFC 3339)
  std::string note;          // free text, e.g. "loopback copy of the 2026-03-15 snapshot"
  // What the catalogue stands for, apart from where this crawl fetched it (optional):
  std::string index_url;      // the index it describes: "https://download.pytorch.org/whl/"
  std::string snapshot;       // the copy crawled, when not the live index: "sonatype-...@6278fad0"
  std::string snapshot_date;  // the day the copy was taken (YYYY-MM-DD); empty: live
  /// The date a reader should quote: the snapshot's day, else the day of updated_at.
  std::string AsOf() const {
    return !snapshot_date.empty() ? snapshot_date : updated_at.substr(0, 10);
  }
  std::map<std::string, CatalogueBackend> backends;
  std::map<std::string, CatalogueProject> projects;
};

/// Canonical JSON: sorted keys, two-space indent, arrays of strings on one line, a trailing
/// newline; the same catalogue always gives the same bytes.
std::string WriteCatalogueJson(const Catalogue& catalogue);

/// Reads a catalogue.json; errors name `origin` and the JSON pointer of the problem.
core::Expected<Catalogue> ParseCatalogueJson(std::string_view json, std::string_view origin);
core::Expected<Catalogue> LoadCatalogueJson(const std::string& path);

enum class FileAccess {
  kShared,   // as a new file of the user's: 0666 less the umask
  kPrivate,  // the owner's alone (0600): cache entries
};

/// Writes `content` to `path` atomically: a new temporary file beside it (created with O_EXCL
/// under an unpredictable name, so nothing already in the folder is written through), fsync,
/// renamed over it; a full disk or a kill never leaves a half-written file, and a failure no
/// temporary. Skips the write when the file already holds exactly `content` (and says so
/// through *changed when given). Every file torchdex and torchdex-crawl write for the user
/// (exports, lock files, cache entries) is written so.
core::Status WriteFileAtomically(const std::string& path, std::string_view content,
                                 bool* changed = nullptr, FileAccess access = FileAccess::kShared);

}  // namespace torchdex::catalogue

#endif  // TORCHDEX_CATALOGUE_CATALOGUE_H_
