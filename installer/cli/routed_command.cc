// `torchdex routed`: which packages torchdex installs only from the PyTorch index, and why,
// from the compiled table (no network, no file read).
#include <algorithm>

#include "installer/cli/commands.h"
#include "installer/table/catalogue_table.h"

namespace torchdex::installer {

namespace po = boost::program_options;

const char* const kRoutedDetails =
    "Lists the routed packages (builds differ by backend: installed only from the backend\n"
    "torchdex chose on the PyTorch index, never from the default index) and their companions\n"
    "(pinned by routed packages, hosted by PyTorch only), each with the reason, the number of\n"
    "backends that offer it and its newest version. --all adds the projects the index mirrors\n"
    "from PyPI, which stay with the default index. The answer comes from the table compiled into\n"
    "torchdex from generated/catalogue.json; docs/reference/packages.md is the same list.\n";

void AddRoutedOptions(po::options_description& description, Options& options) {
  description.add_options()("all", po::bool_switch(&options.routed.all),
                            "also list the projects that are not routed");
}

core::Expected<bool> ValidateRoutedOptions(const Options&) { return true; }

int RunRouted(const Options& options, Deps&, std::ostream& out, std::ostream&) {
  using table::ProjectClass;
  out << "catalogue: channel " << table::CatalogueChannel() << ", " << table::Backends().size()
      << " backends\n";
  for (ProjectClass wanted : {ProjectClass::kRouted, ProjectClass::kCompanion,
                              ProjectClass::kMirror, ProjectClass::kStale}) {
    if (!options.routed.all && wanted != ProjectClass::kRouted &&
        wanted != ProjectClass::kCompanion) {
      continue;
    }
    for (const table::ProjectRow& project : table::Projects()) {
      if (project.project_class != wanted) continue;
      const char* label = wanted == ProjectClass::kRouted      ? "routed"
                          : wanted == ProjectClass::kCompanion ? "companion"
                          : wanted == ProjectClass::kMirror    ? "mirror"
                                                               : "stale";
      out << project.name << " (" << label;
      const auto builds = table::BuildsOf(project);
      if (!builds.empty()) {
        out << ", " << builds.size() << " backend" << (builds.size() == 1 ? "" : "s");
      }
      out << "): " << project.reason << "\n";
    }
  }
  return kExitOk;
}

}  // namespace torchdex::installer
