// GenerateFamilyTable: data/indexes.json + data/cuda-drivers.json + the catalogues of the
// families other than the one of the package table (generated/family-<name>.json, as
// torchdex-crawl --family NAME exports them) -> generated/family_table.inc. The row types are
// defined by the one consumer, installer/table/family_table.h.
#include <array>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "catalogue/catalogue.h"
#include "codegen/located.h"
#include "codegen/tables.h"
#include "core/name.h"

namespace torchdex::codegen {
namespace {

using namespace detail;  // NOLINT: the helpers of codegen/located.h

struct Floor {
  std::string backend;
  std::vector<unsigned> linux_floor, windows_floor;  // windows empty: not documented
  std::string source;
};

struct Family {
  std::string name, base_url, primary;
  std::vector<std::string> hosts;
  std::vector<std::pair<std::string, std::string>> channels;  // name, path
  std::vector<std::array<std::string, 3>> routed;             // name, reason, source
  std::vector<Floor> floors;
  std::string catalogue;  // canonical JSON, "" when none is given
  std::string catalogue_file;
};

std::string DriverInit(const std::vector<unsigned>& v) {
  std::string text = "{";
  for (size_t i = 0; i < 3; ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(i < v.size() ? v[i] : 0);
  }
  text += "}";
  return text;
}

std::vector<std::string> Strings(const json& family, const std::string& pointer, const char* key) {
  std::vector<std::string> out;
  if (!family.contains(key)) return out;
  const json& list = RequireArray(family, pointer, key);
  for (size_t i = 0; i < list.size(); ++i) {
    if (!list[i].is_string()) Fail(Child(Child(pointer, key), i), "expected a string");
    out.push_back(list[i].get<std::string>());
  }
  return out;
}

std::vector<Family> ReadFamilies(const InputFile& input) {
  try {
    const json document = ParseDocument(input.text);
    const json& families = RequireArray(document, "", "families");
    std::vector<Family> out;
    std::set<std::string> names;
    for (size_t i = 0; i < families.size(); ++i) {
      const std::string pointer = Child("/families", i);
      const json& f = families[i];
      Family family;
      family.name = RequireString(f, pointer, "name");
      if (!names.insert(family.name).second) Fail(Child(pointer, "name"), "duplicate family \"" + family.name + "\"");
      family.base_url = RequireString(f, pointer, "base_url");
      if (!family.base_url.ends_with('/')) family.base_url.push_back('/');
      family.hosts = Strings(f, pointer, "hosts");
      const std::vector<std::string> discovery = Strings(f, pointer, "discovery_projects");
      family.primary = f.contains("primary_project") ? RequireString(f, pointer, "primary_project")
                       : discovery.empty()           ? std::string()
                                                     : discovery.front();
      if (family.primary.empty()) Fail(Child(pointer, "primary_project"), "no primary project (and no discovery project)");
      family.primary = core::NormalizeName(family.primary);
      const json& channels = RequireArray(f, pointer, "channels");
      for (size_t k = 0; k < channels.size(); ++k) {
        const std::string at = Child(Child(pointer, "channels"), k);
        const json& path_value = Require(channels[k], at, "path");
        if (!path_value.is_string()) Fail(Child(at, "path"), "expected a string");
        std::string path = path_value.get<std::string>();
        if (!path.empty() && !path.ends_with('/')) path.push_back('/');
        family.channels.emplace_back(RequireString(channels[k], at, "name"), path);
      }
      if (f.contains("routed_projects")) {
        const json& routed = RequireArray(f, pointer, "routed_projects");
        for (size_t k = 0; k < routed.size(); ++k) {
          const std::string at = Child(Child(pointer, "routed_projects"), k);
          family.routed.push_back({core::NormalizeName(RequireString(routed[k], at, "name")),
                                   RequireString(routed[k], at, "reason"),
                                   RequireString(routed[k], at, "source")});
        }
      }
      if (f.contains("driver_floors")) {
        const json& floors = RequireArray(f, pointer, "driver_floors");
        std::set<std::string> seen;
        for (size_t k = 0; k < floors.size(); ++k) {
          const std::string at = Child(Child(pointer, "driver_floors"), k);
          Floor floor;
          floor.backend = RequireString(floors[k], at, "backend");
          if (!seen.insert(floor.backend).second) Fail(Child(at, "backend"), "a second floor for \"" + floor.backend + "\"");
          floor.linux_floor = ParseDotted(RequireString(floors[k], at, "linux"), Child(at, "linux"), 2, 3, "driver version");
          if (floors[k].contains("windows")) {
            floor.windows_floor =
                ParseDotted(RequireString(floors[k], at, "windows"), Child(at, "windows"), 2, 3, "driver version");
          }
          floor.source = RequireString(floors[k], at, "source");
          family.floors.push_back(std::move(floor));
        }
      }
      out.push_back(std::move(family));
    }
    return out;
  } catch (LocatedError& error) {
    if (error.file.empty()) error.file = std::string(input.path);
    throw;
  }
}

// Per CUDA major the minor-version-compatibility floor (NVIDIA Table 2), from cuda-drivers.json.
std::map<unsigned, std::pair<std::vector<unsigned>, std::vector<unsigned>>> ReadMajorFloors(const InputFile& input) {
  try {
    const json document = ParseDocument(input.text);
    const json& majors = RequireArray(document, "", "majors");
    std::map<unsigned, std::pair<std::vector<unsigned>, std::vector<unsigned>>> out;
    for (size_t i = 0; i < majors.size(); ++i) {
      const std::string pointer = Child("/majors", i);
      const json& major = Require(majors[i], pointer, "cuda_major");
      if (!major.is_number_unsigned()) Fail(Child(pointer, "cuda_major"), "expected a CUDA major version");
      out[major.get<unsigned>()] = {
          ParseDotted(RequireString(majors[i], pointer, "linux_min_driver"), Child(pointer, "linux_min_driver"), 1, 3,
                      "driver version"),
          ParseDotted(RequireString(majors[i], pointer, "windows_min_driver"), Child(pointer, "windows_min_driver"), 1,
                      3, "driver version")};
    }
    return out;
  } catch (LocatedError& error) {
    if (error.file.empty()) error.file = std::string(input.path);
    throw;
  }
}

// "generated/family-paddle.json" -> "paddle"; "" when the name has another shape.
std::string FamilyOfPath(std::string_view path) {
  const size_t slash = path.rfind('/');
  std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  if (!name.starts_with("family-") || !name.ends_with(".json")) return "";
  return std::string(name.substr(7, name.size() - 7 - 5));
}

}  // namespace

core::Expected<std::vector<OutputFile>> GenerateFamilyTable(std::span<const InputFile> inputs) {
  if (inputs.size() < 2) return core::MakeError("family table: expected indexes.json and cuda-drivers.json");
  return Located(inputs[0].path, [&]() -> std::vector<OutputFile> {
    std::vector<Family> families = ReadFamilies(inputs[0]);
    const auto majors = ReadMajorFloors(inputs[1]);
    for (const InputFile& file : inputs.subspan(2)) {
      const std::string name = FamilyOfPath(file.path);
      Family* family = nullptr;
      std::string known;
      for (Family& f : families) {
        if (f.name == name) family = &f;
        known += (known.empty() ? "" : ", ") + f.name;
      }
      if (family == nullptr) {
        FailIn(file.path, "", "no index family \"" + name + "\" in " + std::string(inputs[0].path) +
                                  " (known: " + known + "); a family catalogue is generated/family-<name>.json");
      }
      core::Expected<catalogue::Catalogue> cat = catalogue::ParseCatalogueJson(file.text, file.path);
      if (!cat) throw LocatedError{"", cat.error().message, std::string(file.path)};
      if (cat->family != name) {
        FailIn(file.path, "/provenance/family",
               "\"" + cat->family + "\", but the file is the catalogue of family \"" + name + "\"");
      }
      for (const auto& [backend, b] : cat->backends) {
        if (b.kind == "cuda" && b.toolkit.empty()) {
          FailIn(file.path, "/backends/" + backend + "/toolkit", "a CUDA backend without its toolkit version");
        }
      }
      family->catalogue = catalogue::WriteCatalogueJson(*cat);
      family->catalogue_file = std::string(file.path);
    }

    std::vector<std::string> hosts;
    std::vector<std::string> channels, routed, floors, rows;
    for (const Family& f : families) {
      std::ostringstream row;
      row << "    {" << Literal(f.name) << ", " << Literal(f.base_url) << ", " << Literal(f.primary) << ", "
          << hosts.size() << ", " << f.hosts.size() << ", " << channels.size() << ", " << f.channels.size() << ", "
          << routed.size() << ", " << f.routed.size() << ", " << floors.size() << ", " << f.floors.size() << ", "
          << Literal(f.catalogue_file) << ", " << Literal(f.catalogue) << "},\n";
      rows.push_back(row.str());
      for (const std::string& h : f.hosts) hosts.push_back("    " + Literal(h) + ",\n");
      for (const auto& [name, path] : f.channels) channels.push_back("    {" + Literal(name) + ", " + Literal(path) + "},\n");
      for (const auto& r : f.routed) {
        routed.push_back("    {" + Literal(r[0]) + ", " + Literal(r[1]) + ", " + Literal(r[2]) + "},\n");
      }
      for (const Floor& fl : f.floors) {
        floors.push_back("    {" + Literal(fl.backend) + ", " + DriverInit(fl.linux_floor) + ", " +
                         DriverInit(fl.windows_floor) + ", " + Literal(fl.source) + "},\n");
      }
    }
    std::ostringstream inc;
    inc << Banner(inputs) << "// Index families (data/indexes.json): what the installer needs of each, and the\n"
        << "// catalogues of the families other than the package table's. Read only by\n"
        << "// installer/table/family_table.cc, which defines the row types.\n";
    auto array = [&](const char* type, const char* name, const std::vector<std::string>& items) {
      inc << "inline constexpr std::array<" << type << ", " << items.size() << "> " << name << " = {{\n";
      for (const std::string& item : items) inc << item;
      inc << "}};\n";
    };
    array("FamilyRow", "kFamilyRows", rows);
    array("std::string_view", "kFamilyHosts", hosts);
    array("FamilyChannelRow", "kFamilyChannels", channels);
    array("FamilyRoutedRow", "kFamilyRouted", routed);
    array("FamilyFloorRow", "kFamilyFloors", floors);
    std::vector<std::string> major_rows;
    for (const auto& [major, floor] : majors) {
      major_rows.push_back("    {" + std::to_string(major) + ", " + DriverInit(floor.first) + ", " +
                           DriverInit(floor.second) + "},\n");
    }
    inc << "// Per CUDA major the minor-version-compatibility floor (data/cuda-drivers.json \"majors\").\n";
    array("CudaMajorFloorRow", "kCudaMajorFloors", major_rows);
    return {OutputFile{"generated/family_table.inc", inc.str()}};
  });
}

}  // namespace torchdex::codegen

namespace torchdex::codegen {

using namespace detail;  // NOLINT: the helpers of codegen/located.h

core::Expected<std::string> GenerateAcceleratorExtras(std::string_view data_text, std::string_view data_file) {
  return Located(data_file, [&]() -> std::string {
    const json document = ParseDocument(data_text);
    const std::set<std::string> ids = ReadSourceIds(document);
    std::map<std::string, std::string> where;  // source id -> where, for the rows' citations
    for (const json& s : RequireArray(document, "", "sources")) {
      where[s.at("id").get<std::string>()] = s.contains("where") ? s.at("where").get<std::string>() : "";
    }
    const json& projects = RequireArray(document, "", "projects");
    std::vector<std::string> rows;
    std::set<std::string> seen;
    for (size_t i = 0; i < projects.size(); ++i) {
      const std::string pointer = Child("/projects", i);
      const std::string name = RequireString(projects[i], pointer, "project");
      if (core::NormalizeName(name) != name) {
        Fail(Child(pointer, "project"), "\"" + name + "\" is not in PEP 503 normal form (\"" + core::NormalizeName(name) + "\")");
      }
      if (!seen.insert(name).second) Fail(Child(pointer, "project"), "\"" + name + "\" is listed twice");
      const json& extras = RequireArray(projects[i], pointer, "extras");
      std::set<std::string> extra_names;
      for (size_t k = 0; k < extras.size(); ++k) {
        const std::string at = Child(Child(pointer, "extras"), k);
        const std::string extra = RequireString(extras[k], at, "extra");
        if (!extra_names.insert(extra).second) Fail(Child(at, "extra"), "\"" + extra + "\" is listed twice");
        if (RequireString(extras[k], at, "kind") != "cuda") Fail(Child(at, "kind"), "only \"cuda\" is supported");
        const std::vector<unsigned> driver =
            ParseDotted(RequireString(extras[k], at, "linux_min_driver"), Child(at, "linux_min_driver"), 1, 3, "driver version");
        const std::vector<unsigned> cc = ParseDotted(RequireString(extras[k], at, "min_compute_capability"),
                                                     Child(at, "min_compute_capability"), 2, 2, "compute capability");
        RequireSource(extras[k], at, ids);
        std::string cited;
        for (const json& id : extras[k].at("source")) {
          const std::string text = id.get<std::string>();
          const std::string base = text.substr(0, text.find(':'));
          cited += (cited.empty() ? "" : "; ") + (where[base].empty() ? text : where[base]);
        }
        rows.push_back("    {" + Literal(name) + ", " + Literal(extra) + ", " + DriverInit(driver) + ", " +
                       std::to_string(cc[0]) + ", " + std::to_string(cc[1]) + ", " + Literal(cited) + "},\n");
      }
    }
    std::ostringstream inc;
    inc << Banner(std::array{InputFile{data_file, data_text}})
        << "// Packages of the default index that choose their accelerator by an extra: project, extra,\n"
        << "// oldest Linux driver, oldest compute capability, where that is documented; per project in\n"
        << "// the order they are tried. Read only by installer/table/family_table.cc.\n"
        << "inline constexpr std::array<AcceleratorExtraRow, " << rows.size() << "> kAcceleratorExtras = {{\n";
    for (const std::string& row : rows) inc << row;
    inc << "}};\n";
    return inc.str();
  });
}

}  // namespace torchdex::codegen

namespace torchdex::codegen {

using namespace detail;  // NOLINT: the helpers of codegen/located.h

core::Expected<std::string> GenerateDependentIndexes(std::string_view data_text, std::string_view data_file) {
  return Located(data_file, [&]() -> std::string {
    const json document = ParseDocument(data_text);
    const std::set<std::string> ids = ReadSourceIds(document);
    std::map<std::string, std::string> where;  // source id -> where, for the rows' citations
    for (const json& s : RequireArray(document, "", "sources")) {
      where[s.at("id").get<std::string>()] = s.at("where").get<std::string>();
    }
    const auto cite = [&](const json& row) {
      std::string cited;
      for (const json& id : row.at("source")) {
        const std::string text = id.get<std::string>();
        const std::string base = text.substr(0, text.find(':'));
        cited += (cited.empty() ? "" : "; ") + (where[base].empty() ? text : where[base]);
      }
      return cited;
    };
    const json& indexes = RequireArray(document, "", "indexes");
    std::vector<std::string> index_rows, project_rows, page_rows;
    std::set<std::string> names, projects;
    for (size_t i = 0; i < indexes.size(); ++i) {
      const json& row = indexes[i];
      const std::string pointer = Child("/indexes", i);
      const std::string name = RequireString(row, pointer, "name");
      if (!names.insert(name).second) Fail(Child(pointer, "name"), "\"" + name + "\" is listed twice");
      RequireSource(row, pointer, ids);
      index_rows.push_back("    {" + Literal(name) + ", " + Literal(RequireString(row, pointer, "base_url")) + ", " +
                           Literal(RequireString(row, pointer, "page")) + ", " +
                           Literal(RequireString(row, pointer, "local_label")) + ", " +
                           Literal(RequireString(row, pointer, "depends_on")) + ", " + Literal(cite(row)) + "},\n");
      const json& listed = RequireArray(row, pointer, "projects");
      for (size_t k = 0; k < listed.size(); ++k) {
        const std::string at = Child(Child(pointer, "projects"), k);
        if (!listed[k].is_string()) Fail(at, "expected a project name");
        const std::string project = listed[k].get<std::string>();
        if (core::NormalizeName(project) != project) {
          Fail(at, "\"" + project + "\" is not in PEP 503 normal form (\"" + core::NormalizeName(project) + "\")");
        }
        if (!projects.insert(project).second) Fail(at, "\"" + project + "\" is listed twice");
        project_rows.push_back("    {" + Literal(name) + ", " + Literal(project) + "},\n");
      }
      const json& pages = RequireArray(row, pointer, "pages");
      std::set<std::string> series;
      for (size_t k = 0; k < pages.size(); ++k) {
        const std::string at = Child(Child(pointer, "pages"), k);
        const std::string for_series = RequireString(pages[k], at, "for");
        const std::string torch = RequireString(pages[k], at, "torch");
        if (!series.insert(for_series).second) Fail(Child(at, "for"), "torch " + for_series + " is listed twice");
        if (!torch.starts_with(for_series + ".")) {
          Fail(Child(at, "torch"), "page key " + torch + " is not a torch " + for_series + " release");
        }
        RequireSource(pages[k], at, ids);
        const json& backends = RequireArray(pages[k], at, "backends");
        std::set<std::string> seen;
        for (size_t b = 0; b < backends.size(); ++b) {
          const std::string backend = backends[b].get<std::string>();
          if (!seen.insert(backend).second) Fail(Child(Child(at, "backends"), b), "\"" + backend + "\" is listed twice");
          page_rows.push_back("    {" + Literal(name) + ", " + Literal(for_series) + ", " + Literal(torch) + ", " +
                              Literal(backend) + ", " + Literal(cite(pages[k])) + "},\n");
        }
      }
    }
    std::ostringstream inc;
    inc << Banner(std::array{InputFile{data_file, data_text}})
        << "// Indexes keyed by the chosen torch (find-links pages): the index, its projects, and its\n"
        << "// pages (torch series, page key, backend, where documented). Read only by\n"
        << "// installer/table/family_table.cc.\n"
        << "inline constexpr std::array<DependentIndexRow, " << index_rows.size() << "> kDependentIndexes = {{\n";
    for (const std::string& r : index_rows) inc << r;
    inc << "}};\ninline constexpr std::array<DependentProjectRow, " << project_rows.size() << "> kDependentProjects = {{\n";
    for (const std::string& r : project_rows) inc << r;
    inc << "}};\ninline constexpr std::array<DependentPageRow, " << page_rows.size() << "> kDependentPages = {{\n";
    for (const std::string& r : page_rows) inc << r;
    inc << "}};\n";
    return inc.str();
  });
}

}  // namespace torchdex::codegen
