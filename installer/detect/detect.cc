// The platform-independent half of detection: overrides, CUDA_VISIBLE_DEVICES, the driver ->
// CUDA table, and the warnings that explain an answer. The platform half is DetectPlatform.
#include "installer/detect/detect.h"

#include <algorithm>

#include "core/text.h"
#include "installer/detect/detect_context.h"
#include "installer/detect/nvidia_parsers.h"
#include "installer/platform/text.h"
#include "installer/table/hardware_table.h"

namespace torchdex::installer {

std::optional<std::string> DetectContext::ReadText(std::string_view host_path, size_t limit) {
  ReadResult read = files().Read(host_path, limit);
  switch (read.status) {
    case ReadResult::Status::kMissing:
      return std::nullopt;
    case ReadResult::Status::kError:
      Warn(std::string(host_path) + ": cannot read (" + read.error + "); ignored");
      return std::nullopt;
    case ReadResult::Status::kTooLarge:
      Warn(std::string(host_path) + ": larger than " + std::to_string(limit / 1024) +
           " KiB, not what this file holds; ignored");
      return std::nullopt;
    case ReadResult::Status::kOk:
      break;
  }
  if (!IsPlainText(read.contents)) {
    Warn(std::string(host_path) + ": binary contents, not text; ignored");
    return std::nullopt;
  }
  return std::move(read.contents);
}

std::optional<std::string> DetectContext::FindTool(
    std::string_view name, const std::vector<std::string_view>& extra_dirs) const {
  std::vector<std::string> dirs;
  if (std::optional<std::string> path = Lookup(deps.env, "PATH")) {
    for (std::string_view dir : Split(*path, ':')) {
      if (!dir.empty() && dir.front() == '/') dirs.emplace_back(dir);
    }
  }
  for (std::string_view dir : extra_dirs) dirs.emplace_back(dir);
  for (const std::string& dir : dirs) {
    std::string candidate = dir;
    if (candidate.back() != '/') candidate += '/';
    candidate += name;
    if (files().IsExecutable(candidate)) return candidate;
  }
  return std::nullopt;
}

std::string DetectContext::ToHostPath(std::string_view local_path) const {
  const std::string& root = files().root();
  if (!root.empty() && StartsWith(local_path, root) && local_path.size() > root.size() &&
      local_path[root.size()] == '/') {
    return std::string(local_path.substr(root.size()));
  }
  return std::string(local_path);
}

void DetectContext::Record(const std::string& what, const std::string& path,
                           const ProcessResult& result) {
  ProbeRecord record{what, path, ""};
  if (result.status == ProcessResult::Status::kExited) {
    record.outcome = result.exit_code == 0 ? "answered" : result.Describe(options.probe_timeout);
  } else {
    record.outcome = result.Describe(options.probe_timeout);
    Warn(what + " (" + path + ") " + record.outcome + "; detection went on without it");
  }
  facts.probes.push_back(std::move(record));
}

void DetectContext::SetProbeOutcome(std::string outcome) {
  if (!facts.probes.empty()) facts.probes.back().outcome = std::move(outcome);
}

ProcessResult DetectContext::RunTool(std::string what, std::vector<std::string> argv) {
  const std::string host_path = argv.at(0);
  argv[0] = files().LocalPath(host_path);
  const int64_t start = Now();
  ProcessResult result = deps.runner.Run(argv, deps.env, options.probe_timeout);
  AddTiming(what, start);
  Record(what, host_path, result);
  return result;
}

ProcessResult DetectContext::RunProbe(std::string what, std::string shown_path,
                                      const std::function<std::string()>& body) {
  const int64_t start = Now();
  ProcessResult result = deps.runner.RunInChild(body, options.probe_timeout);
  AddTiming(what, start);
  Record(what, shown_path, result);
  // The probe body always exits 0: anything else is the library ending the process.
  if (result.status == ProcessResult::Status::kExited && result.exit_code != 0) {
    Warn(what + " (" + shown_path + ") " + result.Describe(options.probe_timeout) +
         " before answering; detection went on without it");
  }
  return result;
}

namespace {

std::string GpuLabel(const NvidiaGpu& gpu) {
  std::string label = gpu.name.empty() ? "NVIDIA GPU" : gpu.name;
  if (!gpu.pci_bus_id.empty()) label += " at " + gpu.pci_bus_id;
  if (!gpu.pci_id.empty()) label += " (PCI id " + gpu.pci_id + ")";
  return label;
}

void ApplyNvidiaOverrides(const Overrides& overrides, HostFacts& facts) {
  if (!overrides.AnyNvidia()) return;
  if (!facts.nvidia) facts.nvidia.emplace();
  NvidiaFacts& nvidia = *facts.nvidia;
  if (overrides.driver_version) {
    nvidia.driver_version = overrides.driver;
    nvidia.driver_source = "env " + overrides.driver_version->variable;
    nvidia.cuda_driver_api.clear();  // re-derived from the overridden driver below
    nvidia.cuda_driver_api_source.clear();
  }
  if (overrides.cuda_version) {
    nvidia.cuda_driver_api = overrides.cuda_version->value;
    nvidia.cuda_driver_api_source = "env " + overrides.cuda_version->variable;
  }
  if (overrides.cuda_arch) {
    nvidia.gpus.clear();
    for (const core::ComputeCapability& cc : overrides.cuda_arch_list) {
      NvidiaGpu gpu;
      gpu.compute_capability = cc;
      gpu.compute_capability_source = "env " + overrides.cuda_arch->variable;
      nvidia.gpus.push_back(std::move(gpu));
    }
  }
  // In uv and conda these variables mean "an NVIDIA GPU with this driver (supporting this
  // CUDA) is here": a CI image built without a GPU sets one of them and must get a CUDA build.
  // conda's names a CUDA version, not a driver: the first driver that supports it stands in.
  if (!nvidia.driver_version && overrides.cuda_version) {
    const std::vector<unsigned> cuda = core::ParseDottedNumbers(overrides.cuda_version->value);
    for (const CudaDriverRow& row : CudaDriverRows()) {
      if (cuda.size() < 2 || row.cuda_major != cuda[0] || row.cuda_minor != cuda[1]) continue;
      const core::DriverVersion& minimum =
          nvidia.driver_table == DriverTable::kWindows ? row.windows_min : row.linux_min;
      if (!minimum.known()) break;
      nvidia.driver_version = minimum;
      nvidia.driver_source = "assumed from " + overrides.cuda_version->variable + "=" +
                             overrides.cuda_version->value + ": the first driver that supports it";
      facts.warnings.push_back(overrides.cuda_version->variable + "=" + overrides.cuda_version->value +
                               ": assumed NVIDIA driver " + minimum.ToString() +
                               ", the first that supports CUDA " + overrides.cuda_version->value);
      break;
    }
  }
  if (nvidia.gpus.empty() && (overrides.driver_version || overrides.cuda_version)) {
    NvidiaGpu gpu;
    gpu.name = "NVIDIA GPU (assumed)";
    gpu.compute_capability_source = "unknown: set TORCHDEX_CUDA_ARCH to check the arch lists";
    nvidia.gpus.push_back(std::move(gpu));
    const OverrideValue& said = overrides.driver_version ? *overrides.driver_version : *overrides.cuda_version;
    facts.warnings.push_back(said.variable + " is set and no NVIDIA GPU is visible here: assumed one GPU "
                             "of unknown compute capability (set TORCHDEX_CUDA_ARCH to check it)");
  }
  // An override describes the machine the build is for (docker build has no GPU at build time).
  if (!nvidia.devices_exposed) {
    nvidia.devices_exposed = true;
    nvidia.devices_exposed_source = "assumed: set by an override";
  }
}

void ApplyAmdOverrides(const Overrides& overrides, HostFacts& facts) {
  if (!overrides.amd_gfx) return;
  if (!facts.amd) facts.amd.emplace();
  AmdFacts& amd = *facts.amd;
  amd.gfx = overrides.amd_gfx_list;
  amd.gfx_source = "env " + overrides.amd_gfx->variable;
  amd.gpus.clear();
  for (const std::string& gfx : amd.gfx) amd.gpus.push_back(AmdGpu{gfx, "", -1});
  if (!amd.kfd_access) amd.kfd_access = true;  // assumed, as for NVIDIA
}

void ApplyXpuOverride(const Overrides& overrides, HostFacts& facts) {
  if (!overrides.xpu) return;
  const std::string source = "env " + overrides.xpu->variable;
  if (!overrides.xpu_enabled) {
    if (facts.intel) {
      for (IntelGpu& gpu : facts.intel->xpu_devices) {
        gpu.reason = "TORCHDEX_XPU=0: not used as an XPU";
        facts.intel->other_gpus.push_back(std::move(gpu));
      }
      facts.intel->xpu_devices.clear();
      facts.intel->source = source;
    }
    return;
  }
  if (!facts.intel) facts.intel.emplace();
  if (facts.intel->xpu_devices.empty()) {
    IntelGpu gpu;
    gpu.name = "Intel XPU (assumed)";
    gpu.reason = "TORCHDEX_XPU=1";
    facts.intel->xpu_devices.push_back(std::move(gpu));
  }
  facts.intel->source = source;
}

// CUDA_VISIBLE_DEVICES: indices (in PCI bus order, as with CUDA_DEVICE_ORDER=PCI_BUS_ID) or
// UUIDs ("GPU-8932f937", any unique prefix). Like CUDA, the list ends at the first entry that
// matches nothing, and an empty value hides every GPU.
void ApplyCudaVisibleDevices(const Environment& env, const Overrides& overrides, HostFacts& facts) {
  if (!facts.nvidia || overrides.cuda_arch) return;
  std::optional<std::string> value = Lookup(env, "CUDA_VISIBLE_DEVICES");
  if (!value) return;
  NvidiaFacts& nvidia = *facts.nvidia;
  nvidia.cuda_visible_devices = *value;
  if (nvidia.gpus.empty()) return;
  std::vector<bool> visible(nvidia.gpus.size(), false);
  std::string stopped_at;
  std::vector<std::string> unmapped_mig;
  for (std::string_view raw : Split(*value, ',')) {
    const std::string_view entry = Trim(raw);
    if (entry.empty()) break;
    std::optional<size_t> match;
    if (StartsWith(entry, "MIG-")) {
      // A MIG instance of some GPU: "MIG-GPU-<gpu uuid>/<gi>/<ci>" (drivers before R470) names
      // its GPU; "MIG-<instance uuid>" cannot be mapped without NVML, so no GPU is hidden for it.
      if (StartsWith(entry, "MIG-GPU-")) {
        const std::string_view gpu_uuid = entry.substr(4, entry.find('/') == std::string_view::npos
                                                              ? std::string_view::npos
                                                              : entry.find('/') - 4);
        for (size_t i = 0; i < nvidia.gpus.size(); ++i) {
          if (!nvidia.gpus[i].uuid.empty() && StartsWith(nvidia.gpus[i].uuid, gpu_uuid)) match = i;
        }
      }
      if (!match) {
        unmapped_mig.emplace_back(entry);
        continue;
      }
      visible[*match] = true;
      continue;
    }
    if (entry.find_first_not_of("0123456789") == std::string_view::npos && entry.size() < 4) {
      const size_t index = std::stoul(std::string(entry));
      if (index < nvidia.gpus.size()) match = index;
    } else if (StartsWith(entry, "GPU-")) {
      for (size_t i = 0; i < nvidia.gpus.size(); ++i) {
        if (!nvidia.gpus[i].uuid.empty() && StartsWith(nvidia.gpus[i].uuid, entry)) match = i;
      }
    }
    if (!match) {
      stopped_at = std::string(entry);
      break;
    }
    visible[*match] = true;
  }
  if (!unmapped_mig.empty()) {
    // Every GPU stays: the instances belong to some of them, and which cannot be told here.
    std::fill(visible.begin(), visible.end(), true);
    std::string names;
    for (const std::string& m : unmapped_mig) names += (names.empty() ? "" : ", ") + Quote(m);
    facts.warnings.push_back("CUDA_VISIBLE_DEVICES names MIG instance(s) " + names +
                             " that cannot be mapped to a GPU without NVML; every NVIDIA GPU is kept");
  }
  size_t count = 0;
  for (size_t i = 0; i < visible.size(); ++i) {
    nvidia.gpus[i].visible = visible[i];
    count += visible[i];
  }
  std::string message = "CUDA_VISIBLE_DEVICES=" + Quote(*value) + " narrows " +
                        std::to_string(nvidia.gpus.size()) + " NVIDIA GPU(s) to " +
                        std::to_string(count) + " (indices in PCI bus order)";
  if (!stopped_at.empty()) {
    message += "; the list stops at " + Quote(stopped_at) + ", which matches no GPU, as in CUDA";
  }
  facts.warnings.push_back(std::move(message));
}

void DeriveCudaFromDriver(HostFacts& facts) {
  if (!facts.nvidia) return;
  NvidiaFacts& nvidia = *facts.nvidia;
  if (!nvidia.cuda_driver_api.empty() || !nvidia.driver_version) return;
  const std::optional<CudaForDriver> cuda =
      MaxCudaForDriver(*nvidia.driver_version, nvidia.driver_table);
  if (!cuda) {
    if (nvidia.driver_table != DriverTable::kNone) {
      facts.warnings.push_back("NVIDIA driver " + nvidia.driver_version->ToString() +
                               " is older than every CUDA release in the driver table");
    }
    return;
  }
  nvidia.cuda_driver_api = cuda->cuda;
  nvidia.cuda_driver_api_source =
      std::string(nvidia.driver_table == DriverTable::kWindows ? "Windows" : "Linux") +
      " driver table: CUDA " + cuda->cuda + " needs " + cuda->first_driver + " or newer";
  if (cuda->beyond_table) {
    nvidia.cuda_driver_api_source +=
        "; the driver is newer than the table, so CUDA " + cuda->cuda + " is a lower bound";
  }
}

void ExplainNvidia(HostFacts& facts) {
  if (!facts.nvidia) return;
  const NvidiaFacts& nvidia = *facts.nvidia;
  if (!nvidia.devices_exposed) {
    facts.warnings.push_back(
        "the NVIDIA driver is present but no NVIDIA device is usable here (" +
        nvidia.devices_exposed_source +
        "): no CUDA build will be chosen. In a container, run it with the GPUs (docker run "
        "--gpus all); for docker build, set TORCHDEX_CUDA_DRIVER_VERSION and TORCHDEX_CUDA_ARCH");
    return;
  }
  if (!nvidia.driver_version && nvidia.cuda_driver_api.empty()) {
    facts.warnings.push_back(
        "NVIDIA hardware found, but neither the driver files nor any probe gave a driver version; "
        "set TORCHDEX_CUDA_DRIVER_VERSION to choose a CUDA build");
  }
  for (const NvidiaGpu& gpu : nvidia.gpus) {
    if (!gpu.compute_capability) {
      facts.warnings.push_back("compute capability of " + GpuLabel(gpu) +
                               " unknown: not in the PCI id table and no probe answered; set "
                               "TORCHDEX_CUDA_ARCH");
    }
  }
}

}  // namespace

core::Expected<HostFacts> Detect(const DetectOptions& options, const DetectDeps& deps) {
  const int64_t start = deps.clock.NowMicros();
  core::Expected<Overrides> overrides = ParseOverrides(deps.env);
  if (!overrides) return overrides.error();

  HostFacts facts;
  DetectContext context(options, deps, *overrides, facts);
  DetectPlatform(context);

  if (facts.nvidia) {
    std::stable_sort(
        facts.nvidia->gpus.begin(), facts.nvidia->gpus.end(),
        [](const NvidiaGpu& a, const NvidiaGpu& b) { return a.pci_bus_id < b.pci_bus_id; });
  }
  ApplyNvidiaOverrides(*overrides, facts);
  ApplyAmdOverrides(*overrides, facts);
  ApplyXpuOverride(*overrides, facts);
  for (OverrideValue& value : overrides->Applied()) {
    facts.overrides.emplace_back(std::move(value.variable), std::move(value.value));
  }
  DeriveCudaFromDriver(facts);
  ApplyCudaVisibleDevices(deps.env, *overrides, facts);
  ExplainNvidia(facts);
  facts.timings_us.emplace_back("total", deps.clock.NowMicros() - start);
  return facts;
}

}  // namespace torchdex::installer
