// The generated tables: each is a data file in data/ turned into a sorted constexpr array under
// generated/ by a pure function from text to text. To add a table (the package catalogue, a
// driver floor table), write its Generate function and add a row to AllTables().
#ifndef TORCHDEX_CODEGEN_TABLES_H_
#define TORCHDEX_CODEGEN_TABLES_H_

#include <span>
#include <string>
#include <string_view>

#include "core/expected.h"

namespace torchdex::codegen {

// `data_file` is the name to put in error messages and in the banner ("data/nvidia-gpus.json").
// The result is the whole generated file, or an error naming data_file and a JSON pointer.
using GenerateFunction = core::Expected<std::string> (*)(std::string_view data_text,
                                                         std::string_view data_file);

struct TableSpec {
  std::string_view data_file;       // relative to the repository root
  std::string_view generated_file;  // relative to the repository root
  GenerateFunction generate;
};

// Every table torchdex-codegen writes, in a fixed order.
std::span<const TableSpec> AllTables();

// NVIDIA PCI device id -> name, architecture, compute capability (data/nvidia-gpus.json).
core::Expected<std::string> GenerateNvidiaGpus(std::string_view data_text,
                                               std::string_view data_file);
// Intel GPU PCI device id -> platform and PyTorch XPU support (data/intel-xpu-devices.json).
core::Expected<std::string> GenerateIntelXpuDevices(std::string_view data_text,
                                                    std::string_view data_file);
// CUDA release -> first Linux and Windows driver that supports it (data/nvidia-driver-cuda.json).
core::Expected<std::string> GenerateNvidiaDriverCuda(std::string_view data_text,
                                                     std::string_view data_file);

}  // namespace torchdex::codegen

#endif  // TORCHDEX_CODEGEN_TABLES_H_
