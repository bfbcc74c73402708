#include "installer/cli/plan_for.h"

#include "core/tags.h"
#include "index/fetcher.h"
#include "installer/install/transport.h"

namespace torchdex::installer {

PlanRequest PlanRequestFor(const Decision& decision, const Interpreter& target,
                           const std::string& default_index_url) {
  PlanRequest request;
  request.routed = decision.routed;
  request.other = decision.others;
  request.routed_projects.insert(decision.routed_names.begin(), decision.routed_names.end());
  request.backend = decision.backend;
  request.backend_index_url = decision.index_url;
  request.default_index_url = default_index_url;
  request.trusted_hosts = decision.trusted_hosts;
  request.supported_tags = core::SupportedTags(target.info);
  request.markers = target.markers;
  request.target_description = target.description;
  request.prereleases = decision.prereleases;
  request.mirror_url = decision.mirror_url;
  request.upstream_base = decision.upstream_base;
  request.upstream_hosts = decision.upstream_hosts;
  return request;
}

index::Fetcher* FetcherFor(Deps& deps, const std::vector<std::string>& trusted_hosts,
                           std::unique_ptr<index::Fetcher>& own) {
  if (deps.fetcher != nullptr) return deps.fetcher;
  own = index::MakeCurlFetcher(GuardedFetchOptions(trusted_hosts));
  return own.get();
}

}  // namespace torchdex::installer
