#include "installer/install/rocm_devices.h"

#include <algorithm>
#include <string_view>

#include "core/name.h"
#include "core/text.h"

namespace torchdex::installer {
namespace {

// "gfx942", "gfx90a", "gfx1100": an LLVM AMDGPU processor name.
bool IsGfx(std::string_view s) {
  if (s.size() < 4 || s.substr(0, 3) != "gfx") return false;
  return std::all_of(s.begin() + 3, s.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
  });
}

// The gfx target an extra stands for ("gfx942" and "device-gfx942" both name gfx942), or "".
std::string ExtraTarget(std::string_view extra) {
  if (IsGfx(extra)) return std::string(extra);
  constexpr std::string_view kDevice = "device-";
  if (extra.substr(0, kDevice.size()) == kDevice && IsGfx(extra.substr(kDevice.size()))) {
    return std::string(extra.substr(kDevice.size()));
  }
  return "";
}

using core::Join;

// The requirement applies without any extra of the wheel (its base dependencies).
core::Expected<bool> InBase(const core::Requirement& r, const core::MarkerEnvironment& markers) {
  if (r.marker.empty()) return true;
  return r.marker.Evaluate(markers, "");
}

}  // namespace

core::Expected<DeviceChoice> ChooseRocmDevices(const std::string& label,
                                               const std::vector<core::Requirement>& requires_dist,
                                               const std::vector<std::string>& provides_extra,
                                               const std::vector<std::string>& gfx_targets,
                                               const std::vector<std::string>& asked_extras,
                                               const core::MarkerEnvironment& markers) {
  DeviceChoice choice;
  // The base requirement that pulls every device package, as the PyTorch index's rocm7.14
  // torch has it: rocm[...,device-all,...] (or the device packages named one by one).
  std::string pulls_all;
  int direct_devices = 0;
  for (const core::Requirement& r : requires_dist) {
    core::Expected<bool> base = InBase(r, markers);
    if (!base) return core::MakeError(label + ": Requires-Dist \"" + r.ToString() + "\": " + base.error().message);
    if (!*base) continue;
    const std::string name = r.NormalizedName();
    if (name == "rocm" &&
        std::find(r.extras.begin(), r.extras.end(), "device-all") != r.extras.end()) {
      pulls_all = r.ToString();
    }
    if (name.rfind("rocm-sdk-device-", 0) == 0) ++direct_devices;
  }
  if (pulls_all.empty() && direct_devices > 1) pulls_all = std::to_string(direct_devices) + " rocm-sdk-device-* packages";

  std::vector<std::string> offered;  // the targets the wheel has an extra for, in its order
  std::vector<std::string> offered_extra;
  for (const std::string& extra : provides_extra) {
    const std::string target = ExtraTarget(core::NormalizeName(extra));
    if (target.empty()) continue;
    offered.push_back(target);
    offered_extra.push_back(core::NormalizeName(extra));
  }
  const std::string host = gfx_targets.empty() ? std::string("no AMD GPU was detected")
                                               : "this host needs only " + Join(gfx_targets);

  if (!pulls_all.empty()) {
    choice.note = "every gfx target (" + pulls_all + " is a base requirement of " +
                  label + ")";
    choice.warnings.push_back(
        label + " requires " + pulls_all +
        ": the installer fetches the device package of every gfx target (rocm-sdk-device-*, "
        "63-480 MB each), though " + host +
        "; an index whose torch offers per-target extras (torch[gfx942]) installs one "
        "(docs/install.md, ROCm device packages)");
    return choice;
  }
  if (offered.empty()) return choice;  // device code bundled in the wheel: nothing to choose

  for (const std::string& asked : asked_extras) {
    if (!ExtraTarget(asked).empty() || asked == "device-all") {
      choice.note = "as asked (" + label + "[" + Join(asked_extras) + "])";
      return choice;
    }
  }
  if (gfx_targets.empty()) {
    choice.note = "none (no AMD GPU was detected)";
    const std::string project = label.substr(0, label.find(' '));
    const bool has_all = std::find(provides_extra.begin(), provides_extra.end(), "device-all") !=
                         provides_extra.end();
    choice.warnings.push_back(label + " installs no device code without one of its extras (" +
                              Join(offered_extra) + ") and no AMD GPU was detected: name one, "
                              "e.g. " + project + "[" + offered_extra.front() + "]" +
                              (has_all ? ", or " + project + "[device-all] for every target" : ""));
    return choice;
  }
  std::vector<std::string> missing;
  for (const std::string& target : gfx_targets) {
    const auto at = std::find(offered.begin(), offered.end(), target);
    if (at == offered.end()) {
      missing.push_back(target);
      continue;
    }
    const std::string& extra = offered_extra[static_cast<size_t>(at - offered.begin())];
    if (std::find(choice.extras.begin(), choice.extras.end(), extra) == choice.extras.end()) {
      choice.extras.push_back(extra);
    }
  }
  if (!missing.empty()) {
    return core::MakeError(label + " offers device code for " + Join(offered) + " (its extras), not for " +
                               Join(missing) + ", the GPU target" + (missing.size() > 1 ? "s" : "") +
                               " of this host",
                           core::ErrorCode::kNotOffered);
  }
  choice.note = "" + Join(gfx_targets) + " only (" + label.substr(0, label.find(' ')) +
                "[" + Join(choice.extras) + "], the wheel's per-target extra" +
                (choice.extras.size() > 1 ? "s" : "") + ")";
  return choice;
}

}  // namespace torchdex::installer
