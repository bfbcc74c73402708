// What an installed torch was built for, read without importing it (issue 31, `torchdex doctor`):
// the local label of its version ("2.5.1+cu124"), else torch/version.py read as text (never
// executed), the authority for a wheel without a label such as PyPI's torch.
#ifndef TORCHDEX_INSTALLER_DOCTOR_TORCH_BUILD_H_
#define TORCHDEX_INSTALLER_DOCTOR_TORCH_BUILD_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/accelerator.h"

namespace torchdex::installer {

/// The assignments of torch/version.py that say what the build is for. A field the file does
/// not assign, or assigns None, is nullopt.
struct TorchVersionFile {
  std::optional<std::string> version;  // __version__ = '2.5.1+cu124'
  std::optional<std::string> cuda;     // cuda: Optional[str] = '12.4'
  std::optional<std::string> hip;      // hip: Optional[str] = '6.2.41133-dd7f95766'
  std::optional<std::string> xpu;      // xpu: Optional[str] = '20250101' (torch 2.7 and later)
  // Whether the file has a `cuda` (a `hip`) line, None or not: every torch's version.py has both.
  bool assigns_cuda = false;
  bool assigns_hip = false;
  /// Lines that are not the expected shape, as "line N: what": said as located warnings.
  std::vector<std::string> warnings;
};

/// Reads the file's text line by line: `NAME = VALUE` or `NAME: TYPE = VALUE`, VALUE a quoted
/// string or None. Imports, __all__ and comments are skipped; anything else that
/// assigns one of the four names is a warning, and the name stays unknown.
TorchVersionFile ParseTorchVersionFile(std::string_view text);

/// The backend a build belongs to: its name ("cu124", "rocm6.2", "cpu", "xpu"), kind, toolkit
/// ("12.4", "6.2"; empty for cpu and xpu) and what said so.
struct TorchBuild {
  std::string backend;
  core::BackendKind kind = core::BackendKind::kOther;
  std::string toolkit;
  std::string source;  // "the local label of 2.5.1+cu124", "/venv/.../torch/version.py: cuda = '12.4'"
};

/// From the local label of `version` ("2.5.1+cu124" -> cu124; "+cpu", "+cpu.cxx11.abi" -> cpu;
/// "+rocm6.2.4" -> rocm6.2.4; "+xpu" -> xpu); nullopt without a label of a backend's shape.
std::optional<TorchBuild> BuildFromLocalLabel(std::string_view version);

/// From version.py (`path` names it in the source): hip before cuda (a ROCm build's file has
/// cuda None), then xpu, else cpu. nullopt when the file assigns neither cuda nor hip, which is
/// not the shape of any torch's version.py.
std::optional<TorchBuild> BuildFromVersionFile(const TorchVersionFile& file, const std::string& path);

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_DOCTOR_TORCH_BUILD_H_
