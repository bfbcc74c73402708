// page_scan_check DIR...: reads every file under DIR as an HTML simple page (its URL made from
// its path) with the hand-written scanner and with libxml2, checks that wherever the scanner
// answers the page is libxml2's, field for field (unbounded and bounded to 3 anchors), and
// prints the number of pages, of those the scanner deferred (and where), and the CPU time of
// each parser over all of them. Exit 1 on any difference.
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "index/page.h"
#include "index/page_internal.h"

namespace {

double CpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace torchdex::index;
  std::vector<std::pair<std::string, std::string>> pages;  // url, bytes
  std::size_t bytes = 0;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path root = argv[i];
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
      if (!entry.is_regular_file()) continue;
      std::ifstream in(entry.path(), std::ios::binary);
      std::ostringstream body;
      body << in.rdbuf();
      std::string url = "http://127.0.0.1/" +
                        std::filesystem::relative(entry.path().parent_path(), root).string() + "/";
      bytes += body.str().size();
      pages.emplace_back(std::move(url), body.str());
    }
  }
  int deferred = 0, differences = 0;
  std::size_t anchors = 0;
  for (const auto& [url, html] : pages) {
    for (const std::size_t bound : {kAnyNumberOfAnchors, std::size_t{3}}) {
      const auto scanned = ScanHtmlPage(html, url, bound);
      const auto reference = ParseHtmlPageWithLibxml2(html, url, bound);
      if (!scanned) {
        if (bound == kAnyNumberOfAnchors) {
          ++deferred;
          std::printf("deferred: %s (scanner line %d, offset %zu)\n", url.c_str(),
                      detail::scan_deferred_line, detail::scan_deferred_offset);
        }
        continue;
      }
      if (bound == kAnyNumberOfAnchors) anchors += scanned->anchors.size();
      if (!reference.ok() || !(*scanned == *reference)) {
        ++differences;
        std::printf("DIFFERENT: %s (bound %zu)\n", url.c_str(), bound);
      }
    }
  }
  double start = CpuSeconds();
  std::size_t sink = 0;
  for (const auto& [url, html] : pages) {
    if (auto p = ParseHtmlPageWithLibxml2(html, url); p.ok()) sink += p->anchors.size();
  }
  const double libxml2 = CpuSeconds() - start;
  start = CpuSeconds();
  for (const auto& [url, html] : pages) {
    if (auto p = ParseHtmlPage(html, url); p.ok()) sink += p->anchors.size();
  }
  const double scanner = CpuSeconds() - start;
  std::printf(
      "%zu pages (%.1f MB), %zu anchors: the scanner answered %zu, deferred %d, differed from "
      "libxml2 on %d\nCPU: libxml2 %.3f s, ParseHtmlPage (scanner first) %.3f s (%.1fx)%s\n",
      pages.size(), static_cast<double>(bytes) / 1e6, anchors, pages.size() - deferred, deferred,
      differences, libxml2, scanner, libxml2 / scanner, sink == 0 ? " (no anchors?)" : "");
  return differences == 0 ? 0 : 1;
}
