// pip's resolution, checked before pip installs anything (docs/install.md, "The routing
// guarantee"; issue 29, item 3). A package of the default index may require a routed name by a
// direct URL (`Requires-Dist: torch @ https://...`): pip takes it from that URL and never asks
// the routing index. So `torchdex install` with pip first runs `pip install --dry-run --report`
// (https://pip.pypa.io/en/stable/reference/installation-report/) against the routing index, and
// every routed package of that report must be a file the routing index served from the backend
// (RoutingIndex::ServedRouted); one that is not is refused with the chain of packages that asked
// for it. The routed packages the report holds are then pinned by URL and hash on the install's
// own command line, so the install cannot take another. uv needs no such step: it refuses a
// direct URL that only a dependency gives ("URL dependencies must be expressed as direct
// requirements or constraints").
#ifndef TORCHDEX_INSTALLER_INSTALL_INSTALL_REPORT_H_
#define TORCHDEX_INSTALLER_INSTALL_INSTALL_REPORT_H_

#include <string>
#include <string_view>
#include <vector>

#include "core/expected.h"
#include "installer/install/plan.h"
#include "installer/install/routing_index.h"

namespace torchdex::installer {

/// One entry of the report's "install" list.
struct ReportedPackage {
  std::string name;     // normalised
  std::string version;
  std::string url;      // download_info.url
  std::string sha256;   // download_info.archive_info.hashes.sha256 (or its "hash"), lower-case
  bool requested = false;
  bool direct = false;  // is_direct: a URL requirement, not an index's file
  std::vector<std::string> requires_names;  // metadata.requires_dist, the names (normalised)
};

/// The report at `path` (its text `json`), or an error naming it (not JSON, not version 1, a
/// field of the wrong type).
core::Expected<std::vector<ReportedPackage>> ParseInstallReport(std::string_view json, const std::string& path);

/// uv's resolution as `uv pip compile --format pylock.toml` writes it (PEP 751), read for the same
/// check: each package's name, version and file (its wheel, or the archive, sdist, VCS or
/// directory it comes from, which counts as direct). uv records no dependency edges there, so a
/// refusal names no chain.
core::Expected<std::vector<ReportedPackage>> ParseUvResolution(std::string_view toml_text, const std::string& path);

/// "name==version" for every package of `report` that an index gave (not a direct URL): the
/// install's constraints, so that it resolves to exactly what was checked (issue 29: a package
/// that gains a version between the check and the install, one that names torch by URL, is held
/// at the checked one).
std::vector<std::string> ReportedConstraints(const std::vector<ReportedPackage>& report);

/// Every routed package of `report` is a file `index` served from its backend: else an error
/// (exit 4) "torch 99.0.0 from file:///...: not a wheel of backend cu124 (needs-needs-url-torch
/// 1.0, asked -> needs-url-torch 1.0 -> torch); nothing was installed".
core::Status CheckReportRouting(const std::vector<ReportedPackage>& report, const RoutingIndex& index,
                                std::string_view resolver = "pip");

/// The routed packages of `report` that `plan` does not pin already, as wheels to pin.
std::vector<PlannedWheel> ReportedRoutedPins(const std::vector<ReportedPackage>& report, const InstallPlan& plan,
                                             const RoutingIndex& index);

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_INSTALL_INSTALL_REPORT_H_
