#include "crawler/cli.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>

#include "catalogue/catalogue.h"
#include "catalogue/diff.h"
#include "crawler/report.h"
#include "store/guard.h"
#include "store/read_catalogue.h"
#include "store/store.h"
#include "core/sha256.h"
#include "core/spelling.h"

#ifndef TORCHDEX_VERSION
#define TORCHDEX_VERSION "0.0.0"
#endif
#ifndef TORCHDEX_DATA_DIR
#define TORCHDEX_DATA_DIR "data"
#endif
#ifndef TORCHDEX_INSTALLED_DATA_DIR
#define TORCHDEX_INSTALLED_DATA_DIR "share/torchdex/data"
#endif

namespace torchdex::crawler {
namespace po = boost::program_options;
namespace {

constexpr const char* kUsage =
    "usage: torchdex-crawl <command> [options]\n"
    "\n"
    "Discovers every backend of the PyTorch wheel index (cpu, cuXYZ, rocmX.Y, xpu ...) in every\n"
    "channel, crawls every project page into a SQLite store, classifies the projects, and\n"
    "exports the canonical catalogue (generated/catalogue.json).\n"
    "\n"
    "commands:\n"
    "  crawl    crawl the index into the store (conditional requests: unchanged pages are 304s)\n"
    "  export   write one channel of the store as canonical catalogue JSON\n"
    "  diff     compare two catalogue JSON files (backends, classes, versions)\n"
    "\n"
    "`torchdex-crawl <command> --help` describes each command's options.\n"
    "\n";

constexpr std::chrono::milliseconds kProgressInterval{200};

// Prints `error` and returns the status its code maps to (exit_codes.h: the one table).
int Report(std::ostream& err, const core::Error& error) {
  err << "torchdex-crawl: " << error.message << "\n";
  return ExitStatus(error.code);
}

std::string HumanBytes(double bytes) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(1);
  if (bytes >= 1 << 20) s << bytes / (1 << 20) << " MB";
  else if (bytes >= 1 << 10) s << bytes / (1 << 10) << " kB";
  else s << bytes << " B";
  return s.str();
}

po::options_description CrawlOptionsDescription() {
  po::options_description d("torchdex-crawl crawl [options]");
  // clang-format off
  d.add_options()
    ("help,h", "show this help")
    ("store", po::value<std::string>()->default_value("catalogue.sqlite"), "the SQLite store to update")
    ("indexes", po::value<std::string>(), "index families to crawl (default: <data>/indexes.json)")
    ("policy", po::value<std::string>(), "routing policy (default: <data>/routing-policy.json)")
    ("family", po::value<std::string>()->default_value("pytorch"), "which family of indexes.json")
    ("base-url", po::value<std::string>(), "crawl this URL instead of the family's (a mirror, a loopback server)")
    ("channel", po::value<std::vector<std::string>>(), "crawl only this channel (stable, test, nightly); repeatable")
    ("backend", po::value<std::vector<std::string>>(), "crawl only this backend (cu128, ...); repeatable; legacy ones too")
    ("include-legacy", "also crawl legacy directories (*-full, *-pypi-*, cpu-cxx11-abi)")
    ("default-index", po::value<std::string>(), "a PyPI-style simple index: projects newer there are classified stale")
    ("jobs,j", po::value<std::string>()->default_value("16"), "requests in flight at once (1 to 256)")
    ("attempts", po::value<std::string>()->default_value("4"), "tries per page for 5xx, 429 and timeouts (1 to 100)")
    ("timeout", po::value<std::string>()->default_value("60"), "seconds per request (above 0, at most 86400)")
    ("connect-timeout", po::value<std::string>()->default_value("10"), "seconds to connect (above 0, at most 3600)")
    ("max-page-bytes", po::value<std::string>()->default_value("67108864"), "a larger page is an error (at most 1 GiB)")
    ("max-links", po::value<std::string>()->default_value("50000"), "a page with more links is an error")
    ("max-follow", po::value<std::string>()->default_value("5000"), "a listing that leads to more pages is an error")
    ("max-pages", po::value<std::string>()->default_value("100000"), "a crawl that would ask for more pages fails")
    ("export", po::value<std::string>(), "after a good crawl, write the catalogue JSON here (left as it is when it holds what this store would export)")
    ("export-channel", po::value<std::string>()->default_value("stable"), "the channel --export writes")
    ("note", po::value<std::string>()->default_value(""), "a note for the catalogue's provenance")
    ("index-url", po::value<std::string>(), "the index the catalogue stands for (default: the family's)")
    ("snapshot", po::value<std::string>()->default_value(""), "the copy crawled, when not the live index")
    ("snapshot-date", po::value<std::string>()->default_value(""), "the day that copy was taken (YYYY-MM-DD)")
    ("json", "print a JSON summary on stdout (every warning)")
    ("verbose,v", "print every warning (without it: a few of each kind, and their count)")
    ("quiet,q", "no progress display");
  // clang-format on
  return d;
}

po::options_description ExportOptionsDescription() {
  po::options_description d("torchdex-crawl export [options]");
  // clang-format off
  d.add_options()
    ("help,h", "show this help")
    ("store", po::value<std::string>()->default_value("catalogue.sqlite"), "the SQLite store to read")
    ("channel", po::value<std::string>()->default_value("stable"), "the channel to export")
    ("family", po::value<std::string>()->default_value("pytorch"), "the family name recorded in the catalogue")
    ("note", po::value<std::string>()->default_value(""), "a note for the catalogue's provenance")
    ("index-url", po::value<std::string>()->default_value(""), "the index the catalogue stands for")
    ("snapshot", po::value<std::string>()->default_value(""), "the copy crawled, when not the live index")
    ("snapshot-date", po::value<std::string>()->default_value(""), "the day that copy was taken (YYYY-MM-DD)")
    ("output,o", po::value<std::string>(), "write here (atomically) instead of stdout");
  // clang-format on
  return d;
}

po::options_description DiffOptionsDescription() {
  po::options_description d("torchdex-crawl diff OLD.json NEW.json [options]");
  // clang-format off
  d.add_options()
    ("help,h", "show this help")
    ("json", "print the difference as JSON")
    ("guard", "judge the change as the sync job does: call out what a reviewer must see, refuse "
              "removals; exit 0 no change, 10 changed, 20 refused")
    ("max-wheel-loss", po::value<double>()->default_value(0.10, "0.10"),
     "with --guard: refuse when more than this share of the old wheels would be removed")
    ("allow-removed", po::value<std::vector<std::string>>(),
     "with --guard: a backend or project whose removal was reviewed and is accepted; repeatable")
    ("old", po::value<std::string>(), "the older catalogue")
    ("new", po::value<std::string>(), "the newer catalogue");
  // clang-format on
  return d;
}

// Numeric flags are read here, whole: a count is digits only (no sign: "-1" is not 2^64-1), a
// number of seconds is finite ("nan" and "inf" switched the limits off). Issue 13 item 24.
struct NumberFlags {
  const po::variables_map& vm;
  std::string error;  // the first bad flag, "" while all are good

  std::uint64_t Count(const char* flag, std::uint64_t max) {
    const std::string text = vm[flag].as<std::string>();
    std::uint64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || text.empty() || value < 1 ||
        value > max) {
      Bad(flag, text, "a whole number from 1 to " + std::to_string(max));
      return 1;
    }
    return value;
  }

  double Seconds(const char* flag, double max) {
    const std::string text = vm[flag].as<std::string>();
    double value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || text.empty() ||
        !std::isfinite(value) || value <= 0 || value > max) {
      std::ostringstream limit;
      limit << "seconds, a number above 0 and at most " << max;
      Bad(flag, text, limit.str());
      return 1;
    }
    return value;
  }

  void Bad(const char* flag, const std::string& text, const std::string& expected) {
    if (error.empty()) error = std::string("--") + flag + " " + text + ": expected " + expected;
  }
};

bool Parse(const std::vector<std::string>& args, const po::options_description& desc,
           const po::positional_options_description* positional, po::variables_map& vm,
           std::ostream& err) {
  try {
    po::command_line_parser parser(args);
    parser.options(desc);
    if (positional != nullptr) parser.positional(*positional);
    po::store(parser.run(), vm);
    po::notify(vm);
    return true;
  } catch (const po::error& e) {
    err << "torchdex-crawl: " << e.what() << "\n" << desc;
    return false;
  }
}

// What a catalogue stands for, apart from where the crawl fetched it (--index-url, --snapshot,
// --snapshot-date), and the free-text note.
struct Provenance {
  std::string note, index_url, snapshot, snapshot_date;
};

Provenance ProvenanceOf(const po::variables_map& vm, const std::string& default_index_url) {
  Provenance p{vm["note"].as<std::string>(), default_index_url, vm["snapshot"].as<std::string>(),
               vm["snapshot-date"].as<std::string>()};
  if (vm.count("index-url") && !vm["index-url"].as<std::string>().empty())
    p.index_url = vm["index-url"].as<std::string>();
  return p;
}

bool IsDay(const std::string& text) {
  return text.size() == 10 && text[4] == '-' && text[7] == '-' &&
         std::all_of(text.begin(), text.end(), [](char c) {
           return std::isdigit(static_cast<unsigned char>(c)) || c == '-';
         });
}

int WriteExport(catalogue::Store& store, const std::string& family, const std::string& channel,
                const Provenance& provenance, const std::string& output, std::ostream& out,
                std::ostream& err, std::string* written = nullptr) {
  if (!provenance.snapshot_date.empty() && !IsDay(provenance.snapshot_date)) {
    err << "torchdex-crawl: --snapshot-date: expected YYYY-MM-DD, got '" << provenance.snapshot_date
        << "'\n";
    return kExitUsage;
  }
  auto cat = catalogue::ReadCatalogue(store, family, channel, provenance.note);
  if (!cat) return Report(err, cat.error());
  cat->index_url = provenance.index_url;
  cat->snapshot = provenance.snapshot;
  cat->snapshot_date = provenance.snapshot_date;
  if (cat->backends.empty()) {
    return Report(err,
                  core::MakeError("the store " + store.path() + " holds no backend of channel '" +
                                      channel + "': crawl it first",
                                  core::ErrorCode::kUsage));
  }
  const std::string json = catalogue::WriteCatalogueJson(*cat);
  if (written != nullptr) *written = json;
  if (output.empty()) {
    out << json;
    return kExitOk;
  }
  bool changed = false;
  if (auto s = catalogue::WriteFileAtomically(output, json, &changed); !s) {
    return Report(err, s.error());
  }
  err << "torchdex-crawl: " << output << (changed ? " written" : " unchanged") << " ("
      << json.size() << " bytes, " << cat->backends.size() << " backends, " << cat->projects.size()
      << " projects)\n";
  return kExitOk;
}

// --- the export of an unchanged crawl ---
// After writing FILE, a crawl --export records in the store's meta table what FILE was made
// from: the channel's fingerprint (Store::ChannelFingerprint), the provenance flags and this
// torchdex, with the digest of the bytes written. A later crawl whose store and flags give the
// same record, and whose FILE still holds those bytes, has nothing to export: FILE is left as it
// is, and neither it nor the store is written.

// What an export is made from, as one digest.
std::string ExportSource(const std::string& family, const std::string& channel,
                         const Provenance& provenance, const std::string& fingerprint) {
  std::string data;
  auto add = [&data](std::string_view value) {
    data.append(std::to_string(value.size())).push_back(':');
    data.append(value);
  };
  add("torchdex-crawl export 1");
  add(TORCHDEX_VERSION);
  // Another build of torchdex-crawl may export the same store differently.
  struct stat self {};
  if (stat("/proc/self/exe", &self) == 0) {
    add(std::to_string(self.st_size));
    add(std::to_string(self.st_mtim.tv_sec) + "." + std::to_string(self.st_mtim.tv_nsec));
  }
  for (const std::string* value : {&family, &channel, &provenance.note, &provenance.index_url,
                                   &provenance.snapshot, &provenance.snapshot_date, &fingerprint}) {
    add(*value);
  }
  return core::Sha256Hex(data);
}

// The digest of FILE's bytes, "" when it cannot be read.
std::string FileDigest(const std::string& path, std::size_t* size) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad()) return {};
  const std::string content = std::move(bytes).str();
  *size = content.size();
  return core::Sha256Hex(content);
}

int ExportAfterCrawl(catalogue::Store& store, const std::string& family, const std::string& channel,
                     const Provenance& provenance, const std::string& output, std::ostream& out,
                     std::ostream& err) {
  if (output.empty()) return WriteExport(store, family, channel, provenance, output, out, err);
  auto fingerprint = store.ChannelFingerprint(channel);
  if (!fingerprint) return Report(err, fingerprint.error());
  const std::string source = ExportSource(family, channel, provenance, *fingerprint);
  const std::string key = "export:" + channel;
  auto recorded = store.GetMeta(key);
  if (!recorded) return Report(err, recorded.error());
  // The record: "<source digest> <digest of the bytes written>".
  if (recorded->starts_with(source + " ")) {
    std::size_t size = 0;
    const std::string digest = FileDigest(output, &size);
    if (!digest.empty() && recorded->substr(source.size() + 1) == digest) {
      err << "torchdex-crawl: " << output << " unchanged (" << size
          << " bytes; the store holds what it held when this file was exported: not exported "
             "again)\n";
      return kExitOk;
    }
  }
  std::string json;
  const int code = WriteExport(store, family, channel, provenance, output, out, err, &json);
  if (code != kExitOk) return code;
  if (auto s = store.PutMeta(key, source + " " + core::Sha256Hex(json)); !s) {
    // Only the next crawl's shortcut is lost: the catalogue is written.
    err << "torchdex-crawl: warning: " << s.error().message << "\n";
  }
  return kExitOk;
}

// What the crawl's options name: the family of --indexes and its routing policy.
struct CrawlInputs {
  catalogue::IndexConfig config;
  catalogue::RoutingPolicy policy;
  const catalogue::IndexFamily* family = nullptr;
};

core::Expected<CrawlInputs> ReadCrawlInputs(const po::variables_map& vm, const CliDeps& deps) {
  const std::string indexes_path =
      vm.count("indexes") ? vm["indexes"].as<std::string>() : deps.data_dir + "/indexes.json";
  const std::string policy_path =
      vm.count("policy") ? vm["policy"].as<std::string>() : deps.data_dir + "/routing-policy.json";
  auto config = catalogue::LoadIndexConfig(indexes_path);
  if (!config) return config.error();
  auto policy = catalogue::LoadRoutingPolicy(policy_path);
  if (!policy) return policy.error();
  CrawlInputs inputs{std::move(config).value(), std::move(policy).value(), nullptr};
  auto found = catalogue::FindFamily(inputs.config, vm["family"].as<std::string>(), indexes_path);
  if (!found) return found.error();
  inputs.family = *found;
  // The family's routed projects are policy entries of its crawl (the routing policy's own
  // entry for the same name wins).
  for (const catalogue::RoutedProject& routed : inputs.family->routed_projects) {
    inputs.policy.projects.emplace(
        routed.name, catalogue::PolicyEntry{"routed", routed.reason,
                                            std::filesystem::path(indexes_path).filename().string() + " (" +
                                                inputs.family->name + "): " + routed.source});
  }
  return inputs;
}

// The crawl's and the fetcher's options, from the command line.
core::Status ReadCrawlOptions(const po::variables_map& vm, const catalogue::IndexFamily& family,
                              CrawlOptions& options, index::FetchOptions& fetch) {
  if (vm.count("base-url")) options.base_url = vm["base-url"].as<std::string>();
  if (vm.count("channel")) options.channels = vm["channel"].as<std::vector<std::string>>();
  if (vm.count("backend")) options.backends = vm["backend"].as<std::vector<std::string>>();
  options.include_legacy = vm.count("include-legacy") != 0;
  if (vm.count("default-index")) options.default_index = vm["default-index"].as<std::string>();
  for (const std::string& c : options.channels) {
    if (family.FindChannel(c) == nullptr) {
      std::string known;
      for (const catalogue::Channel& ch : family.channels) known += " " + ch.name;
      return core::MakeError("unknown channel '" + c + "'; known:" + known, core::ErrorCode::kUsage);
    }
  }
  NumberFlags numbers{vm, ""};
  fetch.parallelism = static_cast<int>(numbers.Count("jobs", 256));
  fetch.max_attempts = static_cast<int>(numbers.Count("attempts", 100));
  fetch.total_timeout_s = numbers.Seconds("timeout", 86400);
  fetch.connect_timeout_s = numbers.Seconds("connect-timeout", 3600);
  fetch.max_body_bytes = numbers.Count("max-page-bytes", 1ull << 30);
  options.max_links = numbers.Count("max-links", 10'000'000);
  options.max_follow = numbers.Count("max-follow", 1'000'000);
  options.max_pages = numbers.Count("max-pages", 10'000'000);
  if (!numbers.error.empty()) return core::MakeError(numbers.error, core::ErrorCode::kUsage);
  fetch.user_agent = std::string("torchdex/") + TORCHDEX_VERSION;
  fetch.check_redirect = RefuseCrossOriginRedirect;
  return {};
}

// The summary line on stderr, after the warnings and failures.
void ReportCrawl(const CrawlReport& report, double seconds, bool verbose, std::ostream& err) {
  std::size_t backend_count = 0;
  for (const auto& [channel, backends] : report.backends) backend_count += backends.size();
  const catalogue::RunStats& st = report.stats;
  const std::int64_t pages = st.pages_fetched + st.pages_not_modified + st.pages_absent + st.pages_failed;
  err << WarningsText(report.warnings, verbose);
  for (const std::string& f : report.failures) err << "torchdex-crawl: error: " << f << "\n";
  err << "torchdex-crawl: " << (report.ok ? "done" : "FAILED, nothing stored") << ": " << pages << " pages ("
      << st.pages_fetched << " fetched, " << st.pages_changed << " changed, " << st.pages_not_modified
      << " not modified, " << st.pages_absent << " absent, " << st.pages_failed << " failed), " << st.anchors
      << " anchors, " << backend_count << " backends, " << report.warnings.size() << " warnings, "
      << HumanBytes(static_cast<double>(st.wire_bytes)) << ", " << std::fixed << std::setprecision(2) << seconds
      << " s\n";
}

int RunCrawl(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
             const CliDeps& deps) {
  const po::options_description desc = CrawlOptionsDescription();
  po::variables_map vm;
  if (!Parse(args, desc, nullptr, vm, err)) return kExitUsage;
  if (vm.count("help")) {
    out << desc;
    return kExitOk;
  }
  core::Expected<CrawlInputs> inputs = ReadCrawlInputs(vm, deps);
  if (!inputs) return Report(err, inputs.error());
  const catalogue::IndexFamily* family = inputs->family;
  CrawlOptions options;
  index::FetchOptions fetch;
  if (core::Status ok = ReadCrawlOptions(vm, *family, options, fetch); !ok) return Report(err, ok.error());

  const std::string store_path = vm["store"].as<std::string>();
  auto store = catalogue::Store::Open(store_path, catalogue::StoreAccess::kCrawl);
  if (!store) return Report(err, store.error());

  const bool json = vm.count("json") != 0;
  const bool progress = deps.stderr_is_terminal && !json && vm.count("quiet") == 0;
  const auto now = [&] {
    return deps.steady_now ? deps.steady_now() : std::chrono::steady_clock::now();
  };
  const auto started = now();
  index::Fetcher::OnProgress on_progress;
  std::optional<std::chrono::steady_clock::time_point> drawn;  // the last redraw
  if (progress) {
    on_progress = [&](const index::FetchProgress& p) {
      // A redraw every kProgressInterval at most (and the last one): a full crawl has 15,000
      // results, each redrawing the line was most of what stderr carried (issue 13 item 26).
      const auto at = now();
      if (drawn && at - *drawn < kProgressInterval && p.done != p.queued) return;
      drawn = at;
      const double seconds = std::chrono::duration<double>(at - started).count();
      err << "\rtorchdex-crawl: " << p.done << "/" << p.queued << " pages, "
          << HumanBytes(static_cast<double>(p.wire_bytes)) << ", "
          << HumanBytes(seconds > 0 ? static_cast<double>(p.wire_bytes) / seconds : 0) << "/s, "
          << p.failed << " failed   " << std::flush;
    };
  }
  std::unique_ptr<index::Fetcher> fetcher = deps.make_fetcher(fetch);
  const CrawlReport report = Crawl(*family, inputs->policy, options, *fetcher, **store, deps.clock, on_progress);
  const double seconds = std::chrono::duration<double>(now() - started).count();
  if (progress) err << "\n";
  ReportCrawl(report, seconds, vm.count("verbose") != 0, err);
  if (json) out << CrawlSummaryJson(report, seconds);
  if (!report.ok) return ExitStatus(report.error_code);
  if (vm.count("export")) {
    return ExportAfterCrawl(**store, family->name, vm["export-channel"].as<std::string>(),
                            ProvenanceOf(vm, family->base_url), vm["export"].as<std::string>(),
                            out, err);
  }
  return kExitOk;
}

int RunExport(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const po::options_description desc = ExportOptionsDescription();
  po::variables_map vm;
  if (!Parse(args, desc, nullptr, vm, err)) return kExitUsage;
  if (vm.count("help")) {
    out << desc;
    return kExitOk;
  }
  const std::string store_path = vm["store"].as<std::string>();
  if (access(store_path.c_str(), R_OK) != 0) {
    return Report(err, core::MakeError("store " + store_path + " does not exist: crawl first",
                                       core::ErrorCode::kUsage));
  }
  auto store = catalogue::Store::Open(store_path, catalogue::StoreAccess::kRead);
  if (!store) return Report(err, store.error());
  return WriteExport(**store, vm["family"].as<std::string>(), vm["channel"].as<std::string>(),
                     ProvenanceOf(vm, ""), vm.count("output") ? vm["output"].as<std::string>() : "",
                     out, err);
}

int RunDiff(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const po::options_description desc = DiffOptionsDescription();
  po::positional_options_description positional;
  positional.add("old", 1).add("new", 1);
  po::variables_map vm;
  if (!Parse(args, desc, &positional, vm, err)) return kExitUsage;
  if (vm.count("help")) {
    out << desc;
    return kExitOk;
  }
  if (!vm.count("old") || !vm.count("new")) {
    err << "torchdex-crawl: diff needs two catalogue files: OLD.json NEW.json\n";
    return kExitUsage;
  }
  auto before = catalogue::LoadCatalogueJson(vm["old"].as<std::string>());
  if (!before) return Report(err, before.error());
  auto after = catalogue::LoadCatalogueJson(vm["new"].as<std::string>());
  if (!after) return Report(err, after.error());
  const catalogue::CatalogueDiff diff = catalogue::DiffCatalogues(*before, *after);
  if (vm.count("guard") == 0) {
    out << (vm.count("json") ? catalogue::DiffToJson(diff) : catalogue::DiffToText(diff));
    return kExitOk;
  }
  catalogue::GuardOptions options;
  options.max_wheel_loss = vm["max-wheel-loss"].as<double>();
  if (!(options.max_wheel_loss >= 0 && options.max_wheel_loss <= 1)) {
    err << "torchdex-crawl: --max-wheel-loss must be a share between 0 and 1 (0.10 is 10%)\n";
    return kExitUsage;
  }
  if (vm.count("allow-removed")) {
    options.allow_removed = vm["allow-removed"].as<std::vector<std::string>>();
  }
  const catalogue::GuardReport report = catalogue::CheckCatalogueChange(*before, *after, diff, options);
  out << (vm.count("json") ? catalogue::GuardReportToJson(report, diff)
                           : catalogue::GuardReportToText(report, diff));
  switch (report.verdict) {
    case catalogue::GuardVerdict::kNoChange:
      return kExitNoChange;
    case catalogue::GuardVerdict::kChanged:
      return kExitChanged;
    case catalogue::GuardVerdict::kRefused:
      return kExitRefused;
  }
  return kExitRefused;
}

}  // namespace

// Where indexes.json and routing-policy.json are: $TORCHDEX_DATA_DIR when set; else, for an
// installed binary, <prefix>/share/torchdex/data beside its bin/ (found from /proc/self/exe, so
// `cmake --install`, the .deb and a `dpkg -x` scratch root all work); else the source tree's
// data/ that the build compiled in.
std::string DefaultDataDir() {
  const char* env = std::getenv("TORCHDEX_DATA_DIR");
  if (env != nullptr && *env != '\0') return env;
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const std::filesystem::path installed =
        exe.parent_path().parent_path() / TORCHDEX_INSTALLED_DATA_DIR;
    if (std::filesystem::is_directory(installed, ec)) return installed.string();
  }
  return TORCHDEX_DATA_DIR;
}

CliDeps DefaultCliDeps() {
  CliDeps deps;
  deps.make_fetcher = [](const index::FetchOptions& o) { return index::MakeCurlFetcher(o); };
  deps.clock = SystemClockRfc3339;
  deps.data_dir = DefaultDataDir();
  deps.stderr_is_terminal = isatty(STDERR_FILENO) != 0;
  return deps;
}

int RunCrawlCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
                const CliDeps& deps) {
  if (args.empty()) {
    err << kUsage << kExitCodesHelp;
    return kExitUsage;
  }
  const std::string& command = args[0];
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (command == "--help" || command == "-h" || command == "help") {
    out << kUsage << kExitCodesHelp;
    return kExitOk;
  }
  if (command == "--version") {
    out << "torchdex-crawl " << TORCHDEX_VERSION << "\n";
    return kExitOk;
  }
  if (command == "crawl") return RunCrawl(rest, out, err, deps);
  if (command == "export") return RunExport(rest, out, err);
  if (command == "diff") return RunDiff(rest, out, err);
  err << "torchdex-crawl: unknown command '" << command << "'"
      << core::DidYouMean(command, {"crawl", "export", "diff"}) << "\n" << kUsage << kExitCodesHelp;
  return kExitUsage;
}

}  // namespace torchdex::crawler
