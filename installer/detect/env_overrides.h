// Environment variables that replace detected facts, for CI images and `docker build` with no
// GPU: torchdex's own, plus uv's and conda's so existing CI settings keep working. An empty (or
// all-blank) value means "absent". A malformed value is an error naming the variable.
//
//   TORCHDEX_CUDA_DRIVER_VERSION  driver version, "550.144.03"      (wins over
//   UV_CUDA_DRIVER_VERSION) UV_CUDA_DRIVER_VERSION        driver version, as uv reads it
//   CONDA_OVERRIDE_CUDA           a CUDA version, "12.8": the newest CUDA the driver supports
//   TORCHDEX_CUDA_ARCH            compute capabilities, "8.6,9.0": one GPU each
//   TORCHDEX_AMD_GPU_ARCH         gfx targets, "gfx1100,gfx90a"    (wins over
//   UV_AMD_GPU_ARCHITECTURE) UV_AMD_GPU_ARCHITECTURE       one gfx target, as uv reads it
//   TORCHDEX_XPU                  0 or 1: no Intel XPU / an Intel XPU
#ifndef TORCHDEX_INSTALLER_DETECT_ENV_OVERRIDES_H_
#define TORCHDEX_INSTALLER_DETECT_ENV_OVERRIDES_H_

#include <optional>
#include <string>
#include <vector>

#include "core/accelerator.h"
#include "core/expected.h"
#include "installer/platform/environment.h"

namespace torchdex::installer {

struct OverrideValue {
  std::string variable;  // "TORCHDEX_CUDA_DRIVER_VERSION"
  std::string value;     // as given, trimmed
};

struct Overrides {
  std::optional<OverrideValue> driver_version;
  std::optional<core::DriverVersion> driver;  // driver_version, parsed
  std::optional<OverrideValue> cuda_version;
  std::optional<OverrideValue> cuda_arch;
  std::vector<core::ComputeCapability> cuda_arch_list;
  std::optional<OverrideValue> amd_gfx;
  std::vector<std::string> amd_gfx_list;
  std::optional<OverrideValue> xpu;
  bool xpu_enabled = false;

  bool AnyNvidia() const { return driver_version || cuda_version || cuda_arch; }
  // Those set, in a fixed order, for the report.
  std::vector<OverrideValue> Applied() const;
};

core::Expected<Overrides> ParseOverrides(const Environment& env);

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_DETECT_ENV_OVERRIDES_H_
