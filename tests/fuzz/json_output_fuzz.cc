// Arbitrary bytes as the strings of the JSON torchdex writes (issue 13 item 19): the crawl's
// --json summary, the catalogue export and its diff and guard reports, and detect --json's host
// facts. Hrefs, file names, environment variables and file contents are bytes; every output
// must be valid UTF-8 that parses as JSON (never type_error.316), and hand each string back as
// core::ToValidUtf8 of what went in.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "catalogue/catalogue.h"
#include "catalogue/diff.h"
#include "core/utf8.h"
#include "crawler/report.h"
#include "installer/detect/report.h"
#include "store/guard.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using nlohmann::json;

// The input's lines; at least one, so every field gets a string.
std::vector<std::string> Strings(std::string_view input) {
  std::vector<std::string> out;
  for (std::size_t start = 0; start <= input.size() && out.size() < 16;) {
    const std::size_t end = std::min(input.find('\n', start), input.size());
    out.emplace_back(input.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// Parses `text` as JSON; traps unless it is valid UTF-8 and JSON.
json Parsed(const std::string& text) {
  TORCHDEX_FUZZ_CHECK(torchdex::core::IsValidUtf8(text));
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  TORCHDEX_FUZZ_CHECK(!doc.is_discarded());
  return doc;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using torchdex::core::ToValidUtf8;
  const std::vector<std::string> s = Strings(FuzzInput(data, size));
  auto at = [&](std::size_t i) -> const std::string& { return s[i % s.size()]; };

  // The --json summary of a crawl.
  torchdex::crawler::CrawlReport report;
  report.warnings.push_back({at(0), at(1)});
  report.warnings.push_back({at(2), at(3)});
  report.failures.push_back(at(4));
  torchdex::catalogue::BackendRecord backend;
  backend.name = at(5);
  backend.kind = at(6);
  backend.discovered_from = at(7);
  report.backends[at(8)].push_back(backend);
  report.classes[at(9)][at(10)] = 1;
  const json summary = Parsed(torchdex::crawler::CrawlSummaryJson(report, 1.5));
  TORCHDEX_FUZZ_CHECK(summary["failures"][0] == ToValidUtf8(at(4)));
  TORCHDEX_FUZZ_CHECK(summary["warnings"][0].is_string());
  (void)torchdex::crawler::WarningsText(report.warnings, false);

  // The catalogue export, and what diff --json and diff --guard --json say of two of them.
  torchdex::catalogue::Catalogue before;
  before.family = "pytorch";
  before.channel = "stable";
  before.crawled_from = at(0);
  before.note = at(1);
  before.backends[at(2)] = {at(3), at(4), false, torchdex::core::BackendState::kOk, at(5), 1};
  torchdex::catalogue::CatalogueProject& project = before.projects[at(6)];
  project.cls = "routed";
  project.reason = at(7);
  project.listed_in = {at(2)};
  project.builds[at(2)][at(8)] = {at(9), at(10)};
  const std::string written = torchdex::catalogue::WriteCatalogueJson(before);
  const json exported = Parsed(written);
  TORCHDEX_FUZZ_CHECK(exported["provenance"]["note"] == ToValidUtf8(at(1)));
  TORCHDEX_FUZZ_CHECK(exported["provenance"]["crawled_from"] == ToValidUtf8(at(0)));
  TORCHDEX_FUZZ_CHECK(exported["projects"].contains(ToValidUtf8(at(6))));

  torchdex::catalogue::Catalogue after = before;
  after.backends.clear();
  after.projects.clear();
  after.backends[at(11)] = {at(12), at(13), false, torchdex::core::BackendState::kEmpty, at(14), 0};
  const torchdex::catalogue::CatalogueDiff diff =
      torchdex::catalogue::DiffCatalogues(before, after);
  Parsed(torchdex::catalogue::DiffToJson(diff));
  const torchdex::catalogue::GuardReport guard =
      torchdex::catalogue::CheckCatalogueChange(before, after, diff, {});
  Parsed(torchdex::catalogue::GuardReportToJson(guard, diff));

  // detect --json.
  torchdex::installer::HostFacts facts;
  facts.arch = at(0);
  facts.wsl_source = at(1);
  facts.warnings = {at(2), at(3)};
  facts.overrides.push_back({at(4), at(5)});
  torchdex::installer::NvidiaFacts nvidia;
  nvidia.cuda_visible_devices = at(6);
  nvidia.driver_source = at(7);
  torchdex::installer::NvidiaGpu gpu;
  gpu.name = at(8);
  gpu.uuid = at(9);
  nvidia.gpus.push_back(gpu);
  facts.nvidia = nvidia;
  const json host = Parsed(torchdex::installer::HostFactsToJson(facts));
  TORCHDEX_FUZZ_CHECK(host["nvidia"]["cuda_visible_devices"] == ToValidUtf8(at(6)));
  TORCHDEX_FUZZ_CHECK(host["arch"] == ToValidUtf8(at(0)));
  return 0;
}
