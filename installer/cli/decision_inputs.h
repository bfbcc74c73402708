// What a decision needs, gathered through the seams (files through a FileReader, the
// environment as a map, this machine through HostSystem, children through the ProcessRunner):
// the user's override files and config, the backend they named, the host's facts (detected only
// when the backend is chosen automatically), and the target interpreter or platform. Then
// Decide (select/decide.h) alone decides.
#ifndef TORCHDEX_INSTALLER_CLI_DECISION_INPUTS_H_
#define TORCHDEX_INSTALLER_CLI_DECISION_INPUTS_H_

#include <optional>
#include <string>
#include <vector>

#include "core/expected.h"
#include "installer/cli/run.h"
#include "installer/detect/host_facts.h"
#include "installer/python/interpreter.h"
#include "installer/select/decide.h"

namespace torchdex::installer {

/// The user's override files (config folder, TORCHDEX_CATALOGUE, then `cli_files`) merged, and
/// the catalogue they lead to: what select, install, export and `catalogue show` all read.
/// `family`: the index family (data/indexes.json) whose catalogue and override sections apply.
core::Expected<UserCatalogue> LoadUserCatalogue(const std::vector<std::string>& cli_files,
                                                const Environment& env, const std::string& family = "pytorch");
/// The override files alone, merged (detect --variants reads their "providers").
core::Expected<EffectiveOverrides> LoadUserOverrides(const std::vector<std::string>& cli_files,
                                                     const Environment& env);

struct DecisionInputs {
  UserCatalogue catalogue;
  DecisionRequest request;
  HostFacts facts;    // detected for an automatic choice; os and arch alone otherwise
  bool detected = false;
  std::optional<Interpreter> interpreter;  // the target asked (install, select --python)
  std::vector<std::string> warnings;       // what gathering found worth saying (unread pages)
};

/// `known`: the target interpreter already asked (install asks it first); otherwise --python is
/// asked here, or --python-version and --platform describe the target.
core::Expected<DecisionInputs> GatherDecisionInputs(const ChoiceOptions& options, Deps& deps,
                                                    const Interpreter* known = nullptr);

/// The backend the user named, as GatherDecisionInputs reads it: --torch-backend, else
/// TORCHDEX_TORCH_BACKEND or UV_TORCH_BACKEND, else "torch_backend" of config.json; empty for none.
core::Expected<BackendRequest> NamedBackendRequest(const ChoiceOptions& options, const Environment& env);

// select_command.cc: how select prints a decision.
std::string DecisionToText(const Decision& decision, bool explain);
std::string DecisionToJson(const Decision& decision, const DecisionInputs& inputs);

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_CLI_DECISION_INPUTS_H_
