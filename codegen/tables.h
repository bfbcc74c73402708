// The generated tables: each is a pure function from the text of its input files (data/*.json,
// generated/catalogue.json) to the text of its output files (generated/*.inc, docs/reference/).
// To add a table, write its Generate function and add a row to AllTables().
#ifndef TORCHDEX_CODEGEN_TABLES_H_
#define TORCHDEX_CODEGEN_TABLES_H_

#include <array>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.h"

namespace torchdex::codegen {

// One input of a generator: its path relative to the repository root (as errors and banners
// name it) and its bytes.
struct InputFile {
  std::string_view path;
  std::string_view text;
};

// One output: its path relative to the repository root and the whole content.
struct OutputFile {
  std::string path;
  std::string content;
};

// The result is every output file, or an error naming an input file and a JSON pointer.
using GenerateFunction =
    core::Expected<std::vector<OutputFile>> (*)(std::span<const InputFile> inputs);

struct TableSpec {
  // Relative to the repository root; "" unused. An input ending in "*.json"
  // ("generated/family-*.json") stands for every such file of its folder, in name order, none
  // included.
  std::array<std::string_view, 6> inputs;
  std::array<std::string_view, 3> outputs;  // what `generate` writes, in order; "" unused
  GenerateFunction generate;

  std::span<const std::string_view> Inputs() const;
  std::span<const std::string_view> Outputs() const;
};

// Every table torchdex-codegen writes, in a fixed order.
std::span<const TableSpec> AllTables();

// Single-input generators: the text of one data file in, the text of one .inc out.
// `data_file` is the name to put in error messages and in the banner ("data/nvidia-gpus.json").

// NVIDIA PCI device id -> name, architecture, compute capability (data/nvidia-gpus.json).
core::Expected<std::string> GenerateNvidiaGpus(std::string_view data_text,
                                               std::string_view data_file);
// Intel GPU PCI device id -> platform and PyTorch XPU support (data/intel-xpu-devices.json).
core::Expected<std::string> GenerateIntelXpuDevices(std::string_view data_text,
                                                    std::string_view data_file);
// CUDA release -> first Linux and Windows driver that supports it (data/cuda-drivers.json).
core::Expected<std::string> GenerateNvidiaDriverCuda(std::string_view data_text,
                                                     std::string_view data_file);

// The package table: inputs in this order: the catalogue (generated/catalogue.json),
// data/cuda-drivers.json, data/cuda-archs.json, data/rocm-archs.json. Outputs:
// generated/catalogue_table.inc, docs/reference/packages.md, docs/reference/backends.md.
core::Expected<std::vector<OutputFile>> GenerateCatalogueTable(std::span<const InputFile> inputs);

// The family table: inputs data/indexes.json, data/cuda-drivers.json, then any number of family
// catalogues generated/family-<name>.json. Output: generated/family_table.inc.
core::Expected<std::vector<OutputFile>> GenerateFamilyTable(std::span<const InputFile> inputs);

// Extras that choose a package's accelerator (data/accelerator-extras.json) ->
// generated/accelerator_extras.inc.
core::Expected<std::string> GenerateAcceleratorExtras(std::string_view data_text, std::string_view data_file);

// Indexes keyed by the chosen torch (data/dependent-indexes.json: PyG's find-links pages) ->
// generated/dependent_indexes.inc.
core::Expected<std::string> GenerateDependentIndexes(std::string_view data_text, std::string_view data_file);

// Checks a data file against its JSON Schema (the subset described in data/schema/*.json) and
// that it is in canonical form: parsing it and writing it back with sorted keys, a one-space
// indent and a trailing newline gives the same bytes. Errors: "data/x.json: /pointer: what".
// `canonical` false checks the schema only (files other components read and lay out by hand).
core::Status CheckDataFile(const InputFile& data, const InputFile& schema, bool canonical = true);

// The canonical form of a JSON text (what CheckDataFile compares against); an error when the
// text is not JSON.
core::Expected<std::string> CanonicalJson(std::string_view text, std::string_view file);

}  // namespace torchdex::codegen

#endif  // TORCHDEX_CODEGEN_TABLES_H_
