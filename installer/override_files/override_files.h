// Users' own catalogue files: a mirror of the PyTorch index (Artifactory, Nexus, an internal
// S3), per-backend URLs, custom backends, routed packages added or removed, packages pinned to a
// backend, and a newer catalogue.json replacing the embedded one. JSON with comments; every
// error names the file and the line or JSON pointer; a file with any error is not applied at all.
#ifndef TORCHDEX_INSTALLER_OVERRIDE_FILES_OVERRIDE_FILES_H_
#define TORCHDEX_INSTALLER_OVERRIDE_FILES_OVERRIDE_FILES_H_

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/accelerator.h"
#include "core/expected.h"
#include "installer/platform/file_reader.h"

namespace torchdex::installer {

/// A value and the file it came from ("embedded" for the compiled catalogue).
template <typename T>
struct Sourced {
  T value;
  std::string origin;
};

struct CustomBackend {
  core::BackendKind kind = core::BackendKind::kCpu;
  std::string toolkit;    // "12.6"
  std::string index_url;  // where its packages are
  std::map<core::TargetOs, core::DriverVersion> driver_floor;  // linux/windows -> 560.28.03
  std::vector<core::ComputeCapability> cuda_arch;  // a CUDA backend's cubins
  std::vector<std::string> gfx_arch;               // a ROCm backend's gfx targets
  std::optional<core::ComputeCapability> ptx;      // a CUDA backend's embedded PTX
  /// Whether selection can check GPUs against it (an arch list was given).
  bool HasArchList() const { return !cuda_arch.empty() || !gfx_arch.empty(); }
};

/// One override file, parsed and checked, not yet applied.
struct OverrideFile {
  std::string path;
  std::optional<std::string> mirror;                 // base URL replacing the index's
  std::map<std::string, std::string> backend_urls;   // backend -> its index URL
  std::map<std::string, CustomBackend> custom_backends;
  std::map<std::string, std::string> routed_add;     // project -> reason
  std::map<std::string, std::string> routed_remove;  // project -> reason
  std::map<std::string, std::string> pins;           // project -> backend
  std::optional<std::string> catalogue;              // path of a catalogue.json (relative to the file)
  std::vector<std::string> trusted_hosts;            // plain-HTTP hosts the user trusts
  /// Variant providers (docs/variants.md): namespace -> absolute path of the executable.
  std::map<std::string, std::string> providers;
  /// "families": {"paddle": {...}}: the same keys for another index family (docs/families.md)
  std::map<std::string, std::shared_ptr<const OverrideFile>> families;
  /// "find_links": {"pyg": URL}: the base URL of an index keyed by the chosen torch
  /// (data/dependent-indexes.json), where its pages are read instead (docs/families.md)
  std::map<std::string, std::string> find_links = {};
};

/// What all the files say together, each entry with the file it came from.
struct EffectiveOverrides {
  std::vector<std::string> files;  // in the order applied
  std::optional<Sourced<std::string>> mirror;
  std::map<std::string, Sourced<std::string>> backend_urls;
  std::map<std::string, Sourced<CustomBackend>> custom_backends;
  std::map<std::string, Sourced<std::string>> routed_add;
  std::map<std::string, Sourced<std::string>> routed_remove;
  std::map<std::string, Sourced<std::string>> pins;
  std::optional<Sourced<std::string>> catalogue;
  std::vector<Sourced<std::string>> trusted_hosts;
  std::map<std::string, Sourced<std::string>> providers;  // namespace -> executable
  /// The sections of other index families, per family in the order applied.
  std::map<std::string, std::vector<std::shared_ptr<const OverrideFile>>> families;
  /// "find_links": dependent index name -> base URL.
  std::map<std::string, Sourced<std::string>> find_links = {};
};

/// Parses one file's text. `path` is used in messages and to resolve a relative "catalogue".
core::Expected<OverrideFile> ParseOverrideFile(std::string_view text, const std::string& path);
/// Reads one file through `files` (at most kMaxOverrideFileBytes, a regular file only) and
/// parses it; every error is kBadInputFile and names the file.
inline constexpr std::size_t kMaxOverrideFileBytes = 1 << 20;
core::Expected<OverrideFile> LoadOverrideFile(const FileReader& files, const std::string& path);

/// The files to read, in merge order (later files win, key by key): the user's config folder
/// ($XDG_CONFIG_HOME or ~/.config)/torchdex/catalogue.d/*.json sorted by name, then the paths
/// of TORCHDEX_CATALOGUE (':'-separated), then each --catalogue. `list_dir` lists a folder's
/// *.json files (sorted), so tests need no real home folder.
struct OverrideSources {
  std::string config_home;  // $XDG_CONFIG_HOME, or $HOME/.config
  std::string env_list;     // $TORCHDEX_CATALOGUE
  std::vector<std::string> cli_files;
};
std::vector<std::string> OverrideFilePaths(
    const OverrideSources& sources,
    const std::function<std::vector<std::string>(const std::string&)>& list_dir);

/// Loads and merges `paths` in order. The first file with an error stops everything (and is
/// named); nothing of it, or of later files, is applied.
core::Expected<EffectiveOverrides> LoadOverrides(const FileReader& files, const std::vector<std::string>& paths);

/// Merges one more file into `into`.
void ApplyOverride(const OverrideFile& file, EffectiveOverrides& into);

/// What the files say for index family `family` (the "families" sections): its mirror,
/// backends, routed packages, pins and catalogue; the files' trusted hosts apply to every family.
EffectiveOverrides OverridesForFamily(const EffectiveOverrides& all, const std::string& family);

/// The index URL of `backend` under the overrides: its own URL, else the mirror's base, else
/// `default_base`; always ending in '/'.
std::string BackendIndexUrl(const EffectiveOverrides& overrides, const std::string& default_base,
                            const std::string& channel_path, const std::string& backend);

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_OVERRIDE_FILES_OVERRIDE_FILES_H_
