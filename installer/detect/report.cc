#include "installer/detect/report.h"

#include <nlohmann/json.hpp>

namespace torchdex::installer {
namespace {

using Json = nlohmann::ordered_json;

Json OrNull(const std::string& text) { return text.empty() ? Json(nullptr) : Json(text); }

const char* DriverTableName(DriverTable table) {
  switch (table) {
    case DriverTable::kLinux:
      return "linux";
    case DriverTable::kWindows:
      return "windows";
    case DriverTable::kNone:
      return nullptr;
  }
  return nullptr;
}

Json NvidiaJson(const NvidiaFacts& nvidia) {
  Json gpus = Json::array();
  for (const NvidiaGpu& gpu : nvidia.gpus) {
    gpus.push_back({{"name", OrNull(gpu.name)},
                    {"compute_capability", gpu.compute_capability ? Json(gpu.compute_capability->ToString()) : Json(nullptr)},
                    {"compute_capability_source", OrNull(gpu.compute_capability_source)},
                    {"pci_bus_id", OrNull(gpu.pci_bus_id)},
                    {"pci_id", OrNull(gpu.pci_id)},
                    {"uuid", OrNull(gpu.uuid)},
                    {"visible", gpu.visible}});
  }
  const char* table = DriverTableName(nvidia.driver_table);
  return {{"driver_version", nvidia.driver_version ? Json(nvidia.driver_version->ToString()) : Json(nullptr)},
          {"driver_source", OrNull(nvidia.driver_source)},
          {"driver_table", table ? Json(table) : Json(nullptr)},
          {"cuda_driver_api", OrNull(nvidia.cuda_driver_api)},
          {"cuda_driver_api_source", OrNull(nvidia.cuda_driver_api_source)},
          {"devices_exposed", nvidia.devices_exposed},
          {"devices_exposed_source", OrNull(nvidia.devices_exposed_source)},
          {"cuda_visible_devices",
           nvidia.cuda_visible_devices ? Json(*nvidia.cuda_visible_devices) : Json(nullptr)},
          {"gpus", gpus}};
}

Json AmdJson(const AmdFacts& amd) {
  Json gpus = Json::array();
  for (const AmdGpu& gpu : amd.gpus) {
    gpus.push_back({{"gfx", gpu.gfx},
                    {"pci_id", OrNull(gpu.pci_id)},
                    {"kfd_node", gpu.kfd_node < 0 ? Json(nullptr) : Json(gpu.kfd_node)}});
  }
  return {{"gfx", amd.gfx},
          {"gfx_source", OrNull(amd.gfx_source)},
          {"rocm_version", OrNull(amd.rocm_version)},
          {"amdgpu_version", OrNull(amd.amdgpu_module_version)},
          {"kfd_access", amd.kfd_access},
          {"gpus", gpus}};
}

Json IntelGpuJson(const IntelGpu& gpu) {
  return {{"pci_id", OrNull(gpu.pci_id)},     {"name", OrNull(gpu.name)},
          {"driver", OrNull(gpu.driver)},     {"pci_bus_id", OrNull(gpu.pci_bus_id)},
          {"platform", OrNull(gpu.platform)}, {"support_level", OrNull(gpu.support_level)},
          {"reason", OrNull(gpu.reason)}};
}

Json IntelJson(const IntelFacts& intel) {
  Json xpu = Json::array();
  for (const IntelGpu& gpu : intel.xpu_devices) xpu.push_back(IntelGpuJson(gpu));
  Json other = Json::array();
  for (const IntelGpu& gpu : intel.other_gpus) other.push_back(IntelGpuJson(gpu));
  return {{"xpu_devices", xpu}, {"other_gpus", other}, {"source", OrNull(intel.source)}};
}

std::string Indent(const std::string& text) { return "  " + text; }

}  // namespace

Json HostFactsJson(const HostFacts& facts) {
  Json root;
  root["os"] = core::TargetOsWord(facts.os);
  root["arch"] = facts.arch;
  root["wsl"] = facts.wsl;
  root["wsl_source"] = OrNull(facts.wsl_source);
  root["container"] = facts.container;
  root["container_source"] = OrNull(facts.container_source);
  root["jetson"] = facts.jetson ? Json{{"l4t", facts.jetson->l4t}, {"source", facts.jetson->source}}
                                : Json(nullptr);
  root["nvidia"] = facts.nvidia ? NvidiaJson(*facts.nvidia) : Json(nullptr);
  root["amd"] = facts.amd ? AmdJson(*facts.amd) : Json(nullptr);
  root["intel"] = facts.intel ? IntelJson(*facts.intel) : Json(nullptr);
  Json overrides = Json::object();
  for (const auto& [variable, value] : facts.overrides) overrides[variable] = value;
  root["overrides"] = overrides;
  Json probes = Json::array();
  for (const ProbeRecord& probe : facts.probes) {
    probes.push_back({{"what", probe.what}, {"path", probe.path}, {"outcome", probe.outcome}});
  }
  root["probes"] = probes;
  root["warnings"] = facts.warnings;
  Json timings = Json::object();
  for (const auto& [name, micros] : facts.timings_us) timings[name] = micros;
  root["timings_us"] = timings;
  return root;
}

std::string HostFactsToJson(const HostFacts& facts) {
  return HostFactsJson(facts).dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

std::string HostFactsToText(const HostFacts& facts) {
  std::string out = "host: " + std::string(core::TargetOsWord(facts.os)) + " " + facts.arch;
  if (facts.wsl) out += ", WSL2 (" + facts.wsl_source + ")";
  if (facts.container) out += ", in a container (" + facts.container_source + ")";
  if (facts.jetson) out += ", Jetson L4T " + facts.jetson->l4t + " (" + facts.jetson->source + ")";
  out += "\n";

  if (!facts.nvidia) {
    out += "NVIDIA: none found\n";
  } else {
    const NvidiaFacts& nvidia = *facts.nvidia;
    out += "NVIDIA: driver " + (!nvidia.driver_version ? std::string("unknown")
                                                       : nvidia.driver_version->ToString() + " (from " +
                                                             nvidia.driver_source + ")");
    if (nvidia.driver_table == DriverTable::kWindows) out += ", a Windows driver number";
    out += "\n";
    out += Indent("supports CUDA up to " +
                  (nvidia.cuda_driver_api.empty()
                       ? std::string("unknown")
                       : nvidia.cuda_driver_api + " (from " + nvidia.cuda_driver_api_source + ")") +
                  "\n");
    out += Indent(std::string("devices usable here: ") + (nvidia.devices_exposed ? "yes" : "no") +
                  " (" + nvidia.devices_exposed_source + ")\n");
    for (const NvidiaGpu& gpu : nvidia.gpus) {
      std::string line =
          "GPU " + (gpu.pci_bus_id.empty() ? std::string("-") : gpu.pci_bus_id) + ": " +
          (gpu.name.empty() ? std::string("unnamed") : gpu.name) + ", compute capability " +
          (!gpu.compute_capability
               ? std::string("unknown")
               : gpu.compute_capability->ToString() + " (from " + gpu.compute_capability_source + ")");
      if (!gpu.visible) line += ", hidden by CUDA_VISIBLE_DEVICES";
      out += Indent(line + "\n");
    }
  }

  if (!facts.amd) {
    out += "AMD: none found\n";
  } else {
    const AmdFacts& amd = *facts.amd;
    std::string gfx;
    for (const std::string& name : amd.gfx) gfx += (gfx.empty() ? "" : ", ") + name;
    out += "AMD: " +
           (gfx.empty() ? std::string("no gfx target") : gfx + " (from " + amd.gfx_source + ")") +
           "\n";
    out += Indent(std::string("/dev/kfd usable: ") + (amd.kfd_access ? "yes" : "no") + "\n");
    if (!amd.rocm_version.empty())
      out += Indent("ROCm " + amd.rocm_version + " installed (a hint only)\n");
    if (!amd.amdgpu_module_version.empty()) {
      out += Indent("amdgpu module " + amd.amdgpu_module_version + "\n");
    }
  }

  if (!facts.intel) {
    out += "Intel GPU: none found\n";
  } else {
    const IntelFacts& intel = *facts.intel;
    out += "Intel: " + std::to_string(intel.xpu_devices.size()) + " XPU device(s) (from " +
           intel.source + ")\n";
    for (const IntelGpu& gpu : intel.xpu_devices) {
      out += Indent("XPU " + (gpu.pci_id.empty() ? std::string("-") : gpu.pci_id) + " " + gpu.name +
                    (gpu.driver.empty() ? "" : ", driver " + gpu.driver) + "\n");
    }
    for (const IntelGpu& gpu : intel.other_gpus) {
      out += Indent("not an XPU: " + gpu.pci_id + " " +
                    (gpu.name.empty() ? "unknown device" : gpu.name) + ": " + gpu.reason + "\n");
    }
  }

  for (const auto& [variable, value] : facts.overrides) {
    out += "override: " + variable + "=" + value + "\n";
  }
  for (const ProbeRecord& probe : facts.probes) {
    out += "ran " + probe.what + " (" + probe.path + "): " + probe.outcome + "\n";
  }
  for (const std::string& warning : facts.warnings) out += "warning: " + warning + "\n";
  return out;
}

}  // namespace torchdex::installer
