// The decision: one pure function from what was asked, the host's facts and the catalogue to
// the backend, its index URL, the reasons, and what the plan needs (docs/architecture.md "The decision", docs/selection.md).
// `select`, `install`, `export` map their options to a DecisionRequest and print the Decision;
// nothing else decides. No I/O: the command line gathers the inputs (cli/decision_inputs.h).
#ifndef TORCHDEX_INSTALLER_SELECT_DECIDE_H_
#define TORCHDEX_INSTALLER_SELECT_DECIDE_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/expected.h"
#include "core/requirement.h"
#include "installer/detect/host_facts.h"
#include "installer/override_files/override_files.h"
#include "installer/select/catalogue_source.h"
#include "installer/select/selection.h"

namespace torchdex::installer {

using core::AskedRequirement;

/// Parses each text with the PEP 508 parser; the first that does not parse is a usage error.
core::Expected<std::vector<AskedRequirement>> ParseAskedRequirements(const std::vector<std::string>& texts);

/// The user's override files and the catalogue they lead to, read once per command.
struct UserCatalogue {
  EffectiveOverrides overrides;
  std::shared_ptr<CatalogueSource> source;
};

/// Which backend the user asked for: `name` empty is auto; `origin` says where it was named
/// ("--torch-backend", "TORCHDEX_TORCH_BACKEND", "PATH/config.json", "pin of torch in FILE").
struct BackendRequest {
  std::string name;
  std::string origin;
  bool automatic() const { return name.empty(); }
};

struct DecisionRequest {
  std::vector<AskedRequirement> requirements;  // what was asked, routed or not
  std::string channel = "stable";              // stable, test, nightly
  BackendRequest backend;                      // from the flag, the environment or the config
  SelectionTarget target;                      // the interpreter (or platform) installed for
};

/// The backend the request names once the override files' pins are applied (a pin of an asked
/// routed package, else of torch, decides when the user named none): automatic when nothing
/// names one. An unknown name is a usage error with "did you mean". Pure; Decide calls it too,
/// and the command line asks it first to know whether the host must be detected.
core::Expected<BackendRequest> ResolveBackend(const DecisionRequest& request, const UserCatalogue& catalogue);

struct Decision {
  std::string backend;    // empty when the default index applies (macOS)
  std::string index_url;  // the backend's index, mirrors applied
  std::string channel;
  std::string channel_path;  // the channel's path under the family's base URL ("", "nightly/", "stable/")
  bool default_index = false;  // macOS: PyPI's wheels are the right ones
  std::string forced_by;       // where a named backend came from; empty for auto
  std::string primary = "torch";
  std::string primary_version;
  Selection selection;
  std::vector<std::string> explanation;
  std::vector<std::string> warnings;
  std::string target_description;
  std::string catalogue_description;
  // What the plan needs: the asked requirements split once, and the routing.
  std::vector<core::Requirement> routed;
  std::vector<AskedRequirement> others;
  std::vector<std::string> routed_names;  // every routed project (catalogue + overrides), sorted
  std::vector<std::string> trusted_hosts;
  std::string mirror_url;                   // the override files' mirror; empty when none
  std::string upstream_base;                // the family's own base URL (download.pytorch.org/whl/)
  std::vector<std::string> upstream_hosts;  // hosts whose files a mirror serves
  core::Prereleases prereleases = core::Prereleases::kDefault;  // kAllow for nightly and test
};

/// `facts` are the detected host for an automatic request; for a named backend they are not
/// consulted (the user chose the hardware). Errors: a usage error for an unknown backend,
/// kNotOffered when nothing (or the named backend) offers what was asked.
/// The path of a channel's backends under the index base: "" (stable), "test/", "nightly/".
std::string ChannelPath(const std::string& channel);

core::Expected<Decision> Decide(const DecisionRequest& request, const HostFacts& facts,
                                const UserCatalogue& catalogue);

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_SELECT_DECIDE_H_
