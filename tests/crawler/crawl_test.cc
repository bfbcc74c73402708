// The crawler end to end: the real pages of tests/fixtures/pytorch-index served by a real nginx
// on 127.0.0.1 (ETags, 304s, gzip), and faults from the in-process server.
#include <fcntl.h>
#include <sys/stat.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>
#include <tuple>

#include "catalogue/catalogue.h"
#include "store/read_catalogue.h"
#include "store/store.h"
#include "core/name.h"
#include "core/version.h"
#include "crawler/cli.h"
#include "crawler/crawl.h"
#include "tests/support/fault_server.h"
#include "tests/support/nginx.h"

namespace torchdex::crawler {
namespace {

namespace fs = std::filesystem;
const fs::path kFixtures = fs::path(TORCHDEX_FIXTURES_DIR) / "pytorch-index";
const fs::path kData = fs::path(TORCHDEX_SOURCE_DIR) / "data";

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

class TempDir {
 public:
  TempDir() {
    char pattern[] = "/tmp/torchdex-crawl-test-XXXXXX";
    path_ = mkdtemp(pattern);
  }
  ~TempDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

struct CliResult {
  int code;
  std::string out;
  std::string err;
};

CliResult RunCli(std::vector<std::string> args, const std::function<void(CliDeps&)>& adjust = {}) {
  CliDeps deps = DefaultCliDeps();
  deps.data_dir = kData.string();
  deps.stderr_is_terminal = false;
  // A fixed clock: what a run records must not depend on when the test runs.
  deps.clock = [] { return std::string("2026-03-15T00:00:00Z"); };
  if (adjust) adjust(deps);
  std::ostringstream out, err;
  const int code = RunCrawlCli(args, out, err, deps);
  return {code, out.str(), err.str()};
}

// One nginx for the whole suite: it serves the fixture tree read-only.
class CrawlTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto started = testing::Nginx::Start(kFixtures);
    ASSERT_TRUE(started.ok()) << started.error().message;
    nginx_ = std::move(started).value().release();
  }
  static void TearDownTestSuite() {
    delete nginx_;
    nginx_ = nullptr;
  }
  std::string BaseUrl() const { return nginx_->Url("/whl/"); }
  std::string StorePath() const { return (dir_.path() / "store.sqlite").string(); }
  CliResult Crawl(std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"crawl", "--store", StorePath(), "--base-url", BaseUrl(), "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunCli(args);
  }
  catalogue::Catalogue Export(const std::string& channel = "stable") {
    auto store = catalogue::Store::Open(StorePath(), catalogue::StoreAccess::kRead);
    EXPECT_TRUE(store.ok());
    auto cat = catalogue::ReadCatalogue(**store, "pytorch", channel, "");
    EXPECT_TRUE(cat.ok()) << (cat.ok() ? "" : cat.error().message);
    return cat.ok() ? *cat : catalogue::Catalogue();
  }

  static testing::Nginx* nginx_;
  TempDir dir_;
};
testing::Nginx* CrawlTest::nginx_ = nullptr;

std::pair<std::string, std::string> VersionRange(const catalogue::CatalogueProject& project,
                                                 const std::string& backend) {
  auto it = project.builds.find(backend);
  if (it == project.builds.end()) return {"", ""};
  std::optional<core::Version> lo, hi;
  for (const auto& [text, tags] : it->second) {
    const core::Version v = core::Version::Parse(text)->Public();
    if (!lo || v < *lo) lo = v;
    if (!hi || v > *hi) hi = v;
  }
  return {lo->ToString(), hi->ToString()};
}

TEST_F(CrawlTest, CrawlsTheRealPagesAndKnowsTheirFacts) {
  const CliResult r = Crawl();
  ASSERT_EQ(r.code, kExitOk) << r.err;
  const nlohmann::json summary = nlohmann::json::parse(r.out);
  EXPECT_TRUE(summary["ok"].get<bool>());
  EXPECT_EQ(summary["pages"]["failed"], 0);

  // Backends come from the real root index: 39 names match the backend pattern, 8 are legacy
  // (grep -o 'href="[^"]*/"' whl/index.html, by hand against indexes.json).
  const catalogue::Catalogue cat = Export();
  std::set<std::string> regular, legacy;
  for (const auto& [name, b] : cat.backends) (b.legacy ? legacy : regular).insert(name);
  for (const char* name : {"cpu", "cu118", "cu124", "cu126", "cu128", "cu129", "cu130", "rocm6.3",
                           "rocm6.2.4", "xpu", "cu75", "rocm3.7"}) {
    EXPECT_EQ(regular.count(name), 1u) << name;
  }
  EXPECT_EQ(legacy, (std::set<std::string>{"cpu-cxx11-abi", "cpu-pypi-pkg", "cu117-pypi-cudnn",
                                           "cu121-full", "cu121-pypi-cudnn", "cu124-full",
                                           "cu126-full", "cu128-full"}));
  EXPECT_EQ(cat.backends.at("cu128").kind, "cuda");
  EXPECT_EQ(cat.backends.at("cu128").toolkit, "12.8");
  EXPECT_EQ(cat.backends.at("rocm6.2.4").toolkit, "6.2.4");
  EXPECT_EQ(cat.backends.at("cu128").state, core::BackendState::kOk);
  EXPECT_EQ(cat.backends.at("cu121-full").state, core::BackendState::kSkippedLegacy);
  // Listed in the root, but this partial copy has no page for it: a warning, and its wheels
  // come from the flat torch/ page, which links them.
  EXPECT_EQ(cat.backends.at("cu129").state, core::BackendState::kOkFlatPageOnly);
  EXPECT_NE(
      summary["warnings"].dump().find("backend cu129 (stable) is listed but its page is missing"),
      std::string::npos);
  EXPECT_TRUE(cat.projects.at("torch").builds.contains("cu129"));
  EXPECT_NE(std::find(cat.projects.at("torch").from_flat_page.begin(),
                      cat.projects.at("torch").from_flat_page.end(), "cu129"),
            cat.projects.at("torch").from_flat_page.end());
  EXPECT_FALSE(cat.backends.count("nightly"));
  EXPECT_FALSE(cat.backends.count("test"));

  // Torch versions per backend, as the real pages have them (index-format.md §4).
  const catalogue::CatalogueProject& torch = cat.projects.at("torch");
  EXPECT_EQ(VersionRange(torch, "cu118"), std::make_pair(std::string("2.0.0"), std::string("2.7.1")));
  EXPECT_EQ(VersionRange(torch, "cu124"), std::make_pair(std::string("2.4.0"), std::string("2.6.0")));
  // The xpu page also lists root wheels (torch-0.1 for macOS): they are not xpu's.
  EXPECT_EQ(VersionRange(torch, "xpu").first, "2.6.0");
  EXPECT_TRUE(torch.builds.at("cu124").count("2.3.1+cu121") == 0);
  EXPECT_TRUE(torch.builds.at("cu128").count("2.10.0+cu128") == 1);
  const auto& tags = torch.builds.at("cu128").at("2.10.0+cu128");
  EXPECT_NE(std::find(tags.begin(), tags.end(), "cp312-cp312-manylinux_2_28_x86_64"), tags.end());

  // Classification.
  for (const char* routed : {"torch", "torchvision", "torchaudio"}) {
    EXPECT_EQ(cat.projects.at(routed).cls, "routed") << routed << ": " << cat.projects.at(routed).reason;
  }
  for (const char* mirror : {"jinja2", "filelock", "nvidia-cudnn-cu12", "nvidia-cublas-cu12",
                             "typing-extensions"}) {
    EXPECT_EQ(cat.projects.at(mirror).cls, "mirror") << mirror << ": " << cat.projects.at(mirror).reason;
  }
  EXPECT_EQ(cat.projects.at("triton").cls, "companion");
  EXPECT_FALSE(cat.projects.at("triton").builds.empty());
  EXPECT_NE(cat.projects.at("torch").reason.find("builds differ by backend"), std::string::npos);
  EXPECT_NE(cat.projects.at("filelock").reason.find("files.pythonhosted.org"), std::string::npos);
}

std::size_t CountLines(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) n += line.find(needle) != std::string::npos;
  return n;
}

// Issue 13 item 26: stderr summarises warnings (a few of each kind and their count); -v and
// --json give every one. The partial fixture has 764 absent pages, 700 of them project pages.
TEST_F(CrawlTest, WarningsAreSummarisedByKind) {
  const CliResult quiet = RunCli({"crawl", "--store", StorePath(), "--base-url", BaseUrl(), "-q"});
  ASSERT_EQ(quiet.code, kExitOk) << quiet.err.substr(0, 2000);
  EXPECT_EQ(CountLines(quiet.err, "warning: project page missing"), 3u)
      << quiet.err.substr(0, 2000);
  EXPECT_EQ(CountLines(quiet.err, "warning: backend "), 3u);
  EXPECT_LT(CountLines(quiet.err, "warning:"), 20u);
  EXPECT_NE(quiet.err.find("more \"project page missing\""), std::string::npos)
      << quiet.err.substr(0, 2000);

  const CliResult json = Crawl();
  const nlohmann::json summary = nlohmann::json::parse(json.out);
  const std::size_t missing = summary["warning_counts"]["project page missing"].get<std::size_t>();
  EXPECT_GT(missing, 100u);
  std::size_t listed = 0;
  for (const auto& w : summary["warnings"]) {
    listed += w.get<std::string>().starts_with("project page missing");
  }
  EXPECT_EQ(listed, missing);
  EXPECT_NE(quiet.err.find("(" + std::to_string(missing) + " in all"), std::string::npos);

  const CliResult verbose =
      RunCli({"crawl", "--store", StorePath(), "--base-url", BaseUrl(), "-q", "-v"});
  EXPECT_EQ(CountLines(verbose.err, "warning: project page missing"), missing);
}

// Issue 13 item 26: the progress line is redrawn at most every 200 ms (the clock here moves 1 ms
// each time it is read, about once a result), not once for each of the crawl's results.
TEST_F(CrawlTest, TheProgressDisplayIsThrottled) {
  auto fake_now = std::make_shared<std::chrono::steady_clock::time_point>();
  const CliResult r = RunCli({"crawl", "--store", StorePath(), "--base-url", BaseUrl()},
                             [&](CliDeps& deps) {
                               deps.stderr_is_terminal = true;
                               deps.steady_now = [fake_now] {
                                 *fake_now += std::chrono::milliseconds(1);
                                 return *fake_now;
                               };
                             });
  ASSERT_EQ(r.code, kExitOk) << r.err.substr(0, 2000);
  const std::size_t redraws = std::count(r.err.begin(), r.err.end(), '\r');
  const std::size_t done = r.err.find(": done: ");
  ASSERT_NE(done, std::string::npos) << r.err.substr(0, 2000);
  const std::size_t pages = std::stoul(r.err.substr(done + 8));
  EXPECT_GT(pages, 1000u);
  EXPECT_GE(redraws, 2u);
  EXPECT_LE(redraws, pages / 200 + 3) << redraws << " redraws for " << pages << " pages";
  // The last state is always drawn.
  const std::string last = std::to_string(pages) + "/" + std::to_string(pages) + " pages";
  EXPECT_NE(r.err.find(last), std::string::npos) << r.err.substr(0, 2000);
}

TEST_F(CrawlTest, StoresEveryAnchorOfTheManifest) {
  ASSERT_EQ(Crawl().code, kExitOk);
  // Every page the crawl reaches is in the manifest with its anchor count. Not reached: the
  // nightly root's own project page (not a discovery project) and the test channel, which has
  // no root index in this copy.
  const nlohmann::json manifest = nlohmann::json::parse(ReadFile(kFixtures / "manifest.json"));
  auto store = catalogue::Store::Open(StorePath(), catalogue::StoreAccess::kRead);
  ASSERT_TRUE(store.ok());
  int checked = 0;
  for (const nlohmann::json& entry : manifest["files"]) {
    const std::string url_path = entry["url_path"];
    if (!url_path.starts_with("/whl/") || url_path.starts_with("/whl/test/") ||
        url_path == "/whl/nightly/pytorch-triton/" || entry["file"].get<std::string>().find("eras/") == 0 ||
        entry["file"].get<std::string>().find("shapes/") == 0) {
      continue;
    }
    auto page = (*store)->GetPage(url_path.substr(5));
    ASSERT_TRUE(page.ok());
    ASSERT_TRUE(page->has_value()) << url_path;
    EXPECT_EQ((*page)->anchors, entry["anchors"].get<std::int64_t>()) << url_path;
    auto anchors = (*store)->AnchorsOf(url_path.substr(5));
    ASSERT_TRUE(anchors.ok());
    EXPECT_EQ(static_cast<std::int64_t>(anchors->size()), entry["anchors"].get<std::int64_t>());
    ++checked;
  }
  // 91 manifest files less 9 era pages, 2 error documents, 1 shape page and the 3 pages
  // not reached: every whl/ page the crawl reaches was checked.
  EXPECT_EQ(checked, 74);
}

TEST_F(CrawlTest, ARecrawlThatChangesNothingIsAll304sAndByteIdentical) {
  const fs::path exported = dir_.path() / "catalogue.json";
  const CliResult a = Crawl({"--export", exported.string()});
  ASSERT_EQ(a.code, kExitOk) << a.err;
  const std::string first = ReadFile(exported);
  const CliResult b = Crawl({"--export", exported.string()});
  ASSERT_EQ(b.code, kExitOk) << b.err;
  const nlohmann::json sa = nlohmann::json::parse(a.out);
  const nlohmann::json sb = nlohmann::json::parse(b.out);
  EXPECT_EQ(sa["pages"]["fetched"], 74);
  EXPECT_EQ(sb["pages"]["fetched"], 0);
  EXPECT_EQ(sb["pages"]["changed"], 0);
  EXPECT_EQ(sb["pages"]["not_modified"], sa["pages"]["fetched"]);
  EXPECT_EQ(sb["pages"]["absent"], sa["pages"]["absent"]);
  EXPECT_EQ(sb["anchors"], sa["anchors"]);
  EXPECT_EQ(ReadFile(exported), first);
  EXPECT_NE(b.err.find("catalogue.json unchanged"), std::string::npos) << b.err;
}

// Every row of `sql` in the store at `path`, as text: what a crawl left there.
std::vector<std::string> Rows(const std::string& path, const std::string& sql) {
  std::vector<std::string> out;
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK) << sql;
  while (stmt != nullptr && sqlite3_step(stmt) == SQLITE_ROW) {
    std::string row;
    for (int c = 0; c < sqlite3_column_count(stmt); ++c) {
      const unsigned char* text = sqlite3_column_text(stmt, c);
      row.append(text == nullptr ? "NULL" : reinterpret_cast<const char*>(text)).push_back('|');
    }
    out.push_back(std::move(row));
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return out;
}

// Issue 20: an unchanged crawl writes no page, no backend and no catalogue; what changes the
// catalogue (its file, a provenance flag, a page) is exported again.
TEST_F(CrawlTest, AnUnchangedCrawlWritesNoPageAndExportsNothing) {
  const fs::path exported = dir_.path() / "catalogue.json";
  auto crawl_on = [&](const std::string& day, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"crawl", "--store", StorePath(), "--base-url", BaseUrl(),
                                     "--export", exported.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunCli(args, [day](CliDeps& deps) {
      deps.clock = [day] { return day + "T00:00:00Z"; };
    });
  };
  const CliResult first = crawl_on("2026-03-15");
  ASSERT_EQ(first.code, kExitOk) << first.err;
  EXPECT_NE(first.err.find("catalogue.json written"), std::string::npos) << first.err;
  const std::string bytes = ReadFile(exported);
  // nginx's 304 names the ETag of a gzipped 200 without its W/: the first re-crawl stores
  // validators the index now answers with (and the export stands: nothing of it changed).
  const CliResult settle = crawl_on("2026-03-15");
  ASSERT_EQ(settle.code, kExitOk) << settle.err;
  EXPECT_NE(settle.err.find("not exported again"), std::string::npos) << settle.err;
  const std::string kPages = "SELECT * FROM pages ORDER BY path";
  const std::string kBackends = "SELECT * FROM backends ORDER BY channel, name";
  const std::vector<std::string> pages = Rows(StorePath(), kPages);
  const std::vector<std::string> backends = Rows(StorePath(), kBackends);
  ASSERT_GT(pages.size(), 70u);
  // An old modification time: a rewrite of the same bytes would still show.
  const auto old_time = fs::file_time_type::clock::now() - std::chrono::hours(48);
  fs::last_write_time(exported, old_time);

  // A day later nothing has changed: no page or backend row is written (their fetched_at and
  // run_id would say the new day and run), the catalogue is neither exported nor written.
  const CliResult second = crawl_on("2026-03-16");
  ASSERT_EQ(second.code, kExitOk) << second.err;
  EXPECT_NE(second.err.find("catalogue.json unchanged ("), std::string::npos) << second.err;
  EXPECT_NE(second.err.find("not exported again"), std::string::npos) << second.err;
  EXPECT_EQ(Rows(StorePath(), kPages), pages);
  EXPECT_EQ(Rows(StorePath(), kBackends), backends);
  EXPECT_EQ(fs::last_write_time(exported), old_time);
  EXPECT_EQ(ReadFile(exported), bytes);
  EXPECT_EQ(Rows(StorePath(), "SELECT status FROM runs ORDER BY id"),
            (std::vector<std::string>{"complete|", "complete|", "complete|"}));

  // The file was changed by hand: exported again, the same bytes as the first time.
  { std::ofstream(exported, std::ios::trunc) << "edited\n"; }
  const CliResult edited = crawl_on("2026-03-17");
  ASSERT_EQ(edited.code, kExitOk) << edited.err;
  EXPECT_NE(edited.err.find("catalogue.json written"), std::string::npos) << edited.err;
  EXPECT_EQ(ReadFile(exported), bytes);
  EXPECT_EQ(Rows(StorePath(), kPages), pages);

  // Another provenance flag: another catalogue.
  const CliResult noted = crawl_on("2026-03-18", {"--note", "a new note"});
  ASSERT_EQ(noted.code, kExitOk) << noted.err;
  EXPECT_NE(noted.err.find("catalogue.json written"), std::string::npos) << noted.err;
  EXPECT_NE(ReadFile(exported).find("a new note"), std::string::npos);
  const CliResult again = crawl_on("2026-03-19", {"--note", "a new note"});
  EXPECT_NE(again.err.find("catalogue.json unchanged ("), std::string::npos) << again.err;
}

TEST_F(CrawlTest, ExportIsCanonical) {
  ASSERT_EQ(Crawl().code, kExitOk);
  const CliResult a = RunCli({"export", "--store", StorePath()});
  const CliResult b = RunCli({"export", "--store", StorePath()});
  ASSERT_EQ(a.code, kExitOk) << a.err;
  EXPECT_EQ(a.out, b.out);
  ASSERT_FALSE(a.out.empty());
  EXPECT_EQ(a.out.back(), '\n');
  // Round trip: parse and write again gives the same bytes.
  auto parsed = catalogue::ParseCatalogueJson(a.out, "export");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_EQ(catalogue::WriteCatalogueJson(*parsed), a.out);
  // Keys sorted at every level (nlohmann's parse keeps them sorted; compare with a re-dump).
  const nlohmann::json doc = nlohmann::json::parse(a.out);
  std::vector<std::string> keys;
  for (const auto& [k, v] : doc["projects"].items()) keys.push_back(k);
  EXPECT_TRUE(std::is_sorted(keys.begin(), keys.end()));
  EXPECT_NE(a.out.find("\"schema_version\": 1"), std::string::npos);
}

TEST_F(CrawlTest, NarrowsToOneBackendAndOneChannel) {
  const CliResult r = Crawl({"--channel", "stable", "--backend", "cu124"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  const catalogue::Catalogue cat = Export();
  EXPECT_EQ(cat.projects.at("torch").builds.size(), 1u);
  EXPECT_EQ(cat.projects.at("torch").builds.count("cu124"), 1u);
  const nlohmann::json summary = nlohmann::json::parse(r.out);
  EXPECT_FALSE(summary["backends"].contains("nightly"));
}

TEST_F(CrawlTest, NightlyChannelFindsItsBackends) {
  const CliResult r = Crawl({"--channel", "nightly"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  const catalogue::Catalogue cat = Export("nightly");
  ASSERT_TRUE(cat.projects.count("torch"));
  const auto& cu128 = cat.projects.at("torch").builds.at("cu128");
  ASSERT_FALSE(cu128.empty());
  EXPECT_NE(cu128.begin()->first.find(".dev2026"), std::string::npos);
  // Nightly wheels are on the R2 host: absolute URLs, still attributed to cu128 by path.
  EXPECT_EQ(cat.projects.at("torch").cls, "routed");
}

TEST_F(CrawlTest, ASecondCrawlOnTheSameStoreIsRefused) {
  ASSERT_EQ(Crawl().code, kExitOk);
  auto holder = catalogue::Store::Open(StorePath(), catalogue::StoreAccess::kCrawl);
  ASSERT_TRUE(holder.ok());
  const CliResult r = Crawl();
  EXPECT_EQ(r.code, kExitStore);
  EXPECT_NE(r.err.find("is being crawled by another torchdex-crawl (pid " + std::to_string(getpid())),
            std::string::npos)
      << r.err;
}

// Issue 29, item 10: a symbolic link, a FIFO or a directory at <store>.lock is refused, and the
// link's target is never truncated or written.
TEST_F(CrawlTest, ALockPathThatIsNotARegularFileIsRefusedAndItsTargetKept) {
  ASSERT_EQ(Crawl().code, kExitOk);
  const std::string lock = StorePath() + ".lock";
  const std::string target = StorePath() + ".precious";
  { std::ofstream(target) << "precious\n"; }
  std::filesystem::remove(lock);
  std::filesystem::create_symlink(target, lock);
  CliResult r = Crawl();
  EXPECT_EQ(r.code, kExitStore) << r.err;
  EXPECT_NE(r.err.find("cannot open lock file " + lock + ": it is a symbolic link"), std::string::npos) << r.err;
  std::ifstream in(target);
  std::string kept((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(kept, "precious\n");
  std::filesystem::remove(lock);
  ASSERT_EQ(mkfifo(lock.c_str(), 0644), 0);
  r = Crawl();
  EXPECT_EQ(r.code, kExitStore) << r.err;
  EXPECT_NE(r.err.find("is not a regular file"), std::string::npos) << r.err;
  std::filesystem::remove(lock);
  EXPECT_EQ(Crawl().code, kExitOk);
}

// Issue 13 item 23: while a crawl writes (its transaction open), an export reads the last
// complete catalogue without waiting, and a second crawl is told who holds the store.
TEST_F(CrawlTest, ExportAndASecondCrawlDuringACrawl) {
  ASSERT_EQ(Crawl().code, kExitOk);
  const std::string before = RunCli({"export", "--store", StorePath()}).out;
  ASSERT_FALSE(before.empty());
  auto crawling = catalogue::Store::Open(StorePath(), catalogue::StoreAccess::kCrawl);
  ASSERT_TRUE(crawling.ok());
  ASSERT_TRUE((*crawling)->BeginRun("2026-03-16T00:00:00Z", BaseUrl(), "stable").ok());
  catalogue::PageRecord page;
  page.path = "cu128/torch/";
  page.channel = "stable";
  page.status = 404;
  ASSERT_TRUE((*crawling)->PutPage(page).ok());  // the crawl has written, not committed

  const CliResult exported = RunCli({"export", "--store", StorePath()});
  EXPECT_EQ(exported.code, kExitOk) << exported.err;
  EXPECT_TRUE(exported.out == before);  // the last complete catalogue (too long to print)
  const CliResult second = Crawl();
  EXPECT_EQ(second.code, kExitStore);
  EXPECT_NE(second.err.find("is being crawled by another torchdex-crawl (pid " +
                            std::to_string(getpid()) + ")"),
            std::string::npos)
      << second.err;
  EXPECT_EQ(second.err.find("database is locked"), std::string::npos) << second.err;
}

// Overwrites the first b-tree page of `table` in the SQLite file at `path` with garbage, as a
// failing disk would: SQLite then reads "database disk image is malformed" there.
void DamageTable(const std::string& path, const std::string& table) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  const std::string sql = "SELECT rootpage, (SELECT page_size FROM pragma_page_size()) "
                          "FROM sqlite_master WHERE type = 'table' AND name = '" + table + "'";
  ASSERT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  const std::int64_t root = sqlite3_column_int64(stmt, 0);
  const std::int64_t page_size = sqlite3_column_int64(stmt, 1);
  sqlite3_finalize(stmt);
  ASSERT_EQ(sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
  file.seekp((root - 1) * page_size);
  const std::string garbage(static_cast<std::size_t>(page_size), '\x5a');
  file.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
  ASSERT_TRUE(file.good());
}

// Issue 13, exits item 15: a store the crawl cannot read is the store's failure (exit 3, which
// scripts/sync reports as an error), not the index's (exit 1, which it reports as "refused").
TEST_F(CrawlTest, AMalformedStorePageIsAStoreErrorNotACrawlFailure) {
  ASSERT_EQ(Crawl().code, kExitOk);
  DamageTable(StorePath(), "pages");
  const CliResult r = Crawl();
  EXPECT_EQ(r.code, kExitStore) << r.err.substr(0, 2000);
  EXPECT_NE(r.err.find("malformed"), std::string::npos) << r.err.substr(0, 2000);
}

// --- faults: a tiny index on the in-process server, one page misbehaving at a time ---

class CrawlFaultTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.Script("/whl/", {testing::FaultResponse::Ok(
                                "<html><body><a href=\"cu124/\">cu124</a><br/></body></html>")});
    server_.Script("/whl/cu124/", {testing::FaultResponse::Ok(
                                      "<html><body><a href=\"torch/\">torch</a><br/></body></html>")});
    ScriptTorch(testing::FaultResponse::Ok(kTorchPage));
  }
  void ScriptTorch(testing::FaultResponse response, int times = 1) {
    server_.Script("/whl/cu124/torch/", std::vector<testing::FaultResponse>(times, response));
  }
  CliResult Crawl(std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"crawl", "--store", (dir_.path() / "s.sqlite").string(),
                                     "--base-url", server_.Url("/whl/"), "--channel", "stable",
                                     "--attempts", "3", "--timeout", "1"};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunCli(args);
  }
  std::string Exported() {
    return RunCli({"export", "--store", (dir_.path() / "s.sqlite").string()}).out;
  }
  // The good state every fault test starts from, and must find again afterwards.
  std::string CrawlGood() {
    const CliResult r = Crawl();
    EXPECT_EQ(r.code, kExitOk) << r.err;
    return Exported();
  }

  static constexpr const char* kTorchPage =
      "<html><body><h1>Links for torch</h1>\n"
      "<a href=\"/whl/cu124/torch-2.5.1%2Bcu124-cp312-cp312-linux_x86_64.whl#sha256=aa\">"
      "torch-2.5.1+cu124-cp312-cp312-linux_x86_64.whl</a><br/>\n</body></html>";

  testing::FaultServer server_;
  TempDir dir_;
};

// Issue 29, item 17: a backend listing's entries that are not project names are skipped with a
// warning, and the export does not list them as projects either.
TEST_F(CrawlFaultTest, NamesTheCrawlSkippedAreNotExported) {
  server_.Script("/whl/cu124/", {testing::FaultResponse::Ok(
                                    "<html><body><a href=\"torch/\">torch</a><br/>"
                                    "<a href=\"a%20b/\">a b</a><br/><a href=\"-%2f-%2fetc/\">x</a><br/>"
                                    "</body></html>")});
  const CliResult r = Crawl({"--json"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_NE(r.out.find("which is not a project name; skipped"), std::string::npos) << r.out;
  const nlohmann::json exported = nlohmann::json::parse(Exported());
  ASSERT_TRUE(exported.contains("projects")) << exported.dump().substr(0, 400);
  EXPECT_TRUE(exported["projects"].contains("torch"));
  for (const auto& [name, project] : exported["projects"].items()) {
    EXPECT_TRUE(torchdex::core::IsValidName(name)) << name;
  }
  EXPECT_EQ(exported["projects"].size(), 1u) << exported["projects"].dump();
}

// Bytes 1..255 from a fixed seed: garbage without the NUL that would give it away at once.
std::string RandomBytes(std::size_t n) {
  std::mt19937 random(27);
  std::uniform_int_distribution<int> byte(1, 255);
  std::string out(n, '\0');
  for (char& c : out) c = static_cast<char>(byte(random));
  return out;
}

struct Fault {
  const char* name;
  testing::FaultResponse response;
  const char* message;
};

TEST_F(CrawlFaultTest, EveryFaultFailsTheCrawlAndKeepsTheCatalogue) {
  const Fault faults[] = {
      {"500", testing::FaultResponse::Status(500), "500"},
      {"hang", testing::FaultResponse::Hang(), "timed out"},
      {"truncated", testing::FaultResponse::Truncated(std::string(kTorchPage) + std::string(5000, ' '), 100), "torch"},
      {"redirect loop", testing::FaultResponse::Redirect("/whl/cu124/torch/"), "redirect"},
      {"garbage", testing::FaultResponse::Garbage(std::string("\x00\x01\x02 not http\r\n\r\n", 16)), "torch"},
      {"binary page", testing::FaultResponse::Ok(std::string("\x89PNG\0\0\0", 7)), "binary data"},
      {"100 MB page", testing::FaultResponse::Generated(100ull << 20, true), "larger than"},
      // Issue 13 item 27: random bytes (no NUL among them) are not an empty page.
      {"random bytes", testing::FaultResponse::Ok(RandomBytes(4096), "application/octet-stream"),
       "Content-Type application/octet-stream"},
      {"random bytes as HTML", testing::FaultResponse::Ok(RandomBytes(4096)), "binary data"},
  };
  const std::string good = CrawlGood();
  ASSERT_NE(good.find("2.5.1+cu124"), std::string::npos);
  for (const Fault& fault : faults) {
    SCOPED_TRACE(fault.name);
    ScriptTorch(fault.response, 4);
    const CliResult r = Crawl({"--max-page-bytes", std::to_string(64ull << 20)});
    EXPECT_EQ(r.code, kExitCrawlFailed) << r.err;
    EXPECT_NE(r.err.find("FAILED, nothing stored"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(fault.message), std::string::npos) << r.err;
    EXPECT_EQ(Exported(), good);
  }
  // The failed runs are recorded as such.
  auto store =
      catalogue::Store::Open((dir_.path() / "s.sqlite").string(), catalogue::StoreAccess::kRead);
  ASSERT_TRUE(store.ok());
  auto runs = (*store)->Runs();
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 1u + std::size(faults));
  EXPECT_EQ(runs->front().status, "complete");
  EXPECT_EQ(runs->back().status, "failed");
  EXPECT_NE(runs->back().message.find("failure"), std::string::npos);
}

// Issue 13 item 19: a version that is not ASCII (and a percent-encoded byte that is not UTF-8)
// in an href make a warning, and the --json summary and the export are still written, as valid
// UTF-8.
TEST_F(CrawlFaultTest, ANonAsciiVersionIsAWarningAndTheJsonStaysValid) {
  ScriptTorch(testing::FaultResponse::Ok(
      "<html><body>"
      "<a href=\"/whl/cu124/torch-2.5.1%2Bcu124-cp312-cp312-linux_x86_64.whl\">t</a><br/>"
      "<a href=\"/whl/cu124/torch-1.0\xe2\x82\xac-py3-none-any.whl\">torch-1.0\xe2\x82\xac</a><br/>"
      "<a href=\"/whl/cu124/torch-1.0%FF-py3-none-any.whl\">torch-1.0%FF</a><br/>"
      "</body></html>"));
  const fs::path exported = dir_.path() / "catalogue.json";
  const CliResult r = Crawl({"--json", "--export", exported.string()});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  const nlohmann::json summary = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(summary.is_discarded()) << r.out;
  std::string warnings;
  for (const auto& w : summary["warnings"]) warnings += w.get<std::string>() + "\n";
  // The whole character, not half of it; a percent-encoded byte that is no character is U+FFFD.
  EXPECT_NE(warnings.find("unexpected '\xe2\x82\xac' at column 4"), std::string::npos) << warnings;
  EXPECT_NE(warnings.find("invalid wheel filename 'torch-1.0\xef\xbf\xbd-py3"), std::string::npos)
      << warnings;
  EXPECT_NE(ReadFile(exported).find("2.5.1+cu124"), std::string::npos);
}

// Issue 13 item 24: what a crawl follows is bounded: a root listing 20,000 backends is refused
// before any of them is asked (it used to cost 20,001 requests), and so is a crawl that would
// ask for more pages than --max-pages.
TEST_F(CrawlFaultTest, WhatACrawlFollowsIsBounded) {
  std::string root = "<html><body>";
  for (int i = 0; i < 20000; ++i) root += "<a href=\"cu" + std::to_string(1000 + i) + "/\">x</a>";
  server_.Script("/whl/", {testing::FaultResponse::Ok(root + "</body></html>")});
  CliResult r = Crawl();
  EXPECT_EQ(r.code, kExitCrawlFailed) << r.err;
  EXPECT_NE(r.err.find("lists 20000 backends, more than --max-follow 5000"), std::string::npos)
      << r.err.substr(0, 2000);
  EXPECT_LT(server_.Requests().size(), 5u);

  SetUp();  // the tiny index again: 3 pages
  r = Crawl({"--max-pages", "2"});
  EXPECT_EQ(r.code, kExitCrawlFailed) << r.err;
  EXPECT_NE(r.err.find("more than --max-pages 2 pages"), std::string::npos) << r.err;
  EXPECT_EQ(Crawl({"--max-pages", "3"}).code, kExitOk);
}

// Issue 13 item 24: a page's links are bounded (--max-links), and with them the memory a page
// costs: a 63 MB page of 1,000,000 anchors took 954 MB; now the crawl stops reading it at
// 50,001 and fails that page.
TEST_F(CrawlFaultTest, APageWithAMillionLinksFailsWithinBoundedMemory) {
  std::string page = "<html><body>\n";
  page.reserve(64 << 20);
  for (int i = 0; i < 1000000; ++i) {
    page += "<a href=\"/whl/cu124/torch-2." + std::to_string(i) + ".0-cp312-none-any.whl\">t</a>\n";
  }
  ScriptTorch(testing::FaultResponse::Ok(page + "</body></html>"));
  page = std::string();
  CliResult r = Crawl({"--max-page-bytes", std::to_string(128 << 20)});
  EXPECT_EQ(r.code, kExitCrawlFailed) << r.err.substr(0, 2000);
  EXPECT_NE(r.err.find("more than 50000 links (--max-links)"), std::string::npos)
      << r.err.substr(0, 2000);

  ScriptTorch(testing::FaultResponse::Ok(kTorchPage));
  std::string hundred = "<html><body>";
  for (int i = 0; i < 101; ++i) hundred += "<a href=\"x-" + std::to_string(i) + ".tar.gz\">x</a>";
  ScriptTorch(testing::FaultResponse::Ok(hundred + "</body></html>"));
  r = Crawl({"--max-links", "100"});
  EXPECT_EQ(r.code, kExitCrawlFailed) << r.err;
  EXPECT_NE(r.err.find("more than 100 links (--max-links)"), std::string::npos) << r.err;
  EXPECT_EQ(Crawl({"--max-links", "101"}).code, kExitOk);
}

// Issue 13 item 22: the links of a redirected page are resolved against where it led, so a
// page moved to another path lends it no wheels of the backend it was asked for.
TEST_F(CrawlFaultTest, LinksOfARedirectedPageResolveAgainstWhereItLed) {
  ScriptTorch(testing::FaultResponse::Redirect("/elsewhere/torch/"));
  server_.Script(
      "/elsewhere/torch/",
      {testing::FaultResponse::Ok(
          "<a href=\"torch-9.9.9%2Bcu124-cp312-cp312-linux_x86_64.whl\">x</a><br/>"
          "<a href=\"/whl/cu124/torch-2.5.1%2Bcu124-cp312-cp312-linux_x86_64.whl\">y</a>")});
  const CliResult r = Crawl();
  ASSERT_EQ(r.code, kExitOk) << r.err;
  const std::string exported = Exported();
  EXPECT_NE(exported.find("2.5.1+cu124"), std::string::npos) << exported;
  EXPECT_EQ(exported.find("9.9.9"), std::string::npos) << exported;
}

// Issue 13 item 22: a backend page that redirects to another origin fails the crawl (nothing
// is stored), and the other origin is never asked.
TEST_F(CrawlFaultTest, ARedirectToAnotherOriginFailsTheCrawl) {
  const std::string good = CrawlGood();
  testing::FaultServer other;
  other.Script("/whl/cu124/torch/",
               {testing::FaultResponse::Ok(
                   "<a href=\"torch-9.9.9%2Bcu124-cp312-cp312-linux_x86_64.whl\">x</a>")});
  ScriptTorch(testing::FaultResponse::Redirect(other.Url("/whl/cu124/torch/")), 4);
  const CliResult r = Crawl();
  EXPECT_EQ(r.code, kExitCrawlFailed) << r.err;
  EXPECT_NE(r.err.find("redirect to " + other.Url("/whl/cu124/torch/") + " refused"),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(other.Requests().empty());
  EXPECT_EQ(Exported(), good);
}

TEST_F(CrawlFaultTest, TransientErrorsAreRetried) {
  server_.Script("/whl/cu124/torch/", {testing::FaultResponse::Status(503),
                                       testing::FaultResponse::TooManyRequests(0),
                                       testing::FaultResponse::Ok(kTorchPage)});
  const CliResult r = Crawl();
  EXPECT_EQ(r.code, kExitOk) << r.err;
  EXPECT_EQ(server_.RequestsFor("/whl/cu124/torch/").size(), 3u);
  EXPECT_NE(Exported().find("2.5.1+cu124"), std::string::npos);
}

TEST_F(CrawlFaultTest, APageThatDisappearsIsReclassifiedAndAnUnchangedCrawlKeepsTheClasses) {
  ASSERT_NE(CrawlGood().find("\"class\": \"routed\""), std::string::npos);
  // Nothing changed: the classes stand (and are not recomputed).
  ASSERT_EQ(Crawl().code, kExitOk);
  ASSERT_NE(Exported().find("\"class\": \"routed\""), std::string::npos);
  // The torch page goes away: torch has no builds left, so it is no longer routed.
  ScriptTorch(testing::FaultResponse::Status(404));
  const CliResult r = Crawl();
  ASSERT_EQ(r.code, kExitOk) << r.err;
  const nlohmann::json cat = nlohmann::json::parse(Exported());
  EXPECT_EQ(cat["projects"]["torch"]["class"], "mirror");
  EXPECT_EQ(cat["projects"]["torch"]["reason"], "listed by a backend, but its page is missing or empty");
}

// Issue 20: the export of an unchanged crawl is skipped only while the store holds what it held;
// a page that changes (here: goes away) is exported at once.
TEST_F(CrawlFaultTest, APageThatChangesIsExportedAgainAfterAnUnchangedCrawl) {
  const std::string file = (dir_.path() / "c.json").string();
  ASSERT_EQ(Crawl({"--export", file}).code, kExitOk);
  const std::string good = ReadFile(file);
  const CliResult same = Crawl({"--export", file});
  ASSERT_EQ(same.code, kExitOk) << same.err;
  EXPECT_NE(same.err.find("not exported again"), std::string::npos) << same.err;
  ScriptTorch(testing::FaultResponse::Status(404));
  const CliResult gone = Crawl({"--export", file});
  ASSERT_EQ(gone.code, kExitOk) << gone.err;
  EXPECT_NE(gone.err.find("c.json written"), std::string::npos) << gone.err;
  const nlohmann::json cat = nlohmann::json::parse(ReadFile(file));
  EXPECT_EQ(cat["projects"]["torch"]["class"], "mirror");
  EXPECT_NE(ReadFile(file), good);
  EXPECT_EQ(ReadFile(file), RunCli({"export", "--store", (dir_.path() / "s.sqlite").string(),
                                    "--index-url", "https://download.pytorch.org/whl/"})
                                .out);
}

TEST_F(CrawlFaultTest, AbsentProjectPagesAreWarningsNotFailures) {
  ScriptTorch(testing::FaultResponse::Status(403, "<Error><Code>AccessDenied</Code></Error>"));
  const CliResult r = Crawl();
  EXPECT_EQ(r.code, kExitOk) << r.err;
  EXPECT_NE(r.err.find("project page missing"), std::string::npos) << r.err;
}

TEST_F(CrawlFaultTest, AMissingRootFallsBackToDiscoveryPages) {
  // A mirror without a root listing: backends are found from the links of /whl/torch/.
  server_.Script("/whl/", {testing::FaultResponse::Status(404)});
  server_.Script("/whl/torch/", {testing::FaultResponse::Ok(kTorchPage)});
  const CliResult r = Crawl();
  ASSERT_EQ(r.code, kExitOk) << r.err;
  const std::string exported = Exported();
  EXPECT_NE(exported.find("\"discovered_from\": \"links of torch/\""), std::string::npos) << exported;
  EXPECT_NE(exported.find("2.5.1+cu124"), std::string::npos);
}

TEST_F(CrawlFaultTest, BuildsWhoseOwnPagesAreMissingComeFromTheFlatPage) {
  // As the 2026-03-15 snapshot's rocm7.x: the root and cu126's list name torch, cu126/torch/ is
  // missing, and /whl/torch/ links the cu126 wheels with their hashes.
  server_.Script("/whl/",
                 {testing::FaultResponse::Ok("<html><body><a href=\"cu124/\">cu124</a><br/>"
                                             "<a href=\"cu126/\">cu126</a><br/>"
                                             "<a href=\"torch/\">torch</a><br/></body></html>")});
  server_.Script(
      "/whl/cu126/",
      {testing::FaultResponse::Ok("<html><body><a href=\"torch/\">torch</a><br/>"
                                  "<a href=\"torchvision/\">torchvision</a><br/></body></html>")});
  server_.Script(
      "/whl/cu124/",
      {testing::FaultResponse::Ok("<html><body><a href=\"torch/\">torch</a><br/>"
                                  "<a href=\"torchvision/\">torchvision</a><br/></body></html>")});
  server_.Script("/whl/cu124/torchvision/",
                 {testing::FaultResponse::Ok(
                     "<html><body><a href=\"/whl/cu124/torchvision-0.20.1%2Bcu124-cp312-"
                     "cp312-linux_x86_64.whl#sha256=cc\">x</a><br/></body></html>")});
  server_.Script("/whl/cu126/torch/", {testing::FaultResponse::Status(404)});
  server_.Script("/whl/cu126/torchvision/", {testing::FaultResponse::Status(404)});
  server_.Script("/whl/torch/",
                 {testing::FaultResponse::Ok(
                     "<html><body>"
                     "<a "
                     "href=\"/whl/cu124/"
                     "torch-2.5.1%2Bcu124-cp312-cp312-linux_x86_64.whl#sha256=aa\">a</a><br/>"
                     "<a "
                     "href=\"/whl/cu126/"
                     "torch-2.6.0%2Bcu126-cp312-cp312-linux_x86_64.whl#sha256=bb\">b</a><br/>"
                     "</body></html>")});
  const CliResult r = Crawl();
  ASSERT_EQ(r.code, kExitOk) << r.err;
  const nlohmann::json cat = nlohmann::json::parse(Exported());
  const nlohmann::json& torch = cat["projects"]["torch"];
  EXPECT_EQ(torch["builds"]["cu126"]["2.6.0+cu126"][0], "cp312-cp312-linux_x86_64") << torch.dump();
  EXPECT_EQ(torch["from_flat_page"], nlohmann::json::array({"cu126"}));
  EXPECT_FALSE(torch.contains("unfetched"));
  // torchvision has no flat page: on cu126 it is not crawled, not absent.
  EXPECT_EQ(cat["projects"]["torchvision"]["unfetched"], nlohmann::json::array({"cu126"}))
      << cat["projects"]["torchvision"].dump();
}

TEST_F(CrawlFaultTest, ABackendKnownOnlyFromTheFlatPageKeepsItsWheels) {
  // As the 2025-08-13 snapshot: no root listing, /whl/torch/ links cu129 wheels, and cu129's
  // own pages are absent. The backend is kept, its wheels from the flat page.
  server_.Script("/whl/", {testing::FaultResponse::Status(404)});
  server_.Script(
      "/whl/torch/",
      {testing::FaultResponse::Ok(
          "<html><body>"
          "<a "
          "href=\"/whl/cu124/torch-2.5.1%2Bcu124-cp312-cp312-linux_x86_64.whl#sha256=aa\">a</a><br/"
          ">"
          "<a "
          "href=\"/whl/cu129/"
          "torch-2.8.0%2Bcu129-cp312-cp312-manylinux_2_28_x86_64.whl#sha256=bb\">b</a><br/>"
          "</body></html>")});
  server_.Script("/whl/cu129/", {testing::FaultResponse::Status(404)});
  const CliResult r =
      Crawl({"--index-url", "https://download.pytorch.org/whl/", "--snapshot", "a test copy",
             "--snapshot-date", "2025-08-13", "--export", (dir_.path() / "c.json").string()});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  std::ifstream in(dir_.path() / "c.json");
  const nlohmann::json cat = nlohmann::json::parse(in);
  EXPECT_EQ(cat["backends"]["cu129"]["state"], "ok (flat page only)");
  EXPECT_EQ(cat["projects"]["torch"]["builds"]["cu129"].begin().key(), "2.8.0+cu129");
  EXPECT_EQ(cat["projects"]["torch"]["from_flat_page"], nlohmann::json::array({"cu129"}));
  // Provenance: what the catalogue stands for, apart from the loopback URL crawled.
  EXPECT_EQ(cat["provenance"]["index_url"], "https://download.pytorch.org/whl/");
  EXPECT_EQ(cat["provenance"]["snapshot"], "a test copy");
  EXPECT_EQ(cat["provenance"]["snapshot_date"], "2025-08-13");
  EXPECT_EQ(cat["provenance"]["crawled_from"], server_.Url("/whl/"));
  const CliResult bad =
      Crawl({"--snapshot-date", "August 13", "--export", (dir_.path() / "d.json").string()});
  EXPECT_EQ(bad.code, kExitUsage);
  EXPECT_NE(bad.err.find("--snapshot-date: expected YYYY-MM-DD"), std::string::npos) << bad.err;
}

TEST(CrawlCliTest, ReportsBadUsageAndUnknownCommands) {
  CliResult r = RunCli({"crwal"});
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_NE(r.err.find("unknown command 'crwal' (did you mean \"crawl\"?)"), std::string::npos) << r.err;
  r = RunCli({"crawl", "--channel", "weekly", "--store", "/nonexistent/x.sqlite"});
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_NE(r.err.find("unknown channel 'weekly'; known: stable test nightly"), std::string::npos) << r.err;
  r = RunCli({"diff", "only-one.json"});
  EXPECT_EQ(r.code, kExitUsage);
  r = RunCli({"--help"});
  EXPECT_EQ(r.code, kExitOk);
  EXPECT_NE(r.out.find("exit codes"), std::string::npos);
}

// Issue 13 item 24: every numeric flag is checked, so none can switch a limit off (NaN passed
// "timeout > 0"; -1 wrapped to 2^64-1 as --max-page-bytes).
TEST(CrawlCliTest, NumericFlagsAreChecked) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"--timeout", "nan"},         {"--timeout", "inf"},         {"--timeout", "0"},
      {"--timeout", "-1"},          {"--timeout", "1e9"},         {"--connect-timeout", "nan"},
      {"--max-page-bytes", "-1"},   {"--max-page-bytes", "0"},    {"--max-page-bytes", "1GiB"},
      {"--max-page-bytes", "99999999999999"},                     {"--jobs", "0"},
      {"--jobs", "100000"},         {"--attempts", "-1"},         {"--attempts", "1.5"},
      {"--max-links", "0"},         {"--max-follow", "-5"},       {"--max-pages", "x"},
      {"--max-pages", "18446744073709551617"}};
  for (const auto& [flag, value] : bad) {
    const CliResult r = RunCli({"crawl", "--store", "/nonexistent/x.sqlite", flag, value});
    EXPECT_EQ(r.code, kExitUsage) << flag << " " << value << ": " << r.err;
    EXPECT_NE(r.err.find(flag + " " + value + ": expected"), std::string::npos) << r.err;
  }
}

// Issue 13, exits item 15: one table from error codes to statuses; a bad data file is a bad
// input file (2), named with its JSON pointer.
TEST(CrawlCliTest, OneTableMapsErrorCodesToExitStatuses) {
  EXPECT_EQ(ExitStatus(core::ErrorCode::kNetwork), kExitCrawlFailed);
  EXPECT_EQ(ExitStatus(core::ErrorCode::kUsage), kExitUsage);
  EXPECT_EQ(ExitStatus(core::ErrorCode::kBadInputFile), kExitUsage);
  EXPECT_EQ(ExitStatus(core::ErrorCode::kFailure), kExitStore);
  TempDir dir;
  const fs::path indexes = dir.path() / "indexes.json";
  std::ofstream(indexes) << "{\"families\": 3}";
  CliResult r = RunCli({"crawl", "--indexes", indexes.string(), "--store",
                        (dir.path() / "s.sqlite").string()});
  EXPECT_EQ(r.code, kExitUsage) << r.err;
  EXPECT_NE(r.err.find(indexes.string() + ": /families: expected an array"), std::string::npos)
      << r.err;
  r = RunCli({"--help"});
  EXPECT_NE(r.out.find("3 the store is locked by another crawl or\n            cannot be used"),
            std::string::npos)
      << r.out;
}

// A schema_version that only wraps to 1 as an int is still the wrong version.
TEST(CatalogueJsonTest, RejectsASchemaVersionThatWrapsToOne) {
  const std::string rest = R"(, "provenance": {"family": "pytorch", "channel": "stable",
      "crawled_from": "", "updated_at": "", "note": ""}, "backends": {}, "projects": {}})";
  EXPECT_TRUE(catalogue::ParseCatalogueJson(R"({"schema_version": 1)" + rest, "t").ok());
  for (const char* version : {"4294967297", "-4294967295", "1.0", "\"1\""}) {
    const std::string json = std::string(R"({"schema_version": )") + version + rest;
    auto parsed = catalogue::ParseCatalogueJson(json, "t");
    EXPECT_FALSE(parsed.ok()) << version;
  }
}

// A backend's state is one of the catalogue's words, read as a core::BackendState and written
// back as the same word; another word is an error at its JSON pointer.
TEST(CatalogueJsonTest, ABackendStateIsOneOfTheCataloguesWords) {
  const auto catalogue_with = [](const std::string& state) {
    return R"({"schema_version": 1, "provenance": {"family": "pytorch", "channel": "stable",
      "crawled_from": "", "updated_at": "", "note": ""}, "backends": {"cu129": {"kind": "cuda",
      "toolkit": "12.9", "state": ")" + state + R"(", "discovered_from": "root", "legacy": false,
      "projects": 0}}, "projects": {}})";
  };
  auto parsed = catalogue::ParseCatalogueJson(catalogue_with("ok (flat page only)"), "t");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_EQ(parsed->backends.at("cu129").state, core::BackendState::kOkFlatPageOnly);
  EXPECT_NE(catalogue::WriteCatalogueJson(*parsed).find(R"x("ok (flat page only)")x"), std::string::npos);
  auto bad = catalogue::ParseCatalogueJson(catalogue_with("okay"), "t");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("t: /backends/cu129/state: \"okay\" is no backend state"), std::string::npos)
      << bad.error().message;
}

// The data directory: $TORCHDEX_DATA_DIR wins; otherwise this test binary, which is not
// installed, gets the source tree's data/.
TEST(CrawlCliTest, FindsTheDataDirectory) {
  const char* saved = std::getenv("TORCHDEX_DATA_DIR");
  const std::string saved_value = saved != nullptr ? saved : "";
  setenv("TORCHDEX_DATA_DIR", "/somewhere/else", 1);
  EXPECT_EQ(DefaultDataDir(), "/somewhere/else");
  unsetenv("TORCHDEX_DATA_DIR");
  EXPECT_TRUE(fs::exists(fs::path(DefaultDataDir()) / "indexes.json")) << DefaultDataDir();
  if (saved != nullptr) setenv("TORCHDEX_DATA_DIR", saved_value.c_str(), 1);
}

}  // namespace
}  // namespace torchdex::crawler

namespace torchdex::crawler {
namespace {

TEST_F(CrawlFaultTest, ADefaultIndexWithNewerReleasesMakesAProjectStale) {
  server_.Script("/whl/cu124/", {testing::FaultResponse::Ok(
                                    "<html><body><a href=\"torch/\">torch</a><br/>"
                                    "<a href=\"torchdata/\">torchdata</a><br/></body></html>")});
  server_.Script("/whl/cu124/torchdata/",
                 {testing::FaultResponse::Ok("<a href=\"/whl/torchdata-0.7.1-py3-none-any.whl\">"
                                             "torchdata-0.7.1-py3-none-any.whl</a>")});
  server_.Script("/pypi/torchdata/",
                 {testing::FaultResponse::Ok("<a href=\"/f/torchdata-0.7.1-py3-none-any.whl\">x</a>"
                                             "<a href=\"/f/torchdata-0.11.0-py3-none-any.whl\">x</a>"
                                             "<a href=\"/f/torchdata-0.12.0rc1-py3-none-any.whl\">x</a>")});
  server_.Script("/pypi/torch/", {testing::FaultResponse::Ok(
                                     "<a href=\"/f/torch-9.0.0-py3-none-any.whl\">x</a>")});
  const CliResult r = Crawl({"--default-index", server_.Url("/pypi/")});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  const nlohmann::json cat = nlohmann::json::parse(Exported());
  EXPECT_EQ(cat["projects"]["torchdata"]["class"], "stale");
  EXPECT_EQ(cat["projects"]["torchdata"]["reason"],
            "the index lags the default index: newest here 0.7.1, default index 0.11.0");
  // A routed project is never stale: the default index has no builds per backend.
  EXPECT_EQ(cat["projects"]["torch"]["class"], "routed");
}

// Runs torchdex-crawl as a child process; returns its pid.
pid_t Spawn(const std::vector<std::string>& args, rlim_t file_size_limit = RLIM_INFINITY) {
  const pid_t pid = fork();
  if (pid == 0) {
    if (file_size_limit != RLIM_INFINITY) {
      rlimit limit{file_size_limit, file_size_limit};
      setrlimit(RLIMIT_FSIZE, &limit);
      signal(SIGXFSZ, SIG_IGN);  // a write past the limit then fails with EFBIG
    }
    const int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, STDOUT_FILENO);
    std::vector<char*> argv;
    std::string binary = TORCHDEX_CRAWL_BINARY;
    argv.push_back(binary.data());
    std::vector<std::string> copy = args;
    for (std::string& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  return pid;
}

TEST_F(CrawlFaultTest, ACrawlKilledMidwayLeavesTheLastCatalogueAndTheNextOneSucceeds) {
  const std::string good = CrawlGood();
  const std::string store = (dir_.path() / "s.sqlite").string();
  // The torch page now answers slowly; the crawler is killed while it waits for it.
  ScriptTorch(testing::FaultResponse::Hang(), 4);
  const pid_t pid = Spawn({"crawl", "--store", store, "--base-url", server_.Url("/whl/"),
                           "--channel", "stable", "--timeout", "30", "-q"});
  ASSERT_GT(pid, 0);
  for (int i = 0; i < 500 && server_.RequestsFor("/whl/cu124/torch/").size() < 2; ++i) {
    usleep(10000);  // waiting for the child to reach the page, not timing anything
  }
  ASSERT_EQ(server_.RequestsFor("/whl/cu124/torch/").size(), 2u);
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));

  EXPECT_EQ(Exported(), good);
  // The next crawl takes the lock, marks the dead run, and works.
  ScriptTorch(testing::FaultResponse::Ok(kTorchPage));
  const CliResult r = Crawl();
  EXPECT_EQ(r.code, kExitOk) << r.err;
  auto opened = catalogue::Store::Open(store, catalogue::StoreAccess::kRead);
  ASSERT_TRUE(opened.ok());
  auto runs = (*opened)->Runs();
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 3u);
  EXPECT_EQ((*runs)[1].status, "interrupted");
  EXPECT_EQ((*runs)[2].status, "complete");
  EXPECT_EQ(Exported(), good);
}


// The export of the real fixture (about 200 KB) against a file size limit of 100 KB: enough for
// the store's own files, not for the catalogue.
TEST_F(CrawlTest, ADiskFullExportChangesNothing) {
  ASSERT_EQ(Crawl().code, kExitOk);
  const fs::path out = dir_.path() / "catalogue.json";
  { std::ofstream(out) << "previous content\n"; }
  const int err_pipe[2] = {0, 0};
  ASSERT_EQ(pipe(const_cast<int*>(err_pipe)), 0);
  const pid_t pid = fork();
  if (pid == 0) {
    rlimit limit{100000, 100000};
    setrlimit(RLIMIT_FSIZE, &limit);
    signal(SIGXFSZ, SIG_IGN);  // a write past the limit then fails with EFBIG
    dup2(err_pipe[1], STDERR_FILENO);
    std::string binary = TORCHDEX_CRAWL_BINARY;
    std::vector<std::string> args = {binary, "export", "--store", StorePath(), "-o", out.string()};
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  close(err_pipe[1]);
  std::string err;
  char buffer[4096];
  for (ssize_t n; (n = read(err_pipe[0], buffer, sizeof(buffer))) > 0;) err.append(buffer, static_cast<std::size_t>(n));
  close(err_pipe[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), kExitStore) << err;
  EXPECT_NE(err.find("cannot write " + out.string()), std::string::npos) << err;
  EXPECT_NE(err.find("File too large (nothing was changed)"), std::string::npos) << err;
  EXPECT_EQ(ReadFile(out), "previous content\n");
  // No half-written temporary file is left beside it.
  int files = 0;
  for (const auto& entry : fs::directory_iterator(dir_.path())) {
    files += entry.path().filename().string().starts_with("catalogue.json");
  }
  EXPECT_EQ(files, 1);
}

// Runs torchdex-crawl as a child process with VARIABLE=VALUE in its environment (libcurl and
// libxml2 are loaded once per process, so the loader's error paths need a process each).
CliResult RunCrawlBinary(const std::vector<std::string>& args, const std::string& variable,
                         const std::string& value) {
  int err_pipe[2] = {0, 0};
  if (pipe(err_pipe) != 0) return {-1, "", "pipe failed"};
  const pid_t pid = fork();
  if (pid == 0) {
    setenv(variable.c_str(), value.c_str(), 1);
    const int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, STDOUT_FILENO);
    dup2(err_pipe[1], STDERR_FILENO);
    std::string binary = TORCHDEX_CRAWL_BINARY;
    std::vector<std::string> copy = args;
    std::vector<char*> argv = {binary.data()};
    for (std::string& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  close(err_pipe[1]);
  std::string err;
  char buffer[4096];
  for (ssize_t n; (n = read(err_pipe[0], buffer, sizeof(buffer))) > 0;)
    err.append(buffer, static_cast<std::size_t>(n));
  close(err_pipe[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, "", err};
}

// A machine without libcurl (a wheel brings none: docs/packaging.md): every request fails with
// the package to install, and the crawl fails.
TEST_F(CrawlFaultTest, WithoutLibcurlTheCrawlFailsNamingThePackageToInstall) {
  const CliResult r = RunCrawlBinary({"crawl", "--store", (dir_.path() / "s.sqlite").string(),
                                      "--base-url", server_.Url("/whl/"), "--attempts", "1", "-q"},
                                     "TORCHDEX_LIBCURL", "libtorchdex-absent.so.4");
  EXPECT_EQ(r.code, kExitCrawlFailed) << r.err;
  EXPECT_NE(r.err.find("TORCHDEX_LIBCURL=libtorchdex-absent.so.4 cannot be loaded ("),
            std::string::npos)
      << r.err;
  EXPECT_NE(
      r.err.find(
          "unset TORCHDEX_LIBCURL to load libcurl.so.4, or install libcurl 7.85 or newer: the "
          "package libcurl4 (Debian, Ubuntu, openSUSE) or libcurl (Fedora, RHEL)"),
      std::string::npos)
      << r.err;
  EXPECT_TRUE(server_.RequestsFor("/whl/").empty());
}

// A library that is not libcurl (or one older than 7.85) is named with the symbol it lacks.
TEST_F(CrawlFaultTest, ALibcurlWithoutTheNeededSymbolsIsRefusedByName) {
  const CliResult r = RunCrawlBinary({"crawl", "--store", (dir_.path() / "s.sqlite").string(),
                                      "--base-url", server_.Url("/whl/"), "--attempts", "1", "-q"},
                                     "TORCHDEX_LIBCURL", "libxml2.so.2");
  EXPECT_EQ(r.code, kExitCrawlFailed) << r.err;
  EXPECT_NE(r.err.find("TORCHDEX_LIBCURL=libxml2.so.2 lacks curl_global_init: torchdex needs "
                       "libcurl 7.85 or newer"),
            std::string::npos)
      << r.err;
}

// Without libxml2 the pages are fetched and cannot be parsed: the crawl fails saying why.
TEST_F(CrawlFaultTest, WithoutLibxml2TheCrawlFailsNamingThePackageToInstall) {
  const CliResult r = RunCrawlBinary({"crawl", "--store", (dir_.path() / "s.sqlite").string(),
                                      "--base-url", server_.Url("/whl/"), "--attempts", "1", "-q"},
                                     "TORCHDEX_LIBXML2", "libtorchdex-absent.so.2");
  EXPECT_EQ(r.code, kExitCrawlFailed) << r.err;
  EXPECT_NE(r.err.find("TORCHDEX_LIBXML2=libtorchdex-absent.so.2 cannot be loaded ("),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("install the package libxml2 (Debian, Ubuntu, Fedora, RHEL, openSUSE)"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(server_.RequestsFor("/whl/").empty());
}

// A page's rows live in its arena (PageRows): a row copied or moved in keeps every field and
// holds its strings there, and a copy of the rows outside it holds its own (the heap's).
TEST(StoreAnchorsTest, RowsCopiedOrMovedIntoAPageArenaKeepEveryFieldAndLiveThere) {
  auto row_of = [](const std::string& seed) {
    catalogue::AnchorRow a;
    std::size_t n = 0;
    // Every string longer than a short string's buffer, each different.
    for (catalogue::AnchorRow::String* s :
         {&a.url, &a.text, &a.filename, &a.project, &a.version, &a.local, &a.build, &a.tags,
          &a.file_kind, &a.sha256, &a.metadata_sha256, &a.requires_python, &a.upload_time,
          &a.host, &a.backend}) {
      *s = std::string("field-").append(std::to_string(n++)).append("-of-").append(seed).append(24, 'x');
    }
    a.has_metadata = true;
    a.yanked.emplace(std::string("yanked because ").append(seed).append(24, 'y'));
    return a;
  };
  auto fields = [](const catalogue::AnchorRow& a) {
    return std::tie(a.url, a.text, a.filename, a.project, a.version, a.local, a.build, a.tags,
                    a.file_kind, a.sha256, a.metadata_sha256, a.has_metadata, a.requires_python,
                    a.yanked, a.upload_time, a.host, a.backend);
  };
  auto resources = [](const catalogue::AnchorRow& a) {
    std::vector<std::pmr::memory_resource*> out;
    for (const catalogue::AnchorRow::String* s :
         {&a.url, &a.text, &a.filename, &a.project, &a.version, &a.local, &a.build, &a.tags,
          &a.file_kind, &a.sha256, &a.metadata_sha256, &a.requires_python, &a.upload_time,
          &a.host, &a.backend, &*a.yanked}) {
      out.push_back(s->get_allocator().resource());
    }
    return out;
  };
  const catalogue::AnchorRow first = row_of("first");
  catalogue::AnchorRow second = row_of("second");
  const catalogue::AnchorRow second_as_built = second;

  catalogue::PageRows page(2);
  page.rows.push_back(first);              // copied in
  page.rows.push_back(std::move(second));  // moved in
  page.rows.emplace_back().url = "made in place";
  ASSERT_EQ(page.rows.size(), 3u);
  EXPECT_EQ(fields(page.rows[0]), fields(first));
  EXPECT_EQ(fields(page.rows[1]), fields(second_as_built));
  const std::vector<std::pmr::memory_resource*> in_arena(16, page.arena.get());
  EXPECT_EQ(resources(page.rows[0]), in_arena);
  EXPECT_EQ(resources(page.rows[1]), in_arena);
  EXPECT_EQ(page.rows[2].url.get_allocator().resource(), page.arena.get());

  // The rows, moved: the arena goes with them. A copy made outside the arena holds its own
  // strings (the heap's) once the arena is gone.
  std::optional<catalogue::AnchorRows> copy;
  {
    auto moved = std::make_unique<catalogue::PageRows>(std::move(page));
    EXPECT_EQ(fields(moved->rows[1]), fields(second_as_built));
    EXPECT_EQ(resources(moved->rows[1]), in_arena);
    copy.emplace(moved->rows);
  }
  ASSERT_EQ(copy->size(), 3u);
  EXPECT_EQ(fields((*copy)[0]), fields(first));
  EXPECT_EQ(fields((*copy)[1]), fields(second_as_built));
  EXPECT_EQ((*copy)[2].url, "made in place");
  EXPECT_EQ(resources((*copy)[0]),
            std::vector<std::pmr::memory_resource*>(16, std::pmr::get_default_resource()));
}


// The store writes a page's anchors by statements of several rows and leaves bound a value equal
// to the one its parameter already holds: every count around the batch sizes (48, 8, 1) reads
// back column for column, with each column changing, staying, or going NULL from row to row.
TEST(StoreAnchorsTest, EveryCountOfAnchorsReadsBackAsWritten) {
  TempDir dir;
  auto store = catalogue::Store::Open((dir.path() / "store.sqlite").string(),
                                      catalogue::StoreAccess::kCrawl);
  ASSERT_TRUE(store) << store.error().message;
  ASSERT_TRUE((*store)->BeginRun("2026-12-02T00:00:00Z", "http://127.0.0.1/whl/", "stable"));
  auto rows_of = [](std::size_t count, int seed) {
    std::vector<catalogue::AnchorRow> rows(count);
    for (std::size_t i = 0; i < count; ++i) {
      catalogue::AnchorRow& a = rows[i];
      // Built by append: GCC 12 misreads "literal" + std::string as overlapping (-Wrestrict).
      std::string n = std::to_string(i);
      n.append("-").append(std::to_string(seed));
      a.filename = std::string("file-").append(n).append(".whl");
      a.url = std::string("cu128/torch/").append(a.filename);
      a.text = i % 5 == 0 ? std::string("other text ").append(n) : std::string(a.filename);
      a.project = i < count / 2 ? "torch" : "torchvision";
      a.version = std::string("2.5.").append(std::to_string(i / 7));
      if (i % 3 != 0) a.local = "cu128";
      if (i % 11 == 0) a.build = "1";
      a.tags = i % 2 == 0 ? "cp312-cp312-linux_x86_64" : "cp313-cp313-linux_x86_64";
      a.file_kind = i % 13 == 0 ? "other" : "wheel";
      a.sha256 = std::string(64, static_cast<char>('a' + i % 6));
      if (i % 4 != 0) a.metadata_sha256 = std::string(64, 'e');
      a.has_metadata = i % 4 != 0;
      if (i % 9 < 4) a.requires_python = ">=3.9";
      if (i % 6 == 1) a.yanked = "";
      else if (i % 6 == 2 || i % 6 == 3) a.yanked = std::string("broken ").append(std::to_string(i % 2));
      a.upload_time =
          i % 10 < 5 ? std::string() : std::string("2026-03-15T00:00:0").append(std::to_string(i % 10)).append("Z");
      if (i % 17 == 0) a.host = "files.example.org";
      if (i % 8 != 0) a.backend = "cu128";
    }
    return rows;
  };
  auto fields = [](const catalogue::AnchorRow& a) {
    return std::tie(a.url, a.text, a.filename, a.project, a.version, a.local, a.build, a.tags,
                    a.file_kind, a.sha256, a.metadata_sha256, a.has_metadata, a.requires_python,
                    a.yanked, a.upload_time, a.host, a.backend);
  };
  const std::vector<std::size_t> counts = {0, 1, 7, 8, 9, 47, 48, 49, 55, 56, 57, 96, 105, 150};
  for (int round = 0; round < 2; ++round) {  // the second replaces the first's anchors
    for (std::size_t c = 0; c < counts.size(); ++c) {
      // The second round writes the counts of the first in reverse: fewer or more rows than
      // the page had.
      const std::size_t count = round == 0 ? counts[c] : counts[counts.size() - 1 - c];
      catalogue::PageRecord page;
      page.path = std::string("cu128/p").append(std::to_string(c)).append("/");
      page.channel = "stable";
      page.backend = "cu128";
      page.project = std::string("p").append(std::to_string(c));
      page.status = 200;
      page.anchors = static_cast<std::int64_t>(count);
      ASSERT_TRUE((*store)->PutPage(page));
      const std::vector<catalogue::AnchorRow> rows = rows_of(count, round);
      ASSERT_TRUE((*store)->ReplaceAnchors(page.path, rows));
      auto read = (*store)->AnchorsOf(page.path);
      ASSERT_TRUE(read) << read.error().message;
      ASSERT_EQ(read->size(), count) << page.path;
      for (std::size_t i = 0; i < count; ++i) {
        EXPECT_EQ(fields((*read)[i]), fields(rows[i])) << page.path << " anchor " << i;
      }
    }
  }
  ASSERT_TRUE((*store)->CommitRun("2026-12-02T00:00:01Z", {}));
}

}  // namespace
}  // namespace torchdex::crawler
