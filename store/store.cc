#include "store/store.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>
#include <string>
#include <unordered_map>

#include "core/sha256.h"
#include "core/url.h"

namespace torchdex::catalogue {
namespace {

// Version 1 of the schema; docs/catalogue.md describes every column.
constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta(
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs(
  id INTEGER PRIMARY KEY,
  started_at TEXT NOT NULL,
  finished_at TEXT,
  base_url TEXT NOT NULL,
  channels TEXT NOT NULL,
  status TEXT NOT NULL,
  pages_fetched INTEGER NOT NULL DEFAULT 0,
  pages_not_modified INTEGER NOT NULL DEFAULT 0,
  pages_absent INTEGER NOT NULL DEFAULT 0,
  pages_failed INTEGER NOT NULL DEFAULT 0,
  pages_changed INTEGER NOT NULL DEFAULT 0,
  anchors INTEGER NOT NULL DEFAULT 0,
  wire_bytes INTEGER NOT NULL DEFAULT 0,
  message TEXT NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS pages(
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL UNIQUE,
  channel TEXT NOT NULL,
  backend TEXT NOT NULL,
  project TEXT NOT NULL,
  kind TEXT NOT NULL,
  status INTEGER NOT NULL,
  etag TEXT NOT NULL,
  last_modified TEXT NOT NULL,
  shape TEXT NOT NULL,
  anchors INTEGER NOT NULL,
  digest TEXT NOT NULL,
  fetched_at TEXT NOT NULL,
  changed_at TEXT NOT NULL,
  run_id INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS pages_by_channel ON pages(channel, kind);
CREATE TABLE IF NOT EXISTS anchors(
  page_id INTEGER NOT NULL,
  position INTEGER NOT NULL,
  url TEXT NOT NULL,
  text TEXT NOT NULL,
  filename TEXT NOT NULL,
  project TEXT NOT NULL,
  version TEXT NOT NULL,
  local TEXT NOT NULL,
  build TEXT NOT NULL,
  tags TEXT NOT NULL,
  file_kind TEXT NOT NULL,
  sha256 TEXT NOT NULL,
  metadata_sha256 TEXT NOT NULL,
  has_metadata INTEGER NOT NULL,
  requires_python TEXT NOT NULL,
  yanked TEXT,
  upload_time TEXT NOT NULL,
  host TEXT NOT NULL,
  backend TEXT NOT NULL,
  PRIMARY KEY(page_id, position)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS page_groups(
  page_id INTEGER NOT NULL,
  backend TEXT NOT NULL,
  local TEXT NOT NULL,
  host TEXT NOT NULL,
  files INTEGER NOT NULL,
  example_version TEXT NOT NULL,
  PRIMARY KEY(page_id, backend, local, host)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS backends(
  channel TEXT NOT NULL,
  name TEXT NOT NULL,
  kind TEXT NOT NULL,
  toolkit TEXT NOT NULL,
  legacy INTEGER NOT NULL,
  legacy_reason TEXT NOT NULL,
  state TEXT NOT NULL,
  discovered_from TEXT NOT NULL,
  projects INTEGER NOT NULL,
  run_id INTEGER NOT NULL,
  PRIMARY KEY(channel, name));
CREATE TABLE IF NOT EXISTS variants_files(
  path TEXT PRIMARY KEY,
  channel TEXT NOT NULL,
  backend TEXT NOT NULL,
  project TEXT NOT NULL,
  version TEXT NOT NULL,
  schema TEXT NOT NULL,
  sha256 TEXT NOT NULL,
  json TEXT NOT NULL,
  run_id INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS projects(
  channel TEXT NOT NULL,
  name TEXT NOT NULL,
  class TEXT NOT NULL,
  reason TEXT NOT NULL,
  PRIMARY KEY(channel, name));
INSERT OR IGNORE INTO meta(key, value) VALUES('schema_version', '1');
)sql";

class Statement {
 public:
  Statement(sqlite3* db, const char* sql) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) stmt_ = nullptr;
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  bool ok() const { return stmt_ != nullptr; }
  sqlite3_stmt* get() { return stmt_; }

  Statement& Bind(int i, std::string_view text) {
    sqlite3_bind_text(stmt_, i, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Statement& Bind(int i, std::int64_t value) {
    sqlite3_bind_int64(stmt_, i, value);
    return *this;
  }
  // For text that outlives the Step that follows: no copy (a crawl binds 4 million strings).
  Statement& BindStatic(int i, std::string_view text) {
    sqlite3_bind_text(stmt_, i, text.data(), static_cast<int>(text.size()), SQLITE_STATIC);
    return *this;
  }
  Statement& BindNull(int i) {
    sqlite3_bind_null(stmt_, i);
    return *this;
  }
  int Step() { return sqlite3_step(stmt_); }
  void Reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
  std::string Text(int col) {
    const unsigned char* t = sqlite3_column_text(stmt_, col);
    return t == nullptr ? std::string() : std::string(reinterpret_cast<const char*>(t));
  }
  bool IsNull(int col) { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
  std::int64_t Int(int col) { return sqlite3_column_int64(stmt_, col); }

 private:
  sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace

struct Store::Impl {
  sqlite3* db = nullptr;
  int lock_fd = -1;
  std::int64_t run_id = 0;
  // Statements of the hot paths, prepared once: a crawl writes 300,000 anchors and touches
  // 15,000 pages. Keyed by the address of their (static) SQL text.
  std::unordered_map<const char*, std::unique_ptr<Statement>> prepared;

  // A prepared statement, reset and ready for new bindings; nullptr when it cannot be prepared.
  Statement* Prepared(const char* sql) {
    std::unique_ptr<Statement>& slot = prepared[sql];
    if (!slot) slot = std::make_unique<Statement>(db, sql);
    if (!slot->ok()) return nullptr;
    slot->Reset();
    return slot.get();
  }

  ~Impl() {
    prepared.clear();
    if (db != nullptr) sqlite3_close(db);
    if (lock_fd >= 0) close(lock_fd);
  }
};
AnchorRow::AnchorRow(const allocator_type& arena)
    : url(arena), text(arena), filename(arena), project(arena), version(arena), local(arena),
      build(arena), tags(arena), file_kind(arena), sha256(arena), metadata_sha256(arena),
      requires_python(arena), upload_time(arena), host(arena), backend(arena) {}

AnchorRow::AnchorRow(const AnchorRow& other, const allocator_type& arena)
    : url(other.url, arena), text(other.text, arena), filename(other.filename, arena),
      project(other.project, arena), version(other.version, arena), local(other.local, arena),
      build(other.build, arena), tags(other.tags, arena), file_kind(other.file_kind, arena),
      sha256(other.sha256, arena), metadata_sha256(other.metadata_sha256, arena),
      has_metadata(other.has_metadata), requires_python(other.requires_python, arena),
      upload_time(other.upload_time, arena), host(other.host, arena),
      backend(other.backend, arena) {
  if (other.yanked) yanked.emplace(*other.yanked, arena);
}

AnchorRow::AnchorRow(AnchorRow&& other, const allocator_type& arena)
    : url(std::move(other.url), arena), text(std::move(other.text), arena),
      filename(std::move(other.filename), arena), project(std::move(other.project), arena),
      version(std::move(other.version), arena), local(std::move(other.local), arena),
      build(std::move(other.build), arena), tags(std::move(other.tags), arena),
      file_kind(std::move(other.file_kind), arena), sha256(std::move(other.sha256), arena),
      metadata_sha256(std::move(other.metadata_sha256), arena),
      has_metadata(other.has_metadata),
      requires_python(std::move(other.requires_python), arena),
      upload_time(std::move(other.upload_time), arena), host(std::move(other.host), arena),
      backend(std::move(other.backend), arena) {
  if (other.yanked) yanked.emplace(std::move(*other.yanked), arena);
}

// About what a row's strings take on the real index (a relative URL, the filename twice, a
// hash or two and a tag triple), so that most pages fill one block.
PageRows::PageRows(std::size_t anchors)
    : arena(std::make_unique<std::pmr::monotonic_buffer_resource>(
          std::max<std::size_t>(1024, anchors * (sizeof(AnchorRow) + 320)))),
      rows(arena.get()) {}


std::string_view PageKindName(PageKind kind) {
  switch (kind) {
    case PageKind::kChannelRoot:
      return "channel-root";
    case PageKind::kBackendList:
      return "backend-list";
    case PageKind::kProject:
      return "project";
    case PageKind::kDiscovery:
      return "discovery";
    case PageKind::kVariantsJson:
      return "variants-json";
  }
  return "project";
}

namespace {

PageKind PageKindFromName(std::string_view name) {
  if (name == "channel-root") return PageKind::kChannelRoot;
  if (name == "backend-list") return PageKind::kBackendList;
  if (name == "discovery") return PageKind::kDiscovery;
  if (name == "variants-json") return PageKind::kVariantsJson;
  return PageKind::kProject;
}

core::Error SqlError(sqlite3* db, const std::string& path, std::string_view doing) {
  return core::MakeError("store " + path + ": " + std::string(doing) + ": " + sqlite3_errmsg(db));
}

core::Status Exec(sqlite3* db, const std::string& path, const char* sql, std::string_view doing) {
  char* message = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &message) != SQLITE_OK) {
    std::string text = message != nullptr ? message : "unknown error";
    sqlite3_free(message);
    return core::MakeError("store " + path + ": " + std::string(doing) + ": " + text);
  }
  return {};
}

AnchorRow ReadAnchor(Statement& s, int first) {
  AnchorRow a;
  int c = first;
  a.url = s.Text(c++);
  a.text = s.Text(c++);
  a.filename = s.Text(c++);
  a.project = s.Text(c++);
  a.version = s.Text(c++);
  a.local = s.Text(c++);
  a.build = s.Text(c++);
  a.tags = s.Text(c++);
  a.file_kind = s.Text(c++);
  a.sha256 = s.Text(c++);
  a.metadata_sha256 = s.Text(c++);
  a.has_metadata = s.Int(c++) != 0;
  a.requires_python = s.Text(c++);
  if (!s.IsNull(c)) a.yanked = s.Text(c);
  ++c;
  a.upload_time = s.Text(c++);
  a.host = s.Text(c++);
  a.backend = s.Text(c++);
  if (a.text.empty()) a.text = a.filename;  // stored only when it differs
  return a;
}

// The columns ReadPage reads, in its order.
constexpr const char* kPageColumns =
    "path, channel, backend, project, kind, status, etag, last_modified, shape, anchors, digest, "
    "fetched_at, changed_at";

PageRecord ReadPage(Statement& s) {
  PageRecord p;
  p.path = s.Text(0);
  p.channel = s.Text(1);
  p.backend = s.Text(2);
  p.project = s.Text(3);
  p.kind = PageKindFromName(s.Text(4));
  p.status = static_cast<int>(s.Int(5));
  p.etag = s.Text(6);
  p.last_modified = s.Text(7);
  p.shape = s.Text(8);
  p.anchors = s.Int(9);
  p.digest = s.Text(10);
  p.fetched_at = s.Text(11);
  p.changed_at = s.Text(12);
  return p;
}

constexpr const char* kAnchorColumns =
    "anchors.url, anchors.text, anchors.filename, anchors.project, anchors.version, "
    "anchors.local, anchors.build, anchors.tags, anchors.file_kind, anchors.sha256, "
    "anchors.metadata_sha256, anchors.has_metadata, anchors.requires_python, anchors.yanked, "
    "anchors.upload_time, anchors.host, anchors.backend";

}  // namespace

Store::Store(std::string path) : path_(std::move(path)), impl_(std::make_unique<Impl>()) {}
Store::~Store() = default;

core::Expected<std::unique_ptr<Store>> Store::Open(const std::string& path, StoreAccess access) {
  // Before SQLite is first used: no count of the bytes it holds (sqlite3_memory_used, which
  // nothing here reads), so no global mutex around every allocation of its own. Ignored
  // (SQLITE_MISUSE) when SQLite was already initialised.
  static std::once_flag configured;
  std::call_once(configured, [] { sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); });
  std::unique_ptr<Store> store(new Store(path));
  // The lock first: a second crawl must learn who holds the store, not meet a locked database
  // while it writes the schema (issue 13 item 23).
  if (access == StoreAccess::kCrawl) {
    if (auto s = store->LockForCrawl(); !s) return s.error();
  }
  // No mutex per call: a Store is used by one thread at a time (a crawl's writes all run on its
  // store thread, handed over through the worker's queue), and SQLite's serialized mode would
  // lock the connection's mutex twice for each of the 21 calls that store an anchor.
  const int flags = (access == StoreAccess::kRead ? SQLITE_OPEN_READONLY
                                                  : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) |
                    SQLITE_OPEN_NOMUTEX;
  if (sqlite3_open_v2(path.c_str(), &store->impl_->db, flags, nullptr) != SQLITE_OK) {
    return core::MakeError("store " + path + ": cannot open: " +
                           (store->impl_->db ? sqlite3_errmsg(store->impl_->db) : "out of memory"));
  }
  sqlite3* db = store->impl_->db;
  // A WAL reader never waits for the writer; a reader of a store still in its first crawl
  // (rollback journal) may wait out a commit.
  sqlite3_busy_timeout(db, 2000);
  if (access == StoreAccess::kCrawl) {
    if (auto s = store->PrepareForCrawl(); !s) return s.error();
    return store;
  }
  // Sorting in memory, as a crawl does: a temporary file would count against the disk (and
  // RLIMIT_FSIZE) like a write.
  if (auto s = Exec(db, path, "PRAGMA temp_store=MEMORY;", "setting up the reader"); !s) {
    return s.error();
  }
  Statement version(db, "SELECT value FROM meta WHERE key='schema_version'");
  if (!version.ok()) {
    return core::MakeError("store " + path + " is not a torchdex store: " + sqlite3_errmsg(db));
  }
  if (version.Step() != SQLITE_ROW) {
    return core::MakeError("store " + path + " is not a torchdex store (no schema version)");
  }
  if (version.Text(0) != "1") {
    return core::MakeError("store " + path + ": schema version " + version.Text(0) +
                           " is not the one this torchdex reads (1)");
  }
  return store;
}

core::Status Store::PrepareForCrawl() {
  sqlite3* db = impl_->db;
  // The journal: a store that holds pages uses WAL, so readers (an export) never wait for a
  // crawl and a re-crawl's small changes cost one sequential append. An empty store (a first
  // crawl, a sync job without its cache) uses a rollback journal instead: pages added to a new
  // file need no journaling, while WAL would write the whole catalogue twice (once to the log,
  // once at the checkpoint). NORMAL sync is durable at every commit in WAL mode and much cheaper
  // than FULL; a killed crawl is rolled back at the next open in either mode.
  bool has_pages = false;
  {
    Statement probe(db, "SELECT EXISTS(SELECT 1 FROM pages)");
    has_pages = probe.ok() && probe.Step() == SQLITE_ROW && probe.Int(0) != 0;
  }
  const char* pragmas = has_pages
                            ? "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA temp_store=MEMORY;"
                            : "PRAGMA journal_mode=DELETE; PRAGMA synchronous=NORMAL; PRAGMA temp_store=MEMORY;";
  if (auto s = Exec(db, path_, pragmas, "choosing the journal"); !s) return s;
  Statement version(db, "SELECT value FROM meta WHERE key='schema_version'");
  if (version.ok() && version.Step() == SQLITE_ROW && version.Text(0) != "1") {
    return core::MakeError("store " + path_ + ": schema version " + version.Text(0) +
                           " is not the one this torchdex reads (1)");
  }
  bool had_groups = false;
  {
    Statement probe(db, "SELECT 1 FROM sqlite_master WHERE name = 'page_groups'");
    had_groups = probe.ok() && probe.Step() == SQLITE_ROW;
  }
  if (auto s = Exec(db, path_, kSchema, "creating the schema"); !s) return s;
  if (!had_groups && has_pages) {
    // A store from before page_groups: derive them from the anchors once.
    if (auto s = Exec(db, path_,
                      "INSERT INTO page_groups SELECT page_id, backend, local, host, COUNT(*), "
                      "MIN(version) FROM anchors GROUP BY page_id, backend, local, host",
                      "deriving page groups");
        !s) {
      return s;
    }
  }
  // Holding the lock, no other crawl runs: a run still marked running was killed.
  return Exec(db, path_,
              "UPDATE runs SET status = 'interrupted', message = 'the crawl process died before "
              "it finished; nothing it wrote was kept' WHERE status = 'running'",
              "marking interrupted runs");
}

core::Status Store::LockForCrawl() {
  const std::string lock_path = path_ + ".lock";
  // Never through a link (issue 29, item 10: a symlink at <store>.lock had its target truncated
  // and the pid written there), and only a regular file of our own.
  const int fd = open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
  if (fd < 0) {
    const int error = errno;
    return core::MakeError("store " + path_ + ": cannot open lock file " + lock_path + ": " +
                           (error == ELOOP ? std::string("it is a symbolic link; remove it (torchdex-crawl makes its own)")
                                           : std::string(std::strerror(error))));
  }
  struct stat status {};
  if (fstat(fd, &status) != 0 || !S_ISREG(status.st_mode)) {
    close(fd);
    return core::MakeError("store " + path_ + ": lock file " + lock_path +
                           " is not a regular file (a FIFO, a device or a directory); remove it");
  }
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    char holder[32] = {0};
    const ssize_t n = pread(fd, holder, sizeof(holder) - 1, 0);
    close(fd);
    std::string who = n > 0 ? std::string(holder, static_cast<std::size_t>(n)) : "another process";
    while (!who.empty() && (who.back() == '\n' || who.back() == ' ')) who.pop_back();
    return core::MakeError("store " + path_ + " is being crawled by another torchdex-crawl (pid " +
                           who + "); wait for it to finish, or use another --store");
  }
  const std::string pid = std::to_string(getpid()) + "\n";
  if (ftruncate(fd, 0) == 0) {
    [[maybe_unused]] ssize_t written = pwrite(fd, pid.data(), pid.size(), 0);
  }
  impl_->lock_fd = fd;
  return {};
}

core::Expected<std::int64_t> Store::BeginRun(std::string_view started_at,
                                             std::string_view base_url,
                                             std::string_view channels) {
  sqlite3* db = impl_->db;
  // The run row is committed on its own, so a failed or killed run still leaves its trace.
  Statement insert(db,
                   "INSERT INTO runs(started_at, base_url, channels, status) "
                   "VALUES(?, ?, ?, 'running')");
  // A --base-url with user:password@ is recorded without it: the store is a file like any other.
  insert.Bind(1, started_at).Bind(2, core::StripCredentials(base_url)).Bind(3, channels);
  if (insert.Step() != SQLITE_DONE) return SqlError(db, path_, "recording the run");
  impl_->run_id = sqlite3_last_insert_rowid(db);
  if (auto s = Exec(db, path_, "BEGIN IMMEDIATE", "starting the crawl transaction"); !s) {
    return s.error();
  }
  return impl_->run_id;
}

core::Status Store::PutPage(const PageRecord& p) {
  // An upsert keeps the page's id, which its anchors refer to.
  static constexpr const char* kSql =
      "INSERT INTO pages(path, channel, backend, project, kind, status, etag, last_modified, "
      "shape, anchors, digest, fetched_at, changed_at, run_id) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?) "
      "ON CONFLICT(path) DO UPDATE SET channel = excluded.channel, backend = excluded.backend, "
      "project = excluded.project, kind = excluded.kind, status = excluded.status, "
      "etag = excluded.etag, last_modified = excluded.last_modified, shape = excluded.shape, "
      "anchors = excluded.anchors, digest = excluded.digest, fetched_at = excluded.fetched_at, "
      "changed_at = excluded.changed_at, run_id = excluded.run_id";
  Statement* s = impl_->Prepared(kSql);
  if (s == nullptr) return SqlError(impl_->db, path_, "preparing the page upsert");
  s->Bind(1, p.path).Bind(2, p.channel).Bind(3, p.backend).Bind(4, p.project);
  s->Bind(5, PageKindName(p.kind)).Bind(6, static_cast<std::int64_t>(p.status)).Bind(7, p.etag);
  s->Bind(8, p.last_modified).Bind(9, p.shape).Bind(10, p.anchors).Bind(11, p.digest);
  s->Bind(12, p.fetched_at).Bind(13, p.changed_at).Bind(14, impl_->run_id);
  if (s->Step() != SQLITE_DONE) return SqlError(impl_->db, path_, "storing page " + p.path);
  return {};
}

namespace {

// The columns of an anchor insert, and the rows of each statement that inserts them: a page's
// anchors go in by statements of 48 rows while 48 are left, then of 8, then one by one. 48 rows
// are 912 parameters, under the 999 that SQLite before 3.32 allowed a statement.
constexpr std::size_t kAnchorColumnCount = 19;
constexpr std::size_t kAnchorBatches[] = {48, 8, 1};

constexpr const char* kAnchorInsertHead =
    "INSERT INTO anchors(page_id, position, url, text, filename, project, version, local, "
    "build, tags, file_kind, sha256, metadata_sha256, has_metadata, requires_python, "
    "yanked, upload_time, host, backend) VALUES";

// "INSERT ... VALUES(?,...),(?,...)..." for each of kAnchorBatches: their addresses key the
// prepared statements, so they are built once.
const char* AnchorInsertSql(std::size_t batch_index) {
  static const auto sql = [] {
    std::array<std::string, std::size(kAnchorBatches)> texts;
    std::string row = "(?";
    for (std::size_t c = 1; c < kAnchorColumnCount; ++c) row += ",?";
    row += ")";
    for (std::size_t b = 0; b < texts.size(); ++b) {
      texts[b] = kAnchorInsertHead;
      for (std::size_t r = 0; r < kAnchorBatches[b]; ++r) texts[b] += (r == 0 ? "" : ",") + row;
    }
    return texts;
  }();
  return sql[batch_index].c_str();
}

// One row of a batch insert, its parameters from `first` on. sqlite3_reset keeps a statement's
// bindings, and every row of a page outlives its batches: a value equal to the one the same
// parameter holds (the row a batch before, `before`) is left bound to that row's string instead
// of bound again (a page's anchors share their project, backend, host, file kind and most empty
// columns: 1.8 million text bindings of a crawl instead of 3.5 million).
void BindAnchorRow(Statement& st, int first, std::int64_t page_id, std::int64_t position, const AnchorRow& a,
                   const AnchorRow* before) {
  auto bind = [&](int column, std::string_view value, std::string_view previous) {
    if (before == nullptr || value != previous) st.BindStatic(first + column, value);
  };
  auto text_of = [](const AnchorRow& row) {
    // The anchor text is almost always the filename: stored only when it differs.
    return row.text == row.filename ? std::string_view("") : std::string_view(row.text);
  };
  const AnchorRow& b = before != nullptr ? *before : a;
  if (before == nullptr) st.Bind(first + 1, page_id);
  st.Bind(first + 2, position).BindStatic(first + 3, a.url);
  bind(4, text_of(a), text_of(b));
  st.BindStatic(first + 5, a.filename);
  bind(6, a.project, b.project);
  bind(7, a.version, b.version);
  bind(8, a.local, b.local);
  bind(9, a.build, b.build);
  bind(10, a.tags, b.tags);
  bind(11, a.file_kind, b.file_kind);
  st.BindStatic(first + 12, a.sha256);
  bind(13, a.metadata_sha256, b.metadata_sha256);
  if (before == nullptr || a.has_metadata != b.has_metadata) st.Bind(first + 14, static_cast<std::int64_t>(a.has_metadata));
  bind(15, a.requires_python, b.requires_python);
  if (before == nullptr || a.yanked != b.yanked) {
    if (a.yanked) st.BindStatic(first + 16, *a.yanked);
    else st.BindNull(first + 16);
  }
  bind(17, a.upload_time, b.upload_time);
  bind(18, a.host, b.host);
  bind(19, a.backend, b.backend);
}

}  // namespace

core::Status Store::ReplaceAnchors(std::string_view page_path, std::span<const AnchorRow> anchors) {
  sqlite3* db = impl_->db;
  static constexpr const char* kId = "SELECT id FROM pages WHERE path = ?";
  static constexpr const char* kDelete = "DELETE FROM anchors WHERE page_id = ?";
  static constexpr const char* kDeleteGroups = "DELETE FROM page_groups WHERE page_id = ?";
  static constexpr const char* kInsertGroup =
      "INSERT INTO page_groups(page_id, backend, local, host, files, example_version) "
      "VALUES(?,?,?,?,?,?)";
  Statement* id_of = impl_->Prepared(kId);
  if (id_of == nullptr) return SqlError(db, path_, "preparing the page lookup");
  id_of->Bind(1, page_path);
  if (id_of->Step() != SQLITE_ROW) {
    return core::MakeError("store " + path_ + ": no page " + std::string(page_path) +
                           " to attach anchors to");
  }
  const std::int64_t page_id = id_of->Int(0);
  Statement* del = impl_->Prepared(kDelete);
  if (del == nullptr) return SqlError(db, path_, "preparing the anchor delete");
  del->Bind(1, page_id);
  if (del->Step() != SQLITE_DONE) return SqlError(db, path_, "replacing anchors");
  Statement* del_groups = impl_->Prepared(kDeleteGroups);
  if (del_groups == nullptr) return SqlError(db, path_, "preparing the group delete");
  del_groups->Bind(1, page_id);
  if (del_groups->Step() != SQLITE_DONE) return SqlError(db, path_, "replacing page groups");
  // What classification reads, kept per page as the page is stored: files by backend, local
  // label and host, with the smallest version (as SQL's MIN compares text) as the example.
  struct Group {
    std::int64_t files = 0;
    std::string_view example;
  };
  std::map<std::tuple<std::string_view, std::string_view, std::string_view>, Group> groups;
  for (const AnchorRow& a : anchors) {
    Group& g = groups[{a.backend, a.local, a.host}];
    if (g.files == 0 || std::string_view(a.version) < g.example) g.example = a.version;
    ++g.files;
  }
  Statement* insert_group = impl_->Prepared(kInsertGroup);
  if (insert_group == nullptr) return SqlError(db, path_, "preparing the group insert");
  for (const auto& [key, g] : groups) {
    insert_group->Bind(1, page_id).BindStatic(2, std::get<0>(key)).BindStatic(3, std::get<1>(key));
    insert_group->BindStatic(4, std::get<2>(key)).Bind(5, g.files).BindStatic(6, g.example);
    const int rc = insert_group->Step();
    sqlite3_reset(insert_group->get());
    if (rc != SQLITE_DONE) return SqlError(db, path_, "storing the groups of " + std::string(page_path));
  }
  // Rows go in by statements of several rows (kAnchorBatches): each execution of a statement
  // has its own cost (opening the table's cursor and seeking from the root, the statement's end
  // and reset), which a batch pays once for its rows (BindAnchorRow binds only what changed).
  std::size_t i = 0;
  for (std::size_t b = 0; b < std::size(kAnchorBatches); ++b) {
    const std::size_t rows = kAnchorBatches[b];
    if (anchors.size() - i < rows) continue;
    Statement* ins = impl_->Prepared(AnchorInsertSql(b));
    if (ins == nullptr) return SqlError(db, path_, "preparing the anchor insert");
    for (const std::size_t first_row = i; i + rows <= anchors.size(); i += rows) {
      for (std::size_t j = 0; j < rows; ++j) {
        BindAnchorRow(*ins, static_cast<int>(j * kAnchorColumnCount), page_id, static_cast<std::int64_t>(i + j),
                      anchors[i + j], i == first_row ? nullptr : &anchors[i + j - rows]);
      }
      const int rc = ins->Step();
      sqlite3_reset(ins->get());  // the bindings stay for the next rows
      if (rc != SQLITE_DONE) return SqlError(db, path_, "storing an anchor of " + std::string(page_path));
    }
  }
  return {};
}

core::Status Store::TouchPage(std::string_view page_path, int status, std::string_view fetched_at,
                              const Validators& validators) {
  static constexpr const char* kSql =
      "UPDATE pages SET status = ?, fetched_at = ?, run_id = ?, "
      "etag = CASE WHEN ? = '' THEN etag ELSE ? END, "
      "last_modified = CASE WHEN ? = '' THEN last_modified ELSE ? END WHERE path = ?";
  Statement* s = impl_->Prepared(kSql);
  if (s == nullptr) return SqlError(impl_->db, path_, "preparing the page update");
  s->Bind(1, static_cast<std::int64_t>(status)).Bind(2, fetched_at).Bind(3, impl_->run_id);
  s->Bind(4, validators.etag).Bind(5, validators.etag);
  s->Bind(6, validators.last_modified).Bind(7, validators.last_modified).Bind(8, page_path);
  if (s->Step() != SQLITE_DONE) return SqlError(impl_->db, path_, "updating page " + std::string(page_path));
  return {};
}

core::Status Store::PutBackend(const BackendRecord& b) {
  Statement s(impl_->db,
              "INSERT OR REPLACE INTO backends(channel, name, kind, toolkit, legacy, legacy_reason, "
              "state, discovered_from, projects, run_id) VALUES(?,?,?,?,?,?,?,?,?,?)");
  s.Bind(1, b.channel).Bind(2, b.name).Bind(3, b.kind).Bind(4, b.toolkit);
  s.Bind(5, static_cast<std::int64_t>(b.legacy)).Bind(6, b.legacy_reason).Bind(7, b.state);
  s.Bind(8, b.discovered_from).Bind(9, b.projects).Bind(10, impl_->run_id);
  if (s.Step() != SQLITE_DONE) return SqlError(impl_->db, path_, "storing backend " + b.name);
  return {};
}

core::Status Store::RemovePages(const std::vector<std::string>& page_paths) {
  sqlite3* db = impl_->db;
  static constexpr const char* kSql[] = {
      "DELETE FROM anchors WHERE page_id = (SELECT id FROM pages WHERE path = ?)",
      "DELETE FROM page_groups WHERE page_id = (SELECT id FROM pages WHERE path = ?)",
      "DELETE FROM variants_files WHERE path = ?",
      "DELETE FROM pages WHERE path = ?"};
  for (const std::string& path : page_paths) {
    for (const char* sql : kSql) {
      Statement* s = impl_->Prepared(sql);
      if (s == nullptr) return SqlError(db, path_, "preparing the removal of pages");
      s->Bind(1, path);
      if (s->Step() != SQLITE_DONE) return SqlError(db, path_, "removing page " + path);
    }
  }
  return {};
}

core::Status Store::RemoveBackend(std::string_view channel, std::string_view name) {
  Statement s(impl_->db, "DELETE FROM backends WHERE channel = ? AND name = ?");
  s.Bind(1, channel).Bind(2, name);
  if (s.Step() != SQLITE_DONE) {
    return SqlError(impl_->db, path_, "removing backend " + std::string(name));
  }
  return {};
}

core::Expected<std::string> Store::GetMeta(std::string_view key) {
  Statement s(impl_->db, "SELECT value FROM meta WHERE key = ?");
  if (!s.ok()) return SqlError(impl_->db, path_, "reading meta");
  s.Bind(1, key);
  const int rc = s.Step();
  if (rc == SQLITE_ROW) return s.Text(0);
  if (rc == SQLITE_DONE) return std::string();
  return SqlError(impl_->db, path_, "reading meta");
}

core::Status Store::PutMeta(std::string_view key, std::string_view value) {
  Statement s(impl_->db, "INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)");
  s.Bind(1, key).Bind(2, value);
  if (s.Step() != SQLITE_DONE) return SqlError(impl_->db, path_, "writing meta");
  return {};
}

core::Status Store::ReplaceProjects(std::string_view channel,
                                    const std::vector<ProjectRecord>& projects) {
  sqlite3* db = impl_->db;
  Statement del(db, "DELETE FROM projects WHERE channel = ?");
  del.Bind(1, channel);
  if (del.Step() != SQLITE_DONE) return SqlError(db, path_, "replacing the classification");
  Statement ins(db, "INSERT INTO projects(channel, name, class, reason) VALUES(?,?,?,?)");
  for (const ProjectRecord& p : projects) {
    ins.Bind(1, channel).Bind(2, p.name).Bind(3, p.cls).Bind(4, p.reason);
    const int rc = ins.Step();
    ins.Reset();
    if (rc != SQLITE_DONE) return SqlError(db, path_, "storing the class of " + p.name);
  }
  return {};
}

namespace {

core::Status FinishRun(sqlite3* db, const std::string& path, std::int64_t run_id,
                       std::string_view finished_at, const RunStats& st, std::string_view status,
                       std::string_view message) {
  Statement s(db,
              "UPDATE runs SET finished_at = ?, status = ?, pages_fetched = ?, "
              "pages_not_modified = ?, pages_absent = ?, pages_failed = ?, pages_changed = ?, "
              "anchors = ?, wire_bytes = ?, message = ? WHERE id = ?");
  s.Bind(1, finished_at).Bind(2, status).Bind(3, st.pages_fetched).Bind(4, st.pages_not_modified);
  s.Bind(5, st.pages_absent).Bind(6, st.pages_failed).Bind(7, st.pages_changed);
  s.Bind(8, st.anchors).Bind(9, static_cast<std::int64_t>(st.wire_bytes)).Bind(10, message);
  s.Bind(11, run_id);
  if (s.Step() != SQLITE_DONE) return SqlError(db, path, "recording the end of the run");
  return {};
}

}  // namespace

core::Status Store::CommitRun(std::string_view finished_at, const RunStats& stats) {
  impl_->prepared.clear();
  if (auto s = FinishRun(impl_->db, path_, impl_->run_id, finished_at, stats, "complete", ""); !s) {
    return s;
  }
  return Exec(impl_->db, path_, "COMMIT", "committing the crawl");
}

void Store::AbortRun(std::string_view finished_at, const RunStats& stats,
                     std::string_view message) {
  impl_->prepared.clear();
  (void)Exec(impl_->db, path_, "ROLLBACK", "rolling back the crawl");
  (void)FinishRun(impl_->db, path_, impl_->run_id, finished_at, stats, "failed", message);
}

core::Expected<std::unordered_map<std::string, Validators>> Store::LoadValidators() {
  std::unordered_map<std::string, Validators> out;
  Statement s(impl_->db, "SELECT path, etag, last_modified FROM pages WHERE status IN (200, 304)");
  if (!s.ok()) return SqlError(impl_->db, path_, "reading page validators");
  int rc;
  while ((rc = s.Step()) == SQLITE_ROW) out[s.Text(0)] = Validators{s.Text(1), s.Text(2)};
  if (rc != SQLITE_DONE) return SqlError(impl_->db, path_, "reading the store");
  return out;
}

core::Expected<std::unordered_map<std::string, PageRecord>> Store::LoadPages() {
  std::unordered_map<std::string, PageRecord> out;
  const std::string sql = std::string("SELECT ") + kPageColumns + " FROM pages";
  Statement s(impl_->db, sql.c_str());
  if (!s.ok()) return SqlError(impl_->db, path_, "reading pages");
  int rc;
  while ((rc = s.Step()) == SQLITE_ROW) {
    PageRecord p = ReadPage(s);
    std::string key = p.path;
    out.emplace(std::move(key), std::move(p));
  }
  if (rc != SQLITE_DONE) return SqlError(impl_->db, path_, "reading the store");
  return out;
}

core::Expected<std::optional<PageRecord>> Store::GetPage(std::string_view page_path) {
  static const std::string kSql = std::string("SELECT ") + kPageColumns + " FROM pages WHERE path = ?";
  Statement* s = impl_->Prepared(kSql.c_str());
  if (s == nullptr) return SqlError(impl_->db, path_, "reading a page");
  s->Bind(1, page_path);
  if (const int rc = s->Step(); rc != SQLITE_ROW) {
    if (rc == SQLITE_DONE) return std::optional<PageRecord>();
    return SqlError(impl_->db, path_, "reading page " + std::string(page_path));
  }
  return std::optional<PageRecord>(ReadPage(*s));
}

core::Expected<AnchorRows> Store::AnchorsOf(std::string_view page_path) {
  AnchorRows out;
  const std::string sql =
      std::string("SELECT ") + kAnchorColumns +
      " FROM anchors JOIN pages ON pages.id = anchors.page_id WHERE pages.path = ? "
      "ORDER BY anchors.position";
  Statement s(impl_->db, sql.c_str());
  if (!s.ok()) return SqlError(impl_->db, path_, "reading anchors");
  s.Bind(1, page_path);
  int rc;
  while ((rc = s.Step()) == SQLITE_ROW) out.push_back(ReadAnchor(s, 0));
  if (rc != SQLITE_DONE) return SqlError(impl_->db, path_, "reading the store");
  return out;
}

core::Expected<std::vector<BackendRecord>> Store::Backends(std::string_view channel) {
  std::vector<BackendRecord> out;
  Statement s(impl_->db,
              "SELECT channel, name, kind, toolkit, legacy, legacy_reason, state, discovered_from, "
              "projects FROM backends WHERE channel = ? ORDER BY name");
  if (!s.ok()) return SqlError(impl_->db, path_, "reading backends");
  s.Bind(1, channel);
  int rc;
  while ((rc = s.Step()) == SQLITE_ROW) {
    BackendRecord b;
    b.channel = s.Text(0);
    b.name = s.Text(1);
    b.kind = s.Text(2);
    b.toolkit = s.Text(3);
    b.legacy = s.Int(4) != 0;
    b.legacy_reason = s.Text(5);
    b.state = s.Text(6);
    b.discovered_from = s.Text(7);
    b.projects = s.Int(8);
    out.push_back(std::move(b));
  }
  if (rc != SQLITE_DONE) return SqlError(impl_->db, path_, "reading the store");
  return out;
}

core::Expected<std::vector<ProjectRecord>> Store::Projects(std::string_view channel) {
  std::vector<ProjectRecord> out;
  Statement s(impl_->db,
              "SELECT channel, name, class, reason FROM projects WHERE channel = ? ORDER BY name");
  if (!s.ok()) return SqlError(impl_->db, path_, "reading projects");
  s.Bind(1, channel);
  int rc;
  while ((rc = s.Step()) == SQLITE_ROW) out.push_back(ProjectRecord{s.Text(0), s.Text(1), s.Text(2), s.Text(3)});
  if (rc != SQLITE_DONE) return SqlError(impl_->db, path_, "reading the store");
  return out;
}

core::Status Store::ForEachProjectWheel(std::string_view channel,
                                        const std::function<void(const ListedWheel&)>& visit) {
  Statement s(impl_->db,
              "SELECT pages.project, pages.backend, anchors.backend, anchors.version, anchors.tags "
              "FROM anchors JOIN pages ON pages.id = anchors.page_id "
              "WHERE pages.channel = ? AND pages.kind = 'project' "
              "AND anchors.file_kind IN ('wheel', 'variant-wheel') AND anchors.version != ''");
  if (!s.ok()) return SqlError(impl_->db, path_, "reading project wheels");
  s.Bind(1, channel);
  auto view = [&](int col) {
    const unsigned char* text = sqlite3_column_text(s.get(), col);
    return text == nullptr
               ? std::string_view()
               : std::string_view(reinterpret_cast<const char*>(text),
                                  static_cast<std::size_t>(sqlite3_column_bytes(s.get(), col)));
  };
  int rc;
  while ((rc = s.Step()) == SQLITE_ROW) {
    visit(ListedWheel{view(0), view(1), view(2), view(3), view(4)});
  }
  if (rc != SQLITE_DONE) return SqlError(impl_->db, path_, "reading the store");
  return {};
}

core::Expected<std::vector<ListedAnchor>> Store::DiscoveryAnchors(std::string_view channel) {
  std::vector<ListedAnchor> out;
  const std::string sql = std::string("SELECT pages.project, pages.backend, ") + kAnchorColumns +
                          " FROM anchors JOIN pages ON pages.id = anchors.page_id "
                          "WHERE pages.channel = ? AND pages.kind = 'discovery' "
                          "ORDER BY pages.project, pages.path, anchors.position";
  Statement s(impl_->db, sql.c_str());
  if (!s.ok()) return SqlError(impl_->db, path_, "reading discovery anchors");
  s.Bind(1, channel);
  int rc;
  while ((rc = s.Step()) == SQLITE_ROW) {
    ListedAnchor listed{s.Text(1), ReadAnchor(s, 2)};
    listed.row.project = s.Text(0);
    out.push_back(std::move(listed));
  }
  if (rc != SQLITE_DONE) return SqlError(impl_->db, path_, "reading the store");
  return out;
}

core::Expected<std::vector<std::pair<std::string, std::string>>> Store::AbsentProjectPages(
    std::string_view channel) {
  std::vector<std::pair<std::string, std::string>> out;
  Statement s(impl_->db,
              "SELECT backend, project FROM pages WHERE channel = ? AND kind = 'project' "
              "AND status >= 400 AND status < 500 ORDER BY backend, project");
  if (!s.ok()) return SqlError(impl_->db, path_, "reading absent pages");
  s.Bind(1, channel);
  int rc;
  while ((rc = s.Step()) == SQLITE_ROW) out.emplace_back(s.Text(0), s.Text(1));
  if (rc != SQLITE_DONE) return SqlError(impl_->db, path_, "reading the store");
  return out;
}

core::Expected<std::vector<FileGroup>> Store::ProjectFileGroups(std::string_view channel) {
  std::vector<FileGroup> out;
  Statement s(impl_->db,
              "SELECT pages.project, g.backend, g.local, g.host, SUM(g.files), "
              "MIN(g.example_version) FROM page_groups g JOIN pages ON pages.id = g.page_id "
              "WHERE pages.channel = ? AND pages.kind = 'project' GROUP BY 1, 2, 3, 4 "
              "ORDER BY 1, 2, 3, 4");
  if (!s.ok()) return SqlError(impl_->db, path_, "grouping project files");
  s.Bind(1, channel);
  int rc;
  while ((rc = s.Step()) == SQLITE_ROW) {
    out.push_back(FileGroup{s.Text(0), s.Text(1), s.Text(2), s.Text(3), s.Int(4), s.Text(5)});
  }
  if (rc != SQLITE_DONE) return SqlError(impl_->db, path_, "reading the store");
  return out;
}

core::Expected<std::vector<std::pair<std::string, std::string>>> Store::ProjectVersions(
    std::string_view channel) {
  std::vector<std::pair<std::string, std::string>> out;
  Statement s(impl_->db,
              "SELECT DISTINCT pages.project, anchors.version FROM anchors JOIN pages ON "
              "pages.id = anchors.page_id WHERE pages.channel = ? AND pages.kind = 'project' "
              "AND anchors.version != '' ORDER BY 1, 2");
  if (!s.ok()) return SqlError(impl_->db, path_, "reading project versions");
  s.Bind(1, channel);
  int rc;
  while ((rc = s.Step()) == SQLITE_ROW) out.emplace_back(s.Text(0), s.Text(1));
  if (rc != SQLITE_DONE) return SqlError(impl_->db, path_, "reading the store");
  return out;
}

core::Expected<std::vector<std::pair<std::string, std::string>>> Store::ListedProjects(
    std::string_view channel) {
  std::vector<std::pair<std::string, std::string>> out;
  Statement s(impl_->db,
              "SELECT pages.backend, anchors.project FROM anchors JOIN pages ON pages.id = "
              "anchors.page_id WHERE pages.channel = ? AND pages.kind = 'backend-list' "
              "AND anchors.project != '' ORDER BY 1, 2");
  if (!s.ok()) return SqlError(impl_->db, path_, "reading project lists");
  s.Bind(1, channel);
  int rc;
  while ((rc = s.Step()) == SQLITE_ROW) out.emplace_back(s.Text(0), s.Text(1));
  if (rc != SQLITE_DONE) return SqlError(impl_->db, path_, "reading the store");
  return out;
}

core::Expected<std::string> Store::ChannelUpdatedAt(std::string_view channel) {
  Statement s(impl_->db, "SELECT COALESCE(MAX(changed_at), '') FROM pages WHERE channel = ?");
  if (!s.ok()) return SqlError(impl_->db, path_, "reading the channel's last change");
  s.Bind(1, channel);
  if (s.Step() != SQLITE_ROW) return SqlError(impl_->db, path_, "reading the channel's last change");
  return s.Text(0);
}

core::Status Store::PutVariantsFile(const VariantsFileRecord& f) {
  Statement s(impl_->db,
              "INSERT OR REPLACE INTO variants_files(path, channel, backend, project, version, "
              "schema, sha256, json, run_id) VALUES(?,?,?,?,?,?,?,?,?)");
  s.Bind(1, f.path).Bind(2, f.channel).Bind(3, f.backend).Bind(4, f.project).Bind(5, f.version);
  s.Bind(6, f.schema).Bind(7, f.sha256).Bind(8, f.json).Bind(9, impl_->run_id);
  if (s.Step() != SQLITE_DONE) return SqlError(impl_->db, path_, "storing variants file " + f.path);
  return {};
}

core::Expected<std::vector<VariantsFileRecord>> Store::VariantsFiles(std::string_view channel) {
  std::vector<VariantsFileRecord> out;
  {
    // A store a crawl of an older torchdex made, opened read-only, has no such table: no file.
    Statement exists(impl_->db,
                     "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'variants_files'");
    if (!exists.ok()) return SqlError(impl_->db, path_, "reading the schema");
    if (exists.Step() != SQLITE_ROW) return out;
  }
  Statement s(impl_->db,
              "SELECT v.path, v.channel, v.backend, v.project, v.version, v.schema, v.sha256, v.json "
              "FROM variants_files v JOIN pages ON pages.path = v.path WHERE v.channel = ? "
              "AND pages.status IN (200, 304) ORDER BY v.path");
  if (!s.ok()) return SqlError(impl_->db, path_, "reading variants files");
  s.Bind(1, channel);
  int rc;
  while ((rc = s.Step()) == SQLITE_ROW) {
    out.push_back(VariantsFileRecord{s.Text(0), s.Text(1), s.Text(2), s.Text(3), s.Text(4),
                                     s.Text(5), s.Text(6), s.Text(7)});
  }
  if (rc != SQLITE_DONE) return SqlError(impl_->db, path_, "reading the store");
  return out;
}

core::Expected<std::vector<VariantWheelRow>> Store::VariantWheels(std::string_view channel) {
  std::vector<VariantWheelRow> out;
  Statement s(impl_->db,
              "SELECT pages.backend, pages.project, anchors.version, anchors.tags, anchors.filename "
              "FROM anchors JOIN pages ON pages.id = anchors.page_id WHERE pages.channel = ? "
              "AND pages.kind = 'project' AND anchors.file_kind = 'variant-wheel' "
              "ORDER BY 1, 2, 3, 5");
  if (!s.ok()) return SqlError(impl_->db, path_, "reading variant wheels");
  s.Bind(1, channel);
  int rc;
  while ((rc = s.Step()) == SQLITE_ROW) {
    out.push_back(VariantWheelRow{s.Text(0), s.Text(1), s.Text(2), s.Text(3), s.Text(4)});
  }
  if (rc != SQLITE_DONE) return SqlError(impl_->db, path_, "reading the store");
  return out;
}

core::Expected<std::vector<RunRecord>> Store::Runs() {
  std::vector<RunRecord> out;
  Statement s(impl_->db,
              "SELECT id, started_at, COALESCE(finished_at, ''), base_url, channels, status, "
              "pages_fetched, pages_not_modified, pages_absent, pages_failed, pages_changed, "
              "anchors, wire_bytes, message FROM runs ORDER BY id");
  if (!s.ok()) return SqlError(impl_->db, path_, "reading runs");
  int rc;
  while ((rc = s.Step()) == SQLITE_ROW) {
    RunRecord r;
    r.id = s.Int(0);
    r.started_at = s.Text(1);
    r.finished_at = s.Text(2);
    r.base_url = s.Text(3);
    r.channels = s.Text(4);
    r.status = s.Text(5);
    r.stats.pages_fetched = s.Int(6);
    r.stats.pages_not_modified = s.Int(7);
    r.stats.pages_absent = s.Int(8);
    r.stats.pages_failed = s.Int(9);
    r.stats.pages_changed = s.Int(10);
    r.stats.anchors = s.Int(11);
    r.stats.wire_bytes = static_cast<std::uint64_t>(s.Int(12));
    r.message = s.Text(13);
    out.push_back(std::move(r));
  }
  if (rc != SQLITE_DONE) return SqlError(impl_->db, path_, "reading the store");
  return out;
}

core::Expected<std::string> Store::ChannelFingerprint(std::string_view channel) {
  // Each value with its length: no two different tables can hash alike by shifting a separator.
  std::string data;
  auto add = [&data](std::string_view value) {
    data.append(std::to_string(value.size())).push_back(':');
    data.append(value);
  };
  static constexpr const char* kQueries[] = {
      // 200 and 304 are the same page as stored; 403 and 404 are absent pages (exported).
      "SELECT path, kind, backend, project, CASE WHEN status IN (200, 304) THEN 'page' ELSE "
      "status END, anchors, digest, changed_at FROM pages WHERE channel = ? ORDER BY path",
      "SELECT name, kind, toolkit, legacy, legacy_reason, state, discovered_from, projects "
      "FROM backends WHERE channel = ? ORDER BY name",
      "SELECT name, class, reason FROM projects WHERE channel = ? ORDER BY name"};
  for (const char* sql : kQueries) {
    Statement s(impl_->db, sql);
    if (!s.ok()) return SqlError(impl_->db, path_, "reading the channel's fingerprint");
    s.Bind(1, channel);
    const int columns = sqlite3_column_count(s.get());
    int rc;
    while ((rc = s.Step()) == SQLITE_ROW) {
      for (int c = 0; c < columns; ++c) {
        const unsigned char* text = sqlite3_column_text(s.get(), c);
        add(text == nullptr ? std::string_view("\x01null")
                            : std::string_view(reinterpret_cast<const char*>(text),
                                               static_cast<std::size_t>(sqlite3_column_bytes(s.get(), c))));
      }
    }
    if (rc != SQLITE_DONE) return SqlError(impl_->db, path_, "reading the store");
    data.push_back('|');
  }
  auto base = LastBaseUrl();
  if (!base) return base.error();
  add(*base);
  return core::Sha256Hex(data);
}

core::Expected<std::string> Store::LastBaseUrl() {
  Statement s(impl_->db,
              "SELECT base_url FROM runs WHERE status = 'complete' ORDER BY id DESC LIMIT 1");
  if (!s.ok()) return SqlError(impl_->db, path_, "reading runs");
  if (const int rc = s.Step(); rc != SQLITE_ROW) {
    if (rc == SQLITE_DONE) return std::string();
    return SqlError(impl_->db, path_, "reading runs");
  }
  return s.Text(0);
}

}  // namespace torchdex::catalogue
