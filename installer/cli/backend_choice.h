// The seam between `select` and `install`/`export`: what the chosen backend is, where its index
// is, and which names are routed. `install` and `export` call Deps::choose_backend; main() (or a
// test) wires it to selection over the catalogue. Until that lands, ChooseNamedBackend serves an
// explicit --torch-backend from the override files alone.
#ifndef TORCHDEX_INSTALLER_CLI_BACKEND_CHOICE_H_
#define TORCHDEX_INSTALLER_CLI_BACKEND_CHOICE_H_

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/expected.h"
#include "core/requirement.h"
#include "core/specifier.h"
#include "installer/detect/environment.h"
#include "installer/python/interpreter.h"

namespace torchdex::installer {

class OfflineVersionsSource;

/// What install/export ask of selection (`select` owns how it is decided).
struct BackendChoiceRequest {
  std::string torch_backend = "auto";           // --torch-backend
  std::string channel = "stable";               // --channel
  std::string root = "/";                       // --root, for detection
  std::vector<std::string> catalogues;          // --catalogue files (override files)
  std::vector<core::Requirement> requirements;  // every requirement that parsed, routed or not
  bool offline = false;                         // --offline: the answer must carry `offline`
};

struct BackendChoice {
  std::string backend;    // "cu124"
  std::string index_url;  // BackendIndexUrl(...) under the overrides (mirror, backend URLs)
  std::set<std::string> routed_projects;   // normalised names, overrides applied
  std::vector<std::string> trusted_hosts;  // from the override files
  core::Prereleases prereleases = core::Prereleases::kDefault;  // kAllow for nightly and test
  std::vector<std::string> explanation;  // the decision in sentences, for --explain
  std::vector<std::string> header;       // "detected: ...", "chosen: ..." for export headers
  /// The compiled table as a versions source, for --offline; owned here.
  std::shared_ptr<const OfflineVersionsSource> offline;
};

using ChooseBackendFn = std::function<core::Expected<BackendChoice>(
    const BackendChoiceRequest& request, const Interpreter& target, const Environment& env)>;

/// The PyTorch project family routed when no catalogue says otherwise: torch, its companion
/// libraries and the triton builds they pin (index-format.md §5).
const std::set<std::string>& DefaultRoutedProjects();

/// An explicit --torch-backend NAME, no detection: the index URL from the override files
/// ($XDG_CONFIG_HOME/torchdex/catalogue.d, $TORCHDEX_CATALOGUE, --catalogue) over
/// https://download.pytorch.org/whl/, routed names DefaultRoutedProjects() with the overrides'
/// routed add/remove. `auto` (and --offline) need selection over the catalogue: a clear error.
core::Expected<BackendChoice> ChooseNamedBackend(const BackendChoiceRequest& request,
                                                 const Interpreter& target, const Environment& env);

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_CLI_BACKEND_CHOICE_H_
