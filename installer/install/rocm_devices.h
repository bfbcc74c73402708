// ROCm device code as a dependency (ROCm >= 7.14, docs/install.md "ROCm device packages"). From
// ROCm 7.14 torch no longer bundles ROCm: it depends on the `rocm` selector package of TheRock,
// whose extras pull one `rocm-sdk-device-<gfx>` wheel per GPU target (63-480 MB each; TheRock
// docs/packaging/python_packaging.md at 0ec25247: "Users install only the device wheels for
// their GPU target(s)"). Two layouts are served:
//
//   the PyTorch index (rocm7.14):   Requires-Dist: rocm[libraries,device-all]==7.14.*
//                                   (pytorch/pytorch RFC #191688, PR #190276; the pip log of
//                                   #193979 collects every rocm-sdk-device-gfx*)
//   AMD's multi-arch index:         per-target extras of torch, torch[gfx942] or
//                                   torch[device-gfx942] (research/field-2026.md, uv PR #21683)
//
// Where the wheel offers per-target extras, the plan asks for exactly the host's targets; where
// its base requirements pull every device package, nothing standard can narrow that, and the
// plan says so instead of hiding a 10 GB download. Pure: no I/O.
#ifndef TORCHDEX_INSTALLER_INSTALL_ROCM_DEVICES_H_
#define TORCHDEX_INSTALLER_INSTALL_ROCM_DEVICES_H_

#include <string>
#include <vector>

#include "core/expected.h"
#include "core/requirement.h"

namespace torchdex::installer {

struct DeviceChoice {
  std::vector<std::string> extras;  // to add to the wheel's requirement: {"gfx1100"}
  std::string note;  // what was decided, for the plan ("gfx1100 only (...)"); "" when nothing applies
  std::vector<std::string> warnings;
};

/// What one wheel (`label`: "torch 2.14.0+rocm7.14") needs for device code, from its core
/// metadata (Requires-Dist, Provides-Extra, normalised), the host's gfx targets (empty when no
/// AMD GPU was detected), the extras the user asked of it, and the target's markers. Nothing
/// (an empty choice) for wheels that bundle their device code, as every ROCm build before 7.14.
/// An error (kNotOffered) when the wheel has per-target extras but none for a host target.
core::Expected<DeviceChoice> ChooseRocmDevices(const std::string& label,
                                               const std::vector<core::Requirement>& requires_dist,
                                               const std::vector<std::string>& provides_extra,
                                               const std::vector<std::string>& gfx_targets,
                                               const std::vector<std::string>& asked_extras,
                                               const core::MarkerEnvironment& markers);

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_INSTALL_ROCM_DEVICES_H_
