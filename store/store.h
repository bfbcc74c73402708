// The SQLite store behind the catalogue: every page crawled with its validators, every anchor
// with what its filename says, the backends found, the classification, and each crawl run.
// Schema: docs/catalogue.md. A crawl writes in one transaction, so a crawl that fails or is
// killed leaves the last complete catalogue as it was.
#ifndef TORCHDEX_STORE_STORE_H_
#define TORCHDEX_STORE_STORE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <memory_resource>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/expected.h"

namespace torchdex::catalogue {

/// kVariantsJson: a `{name}-{version}-variants.json` a variant index's project page links
/// (PEP 825); its content is in the variants table (VariantsFileRecord).
enum class PageKind : std::uint8_t { kChannelRoot, kBackendList, kProject, kDiscovery, kVariantsJson };
std::string_view PageKindName(PageKind kind);

struct PageRecord {
  std::string path;     // relative to the family's base URL: "", "cu128/", "cu128/torch/"
  std::string channel;  // "stable"
  std::string backend;  // empty for channel roots and discovery pages
  std::string project;  // empty for list pages
  PageKind kind = PageKind::kProject;
  int status = 0;  // HTTP status of the last answer (200, 304, 403, 404)
  std::string etag;
  std::string last_modified;
  std::string shape;  // index::PageShapeName
  std::int64_t anchors = 0;
  std::string digest;      // of the anchors: equal digest, same content (the TIMESTAMP aside)
  std::string fetched_at;  // RFC 3339, when last asked
  std::string changed_at;  // RFC 3339, when its anchors last changed
};

/// One anchor of a page, with what its URL and filename say. The same file can be listed on
/// many pages (root wheels appear in every backend); `url` is the file's identity.
///
/// The strings take an allocator: a crawl makes a page's rows on a parser thread into one arena
/// (`PageRows`) and the store's thread frees the whole page at once, instead of a dozen
/// allocations an anchor freed one by one on another thread than made them. A row built
/// without one uses the heap, as a std::string would.
struct AnchorRow {
  using allocator_type = std::pmr::polymorphic_allocator<char>;
  using String = std::pmr::string;

  AnchorRow() = default;
  explicit AnchorRow(const allocator_type& arena);
  AnchorRow(const AnchorRow& other, const allocator_type& arena);
  AnchorRow(AnchorRow&& other, const allocator_type& arena);
  AnchorRow(const AnchorRow&) = default;
  AnchorRow(AnchorRow&&) noexcept = default;
  AnchorRow& operator=(const AnchorRow&) = default;
  AnchorRow& operator=(AnchorRow&&) = default;

  String url;  // relative to the base URL when under it; absolute for other hosts
  String text;
  String filename;  // percent-decoded last path segment
  String project;   // normalised
  String version;   // normal form; empty when the filename says none
  String local;     // local label ("cu128"), empty when none
  String build;     // wheel build tag
  String tags;      // wheel tag triple(s) as in the filename: "cp312-cp312-manylinux_2_28_x86_64"
  /// "wheel", "variant-wheel" (PEP 825: a label after the platform tag; `tags` are the plain
  /// wheel's), "variants-json" (a version's `{name}-{version}-variants.json`), "sdist", "other"
  String file_kind;
  String sha256;
  String metadata_sha256;
  bool has_metadata = false;
  String requires_python;
  std::optional<String> yanked;
  String upload_time;
  String host;     // empty when relative to the base URL
  String backend;  // the backend the file belongs to (href path or local label), or empty
};

/// A page's rows, their strings in whatever arena the vector's allocator names (the heap by
/// default).
using AnchorRows = std::pmr::vector<AnchorRow>;

/// A page's rows with the arena that holds them: moving it moves the rows, and destroying it
/// frees every string of the page at once.
struct PageRows {
  /// An arena for about `anchors` rows.
  explicit PageRows(std::size_t anchors);
  PageRows(PageRows&&) = default;
  /// Not assignable: the rows' allocator stays with the arena it was made with, which an
  /// assignment would free under them.
  PageRows& operator=(PageRows&&) = delete;
  std::unique_ptr<std::pmr::monotonic_buffer_resource> arena;  // first: outlives `rows`
  AnchorRows rows;
};

/// A wheel of a project page, as the export reads it: root files are listed on every backend's
/// page; `backend` is the backend the file itself belongs to, `page_backend` the page's.
struct ListedWheel {
  std::string_view project;  // the page's project, even when the filename spells it otherwise
  std::string_view page_backend;
  std::string_view backend;
  std::string_view version;
  std::string_view tags;
};

/// An anchor of a flat discovery page ("torch/" at the channel root) with its page's backend.
struct ListedAnchor {
  std::string page_backend;
  AnchorRow row;
};

/// Files of a channel's project pages, grouped by what classification looks at.
struct FileGroup {
  std::string project;
  std::string backend;  // the files' own backend (href path or label), empty for root/other hosts
  std::string local;    // local label
  std::string host;     // empty when under the index base
  std::int64_t files = 0;
  std::string example_version;
};

struct BackendRecord {
  std::string channel;
  std::string name;
  std::string kind;
  std::string toolkit;
  bool legacy = false;
  std::string legacy_reason;
  std::string state;            // "ok", "empty" (listed, pages missing), "skipped" (legacy)
  std::string discovered_from;  // "root index", "links of torch/"
  std::int64_t projects = 0;
};

struct ProjectRecord {
  std::string channel;
  std::string name;
  std::string cls;  // routed, companion, mirror, stale
  std::string reason;
};

/// A variants.json as the crawl read it (PEP 825): its page is `path`; the canonical JSON
/// (catalogue::VariantsJsonToString) of a file that parsed and passed the checks.
struct VariantsFileRecord {
  std::string path;  // relative to the base URL: "test/variant/torch-2.10.0-variants.json"
  std::string channel;
  std::string backend;  // the variant index: "variant"
  std::string project;
  std::string version;
  std::string schema;  // "v0.0.3", "v0.1.1"
  std::string sha256;  // of the bytes served
  std::string json;    // canonical
};

/// A wheel with a variant label on a project page of a channel.
struct VariantWheelRow {
  std::string page_backend;
  std::string project;
  std::string version;
  std::string tags;      // the plain wheel's tag triple
  std::string filename;  // with the label: "torch-2.10.0-py3-none-any-cuda12.8.whl"
};

struct RunStats {
  std::int64_t pages_fetched = 0;
  std::int64_t pages_not_modified = 0;
  std::int64_t pages_absent = 0;
  std::int64_t pages_failed = 0;
  std::int64_t pages_changed = 0;
  std::int64_t anchors = 0;
  std::uint64_t wire_bytes = 0;
};

struct RunRecord {
  std::int64_t id = 0;
  std::string started_at;
  std::string finished_at;
  std::string base_url;
  std::string channels;
  std::string status;  // running, complete, failed
  RunStats stats;
  std::string message;
};

struct Validators {
  std::string etag;
  std::string last_modified;
};

/// How a store is opened: by a crawl (the only writer) or by a reader (an export, a test).
enum class StoreAccess : std::uint8_t {
  /// Read-only: writes nothing (no schema, no journal change), so it never waits for a crawl in
  /// progress (a WAL reader sees the last committed state). The store must exist.
  kRead,
  /// Takes the crawl lock before touching the database (an flock on "<store>.lock", released by
  /// the kernel if the process dies; fails naming the holder's pid), then creates the store when
  /// missing, chooses the journal, creates the schema, and marks runs of a killed crawl
  /// interrupted.
  kCrawl,
};

/// One SQLite connection, opened without SQLite's per-call mutex: use a Store from one thread at
/// a time (a crawl hands every store call to its store thread).
class Store {
 public:
  static core::Expected<std::unique_ptr<Store>> Open(const std::string& path, StoreAccess access);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  const std::string& path() const { return path_; }

  // --- a crawl run: Begin, then writes, then Commit or Abort ---
  core::Expected<std::int64_t> BeginRun(std::string_view started_at, std::string_view base_url,
                                        std::string_view channels);
  core::Status PutPage(const PageRecord& page);
  /// Replaces the anchors stored for `page_path`.
  core::Status ReplaceAnchors(std::string_view page_path, std::span<const AnchorRow> anchors);
  /// Marks a page as seen in this run without touching its content (304, same digest).
  core::Status TouchPage(std::string_view page_path, int status, std::string_view fetched_at,
                         const Validators& validators);
  core::Status PutBackend(const BackendRecord& backend);
  /// Deletes these pages, their anchors and page groups (projects that left the index). A crawl
  /// knows which pages it asked, so nothing has to be written to the pages it did not.
  core::Status RemovePages(const std::vector<std::string>& page_paths);
  /// Deletes one backend record of a channel (a backend that left the index).
  core::Status RemoveBackend(std::string_view channel, std::string_view name);
  /// A value of the meta table ("" when unset), and setting one (within the run).
  core::Expected<std::string> GetMeta(std::string_view key);
  core::Status PutMeta(std::string_view key, std::string_view value);
  core::Status ReplaceProjects(std::string_view channel, const std::vector<ProjectRecord>& projects);
  /// Stores (replaces) what a variants.json says; its page must be stored (PutPage) first.
  core::Status PutVariantsFile(const VariantsFileRecord& file);
  core::Status CommitRun(std::string_view finished_at, const RunStats& stats);
  /// Rolls back everything the run wrote and records it as failed with `message`.
  void AbortRun(std::string_view finished_at, const RunStats& stats, std::string_view message);

  // --- reading ---
  core::Expected<std::unordered_map<std::string, Validators>> LoadValidators();
  /// Every stored page by path, read in one query (a crawl consults it for each answer).
  core::Expected<std::unordered_map<std::string, PageRecord>> LoadPages();
  core::Expected<std::optional<PageRecord>> GetPage(std::string_view path);
  core::Expected<AnchorRows> AnchorsOf(std::string_view page_path);
  core::Expected<std::vector<BackendRecord>> Backends(std::string_view channel);
  core::Expected<std::vector<ProjectRecord>> Projects(std::string_view channel);
  /// Calls `visit` for every wheel with a version on the channel's project pages, straight from
  /// the query (no list of 300,000 anchors is built: an export holds only the catalogue). The
  /// views live until `visit` returns.
  core::Status ForEachProjectWheel(std::string_view channel,
                                   const std::function<void(const ListedWheel&)>& visit);
  /// Every anchor of the channel's flat discovery pages ("torch/" at the channel root, which
  /// links the wheels of every backend); `row.project` is the page's project.
  core::Expected<std::vector<ListedAnchor>> DiscoveryAnchors(std::string_view channel);
  /// (backend, project) of every project page of the channel that a backend's list names but
  /// that answered 4xx (missing from the index or the mirror).
  core::Expected<std::vector<std::pair<std::string, std::string>>> AbsentProjectPages(
      std::string_view channel);
  /// The channel's project files grouped by (project, backend, local label, host): a few
  /// thousand rows instead of 300,000 anchors.
  core::Expected<std::vector<FileGroup>> ProjectFileGroups(std::string_view channel);
  /// Distinct (project, version) pairs of the channel's project files.
  core::Expected<std::vector<std::pair<std::string, std::string>>> ProjectVersions(
      std::string_view channel);
  /// (backend, project) for every entry of the channel's backend project lists.
  core::Expected<std::vector<std::pair<std::string, std::string>>> ListedProjects(
      std::string_view channel);
  /// The newest change of any page of the channel (RFC 3339), empty when none.
  core::Expected<std::string> ChannelUpdatedAt(std::string_view channel);
  core::Expected<std::vector<RunRecord>> Runs();
  /// The channel's variants.json files whose page answered 200 or 304, by path.
  core::Expected<std::vector<VariantsFileRecord>> VariantsFiles(std::string_view channel);
  /// The wheels with a variant label of the channel's project pages.
  core::Expected<std::vector<VariantWheelRow>> VariantWheels(std::string_view channel);
  /// A digest (SHA-256, hex) of everything an export of `channel` reads: each page's path,
  /// kind, backend, project, status, anchor count, anchor digest and change time, the backends,
  /// the classification and the base URL of the last complete run. Equal fingerprints, equal
  /// exports (from the same torchdex): reads the pages, not their 300,000 anchors.
  core::Expected<std::string> ChannelFingerprint(std::string_view channel);
  /// The base URL of the last complete run, empty when none.
  core::Expected<std::string> LastBaseUrl();

  struct Impl;

 private:
  explicit Store(std::string path);
  /// The flock of StoreAccess::kCrawl; fails, naming the holder's pid, when another crawl holds it.
  core::Status LockForCrawl();
  /// kCrawl's work once locked: journal, schema, page groups of older stores, interrupted runs.
  core::Status PrepareForCrawl();
  std::string path_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace torchdex::catalogue

#endif  // TORCHDEX_STORE_STORE_H_
