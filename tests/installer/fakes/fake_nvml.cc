// A fake libnvidia-ml.so.1, built three times (tests/CMakeLists.txt): FAKE_MODE 0 answers like a
// two-GPU WSL host, 1 hangs in nvmlInit, 2 crashes in nvmlInit. Only the symbols torchdex uses.
#include <unistd.h>
#include <csignal>
#include <cstdio>
#include <cstring>

#ifndef FAKE_MODE
#define FAKE_MODE 0
#endif

namespace {

struct PciInfo {  // nvml.h nvmlPciInfo_t (v3)
  char bus_id_legacy[16];
  unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
  char bus_id[32];
};

struct FakeGpu {
  const char* name;
  int major, minor;
  const char* uuid;
  const char* bus_id;
};

constexpr FakeGpu kGpus[] = {
    {"NVIDIA GeForce RTX 4090", 8, 9, "GPU-0a1b2c3d-1111-2222-3333-444455556666",
     "00000000:01:00.0"},
    {"NVIDIA GeForce RTX 3060", 8, 6, "GPU-9f8e7d6c-aaaa-bbbb-cccc-ddddeeeeffff",
     "00000000:2B:00.0"},
};

void Copy(char* out, unsigned size, const char* text) { std::snprintf(out, size, "%s", text); }

}  // namespace

extern "C" {

int nvmlInit_v2() {
#if FAKE_MODE == 1
  while (true) pause();  // a wedged driver: nvmlInit never returns
#elif FAKE_MODE == 2
  std::raise(SIGSEGV);
#endif
  return 0;
}
int nvmlShutdown() { return 0; }
int nvmlSystemGetDriverVersion(char* out, unsigned size) {
  Copy(out, size, "572.60");
  return 0;
}
int nvmlSystemGetCudaDriverVersion_v2(int* version) {
  *version = 12080;
  return 0;
}
int nvmlDeviceGetCount_v2(unsigned* count) {
  *count = 2;
  return 0;
}
int nvmlDeviceGetHandleByIndex_v2(unsigned index, void** device) {
  if (index >= 2) return 2;  // NVML_ERROR_INVALID_ARGUMENT
  *device = const_cast<FakeGpu*>(&kGpus[index]);
  return 0;
}
int nvmlDeviceGetName(void* device, char* out, unsigned size) {
  Copy(out, size, static_cast<FakeGpu*>(device)->name);
  return 0;
}
int nvmlDeviceGetUUID(void* device, char* out, unsigned size) {
  Copy(out, size, static_cast<FakeGpu*>(device)->uuid);
  return 0;
}
int nvmlDeviceGetCudaComputeCapability(void* device, int* major, int* minor) {
  *major = static_cast<FakeGpu*>(device)->major;
  *minor = static_cast<FakeGpu*>(device)->minor;
  return 0;
}
int nvmlDeviceGetPciInfo_v3(void* device, PciInfo* info) {
  std::memset(info, 0, sizeof *info);
  Copy(info->bus_id, sizeof info->bus_id, static_cast<FakeGpu*>(device)->bus_id);
  return 0;
}

}  // extern "C"
