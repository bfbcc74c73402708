// NVIDIA on Linux, in order: the kernel module files, the PCI bus and the driver's per-GPU files
// (no child process), then, only when those leave the driver or a compute capability unknown,
// NVML, libcuda and nvidia-smi, each in a child process with a timeout.
#include <algorithm>

#include "installer/table/hardware_table.h"
#include "installer/detect/library_probe.h"
#include "installer/detect/linux_sources.h"
#include "installer/detect/nvidia_parsers.h"
#include "installer/platform/text.h"

namespace torchdex::installer {
namespace {

constexpr const char* kSysModuleVersion = "/sys/module/nvidia/version";
constexpr const char* kProcVersion = "/proc/driver/nvidia/version";
constexpr const char* kProcGpus = "/proc/driver/nvidia/gpus/";

// Where the user-space driver lives: WSL's DriverStore mount first (a distro NVML there answers
// NVML_ERROR_DRIVER_NOT_LOADED: ollama #1888), then the distro and container-toolkit paths,
// then Jetson's (R36 .../nvidia, R35 .../tegra).
constexpr std::string_view kLibraryDirs[] = {
    "/usr/lib/wsl/lib",
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib/aarch64-linux-gnu",
    "/usr/lib64",
    "/usr/lib64/nvidia",
    "/usr/lib",
    "/usr/local/nvidia/lib64",
    "/usr/lib/aarch64-linux-gnu/nvidia",
    "/usr/lib/aarch64-linux-gnu/tegra",
};

struct NeedFromProbes {
  bool driver = false;
  bool compute_capability = false;
  bool cuda = false;
  bool Any() const { return driver || compute_capability || cuda; }
};

NeedFromProbes WhatIsMissing(const DetectContext& context, const NvidiaFacts& nvidia, bool jetson) {
  NeedFromProbes need;
  const Overrides& overrides = context.overrides;
  need.driver =
      !nvidia.driver_version && !overrides.driver_version && !overrides.cuda_version;
  need.compute_capability =
      !overrides.cuda_arch &&
      (nvidia.gpus.empty() ||
       std::any_of(nvidia.gpus.begin(), nvidia.gpus.end(),
                   [](const NvidiaGpu& gpu) { return !gpu.compute_capability; }));
  // The driver table cannot map a Jetson's driver to a CUDA version; only libcuda can.
  need.cuda = jetson && nvidia.cuda_driver_api.empty() && !overrides.cuda_version;
  return need;
}

NvidiaGpu* FindGpu(NvidiaFacts& nvidia, std::string_view bus_id, std::string_view uuid) {
  for (NvidiaGpu& gpu : nvidia.gpus) {
    if (!bus_id.empty() && gpu.pci_bus_id == bus_id) return &gpu;
    if (!uuid.empty() && gpu.uuid == uuid) return &gpu;
  }
  return nullptr;
}

// Adds what a probe said to what the files said: files win for the driver (they are the
// kernel's own number), probes fill in what is missing.
void Merge(DetectContext& context, NvidiaFacts& nvidia, const ProbeAnswer& answer,
           const std::string& source) {
  if (!nvidia.driver_version && answer.driver_version) {
    nvidia.driver_version = answer.driver_version;
    nvidia.driver_source = source;
  }
  if (answer.cuda_version != 0 && nvidia.cuda_driver_api.empty()) {
    nvidia.cuda_driver_api = CudaVersionString(answer.cuda_version);
    nvidia.cuda_driver_api_source = source;
  }
  for (const ProbeGpu& found : answer.gpus) {
    NvidiaGpu* gpu = FindGpu(nvidia, found.pci_bus_id, found.uuid);
    if (gpu == nullptr) {
      // A Jetson's integrated GPU or a WSL GPU is not on our PCI bus: one entry per probe GPU.
      // With exactly one GPU on each side and an address missing on one, it is the same GPU.
      if (nvidia.gpus.size() == 1 && answer.gpus.size() == 1 &&
          (found.pci_bus_id.empty() || nvidia.gpus[0].pci_bus_id.empty())) {
        gpu = &nvidia.gpus[0];
      } else {
        nvidia.gpus.emplace_back();
        gpu = &nvidia.gpus.back();
        gpu->pci_bus_id = found.pci_bus_id;
      }
    }
    if (gpu->name.empty()) gpu->name = found.name;
    if (gpu->uuid.empty()) gpu->uuid = found.uuid;
    if (gpu->pci_bus_id.empty()) gpu->pci_bus_id = found.pci_bus_id;
    if (!gpu->compute_capability && found.compute_capability) {
      gpu->compute_capability = found.compute_capability;
      gpu->compute_capability_source = source;
    }
  }
  if (answer.devices_counted && answer.gpus.empty()) {
    nvidia.devices_exposed = false;
    nvidia.devices_exposed_source = source + " found no device";
  }
  (void)context;
}

std::vector<std::string> LibraryCandidates(const DetectContext& context, std::string_view soname) {
  std::vector<std::string> candidates;
  bool soname_added = false;
  for (std::string_view dir : kLibraryDirs) {
    // On the real root the loader's own search (ld cache, LD_LIBRARY_PATH) comes right after
    // WSL's directory; under --root only the captured host's files count.
    if (dir != "/usr/lib/wsl/lib" && context.files().IsRealRoot() && !soname_added) {
      candidates.emplace_back(soname);
      soname_added = true;
    }
    const std::string host_path = std::string(dir) + "/" + std::string(soname);
    if (context.files().Exists(host_path))
      candidates.push_back(context.files().LocalPath(host_path));
  }
  return candidates;
}

std::string ShownCandidates(const DetectContext& context,
                            const std::vector<std::string>& candidates) {
  return candidates.size() == 1 ? context.ToHostPath(candidates[0])
                                : context.ToHostPath(candidates[0]) + " (first of " +
                                      std::to_string(candidates.size()) + " candidates)";
}

// One library probe; true when it answered.
bool RunLibraryProbe(DetectContext& context, NvidiaFacts& nvidia, const std::string& what,
                     std::string_view soname,
                     std::string (*probe)(const std::vector<std::string>&)) {
  const std::vector<std::string> candidates = LibraryCandidates(context, soname);
  if (candidates.empty()) return false;
  ProcessResult result = context.RunProbe(what, ShownCandidates(context, candidates),
                                          [&] { return probe(candidates); });
  if (!result.Succeeded()) return false;  // the runner recorded the hang or crash
  const ProbeAnswer answer = ParseProbeAnswer(result.output);
  if (answer.library.empty()) {
    context.SetProbeOutcome("no library loaded");
    return false;
  }
  const std::string source = what + " (" + context.ToHostPath(answer.library) + ")";
  context.facts.probes.back().path = context.ToHostPath(answer.library);
  if (!answer.error.empty() && answer.gpus.empty() && answer.cuda_version == 0 &&
      !answer.driver_version) {
    context.SetProbeOutcome("no answer: " + answer.error);
    return false;
  }
  context.SetProbeOutcome(answer.error.empty() ? "answered" : "partial answer: " + answer.error);
  Merge(context, nvidia, answer, source);
  return true;
}

void RunNvidiaSmi(DetectContext& context, NvidiaFacts& nvidia) {
  const std::optional<std::string> tool = context.FindTool(
      "nvidia-smi", {"/usr/bin", "/usr/lib/wsl/lib", "/usr/local/nvidia/bin", "/bin", "/usr/sbin"});
  if (!tool) return;
  bool with_compute_cap = true;
  ProcessResult result = context.RunTool(
      "nvidia-smi",
      {*tool, "--query-gpu=driver_version,compute_cap,name,pci.bus_id", "--format=csv,noheader"});
  if (result.status != ProcessResult::Status::kExited) return;  // hang or crash: recorded
  if (NvidiaSmiRejectsComputeCap(result.output + result.errors)) {
    // R470 and older nvidia-smi (also a stale one in a snap against a newer driver).
    context.SetProbeOutcome("this nvidia-smi does not know compute_cap; asked again without it");
    with_compute_cap = false;
    result = context.RunTool("nvidia-smi", {*tool, "--query-gpu=driver_version,name,pci.bus_id",
                                            "--format=csv,noheader"});
    if (result.status != ProcessResult::Status::kExited) return;
  }
  if (NvidiaSmiCannotReachDriver(result.output + result.errors)) {
    context.SetProbeOutcome("could not communicate with the NVIDIA driver");
    nvidia.devices_exposed = false;
    nvidia.devices_exposed_source = "nvidia-smi could not communicate with the NVIDIA driver";
    return;
  }
  // A degraded multi-GPU host can exit non-zero with usable lines: parse them anyway.
  const std::vector<SmiGpu> gpus = ParseNvidiaSmiCsv(result.output, with_compute_cap);
  if (gpus.empty()) {
    if (result.exit_code == 0) context.SetProbeOutcome("no answer: no GPU line in the output");
    return;
  }
  context.SetProbeOutcome("answered");
  ProbeAnswer answer;
  answer.driver_version = gpus.front().driver_version;
  answer.devices_counted = true;
  for (const SmiGpu& gpu : gpus) {
    if (gpu.driver_version != answer.driver_version) {
      context.Warn("nvidia-smi reports different driver versions per GPU (" +
                   answer.driver_version->ToString() + ", " + gpu.driver_version.ToString() +
                   "); using the first");
    }
    answer.gpus.push_back(ProbeGpu{gpu.compute_capability, gpu.pci_bus_id, "", gpu.name});
  }
  Merge(context, nvidia, answer, "nvidia-smi (" + *tool + ")");
}

// 1. The kernel module's own files: the driver version. Whether any was there.
bool ReadDriverFiles(DetectContext& context, bool jetson, NvidiaFacts& nvidia) {
  bool evidence = false;
  if (std::optional<std::string> text = context.ReadText(kSysModuleVersion, 4096)) {
    evidence = true;
    if (std::optional<core::DriverVersion> version = ParseSysModuleVersion(*text)) {
      nvidia.driver_version = *version;
      nvidia.driver_source = kSysModuleVersion;
    } else {
      context.Warn(std::string(kSysModuleVersion) + ": unexpected contents " + Quote(*text) + "; ignored");
    }
  }
  if (std::optional<std::string> text = context.ReadText(kProcVersion, 4096)) {
    evidence = true;
    if (std::optional<ProcNvidiaVersion> version = ParseProcNvidiaVersion(*text)) {
      if (!nvidia.driver_version) {
        nvidia.driver_version = version->version;
        nvidia.driver_source = kProcVersion;
      }
    } else {
      context.Warn(std::string(kProcVersion) + ": no \"NVRM version:\" line with a version; ignored");
    }
  }
  // JetPack 5 writes the L4T release where the driver version goes (nixGL #139).
  if (jetson && nvidia.driver_version && nvidia.driver_version->major() < 100) {
    context.Warn(nvidia.driver_source + " gives " + nvidia.driver_version->ToString() +
                 ", the L4T release of this Jetson, not a driver version; ignored");
    nvidia.driver_version.reset();
    nvidia.driver_source.clear();
  }
  return evidence;
}

// 2. The GPUs on the PCI bus, named and given a compute capability by the compiled table. Whether
// there was one.
bool ReadPciGpus(const std::vector<PciDisplayDevice>& pci, NvidiaFacts& nvidia) {
  bool evidence = false;
  for (const PciDisplayDevice& device : pci) {
    if (device.vendor != 0x10de) continue;
    evidence = true;
    NvidiaGpu gpu;
    gpu.pci_bus_id = device.bus_id;
    gpu.pci_id = HexId(device.device);
    if (const NvidiaGpuRow* row = FindNvidiaGpu(device.device)) {
      gpu.name = row->name;
      gpu.compute_capability = core::ComputeCapability{static_cast<std::uint8_t>(row->cc_major),
                                                       static_cast<std::uint8_t>(row->cc_minor)};
      gpu.compute_capability_source =
          row->doubtful ? "PCI id table (row marked doubtful in data/nvidia-gpus.json)" : "PCI id table";
    }
    nvidia.gpus.push_back(std::move(gpu));
  }
  return evidence;
}

// The driver's per-GPU files give the official name and the UUID (for CUDA_VISIBLE_DEVICES).
bool ReadProcGpus(DetectContext& context, NvidiaFacts& nvidia) {
  bool evidence = false;
  for (const std::string& entry : context.files().ListDirectory(kProcGpus)) {
    evidence = true;
    const std::string path = std::string(kProcGpus) + entry + "/information";
    std::optional<std::string> text = context.ReadText(path, 16 * 1024);
    if (!text) continue;
    std::optional<GpuInformation> info = ParseGpuInformation(*text);
    if (!info) {
      context.Warn(path + ": unexpected contents; ignored");
      continue;
    }
    std::string bus_id = info->bus_location.empty() ? NormalizePciBusId(entry) : info->bus_location;
    NvidiaGpu* gpu = FindGpu(nvidia, bus_id, info->uuid);
    if (gpu == nullptr) {
      nvidia.gpus.emplace_back();
      gpu = &nvidia.gpus.back();
      gpu->pci_bus_id = bus_id;
    }
    if (!info->model.empty()) gpu->name = info->model;
    if (!info->uuid.empty()) gpu->uuid = info->uuid;
  }
  return evidence;
}

// A Jetson's GPU is part of the SoC, not a PCI device: the device tree names the SoC.
void ReadTegraGpu(const FileReader& files, NvidiaFacts& nvidia) {
  // NUL-separated strings, so read raw rather than as text.
  const ReadResult compatible = files.Read("/proc/device-tree/compatible", 4096);
  if (compatible.status != ReadResult::Status::kOk) return;
  if (std::optional<TegraGpu> tegra = FindTegraGpu(compatible.contents)) {
    NvidiaGpu gpu;
    gpu.name = std::string(tegra->name);
    gpu.compute_capability = tegra->compute_capability;
    gpu.compute_capability_source = "/proc/device-tree/compatible (" + std::string(tegra->soc) + ")";
    nvidia.gpus.push_back(std::move(gpu));
  }
}

// 3. Device nodes: is a GPU usable from here (a container may see the module but no device)?
void ReadDeviceNodes(const FileReader& files, const HostFacts& facts, bool jetson, NvidiaFacts& nvidia) {
  if (files.Exists("/dev/nvidiactl")) {
    nvidia.devices_exposed = true;
    nvidia.devices_exposed_source = "/dev/nvidiactl";
  } else if (facts.wsl && files.Exists("/dev/dxg")) {
    nvidia.devices_exposed = true;
    nvidia.devices_exposed_source = "/dev/dxg";
  } else if (jetson && (files.Exists("/dev/nvhost-ctrl-gpu") || files.Exists("/dev/nvgpu/igpu0/ctrl"))) {
    nvidia.devices_exposed = true;
    nvidia.devices_exposed_source =
        files.Exists("/dev/nvhost-ctrl-gpu") ? "/dev/nvhost-ctrl-gpu" : "/dev/nvgpu/igpu0/ctrl";
  } else {
    nvidia.devices_exposed = false;
    nvidia.devices_exposed_source = "no /dev/nvidiactl";
  }
}

// Whether anything of the device nodes or WSL's libraries says the driver is here.
bool DeviceEvidence(const FileReader& files, const HostFacts& facts) {
  if (files.Exists("/dev/nvidiactl")) return true;
  if (!facts.wsl) return false;
  for (const char* path :
       {"/usr/lib/wsl/lib/libcuda.so.1", "/usr/lib/wsl/lib/libnvidia-ml.so.1", "/usr/lib/wsl/lib/nvidia-smi"}) {
    if (files.Exists(path)) return true;
  }
  return false;
}

// 4. Probes, only for what the files left unknown, and only where a device is reachable.
void RunProbes(DetectContext& context, bool jetson, NvidiaFacts& nvidia) {
  if (!nvidia.devices_exposed || !WhatIsMissing(context, nvidia, jetson).Any()) return;
  const int64_t start = context.Now();
  RunLibraryProbe(context, nvidia, "nvml", "libnvidia-ml.so.1", &ProbeNvml);
  if (nvidia.devices_exposed && WhatIsMissing(context, nvidia, jetson).Any()) {
    RunLibraryProbe(context, nvidia, "libcuda", "libcuda.so.1", &ProbeLibcuda);
  }
  if (nvidia.devices_exposed && WhatIsMissing(context, nvidia, jetson).Any()) RunNvidiaSmi(context, nvidia);
  context.AddTiming("nvidia_probes", start);
}

}  // namespace

void DetectNvidiaLinux(DetectContext& context, const std::vector<PciDisplayDevice>& pci) {
  const int64_t start = context.Now();
  HostFacts& facts = context.facts;
  const FileReader& files = context.files();
  const bool jetson = facts.jetson.has_value();
  NvidiaFacts nvidia;
  nvidia.driver_table = jetson ? DriverTable::kNone : facts.wsl ? DriverTable::kWindows : DriverTable::kLinux;
  bool evidence = ReadDriverFiles(context, jetson, nvidia);
  evidence = ReadPciGpus(pci, nvidia) || evidence;
  evidence = ReadProcGpus(context, nvidia) || evidence;
  if (jetson) {
    evidence = true;
    ReadTegraGpu(files, nvidia);
  }
  evidence = DeviceEvidence(files, facts) || evidence;
  if (!evidence) {
    context.AddTiming("nvidia", start);
    return;
  }
  ReadDeviceNodes(files, facts, jetson, nvidia);
  context.AddTiming("nvidia", start);
  RunProbes(context, jetson, nvidia);
  facts.nvidia = std::move(nvidia);
}

}  // namespace torchdex::installer
