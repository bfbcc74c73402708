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

enum class ExportFormat { kRequirements, kUv, kPipConf };

/// "requirements", "uv" or "pip-conf"; anything else is an error listing them.
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

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_INSTALL_EXPORT_H_
