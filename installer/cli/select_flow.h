// The decision `select` prints and `install` acts on: options in, the chosen backend with its
// index URL and the whole explanation out. Shared so both commands decide the same way.
#ifndef TORCHDEX_INSTALLER_CLI_SELECT_FLOW_H_
#define TORCHDEX_INSTALLER_CLI_SELECT_FLOW_H_

#include <optional>
#include <string>
#include <vector>

#include "core/expected.h"
#include "core/requirement.h"
#include "installer/cli/run.h"
#include <memory>

#include "installer/override_files/override_files.h"
#include "installer/select/catalogue_source.h"
#include "installer/python/interpreter.h"
#include "installer/select/selection.h"

namespace torchdex::installer {

struct SelectionOutcome {
  std::string backend;     // empty when nothing qualifies (or the default index applies)
  std::string index_url;   // the backend's index, mirrors applied
  std::string channel;
  bool default_index = false;  // macOS: PyPI's wheels are the right ones
  std::string forced_by;       // "--torch-backend", "TORCHDEX_TORCH_BACKEND", "pin in FILE" ...
  std::string primary = "torch";
  std::string primary_version;
  Selection selection;
  std::vector<std::string> explanation;
  std::string target_description;
  std::string catalogue_description;
  std::vector<std::string> warnings;
  std::string facts_json;  // detection's JSON, empty when detection was skipped
  // For install: what was asked, split, and the interpreter asked (once).
  std::vector<core::Requirement> routed;
  std::vector<std::string> others;
  std::vector<std::string> routed_names;  // every routed project (catalogue + overrides)
  std::optional<Interpreter> interpreter;
  EffectiveOverrides overrides;
  std::shared_ptr<const CatalogueSource> catalogue;  // read once, for install's --offline too
  std::string default_base_url;
};

/// The user's override files (config folder, TORCHDEX_CATALOGUE, then `cli_files`) merged, and
/// the catalogue they lead to: what select, install, export and `catalogue show` all read.
struct UserCatalogue {
  EffectiveOverrides overrides;
  std::shared_ptr<const CatalogueSource> source;
};
core::Expected<UserCatalogue> LoadUserCatalogue(const std::vector<std::string>& cli_files,
                                                const Environment& env);

/// `known`: the target interpreter already asked (install asks it first); otherwise --python is
/// asked here, or --python-version and --platform describe the target.
core::Expected<SelectionOutcome> DecideBackend(const SelectionOptions& options, Deps& deps,
                                               const Interpreter* known = nullptr);

// select_command.cc
std::string SelectionToText(const SelectionOutcome& outcome, bool explain);
std::string SelectionToJson(const SelectionOutcome& outcome);

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_CLI_SELECT_FLOW_H_
