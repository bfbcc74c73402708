// A fake libcuda.so.1, built three times (tests/CMakeLists.txt): FAKE_MODE 0 answers like a
// Jetson Orin (one GPU, 8.7, CUDA 12.6), 1 hangs in cuInit, 2 crashes in cuInit. Like the real
// one, cuInit fails with CUDA_ERROR_NO_DEVICE (100) when CUDA_VISIBLE_DEVICES is set but empty
// (conda PR #11667): the probe must remove it.
#include <unistd.h>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#ifndef FAKE_MODE
#define FAKE_MODE 0
#endif

extern "C" {

int cuDriverGetVersion(int* version) {
  *version = 12060;
  return 0;
}
int cuInit(unsigned) {
#if FAKE_MODE == 1
  while (true) pause();
#elif FAKE_MODE == 2
  std::abort();
#endif
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  if (visible != nullptr && *visible == '\0') return 100;
  return 0;
}
int cuDeviceGetCount(int* count) {
  *count = 1;
  return 0;
}
int cuDeviceGet(int* device, int ordinal) {
  if (ordinal != 0) return 101;  // CUDA_ERROR_INVALID_DEVICE
  *device = 0;
  return 0;
}
int cuDeviceGetAttribute(int* value, int attribute, int) {
  if (attribute == 75)
    *value = 8;
  else if (attribute == 76)
    *value = 7;
  else
    return 1;
  return 0;
}
int cuDeviceGetName(char* out, int size, int) {
  std::snprintf(out, static_cast<size_t>(size), "%s", "Orin (nvgpu)");
  return 0;
}

}  // extern "C"
