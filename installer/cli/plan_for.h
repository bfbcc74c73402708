// From a decision to its plan, as install, export and lock share it: the PlanRequest a Decision
// and the target interpreter make (PlanRequestFor), and the fetcher the plan reads pages with.
#ifndef TORCHDEX_INSTALLER_CLI_PLAN_FOR_H_
#define TORCHDEX_INSTALLER_CLI_PLAN_FOR_H_

#include <memory>
#include <string>
#include <vector>

#include "installer/cli/commands.h"
#include "installer/install/plan.h"
#include "installer/python/interpreter.h"
#include "installer/select/decide.h"

namespace torchdex::installer {

/// What the plan of `decision` for `target` asks: the routed and other requirements, the
/// backend and its index (mirror applied), the trusted hosts, the target's tags and markers,
/// the channel's pre-release policy. `default_index_url`: --index-url ("" = the installer's
/// own). The caller adds what only it knows (gfx targets, variant properties, offline).
PlanRequest PlanRequestFor(const Decision& decision, const Interpreter& target,
                           const std::string& default_index_url);

/// The fetcher of pages: the one of `deps` (tests), else a libcurl one that obeys the HTTPS
/// rule with `trusted_hosts`, owned by `own`.
index::Fetcher* FetcherFor(Deps& deps, const std::vector<std::string>& trusted_hosts,
                           std::unique_ptr<index::Fetcher>& own);

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_CLI_PLAN_FOR_H_
