#include "codegen/tables.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "codegen/located.h"

namespace torchdex::codegen {
namespace {

using namespace detail;  // NOLINT: the helpers of codegen/located.h

// "0x2204" -> 0x2204. Lower-case, four hex digits, as sysfs writes them.
unsigned ParsePciId(const std::string& text, const std::string& pointer) {
  if (text.size() != 6 || text[0] != '0' || text[1] != 'x' ||
      !std::all_of(text.begin() + 2, text.end(),
                   [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); })) {
    Fail(pointer,
         "expected a PCI id such as \"0x2204\" (lower-case, 4 hex digits), got \"" + text + "\"");
  }
  return static_cast<unsigned>(std::stoul(text.substr(2), nullptr, 16));
}

std::string Hex4(unsigned id) {
  char buffer[8];
  std::snprintf(buffer, sizeof buffer, "0x%04x", id);
  return buffer;
}

struct NvidiaGpu {
  unsigned pci_id;
  unsigned cc_major;
  unsigned cc_minor;
  bool doubtful;
  std::string architecture;
  std::string name;
};

struct IntelGpu {
  unsigned pci_id;
  unsigned requires_class;  // 0: any display class
  std::string platform;
  std::string name;
};

struct IntelPlatform {
  std::string platform;
  bool xpu_supported;
  std::string support_level;
  std::string reason;
};

struct CudaRelease {
  std::vector<unsigned> cuda;
  std::vector<unsigned> linux_min;
  std::vector<unsigned> windows_min;  // empty: none published
};

std::string DriverInitializer(const std::vector<unsigned>& version) {
  std::array<unsigned, 3> parts{};
  for (size_t i = 0; i < version.size() && i < 3; ++i) parts[i] = version[i];
  // Appended piece by piece: g++ 12 warns (-Wrestrict, a false positive) on "{" + to_string().
  std::string text = "{";
  text += std::to_string(parts[0]);
  text += ", ";
  text += std::to_string(parts[1]);
  text += ", ";
  text += std::to_string(parts[2]);
  text += "}";
  return text;
}

}  // namespace

core::Expected<std::string> GenerateNvidiaGpus(std::string_view data_text,
                                               std::string_view data_file) {
  return Located(data_file, [&]() -> std::string {
    const json document = ParseDocument(data_text);
    const std::set<std::string> source_ids = ReadSourceIds(document);
    const json& devices = RequireArray(document, "", "devices");
    std::vector<NvidiaGpu> rows;
    std::map<unsigned, std::string> seen;
    for (size_t i = 0; i < devices.size(); ++i) {
      const std::string pointer = Child("/devices", i);
      const json& row = devices[i];
      NvidiaGpu gpu{};
      gpu.pci_id = ParsePciId(RequireString(row, pointer, "pci_id"), Child(pointer, "pci_id"));
      RejectDuplicate(seen, gpu.pci_id, Child(pointer, "pci_id"), "pci_id " + Hex4(gpu.pci_id));
      gpu.name = RequireString(row, pointer, "name");
      gpu.architecture = RequireString(row, pointer, "architecture");
      const std::string cc_pointer = Child(pointer, "compute_capability");
      const std::vector<unsigned> cc =
          ParseDotted(RequireString(row, pointer, "compute_capability"), cc_pointer, 2, 2,
                      "compute capability (expected MAJOR.MINOR such as \"8.6\")");
      if (cc[0] < 1 || cc[0] > 99 || cc[1] > 9) Fail(cc_pointer, "compute capability out of range");
      gpu.cc_major = cc[0];
      gpu.cc_minor = cc[1];
      gpu.doubtful = OptionalBool(row, pointer, "doubtful");
      RequireSource(row, pointer, source_ids);
      rows.push_back(std::move(gpu));
    }
    std::sort(rows.begin(), rows.end(),
              [](const NvidiaGpu& a, const NvidiaGpu& b) { return a.pci_id < b.pci_id; });

    std::ostringstream out;
    out << Banner(std::array{InputFile{data_file, data_text}})
        << "// NVIDIA PCI device id (vendor 0x10de) -> compute capability, doubtful flag,\n"
        << "// architecture, name: " << rows.size() << " rows sorted by id. Read only by\n"
        << "// installer/table/hardware_table.cc, which defines NvidiaGpuRow.\n"
        << "inline constexpr NvidiaGpuRow kNvidiaGpuRows[] = {\n";
    for (const NvidiaGpu& gpu : rows) {
      out << "    {" << Hex4(gpu.pci_id) << ", " << gpu.cc_major << ", " << gpu.cc_minor << ", "
          << (gpu.doubtful ? "true" : "false") << ", " << Literal(gpu.architecture) << ", "
          << Literal(gpu.name) << "},\n";
    }
    out << "};\n";
    return out.str();
  });
}

core::Expected<std::string> GenerateIntelXpuDevices(std::string_view data_text,
                                                    std::string_view data_file) {
  return Located(data_file, [&]() -> std::string {
    const json document = ParseDocument(data_text);
    const std::set<std::string> source_ids = ReadSourceIds(document);

    const json& platforms_json = RequireArray(document, "", "platforms");
    std::vector<IntelPlatform> platforms;
    std::map<std::string, std::string> seen_platforms;
    for (size_t i = 0; i < platforms_json.size(); ++i) {
      const std::string pointer = Child("/platforms", i);
      const json& row = platforms_json[i];
      IntelPlatform platform;
      platform.platform = RequireString(row, pointer, "platform");
      RejectDuplicate(seen_platforms, platform.platform, Child(pointer, "platform"),
                      "platform \"" + platform.platform + "\"");
      platform.xpu_supported = RequireBool(row, pointer, "xpu_supported");
      platform.support_level = RequireString(row, pointer, "support_level");
      platform.reason = RequireString(row, pointer, "reason");
      RequireSource(row, pointer, source_ids);
      platforms.push_back(std::move(platform));
    }

    const json& devices = RequireArray(document, "", "devices");
    std::vector<IntelGpu> rows;
    std::map<unsigned, std::string> seen;
    for (size_t i = 0; i < devices.size(); ++i) {
      const std::string pointer = Child("/devices", i);
      const json& row = devices[i];
      IntelGpu gpu{};
      gpu.pci_id = ParsePciId(RequireString(row, pointer, "pci_id"), Child(pointer, "pci_id"));
      RejectDuplicate(seen, gpu.pci_id, Child(pointer, "pci_id"), "pci_id " + Hex4(gpu.pci_id));
      gpu.name = RequireString(row, pointer, "name");
      gpu.platform = RequireString(row, pointer, "platform");
      if (!seen_platforms.contains(gpu.platform)) {
        Fail(Child(pointer, "platform"), "unknown platform \"" + gpu.platform + "\"");
      }
      if (row.contains("requires_class")) {
        gpu.requires_class = ParsePciId(RequireString(row, pointer, "requires_class"),
                                        Child(pointer, "requires_class"));
      }
      RequireSource(row, pointer, source_ids);
      rows.push_back(std::move(gpu));
    }
    std::sort(rows.begin(), rows.end(),
              [](const IntelGpu& a, const IntelGpu& b) { return a.pci_id < b.pci_id; });
    std::sort(
        platforms.begin(), platforms.end(),
        [](const IntelPlatform& a, const IntelPlatform& b) { return a.platform < b.platform; });

    std::ostringstream out;
    out << Banner(std::array{InputFile{data_file, data_text}})
        << "// Intel GPU platforms and whether PyTorch XPU wheels support them: "
        << platforms.size() << " rows sorted by name.\n"
        << "// Intel GPU PCI device id (vendor 0x8086) -> required class prefix (0: any display\n"
        << "// class), platform, name: " << rows.size() << " rows sorted by id.\n"
        << "// Read only by installer/table/hardware_table.cc, which defines the row structs.\n"
        << "inline constexpr IntelPlatformRow kIntelPlatformRows[] = {\n";
    for (const IntelPlatform& platform : platforms) {
      out << "    {" << Literal(platform.platform) << ", "
          << (platform.xpu_supported ? "true" : "false") << ", " << Literal(platform.support_level)
          << ",\n     " << Literal(platform.reason) << "},\n";
    }
    out << "};\n\ninline constexpr IntelGpuRow kIntelGpuRows[] = {\n";
    for (const IntelGpu& gpu : rows) {
      out << "    {" << Hex4(gpu.pci_id) << ", " << Hex4(gpu.requires_class) << ", "
          << Literal(gpu.platform) << ", " << Literal(gpu.name) << "},\n";
    }
    out << "};\n";
    return out.str();
  });
}

core::Expected<std::string> GenerateNvidiaDriverCuda(std::string_view data_text,
                                                     std::string_view data_file) {
  return Located(data_file, [&]() -> std::string {
    const json document = ParseDocument(data_text);
    const std::set<std::string> source_ids = ReadSourceIds(document);
    const json& releases_json = RequireArray(document, "", "releases");
    std::vector<CudaRelease> releases;
    std::map<std::vector<unsigned>, std::string> seen;
    std::vector<std::string> pointers;
    for (size_t i = 0; i < releases_json.size(); ++i) {
      const std::string pointer = Child("/releases", i);
      const json& row = releases_json[i];
      CudaRelease release;
      release.cuda = ParseDotted(RequireString(row, pointer, "cuda"), Child(pointer, "cuda"), 2, 2,
                                 "CUDA version (expected MAJOR.MINOR)");
      RejectDuplicate(seen, release.cuda, Child(pointer, "cuda"), "CUDA release");
      release.linux_min = ParseDotted(RequireString(row, pointer, "linux_min_driver"),
                                      Child(pointer, "linux_min_driver"), 2, 3, "driver version");
      const json& windows = Require(row, pointer, "windows_min_driver");
      if (!windows.is_null()) {
        release.windows_min =
            ParseDotted(RequireString(row, pointer, "windows_min_driver"),
                        Child(pointer, "windows_min_driver"), 2, 3, "driver version");
      }
      RequireSource(row, pointer, source_ids);
      releases.push_back(std::move(release));
      pointers.push_back(pointer);
    }
    // Sorted by CUDA version, the driver minimums must rise too: a table where they do not is a
    // typo (NVIDIA's own table had one: light-the-torch PR #143).
    std::vector<size_t> order(releases.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return releases[a].cuda < releases[b].cuda; });
    for (size_t k = 1; k < order.size(); ++k) {
      const CudaRelease& previous = releases[order[k - 1]];
      const CudaRelease& current = releases[order[k]];
      if (current.linux_min <= previous.linux_min) {
        Fail(Child(pointers[order[k]], "linux_min_driver"),
             "not above the driver of the previous CUDA release");
      }
      if (!current.windows_min.empty() && !previous.windows_min.empty() &&
          current.windows_min <= previous.windows_min) {
        Fail(Child(pointers[order[k]], "windows_min_driver"),
             "not above the driver of the previous CUDA release");
      }
    }

    std::ostringstream out;
    out << Banner(std::array{InputFile{data_file, data_text}})
        << "// CUDA release -> first Linux and Windows driver that supports it ({0, 0, 0}: none\n"
        << "// published): " << releases.size() << " rows sorted by CUDA version. Read only by\n"
        << "// installer/table/hardware_table.cc, which defines CudaDriverRow.\n"
        << "inline constexpr CudaDriverRow kCudaDriverRows[] = {\n";
    for (size_t index : order) {
      const CudaRelease& release = releases[index];
      out << "    {" << release.cuda[0] << ", " << release.cuda[1] << ", "
          << DriverInitializer(release.linux_min) << ", " << DriverInitializer(release.windows_min)
          << "},\n";
    }
    out << "};\n";
    return out.str();
  });
}

namespace {

// Adapts a single-input generator to the TableSpec interface.
template <core::Expected<std::string> (*Generate)(std::string_view, std::string_view)>
core::Expected<std::vector<OutputFile>> SingleOutput(std::span<const InputFile> inputs,
                                                     std::string_view output) {
  core::Expected<std::string> text = Generate(inputs[0].text, inputs[0].path);
  if (!text) return text.error();
  return std::vector<OutputFile>{{std::string(output), std::move(*text)}};
}

core::Expected<std::vector<OutputFile>> NvidiaGpusTable(std::span<const InputFile> inputs) {
  return SingleOutput<&GenerateNvidiaGpus>(inputs, "generated/nvidia_gpus.inc");
}
core::Expected<std::vector<OutputFile>> IntelXpuTable(std::span<const InputFile> inputs) {
  return SingleOutput<&GenerateIntelXpuDevices>(inputs, "generated/intel_xpu_devices.inc");
}
core::Expected<std::vector<OutputFile>> DriverCudaTable(std::span<const InputFile> inputs) {
  return SingleOutput<&GenerateNvidiaDriverCuda>(inputs, "generated/nvidia_driver_cuda.inc");
}
core::Expected<std::vector<OutputFile>> AcceleratorExtrasTable(std::span<const InputFile> inputs) {
  return SingleOutput<&GenerateAcceleratorExtras>(inputs, "generated/accelerator_extras.inc");
}
core::Expected<std::vector<OutputFile>> DependentIndexesTable(std::span<const InputFile> inputs) {
  return SingleOutput<&GenerateDependentIndexes>(inputs, "generated/dependent_indexes.inc");
}

size_t CountUsed(std::span<const std::string_view> names) {
  size_t count = 0;
  while (count < names.size() && !names[count].empty()) ++count;
  return count;
}

}  // namespace

std::span<const std::string_view> TableSpec::Inputs() const {
  return std::span(inputs).first(CountUsed(inputs));
}
std::span<const std::string_view> TableSpec::Outputs() const {
  return std::span(outputs).first(CountUsed(outputs));
}

std::span<const TableSpec> AllTables() {
  static constexpr TableSpec kTables[] = {
      {{"data/nvidia-gpus.json"}, {"generated/nvidia_gpus.inc"}, &NvidiaGpusTable},
      {{"data/intel-xpu-devices.json"}, {"generated/intel_xpu_devices.inc"}, &IntelXpuTable},
      {{"data/cuda-drivers.json"}, {"generated/nvidia_driver_cuda.inc"}, &DriverCudaTable},
      {{"generated/catalogue.json", "data/cuda-drivers.json", "data/cuda-archs.json",
        "data/rocm-archs.json", "generated/catalogue-test.json",
        "generated/catalogue-nightly.json"},
       {"generated/catalogue_table.inc", "docs/reference/packages.md",
        "docs/reference/backends.md"},
       &GenerateCatalogueTable},
      {{"data/accelerator-extras.json"}, {"generated/accelerator_extras.inc"}, &AcceleratorExtrasTable},
      {{"data/dependent-indexes.json"}, {"generated/dependent_indexes.inc"}, &DependentIndexesTable},
      {{"data/indexes.json", "data/cuda-drivers.json", "generated/family-*.json"},
       {"generated/family_table.inc"},
       &GenerateFamilyTable},
  };
  return kTables;
}

}  // namespace torchdex::codegen
