// `torchdex catalogue show|check`: the effective catalogue and where each entry came from, and
// the validation of one override file.
#include <nlohmann/json.hpp>

#include "installer/cli/commands.h"
#include "installer/cli/decision_inputs.h"
#include "installer/select/catalogue_source.h"
#include "installer/table/catalogue_table.h"

namespace torchdex::installer {

namespace po = boost::program_options;

const char* const kCatalogueDetails =
    "show   prints the effective catalogue: the routed packages with their reasons, the\n"
    "       backends with their index URLs, the mirror, the pins and custom backends, and for\n"
    "       each entry the file it came from (\"embedded\" for the compiled table).\n"
    "check  validates one override file and says what it would change; every error names the\n"
    "       file and the line or JSON pointer.\n"
    "Override files are read from $XDG_CONFIG_HOME/torchdex/catalogue.d/*.json, then\n"
    "TORCHDEX_CATALOGUE (':'-separated), then --catalogue, later files winning. See\n"
    "docs/overrides.md.\n";

void AddCatalogueOptions(po::options_description& d, Options& options) {
  // clang-format off
  d.add_options()
    ("action", po::value<std::vector<std::string>>(&options.catalogue.args)->value_name("ACTION"),
     "show, or check FILE")
    ("catalogue", po::value<std::vector<std::string>>(&options.catalogue.files)->value_name("FILE"),
     "an override catalogue file; repeatable, later files win")
    ("json", po::bool_switch(&options.catalogue.json), "print a JSON object");
  // clang-format on
}

core::Expected<bool> ValidateCatalogueOptions(Options& options) {
  const std::vector<std::string>& args = options.catalogue.args;
  if (args.empty()) return core::MakeError("expected an action: show, or check FILE");
  if (args[0] == "show" && args.size() == 1) return true;
  if (args[0] == "check" && args.size() == 2) return true;
  if (args[0] == "check") return core::MakeError("check takes one file: torchdex catalogue check FILE");
  return core::MakeError("unknown action \"" + args[0] + "\": expected show, or check FILE");
}

int RunCatalogue(const Options& options, Deps& deps, std::ostream& out, std::ostream& err) {
  const CatalogueCommandOptions& o = options.catalogue;
  if (o.args[0] == "check") {
    auto file = LoadOverrideFile(FileReader(""), o.args[1]);
    if (!file) {
      err << "torchdex catalogue check: " << file.error().message << "\n";
      return ExitStatus(file.error().code);
    }
    EffectiveOverrides effective;
    ApplyOverride(*file, effective);
    auto source = LoadCatalogueSource(effective);
    if (!source) {
      err << "torchdex catalogue check: " << source.error().message << "\n";
      return kExitBadInputFile;
    }
    // Pins must name a backend the catalogue (or the file) knows.
    const std::vector<std::string> known = source->BackendNames("stable");
    for (const auto& [project, sourced] : effective.pins) {
      if (std::find(known.begin(), known.end(), sourced.value) == known.end()) {
        err << "torchdex catalogue check: " << o.args[1] << ": /pin/" << project << ": unknown backend '"
            << sourced.value << "'" << ClosestBackend(sourced.value, known) << "\n";
        return kExitBadInputFile;
      }
    }
    out << o.args[1] << ": ok";
    std::vector<std::string> says;
    if (file->mirror) says.push_back("mirror " + *file->mirror);
    if (!file->backend_urls.empty()) says.push_back(std::to_string(file->backend_urls.size()) + " backend URL(s)");
    if (!file->custom_backends.empty()) says.push_back(std::to_string(file->custom_backends.size()) + " custom backend(s)");
    if (!file->routed_add.empty()) says.push_back(std::to_string(file->routed_add.size()) + " routed package(s) added");
    if (!file->routed_remove.empty()) says.push_back(std::to_string(file->routed_remove.size()) + " removed");
    if (!file->pins.empty()) says.push_back(std::to_string(file->pins.size()) + " pin(s)");
    if (file->catalogue) says.push_back("catalogue " + *file->catalogue);
    for (std::size_t i = 0; i < says.size(); ++i) out << (i ? ", " : ": ") << says[i];
    out << "\n";
    return kExitOk;
  }

  auto user = LoadUserCatalogue(o.files, deps.env);
  if (!user) {
    err << "torchdex catalogue show: " << user.error().message << "\n";
    return ExitStatus(user.error().code);
  }
  const EffectiveOverrides& ov = user->overrides;
  const CatalogueSource* source = user->source.get();
  nlohmann::json doc;
  doc["catalogue"] = source->description;
  doc["files"] = ov.files;
  doc["mirror"] = ov.mirror ? nlohmann::json{{"url", ov.mirror->value}, {"from", ov.mirror->origin}}
                            : nlohmann::json(nullptr);
  doc["routed"] = nlohmann::json::array();
  for (std::size_t i = 0; i < source->routed.size(); ++i) {
    doc["routed"].push_back({{"name", source->routed[i]},
                             {"reason", source->routed_reasons[i].second},
                             {"from", source->routed_origins[i].second}});
  }
  doc["removed"] = nlohmann::json::array();
  for (const auto& [name, s] : ov.routed_remove) {
    doc["removed"].push_back({{"name", name}, {"reason", s.value}, {"from", s.origin}});
  }
  doc["backends"] = nlohmann::json::array();
  for (const BackendView& b : source->view->Backends("stable")) {
    std::string from = "embedded";
    if (auto it = ov.custom_backends.find(b.name); it != ov.custom_backends.end()) from = it->second.origin;
    else if (auto u = ov.backend_urls.find(b.name); u != ov.backend_urls.end()) from = u->second.origin;
    else if (ov.mirror) from = ov.mirror->origin;
    doc["backends"].push_back({{"name", b.name}, {"toolkit", b.toolkit},
                               {"index_url", BackendIndexUrl(ov, source->default_base_url, "", b.name)},
                               {"from", from}});
  }
  doc["pins"] = nlohmann::json::array();
  for (const auto& [project, s] : ov.pins) {
    doc["pins"].push_back({{"project", project}, {"backend", s.value}, {"from", s.origin}});
  }
  if (o.json) {
    out << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return kExitOk;
  }
  out << "catalogue: " << source->description << "\n";
  if (ov.mirror) out << "mirror: " << ov.mirror->value << "  (" << ov.mirror->origin << ")\n";
  out << "routed packages (" << source->routed.size() << "):\n";
  for (const auto& r : doc["routed"]) {
    out << "  " << r["name"].get<std::string>() << "  [" << r["from"].get<std::string>() << "]  "
        << r["reason"].get<std::string>() << "\n";
  }
  for (const auto& r : doc["removed"]) {
    out << "  not routed: " << r["name"].get<std::string>() << "  [" << r["from"].get<std::string>()
        << "]  " << r["reason"].get<std::string>() << "\n";
  }
  out << "backends (" << doc["backends"].size() << "):\n";
  for (const auto& b : doc["backends"]) {
    out << "  " << b["name"].get<std::string>() << "  " << b["index_url"].get<std::string>() << "  ["
        << b["from"].get<std::string>() << "]\n";
  }
  for (const auto& p : doc["pins"]) {
    out << "pin: " << p["project"].get<std::string>() << " -> " << p["backend"].get<std::string>() << "  ["
        << p["from"].get<std::string>() << "]\n";
  }
  return kExitOk;
}

}  // namespace torchdex::installer
