#include "installer/install/plan.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include "core/name.h"
#include "core/version.h"
#include "core/wheel.h"
#include "index/page.h"
#include "core/sha256.h"
#include "index/url.h"
#include "installer/install/metadata.h"
#include "installer/install/rocm_devices.h"
#include "installer/install/transport.h"
#include "installer/select/selection.h"

namespace torchdex::installer {

std::vector<std::string> CatalogueVersionsSource::Versions(const std::string& project,
                                                           const std::string& backend) const {
  return catalogue_.Versions(project, backend);
}

bool CatalogueVersionsSource::HasWheelFor(const std::string& project, const std::string& backend,
                                          const std::string& version,
                                          const std::vector<core::Tag>& supported) const {
  return catalogue_.HasWheelFor(project, backend, version, supported);
}

namespace {

// Resolution rounds before giving up; each round either settles or rules out one version of a
// dependent package, so real requests settle in a handful.
constexpr int kMaxRounds = 200;
constexpr size_t kVersionsShown = 8;

struct WheelCandidate {
  core::Version version;
  std::string filename;
  std::string url;  // without fragment; "" offline
  std::string sha256;
  std::string hash;  // the link's hash as pip reads it ("md5=..."), "" when none
  bool hash_malformed = false;
  bool has_metadata = false;
  std::string metadata_sha256;
  std::size_t rank = 0;  // tag rank, 0 = best
  bool yanked = false;
  std::string variant_label;             // "" for a wheel without one
  std::size_t variant_order = SIZE_MAX;  // its label's place in the variant ordering
};

// A version's variants.json on a variant index, read and ranked against the host.
struct VersionVariants {
  std::string url, sha256, schema, canonical;
  std::vector<catalogue::RankedVariant> ranked;
  std::string decided_by;  // why ranked[0] won
};

struct ProjectPage {
  std::string url;
  std::vector<WheelCandidate> wheels;  // fit the tags and Requires-Python; page order
  std::size_t listed = 0;              // wheels of the project on the page before filtering
  std::map<std::string, VersionVariants> variants;  // by version, on a variant index
  std::vector<std::string> variant_problems;        // why variant wheels were not used
};

// One requirement on a routed project: the user's, or a dependency's.
struct Constraint {
  core::SpecifierSet specifiers;
  std::string text;            // "torch==2.5.1"
  std::string origin_project;  // "" for the user
  std::string origin_version;  // "0.20.1+cu124"
  std::string marker = {};     // the dependency's marker as written ("platform_system == \"Linux\""), "" for none

  std::string Describe() const {
    return origin_project.empty() ? "you asked " + text
                                  : origin_project + " " + origin_version + " needs " + text;
  }
};

struct Demand {
  std::vector<Constraint> constraints;
  std::set<std::string> extras;
};
using Demands = std::map<std::string, Demand>;

std::string RequirementText(const core::Requirement& requirement) {
  std::string text = requirement.NormalizedName();
  if (!requirement.extras.empty()) {
    text += "[";
    for (size_t i = 0; i < requirement.extras.size(); ++i) {
      text += (i ? "," : "") + requirement.extras[i];
    }
    text += "]";
  }
  return text + requirement.specifiers.ToString();
}

// A canonical text of the demands, to see when a round changed nothing.
std::string Fingerprint(const Demands& demands) {
  std::string key;
  for (const auto& [project, demand] : demands) {
    key += project + "{";
    std::vector<std::string> parts;
    for (const Constraint& c : demand.constraints) parts.push_back(c.Describe());
    std::sort(parts.begin(), parts.end());
    for (const std::string& part : parts) key += part + ";";
    for (const std::string& extra : demand.extras) key += "[" + extra + "]";
    key += "}";
  }
  return key;
}

std::string JoinVersions(const std::vector<WheelCandidate>& wheels) {
  std::vector<core::Version> versions;
  for (const WheelCandidate& wheel : wheels) versions.push_back(wheel.version);
  std::sort(versions.begin(), versions.end(), std::greater<>());
  versions.erase(std::unique(versions.begin(), versions.end()), versions.end());
  std::string text;
  for (size_t i = 0; i < versions.size() && i < kVersionsShown; ++i) {
    text += (i ? ", " : "") + versions[i].ToString();
  }
  if (versions.size() > kVersionsShown) {
    text += " and " + std::to_string(versions.size() - kVersionsShown) + " older";
  }
  return text;
}

}  // namespace

MirrorRule MirrorOf(const PlanRequest& request) {
  return {request.mirror_url, request.upstream_base, request.upstream_hosts,
          request.trusted_hosts};
}

std::string MirrorRule::Rewrite(const std::string& url) const {
  if (mirror_url.empty()) return url;
  const std::string host(HostWithoutPort(index::UrlHost(url)));
  if (std::find(upstream_hosts.begin(), upstream_hosts.end(), host) == upstream_hosts.end()) {
    return url;
  }
  const std::size_t path = url.find('/', url.find("://") + 3);
  std::string rest = path == std::string::npos ? "" : url.substr(path + 1);  // "whl/cu128/x.whl"
  const std::size_t base_path = upstream_base.find('/', upstream_base.find("://") + 3);
  const std::string prefix = base_path == std::string::npos ? "" : upstream_base.substr(base_path + 1);
  if (!prefix.empty() && rest.rfind(prefix, 0) == 0) rest = rest.substr(prefix.size());
  std::string mirror = mirror_url;
  if (!mirror.ends_with('/')) mirror.push_back('/');
  return mirror + rest;
}

core::Status MirrorRule::Check(const std::string& url, const std::string& what) const {
  if (mirror_url.empty()) return {};
  const std::string host = Lower(std::string(index::UrlHost(url)));
  if (host == Lower(std::string(index::UrlHost(mirror_url)))) return {};
  for (const std::string& trusted : trusted_hosts) {
    if (Lower(trusted) == host || Lower(trusted) == HostWithoutPort(host)) return {};
  }
  return core::MakeError(what + ": " + url + " is on " + host + ", not the mirror " + mirror_url +
                             " (add the host to \"trusted_hosts\" of an override file to allow it)",
                         core::ErrorCode::kNetwork);
}

namespace {

class Planner {
 public:
  Planner(const PlanRequest& request, index::Fetcher* fetcher)
      : request_(request), fetcher_(fetcher), ranking_(request.supported_tags),
        mirror_(MirrorOf(request)) {
    base_url_ = request.backend_index_url;
    if (!base_url_.empty() && base_url_.back() != '/') base_url_ += '/';
  }

  core::Expected<InstallPlan> Run();

 private:
  // The settled demands and the wheel picked for each.
  struct Resolution {
    Demands demands;
    std::map<std::string, const WheelCandidate*> picks;
  };
  core::Status CheckRequest();
  core::Expected<Resolution> Resolve();
  core::Expected<PlannedWheel> PlanWheel(const std::string& project, const WheelCandidate& wheel,
                                         const Demand& demand);
  void DescribeVariants(PlannedWheel& planned, const WheelCandidate& wheel) const;
  void DescribeDemand(PlannedWheel& planned, const Demand& demand) const;
  core::Status FollowDependencies(PlannedWheel& planned, const WheelCandidate& wheel, const Demand& demand);
  core::Status CheckWheel(const PlannedWheel& planned, const WheelCandidate& wheel);
  std::string PageUrl(const std::string& project) const { return base_url_ + project + "/"; }
  // The mirror rule (MirrorRule, plan.h), shared with the routing index.
  std::string OnMirror(const std::string& url) const { return mirror_.Rewrite(url); }
  core::Status CheckOnMirror(const std::string& url, const std::string& what) const {
    return mirror_.Check(url, what);
  }
  std::string Target() const {
    return request_.target_description.empty() ? "the target interpreter"
                                               : request_.target_description;
  }
  void Warn(std::string warning) {
    if (std::find(plan_.warnings.begin(), plan_.warnings.end(), warning) == plan_.warnings.end()) {
      plan_.warnings.push_back(std::move(warning));
    }
  }

  std::map<std::string, index::FetchResult> FetchAll(const std::vector<std::string>& urls);
  core::Status EnsurePages(const Demands& demands);
  core::Status ReadPage(const std::string& project, const index::FetchResult& result);
  /// Every URL a redirect of `result` led to keeps to the HTTPS rule.
  core::Status CheckRedirects(const index::FetchResult& result, const std::string& what) const {
    for (const std::string& hop : result.redirects) {
      if (core::Status ok = CheckTransport(hop, request_.trusted_hosts, what); !ok) return ok;
    }
    return {};
  }
  core::Status ReadVariants(const std::string& project, ProjectPage& parsed,
                            const std::map<std::string, const index::Anchor*>& links);
  void ReadOfflinePage(const std::string& project);
  core::Status EnsureMetadata(const std::map<std::string, const WheelCandidate*>& picks);
  const WheelCandidate* Pick(const std::string& project, const Demand& demand,
                             const std::set<std::string>& excluded, std::string* why) const;
  std::string WhyNothingFits(const std::string& project, const Demand& demand, const ProjectPage& page) const;
  core::Expected<Demands> UserDemands();
  core::Expected<Demands> DependencyDemands(
      const Demands& user, const Demands& current,
      const std::map<std::string, const WheelCandidate*>& picks) const;
  core::Expected<std::vector<std::string>> RequiresElsewhere(const std::string& label,
                                                             const std::vector<core::Requirement>& dependencies,
                                                             const std::set<std::string>& extras) const;

  const PlanRequest& request_;
  index::Fetcher* fetcher_;
  core::TagRanking ranking_;
  const MirrorRule mirror_;
  std::string base_url_;
  InstallPlan plan_;
  std::map<std::string, ProjectPage> pages_;
  // Routed dependencies of a wheel, by wheel URL (filename offline): all of Requires-Dist.
  std::map<std::string, std::vector<core::Requirement>> dependencies_;
  // Its Provides-Extra lines, by wheel URL.
  std::map<std::string, std::vector<std::string>> provides_extra_;
  // The wheels whose metadata was read (not merely absent or offline), by URL.
  std::set<std::string> metadata_read_;
};

std::map<std::string, index::FetchResult> Planner::FetchAll(const std::vector<std::string>& urls) {
  std::map<std::string, index::FetchResult> results;
  if (urls.empty()) return results;
  std::vector<index::FetchRequest> requests;
  for (const std::string& url : urls) requests.push_back({url, "", "", 0});
  fetcher_->Run(std::move(requests), [&](index::FetchResult&& result) {
    std::string url = result.request.url;
    results[url] = std::move(result);
    return std::vector<index::FetchRequest>{};
  });
  return results;
}

core::Status Planner::EnsurePages(const Demands& demands) {
  std::vector<std::string> wanted;
  std::vector<std::string> urls;
  for (const auto& [project, demand] : demands) {
    if (pages_.count(project)) continue;
    if (request_.offline != nullptr) {
      ReadOfflinePage(project);
      continue;
    }
    wanted.push_back(project);
    urls.push_back(PageUrl(project));
  }
  std::map<std::string, index::FetchResult> results = FetchAll(urls);
  for (const std::string& project : wanted) {
    auto found = results.find(PageUrl(project));
    if (found == results.end()) {
      return core::MakeError("no answer for " + PageUrl(project) + " (the fetcher dropped it)",
                             core::ErrorCode::kNetwork);
    }
    if (core::Status status = ReadPage(project, found->second); !status) return status;
  }
  return {};
}

core::Status Planner::ReadPage(const std::string& project, const index::FetchResult& result) {
  const std::string url = PageUrl(project);
  switch (result.outcome) {
    case index::FetchOutcome::kOk:
    case index::FetchOutcome::kNotModified:
      break;
    case index::FetchOutcome::kAbsent:
      return core::MakeError("backend " + request_.backend + " has no page for " + project + ": " +
                             url + " answered " + std::to_string(result.status) +
                             " (the PyTorch index answers 403 or 404 for what it does not have)",
                             core::ErrorCode::kNotOffered);
    case index::FetchOutcome::kFailed:
      return core::MakeError("cannot read the " + request_.backend + " page of " + project + ": " +
                                 (result.error.empty() ? url : result.error),
                             core::ErrorCode::kNetwork);
  }
  const std::string base = result.effective_url.empty() ? url : result.effective_url;
  // A redirect must not lead off HTTPS either: not at any hop, so a plain-HTTP detour that
  // comes back is refused too (issue 13 item 21).
  if (core::Status ok = CheckRedirects(result, "the page of " + project); !ok) return ok;
  if (core::Status ok = CheckTransport(base, request_.trusted_hosts, "the page of " + project);
      !ok) {
    return ok;
  }
  core::Expected<index::IndexPage> page = index::ParsePage(result.body, result.content_type, base);
  if (!page) return core::MakeError(url + ": " + page.error().message, core::ErrorCode::kNetwork);

  ProjectPage parsed;
  parsed.url = url;
  std::optional<core::Version> python;
  if (auto it = request_.markers.values.find("python_full_version");
      it != request_.markers.values.end()) {
    if (core::Expected<core::Version> v = core::Version::Parse(it->second)) python = *v;
  }
  const bool variant_index = request_.variant_properties != nullptr;
  std::map<std::string, const index::Anchor*> variants_links;  // filename -> anchor
  for (const index::Anchor& anchor : page->anchors) {
    const std::string filename = index::UrlFilename(anchor.url);
    constexpr std::string_view kVariantsSuffix = "-variants.json";
    if (variant_index && filename.size() > kVariantsSuffix.size() &&
        filename.compare(filename.size() - kVariantsSuffix.size(), kVariantsSuffix.size(),
                         kVariantsSuffix) == 0) {
      variants_links.emplace(filename, &anchor);
      continue;
    }
    if (filename.size() < 4 || filename.compare(filename.size() - 4, 4, ".whl") != 0) continue;
    core::Expected<core::WheelFilename> wheel = core::ParseWheelFilename(filename);
    std::string label;
    if (!wheel && variant_index) {
      if (std::optional<catalogue::VariantWheelName> v = catalogue::SplitVariantLabel(filename)) {
        wheel = core::ParseWheelFilename(v->plain_filename);
        label = v->label;
      }
    }
    if (!wheel || wheel->name != project) continue;
    ++parsed.listed;
    const std::optional<std::size_t> rank = ranking_.BestRank(wheel->Tags());
    if (!rank) continue;
    if (!anchor.requires_python.empty() && python) {
      core::Expected<core::SpecifierSet> requires_python =
          core::SpecifierSet::Parse(anchor.requires_python);
      if (requires_python && !requires_python->Contains(*python, core::Prereleases::kAllow)) {
        continue;
      }
    }
    WheelCandidate candidate;
    candidate.version = wheel->version;
    candidate.filename = filename;
    candidate.url = OnMirror(anchor.url);
    candidate.sha256 = anchor.sha256;
    candidate.hash = anchor.hash;
    candidate.hash_malformed = anchor.hash_malformed;
    candidate.has_metadata = anchor.has_metadata;
    candidate.metadata_sha256 = anchor.metadata_sha256;
    candidate.rank = *rank;
    candidate.yanked = anchor.yanked.has_value();
    candidate.variant_label = std::move(label);
    parsed.wheels.push_back(std::move(candidate));
  }
  if (variant_index) {
    if (core::Status ok = ReadVariants(project, parsed, variants_links); !ok) return ok;
  }
  pages_[project] = std::move(parsed);
  return {};
}

// PEP 825's installer steps 5-8 for each version with variant wheels: fetch its variants.json
// (the link on the page, hash checked), map the labels to properties (a label the file lacks,
// or a version without a readable file, makes those wheels incompatible, with a warning), and
// rank the variants against the host's properties.
// Why a fetched variants.json cannot be used (it did not answer, or not with the bytes the page
// vouches for); empty when it can.
std::string FetchProblem(const std::string& url, const index::FetchResult& result, const std::string& sha256) {
  if (result.outcome != index::FetchOutcome::kOk && result.outcome != index::FetchOutcome::kNotModified) {
    return url + " answered " + std::to_string(result.status) + (result.error.empty() ? "" : " (" + result.error + ")");
  }
  if (!sha256.empty() && core::Sha256Hex(result.body) != sha256) {
    return url + ": its sha256 is " + core::Sha256Hex(result.body) + ", the page says " + sha256;
  }
  return "";
}

// Each labelled wheel takes its label's place in the order; incompatible ones, and those of
// versions whose variants.json is unusable, are dropped.
void KeepRankedWheels(ProjectPage& parsed, const std::set<std::string>& unusable) {
  std::vector<WheelCandidate> kept;
  for (WheelCandidate& wheel : parsed.wheels) {
    if (!wheel.variant_label.empty()) {
      const std::string version = wheel.version.ToString();
      if (unusable.count(version)) continue;
      const std::vector<catalogue::RankedVariant>& ranked = parsed.variants[version].ranked;
      auto it = std::find_if(ranked.begin(), ranked.end(),
                             [&](const catalogue::RankedVariant& r) { return r.label == wheel.variant_label; });
      if (it == ranked.end() || !it->compatible) continue;
      wheel.variant_order = static_cast<std::size_t>(it - ranked.begin());
    }
    kept.push_back(std::move(wheel));
  }
  parsed.wheels = std::move(kept);
}

core::Status Planner::ReadVariants(const std::string& project, ProjectPage& parsed,
                                   const std::map<std::string, const index::Anchor*>& links) {
  std::map<std::string, std::vector<std::string>> labels;  // version -> labels of its wheels
  std::map<std::string, std::string> files;                // version -> variants.json filename
  for (const WheelCandidate& wheel : parsed.wheels) {
    if (wheel.variant_label.empty()) continue;
    const std::string version = wheel.version.ToString();
    labels[version].push_back(wheel.variant_label);
    files[version] = catalogue::VariantsJsonFilenameOf(wheel.filename);
  }
  std::vector<std::string> urls;
  std::map<std::string, std::string> refused;  // version -> why its file is not asked
  for (const auto& [version, file] : files) {
    auto it = links.find(file);
    if (it == links.end()) continue;
    // Checked before it is asked: a link the transport or mirror rule refuses is never fetched.
    const std::string url = OnMirror(it->second->url);
    if (core::Status ok = CheckTransport(url, request_.trusted_hosts, file); !ok) {
      refused[version] = ok.error().message;
    } else if (core::Status on = CheckOnMirror(url, file); !on) {
      refused[version] = on.error().message;
    } else {
      urls.push_back(url);
    }
  }
  std::map<std::string, index::FetchResult> fetched = FetchAll(urls);
  std::set<std::string> unusable;  // versions whose variant wheels are all incompatible
  for (const auto& [version, file] : files) {
    auto link = links.find(file);
    if (link == links.end()) {
      parsed.variant_problems.push_back(parsed.url + " links variant wheels of " + project + " " +
                                        version + " but no " + file +
                                        ": PEP 825 makes them incompatible");
      Warn(parsed.variant_problems.back());
      unusable.insert(version);
      continue;
    }
    const std::string url = OnMirror(link->second->url);
    const index::FetchResult& result = fetched[url];
    auto r = refused.find(version);
    std::string problem = r != refused.end() ? r->second : FetchProblem(url, result, link->second->sha256);
    std::optional<catalogue::VariantsJson> json;
    if (problem.empty()) {
      core::Expected<catalogue::VariantsJson> read = catalogue::ParseVariantsJson(result.body, url);
      if (read) {
        json = std::move(read).value();
      } else {
        problem = read.error().message;
      }
    }
    if (problem.empty()) {
      if (core::Status ok = catalogue::CheckWheelLabels(*json, labels[version], url); !ok) {
        parsed.variant_problems.push_back(ok.error().message);
        Warn(ok.error().message);  // those wheels are not in the ranking: dropped below
      }
    }
    if (!problem.empty()) {
      parsed.variant_problems.push_back(problem + "; the variant wheels of " + project + " " +
                                        version + " are not used");
      Warn(parsed.variant_problems.back());
      unusable.insert(version);
      continue;
    }
    VersionVariants v;
    v.url = url;
    v.sha256 = link->second->sha256;
    if (v.sha256.empty()) {
      // Read unverified: what was read is hashed, so a lock pins these bytes.
      v.sha256 = core::Sha256Hex(result.body);
      Warn(url + ": the page " + parsed.url + " gives no sha256 for it, so it was read unverified (sha256 " +
           v.sha256 + " as fetched)");
    }
    v.schema = std::string(catalogue::VariantsSchemaName(json->schema));
    v.canonical = catalogue::VariantsJsonToString(*json);
    v.ranked = catalogue::RankVariants(*json, *request_.variant_properties);
    parsed.variants[version] = std::move(v);
  }
  KeepRankedWheels(parsed, unusable);
  return {};
}

void Planner::ReadOfflinePage(const std::string& project) {
  ProjectPage parsed;
  parsed.url = PageUrl(project);
  for (const std::string& text : request_.offline->Versions(project, request_.backend)) {
    core::Expected<core::Version> version = core::Version::Parse(text);
    if (!version) continue;
    ++parsed.listed;
    if (!request_.offline->HasWheelFor(project, request_.backend, text, request_.supported_tags)) {
      continue;
    }
    WheelCandidate candidate;
    candidate.version = *version;
    parsed.wheels.push_back(std::move(candidate));
  }
  pages_[project] = std::move(parsed);
}

// The wheel of the newest version that fits `combined` (a yanked one only `with_yanked`), the
// most preferred variant first (PEP 825: variant properties before tags; the null variant
// before wheels without a label), then the tags; nullptr when none.
const WheelCandidate* NewestFitting(const ProjectPage& page, const core::SpecifierSet& combined,
                                    const std::set<std::string>& excluded, bool with_yanked,
                                    core::Prereleases prereleases) {
  std::vector<core::Version> versions;
  for (const WheelCandidate& wheel : page.wheels) {
    if (wheel.yanked && !with_yanked) continue;
    if (excluded.count(wheel.version.ToString())) continue;
    versions.push_back(wheel.version);
  }
  std::vector<core::Version> fitting = combined.Filter(versions, prereleases);
  if (fitting.empty()) return nullptr;
  const core::Version best = *std::max_element(fitting.begin(), fitting.end());
  const WheelCandidate* chosen = nullptr;
  for (const WheelCandidate& wheel : page.wheels) {
    if (!(wheel.version == best) || (wheel.yanked && !with_yanked)) continue;
    if (chosen == nullptr || wheel.variant_order < chosen->variant_order ||
        (wheel.variant_order == chosen->variant_order && wheel.rank < chosen->rank)) {
      chosen = &wheel;
    }
  }
  return chosen;
}

// PEP 592: a yanked file is chosen only for an exact pin.
bool ExactlyPinned(const core::SpecifierSet& combined) {
  return std::any_of(combined.specifiers().begin(), combined.specifiers().end(), [](const core::Specifier& s) {
    return (s.op() == core::SpecOp::kEqual && !s.wildcard()) || s.op() == core::SpecOp::kArbitrary;
  });
}

// Nothing fits: why, what dependents need first, then what the user asked ("torchvision
// 0.20.1+cu124 needs torch==2.5.1; you asked torch>=2.6").
std::string Planner::WhyNothingFits(const std::string& project, const Demand& demand, const ProjectPage& page) const {
  const std::string where = "backend " + request_.backend + " (" + page.url + ")";
  std::string variant_problems;
  for (const std::string& problem : page.variant_problems) {
    variant_problems += "; ";
    variant_problems += problem;
  }
  if (page.wheels.empty()) {
    return (page.listed == 0 ? where + " lists no wheel of " + project
                             : "none of the " + std::to_string(page.listed) + " wheels of " + project + " on " +
                                   where + " fits " + Target()) +
           variant_problems;
  }
  std::string constraints;
  for (const bool from_user : {false, true}) {
    for (const Constraint& c : demand.constraints) {
      if (c.origin_project.empty() != from_user) continue;
      constraints += (constraints.empty() ? "" : "; ") + c.Describe();
    }
  }
  const std::string available = JoinVersions(page.wheels);
  if (demand.constraints.size() == 1) {
    return "no version of " + project + " on " + where + " for " + Target() + " matches: " + constraints +
           " (there: " + available + ")" + variant_problems;
  }
  return "conflict on " + project + ": " + constraints + " (on " + where + " for " + Target() + ": " + available +
         ")" + variant_problems;
}

const WheelCandidate* Planner::Pick(const std::string& project, const Demand& demand,
                                    const std::set<std::string>& excluded, std::string* why) const {
  const ProjectPage& page = pages_.at(project);
  std::string joined;
  for (const Constraint& c : demand.constraints) {
    const std::string text = c.specifiers.ToString();
    if (text.empty()) continue;
    joined += (joined.empty() ? "" : ",") + text;
  }
  // Each part came from a parsed SpecifierSet, so the join parses; say so if it ever does not.
  core::Expected<core::SpecifierSet> parsed = core::SpecifierSet::Parse(joined);
  if (!parsed) {
    *why = project + ": the combined requirement \"" + joined + "\" does not parse: " + parsed.error().message;
    return nullptr;
  }
  const bool pinned = ExactlyPinned(*parsed);
  for (const bool with_yanked : {false, true}) {
    if (with_yanked && !pinned) break;
    if (const WheelCandidate* chosen = NewestFitting(page, *parsed, excluded, with_yanked, request_.prereleases)) {
      return chosen;
    }
  }
  *why = WhyNothingFits(project, demand, page);
  return nullptr;
}

core::Expected<Demands> Planner::UserDemands() {
  Demands demands;
  for (const core::Requirement& requirement : request_.routed) {
    if (!requirement.marker.empty()) {
      core::Expected<bool> applies = requirement.marker.Evaluate(request_.markers);
      if (!applies) {
        return core::MakeError("requirement \"" + requirement.ToString() +
                               "\": " + applies.error().message);
      }
      if (!*applies) {
        Warn(requirement.ToString() + ": skipped, its marker is false for " + Target());
        continue;
      }
    }
    const std::string name = requirement.NormalizedName();
    if (!requirement.url.empty()) {
      // A direct reference is the user's own choice of file: installed as written.
      if (core::Status ok = CheckTransport(requirement.url, request_.trusted_hosts,
                                           "requirement " + requirement.name);
          !ok) {
        return ok.error();
      }
      plan_.other.push_back(requirement.ToString());
      Warn(requirement.ToString() +
           ": a direct reference, installed as written; its routed "
           "dependencies are not followed");
      continue;
    }
    Demand& demand = demands[name];
    demand.constraints.push_back({requirement.specifiers, RequirementText(requirement), "", ""});
    demand.extras.insert(requirement.extras.begin(), requirement.extras.end());
  }
  return demands;
}

core::Status Planner::EnsureMetadata(const std::map<std::string, const WheelCandidate*>& picks) {
  std::vector<std::string> urls;
  std::map<std::string, std::pair<std::string, const WheelCandidate*>> by_url;
  for (const auto& [project, wheel] : picks) {
    const std::string key = wheel->url.empty() ? wheel->filename : wheel->url;
    if (dependencies_.count(key)) continue;
    if (request_.offline != nullptr) {
      Warn(
          "offline: versions come from the compiled table; routed dependencies are not "
          "followed and no wheel URL or hash is known");
      dependencies_[key] = {};
      continue;
    }
    if (!wheel->has_metadata) {
      Warn(project + " " + wheel->version.ToString() +
           ": the page gives no PEP 658 metadata, so "
           "its routed dependencies are not followed; the installer may look them up elsewhere");
      dependencies_[key] = {};
      continue;
    }
    const std::string url = wheel->url + ".metadata";
    if (core::Status ok = CheckTransport(url, request_.trusted_hosts, "metadata of " + project);
        !ok) {
      return ok;
    }
    // Off the mirror is refused before it is asked, as the wheel itself would be.
    if (core::Status ok = CheckOnMirror(wheel->url, "the wheel of " + project + " " + wheel->version.ToString()); !ok) {
      return ok;
    }
    urls.push_back(url);
    by_url[url] = {project, wheel};
  }
  std::map<std::string, index::FetchResult> results = FetchAll(urls);
  for (const auto& [url, entry] : by_url) {
    const auto& [project, wheel] = entry;
    const std::string label = project + " " + wheel->version.ToString();
    auto found = results.find(url);
    if (found == results.end()) return core::MakeError("no answer for " + url, core::ErrorCode::kNetwork);
    const index::FetchResult& result = found->second;
    if (result.outcome == index::FetchOutcome::kAbsent) {
      Warn(label + ": its metadata " + url + " answered " + std::to_string(result.status) +
           " although the page announces it; routed dependencies not followed");
      dependencies_[wheel->url] = {};
      continue;
    }
    if (result.outcome == index::FetchOutcome::kFailed) {
      return core::MakeError("cannot read the metadata of " + label + ": " +
                                 (result.error.empty() ? url : result.error),
                             core::ErrorCode::kNetwork);
    }
    if (core::Status ok = CheckRedirects(result, "metadata of " + project); !ok) return ok;
    if (!wheel->metadata_sha256.empty()) {
      const std::string actual = core::Sha256Hex(result.body);
      if (actual != wheel->metadata_sha256) {
        return core::MakeError("metadata of " + label + " does not match its hash: " + url +
                               " has sha256 " + actual + ", the page " + PageUrl(project) +
                               " says " + wheel->metadata_sha256,
                               core::ErrorCode::kNetwork);
      }
    }
    // What the index serves is the index's fault (exit 6), not the user's.
    core::Expected<CoreMetadata> metadata = ParseCoreMetadata(result.body, url);
    if (!metadata) return core::MakeError(metadata.error().message, core::ErrorCode::kNetwork);
    if (core::NormalizeName(metadata->name) != project) {
      return core::MakeError(url + ": metadata is for \"" + metadata->name + "\", not " + project,
                             core::ErrorCode::kNetwork);
    }
    if (auto version = core::Version::Parse(metadata->version); !version || *version != wheel->version) {
      return core::MakeError(url + ": metadata is for version \"" + metadata->version + "\", not the wheel's " +
                                 wheel->version.ToString(),
                             core::ErrorCode::kNetwork);
    }
    dependencies_[wheel->url] = std::move(metadata->requires_dist);
    provides_extra_[wheel->url] = std::move(metadata->provides_extra);
    metadata_read_.insert(wheel->url);
  }
  return {};
}

core::Expected<Demands> Planner::DependencyDemands(
    const Demands& user, const Demands& current,
    const std::map<std::string, const WheelCandidate*>& picks) const {
  Demands next = user;
  for (const auto& [project, wheel] : picks) {
    const std::string key = wheel->url.empty() ? wheel->filename : wheel->url;
    auto found = dependencies_.find(key);
    if (found == dependencies_.end()) continue;
    std::vector<std::string> extras = {""};
    if (auto it = current.find(project); it != current.end()) {
      extras.insert(extras.end(), it->second.extras.begin(), it->second.extras.end());
    }
    for (const core::Requirement& dependency : found->second) {
      const std::string name = dependency.NormalizedName();
      if (!request_.routed_projects.count(name)) continue;  // the default index's business
      bool applies = dependency.marker.empty();
      for (const std::string& extra : extras) {
        if (applies) break;
        core::Expected<bool> value = dependency.marker.Evaluate(request_.markers, extra);
        if (!value) {
          return core::MakeError(project + " " + wheel->version.ToString() + ": Requires-Dist \"" +
                                 dependency.ToString() + "\": " + value.error().message);
        }
        applies = *value;
      }
      if (!applies) continue;
      if (!dependency.url.empty()) {
        return core::MakeError(project + " " + wheel->version.ToString() +
                               " requires the routed package " + name + " by URL (" +
                               dependency.url +
                               "); torchdex resolves routed packages on the "
                               "backend only");
      }
      Demand& demand = next[name];
      demand.constraints.push_back({dependency.specifiers, RequirementText(dependency), project,
                                    wheel->version.ToString(), dependency.marker.ToString()});
      demand.extras.insert(dependency.extras.begin(), dependency.extras.end());
    }
  }
  return next;
}

core::Expected<std::vector<std::string>> Planner::RequiresElsewhere(
    const std::string& label, const std::vector<core::Requirement>& dependencies,
    const std::set<std::string>& extras) const {
  std::vector<std::string> out;
  for (const core::Requirement& dependency : dependencies) {
    if (request_.routed_projects.count(dependency.NormalizedName())) continue;
    bool applies = dependency.marker.empty();
    for (auto extra = extras.begin(); !applies && extra != extras.end(); ++extra) {
      core::Expected<bool> value = dependency.marker.Evaluate(request_.markers, *extra);
      if (!value) {
        return core::MakeError(label + ": Requires-Dist \"" + dependency.ToString() + "\": " + value.error().message);
      }
      applies = *value;
    }
    if (!applies) continue;
    core::Requirement bare = dependency;
    bare.marker = core::Marker();
    const std::string text = bare.ToString();
    if (std::find(out.begin(), out.end(), text) == out.end()) out.push_back(text);
  }
  return out;
}

// What was asked is refused before anything is fetched: an index or direct reference that breaks
// the HTTPS rule, a routed package asked of the default index.
core::Status Planner::CheckRequest() {
  if (request_.offline == nullptr && fetcher_ == nullptr) {
    return core::MakeError("planning needs the network (a fetcher) or an offline source");
  }
  if (core::Status ok = CheckTransport(base_url_, request_.trusted_hosts, "backend " + request_.backend + " index");
      !ok) {
    return ok;
  }
  if (!request_.default_index_url.empty()) {
    if (core::Status ok = CheckTransport(request_.default_index_url, request_.trusted_hosts, "default index"); !ok) {
      return ok;
    }
  }
  for (const core::AskedRequirement& other : request_.other) {
    const core::Requirement& r = other.requirement;
    if (r.url.empty() && request_.routed_projects.count(r.NormalizedName())) {
      return core::MakeError("\"" + other.text + "\" names the routed package " + r.NormalizedName() +
                                 ", which must come from the backend, not the default index",
                             core::ErrorCode::kUsage);
    }
    // A direct reference follows the rules of every URL torchdex hands on: HTTPS, or plain
    // HTTP on loopback and trusted hosts; no file: or other schemes.
    if (!r.url.empty()) {
      if (core::Status ok = CheckTransport(r.url, request_.trusted_hosts, "\"" + other.text + "\""); !ok) {
        return core::MakeError(ok.error().message, core::ErrorCode::kUsage);
      }
    }
    plan_.other.push_back(other.text);
  }
  return {};
}

// Rounds of pick-then-follow-dependencies until the demands settle; a project no wheel fits
// blames the last dependent constraining it, whose next version is tried.
core::Expected<Planner::Resolution> Planner::Resolve() {
  core::Expected<Demands> user = UserDemands();
  if (!user) return user.error();
  Resolution out{*user, {}};
  Demands& demands = out.demands;
  std::map<std::string, const WheelCandidate*>& picks = out.picks;
  std::map<std::string, std::set<std::string>> excluded;
  std::string first_conflict;
  for (int round = 0; round < kMaxRounds; ++round) {
    if (core::Status ok = EnsurePages(demands); !ok) return ok.error();
    picks.clear();
    bool restart = false;
    for (const auto& [project, demand] : demands) {
      std::string why;
      const WheelCandidate* pick = Pick(project, demand, excluded[project], &why);
      if (pick != nullptr) {
        picks[project] = pick;
        continue;
      }
      if (first_conflict.empty()) first_conflict = why;
      // Blame the last dependent that constrains this project and try its next version
      // (torchvision 0.20.1 pins torch==2.5.1; 0.21.0 may allow the torch the user asked for).
      const Constraint* blame = nullptr;
      for (const Constraint& c : demand.constraints) {
        if (!c.origin_project.empty()) blame = &c;
      }
      if (blame == nullptr) return core::MakeError(first_conflict, core::ErrorCode::kNotOffered);
      excluded[blame->origin_project].insert(blame->origin_version);
      restart = true;
      break;
    }
    if (restart) {
      demands = *user;
      continue;
    }
    if (core::Status ok = EnsureMetadata(picks); !ok) return ok.error();
    core::Expected<Demands> next = DependencyDemands(*user, demands, picks);
    if (!next) return next.error();
    const bool settled = Fingerprint(*next) == Fingerprint(demands);
    demands = std::move(*next);
    if (settled) return out;
  }
  return core::MakeError(first_conflict.empty()
                             ? "the routed dependencies did not settle after " + std::to_string(kMaxRounds) + " rounds"
                             : first_conflict,
                         core::ErrorCode::kNotOffered);
}

// The variants.json of the wheel's version (PEP 825), if it has one: the label chosen, the
// ranking, and the property that decided.
void Planner::DescribeVariants(PlannedWheel& planned, const WheelCandidate& wheel) const {
  const ProjectPage& page = pages_.at(planned.name);
  auto v = page.variants.find(planned.version);
  if (v == page.variants.end()) return;
  const VersionVariants& variants = v->second;
  planned.variant_label = wheel.variant_label;
  planned.variants_json_url = variants.url;
  planned.variants_json_sha256 = variants.sha256;
  planned.variants_json_schema = variants.schema;
  planned.variants_json = variants.canonical;
  const catalogue::RankedVariant* mine = nullptr;
  const catalogue::RankedVariant* next = nullptr;
  for (const catalogue::RankedVariant& r : variants.ranked) {
    planned.variant_ranking.push_back(r.compatible ? r.label
                                                   : r.label + " (incompatible: " + r.incompatible_because + ")");
    if (mine != nullptr && next == nullptr && r.compatible) next = &r;
    if (mine == nullptr && r.label == wheel.variant_label) mine = &r;
  }
  if (wheel.variant_label.empty()) {
    planned.variant_decided_by = "no variant wheel fits: a wheel without a label";
  } else if (mine != nullptr) {
    planned.variant_decided_by = catalogue::DecidingProperty(*mine, next);
  }
}

// Who requires the wheel, and the condition under which only dependents do (triton:
// platform_system == "Linux"), for a project file that names it beside what was asked. An
// extra's marker was decided. What the user asked of it beyond a version: extras
// (torch[opt-einsum]) and the marker travel to the installer and the export with the URL.
void Planner::DescribeDemand(PlannedWheel& planned, const Demand& demand) const {
  bool conditional = true;
  std::vector<std::string> conditions;
  for (const Constraint& c : demand.constraints) {
    planned.required_by.push_back(c.Describe());
    if (!c.origin_project.empty()) planned.needed_by.push_back(c.origin_project);
    if (c.origin_project.empty() || c.marker.empty() || c.marker.find("extra") != std::string::npos) {
      conditional = false;
    } else if (std::find(conditions.begin(), conditions.end(), c.marker) == conditions.end()) {
      conditions.push_back(c.marker);
    }
  }
  if (conditional && !conditions.empty()) {
    for (const std::string& c : conditions) {
      if (!planned.dependency_marker.empty()) planned.dependency_marker += " or ";
      planned.dependency_marker += conditions.size() == 1 ? c : "(" + c + ")";
    }
  }
  std::sort(planned.needed_by.begin(), planned.needed_by.end());
  planned.needed_by.erase(std::unique(planned.needed_by.begin(), planned.needed_by.end()), planned.needed_by.end());
  for (const core::Requirement& asked : request_.routed) {
    if (asked.NormalizedName() != planned.name) continue;
    planned.extras.insert(planned.extras.end(), asked.extras.begin(), asked.extras.end());
    if (!asked.marker.empty() && planned.marker.empty()) planned.marker = asked.marker.ToString();
  }
}

// ROCm >= 7.14: device code is a dependency; only the host's gfx targets are asked for. Then
// what the wheel requires that is not routed, when its metadata was read.
core::Status Planner::FollowDependencies(PlannedWheel& planned, const WheelCandidate& wheel, const Demand& demand) {
  const std::string label = planned.name + " " + planned.version;
  if (auto deps = dependencies_.find(wheel.url); !plan_.offline && deps != dependencies_.end()) {
    core::Expected<DeviceChoice> device = ChooseRocmDevices(label, deps->second, provides_extra_[wheel.url],
                                                            request_.gfx_targets, planned.extras, request_.markers);
    if (!device) return device.error();
    planned.extras.insert(planned.extras.end(), device->extras.begin(), device->extras.end());
    planned.device_note = std::move(device->note);
    for (std::string& w : device->warnings) Warn(std::move(w));
  }
  std::sort(planned.extras.begin(), planned.extras.end());
  planned.extras.erase(std::unique(planned.extras.begin(), planned.extras.end()), planned.extras.end());
  if (metadata_read_.count(wheel.url)) {
    planned.metadata_read = true;
    std::set<std::string> extras(planned.extras.begin(), planned.extras.end());
    extras.insert(demand.extras.begin(), demand.extras.end());
    extras.insert("");
    core::Expected<std::vector<std::string>> elsewhere = RequiresElsewhere(label, dependencies_.at(wheel.url), extras);
    if (!elsewhere) return elsewhere.error();
    planned.requires_elsewhere = std::move(elsewhere).value();
  }
  return {};
}

// A live wheel's URL keeps to the HTTPS and mirror rules, and its hash is one pip can check.
core::Status Planner::CheckWheel(const PlannedWheel& planned, const WheelCandidate& wheel) {
  const std::string what = "the wheel of " + planned.name + " " + planned.version;
  if (core::Status ok = CheckTransport(wheel.url, request_.trusted_hosts, what); !ok) return ok;
  if (core::Status ok = CheckOnMirror(wheel.url, what); !ok) return ok;
  if (wheel.hash_malformed) {
    // pip, installing from this page, would check the download against it and refuse.
    return core::MakeError("the page " + planned.page_url + " gives " + wheel.filename + " the hash \"" + wheel.hash +
                           "\", which is not hex of that algorithm's length: pip would "
                           "refuse the download, so torchdex does not plan it");
  }
  if (wheel.hash.empty()) {
    Warn(wheel.filename + ": the page " + planned.page_url +
         " gives no sha256, so the download cannot be verified (nightly pages never have "
         "one; stable pages sometimes lack it)");
  } else if (wheel.sha256.empty()) {
    const std::string name = wheel.hash.substr(0, wheel.hash.find('='));
    Warn(wheel.filename + ": the page " + planned.page_url + " gives " + name +
         " only, no sha256; the download is verified against that " + name);
  }
  return {};
}

core::Expected<PlannedWheel> Planner::PlanWheel(const std::string& project, const WheelCandidate& wheel,
                                                const Demand& demand) {
  PlannedWheel planned;
  planned.name = project;
  planned.version = wheel.version.ToString();
  planned.filename = wheel.filename;
  planned.url = wheel.url;
  planned.sha256 = wheel.sha256;
  planned.hash = wheel.hash;
  planned.page_url = PageUrl(project);
  DescribeVariants(planned, wheel);
  DescribeDemand(planned, demand);
  if (core::Status ok = FollowDependencies(planned, wheel, demand); !ok) return ok.error();
  if (!plan_.offline) {
    if (core::Status ok = CheckWheel(planned, wheel); !ok) return ok.error();
  }
  return planned;
}

core::Expected<InstallPlan> Planner::Run() {
  plan_.backend = request_.backend;
  plan_.backend_index_url = base_url_;
  plan_.default_index_url = request_.default_index_url;
  plan_.trusted_hosts = request_.trusted_hosts;
  plan_.target_description = request_.target_description;
  plan_.offline = request_.offline != nullptr;
  if (core::Status ok = CheckRequest(); !ok) return ok.error();
  core::Expected<Resolution> resolved = Resolve();
  if (!resolved) return resolved.error();
  for (const auto& [project, wheel] : resolved->picks) {
    core::Expected<PlannedWheel> planned = PlanWheel(project, *wheel, resolved->demands.at(project));
    if (!planned) return planned.error();
    plan_.routed.push_back(std::move(planned).value());
  }
  return std::move(plan_);
}

}  // namespace

core::Expected<InstallPlan> MakePlan(const PlanRequest& request, index::Fetcher* fetcher) {
  Planner planner(request, fetcher);
  return planner.Run();
}

std::string FormatPlan(const InstallPlan& plan) {
  std::ostringstream out;
  out << "backend: " << plan.backend << " (" << plan.backend_index_url << ")\n";
  if (!plan.target_description.empty()) out << "target: " << plan.target_description << "\n";
  if (plan.offline) out << "offline: versions from the compiled table; no URLs or hashes\n";
  out << "routed packages, from the backend only:\n";
  if (plan.routed.empty()) out << "  (none)\n";
  for (const PlannedWheel& wheel : plan.routed) {
    out << "  " << wheel.name << " " << wheel.version << "\n";
    if (!wheel.url.empty()) out << "    url:    " << wheel.url << "\n";
    if (!plan.offline) {
      if (!wheel.sha256.empty()) {
        out << "    sha256: " << wheel.sha256 << "\n";
      } else if (!wheel.hash.empty()) {
        out << "    hash:   " << wheel.hash << " (no sha256 on the page)\n";
      } else {
        out << "    sha256: none on the page (not verified)\n";
      }
    }
    out << "    page:   " << wheel.page_url << "\n";
    if (!wheel.variants_json_url.empty()) {
      out << "    variant: " << (wheel.variant_label.empty() ? "(none)" : wheel.variant_label)
          << ", by " << wheel.variant_decided_by << "\n";
      out << "    variants.json: " << wheel.variants_json_url << " (" << wheel.variants_json_schema
          << (wheel.variants_json_sha256.empty() ? "" : ", sha256 " + wheel.variants_json_sha256)
          << ")\n";
    }
    std::string why;
    for (const std::string& reason : wheel.required_by) why += (why.empty() ? "" : "; ") + reason;
    out << "    why:    " << why << "\n";
    if (!wheel.device_note.empty()) out << "    device: " << wheel.device_note << "\n";
  }
  out << "other requirements, from "
      << (plan.default_index_url.empty() ? std::string("the installer's default index")
                                         : plan.default_index_url)
      << ":\n";
  if (plan.other.empty()) out << "  (none)\n";
  for (const std::string& other : plan.other) out << "  " << other << "\n";
  for (const std::string& warning : plan.warnings) out << "warning: " << warning << "\n";
  return out.str();
}

}  // namespace torchdex::installer
