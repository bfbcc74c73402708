#include "store/classify.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "core/name.h"
#include "core/version.h"

namespace torchdex::catalogue {
namespace {

const std::set<std::string, std::less<>> kClasses = {"routed", "companion", "mirror", "stale"};

// The backend a local label names: "cu128" and "cu128.foo" name cu128.
bool LabelNamesBackend(std::string_view local, std::string_view backend) {
  return local == backend || (local.starts_with(backend) && local.size() > backend.size() &&
                              local[backend.size()] == '.');
}

std::string JoinFew(const std::set<std::string>& items, std::size_t most) {
  std::string out;
  std::size_t n = 0;
  for (const std::string& item : items) {
    if (n == most) {
      out += ", ...";
      break;
    }
    if (n != 0) out += ", ";
    out += item;
    ++n;
  }
  return out;
}

std::string DescribeCopies(const std::vector<const FileGroup*>& groups) {
  std::map<std::string, std::int64_t> by_host;
  std::int64_t at_root = 0;
  std::int64_t in_backend_dirs = 0;
  std::int64_t total = 0;
  for (const FileGroup* g : groups) {
    total += g->files;
    if (!g->host.empty()) {
      by_host[g->host] += g->files;
    } else if (g->backend.empty()) {
      at_root += g->files;
    } else {
      in_backend_dirs += g->files;
    }
  }
  std::string out = "no backend-specific builds: " + std::to_string(total) + " files";
  std::vector<std::string> parts;
  for (const auto& [host, n] : by_host) parts.push_back(std::to_string(n) + " on " + host);
  if (at_root > 0) parts.push_back(std::to_string(at_root) + " at the channel root, listed by every backend");
  if (in_backend_dirs > 0) parts.push_back(std::to_string(in_backend_dirs) + " in backend folders without a backend label");
  if (!parts.empty()) {
    out += " (";
    for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? "; " : "") + parts[i];
    out += ")";
  }
  return out;
}

}  // namespace

std::string NewestFinalVersion(const std::vector<std::string>& versions) {
  std::optional<core::Version> best;
  std::string best_text;
  for (const std::string& text : versions) {
    auto v = core::Version::Parse(text);
    if (!v || v->IsPrerelease()) continue;
    const core::Version pub = v->Public();
    if (!best || pub > *best) {
      best = pub;
      best_text = pub.ToString();
    }
  }
  return best_text;
}

core::Expected<RoutingPolicy> ParseRoutingPolicy(std::string_view text, std::string_view origin) {
  auto fail = [&](const std::string& pointer, const std::string& what) {
    return core::MakeError(std::string(origin) + ": " + pointer + ": " + what,
                           core::ErrorCode::kBadInputFile);
  };
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, false, /*ignore_comments=*/true);
  if (doc.is_discarded()) return fail("", "not valid JSON");
  if (!doc.is_object() || !doc.contains("projects") || !doc["projects"].is_array()) {
    return fail("/projects", "expected an array of policy entries");
  }
  RoutingPolicy policy;
  const nlohmann::json& entries = doc["projects"];
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const std::string at = "/projects/" + std::to_string(i);
    const nlohmann::json& e = entries[i];
    if (!e.is_object()) return fail(at, "expected an object");
    for (const char* key : {"name", "class", "reason", "source"}) {
      if (!e.contains(key) || !e[key].is_string() || e[key].get<std::string>().empty()) {
        return fail(at + "/" + key, "expected a non-empty string");
      }
    }
    const std::string name = core::NormalizeName(e["name"].get<std::string>());
    const std::string cls = e["class"].get<std::string>();
    if (kClasses.count(cls) == 0) {
      return fail(at + "/class", "'" + cls + "' is not one of routed, companion, mirror, stale");
    }
    if (policy.projects.count(name) != 0) {
      return fail(at + "/name", "'" + name + "' already has a policy entry");
    }
    policy.projects[name] = PolicyEntry{cls, e["reason"].get<std::string>(), e["source"].get<std::string>()};
  }
  return policy;
}

core::Expected<RoutingPolicy> LoadRoutingPolicy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return core::MakeError(path + ": cannot be read", core::ErrorCode::kBadInputFile);
  std::ostringstream text;
  text << in.rdbuf();
  return ParseRoutingPolicy(text.str(), path);
}

std::vector<ProjectRecord> Classify(std::string_view channel, const ClassifyInput& input) {
  std::map<std::string, std::vector<const FileGroup*>> by_project;
  for (const std::string& name : input.projects) by_project[core::NormalizeName(name)];
  for (const FileGroup& g : input.groups) by_project[g.project].push_back(&g);

  std::vector<ProjectRecord> out;
  for (const auto& [name, files] : by_project) {
    ProjectRecord record;
    record.channel = std::string(channel);
    record.name = name;

    if (input.policy != nullptr) {
      if (auto it = input.policy->projects.find(name); it != input.policy->projects.end()) {
        record.cls = it->second.cls;
        record.reason = it->second.reason + " (policy; source: " + it->second.source + ")";
        out.push_back(std::move(record));
        continue;
      }
    }

    std::set<std::string> labelled_backends;
    std::set<std::string> example;
    for (const FileGroup* g : files) {
      if (!g->backend.empty() && LabelNamesBackend(g->local, g->backend)) {
        labelled_backends.insert(g->backend);
        if (example.empty()) example.insert(g->project + "-" + g->example_version);
      }
    }
    if (!labelled_backends.empty()) {
      record.cls = "routed";
      record.reason = "builds differ by backend: wheels labelled with their backend (" +
                      *example.begin() + ") in " + std::to_string(labelled_backends.size()) +
                      " backend" + (labelled_backends.size() == 1 ? "" : "s") + " (" +
                      JoinFew(labelled_backends, 8) + ")";
      out.push_back(std::move(record));
      continue;
    }

    if (auto it = input.variant_wheels.find(name); it != input.variant_wheels.end()) {
      record.cls = "routed";
      record.reason = "builds differ by PEP 825 variant label (" + it->second + ")";
      out.push_back(std::move(record));
      continue;
    }

    if (auto it = input.default_index_newest.find(name); it != input.default_index_newest.end()) {
      auto here = input.versions.find(name);
      const std::string newest_here =
          here == input.versions.end() ? std::string() : NewestFinalVersion(here->second);
      auto theirs = core::Version::Parse(it->second);
      auto ours = core::Version::Parse(newest_here);
      if (theirs && (!ours || *ours < *theirs)) {
        record.cls = "stale";
        record.reason = "the index lags the default index: newest here " +
                        (newest_here.empty() ? std::string("none") : newest_here) +
                        ", default index " + it->second;
        out.push_back(std::move(record));
        continue;
      }
    }

    record.cls = "mirror";
    record.reason = files.empty() ? "listed by a backend, but its page is missing or empty"
                                  : DescribeCopies(files);
    out.push_back(std::move(record));
  }
  return out;
}

}  // namespace torchdex::catalogue
