#include "installer/install/install_report.h"

#include <algorithm>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "core/name.h"
#include "core/requirement.h"
#include "core/url.h"
#include "index/url.h"
#include "installer/lock/toml.h"

namespace torchdex::installer {
namespace {

using nlohmann::json;

std::string StringOf(const json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

core::Expected<ReportedPackage> ReadItem(const json& item, const std::string& where) {
  if (!item.is_object() || !item.contains("metadata") || !item["metadata"].is_object()) {
    return core::MakeError(where + ": not an object with metadata", core::ErrorCode::kInstallerFailed);
  }
  const json& metadata = item["metadata"];
  ReportedPackage p;
  p.name = core::NormalizeName(StringOf(metadata, "name"));
  p.version = StringOf(metadata, "version");
  if (p.name.empty()) return core::MakeError(where + ": metadata has no name", core::ErrorCode::kInstallerFailed);
  const auto requested = item.find("requested");
  p.requested = requested != item.end() && requested->is_boolean() && requested->get<bool>();
  const auto direct = item.find("is_direct");
  p.direct = direct != item.end() && direct->is_boolean() && direct->get<bool>();
  if (const auto info = item.find("download_info"); info != item.end() && info->is_object()) {
    p.url = StringOf(*info, "url");
    if (const auto archive = info->find("archive_info"); archive != info->end() && archive->is_object()) {
      if (const auto hashes = archive->find("hashes"); hashes != archive->end() && hashes->is_object()) {
        p.sha256 = StringOf(*hashes, "sha256");
      }
      const std::string hash = StringOf(*archive, "hash");  // the older "sha256=HEX" form
      if (p.sha256.empty() && hash.rfind("sha256=", 0) == 0) p.sha256 = hash.substr(7);
    }
  }
  std::transform(p.sha256.begin(), p.sha256.end(), p.sha256.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (const auto requires_dist = metadata.find("requires_dist");
      requires_dist != metadata.end() && requires_dist->is_array()) {
    for (const json& text : *requires_dist) {
      if (!text.is_string()) continue;
      core::Expected<core::Requirement> r = core::Requirement::Parse(text.get<std::string>());
      if (r) p.requires_names.push_back(r->NormalizedName());
    }
  }
  return p;
}

// "needs-needs-url-torch 1.0 (asked) -> needs-url-torch 1.0 -> torch": the shortest chain of
// requirements from a package asked for to `name`.
std::string ChainTo(const std::vector<ReportedPackage>& report, const std::string& name) {
  std::map<std::string, const ReportedPackage*> by_name;
  for (const ReportedPackage& p : report) by_name[p.name] = &p;
  std::map<std::string, std::string> parent;  // name -> the package that requires it, nearer the top
  std::vector<std::string> frontier = {name};
  std::set<std::string> seen = {name};
  std::string top;
  for (std::size_t i = 0; i < frontier.size() && top.empty(); ++i) {
    for (const ReportedPackage& p : report) {
      if (seen.contains(p.name) ||
          std::find(p.requires_names.begin(), p.requires_names.end(), frontier[i]) == p.requires_names.end()) {
        continue;
      }
      seen.insert(p.name);
      parent[p.name] = frontier[i];
      frontier.push_back(p.name);
      if (p.requested) {
        top = p.name;
        break;
      }
    }
  }
  if (top.empty()) return name;
  std::string chain;
  for (std::string at = top; at != name; at = parent[at]) {
    const ReportedPackage* p = by_name[at];
    chain += at + " " + (p ? p->version : "") + (at == top ? " (asked)" : "") + " -> ";
  }
  return chain + name;
}

}  // namespace

core::Expected<std::vector<ReportedPackage>> ParseInstallReport(std::string_view text, const std::string& path) {
  const json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) {
    return core::MakeError(path + ": pip's installation report is not a JSON object", core::ErrorCode::kInstallerFailed);
  }
  if (StringOf(doc, "version") != "1") {
    return core::MakeError(path + ": pip's installation report has version \"" + StringOf(doc, "version") +
                               "\", not \"1\" (https://pip.pypa.io/en/stable/reference/installation-report/)",
                           core::ErrorCode::kInstallerFailed);
  }
  std::vector<ReportedPackage> out;
  const auto install = doc.find("install");
  if (install == doc.end()) return out;
  if (!install->is_array()) return core::MakeError(path + ": install is not an array", core::ErrorCode::kInstallerFailed);
  for (std::size_t i = 0; i < install->size(); ++i) {
    core::Expected<ReportedPackage> p = ReadItem((*install)[i], path + ": install[" + std::to_string(i) + "]");
    if (!p) return p.error();
    out.push_back(std::move(p).value());
  }
  return out;
}

core::Expected<std::vector<ReportedPackage>> ParseUvResolution(std::string_view text, const std::string& path) {
  core::Expected<toml::Value> doc = toml::Parse(text, path);
  if (!doc) return core::MakeError(doc.error().message, core::ErrorCode::kInstallerFailed);
  std::vector<ReportedPackage> out;
  const toml::Value* packages = doc->Find("packages");
  if (packages == nullptr) return out;
  if (!packages->is_array()) return core::MakeError(path + ": packages is not an array", core::ErrorCode::kInstallerFailed);
  auto text_of = [](const toml::Value* table, const char* key) {
    const toml::Value* v = table != nullptr && table->is_table() ? table->Find(key) : nullptr;
    return v != nullptr && v->is_string() ? v->text : std::string();
  };
  for (const toml::Value& package : packages->items) {
    ReportedPackage p;
    p.name = core::NormalizeName(text_of(&package, "name"));
    p.version = text_of(&package, "version");
    if (p.name.empty()) {
      return core::MakeError(path + ":" + std::to_string(package.line) + ": a package without a name",
                             core::ErrorCode::kInstallerFailed);
    }
    const toml::Value* wheels = package.Find("wheels");
    const toml::Value* file = wheels != nullptr && wheels->is_array() && !wheels->items.empty() ? &wheels->items[0] : nullptr;
    for (const char* source : {"archive", "sdist", "vcs", "directory"}) {
      if (file == nullptr && package.Find(source) != nullptr) {
        file = package.Find(source);
        p.direct = std::string_view(source) != "sdist";
      }
    }
    p.url = text_of(file, "url");
    if (p.url.empty()) p.url = text_of(file, "path");
    p.sha256 = text_of(file != nullptr ? file->Find("hashes") : nullptr, "sha256");
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<std::string> ReportedConstraints(const std::vector<ReportedPackage>& report) {
  std::vector<std::string> out;
  for (const ReportedPackage& p : report) {
    if (!p.direct && !p.version.empty()) out.push_back(p.name + "==" + p.version);
  }
  return out;
}

core::Status CheckReportRouting(const std::vector<ReportedPackage>& report, const RoutingIndex& index,
                                std::string_view resolver) {
  const RoutingIndexConfig& config = index.config();
  for (const ReportedPackage& p : report) {
    if (!config.routed_projects.count(p.name) || index.ServedRouted(p.name, p.url, p.sha256)) continue;
    return core::MakeError(
        std::string(resolver) + " would install the routed package " + p.name + " " + p.version + " from " +
            core::RedactCredentials(p.url.empty() ? std::string("an unknown place") : p.url) +
            (p.direct ? " (a direct URL)" : "") + ", not a wheel of backend " + config.backend +
            (ChainTo(report, p.name) == p.name ? std::string("; reached by the requirements")
                                                : "; it is asked for by " + ChainTo(report, p.name)) +
            ". A routed package comes only from its backend: nothing was installed",
        core::ErrorCode::kNotOffered);
  }
  return {};
}

std::vector<PlannedWheel> ReportedRoutedPins(const std::vector<ReportedPackage>& report, const InstallPlan& plan,
                                             const RoutingIndex& index) {
  std::vector<PlannedWheel> pins;
  for (const ReportedPackage& p : report) {
    const bool planned = std::any_of(plan.routed.begin(), plan.routed.end(),
                                     [&](const PlannedWheel& w) { return w.name == p.name; });
    if (planned || !index.ServedRouted(p.name, p.url, p.sha256)) continue;
    PlannedWheel w;
    w.name = p.name;
    w.version = p.version;
    w.url = p.url;
    w.filename = index::UrlFilename(p.url);
    w.sha256 = p.sha256;
    w.hash = "sha256=" + p.sha256;
    w.required_by = {"reached through " + ChainTo(report, p.name)};
    pins.push_back(std::move(w));
  }
  return pins;
}

}  // namespace torchdex::installer
