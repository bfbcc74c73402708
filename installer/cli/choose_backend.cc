// install and export choose the backend exactly as `torchdex select` does.
#include <memory>

#include "installer/cli/backend_choice.h"
#include "installer/cli/run.h"
#include "installer/cli/select_flow.h"
#include "installer/install/plan.h"
#include "installer/select/catalogue_source.h"

namespace torchdex::installer {
namespace {

// The catalogue as an offline versions source, keeping what it reads alive.
class OwnedCatalogueVersions final : public OfflineVersionsSource {
 public:
  explicit OwnedCatalogueVersions(std::shared_ptr<const CatalogueSource> source)
      : source_(std::move(source)), versions_(*source_->view) {}
  std::vector<std::string> Versions(const std::string& project, const std::string& backend) const override {
    return versions_.Versions(project, backend);
  }
  bool HasWheelFor(const std::string& project, const std::string& backend, const std::string& version,
                   const std::vector<core::Tag>& supported) const override {
    return versions_.HasWheelFor(project, backend, version, supported);
  }

 private:
  std::shared_ptr<const CatalogueSource> source_;
  CatalogueVersionsSource versions_;
};

}  // namespace

core::Expected<BackendChoice> ChooseBackend(const BackendChoiceRequest& request,
                                            const Interpreter& target, Deps& deps) {
  SelectionOptions options;
  options.torch_backend = request.torch_backend;
  options.channel = request.channel;
  options.root = request.root == "/" ? "" : request.root;
  options.catalogues = request.catalogues;
  for (const core::Requirement& r : request.requirements) options.requirements.push_back(r.ToString());
  core::Expected<SelectionOutcome> outcome = DecideBackend(options, deps, &target);
  if (!outcome) return outcome.error();

  BackendChoice choice;
  if (outcome->default_index) {
    choice.backend = "default";
    choice.index_url = outcome->index_url;
  } else if (outcome->backend.empty()) {
    std::string why = "no backend offers what was asked for " + outcome->target_description;
    for (const std::string& line : outcome->explanation) why += "; " + line;
    return core::MakeError(why);
  } else {
    choice.backend = outcome->backend;
    choice.index_url = outcome->index_url;
  }
  choice.routed_projects.insert(outcome->routed_names.begin(), outcome->routed_names.end());
  for (const auto& host : outcome->overrides.trusted_hosts) choice.trusted_hosts.push_back(host.value);
  choice.prereleases = outcome->channel == "stable" ? core::Prereleases::kDefault : core::Prereleases::kAllow;
  choice.explanation = outcome->explanation;
  for (const std::string& w : outcome->warnings) choice.explanation.push_back("warning: " + w);
  choice.header.push_back("target: " + outcome->target_description);
  choice.header.push_back("chosen: " + choice.backend + " " + choice.index_url +
                          (outcome->forced_by.empty() ? "" : " (named by " + outcome->forced_by + ")"));
  for (const std::string& line : outcome->explanation) choice.header.push_back("why: " + line);
  if (request.offline) choice.offline = std::make_shared<OwnedCatalogueVersions>(outcome->catalogue);
  return choice;
}

}  // namespace torchdex::installer
