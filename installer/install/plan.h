// The install plan (docs/install.md): every routed requirement resolved to one exact
// wheel (URL and sha256) on the chosen backend's live index page, its routed dependencies
// followed through PEP 658 metadata until the set is closed. Everything else is passed through
// untouched, for the installer to take from the user's default index. A routed name is never
// looked up on the default index: that is the dependency-confusion hole of --extra-index-url
// (the December 2022 `torchtriton` attack on the nightly index).
#ifndef TORCHDEX_INSTALLER_INSTALL_PLAN_H_
#define TORCHDEX_INSTALLER_INSTALL_PLAN_H_

#include <set>
#include <string>
#include <vector>

#include "catalogue/variants.h"
#include "core/expected.h"
#include "core/requirement.h"
#include "core/specifier.h"
#include "core/tags.h"
#include "index/fetcher.h"

namespace torchdex::installer {

class CatalogueView;

/// Where versions come from without the network (`--dry-run --offline`): the compiled table.
/// It knows versions and whether a build fits the tags, not URLs, hashes or dependencies.
class OfflineVersionsSource {
 public:
  virtual ~OfflineVersionsSource() = default;
  /// Every version `backend` offers of `project` (normalised name), normal form with local label.
  virtual std::vector<std::string> Versions(const std::string& project,
                                            const std::string& backend) const = 0;
  virtual bool HasWheelFor(const std::string& project, const std::string& backend,
                           const std::string& version,
                           const std::vector<core::Tag>& supported) const = 0;
};

/// The offline source over selection's CatalogueView (the compiled table or an override one).
class CatalogueVersionsSource final : public OfflineVersionsSource {
 public:
  explicit CatalogueVersionsSource(const CatalogueView& catalogue) : catalogue_(catalogue) {}
  std::vector<std::string> Versions(const std::string& project,
                                    const std::string& backend) const override;
  bool HasWheelFor(const std::string& project, const std::string& backend,
                   const std::string& version,
                   const std::vector<core::Tag>& supported) const override;

 private:
  const CatalogueView& catalogue_;
};

struct PlanRequest {
  std::vector<core::Requirement> routed;  // the routed requirements the user asked for
  std::vector<core::AskedRequirement> other;  // everything else, passed through as written
  /// Normalised names of every routed project (catalogue + overrides): a dependency with one of
  /// these names is resolved on the backend too, never left to the default index.
  std::set<std::string> routed_projects;

  std::string backend;            // "cu124"
  std::string backend_index_url;  // BackendIndexUrl(...): ".../whl/cu124/"; '/' added if missing
  std::string default_index_url;  // the user's index for everything else; "" = the installer's own
  std::vector<std::string> trusted_hosts;  // plain-HTTP hosts the user trusts (overrides)
  /// A mirror of the family (override files): links on its pages to the family's own hosts
  /// are fetched from the mirror instead, and links to any other host are refused unless
  /// trusted, so nothing leaves the mirror.
  std::string mirror_url;
  std::string upstream_base;                // "https://download.pytorch.org/whl/"
  std::vector<std::string> upstream_hosts;  // "download.pytorch.org", "download-r2.pytorch.org"

  std::vector<core::Tag> supported_tags;  // the target interpreter's, most preferred first
  core::MarkerEnvironment markers;        // the target interpreter's
  std::string target_description;         // "CPython 3.12.4 (/venv/bin/python)"

  /// The host's AMD gfx targets ("gfx1100"), for wheels whose device code is a dependency
  /// (ROCm >= 7.14, rocm_devices.h); empty when no AMD GPU was detected.
  std::vector<std::string> gfx_targets;

  /// Pre-release policy of the channel: kAllow for nightly and test, kDefault for stable.
  core::Prereleases prereleases = core::Prereleases::kDefault;

  /// Set: plan from this source instead of live pages (no URLs, hashes or dependencies).
  const OfflineVersionsSource* offline = nullptr;

  /// Set: the backend is a variant index (PEP 825). Wheels with a variant label are read, each
  /// version's `{name}-{version}-variants.json` is fetched from the page, and the wheel of the
  /// most preferred variant these properties support is planned (the null variant last, then
  /// wheels without a label). Unset: wheels with a label are not wheels of this backend.
  const catalogue::SupportedProperties* variant_properties = nullptr;
};

/// The mirror rule: with a mirror of the family (override files), a link to one of the
/// family's own hosts is read from the mirror instead (the same path under the mirror's base:
/// https://download.pytorch.org/whl/nightly/cu128/x.whl is <mirror>nightly/cu128/x.whl), and a
/// file on any other host is refused unless trusted, so nothing leaves the mirror. Without a
/// mirror both change nothing. The planner and the routing index apply it alike.
struct MirrorRule {
  std::string mirror_url;  // "" = no mirror
  std::string upstream_base;
  std::vector<std::string> upstream_hosts;
  std::vector<std::string> trusted_hosts;

  /// The URL to read `url` from: on the mirror for the family's hosts, else `url`.
  std::string Rewrite(const std::string& url) const;
  /// An error naming `what`, the URL and the mirror when `url` is neither on the mirror nor on
  /// a trusted host.
  core::Status Check(const std::string& url, const std::string& what) const;
};

/// The request's mirror rule.
MirrorRule MirrorOf(const PlanRequest& request);

struct PlannedWheel {
  std::string name;      // normalised
  std::string version;   // normal form, "2.5.1+cu124"
  std::string filename;  // "torch-2.5.1+cu124-cp312-cp312-linux_x86_64.whl"; "" offline
  std::string url;       // without fragment; "" offline
  std::string sha256;    // lower-case hex from the page; "" when the page gives none
  /// What the direct reference carries: the link's hash as pip reads it ("sha256=HEX",
  /// "md5=HEX"; index::Anchor::hash), "" when the page gives none.
  std::string hash;
  std::string page_url;  // the backend page it came from
  /// Why it is in the plan: "you asked torch>=2.5", "torchvision 0.20.1+cu124 needs torch==2.5.1".
  std::vector<std::string> required_by;
  /// The routed projects of the plan that require it ("torchvision"), sorted; empty when only
  /// the user asked for it.
  std::vector<std::string> needed_by = {};
  /// When only dependencies' markers bring it in (triton: `platform_system == "Linux"` of
  /// torch's Requires-Dist), those markers joined by "or"; "" when it is needed unconditionally
  /// or was asked for.
  std::string dependency_marker = {};
  std::vector<std::string> extras = {};  // the extras the user asked of it ("opt-einsum"), sorted
  std::string marker = {};               // the user's marker as written (true for the target)
  /// Device code chosen for it (ROCm >= 7.14: "gfx1100 only (torch[gfx1100], ...)"),
  /// "" when the wheel bundles its own.
  std::string device_note = {};
  /// On a variant index: the label ("cuda12.8", "null"; "" for a wheel without one), what
  /// decided it, and the version's variants.json (URL and sha256, its schema).
  std::string variant_label = {};
  std::string variant_decided_by = {};
  std::string variants_json_url = {};
  std::string variants_json_sha256 = {};
  std::string variants_json_schema = {};
  /// The variants.json as read, canonical (catalogue::VariantsJsonToString), for a lock file.
  std::string variants_json = {};
  /// Every variant of the version in the order chosen: "cuda12.8", ..., then "cuda13.0
  /// (incompatible: ...)".
  std::vector<std::string> variant_ranking = {};
  /// Whether its PEP 658 metadata was read (so `requires_elsewhere` is known); false offline,
  /// or when the page gives none.
  bool metadata_read = false;
  /// Its Requires-Dist that apply to the target (markers evaluated with its extras) and are
  /// not routed, markers dropped: "filelock", "nvidia-cudnn-cu12==9.10.2.21". The default
  /// index's business; a lock of a variant wheel hands them to the resolver in its place.
  std::vector<std::string> requires_elsewhere = {};
};

struct InstallPlan {
  std::string backend;
  std::string backend_index_url;
  std::string default_index_url;
  std::vector<std::string> trusted_hosts;
  std::string target_description;
  bool offline = false;
  std::vector<PlannedWheel> routed;  // sorted by name
  std::vector<std::string> other;    // as given
  std::vector<std::string> warnings;
};

/// Resolves the request. `fetcher` may be null only when `request.offline` is set.
/// Errors say what and where: the page or metadata URL, the HTTP outcome, the versions there,
/// and for conflicts who needs what ("torchvision 0.20.1+cu124 needs torch==2.5.1; you asked
/// torch>=2.6").
core::Expected<InstallPlan> MakePlan(const PlanRequest& request, index::Fetcher* fetcher);

/// The plan as text for `--dry-run` and `--explain`: backend, each routed wheel with URL and
/// hash and why it is there, the requirements passed through, the warnings.
std::string FormatPlan(const InstallPlan& plan);

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_INSTALL_PLAN_H_
