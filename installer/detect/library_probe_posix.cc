// The child-side half of the library probes: dlopen and the NVML / CUDA driver API calls.
// Only the symbols used are declared here, with the types of nvml.h and cuda.h.
#include <dlfcn.h>

#include <cstdio>
#include <cstring>

#include "installer/detect/library_probe.h"
#include "installer/detect/nvidia_parsers.h"

namespace torchdex::installer {
namespace {

void* OpenFirst(const std::vector<std::string>& candidates, std::string& loaded) {
  for (const std::string& candidate : candidates) {
    if (void* handle = ::dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      loaded = candidate;
      return handle;
    }
  }
  return nullptr;
}

template <typename Function>
Function Symbol(void* handle, const char* name) {
  return reinterpret_cast<Function>(::dlsym(handle, name));
}

template <typename Function>
Function SymbolOr(void* handle, const char* name, const char* fallback) {
  if (auto function = Symbol<Function>(handle, name)) return function;
  return Symbol<Function>(handle, fallback);
}

std::optional<core::ComputeCapability> Cc(int major, int minor) {
  if (major <= 0 || major > 99 || minor < 0 || minor > 9) return std::nullopt;
  return core::ComputeCapability{static_cast<std::uint8_t>(major), static_cast<std::uint8_t>(minor)};
}

// nvml.h: nvmlPciInfo_t as taken by nvmlDeviceGetPciInfo_v3.
struct NvmlPciInfo {
  char bus_id_legacy[16];
  unsigned domain;
  unsigned bus;
  unsigned device;
  unsigned pci_device_id;
  unsigned pci_subsystem_id;
  char bus_id[32];
};

using NvmlDevice = void*;
using NvmlVoid = int (*)();
using NvmlString = int (*)(char*, unsigned);
using NvmlInt = int (*)(int*);
using NvmlCount = int (*)(unsigned*);
using NvmlHandle = int (*)(unsigned, NvmlDevice*);
using NvmlDeviceString = int (*)(NvmlDevice, char*, unsigned);
using NvmlDeviceCc = int (*)(NvmlDevice, int*, int*);
using NvmlDevicePci = int (*)(NvmlDevice, NvmlPciInfo*);

using CuInit = int (*)(unsigned);
using CuInt = int (*)(int*);
using CuDeviceGet = int (*)(int*, int);
using CuAttribute = int (*)(int*, int, int);
using CuDeviceString = int (*)(char*, int, int);
struct CuUuid {
  unsigned char bytes[16];
};
using CuDeviceUuid = int (*)(CuUuid*, int);

constexpr int kCuAttributeComputeCapabilityMajor = 75;
constexpr int kCuAttributeComputeCapabilityMinor = 76;

std::string FormatUuid(const CuUuid& uuid) {
  char text[48];
  const unsigned char* b = uuid.bytes;
  std::snprintf(text, sizeof text,
                "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
                b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
                b[14], b[15]);
  return text;
}

}  // namespace

std::string ProbeNvml(const std::vector<std::string>& candidates) {
  ProbeAnswer answer;
  void* nvml = OpenFirst(candidates, answer.library);
  if (nvml == nullptr) {
    answer.error = "no NVML library loaded";
    return FormatProbeAnswer(answer);
  }
  auto init = SymbolOr<NvmlVoid>(nvml, "nvmlInit_v2", "nvmlInit");
  auto shutdown = Symbol<NvmlVoid>(nvml, "nvmlShutdown");
  auto driver_version = Symbol<NvmlString>(nvml, "nvmlSystemGetDriverVersion");
  auto cuda_version = SymbolOr<NvmlInt>(nvml, "nvmlSystemGetCudaDriverVersion_v2",
                                        "nvmlSystemGetCudaDriverVersion");
  auto count = SymbolOr<NvmlCount>(nvml, "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount");
  auto handle_by_index =
      SymbolOr<NvmlHandle>(nvml, "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex");
  auto name = Symbol<NvmlDeviceString>(nvml, "nvmlDeviceGetName");
  auto uuid = Symbol<NvmlDeviceString>(nvml, "nvmlDeviceGetUUID");
  auto compute_capability = Symbol<NvmlDeviceCc>(nvml, "nvmlDeviceGetCudaComputeCapability");
  auto pci_info = Symbol<NvmlDevicePci>(nvml, "nvmlDeviceGetPciInfo_v3");
  if (init == nullptr) {
    answer.error = "no nvmlInit in " + answer.library;
    return FormatProbeAnswer(answer);
  }
  // rattler asks for the CUDA version before nvmlInit too: some drivers answer without waking
  // the GPU. nvmlInit is still needed for the devices.
  if (const int status = init(); status != 0) {
    answer.error = "nvmlInit returned " + std::to_string(status);
    return FormatProbeAnswer(answer);
  }
  char text[96] = {};
  if (driver_version != nullptr && driver_version(text, sizeof text) == 0) {
    answer.driver_version = ParseDriverVersion(text);
  }
  int cuda = 0;
  if (cuda_version != nullptr && cuda_version(&cuda) == 0) answer.cuda_version = cuda;
  unsigned devices = 0;
  if (count != nullptr && handle_by_index != nullptr && count(&devices) == 0) {
    answer.devices_counted = true;
    for (unsigned i = 0; i < devices && i < 64; ++i) {
      NvmlDevice device = nullptr;
      if (handle_by_index(i, &device) != 0) continue;
      ProbeGpu gpu;
      int major = 0, minor = 0;
      if (compute_capability != nullptr && compute_capability(device, &major, &minor) == 0) {
        gpu.compute_capability = Cc(major, minor);
      }
      std::memset(text, 0, sizeof text);
      if (name != nullptr && name(device, text, sizeof text) == 0) gpu.name = text;
      std::memset(text, 0, sizeof text);
      if (uuid != nullptr && uuid(device, text, sizeof text) == 0) gpu.uuid = text;
      NvmlPciInfo pci = {};
      if (pci_info != nullptr && pci_info(device, &pci) == 0) {
        pci.bus_id[sizeof pci.bus_id - 1] = '\0';
        gpu.pci_bus_id = NormalizePciBusId(pci.bus_id);
      }
      answer.gpus.push_back(std::move(gpu));
    }
  }
  if (shutdown != nullptr) shutdown();
  return FormatProbeAnswer(answer);
}

std::string ProbeLibcuda(const std::vector<std::string>& candidates) {
  ProbeAnswer answer;
  void* cuda = OpenFirst(candidates, answer.library);
  if (cuda == nullptr) {
    answer.error = "no libcuda loaded";
    return FormatProbeAnswer(answer);
  }
  auto init = Symbol<CuInit>(cuda, "cuInit");
  auto driver_version = Symbol<CuInt>(cuda, "cuDriverGetVersion");
  auto count = Symbol<CuInt>(cuda, "cuDeviceGetCount");
  auto device_get = Symbol<CuDeviceGet>(cuda, "cuDeviceGet");
  auto attribute = Symbol<CuAttribute>(cuda, "cuDeviceGetAttribute");
  auto name = Symbol<CuDeviceString>(cuda, "cuDeviceGetName");
  auto bus_id = Symbol<CuDeviceString>(cuda, "cuDeviceGetPCIBusId");
  auto uuid = SymbolOr<CuDeviceUuid>(cuda, "cuDeviceGetUuid_v2", "cuDeviceGetUuid");
  // cuDriverGetVersion works without cuInit: ask first, so a failing cuInit (no device, or
  // CUDA_ERROR_NO_DEVICE in a container) still yields the version.
  int version = 0;
  if (driver_version != nullptr && driver_version(&version) == 0) answer.cuda_version = version;
  if (init == nullptr) {
    answer.error = "no cuInit in " + answer.library;
    return FormatProbeAnswer(answer);
  }
  if (const int status = init(0); status != 0) {
    answer.error = "cuInit returned " + std::to_string(status);
    return FormatProbeAnswer(answer);
  }
  int devices = 0;
  if (count != nullptr && device_get != nullptr && count(&devices) == 0) {
    answer.devices_counted = true;
    for (int i = 0; i < devices && i < 64; ++i) {
      int device = 0;
      if (device_get(&device, i) != 0) continue;
      ProbeGpu gpu;
      int major = 0, minor = 0;
      if (attribute != nullptr &&
          attribute(&major, kCuAttributeComputeCapabilityMajor, device) == 0 &&
          attribute(&minor, kCuAttributeComputeCapabilityMinor, device) == 0) {
        gpu.compute_capability = Cc(major, minor);
      }
      char text[96] = {};
      if (name != nullptr && name(text, sizeof text - 1, device) == 0) gpu.name = text;
      std::memset(text, 0, sizeof text);
      if (bus_id != nullptr && bus_id(text, sizeof text - 1, device) == 0) {
        gpu.pci_bus_id = NormalizePciBusId(text);
      }
      CuUuid id = {};
      if (uuid != nullptr && uuid(&id, device) == 0) gpu.uuid = FormatUuid(id);
      answer.gpus.push_back(std::move(gpu));
    }
  }
  return FormatProbeAnswer(answer);
}

}  // namespace torchdex::installer
