#include "store/guard.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "core/text.h"
#include "core/version.h"

namespace torchdex::catalogue {
namespace {

bool IsBuildClass(const std::string& cls) { return cls == "routed" || cls == "companion"; }

bool Allowed(const GuardOptions& options, const std::string& name) {
  return std::find(options.allow_removed.begin(), options.allow_removed.end(), name) !=
         options.allow_removed.end();
}

std::string Percent(double share) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f%%", share * 100);
  return buffer;
}

using core::Join;

std::string DescribeBackendRecord(const CatalogueBackend& b) {
  std::string out = b.kind;
  if (!b.toolkit.empty()) out += " " + b.toolkit;
  if (b.legacy) out += ", legacy";
  return out;
}

bool Offers(const CatalogueBackend& b) { return b.state == core::BackendState::kOk && b.projects > 0; }
std::string Word(core::BackendState state) { return std::string(core::BackendStateWord(state)); }

const VersionTags* BuildsOf(const Catalogue& c, const std::string& project,
                            const std::string& backend) {
  auto p = c.projects.find(project);
  if (p == c.projects.end()) return nullptr;
  auto b = p->second.builds.find(backend);
  if (b == p->second.builds.end() || b->second.empty()) return nullptr;
  return &b->second;
}

std::set<std::string> PublicVersions(const Catalogue& c, const std::string& project) {
  std::set<std::string> out;
  auto p = c.projects.find(project);
  if (p == c.projects.end()) return out;
  for (const auto& [backend, versions] : p->second.builds) {
    for (const auto& [text, tags] : versions) {
      auto v = core::Version::Parse(text);
      out.insert(v ? v->Public().ToString() : text);
    }
  }
  return out;
}

void SortByVersion(std::vector<std::string>& versions) {
  std::stable_sort(versions.begin(), versions.end(),
                   [](const std::string& a, const std::string& b) {
                     auto va = core::Version::Parse(a);
                     auto vb = core::Version::Parse(b);
                     if (va && vb) return *va < *vb;
                     return a < b;
                   });
}

// New wheels of a version already in the catalogue (a platform added to a release): the diff
// lists versions, not tags.
bool TagsAddedToKnownVersions(const CatalogueProject& before, const CatalogueProject& after) {
  for (const auto& [backend, versions] : after.builds) {
    auto old_backend = before.builds.find(backend);
    if (old_backend == before.builds.end()) continue;
    for (const auto& [version, tags] : versions) {
      auto old_version = old_backend->second.find(version);
      if (old_version == old_backend->second.end()) continue;
      for (const std::string& tag : tags) {
        if (std::find(old_version->second.begin(), old_version->second.end(), tag) ==
            old_version->second.end()) {
          return true;
        }
      }
    }
  }
  return false;
}

// What changed beyond what the diff reports: a backend's record (state, project count ...),
// a project's reason or listing. Not dangerous, but it changes catalogue.json.
void OtherChanges(const Catalogue& before, const Catalogue& after, GuardReport& r) {
  for (const auto& [name, a] : after.backends) {
    auto it = before.backends.find(name);
    if (it == before.backends.end()) continue;
    const CatalogueBackend& b = it->second;
    std::vector<std::string> fields;
    if (b.state != a.state) fields.push_back("state " + Word(b.state) + " -> " + Word(a.state));
    if (b.projects != a.projects) {
      fields.push_back("projects " + std::to_string(b.projects) + " -> " +
                       std::to_string(a.projects));
    }
    if (b.discovered_from != a.discovered_from) {
      fields.push_back("discovered from " + b.discovered_from + " -> " + a.discovered_from);
    }
    if (b.kind != a.kind || b.toolkit != a.toolkit || b.legacy != a.legacy) {
      fields.push_back(DescribeBackendRecord(b) + " -> " + DescribeBackendRecord(a));
    }
    if (!fields.empty()) r.other_changes.push_back("backend " + name + ": " + Join(fields, "; "));
  }
  std::vector<std::string> reasons, listings, tags;
  for (const auto& [name, a] : after.projects) {
    auto it = before.projects.find(name);
    if (it == before.projects.end() || it->second.cls != a.cls) continue;  // in the diff already
    if (it->second.reason != a.reason) reasons.push_back(name);
    if (it->second.listed_in != a.listed_in) listings.push_back(name);
    if (TagsAddedToKnownVersions(it->second, a)) tags.push_back(name);
  }
  auto summarise = [&](const std::vector<std::string>& names, const std::string& what) {
    if (names.empty()) return;
    const std::size_t shown = std::min<std::size_t>(names.size(), 10);
    std::string line = std::to_string(names.size()) + " project(s) " + what + ": " +
                       Join(std::vector<std::string>(names.begin(), names.begin() + shown));
    if (shown < names.size()) line += " ...";
    r.other_changes.push_back(line);
  };
  summarise(tags, "with new wheel tags for versions they already had");
  summarise(reasons, "with a new classification reason");
  summarise(listings, "listed by other backends than before");
}

}  // namespace

const char* GuardVerdictName(GuardVerdict verdict) {
  switch (verdict) {
    case GuardVerdict::kNoChange:
      return "no change";
    case GuardVerdict::kChanged:
      return "changed";
    case GuardVerdict::kRefused:
      return "refused";
  }
  return "?";
}

namespace {

// For the reviewer. New backends first: they change what `--torch-backend=auto` can pick; then
// new packages, reclassifications, new releases of the primary project.
void CallOutNews(const Catalogue& before, const Catalogue& after, const CatalogueDiff& diff,
                 const std::string& primary, GuardReport& r) {
  for (const std::string& name : diff.backends_added) {
    r.callouts.push_back("new backend: " + name + " (" + DescribeBackendRecord(after.backends.at(name)) + ")");
  }
  for (const auto& [name, p] : after.projects) {
    if (IsBuildClass(p.cls) && before.projects.count(name) == 0) {
      r.callouts.push_back("new " + p.cls + " package: " + name + " (" + p.reason + ")");
    }
  }
  for (const Reclassification& c : diff.reclassified) {
    r.callouts.push_back("reclassified: " + c.project + ": " + c.from + " -> " + c.to + " (" + c.reason + ")");
  }
  const std::set<std::string> old_releases = PublicVersions(before, primary);
  std::vector<std::string> releases;
  for (const std::string& v : PublicVersions(after, primary)) {
    if (old_releases.count(v) == 0) releases.push_back(v);
  }
  SortByVersion(releases);
  if (!releases.empty()) r.callouts.push_back("new " + primary + " release(s): " + Join(releases));
  for (const VersionChange& v : diff.versions) {
    if (v.project != primary || v.added.empty()) continue;
    const bool new_backend = before.backends.count(v.backend) == 0;
    r.callouts.push_back("new " + primary + " version(s) on " + v.backend + (new_backend ? " (new backend)" : "") +
                         ": " + Join(v.added));
  }
}

// Backends removed or emptied; refused unless allowed. Returns their names.
std::set<std::string> JudgeBackendLosses(const Catalogue& before, const Catalogue& after, const CatalogueDiff& diff,
                                         const GuardOptions& options, GuardReport& r) {
  std::set<std::string> gone_backends;
  for (const std::string& name : diff.backends_removed) {
    const CatalogueBackend& b = before.backends.at(name);
    r.removals.push_back("backend " + name + " (" + DescribeBackendRecord(b) + ", " + std::to_string(b.projects) +
                         " projects, state " + Word(b.state) + ")");
    if (Allowed(options, name)) {
      r.callouts.push_back("backend removed (accepted with --allow-removed): " + name);
    } else {
      r.refusals.push_back("backend " + name + " disappeared from the index");
    }
    gone_backends.insert(name);
  }
  for (const auto& [name, b] : before.backends) {
    auto it = after.backends.find(name);
    if (it == after.backends.end() || !Offers(b) || Offers(it->second)) continue;
    r.removals.push_back("backend " + name + ": its project list (" + std::to_string(b.projects) + " projects; state " +
                         Word(b.state) + " -> " + Word(it->second.state) + ", " + std::to_string(it->second.projects) +
                         " projects)");
    if (Allowed(options, name)) {
      r.callouts.push_back("backend emptied (accepted with --allow-removed): " + name);
    } else {
      r.refusals.push_back("backend " + name + " lost its project list (state " + Word(b.state) + " -> " +
                           Word(it->second.state) + ")");
    }
    gone_backends.insert(name);
  }
  return gone_backends;
}

// Projects removed, and routed packages that would leave the routed list; refused unless
// allowed. Returns the routed packages lost.
std::set<std::string> JudgeProjectLosses(const Catalogue& before, const Catalogue& after,
                                         const GuardOptions& options, GuardReport& r) {
  std::set<std::string> lost_projects;
  for (const auto& [name, p] : before.projects) {
    auto it = after.projects.find(name);
    if (it == after.projects.end()) r.removals.push_back("project " + name + " (" + p.cls + ")");
    if (p.cls != "routed") continue;
    std::string why;
    if (it == after.projects.end()) {
      why = "routed package " + name + " would be removed";
    } else if (it->second.cls != "routed") {
      why = "routed package " + name + " would leave the routed list (now " + it->second.cls + ": " +
            it->second.reason + ")";
      r.removals.push_back("routed package " + name + " from the routed list (now " + it->second.cls + ")");
    } else {
      continue;
    }
    lost_projects.insert(name);
    if (!Allowed(options, name)) r.refusals.push_back(why);
  }
  return lost_projects;
}

// A routed or companion package taken off a backend that is still there: a page answering
// 403 or 404, the classic partial outage.
void JudgeBuildLosses(const Catalogue& before, const Catalogue& after, const GuardOptions& options,
                      const std::set<std::string>& gone_backends, const std::set<std::string>& lost_projects,
                      GuardReport& r) {
  for (const auto& [name, p] : before.projects) {
    if (!IsBuildClass(p.cls) || lost_projects.count(name) != 0) continue;
    for (const auto& [backend, versions] : p.builds) {
      if (versions.empty() || gone_backends.count(backend) != 0) continue;
      if (BuildsOf(after, name, backend) != nullptr) continue;
      if (after.projects.count(name) == 0) continue;  // reported as a removed project
      if (Allowed(options, name) || Allowed(options, backend)) continue;
      r.refusals.push_back(p.cls + " package " + name + " would no longer be offered on " + backend + " (" +
                           std::to_string(versions.size()) + " versions)");
    }
  }
}

// Versions removed, and wheels dropped from versions that stay (a platform tag gone from a
// release): said, not refused (the wheel-loss bound judges them).
void ListWheelRemovals(const Catalogue& before, const Catalogue& after, const CatalogueDiff& diff, GuardReport& r) {
  for (const VersionChange& v : diff.versions) {
    const VersionTags* old_builds = BuildsOf(before, v.project, v.backend);
    if (old_builds == nullptr || v.removed.empty()) continue;
    std::vector<std::string> items;
    std::size_t wheels = 0;
    for (const std::string& version : v.removed) {
      auto it = old_builds->find(version);
      const std::size_t n = it == old_builds->end() ? 0 : it->second.size();
      wheels += n;
      items.push_back(version + " (" + std::to_string(n) + ")");
    }
    r.removals.push_back(v.project + " on " + v.backend + ": " + std::to_string(wheels) + " wheel(s) of " +
                         std::to_string(v.removed.size()) + " version(s): " + Join(items));
  }
  for (const auto& [name, p] : before.projects) {
    for (const auto& [backend, versions] : p.builds) {
      const VersionTags* now = BuildsOf(after, name, backend);
      if (now == nullptr) continue;
      for (const auto& [version, tags] : versions) {
        auto it = now->find(version);
        if (it == now->end()) continue;
        std::vector<std::string> dropped;
        for (const std::string& tag : tags) {
          if (std::find(it->second.begin(), it->second.end(), tag) == it->second.end()) dropped.push_back(tag);
        }
        if (!dropped.empty()) {
          r.removals.push_back(name + " " + version + " on " + backend + ": " + std::to_string(dropped.size()) +
                               " wheel(s): " + Join(dropped));
        }
      }
    }
  }
}

}  // namespace

GuardReport CheckCatalogueChange(const Catalogue& before, const Catalogue& after,
                                 const CatalogueDiff& diff, const GuardOptions& options) {
  GuardReport r;
  r.max_wheel_loss = options.max_wheel_loss;
  r.wheels_before = diff.wheels_before;
  r.wheels_removed = diff.wheels_removed;
  r.wheel_loss = diff.wheels_before == 0 ? (diff.wheels_removed > 0 ? 1.0 : 0.0)
                                         : static_cast<double>(diff.wheels_removed) /
                                               static_cast<double>(diff.wheels_before);
  CallOutNews(before, after, diff, options.primary_project, r);
  const std::set<std::string> gone_backends = JudgeBackendLosses(before, after, diff, options, r);
  const std::set<std::string> lost_projects = JudgeProjectLosses(before, after, options, r);
  JudgeBuildLosses(before, after, options, gone_backends, lost_projects, r);
  ListWheelRemovals(before, after, diff, r);
  if (r.wheel_loss > options.max_wheel_loss) {
    r.refusals.push_back(std::to_string(r.wheels_removed) + " of " + std::to_string(r.wheels_before) +
                         " wheels would be removed (" + Percent(r.wheel_loss) + ", more than the " +
                         Percent(options.max_wheel_loss) + " allowed)");
  }
  OtherChanges(before, after, r);
  if (!r.refusals.empty()) {
    r.verdict = GuardVerdict::kRefused;
  } else if (!diff.empty() || !r.other_changes.empty()) {
    r.verdict = GuardVerdict::kChanged;
  }
  return r;
}

std::string GuardReportToText(const GuardReport& r, const CatalogueDiff& diff) {
  std::string out;
  const bool refused = r.verdict == GuardVerdict::kRefused;
  out += std::string("**Verdict: ") + GuardVerdictName(r.verdict) + "**";
  if (refused) out += " (the committed catalogue stays as it is)";
  out += "\n\n";
  auto bullets = [&](const std::vector<std::string>& items, const std::string& prefix = "") {
    for (const std::string& item : items) out += "- " + prefix + item + "\n";
  };
  out += "### For the reviewer\n";
  if (r.callouts.empty())
    out += "- nothing new: no new backend, no reclassified package, no new torch version\n";
  bullets(r.callouts);
  out += "\n### Guard\n";
  if (refused) {
    bullets(r.refusals, "REFUSED: ");
  } else {
    out += "- passed: no backend gone, no routed package lost, " +
           std::to_string(r.wheels_removed) + " of " + std::to_string(r.wheels_before) +
           " wheels removed (" + Percent(r.wheel_loss) + "; the limit is " +
           Percent(r.max_wheel_loss) + ")\n";
  }
  if (!r.removals.empty()) {
    out += refused ? "\n### What would have been removed\n" : "\n### Removed\n";
    bullets(r.removals);
  }
  if (!r.other_changes.empty()) {
    out += "\n### Other changes\n";
    bullets(r.other_changes);
  }
  out += "\n### All changes (torchdex-crawl diff)\n```text\n" + DiffToText(diff) + "```\n";
  return out;
}

std::string GuardReportToJson(const GuardReport& r, const CatalogueDiff& diff) {
  nlohmann::json doc;
  doc["verdict"] = GuardVerdictName(r.verdict);
  doc["callouts"] = r.callouts;
  doc["refusals"] = r.refusals;
  doc["removals"] = r.removals;
  doc["other_changes"] = r.other_changes;
  doc["wheel_loss"] = {{"before", r.wheels_before},
                       {"removed", r.wheels_removed},
                       {"share", r.wheel_loss},
                       {"limit", r.max_wheel_loss}};
  doc["diff"] = nlohmann::json::parse(DiffToJson(diff));
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace torchdex::catalogue
