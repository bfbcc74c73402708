// `torchdex export`: the decision handed to other tools and lockfile workflows.
//  requirements: a requirements file, routed packages pinned by URL and hash, a comment header
//                saying what was detected and chosen;
//  uv:           `[[tool.uv.index]]` (explicit) and `[tool.uv.sources]` for pyproject.toml, so uv
//                takes the routed packages from the backend and nothing else from it;
//  pip-conf:     the index settings for pip.conf.
#ifndef TORCHDEX_INSTALLER_INSTALL_EXPORT_H_
#define TORCHDEX_INSTALLER_INSTALL_EXPORT_H_

#include <string>
#include <string_view>
#include <vector>

#include "core/expected.h"
#include "installer/install/plan.h"

namespace torchdex::installer {

enum class ExportFormat { kRequirements, kUv, kPipConf, kUvProject };

/// "requirements", "uv", "pip-conf" or "uv-project"; anything else is an error listing them.
core::Expected<ExportFormat> ParseExportFormat(std::string_view text);

struct ExportContext {
  /// Lines for the comment header, from select: "detected: NVIDIA driver 550.144.03, ...",
  /// "chosen: cu124 (the newest CUDA the driver runs)". Newlines split into more lines.
  std::vector<std::string> header;
};

/// The text for `format`. `requirements` needs wheel URLs, so an offline plan is an error there;
/// the other formats need only the backend URL.
core::Expected<std::string> Export(const InstallPlan& plan, ExportFormat format,
                                   const ExportContext& context);

/// `uv-project`: a pyproject.toml that uv's own PyTorch guide describes
/// (https://docs.astral.sh/uv/guides/integration/pytorch/): an explicit `[[tool.uv.index]]` per
/// backend and `[tool.uv.sources]` for every routed package of the plans. One plan: the
/// requirements are the project's dependencies. Several (one per backend): an optional extra
/// per backend (its name the backend's, normalised: rocm6.3 -> rocm6-3) holding every
/// requirement, routed or not, the sources keyed by extra, and `[tool.uv] conflicts` so that
/// one extra is chosen at a time. Nothing is outside the extras then, so no fork of uv's
/// resolution reaches a routed name without its backend's source.
struct UvProjectRequest {
  std::vector<const InstallPlan*> plans;   // one per backend, in the order asked
  std::vector<std::string> routed_asked;   // routed requirements as written ("torch>=2.5")
  std::vector<std::string> others;         // the rest, as written
  std::string requires_python;             // ">=3.11"
  std::string project_name = "torchdex-project";
};
core::Expected<std::string> ExportUvProject(const UvProjectRequest& request, const ExportContext& context);

/// The uv index name torchdex gives a backend's index: "pytorch-cu124".
std::string UvIndexName(const std::string& backend);

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_INSTALL_EXPORT_H_
