#include "codegen/tables.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "codegen/sha256.h"

namespace torchdex::codegen {
namespace {

using nlohmann::json;

// Validation stops at the first problem; it is carried out as an exception inside this file only
// and turned into an Expected at the Generate* boundary.
struct LocatedError {
  std::string pointer;  // JSON pointer into the data file, "" for the whole document
  std::string message;
};

[[noreturn]] void Fail(std::string pointer, std::string message) {
  throw LocatedError{std::move(pointer), std::move(message)};
}

std::string Child(const std::string& pointer, std::string_view key) {
  return pointer + "/" + std::string(key);
}
std::string Child(const std::string& pointer, size_t index) {
  return pointer + "/" + std::to_string(index);
}

const json& Require(const json& object, const std::string& pointer, const char* key) {
  if (!object.is_object()) Fail(pointer, "expected an object");
  auto it = object.find(key);
  if (it == object.end()) Fail(Child(pointer, key), std::string("missing \"") + key + "\"");
  return *it;
}

const json& RequireArray(const json& object, const std::string& pointer, const char* key) {
  const json& value = Require(object, pointer, key);
  if (!value.is_array()) Fail(Child(pointer, key), "expected an array");
  return value;
}

std::string RequireString(const json& object, const std::string& pointer, const char* key) {
  const json& value = Require(object, pointer, key);
  if (!value.is_string() || value.get_ref<const std::string&>().empty()) {
    Fail(Child(pointer, key), "expected a non-empty string");
  }
  return value.get<std::string>();
}

bool RequireBool(const json& object, const std::string& pointer, const char* key) {
  const json& value = Require(object, pointer, key);
  if (!value.is_boolean()) Fail(Child(pointer, key), "expected true or false");
  return value.get<bool>();
}

bool OptionalBool(const json& object, const std::string& pointer, const char* key) {
  auto it = object.find(key);
  if (it == object.end()) return false;
  if (!it->is_boolean()) Fail(Child(pointer, key), "expected true or false");
  return it->get<bool>();
}

// The top-level "sources": [{"id": ...}, ...] of a data file; rows cite them by id.
std::set<std::string> ReadSourceIds(const json& document) {
  std::set<std::string> ids;
  const json& sources = RequireArray(document, "", "sources");
  for (size_t i = 0; i < sources.size(); ++i) {
    std::string id = RequireString(sources[i], Child("/sources", i), "id");
    if (!ids.insert(id).second) Fail(Child(Child("/sources", i), "id"), "duplicate source id");
  }
  return ids;
}

// Every row carries "source": a non-empty list of source ids, each optionally followed by
// ":detail" ("linux-pciids:INTEL_DG2_IDS").
void RequireSource(const json& row, const std::string& pointer, const std::set<std::string>& ids) {
  auto it = row.find("source");
  if (it == row.end()) Fail(Child(pointer, "source"), "missing \"source\": every row cites one");
  if (!it->is_array() || it->empty()) {
    Fail(Child(pointer, "source"), "expected a non-empty array of source ids");
  }
  for (size_t i = 0; i < it->size(); ++i) {
    const json& entry = (*it)[i];
    if (!entry.is_string()) Fail(Child(Child(pointer, "source"), i), "expected a source id");
    const std::string& text = entry.get_ref<const std::string&>();
    const std::string id = text.substr(0, text.find(':'));
    if (!ids.contains(id)) {
      Fail(Child(Child(pointer, "source"), i),
           "unknown source id \"" + id + "\" (not in /sources)");
    }
  }
}

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

// Dotted decimal numbers: "8.6", "550.54.14". `parts` bounds how many components are allowed.
std::vector<unsigned> ParseDotted(const std::string& text, const std::string& pointer,
                                  size_t min_parts, size_t max_parts, const char* what) {
  std::vector<unsigned> numbers;
  size_t start = 0;
  while (true) {
    size_t end = text.find('.', start);
    std::string part = text.substr(start, end == std::string::npos ? end : end - start);
    if (part.empty() || part.size() > 6 ||
        !std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      numbers.clear();
      break;
    }
    numbers.push_back(static_cast<unsigned>(std::stoul(part)));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  if (numbers.size() < min_parts || numbers.size() > max_parts) {
    Fail(pointer, std::string("bad ") + what + " \"" + text + "\"");
  }
  return numbers;
}

// A C++ string literal: printable ASCII as is, the rest as octal escapes (never hex: a hex
// escape would swallow a following hex digit).
std::string Literal(std::string_view text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\%03o", c);
      out += buffer;
    }
  }
  return out + "\"";
}

std::string Hex4(unsigned id) {
  char buffer[8];
  std::snprintf(buffer, sizeof buffer, "0x%04x", id);
  return buffer;
}

std::string Banner(std::string_view data_file, std::string_view data_text) {
  return "// generated by torchdex-codegen from " + std::string(data_file) +
         " sha256=" + Sha256Hex(data_text) + "; do not edit\n";
}

json ParseDocument(std::string_view data_text) {
  json document = json::parse(data_text, nullptr, /*allow_exceptions=*/false);
  if (document.is_discarded()) Fail("", "not valid JSON");
  if (!document.is_object()) Fail("", "expected a JSON object at the top level");
  return document;
}

// Runs a generator body, turning a LocatedError into "file: /pointer: message".
template <typename Body>
core::Expected<std::string> Located(std::string_view data_file, Body body) {
  try {
    return body();
  } catch (const LocatedError& error) {
    std::string where = std::string(data_file) + ": ";
    if (!error.pointer.empty()) where += error.pointer + ": ";
    return core::MakeError(where + error.message);
  }
}

// Rejects a second row with the same key, naming where the first one was.
template <typename Key>
void RejectDuplicate(std::map<Key, std::string>& seen, const Key& key, const std::string& pointer,
                     const std::string& shown) {
  auto [it, inserted] = seen.emplace(key, pointer);
  if (!inserted) Fail(pointer, "duplicate " + shown + " (first at " + it->second + ")");
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
    out << Banner(data_file, data_text)
        << "// NVIDIA PCI device id (vendor 0x10de) -> compute capability, doubtful flag,\n"
        << "// architecture, name: " << rows.size() << " rows sorted by id. Read only by\n"
        << "// installer/detect/hardware_table.cc, which defines NvidiaGpuRow.\n"
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
    out << Banner(data_file, data_text)
        << "// Intel GPU platforms and whether PyTorch XPU wheels support them: "
        << platforms.size() << " rows sorted by name.\n"
        << "// Intel GPU PCI device id (vendor 0x8086) -> required class prefix (0: any display\n"
        << "// class), platform, name: " << rows.size() << " rows sorted by id.\n"
        << "// Read only by installer/detect/hardware_table.cc, which defines the row structs.\n"
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
    out << Banner(data_file, data_text)
        << "// CUDA release -> first Linux and Windows driver that supports it ({0, 0, 0}: none\n"
        << "// published): " << releases.size() << " rows sorted by CUDA version. Read only by\n"
        << "// installer/detect/hardware_table.cc, which defines CudaDriverRow.\n"
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

std::span<const TableSpec> AllTables() {
  static constexpr TableSpec kTables[] = {
      {"data/nvidia-gpus.json", "generated/nvidia_gpus.inc", &GenerateNvidiaGpus},
      {"data/intel-xpu-devices.json", "generated/intel_xpu_devices.inc", &GenerateIntelXpuDevices},
      {"data/nvidia-driver-cuda.json", "generated/nvidia_driver_cuda.inc",
       &GenerateNvidiaDriverCuda},
  };
  return kTables;
}

}  // namespace torchdex::codegen
