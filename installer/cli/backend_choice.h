// The seam between `select` and `install`/`export`: what the chosen backend is, where its index
// is, and which names are routed. `install` and `export` ask ChooseBackend, which decides exactly
// as `torchdex select` does (select_flow.h); tests may put their own chooser in
// Deps::choose_backend.
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
#include "installer/platform/environment.h"
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

struct Deps;

/// Selection over the catalogue and the override files, for the interpreter already asked:
/// `auto` detects (or --root), a named backend (flag, TORCHDEX_TORCH_BACKEND, UV_TORCH_BACKEND,
/// config file, a pin) is checked. `offline` carries the catalogue as a versions source.
core::Expected<BackendChoice> ChooseBackend(const BackendChoiceRequest& request,
                                            const Interpreter& target, Deps& deps);

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_CLI_BACKEND_CHOICE_H_
