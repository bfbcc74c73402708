#include "crawler/report.h"

#include <map>
#include <nlohmann/json.hpp>

namespace torchdex::crawler {

std::string CrawlSummaryJson(const CrawlReport& report, double seconds) {
  const catalogue::RunStats& st = report.stats;
  nlohmann::json warnings = nlohmann::json::array();
  nlohmann::json counts = nlohmann::json::object();
  for (const CrawlWarning& w : report.warnings) {
    warnings.push_back(w.message);
    counts[w.kind] = counts.value(w.kind, 0) + 1;
  }
  nlohmann::json summary = {{"ok", report.ok},
                            {"seconds", seconds},
                            {"pages",
                             {{"fetched", st.pages_fetched},
                              {"changed", st.pages_changed},
                              {"not_modified", st.pages_not_modified},
                              {"absent", st.pages_absent},
                              {"failed", st.pages_failed}}},
                            {"anchors", st.anchors},
                            {"wire_bytes", st.wire_bytes},
                            {"warnings", warnings},
                            {"warning_counts", counts},
                            {"failures", report.failures}};
  nlohmann::json backends = nlohmann::json::object();
  for (const auto& [channel, list] : report.backends) {
    for (const catalogue::BackendRecord& b : list) {
      backends[channel][b.name] = {
          {"kind", b.kind},   {"toolkit", b.toolkit},   {"legacy", b.legacy},
          {"state", b.state}, {"projects", b.projects}, {"discovered_from", b.discovered_from}};
    }
  }
  summary["backends"] = backends;
  summary["classes"] = report.classes;
  summary["phases_s"] = report.phases;
  // Hrefs and file names are bytes: what is not UTF-8 is replaced, never thrown about (issue 13
  // item 19: type_error.316 aborted the crawl after its commit).
  return summary.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string WarningsText(const std::vector<CrawlWarning>& warnings, bool verbose) {
  std::string out;
  std::map<std::string, std::size_t> shown, total;
  for (const CrawlWarning& w : warnings) ++total[w.kind];
  for (const CrawlWarning& w : warnings) {
    if (!verbose && shown[w.kind]++ >= kWarningExamples) continue;
    out += "torchdex-crawl: warning: " + w.message + "\n";
  }
  if (verbose) return out;
  for (const auto& [kind, count] : total) {
    if (count <= kWarningExamples) continue;
    out += "torchdex-crawl: warning: ... and " + std::to_string(count - kWarningExamples) +
           " more \"" + kind + "\" (" + std::to_string(count) +
           " in all; -v or --json lists every one)\n";
  }
  return out;
}

}  // namespace torchdex::crawler
