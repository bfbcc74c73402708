#include "installer/detect/env_overrides.h"

#include "core/text.h"
#include "installer/detect/amd_parsers.h"
#include "installer/detect/nvidia_parsers.h"
#include "installer/platform/text.h"
#include "installer/table/hardware_table.h"

namespace torchdex::installer {
namespace {

std::optional<OverrideValue> Read(const Environment& env, const char* variable) {
  std::optional<std::string> value = Lookup(env, variable);
  if (!value) return std::nullopt;
  const std::string_view trimmed = Trim(*value);
  if (trimmed.empty()) return std::nullopt;
  return OverrideValue{variable, std::string(trimmed)};
}

core::Error Malformed(const OverrideValue& value, const std::string& expected) {
  return core::MakeError(value.variable + "=" + Quote(value.value) + ": " + expected,
                         core::ErrorCode::kBadEnvironment);
}

}  // namespace

std::vector<OverrideValue> Overrides::Applied() const {
  std::vector<OverrideValue> applied;
  for (const auto* value : {&driver_version, &cuda_version, &cuda_arch, &amd_gfx, &xpu}) {
    if (*value) applied.push_back(**value);
  }
  return applied;
}

core::Expected<Overrides> ParseOverrides(const Environment& env) {
  Overrides overrides;

  for (const char* variable : {"TORCHDEX_CUDA_DRIVER_VERSION", "UV_CUDA_DRIVER_VERSION"}) {
    std::optional<OverrideValue> value = Read(env, variable);
    if (!value) continue;
    const std::optional<core::DriverVersion> driver = core::DriverVersion::Parse(value->value);
    if (!driver) {
      return Malformed(*value, "expected a driver version such as 550.144.03");
    }
    if (driver->major() < 100) {
      return Malformed(*value, "expected a driver version such as 550.144.03; " + value->value +
                                   " looks like a CUDA version (set CONDA_OVERRIDE_CUDA for that)");
    }
    overrides.driver_version = value;
    overrides.driver = driver;
    break;
  }

  if (std::optional<OverrideValue> value = Read(env, "CONDA_OVERRIDE_CUDA")) {
    const std::vector<unsigned> numbers = core::ParseDottedNumbers(value->value);
    if (numbers.empty() || numbers.size() > 3 || numbers[0] == 0 || numbers[0] >= 100) {
      return Malformed(*value, "expected a CUDA version such as 12.8");
    }
    // "12" means 12.0, and a patch level ("12.4.1") does not change what the driver supports.
    value->value =
        std::to_string(numbers[0]) + "." + std::to_string(numbers.size() > 1 ? numbers[1] : 0);
    overrides.cuda_version = value;
  }

  if (std::optional<OverrideValue> value = Read(env, "TORCHDEX_CUDA_ARCH")) {
    for (std::string_view entry : Split(value->value, ',')) {
      const std::optional<core::ComputeCapability> cc = core::ComputeCapability::Parse(Trim(entry));
      if (!cc) {
        return Malformed(*value,
                         "expected compute capabilities such as 8.6 or 8.6,9.0 (bad entry " +
                             Quote(Trim(entry)) + ")");
      }
      overrides.cuda_arch_list.push_back(*cc);
    }
    overrides.cuda_arch = value;
  }

  for (const char* variable : {"TORCHDEX_AMD_GPU_ARCH", "UV_AMD_GPU_ARCHITECTURE"}) {
    std::optional<OverrideValue> value = Read(env, variable);
    if (!value) continue;
    const bool single = std::string_view(variable) == "UV_AMD_GPU_ARCHITECTURE";
    const std::vector<std::string_view> entries = Split(value->value, ',');
    if (single && entries.size() != 1) {
      return Malformed(*value, "expected one gfx target such as gfx1100");
    }
    for (std::string_view entry : entries) {
      const std::string gfx = ToLower(Trim(entry));
      if (!IsGfxName(gfx)) {
        return Malformed(*value, std::string("expected ") +
                                     (single ? "a gfx target such as gfx1100"
                                             : "gfx targets such as gfx1100 or gfx1100,gfx90a") +
                                     " (bad entry " + Quote(Trim(entry)) + ")");
      }
      overrides.amd_gfx_list.push_back(gfx);
    }
    overrides.amd_gfx = value;
    break;
  }

  if (std::optional<OverrideValue> value = Read(env, "TORCHDEX_XPU")) {
    if (value->value != "0" && value->value != "1") return Malformed(*value, "expected 0 or 1");
    overrides.xpu_enabled = value->value == "1";
    overrides.xpu = value;
  }
  return overrides;
}

}  // namespace torchdex::installer
