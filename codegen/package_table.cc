// GenerateCatalogueTable: generated/catalogue.json + the curated driver and arch data ->
// generated/catalogue_table.inc (sorted constexpr arrays, interned strings) and the reference
// pages docs/reference/packages.md and backends.md. The row types are defined by the one
// consumer, installer/table/catalogue_table.h; the layout is described there.
#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "catalogue/catalogue.h"
#include "codegen/located.h"
#include "codegen/tables.h"
#include "core/accelerator.h"
#include "core/name.h"
#include "core/text.h"
#include "core/version.h"

namespace torchdex::codegen {
namespace {

using namespace detail;  // NOLINT: the helpers of codegen/located.h

constexpr const char* kClasses[] = {"routed", "companion", "mirror", "stale"};
constexpr const char* kClassEnums[] = {"kRouted", "kCompanion", "kMirror", "kStale"};

using core::BackendKind;
using Driver = core::DriverVersion;  // Driver{}: unknown

// The channels a table can hold, in the order of its inputs (stable first).
constexpr const char* kChannels[] = {"stable", "test", "nightly"};
constexpr size_t kChannelCount = 3;

struct BackendOut {
  std::string name;
  BackendKind kind = BackendKind::kOther;
  std::array<std::optional<core::BackendState>, kChannelCount> states;  // per channel; nullopt when not in it
  std::string toolkit;
  std::vector<unsigned> cuda_toolkit;  // {12, 8} for a CUDA backend
  bool legacy = false;
  core::BackendState state = core::BackendState::kOk;
  Driver linux_floor{}, windows_floor{}, linux_toolkit{}, windows_toolkit{};
};

struct VersionOut {
  core::Version parsed;
  std::string text;
  size_t wheel_set = 0;
};

struct BuildOut {
  size_t backend = 0;
  size_t channel = 0;                // index into kChannels
  std::vector<VersionOut> versions;  // PEP 440 order
  const char* source = "kPage";      // BuildSource: kPage, kFlatPage, kNotCrawled
  const catalogue::VersionTags* tags = nullptr;  // the catalogue's versions and wheel tags
};

struct ProjectOut {
  std::string name;
  size_t cls = 0;
  std::string reason;
  std::vector<BuildOut> builds;  // by backend index
};

// A torch release as a number: 2.8 -> 2008000, 2.11.1 -> 2011001. kOpen: no upper bound.
constexpr std::uint32_t kOpen = 0xffffffff;

struct ArchRange {
  size_t backend = 0;
  std::string cpu_arch;  // "x86_64", "aarch64"
  std::string ptx;       // "no", "yes", "linux"
  std::string ptx_target;  // "sm_50": the PTX's architecture; empty without PTX
  std::uint32_t torch_min = 0, torch_below = kOpen;
  std::string torch_min_text, torch_below_text;
  std::vector<std::string> targets;  // "sm_50", "gfx90a"
  bool cuda = false;
  bool unknown = false;  // searched, not found: in the docs, not in the table
  std::string note;
};

// A real architecture a range of CUDA toolkits can build (data/cuda-archs.json toolkit_targets).
struct ToolkitTarget {
  std::string target;                // "sm_86"
  std::vector<unsigned> cuda_min;    // {11, 1}
  std::vector<unsigned> cuda_below;  // empty: still built
};

// What data/cuda-archs.json says beyond the per-build rows.
struct CudaRules {
  std::vector<ToolkitTarget> toolkit_targets;
  std::vector<std::string> integrated;  // "sm_87": runs only its own cubins
};

std::string SmName(const std::vector<unsigned>& cc) {
  return "sm_" + std::to_string(cc[0]) + std::to_string(cc[1]);
}

std::uint32_t TorchKey(const std::string& text, const std::string& pointer) {
  const std::vector<unsigned> parts = ParseDotted(text, pointer, 2, 3, "torch release");
  if (parts[0] > 999 || parts[1] > 999 || (parts.size() > 2 && parts[2] > 999)) {
    Fail(pointer, "torch release out of range");
  }
  return parts[0] * 1000000 + parts[1] * 1000 + (parts.size() > 2 ? parts[2] : 0);
}

std::string DriverText(const Driver& driver) { return driver.known() ? driver.ToString() : "—"; }

// The row's initialiser: DriverVersion's constexpr constructor from numbers.
// "core::BackendState::kOk"; "std::nullopt" for a channel without the backend.
std::string StateInit(std::optional<core::BackendState> state) {
  if (!state) return "std::nullopt";
  return "core::BackendState::" + std::string(core::BackendStateEnumerator(*state));
}

std::string DriverInit(const Driver& driver) {
  return "{" + std::to_string(driver.part(0)) + ", " + std::to_string(driver.part(1)) + ", " +
         std::to_string(driver.part(2)) + "}";
}

// A driver version of the data ("525.60.13", "580"): the one parser, with the location.
Driver ReadDriver(const json& row, const std::string& pointer, const char* key) {
  const std::string text = RequireString(row, pointer, key);
  const std::optional<Driver> driver = Driver::Parse(text);
  if (!driver || driver->size() > 3) {
    Fail(Child(pointer, key), "expected a driver version (1 to 3 dot-separated numbers), got \"" + text + "\"");
  }
  return *driver;
}

// Toolkit versions compare as numbers ("12.10" after "12.9"); non-numeric ones sort first.
std::vector<unsigned> ToolkitKey(const std::string& toolkit) {
  std::vector<unsigned> key;
  size_t start = 0;
  while (start <= toolkit.size() && !toolkit.empty()) {
    const size_t end = toolkit.find('.', start);
    const std::string part = toolkit.substr(start, end == std::string::npos ? end : end - start);
    if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos) return {};
    key.push_back(static_cast<unsigned>(std::stoul(part)));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return key;
}

// Markdown table cell: no raw '|' or line breaks.
std::string Cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n' || c == '\r') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

using core::Join;

std::string RangeText(const ArchRange& range) {
  return range.torch_below == kOpen ? ">= " + range.torch_min_text
                                    : range.torch_min_text + " to < " + range.torch_below_text;
}

// Splits "cp310-abi3-manylinux_2_24_x86_64.manylinux_2_28_x86_64" into its tags (the compressed
// tag set of PEP 425: every combination of the dotted parts).
std::vector<std::array<std::string, 3>> ExpandTags(const std::string& spelled,
                                                   const std::string& pointer) {
  std::vector<std::vector<std::string>> parts;
  size_t start = 0;
  for (int i = 0; i < 3; ++i) {
    const size_t end = spelled.find('-', start);
    if ((i < 2) == (end == std::string::npos)) {
      Fail(pointer, "expected wheel tags PYTHON-ABI-PLATFORM, got \"" + spelled + "\"");
    }
    const std::string field = spelled.substr(start, end == std::string::npos ? end : end - start);
    std::vector<std::string> alternatives;
    size_t dot_start = 0;
    while (true) {
      const size_t dot = field.find('.', dot_start);
      alternatives.push_back(
          field.substr(dot_start, dot == std::string::npos ? dot : dot - dot_start));
      if (alternatives.back().empty()) Fail(pointer, "empty tag in \"" + spelled + "\"");
      if (dot == std::string::npos) break;
      dot_start = dot + 1;
    }
    parts.push_back(std::move(alternatives));
    start = end + 1;
  }
  std::vector<std::array<std::string, 3>> tags;
  for (const std::string& python : parts[0]) {
    for (const std::string& abi : parts[1]) {
      for (const std::string& platform : parts[2]) tags.push_back({python, abi, platform});
    }
  }
  return tags;
}

// Reads data/cuda-drivers.json: per CUDA release the Table 3 drivers, per major the MVC floor.
struct CudaDrivers {
  std::map<std::vector<unsigned>, std::pair<Driver, Driver>> releases;  // {12, 8} -> linux, windows
  std::map<unsigned, std::pair<Driver, Driver>> majors;
};

CudaDrivers ReadCudaDrivers(const InputFile& input) {
  try {
    const json document = ParseDocument(input.text);
    const std::set<std::string> ids = ReadSourceIds(document);
    CudaDrivers drivers;
    const json& releases = RequireArray(document, "", "releases");
    std::vector<unsigned> previous;
    for (size_t i = 0; i < releases.size(); ++i) {
      const std::string pointer = Child("/releases", i);
      const std::vector<unsigned> cuda = ParseDotted(RequireString(releases[i], pointer, "cuda"),
                                                     Child(pointer, "cuda"), 2, 2, "CUDA version");
      if (!previous.empty() && cuda <= previous) {
        Fail(Child(pointer, "cuda"), "not above the previous row (rows sorted by CUDA version)");
      }
      previous = cuda;
      const Driver linux_min =
          ReadDriver(releases[i], pointer, "linux_min_driver");
      Driver windows_min{};
      if (!Require(releases[i], pointer, "windows_min_driver").is_null()) {
        windows_min =
            ReadDriver(releases[i], pointer, "windows_min_driver");
      }
      RequireSource(releases[i], pointer, ids);
      drivers.releases[cuda] = {linux_min, windows_min};
    }
    const json& majors = RequireArray(document, "", "majors");
    for (size_t i = 0; i < majors.size(); ++i) {
      const std::string pointer = Child("/majors", i);
      const json& major = Require(majors[i], pointer, "cuda_major");
      if (!major.is_number_unsigned())
        Fail(Child(pointer, "cuda_major"), "expected a CUDA major version");
      const unsigned value = major.get<unsigned>();
      if (!drivers.majors.empty() && value <= drivers.majors.rbegin()->first) {
        Fail(Child(pointer, "cuda_major"),
             "not above the previous row (rows sorted by cuda_major)");
      }
      drivers.majors[value] = {
          ReadDriver(majors[i], pointer, "linux_min_driver"),
          ReadDriver(majors[i], pointer, "windows_min_driver")};
      RequireSource(majors[i], pointer, ids);
    }
    return drivers;
  } catch (LocatedError& error) {
    if (error.file.empty()) error.file = std::string(input.path);
    throw;
  }
}

// Reads data/cuda-archs.json or data/rocm-archs.json, checking every backend against the
// catalogue and the ranges for order and overlap.
// The row's backend: its index in the table, or nullopt for a backend the catalogue lacks
// (curated data may run ahead of the index, rows for cu132 before its first wheel, and a
// catalogue crawled from a partial mirror may lack a backend: such rows are checked, then left
// out of the table). A name that is no backend of this kind at all is an error.
std::optional<size_t> ReadRangeBackend(const json& row, const std::string& pointer, bool cuda,
                                       const std::map<std::string, size_t>& backend_index,
                                       const std::vector<BackendOut>& backends) {
  const char* const kind = cuda ? "cuda" : "rocm";
  const std::string backend = RequireString(row, pointer, "backend");
  auto found = backend_index.find(backend);
  if (found == backend_index.end()) {
    if (!std::regex_match(backend, std::regex(cuda ? "cu[0-9]+" : "rocm[0-9]+(\\.[0-9]+)+"))) {
      Fail(Child(pointer, "backend"), "backend \"" + backend + "\" is not in the catalogue, nor a " + kind +
                                          " backend name");
    }
    return std::nullopt;
  }
  if (core::BackendKindWord(backends[found->second].kind) != std::string_view(kind)) {
    Fail(Child(pointer, "backend"), "backend \"" + backend + "\" is a " +
                                        std::string(core::BackendKindWord(backends[found->second].kind)) +
                                        " backend in the catalogue, not " + kind);
  }
  return found->second;
}

// cpu_arch, torch_min and torch_below (null: open).
void ReadRangeBounds(const json& row, const std::string& pointer, ArchRange& range) {
  range.cpu_arch = RequireString(row, pointer, "cpu_arch");
  if (range.cpu_arch != "x86_64" && range.cpu_arch != "aarch64") Fail(Child(pointer, "cpu_arch"), "expected x86_64 or aarch64");
  range.torch_min_text = RequireString(row, pointer, "torch_min");
  range.torch_min = TorchKey(range.torch_min_text, Child(pointer, "torch_min"));
  if (Require(row, pointer, "torch_below").is_null()) return;
  range.torch_below_text = RequireString(row, pointer, "torch_below");
  range.torch_below = TorchKey(range.torch_below_text, Child(pointer, "torch_below"));
  if (range.torch_below <= range.torch_min) Fail(Child(pointer, "torch_below"), "empty range: not above torch_min");
}

// A CUDA row's cubins (ascending, unique) and PTX: "X+PTX" builds X's cubin and PTX; without
// ptx_arch, X is the newest cubin.
void ReadCubins(const json& row, const std::string& pointer, ArchRange& range) {
  range.ptx = RequireString(row, pointer, "ptx");
  if (range.ptx != "no" && range.ptx != "yes" && range.ptx != "linux") {
    Fail(Child(pointer, "ptx"), "expected \"no\", \"yes\" or \"linux\"");
  }
  const json& cubins = RequireArray(row, pointer, "cubin");
  std::vector<unsigned> previous;
  for (size_t k = 0; k < cubins.size(); ++k) {
    const std::string at = Child(Child(pointer, "cubin"), k);
    if (!cubins[k].is_string()) Fail(at, "expected a compute capability such as \"8.6\"");
    const std::vector<unsigned> cc = ParseDotted(cubins[k].get<std::string>(), at, 2, 2, "compute capability");
    if (cc[1] > 9) Fail(at, "compute capability minor out of range");
    if (!previous.empty() && cc <= previous) Fail(at, "not above the previous entry (ascending, unique)");
    previous = cc;
    range.targets.push_back("sm_" + std::to_string(cc[0]) + std::to_string(cc[1]));
  }
  if (range.targets.empty()) Fail(Child(pointer, "cubin"), "expected at least one compute capability");
  if (range.ptx == "no") {
    if (row.contains("ptx_arch")) Fail(Child(pointer, "ptx_arch"), "ptx_arch without PTX (ptx is \"no\")");
    return;
  }
  range.ptx_target = range.targets.back();
  if (!row.contains("ptx_arch")) return;
  const std::string at = Child(pointer, "ptx_arch");
  range.ptx_target = SmName(ParseDotted(RequireString(row, pointer, "ptx_arch"), at, 2, 2, "compute capability"));
  if (std::find(range.targets.begin(), range.targets.end(), range.ptx_target) == range.targets.end()) {
    Fail(at, "the PTX architecture must be one of the cubins (\"X+PTX\" builds both)");
  }
}

// A ROCm row's gfx targets, unique.
void ReadGfxTargets(const json& row, const std::string& pointer, ArchRange& range) {
  range.ptx = "no";
  const json& gfx = RequireArray(row, pointer, "gfx");
  std::set<std::string> seen;
  for (size_t k = 0; k < gfx.size(); ++k) {
    const std::string at = Child(Child(pointer, "gfx"), k);
    if (!gfx[k].is_string() || gfx[k].get<std::string>().rfind("gfx", 0) != 0) {
      Fail(at, "expected a gfx target such as \"gfx90a\"");
    }
    if (!seen.insert(gfx[k].get<std::string>()).second) Fail(at, "duplicate gfx target");
    range.targets.push_back(gfx[k].get<std::string>());
  }
  if (range.targets.empty()) Fail(Child(pointer, "gfx"), "expected at least one gfx target");
}

// Rows are sorted by backend, cpu_arch, torch_min, and the ranges of one backend and arch do
// not overlap.
void CheckRangeOrder(const ArchRange& previous, const ArchRange& range, const std::string& pointer,
                     const std::string& previous_pointer, const std::vector<BackendOut>& backends) {
  const auto key = [&](const ArchRange& r) { return std::tuple(backends[r.backend].name, r.cpu_arch, r.torch_min); };
  if (key(range) <= key(previous)) {
    if (key(range) == key(previous)) Fail(pointer, "duplicate of " + previous_pointer);
    Fail(pointer,
         "out of order: rows are sorted by backend, cpu_arch, torch_min, and this "
         "one sorts before " +
             previous_pointer);
  }
  if (previous.backend == range.backend && previous.cpu_arch == range.cpu_arch &&
      previous.torch_below > range.torch_min) {
    Fail(Child(pointer, "torch_min"),
         "torch range " + RangeText(range) + " overlaps " + previous_pointer + " (" + RangeText(previous) + ")");
  }
}

std::vector<ArchRange> ReadArchRanges(const InputFile& input, bool cuda,
                                      const std::map<std::string, size_t>& backend_index,
                                      const std::vector<BackendOut>& backends) {
  try {
    const json document = ParseDocument(input.text);
    const std::set<std::string> ids = ReadSourceIds(document);
    const json& rows = RequireArray(document, "", "builds");
    std::vector<ArchRange> ranges;
    for (size_t i = 0; i < rows.size(); ++i) {
      const std::string pointer = Child("/builds", i);
      const json& row = rows[i];
      ArchRange range;
      range.cuda = cuda;
      const std::optional<size_t> backend = ReadRangeBackend(row, pointer, cuda, backend_index, backends);
      if (backend) range.backend = *backend;
      ReadRangeBounds(row, pointer, range);
      if (const json& list = Require(row, pointer, cuda ? "cubin" : "gfx"); list.is_null()) {
        // Searched, not found: the note says where; the lookup answers "unknown".
        range.unknown = true;
        range.ptx = "no";
        range.note = RequireString(row, pointer, "note");
        if (row.contains("ptx") || row.contains("ptx_arch")) Fail(Child(pointer, "ptx"), "a row without a list has no PTX");
      } else if (cuda) {
        ReadCubins(row, pointer, range);
      } else {
        ReadGfxTargets(row, pointer, range);
      }
      RequireSource(row, pointer, ids);
      if (!backend) continue;
      if (!ranges.empty()) CheckRangeOrder(ranges.back(), range, pointer, Child("/builds", i - 1), backends);
      ranges.push_back(std::move(range));
    }
    return ranges;
  } catch (LocatedError& error) {
    if (error.file.empty()) error.file = std::string(input.path);
    throw;
  }
}

// Reads toolkit_targets and integrated_gpus of data/cuda-archs.json (both optional, so that a
// small test catalogue may leave them out).
CudaRules ReadCudaRules(const InputFile& input) {
  try {
    const json document = ParseDocument(input.text);
    const std::set<std::string> ids = ReadSourceIds(document);
    CudaRules rules;
    if (document.contains("toolkit_targets")) {
      const json& rows = RequireArray(document, "", "toolkit_targets");
      std::vector<unsigned> previous;
      for (size_t i = 0; i < rows.size(); ++i) {
        const std::string pointer = Child("/toolkit_targets", i);
        const std::vector<unsigned> cc =
            ParseDotted(RequireString(rows[i], pointer, "cc"), Child(pointer, "cc"), 2, 2,
                        "compute capability");
        if (cc[1] > 9) Fail(Child(pointer, "cc"), "compute capability minor out of range");
        if (!previous.empty() && cc <= previous) {
          Fail(Child(pointer, "cc"), "not above the previous row (rows sorted by cc, unique)");
        }
        previous = cc;
        ToolkitTarget target{SmName(cc),
                             ParseDotted(RequireString(rows[i], pointer, "cuda_min"),
                                         Child(pointer, "cuda_min"), 2, 2, "CUDA version"),
                             {}};
        if (!Require(rows[i], pointer, "cuda_below").is_null()) {
          target.cuda_below = ParseDotted(RequireString(rows[i], pointer, "cuda_below"),
                                          Child(pointer, "cuda_below"), 2, 2, "CUDA version");
          if (target.cuda_below <= target.cuda_min)
            Fail(Child(pointer, "cuda_below"), "empty range: not above cuda_min");
        }
        RequireSource(rows[i], pointer, ids);
        rules.toolkit_targets.push_back(std::move(target));
      }
    }
    if (document.contains("integrated_gpus")) {
      const json& rows = RequireArray(document, "", "integrated_gpus");
      std::vector<unsigned> previous;
      for (size_t i = 0; i < rows.size(); ++i) {
        const std::string pointer = Child("/integrated_gpus", i);
        const std::vector<unsigned> cc =
            ParseDotted(RequireString(rows[i], pointer, "cc"), Child(pointer, "cc"), 2, 2,
                        "compute capability");
        if (!previous.empty() && cc <= previous) {
          Fail(Child(pointer, "cc"), "not above the previous row (rows sorted by cc, unique)");
        }
        previous = cc;
        RequireString(rows[i], pointer, "name");
        RequireSource(rows[i], pointer, ids);
        rules.integrated.push_back(SmName(cc));
      }
    }
    return rules;
  } catch (LocatedError& error) {
    if (error.file.empty()) error.file = std::string(input.path);
    throw;
  }
}

std::string Pointer(std::initializer_list<std::string_view> keys) {
  std::string pointer;
  for (std::string_view key : keys) pointer = Child(pointer, key);
  return pointer;
}

// A variants.json of a variant index (PEP 825), for kVariantVersionRows.
struct VariantOut {
  std::string project;
  size_t channel = 0;
  size_t backend = 0;
  std::string version;
  catalogue::CatalogueVariants file;
};

// Everything the three outputs are written from: the channels' catalogues and the curated data,
// read, checked (errors are located: Fail throws) and put in the table's order.
struct TableModel {
  std::span<const InputFile> inputs;  // for the banners
  std::vector<catalogue::Catalogue> catalogues;  // stable first, then test and nightly when given
  std::vector<BackendOut> backends;  // sorted by name: the table's backend indexes
  CudaDrivers drivers;
  std::vector<ProjectOut> projects;
  std::map<std::array<std::string, 3>, size_t> tag_ids;
  std::map<std::string, std::vector<std::array<std::string, 3>>> wheel_tags;  // spelled -> tags
  std::map<std::vector<size_t>, size_t> set_ids;
  std::vector<ArchRange> ranges;  // sorted by backend, CPU arch, torch_min
  CudaRules rules;
  std::map<std::string, size_t> target_ids;
  std::vector<std::vector<std::string>> toolkit_targets;  // per backend
  std::vector<VariantOut> variants;  // channel, project, backend, version order

  // The stable catalogue: the reference pages' channel.
  const catalogue::Catalogue& catalogue() const { return catalogues[0]; }
  // One function per output.
  std::string EmitTableInc() const;           // generated/catalogue_table.inc
  std::string EmitPackagesReference() const;  // docs/reference/packages.md
  std::string EmitBackendsReference() const;  // docs/reference/backends.md
};

// Builds the model from the inputs, one step per part of the table; Fail()s at the first
// inconsistency, naming the file and JSON pointer.
class ModelBuilder {
 public:
  ModelBuilder(std::span<const InputFile> inputs, const std::vector<const InputFile*>& catalogue_inputs,
               std::vector<catalogue::Catalogue> channels)
      : catalogue_inputs_(catalogue_inputs) {
    m_.inputs = inputs;
    m_.catalogues = std::move(channels);
  }

  TableModel Build() {
    ReadBackends();
    ReadProjects();
    InternTags();
    ReadArchs();
    return std::move(m_);
  }

 private:
  // Backends: the union of the channels', sorted by name; the first channel's facts.
  void ReadBackends() {
    const std::vector<catalogue::Catalogue>& catalogues = m_.catalogues;
    m_.drivers = ReadCudaDrivers(m_.inputs[1]);
    std::map<std::string, std::pair<const catalogue::CatalogueBackend*, size_t>> union_backends;
    for (size_t c = 0; c < catalogues.size(); ++c) {
      for (const auto& [name, backend] : catalogues[c].backends) {
        union_backends.emplace(name, std::pair(&backend, c));
      }
    }
    for (const auto& [name, first] : union_backends) {
      backend_index_[name] = m_.backends.size();
      m_.backends.push_back(ReadBackend(name, *first.first, first.second));
    }
    if (m_.backends.size() > 0xffff) Fail("/backends", "too many backends for the table");
  }

  // One backend, as the first channel `first` that has it describes it.
  BackendOut ReadBackend(const std::string& name, const catalogue::CatalogueBackend& backend, size_t first) const {
    const std::vector<catalogue::Catalogue>& catalogues = m_.catalogues;
    const CudaDrivers& drivers = m_.drivers;
    BackendOut out;
    out.name = name;
    for (size_t c = 0; c < catalogues.size(); ++c) {
      auto it = catalogues[c].backends.find(name);
      if (it == catalogues[c].backends.end()) continue;
      out.states[c] = it->second.state;
      if (it->second.kind != backend.kind) {
        FailIn(catalogue_inputs_[c]->path, Pointer({"backends", name, "kind"}),
               "\"" + it->second.kind + "\" here, \"" + backend.kind + "\" in the " +
                   kChannels[first] + " catalogue");
      }
    }
    // A PEP 825 variant index (kind "variant"): no accelerator kind of its own; the table
    // names it in kVariantIndexes.
    const std::optional<BackendKind> kind =
        backend.kind == "variant" ? std::optional<BackendKind>(BackendKind::kOther) : core::ParseBackendKind(backend.kind);
    if (!kind) {
      FailIn(catalogue_inputs_[first]->path, Pointer({"backends", name, "kind"}),
             "unknown backend kind \"" + backend.kind + "\"");
    }
    out.kind = *kind;
    out.toolkit = backend.toolkit;
    out.legacy = backend.legacy;
    out.state = backend.state;
    if (backend.kind == "cuda") {
      const std::vector<unsigned> toolkit =
          ParseDotted(backend.toolkit, Pointer({"backends", name, "toolkit"}), 2, 2,
                      "CUDA toolkit version (expected MAJOR.MINOR)");
      out.cuda_toolkit = toolkit;
      if (auto release = drivers.releases.find(toolkit); release != drivers.releases.end()) {
        out.linux_toolkit = release->second.first;
        out.windows_toolkit = release->second.second;
      }
      // Within a major a build runs on the major's MVC floor (NVIDIA Table 2); before CUDA 11
      // there was no minor-version compatibility, so the floor is the toolkit's own driver.
      if (auto major = drivers.majors.find(toolkit[0]); major != drivers.majors.end()) {
        out.linux_floor = major->second.first;
        out.windows_floor = major->second.second;
      } else {
        out.linux_floor = out.linux_toolkit;
        out.windows_floor = out.windows_toolkit;
      }
    }
    return out;
  }

  // Projects, their builds, versions and interned wheel tags.
  void ReadProjects() {
    for (size_t c = 0; c < m_.catalogues.size(); ++c) {
      try {
        for (const auto& [name, project] : m_.catalogues[c].projects) ReadProject(c, name, project);
      } catch (LocatedError& error) {
        if (error.file.empty()) error.file = std::string(catalogue_inputs_[c]->path);
        throw;
      }
    }
    for (auto& [name, out] : project_map_) {
      std::sort(out.builds.begin(), out.builds.end(), [](const BuildOut& a, const BuildOut& b) {
        return std::pair(a.channel, a.backend) < std::pair(b.channel, b.backend);
      });
      m_.projects.push_back(std::move(out));
    }
  }

  void ReadProject(size_t c, const std::string& name, const catalogue::CatalogueProject& project) {
    const std::map<std::string, size_t>& backend_index = backend_index_;
    const std::vector<catalogue::Catalogue>& catalogues = m_.catalogues;
    std::map<std::string, ProjectOut>& project_map = project_map_;
    std::vector<VariantOut>& variant_rows = m_.variants;
    const std::string pointer = Pointer({"projects", name});
    if (core::NormalizeName(name) != name) {
      Fail(pointer, "project name \"" + name + "\" is not in PEP 503 normal form (\"" +
                        core::NormalizeName(name) + "\")");
    }
    const auto cls = std::find(std::begin(kClasses), std::end(kClasses), project.cls);
    if (cls == std::end(kClasses))
      Fail(Child(pointer, "class"), "unknown class \"" + project.cls + "\"");
    if (project.reason.empty())
      Fail(Child(pointer, "reason"), "every project needs a reason");
    const size_t cls_index = static_cast<size_t>(cls - std::begin(kClasses));
    // The class of the first channel that has the project (stable before test and
    // nightly), unless a later one routes it: a package routed anywhere never comes from
    // the default index.
    auto [entry, added] = project_map.try_emplace(name);
    ProjectOut& out = entry->second;
    if (added || (out.cls >= 2 && cls_index < 2)) {
      out.name = name;
      out.cls = cls_index;
      out.reason = project.reason;
    }
    for (const std::string& listed : project.listed_in) {
      if (!backend_index.contains(listed)) {
        Fail(Child(pointer, "listed_in"), "unknown backend \"" + listed + "\"");
      }
    }
    if (!project.builds.empty() && cls_index >= 2) {
      Fail(Child(pointer, "builds"), "only routed and companion projects carry builds");
    }
    for (const auto& [backend, versions] : project.builds) {
      out.builds.push_back(ReadBuild(c, pointer, project, backend, versions));
    }
    for (const auto& [backend, versions] : project.variants) {
      const std::string variants_pointer = Child(Child(pointer, "variants"), backend);
      auto found = backend_index.find(backend);
      if (found == backend_index.end()) Fail(variants_pointer, "unknown backend \"" + backend + "\"");
      if (catalogues[c].backends.at(backend).kind != "variant") {
        Fail(variants_pointer, "backend \"" + backend + "\" is not a variant index (kind \"variant\")");
      }
      for (const auto& [version, file] : versions) {
        variant_rows.push_back({name, c, found->second, version, file});
      }
    }
    for (size_t i = 0; i < project.from_flat_page.size(); ++i) {
      if (!project.builds.contains(project.from_flat_page[i])) {
        Fail(Child(Child(pointer, "from_flat_page"), i),
             "no builds of \"" + project.from_flat_page[i] + "\"");
      }
    }
    // Listed by a backend whose page of the project was missing: "not crawled", no versions.
    for (size_t i = 0; i < project.unfetched.size(); ++i) {
      const std::string& backend = project.unfetched[i];
      auto found = backend_index.find(backend);
      if (found == backend_index.end()) {
        Fail(Child(Child(pointer, "unfetched"), i), "unknown backend \"" + backend + "\"");
      }
      if (project.builds.contains(backend)) continue;
      BuildOut build;
      build.backend = found->second;
      build.channel = c;
      build.source = "kNotCrawled";
      out.builds.push_back(std::move(build));
    }
  }

  BuildOut ReadBuild(size_t c, const std::string& pointer, const catalogue::CatalogueProject& project,
                     const std::string& backend, const catalogue::VersionTags& versions) {
    const std::map<std::string, size_t>& backend_index = backend_index_;
    std::map<std::string, std::vector<std::array<std::string, 3>>>& wheel_tags = m_.wheel_tags;
    const std::string build_pointer = Child(Child(pointer, "builds"), backend);
    auto found = backend_index.find(backend);
    if (found == backend_index.end())
      Fail(build_pointer, "unknown backend \"" + backend + "\"");
    BuildOut build;
    build.backend = found->second;
    build.channel = c;
    build.tags = &versions;
    for (const auto& [version, tags] : versions) {
      const std::string version_pointer = Child(build_pointer, version);
      core::Expected<core::Version> parsed_version = core::Version::Parse(version);
      if (!parsed_version) Fail(version_pointer, "not a PEP 440 version");
      if (tags.empty()) Fail(version_pointer, "a version without wheels");
      if (version.size() > 255) Fail(version_pointer, "a version of over 255 characters");
      for (size_t i = 0; i < tags.size(); ++i) {
        if (!wheel_tags.contains(tags[i])) {
          wheel_tags[tags[i]] = ExpandTags(tags[i], Child(version_pointer, i));
        }
      }
      build.versions.push_back({*parsed_version, version, 0});
    }
    std::sort(build.versions.begin(), build.versions.end(),
              [](const VersionOut& a, const VersionOut& b) {
                return std::tie(a.parsed, a.text) < std::tie(b.parsed, b.text);
              });
    for (size_t k = 1; k < build.versions.size(); ++k) {
      if (build.versions[k].parsed == build.versions[k - 1].parsed) {
        Fail(Child(build_pointer, build.versions[k].text),
             "the same version as \"" + build.versions[k - 1].text + "\"");
      }
    }
    if (std::find(project.from_flat_page.begin(), project.from_flat_page.end(), backend) !=
        project.from_flat_page.end()) {
      build.source = "kFlatPage";
    }
    return build;
  }

  void InternTags() {
    std::map<std::array<std::string, 3>, size_t>& tag_ids = m_.tag_ids;
    const std::map<std::string, std::vector<std::array<std::string, 3>>>& wheel_tags = m_.wheel_tags;
    std::map<std::vector<size_t>, size_t>& set_ids = m_.set_ids;
    std::vector<ProjectOut>& projects = m_.projects;
  // Interning: every distinct tag, every distinct wheel tag spelling, every distinct set of
  // wheel spellings a version offers. All sorted, so the output is byte-stable.
  for (const auto& [spelled, tags] : wheel_tags) {
    for (const auto& tag : tags) tag_ids.emplace(tag, 0);
  }
  {
    size_t next = 0;
    for (auto& [tag, id] : tag_ids) id = next++;
  }
  std::map<std::string, size_t> wheel_ids;
  {
    size_t next = 0;
    for (const auto& [spelled, tags] : wheel_tags) wheel_ids[spelled] = next++;
  }
  for (const ProjectOut& project : projects) {
    for (const BuildOut& build : project.builds) {
      if (build.tags == nullptr) continue;  // not crawled
      for (const auto& [version, tags] : *build.tags) {
        std::vector<size_t> set;
        for (const std::string& spelled : tags) set.push_back(wheel_ids.at(spelled));
        std::sort(set.begin(), set.end());
        set.erase(std::unique(set.begin(), set.end()), set.end());
        set_ids.emplace(set, 0);
      }
    }
  }
  {
    size_t next = 0;
    for (auto& [set, id] : set_ids) id = next++;
  }
  for (ProjectOut& project : projects) {
    for (BuildOut& build : project.builds) {
      if (build.versions.empty()) continue;  // not crawled
      const auto& versions = *build.tags;
      for (VersionOut& version : build.versions) {
        std::vector<size_t> set;
        for (const std::string& spelled : versions.at(version.text))
          set.push_back(wheel_ids.at(spelled));
        std::sort(set.begin(), set.end());
        set.erase(std::unique(set.begin(), set.end()), set.end());
        version.wheel_set = set_ids.at(set);
      }
    }
  }
  if (tag_ids.size() > 0xffff || wheel_ids.size() > 0xffff || set_ids.size() > 0xffff) {
    Fail("/projects", "too many distinct wheel tags for the table's 16-bit indexes");
  }

  }

  void ReadArchs() {
    const std::span<const InputFile> inputs = m_.inputs;
    const std::map<std::string, size_t>& backend_index = backend_index_;
    const std::vector<BackendOut>& backends = m_.backends;
  const std::vector<ArchRange> cuda_ranges =
      ReadArchRanges(inputs[2], true, backend_index, backends);
  const std::vector<ArchRange> rocm_ranges =
      ReadArchRanges(inputs[3], false, backend_index, backends);
  std::vector<ArchRange> ranges = cuda_ranges;
  ranges.insert(ranges.end(), rocm_ranges.begin(), rocm_ranges.end());
  // The table's order: backend index, CpuArch enum (x86_64 = 0, aarch64 = 1), torch_min.
  std::sort(ranges.begin(), ranges.end(), [](const ArchRange& a, const ArchRange& b) {
    return std::tuple(a.backend, a.cpu_arch != "x86_64", a.torch_min) <
           std::tuple(b.backend, b.cpu_arch != "x86_64", b.torch_min);
  });
  const CudaRules rules = ReadCudaRules(inputs[2]);
  std::map<std::string, size_t> target_ids;
  for (const ArchRange& range : ranges) {
    for (const std::string& target : range.targets) target_ids.emplace(target, 0);
  }
  for (const ToolkitTarget& target : rules.toolkit_targets) target_ids.emplace(target.target, 0);
  for (const std::string& target : rules.integrated) target_ids.emplace(target, 0);
  // Per CUDA backend, the architectures its toolkit can build.
  std::vector<std::vector<std::string>> toolkit_targets(backends.size());
  for (size_t b = 0; b < backends.size(); ++b) {
    if (backends[b].cuda_toolkit.empty()) continue;
    for (const ToolkitTarget& target : rules.toolkit_targets) {
      if (target.cuda_min <= backends[b].cuda_toolkit &&
          (target.cuda_below.empty() || backends[b].cuda_toolkit < target.cuda_below)) {
        toolkit_targets[b].push_back(target.target);
      }
    }
  }
  {
    // "sm_100" after "sm_90": sorted by length, then text, so lists read in numeric order.
    std::vector<std::string> names;
    for (const auto& [name, id] : target_ids) names.push_back(name);
    std::sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) {
      return std::tuple(a.substr(0, 3), a.size(), a) < std::tuple(b.substr(0, 3), b.size(), b);
    });
    for (size_t i = 0; i < names.size(); ++i) target_ids[names[i]] = i;
  }

    m_.ranges = std::move(ranges);
    m_.rules = rules;
    m_.target_ids = std::move(target_ids);
    m_.toolkit_targets = std::move(toolkit_targets);
  }

  const std::vector<const InputFile*>& catalogue_inputs_;
  TableModel m_;
  std::map<std::string, size_t> backend_index_;
  std::map<std::string, ProjectOut> project_map_;
};

TableModel BuildTableModel(std::span<const InputFile> inputs, const std::vector<const InputFile*>& catalogue_inputs,
                           std::vector<catalogue::Catalogue> channels) {
  return ModelBuilder(inputs, catalogue_inputs, std::move(channels)).Build();
}

// The parts of the model the writers of generated/ and docs/reference/ read, under the model's
// own names.
struct ModelParts {
  explicit ModelParts(const TableModel& model)
      : inputs(model.inputs),
        catalogues(model.catalogues),
        backends(model.backends),
        projects(model.projects),
        tag_ids(model.tag_ids),
        wheel_tags(model.wheel_tags),
        set_ids(model.set_ids),
        ranges(model.ranges),
        rules(model.rules),
        target_ids(model.target_ids),
        toolkit_targets(model.toolkit_targets),
        variants(model.variants),
        model_(model) {}

  const catalogue::Catalogue& catalogue() const { return model_.catalogue(); }

  const std::span<const InputFile> inputs;
  const std::vector<catalogue::Catalogue>& catalogues;
  const std::vector<BackendOut>& backends;
  const std::vector<ProjectOut>& projects;
  const std::map<std::array<std::string, 3>, size_t>& tag_ids;
  const std::map<std::string, std::vector<std::array<std::string, 3>>>& wheel_tags;
  const std::map<std::vector<size_t>, size_t>& set_ids;
  const std::vector<ArchRange>& ranges;
  const CudaRules& rules;
  const std::map<std::string, size_t>& target_ids;
  const std::vector<std::vector<std::string>>& toolkit_targets;
  const std::vector<VariantOut>& variants;
  const TableModel& model_;
};

// generated/catalogue_table.inc: the sorted constexpr arrays of the package table, one method
// per array or group of arrays, in the file's order.
class TableIncWriter : private ModelParts {
 public:
  explicit TableIncWriter(const TableModel& model) : ModelParts(model) {}

  std::string Write() {
    Header();
    BackendRows();
    TagRows();
    WheelSetRows();
    ProjectRows();
    VariantRows();
    ArchTargets();
    ArchRangeRows();
    return inc.str();
  }

 private:
  // An array's items, 16 a line.
  void WriteItems(const std::vector<size_t>& items) {
    for (size_t i = 0; i < items.size(); ++i) inc << (i % 16 == 0 ? "\n    " : " ") << items[i] << ",";
  }

  void Header() {
    inc << Banner(inputs) << "// The package table: " << backends.size() << " backends, "
        << projects.size() << " projects, " << tag_ids.size()
        << " distinct wheel tags. Read only by\n"
        << "// installer/table/catalogue_table.cc, which defines the row types and explains the "
           "layout.\n\n"
        << "inline constexpr std::string_view kCatalogueFamily = " << Literal(catalogue().family)
        << ";\n"
        << "inline constexpr std::string_view kCatalogueChannels[] = {" <<
        [&] {
          std::string list;
          for (size_t c = 0; c < catalogues.size(); ++c)
            list += (c ? ", " : "") + Literal(kChannels[c]);
          return list;
        }()
        << "};\n"
        << "inline constexpr std::string_view kCatalogueChannel = " << Literal(catalogue().channel)
        << ";\n"
        << "inline constexpr std::string_view kCatalogueNote = " << Literal(catalogue().note) << ";\n"
        << "inline constexpr std::string_view kCatalogueIndexUrl = " << Literal(catalogue().index_url)
        << ";\n"
        << "inline constexpr std::string_view kCatalogueSnapshot = " << Literal(catalogue().snapshot)
        << ";\n"
        << "inline constexpr std::string_view kCatalogueAsOf = " << Literal(catalogue().AsOf())
        << ";\n\n";
  }

  void BackendRows() {
    inc << "// name, kind, toolkit, legacy, state, MVC driver floor Linux/Windows, toolkit driver\n"
        << "// Linux/Windows ({0, 0, 0}: unknown), the architectures the toolkit can build\n"
        << "// kToolkitTargetItems[first..+count). Sorted by name.\n"
        << "inline constexpr BackendRow kBackendRows[] = {\n";
    for (size_t b = 0; b < backends.size(); ++b) {
      const BackendOut& backend = backends[b];
      inc << "    {" << Literal(backend.name)
          << ", core::BackendKind::" << core::BackendKindEnumerator(backend.kind) << ", "
          << Literal(backend.toolkit) << ", " << (backend.legacy ? "true" : "false") << ", "
          << StateInit(backend.state) << ", " << DriverInit(backend.linux_floor) << ", "
          << DriverInit(backend.windows_floor) << ", " << DriverInit(backend.linux_toolkit) << ", "
          << DriverInit(backend.windows_toolkit) << ", " << toolkit_items.size() << ", "
          << toolkit_targets[b].size() << ", {" << StateInit(backend.states[0]) << ", "
          << StateInit(backend.states[1]) << ", " << StateInit(backend.states[2]) << "}},\n";
      for (const std::string& target : toolkit_targets[b])
        toolkit_items.push_back(target_ids.at(target));
  }
  inc << "};\n\n";

  }

  void TagRows() {
    inc << "// Every distinct tag of every wheel: python, abi, platform. Sorted.\n"
        << "inline constexpr TagRow kTagRows[] = {\n";
    for (const auto& [tag, id] : tag_ids) {
      inc << "    {" << Literal(tag[0]) << ", " << Literal(tag[1]) << ", " << Literal(tag[2])
          << "},\n";
  }
  inc << "};\n\n";

  inc << "// Wheel tag spellings as filenames carry them; each expands to "
         "kWheelTagItems[first..+count).\n"
      << "inline constexpr WheelTagsRow kWheelTagsRows[] = {\n";
  std::vector<size_t> wheel_items;
  for (const auto& [spelled, tags] : wheel_tags) {
    std::vector<size_t> ids;
    for (const auto& tag : tags) ids.push_back(tag_ids.at(tag));
    std::sort(ids.begin(), ids.end());
    inc << "    {" << Literal(spelled) << ", " << wheel_items.size() << ", " << ids.size()
        << "},\n";
    wheel_items.insert(wheel_items.end(), ids.begin(), ids.end());
  }
  inc << "};\n\ninline constexpr std::uint16_t kWheelTagItems[] = {";
  WriteItems(wheel_items);
  inc << "\n};\n\n";

  }

  void WheelSetRows() {
    inc << "// Sets of wheels (indexes into kWheelTagsRows) one version offers.\n"
        << "inline constexpr WheelSetRow kWheelSetRows[] = {\n";
    std::vector<size_t> set_items;
    std::vector<std::vector<size_t>> sets_in_order(set_ids.size());
    for (const auto& [set, id] : set_ids) sets_in_order[id] = set;
    for (const auto& set : sets_in_order) {
      inc << "    {" << set_items.size() << ", " << set.size() << "},\n";
      set_items.insert(set_items.end(), set.begin(), set.end());
  }
  inc << "};\n\ninline constexpr std::uint16_t kWheelSetItems[] = {";
  WriteItems(set_items);
  inc << "\n};\n\n";

  }

  void ProjectRows() {
    // Versions per build: PEP 440 order in kVersionRows, and a by-text permutation for lookups.
    std::ostringstream versions_out, by_text_out, builds_out, projects_out;
    size_t version_count = 0, build_count = 0, by_text_count = 0;
    // Each distinct version text once, in kVersionText; the rows hold offsets (VersionRow).
    std::string version_text;
    std::map<std::string, size_t> text_offsets;
    for (const ProjectOut& project : projects) {
      projects_out << "    {" << Literal(project.name)
                   << ", ProjectClass::" << kClassEnums[project.cls] << ", " << build_count << ", "
                   << project.builds.size() << ",\n     " << Literal(project.reason) << "},\n";
      for (const BuildOut& build : project.builds) {
        builds_out << "    {" << build.backend << ", " << build.versions.size() << ", "
                   << version_count << ", BuildSource::" << build.source << ", " << build.channel
                   << "},  // " << kChannels[build.channel] << " " << project.name << " "
                   << backends[build.backend].name << "\n";
        std::vector<size_t> order(build.versions.size());
        for (size_t k = 0; k < order.size(); ++k) order[k] = k;
        const auto public_part = [](const std::string& text) {
          return text.substr(0, text.find('+'));
        };
        std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
          return std::pair(public_part(build.versions[a].text), build.versions[a].text) <
                 std::pair(public_part(build.versions[b].text), build.versions[b].text);
        });
        for (const VersionOut& version : build.versions) {
          const auto [at, added] = text_offsets.emplace(version.text, version_text.size());
          if (added) version_text += version.text;
          versions_out << "    {" << at->second << ", " << version.text.size() << ", "
                       << (version.parsed.IsPrerelease() ? "true" : "false") << ", " << version.wheel_set
                       << "},  // " << version.text << "\n";
        }
        for (size_t k : order) {
          by_text_out << (by_text_count % 16 == 0 ? "\n    " : " ") << k << ",";
          ++by_text_count;
        }
        version_count += build.versions.size();
        ++build_count;
      }
  }
  inc << "// Per routed or companion project and backend (sorted by backend index): its "
         "versions\n"
      << "// kVersionRows[first..+count), in PEP 440 order, and where they come from "
         "(kNotCrawled:\n"
      << "// the backend lists the project, its page was missing, no version is known).\n"
      << "inline constexpr BuildRow kBuildRows[] = {\n"
      << builds_out.str() << "};\n\n"
      << "// Every distinct version text, as the index spells it; VersionRow holds offsets.\n"
      << "inline constexpr char kVersionText[] =" << ChunkedLiteral(version_text) << ";\n\n"
      << "// version text (offset, size), pre-release, wheel set.\n"
      << "inline constexpr VersionRow kVersionRows[] = {\n"
      << versions_out.str() << "};\n\n"
      << "// Per build, the offsets of its versions sorted by (public version, version) text.\n"
      << "inline constexpr std::uint16_t kVersionsByText[] = {" << by_text_out.str() << "\n};\n\n"
      << "// Every project of the catalogue, sorted by (PEP 503 normal) name: class, builds\n"
      << "// kBuildRows[first..+count), reason.\n"
      << "inline constexpr ProjectRow kProjectRows[] = {\n"
      << projects_out.str() << "};\n\n";

  }

  void VariantRows() {
    // Variant indexes (PEP 825): each version's variants.json (canonical) and the labels of its
    // wheels, "label=tags,tags;label=tags", what `select --torch-backend variant` ranks.
    {
      std::vector<std::string> variant_indexes;
      for (const BackendOut& b : backends) {
        for (const catalogue::Catalogue& cat : catalogues) {
          auto it = cat.backends.find(b.name);
          if (it != cat.backends.end() && it->second.kind == "variant") {
            variant_indexes.push_back(b.name);
            break;
          }
        }
      }
      auto encode = [](const auto& by_label, auto wheels_of) {
        std::string out;
        for (const auto& [label, entry] : by_label) {
          if (!out.empty()) out += ';';
          out += label + "=";
          const std::vector<std::string>& wheels = wheels_of(entry);
          for (size_t i = 0; i < wheels.size(); ++i) out += (i ? "," : "") + wheels[i];
        }
        return out;
      };
      inc << "// The variant indexes among the backends (kind \"variant\" in the catalogue), by name.\n"
          << "inline constexpr std::array<std::string_view, " << variant_indexes.size()
          << "> kVariantIndexes = {";
      for (size_t i = 0; i < variant_indexes.size(); ++i) inc << (i ? ", " : "") << Literal(variant_indexes[i]);
      inc << "};\n\n"
          << "// Per variants.json of a variant index (PEP 825): project, channel, backend, version, URL\n"
          << "// (relative to the index base), sha256, schema, the file (canonical), the wheels of each\n"
          << "// label it has and of each label it lacks (\"label=tags,tags;...\").\n"
          << "inline constexpr std::array<VariantVersionRow, " << variants.size() << "> kVariantVersionRows = {{\n";
      for (const VariantOut& v : variants) {
        inc << "    {" << Literal(v.project) << ", " << v.channel << ", " << v.backend << ", " << Literal(v.version)
            << ", " << Literal(v.file.url) << ",\n     " << Literal(v.file.sha256) << ", " << Literal(v.file.schema)
            << ",\n     " << Literal(v.file.variants_json) << ",\n     "
            << Literal(encode(v.file.labels, [](const catalogue::CatalogueVariantLabel& l) -> const std::vector<std::string>& { return l.wheels; }))
            << ",\n     "
            << Literal(encode(v.file.unlisted, [](const std::vector<std::string>& w) -> const std::vector<std::string>& { return w; }))
            << "},\n";
      }
      inc << "}};\n\n";
  }

  }

  // "{8, 6}" for "sm_86"; "{0, 0}" for a gfx target.
  static std::string CapabilityInit(std::string_view target) {
    const std::optional<core::ComputeCapability> cc = core::ComputeCapability::ParseSm(target);
    return cc ? "{" + std::to_string(cc->major) + ", " + std::to_string(cc->minor) + "}" : "{0, 0}";
  }

  void ArchTargets() {
    std::vector<std::string> names(target_ids.size());
    for (const auto& [name, id] : target_ids) names[id] = name;
    inc << "// GPU targets of the arch lists: CUDA sm_XY (cubins), ROCm gfx targets.\n"
        << "inline constexpr std::string_view kArchTargets[] = {";
    for (size_t i = 0; i < names.size(); ++i) inc << (i % 8 == 0 ? "\n    " : " ") << Literal(names[i]) << ",";
    inc << "\n};\n\n"
        << "// The compute capability of each of kArchTargets ({0, 0}: a ROCm gfx target): no \"sm_XY\" is\n"
        << "// parsed at run time.\n"
        << "inline constexpr core::ComputeCapability kArchTargetCapabilities[] = {";
    for (size_t i = 0; i < names.size(); ++i) inc << (i % 8 == 0 ? "\n    " : " ") << CapabilityInit(names[i]) << ",";
    inc << "\n};\n\n"
        << "// Per CUDA backend (kBackendRows first/count): what its toolkit can build.\n"
        << "inline constexpr std::uint16_t kToolkitTargetItems[] = {";
    WriteItems(toolkit_items);
    if (toolkit_items.empty()) inc << "0";  // no zero-length arrays; every count is 0
    inc << "\n};\n\n"
        << "// Integrated (Tegra) GPUs: a cubin of the same major and a lower minor does not run "
           "them.\n"
        << "inline constexpr std::array<std::string_view, " << rules.integrated.size() << "> kIntegratedTargets = {";
    for (size_t i = 0; i < rules.integrated.size(); ++i) inc << (i == 0 ? "" : ", ") << Literal(rules.integrated[i]);
    inc << "};\n"
        << "inline constexpr std::array<core::ComputeCapability, " << rules.integrated.size()
        << "> kIntegratedCapabilities = {{";
    for (size_t i = 0; i < rules.integrated.size(); ++i) inc << (i == 0 ? "" : ", ") << CapabilityInit(rules.integrated[i]);
    inc << "}};\n\n";
  }

  void ArchRangeRows() {
    inc << "// backend index, cpu arch, PTX, PTX target (kArchTargets; 0xffff: none), torch [min,\n"
        << "// below) (major*1000000 + minor*1000 + patch; 0xffffffff: open), targets\n"
        << "// kArchTargetItems[first..+count). Sorted by backend, arch, min.\n"
        << "inline constexpr ArchRangeRow kArchRangeRows[] = {\n";
    std::vector<size_t> arch_items;
    for (const ArchRange& range : ranges) {
      if (range.unknown) continue;  // the lookup answers "unknown" there
      std::vector<size_t> ids;
      for (const std::string& target : range.targets) ids.push_back(target_ids.at(target));
      std::sort(ids.begin(), ids.end());
      inc << "    {" << range.backend
          << ", CpuArch::" << (range.cpu_arch == "x86_64" ? "kX86_64" : "kAarch64") << ", Ptx::"
          << (range.ptx == "no"    ? "kNone"
              : range.ptx == "yes" ? "kAll"
                                   : "kLinuxOnly")
          << ", "
          << (range.ptx_target.empty() ? std::string("0xffff")
                                       : std::to_string(target_ids.at(range.ptx_target)))
          << ", " << range.torch_min << ", "
          << (range.torch_below == kOpen ? std::string("0xffffffff")
                                         : std::to_string(range.torch_below))
          << ", " << arch_items.size() << ", " << ids.size() << "},  // "
          << backends[range.backend].name << " " << RangeText(range) << "\n";
      arch_items.insert(arch_items.end(), ids.begin(), ids.end());
  }
  inc << "};\n\ninline constexpr std::uint16_t kArchTargetItems[] = {";
  WriteItems(arch_items);
  inc << "\n};\n";
  }

  std::ostringstream inc;
  std::vector<size_t> toolkit_items;  // kToolkitTargetItems, filled by BackendRows
};

std::string TableModel::EmitTableInc() const { return TableIncWriter(*this).Write(); }

// docs/reference/packages.md: every routed and companion package, with its versions per backend.
std::string TableModel::EmitPackagesReference() const {
  // ---- docs/reference/packages.md ----
  const auto version_span = [&](const ProjectOut& project) {
    size_t count = 0;
    for (const BuildOut& build : project.builds) count += build.versions.size();
    return count;
  };
  // The newest final release a project offers on any backend (a pre-release when it has only
  // those), without its local label.
  const auto newest = [&](const ProjectOut& project) -> std::string {
    const core::Version* best = nullptr;
    for (const BuildOut& build : project.builds) {
      for (const VersionOut& version : build.versions) {
        const bool better =
            best == nullptr || (best->IsPrerelease() && !version.parsed.IsPrerelease()) ||
            (best->IsPrerelease() == version.parsed.IsPrerelease() && *best < version.parsed);
        if (better) best = &version.parsed;
      }
    }
    return best == nullptr ? "—" : best->Public().ToString();
  };
  std::ostringstream packages;
  packages
      << Banner(inputs, true) << "\n# Packages torchdex routes\n\n"
      << "torchdex installs a **routed** package only from the PyTorch index, from the one "
         "backend it\n"
      << "chose for the machine (cu128, rocm6.4, cpu...), never from the default index: the "
         "builds differ\n"
      << "by backend, and a name that only the PyTorch index should serve must not be "
         "resolvable\n"
      << "elsewhere (the dependency-confusion hole of `--extra-index-url`). **Companions** are "
         "pinned by\n"
      << "routed packages and hosted by PyTorch only; they come from the same backend. "
         "Everything else\n"
      << "stays with the default index.\n\n"
      << "This page is generated by `torchdex-codegen` from `generated/catalogue.json` (family "
      << catalogue().family << ",\nchannel " << catalogue().channel << "; " << Cell(catalogue().note)
      << ").\nThe reasons are the crawler's classification; see `data/routing-policy.json` for "
         "the\n"
      << "policy entries. Regenerate with `torchdex-codegen` (docs/codegen.md). **backends**: "
         "how many\n"
      << "backends offer the package; **builds**: its versions summed over those backends.\n";
  for (size_t cls = 0; cls < 2; ++cls) {
    size_t count = 0;
    for (const ProjectOut& project : projects) count += project.cls == cls;
    packages << "\n## " << (cls == 0 ? "Routed" : "Companions") << " (" << count << ")\n\n"
             << "| package | backends | builds | newest | why |\n|---|---:|---:|---|---|\n";
    for (const ProjectOut& project : projects) {
      if (project.cls != cls) continue;
      packages << "| `" << project.name << "` | " << project.builds.size() << " | "
               << version_span(project) << " | " << newest(project) << " | "
               << Cell(project.reason) << " |\n";
    }
  }
  {
    size_t count = 0;
    for (const ProjectOut& project : projects) count += project.cls >= 2;
    packages << "\n## Not routed (" << count << ")\n\n"
             << "The index also serves these projects, but identically on every backend (copies "
                "of PyPI\n"
             << "packages) or no longer; torchdex leaves them to the default index.\n\n"
             << "<details><summary>The " << count
             << " projects that are not routed, and why</summary>\n\n"
             << "| package | class | why |\n|---|---|---|\n";
    for (const ProjectOut& project : projects) {
      if (project.cls < 2) continue;
      packages << "| `" << project.name << "` | " << kClasses[project.cls] << " | "
               << Cell(project.reason) << " |\n";
    }
    packages << "\n</details>\n";
  }

  return packages.str();
}

// docs/reference/backends.md: one method per section, in the page's order. The reference
// pages describe the stable channel's backends; the others are listed by channel at the end.
class BackendsPage : private ModelParts {
 public:
  explicit BackendsPage(const TableModel& model) : ModelParts(model) {
    all_backends.resize(backends.size());
    for (size_t i = 0; i < all_backends.size(); ++i) all_backends[i] = i;
    std::sort(all_backends.begin(), all_backends.end(), [&](size_t a, size_t b) {
      return std::tuple(backends[a].kind, ToolkitKey(backends[a].toolkit), backends[a].name) <
             std::tuple(backends[b].kind, ToolkitKey(backends[b].toolkit), backends[b].name);
    });
    for (size_t index : all_backends) {
      if (backends[index].states[0]) backend_order.push_back(index);
    }
    for (const ProjectOut& project : projects) {
      if (project.name == "torch") torch = &project;
    }
  }

  std::string Write() {
    Intro();
    BackendRows();
    ArchSection(true);
    ToolkitTargets();
    ArchSection(false);
    MissingPages();
    ArchCoverage();
    Channels();
    return out_.str();
  }

 private:
  const BuildOut* torch_build(size_t backend) const {
    if (torch == nullptr) return nullptr;
    for (const BuildOut& build : torch->builds) {
      if (build.backend == backend && build.channel == 0) return &build;
    }
    return nullptr;
  }

  void Intro() {
    out_ << Banner(inputs, true) << "\n# Backends\n\n"
                << "The builds of the PyTorch index (family " << catalogue().family << ", channel "
                << catalogue().channel << "), with what a machine needs to run them. Generated by\n"
                << "`torchdex-codegen` from `generated/catalogue.json`, `data/cuda-drivers.json`,\n"
                << "`data/cuda-archs.json` and `data/rocm-archs.json`, where every number has its "
                   "source.\n\n"
                << "- **Driver floor**: the oldest NVIDIA driver that runs the backend's cubins. "
                   "From CUDA 11 on\n"
                << "  this is the minor-version-compatibility floor of the toolkit's major "
                   "(NVIDIA's Table 2);\n"
                << "  before, the toolkit's own driver.\n"
                << "- **Toolkit driver**: the driver the toolkit shipped with (Table 3). A GPU "
                   "newer than every\n"
                << "  cubin runs only the PTX, which an older driver cannot JIT-compile: it needs "
                   "this one.\n"
                << "- **torch**: the oldest and newest torch release the backend offers.\n"
                << "- `—`: not known (no row in the data).\n\n"
                << "| backend | kind | toolkit | state | driver floor Linux | Windows | toolkit "
                   "driver Linux | Windows | torch |\n"
                << "|---|---|---|---|---|---|---|---|---|\n";
  }

  void BackendRows() {
    for (size_t index : backend_order) {
      const BackendOut& backend = backends[index];
      std::string torch_range = "—";
      if (const BuildOut* build = torch_build(index);
          build != nullptr && !build->versions.empty()) {
        torch_range = build->versions.front().parsed.Public().ToString() + " – " +
                      build->versions.back().parsed.Public().ToString();
      }
      const bool cuda = backend.kind == BackendKind::kCuda;
      out_ << "| `" << backend.name << "` | " << core::BackendKindWord(backend.kind) << " | "
                  << (backend.toolkit.empty() ? "—" : backend.toolkit) << " | "
                  << Cell(core::BackendStateWord(backend.state)) << " | " << (cuda ? DriverText(backend.linux_floor) : "")
                  << " | " << (cuda ? DriverText(backend.windows_floor) : "") << " | "
                  << (cuda ? DriverText(backend.linux_toolkit) : "") << " | "
                  << (cuda ? DriverText(backend.windows_toolkit) : "") << " | " << torch_range
                  << " |\n";
  }
  }

  void ArchSection(bool cuda) {
    out_ << "\n## " << (cuda ? "CUDA compute capabilities" : "ROCm gfx targets") << "\n\n"
                << (cuda ? "Cubins run on the same major with an equal or higher minor (sm_86 "
                           "runs on sm_89);\n"
                           "PTX runs on any later GPU once the driver JIT-compiles it.\n\n"
                         : "A GPU whose gfx target is not in the list gets no kernels.\n\n");
    for (size_t index : backend_order) {
      std::vector<const ArchRange*> rows;
      for (const ArchRange& range : ranges) {
        if (range.backend == index && range.cuda == cuda) rows.push_back(&range);
      }
      if (rows.empty()) continue;
      out_ << "<details><summary><code>" << backends[index].name
                  << "</code>: " << rows.size() << " torch range" << (rows.size() > 1 ? "s" : "")
                  << "</summary>\n\n"
                  << "| torch | CPU | " << (cuda ? "cubins | PTX" : "gfx targets")
                  << " |\n|---|---|---|" << (cuda ? "---|" : "") << "\n";
      for (const ArchRange* range : rows) {
        std::vector<std::string> sorted;
        std::vector<size_t> ids;
        for (const std::string& target : range->targets) ids.push_back(target_ids.at(target));
        std::sort(ids.begin(), ids.end());
        for (size_t id : ids) {
          for (const auto& [name, value] : target_ids) {
            if (value == id) sorted.push_back(name);
          }
        }
        if (range->unknown) {
          out_ << "| " << RangeText(*range) << " | " << range->cpu_arch
                      << " | not known: " << Cell(range->note) << (cuda ? " | — |\n" : " |\n");
          continue;
        }
        out_ << "| " << RangeText(*range) << " | " << range->cpu_arch << " | "
                    << Join(sorted, " ");
        if (cuda) {
          out_ << " | "
                      << (range->ptx == "no"    ? "no"
                          : range->ptx == "yes" ? "yes"
                                                : "Linux only");
          if (range->ptx != "no") out_ << " (" << range->ptx_target << ")";
        }
        out_ << " |\n";
      }
      out_ << "\n</details>\n\n";
  }
  }

  void ToolkitTargets() {
    out_
        << "## What each CUDA toolkit can build\n\n"
        << "No build of a backend holds a cubin its toolkit cannot emit (`toolkit_targets` of\n"
        << "`data/cuda-archs.json`): a GPU that none of these runs (same major, equal or higher "
           "minor,\n"
        << "not integrated) is out for that backend whatever its list says or when it is unknown, "
           "unless\n"
        << "the build's PTX covers it. Integrated (Tegra) GPUs, which run only their own cubins: "
        << Join(rules.integrated, ", ") << ".\n\n"
        << "| backend | toolkit | real architectures |\n|---|---|---|\n";
    for (size_t index : backend_order) {
      if (backends[index].kind != BackendKind::kCuda || backends[index].legacy ||
          toolkit_targets[index].empty())
        continue;
      out_ << "| `" << backends[index].name << "` | " << backends[index].toolkit << " | "
                  << Join(toolkit_targets[index], " ") << " |\n";
  }
  out_ << "\n";
  }

  // Coverage: per CUDA or ROCm backend and CPU architecture, the torch releases the index offers
  // (by the platforms of their wheels) and whether a row with a list covers each.
  std::set<std::string> WheelArches(const std::string& backend, const std::string& version) const {
    std::set<std::string> arches;
    const auto& torch_builds = catalogue().projects.at("torch").builds.at(backend);
    for (const std::string& tags : torch_builds.at(version)) {
      if (tags.find("aarch64") != std::string::npos) arches.insert("aarch64");
      if (tags.find("x86_64") != std::string::npos || tags.find("amd64") != std::string::npos) {
        arches.insert("x86_64");
      }
    }
    return arches;
  }

  static std::uint32_t VersionKey(const core::Version& version) {
    const auto& release = version.release();
    return static_cast<std::uint32_t>((release.size() > 0 ? release[0] : 0) * 1000000 +
                                      (release.size() > 1 ? release[1] : 0) * 1000 +
                                      (release.size() > 2 ? release[2] : 0));
  }

  // One backend's row of the coverage table, and of the gaps when some build has no list.
  void CoverageRow(size_t index) {
    size_t rows_with_list = 0, rows_unknown = 0;
    for (const ArchRange& range : ranges) {
      if (range.backend == index) (range.unknown ? rows_unknown : rows_with_list)++;
    }
    const BuildOut* build = torch_build(index);
    size_t releases = 0, covered = 0;
    std::vector<std::string> missing;
    std::set<std::string> notes;
    static const std::vector<VersionOut> kNone;
    for (const VersionOut& version : build != nullptr ? build->versions : kNone) {
      const std::uint32_t key = VersionKey(version.parsed);
      for (const std::string& arch : WheelArches(backends[index].name, version.text)) {
        ++releases;
        const ArchRange* found = nullptr;
        for (const ArchRange& range : ranges) {
          if (range.backend == index && range.cpu_arch == arch && range.torch_min <= key &&
              key < range.torch_below) {
            found = &range;
          }
        }
        if (found != nullptr && !found->unknown) {
          ++covered;
          continue;
        }
        missing.push_back(version.parsed.Public().ToString() + " " + arch);
        notes.insert(found == nullptr ? "no row" : found->note);
      }
    }
    covered_total_ += covered;
    release_total_ += releases;
    coverage_ << "| `" << backends[index].name << "` | " << rows_with_list << " | " << rows_unknown
              << " | " << covered << " / " << releases << " |\n";
    if (!missing.empty()) {
      std::vector<std::string> why(notes.begin(), notes.end());
      gaps_ << "| `" << backends[index].name << "` | " << Join(missing, ", ") << " | "
            << Cell(Join(why, "; ")) << " |\n";
    }
  }

  void MissingPages() {
    // Pages the catalogue lacks: builds taken from the flat page, and projects not crawled.
    out_
        << "## Pages missing from the catalogue\n\n"
        << "The catalogue stands for "
        << (catalogue().index_url.empty() ? std::string("the index")
                                        : "`" + catalogue().index_url + "`")
        << " as of " << catalogue().AsOf()
        << (catalogue().snapshot.empty()
                ? std::string()
                : " (crawled from a snapshot: " + Cell(catalogue().snapshot) + ")")
        << ".\nWhere a backend lists a routed project but its page of it was missing, the builds "
           "come\n"
        << "from the flat page (`torch/` at the root, which links every backend's wheels with "
           "their\n"
        << "hashes), or, without one, the project is \"unknown (not crawled)\" there: never chosen "
           "for\n"
        << "it, but not \"not offered\" either (a named backend is left to the live index).\n\n"
        << "| backend | builds from the flat page | not crawled |\n|---|---|---|\n";
    for (size_t index : backend_order) {
      std::vector<std::string> flat, missing;
      for (const ProjectOut& project : projects) {
        for (const BuildOut& build : project.builds) {
          if (build.backend != index || build.channel != 0) continue;
          if (std::string_view(build.source) == "kFlatPage")
            flat.push_back("`" + project.name + "`");
          if (std::string_view(build.source) == "kNotCrawled")
            missing.push_back("`" + project.name + "`");
        }
      }
      if (flat.empty() && missing.empty()) continue;
      out_ << "| `" << backends[index].name << "` | "
                  << (flat.empty() ? "—" : Join(flat, ", ")) << " | "
                  << (missing.empty() ? "—" : Join(missing, ", ")) << " |\n";
  }
  }

  void ArchCoverage() {
    size_t known_rows = 0, unknown_rows = 0;
    for (const ArchRange& range : ranges) (range.unknown ? unknown_rows : known_rows)++;
    for (size_t index : backend_order) {
      if (backends[index].kind != BackendKind::kCuda && backends[index].kind != BackendKind::kRocm)
        continue;
      if (backends[index].legacy) continue;  // recorded, never chosen
      CoverageRow(index);
    }
    const size_t covered_total = covered_total_, release_total = release_total_;
    std::ostringstream& coverage = coverage_;
    std::ostringstream& gaps = gaps_;
  out_
      << "\n## Arch list coverage\n\n"
      << known_rows << " rows with a list and " << unknown_rows << " searched without one; "
      << covered_total << " of the " << release_total << " torch builds (release and CPU\n"
      << "architecture, as the wheels' platforms say) of the CUDA and ROCm backends have a "
         "list.\n"
      << "Where none is known the lookup answers \"unknown\": a CUDA build is still checked "
         "against\n"
      << "what its toolkit can build and said in the warnings; a ROCm build is not chosen.\n\n"
      << "| backend | rows with a list | rows without | builds covered |\n|---|---:|---:|---:|\n"
      << coverage.str() << "\n"
      << "<details><summary>Builds without an arch list, and why</summary>\n\n"
      << "| backend | torch builds | why |\n|---|---|---|\n"
      << gaps.str();
  out_ << "\n</details>\n";

  }

  void Channels() {
    if (catalogues.size() > 1) {
      out_ << "\n## Channels\n\n"
                  << "The table holds the test and nightly channels too (`select --channel`), each "
                     "from its own\n"
                  << "catalogue (`generated/catalogue-test.json`, "
                     "`generated/catalogue-nightly.json`): their\n"
                  << "backends and the newest torch each offers.\n\n"
                  << "| channel | backends with torch | newest torch | builds of torch "
                     "|\n|---|---|---|---:|\n";
      for (size_t c = 0; c < catalogues.size(); ++c) {
        std::vector<std::string> names;
        std::optional<core::Version> newest;
        size_t count = 0;
        for (size_t index : all_backends) {
          if (torch == nullptr) break;
          for (const BuildOut& build : torch->builds) {
            if (build.channel != c || build.backend != index || build.versions.empty()) continue;
            names.push_back("`" + backends[index].name + "`");
            count += build.versions.size();
            if (!newest || *newest < build.versions.back().parsed)
              newest = build.versions.back().parsed;
          }
        }
        out_ << "| " << kChannels[c] << " | " << (names.empty() ? "—" : Join(names, ", "))
                    << " | " << (newest ? newest->Public().ToString() : "—") << " | " << count
                    << " |\n";
      }
  }

  }

  std::vector<size_t> all_backends;   // every backend, by kind, toolkit and name
  std::vector<size_t> backend_order;  // those of the stable channel
  const ProjectOut* torch = nullptr;
  std::ostringstream out_;
  std::ostringstream coverage_, gaps_;
  size_t covered_total_ = 0, release_total_ = 0;
};

std::string TableModel::EmitBackendsReference() const { return BackendsPage(*this).Write(); }

}  // namespace

core::Expected<std::vector<OutputFile>> GenerateCatalogueTable(std::span<const InputFile> inputs) {
  // The stable catalogue, the drivers, the two arch files, then (optional) the test and nightly
  // catalogues: a table holds every channel it is given.
  if (inputs.size() != 4 && inputs.size() != 6) {
    return core::MakeError("GenerateCatalogueTable: expected 4 or 6 inputs");
  }
  std::vector<catalogue::Catalogue> catalogues;
  std::vector<const InputFile*> catalogue_inputs = {&inputs[0]};
  if (inputs.size() == 6) catalogue_inputs.insert(catalogue_inputs.end(), {&inputs[4], &inputs[5]});
  for (size_t c = 0; c < catalogue_inputs.size(); ++c) {
    core::Expected<catalogue::Catalogue> parsed =
        catalogue::ParseCatalogueJson(catalogue_inputs[c]->text, catalogue_inputs[c]->path);
    if (!parsed) return parsed.error();
    if (parsed->channel != kChannels[c]) {
      return core::MakeError(std::string(catalogue_inputs[c]->path) +
                             ": /provenance/channel: expected \"" + kChannels[c] + "\", got \"" +
                             parsed->channel + "\"");
    }
    catalogues.push_back(std::move(parsed).value());
  }

  return Located(inputs[0].path, [&]() -> std::vector<OutputFile> {
    const TableModel model = BuildTableModel(inputs, catalogue_inputs, std::move(catalogues));
    return {{"generated/catalogue_table.inc", model.EmitTableInc()},
            {"docs/reference/packages.md", model.EmitPackagesReference()},
            {"docs/reference/backends.md", model.EmitBackendsReference()}};
  });
}

}  // namespace torchdex::codegen
