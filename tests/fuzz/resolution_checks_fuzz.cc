// Any bytes as the two resolver outputs torchdex reads to hold the routing guarantee (issue
// 29): pip's installation report (install/install_report.h) and a uv project's uv.lock
// (lock/uv_lock.h). Neither may crash, hang or overflow; every error names its file; a report
// that parses is checked against an index that served nothing, so a routed package in it is
// refused and never pinned.
#include <memory>
#include <string>

#include "installer/install/install_report.h"
#include "installer/install/routing_index.h"
#include "installer/lock/uv_lock.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace torchdex::installer;  // NOLINT(build/namespaces)
  const std::string_view input = FuzzInput(data, size);
  static const std::unique_ptr<RoutingIndex> index = [] {
    RoutingIndexConfig config;
    config.routed_projects = {"torch", "triton"};
    config.backend = "cu124";
    config.backend_index_url = "https://download.pytorch.org/whl/cu124/";
    return std::make_unique<RoutingIndex>(config, [](const std::string&) { return torchdex::index::FetchResult{}; });
  }();
  auto report = ParseInstallReport(input, "r.json");
  if (!report) {
    TORCHDEX_FUZZ_CHECK(report.error().message.rfind("r.json: ", 0) == 0);
  } else {
    bool routed = false;
    for (const ReportedPackage& p : *report) routed = routed || p.name == "torch" || p.name == "triton";
    TORCHDEX_FUZZ_CHECK(CheckReportRouting(*report, *index).ok() == !routed);
    TORCHDEX_FUZZ_CHECK(ReportedRoutedPins(*report, InstallPlan{}, *index).empty());
  }
  auto is_routed = [](const std::string& name) { return name == "torch"; };
  torchdex::core::Status lock = CheckUvLockRouting(input, "uv.lock", is_routed, {"https://h/whl/cu124/"});
  if (!lock) TORCHDEX_FUZZ_CHECK(lock.error().message.rfind("uv.lock:", 0) == 0);
  return 0;
}
