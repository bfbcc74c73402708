// AMD on Linux: the KFD topology (no tool needed), /dev/kfd access, and the ROCm and amdgpu
// versions as hints; rocm_agent_enumerator only when KFD cannot be read.
#include <algorithm>
#include <charconv>

#include "installer/detect/amd_parsers.h"
#include "installer/detect/linux_sources.h"
#include "installer/platform/text.h"

namespace torchdex::installer {
namespace {

constexpr const char* kKfdNodes = "/sys/class/kfd/kfd/topology/nodes/";

int NodeNumber(const std::string& name) {
  int number = -1;
  auto [end, error] = std::from_chars(name.data(), name.data() + name.size(), number);
  if (error != std::errc() || end != name.data() + name.size()) return -1;
  return number;
}

void AddGfx(AmdFacts& amd, AmdGpu gpu) {
  if (std::find(amd.gfx.begin(), amd.gfx.end(), gpu.gfx) == amd.gfx.end())
    amd.gfx.push_back(gpu.gfx);
  amd.gpus.push_back(std::move(gpu));
}

// One KFD node's GPU, or nullopt for a CPU node or one that cannot be read (warned about).
std::optional<AmdGpu> ReadKfdNode(DetectContext& context, const std::string& node, int number) {
  const std::string path = std::string(kKfdNodes) + node + "/properties";
  std::optional<std::string> text = context.ReadText(path, 16 * 1024);
  if (!text) return std::nullopt;  // a node masked by the cgroup (EPERM) was warned about
  std::optional<KfdNodeProperties> properties = ParseKfdProperties(*text);
  if (!properties) {
    context.Warn(path + ": no gfx_target_version line; node skipped");
    return std::nullopt;
  }
  if (properties->gfx_target_version == 0) return std::nullopt;  // a CPU node
  std::optional<std::string> gfx = GfxFromTargetVersion(properties->gfx_target_version);
  if (!gfx) {
    context.Warn(path + ": gfx_target_version " + std::to_string(properties->gfx_target_version) +
                 " does not decode to a gfx target; node skipped");
    return std::nullopt;
  }
  AmdGpu gpu;
  gpu.gfx = *gfx;
  gpu.kfd_node = number;
  if (properties->vendor_id == 0x1002 && properties->device_id != 0) gpu.pci_id = HexId(properties->device_id);
  return gpu;
}

// KFD nodes in numeric order; node 0 is usually the CPU (gfx_target_version 0). Whether the
// topology could be listed at all.
bool ReadKfdTopology(DetectContext& context, AmdFacts& amd) {
  std::vector<std::string> nodes = context.files().ListDirectory(kKfdNodes);
  std::sort(nodes.begin(), nodes.end(),
            [](const std::string& a, const std::string& b) { return NodeNumber(a) < NodeNumber(b); });
  for (const std::string& node : nodes) {
    const int number = NodeNumber(node);
    if (number < 0) continue;
    if (std::optional<AmdGpu> gpu = ReadKfdNode(context, node, number)) AddGfx(amd, std::move(*gpu));
  }
  if (!amd.gfx.empty()) amd.gfx_source = "/sys/class/kfd/kfd/topology/nodes";
  return !nodes.empty();
}

// Without a readable KFD, ROCm's own tool (bounded) is asked.
void AskRocmAgentEnumerator(DetectContext& context, AmdFacts& amd) {
  std::vector<std::string_view> dirs = {"/opt/rocm/bin"};
  std::string rocm_bin;
  if (std::optional<std::string> rocm = Lookup(context.deps.env, "ROCM_PATH")) {
    rocm_bin = *rocm + "/bin";
    dirs.insert(dirs.begin(), rocm_bin);
  }
  std::optional<std::string> tool = context.FindTool("rocm_agent_enumerator", dirs);
  if (!tool) return;
  ProcessResult result = context.RunTool("rocm_agent_enumerator", {*tool});
  if (!result.Succeeded()) return;
  for (const std::string& gfx : ParseRocmAgentEnumerator(result.output)) AddGfx(amd, AmdGpu{gfx, "", -1});
  if (!amd.gfx.empty()) amd.gfx_source = "rocm_agent_enumerator (" + *tool + ")";
  if (amd.gfx.empty()) context.SetProbeOutcome("no answer: no gfx target in the output");
}

// /dev/kfd's access, and the ROCm and amdgpu versions as hints.
void ReadAccessAndVersions(DetectContext& context, AmdFacts& amd) {
  const FileReader& files = context.files();
  if (files.Exists("/dev/kfd")) {
    amd.kfd_access = files.CanReadWrite("/dev/kfd");
    if (!amd.kfd_access) {
      context.Warn(
          "/dev/kfd is not readable and writable by this user: PyTorch will see no AMD "
          "GPU; add the user to the render (and video) group");
    }
  } else if (!amd.gfx.empty()) {
    context.Warn(
        "no /dev/kfd: the amdgpu driver exposes no compute device here (in a container, "
        "pass --device=/dev/kfd --device=/dev/dri)");
  }
  std::string rocm_version_path = "/opt/rocm/.info/version";
  if (std::optional<std::string> rocm = Lookup(context.deps.env, "ROCM_PATH")) {
    if (!rocm->empty() && rocm->front() == '/') rocm_version_path = *rocm + "/.info/version";
  }
  if (std::optional<std::string> text = context.ReadText(rocm_version_path, 4096)) {
    if (std::optional<std::string> version = ParseRocmVersionFile(*text)) {
      amd.rocm_version = *version;
    } else {
      context.Warn(rocm_version_path + ": unexpected contents " + Quote(*text) + "; ignored");
    }
  }
  if (std::optional<std::string> text = context.ReadText("/sys/module/amdgpu/version", 4096)) {
    const std::string_view version = Trim(*text);
    if (!version.empty()) amd.amdgpu_module_version = std::string(version);
  }
}

}  // namespace

void DetectAmdLinux(DetectContext& context, const std::vector<PciDisplayDevice>& pci) {
  const int64_t start = context.Now();
  AmdFacts amd;
  const bool kfd_readable = ReadKfdTopology(context, amd);
  const bool amd_display =
      std::any_of(pci.begin(), pci.end(), [](const PciDisplayDevice& device) { return device.vendor == 0x1002; });
  const bool evidence = !amd.gfx.empty() || amd_display || context.files().Exists("/sys/module/amdgpu");
  if (!kfd_readable && evidence && !context.overrides.amd_gfx) AskRocmAgentEnumerator(context, amd);
  if (!evidence && amd.gfx.empty()) {
    context.AddTiming("amd", start);
    return;
  }
  ReadAccessAndVersions(context, amd);
  if (amd.gfx.empty()) {
    context.Warn(
        "an AMD GPU driver is present but no gfx target was found (KFD topology "
        "unreadable and no rocm_agent_enumerator answer); set TORCHDEX_AMD_GPU_ARCH");
  }
  context.facts.amd = std::move(amd);
  context.AddTiming("amd", start);
}

}  // namespace torchdex::installer
