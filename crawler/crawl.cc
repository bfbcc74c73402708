#include "crawler/crawl.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <ctime>
#include <deque>
#include <mutex>
#include <set>
#include <thread>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "catalogue/variants.h"
#include "core/url.h"
#include "core/name.h"
#include "core/sha256.h"
#include "core/version.h"
#include "core/wheel.h"
#include "index/url.h"

namespace torchdex::crawler {
namespace {

using catalogue::AnchorRow;
using catalogue::AnchorRows;
using catalogue::PageRows;
using catalogue::BackendRecord;
using catalogue::PageKind;
using catalogue::PageRecord;

struct PageTask {
  std::string path;  // relative to the base URL
  std::string channel;
  std::string channel_path;
  PageKind kind = PageKind::kProject;
  std::string backend;
  std::string project;
  // A variants.json (kVariantsJson): the version it describes, the sha256 its link gave ("" for
  // none), the labels of that version's wheels on the page, and the page that links it.
  std::string version = {};
  std::string sha256 = {};
  std::vector<std::string> labels = {};
  std::string linked_from = {};
};

// One thread that runs posted tasks in order: the store's writes and the parsing of project
// pages. Posting blocks while the bodies waiting in the queue exceed a bound, so a slow disk
// slows the fetch instead of filling memory.
class Worker {
 public:
  // What may wait in one queue: a few pages' bodies or rows (the largest page of the real
  // index is about 4 MB), so a full crawl's peak stays well under its 150 MB budget.
  static constexpr std::size_t kMaxQueuedBytes = 12u << 20;

  Worker() : thread_([this] { Loop(); }) {}
  ~Worker() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  void Post(std::function<void()> task, std::size_t bytes) {
    std::unique_lock<std::mutex> lock(mutex_);
    room_.wait(lock, [&] { return queued_bytes_ == 0 || queued_bytes_ + bytes <= kMaxQueuedBytes; });
    queued_bytes_ += bytes;
    queue_.emplace_back(std::move(task), bytes);
    wake_.notify_all();
  }

  /// Runs `task` on the worker after everything posted before it, and waits for it.
  void Call(const std::function<void()>& task) {
    bool done = false;
    Post([&] {
      task();
      std::lock_guard<std::mutex> lock(mutex_);
      done = true;
      room_.notify_all();
    }, 0);
    std::unique_lock<std::mutex> lock(mutex_);
    room_.wait(lock, [&] { return done; });
  }

  /// Waits until every posted task has run.
  void Drain() {
    std::unique_lock<std::mutex> lock(mutex_);
    room_.wait(lock, [&] { return queue_.empty() && !busy_; });
  }

 private:
  void Loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (true) {
      wake_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stop_ and nothing left
      auto [task, bytes] = std::move(queue_.front());
      queue_.pop_front();
      busy_ = true;
      lock.unlock();
      task();
      lock.lock();
      busy_ = false;
      queued_bytes_ -= bytes;
      room_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;  // the worker waits for tasks
  std::condition_variable room_;  // posters wait for room, callers for completion
  std::deque<std::pair<std::function<void()>, std::size_t>> queue_;
  std::size_t queued_bytes_ = 0;
  bool busy_ = false;
  bool stop_ = false;
  std::thread thread_;
};

struct ChannelState {
  std::string name;
  std::string path;
  std::map<std::string, BackendRecord> backends;
  bool root_seen = false;
};

// FNV-1a over the fields that make a page's content: equal digests, same anchors (the
// generator's hourly TIMESTAMP line changes the bytes, not this).
class Digest {
 public:
  void Add(std::string_view s) {
    for (unsigned char c : s) {
      hash_ ^= c;
      hash_ *= 1099511628211ull;
    }
    hash_ ^= 0xff;
    hash_ *= 1099511628211ull;
  }
  std::string Hex() const {
    char out[17];
    std::snprintf(out, sizeof(out), "%016llx", static_cast<unsigned long long>(hash_));
    return out;
  }

 private:
  std::uint64_t hash_ = 14695981039346656037ull;
};

std::string DigestOf(std::span<const AnchorRow> rows) {
  Digest d;
  for (const AnchorRow& a : rows) {
    for (std::string_view field : {std::string_view(a.url), std::string_view(a.text),
                                   std::string_view(a.sha256), std::string_view(a.metadata_sha256),
                                   std::string_view(a.requires_python),
                                   a.yanked ? std::string_view(*a.yanked) : std::string_view("\x01"),
                                   std::string_view(a.upload_time)}) {
      d.Add(field);
    }
    d.Add(a.has_metadata ? "m" : "-");
  }
  return d.Hex();
}

// What rows hold in memory, their strings' allocations included: what bounds the store
// thread's queue (a flat guess of 256 bytes a row let it hold twice its bound under load).
std::size_t RowBytes(const AnchorRows& rows) {
  std::size_t bytes = rows.capacity() * sizeof(AnchorRow);
  auto heap = [](const AnchorRow::String& s) { return s.capacity() > 15 ? s.capacity() + 1 : 0; };
  for (const AnchorRow& a : rows) {
    for (const AnchorRow::String* s :
         {&a.url, &a.text, &a.filename, &a.project, &a.version, &a.local, &a.build, &a.tags,
          &a.file_kind, &a.sha256, &a.metadata_sha256, &a.requires_python, &a.upload_time,
          &a.host, &a.backend}) {
      bytes += heap(*s);
    }
    if (a.yanked) bytes += heap(*a.yanked);
  }
  return bytes;
}

// Where a page's relative links point from: the URL it was served from after redirects, not
// the one asked (issue 13 item 22).
const std::string& PageUrl(const index::FetchResult& result) {
  return result.effective_url.empty() ? result.request.url : result.effective_url;
}

std::string_view Dirname(std::string_view path) {
  // "cu128/" -> "cu128"; "cu128/torch/" -> "torch"
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  const std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// What RelativeToBase needs of the base and the family, worked out once for a page's anchors
// instead of once an anchor.
struct BaseParts {
  BaseParts(const catalogue::IndexFamily& family, std::string_view base_url)
      : family(family), origin(index::UrlOrigin(base_url)), path(index::UrlPath(base_url)),
        family_path(index::UrlPath(family.base_url)) {}
  const catalogue::IndexFamily& family;
  std::string_view origin, path, family_path;

  // The path of `url` relative to the index base when it is served by the index (the base's
  // own origin, or one of the family's hosts with the same path layout); nullopt for other
  // hosts. `same_origin` says which.
  std::optional<std::string_view> Relative(std::string_view url, bool* same_origin) const {
    const std::string_view url_origin = index::UrlOrigin(url);
    std::string_view url_path = url.substr(url_origin.size());
    url_path = url_path.substr(0, index::FindAnyOf(url_path, "?#"));
    *same_origin = url_origin == origin;
    bool family_host = false;
    if (!*same_origin) {
      const std::string_view host = index::UrlHost(url_origin);
      for (const std::string& h : family.hosts) family_host = family_host || host == h;
      if (!family_host) return std::nullopt;
    }
    // Family hosts lay files out as the real index does ("/whl/..."), whatever the base path
    // of a mirror is.
    const std::string_view prefix = *same_origin ? path : family_path;
    if (!url_path.starts_with(prefix)) return std::nullopt;
    return url_path.substr(prefix.size());
  }
};

std::optional<std::string> RelativeToBase(const catalogue::IndexFamily& family,
                                          std::string_view base_url, std::string_view url) {
  bool same_origin = false;
  const std::optional<std::string_view> rel = BaseParts(family, base_url).Relative(url, &same_origin);
  if (!rel) return std::nullopt;
  return std::string(*rel);
}

std::string FileBackend(const catalogue::IndexFamily& family, std::string_view rel_in_channel,
                        std::string_view local) {
  const std::size_t slash = rel_in_channel.find('/');
  if (slash != std::string_view::npos) {
    const std::string_view dir = rel_in_channel.substr(0, slash);
    if (family.IsBackendName(dir) || family.LegacyReason(dir) || family.IsVariantIndex(dir)) {
      return std::string(dir);
    }
    return {};
  }
  // A file at the channel root belongs to the backend its local label names, if any.
  const std::string_view label = local.substr(0, local.find('.'));
  if (!label.empty() && family.IsBackendName(label)) return std::string(label);
  return {};
}

// What a wheel's filename says of it; `readable` false (and `error` the reason) when it is not
// a wheel's name.
struct WheelFields {
  bool readable = false;
  bool variant = false;  // PEP 825: a label after the platform tag
  std::string version, local, build, tags;
  std::string error;
};

WheelFields ReadWheelName(std::string_view name) {
  WheelFields fields;
  auto wheel = core::ParseWheelFilename(name);
  // A PEP 825 variant wheel: a label after the platform tag; the rest is a plain wheel name.
  std::optional<catalogue::VariantWheelName> variant;
  if (!wheel && (variant = catalogue::SplitVariantLabel(name))) {
    if (auto plain = core::ParseWheelFilename(variant->plain_filename)) wheel = std::move(plain);
    else variant.reset();
  }
  if (!wheel) {
    fields.error = wheel.error().message;
    return fields;
  }
  fields.readable = true;
  fields.variant = variant.has_value();
  fields.version = wheel->version.ToString();
  fields.local = wheel->version.LocalString();
  if (wheel->build) fields.build = std::to_string(wheel->build->number) + wheel->build->suffix;
  auto join = [&fields](const std::vector<std::string>& parts) {
    for (std::size_t i = 0; i < parts.size(); ++i) {
      if (i != 0) fields.tags.push_back('.');
      fields.tags.append(parts[i]);
    }
  };
  join(wheel->python_tags);
  fields.tags.push_back('-');
  join(wheel->abi_tags);
  fields.tags.push_back('-');
  join(wheel->platform_tags);
  return fields;
}

// Sets a row's wheel columns from what its filename says; the reason when it is not a wheel's.
std::optional<std::string> ApplyWheelFields(const WheelFields& fields, AnchorRow& row) {
  if (!fields.readable) {
    row.file_kind = "other";
    return fields.error;
  }
  row.file_kind = fields.variant ? "variant-wheel" : "wheel";
  row.version = fields.version;
  row.local = fields.local;
  row.build = fields.build;
  row.tags = fields.tags;
  return std::nullopt;
}

// What wheel filenames say, kept by filename for the crawl: the same file is listed on many pages
// (the 178,534 wheel anchors of the 2026-03-15 snapshot name 26,382 files), and reading its name
// again was a sixth of the crawl's instructions. Shared by the parser threads; bounded, so an
// index of millions of names costs the reading, not the memory.
class WheelNameCache {
 public:
  static constexpr std::size_t kMaxEntries = 1u << 15;

  std::optional<std::string> Fill(AnchorRow& row) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (auto it = entries_.find(std::string_view(row.filename)); it != entries_.end()) {
        return ApplyWheelFields(it->second, row);
      }
    }
    WheelFields fields = ReadWheelName(row.filename);
    std::optional<std::string> error = ApplyWheelFields(fields, row);
    std::lock_guard<std::mutex> lock(mutex_);
    if (entries_.size() < kMaxEntries) entries_.emplace(std::string(row.filename), std::move(fields));
    return error;
  }

 private:
  // Looked up by the row's filename as it is, whatever allocator holds it.
  struct NameHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view name) const { return std::hash<std::string_view>{}(name); }
  };
  std::mutex mutex_;
  std::unordered_map<std::string, WheelFields, NameHash, std::equal_to<>> entries_;
};

void FillFromFilename(AnchorRow& row, std::string_view project,
                      std::vector<CrawlWarning>* warnings, std::string_view url,
                      WheelNameCache* wheel_names = nullptr) {
  const std::string_view name = row.filename;
  constexpr std::string_view kVariantsSuffix = "-variants.json";
  if (name.size() > kVariantsSuffix.size() && name.ends_with(kVariantsSuffix)) {
    // PEP 825's `{name}-{version}-variants.json`: the name part has no dash.
    const std::string_view stem = name.substr(0, name.size() - kVariantsSuffix.size());
    const std::size_t dash = stem.find('-');
    if (dash != std::string_view::npos && core::NormalizeName(stem.substr(0, dash)) == project) {
      if (auto v = core::Version::Parse(stem.substr(dash + 1))) {
        row.file_kind = "variants-json";
        row.version = v->ToString();
        return;
      }
    }
    row.file_kind = "other";
    return;
  }
  if (name.ends_with(".whl")) {
    const std::optional<std::string> error =
        wheel_names != nullptr ? wheel_names->Fill(row) : ApplyWheelFields(ReadWheelName(name), row);
    if (error && warnings != nullptr) {
      warnings->push_back({"unreadable wheel name", std::string(url) + ": " + *error});
    }
    return;
  }
  for (std::string_view ext : {".tar.gz", ".zip", ".tar.bz2", ".tgz"}) {
    if (!name.ends_with(ext)) continue;
    row.file_kind = "sdist";
    // "{name}-{version}{ext}": the name may hold dashes; the project's spelling tells where
    // it ends, otherwise the last dash does.
    const std::string_view stem = name.substr(0, name.size() - ext.size());
    std::string_view version_text;
    for (std::size_t dash = stem.find('-'); dash != std::string_view::npos;
         dash = stem.find('-', dash + 1)) {
      if (core::NormalizeName(stem.substr(0, dash)) == project) {
        version_text = stem.substr(dash + 1);
        break;
      }
    }
    if (version_text.empty()) {
      if (const std::size_t dash = stem.rfind('-'); dash != std::string_view::npos) {
        version_text = stem.substr(dash + 1);
      }
    }
    if (auto v = core::Version::Parse(version_text)) {
      row.version = v->ToString();
      row.local = v->LocalString();
    }
    return;
  }
  row.file_kind = "other";
}

}  // namespace

std::string SystemClockRfc3339() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char out[32];
  std::strftime(out, sizeof(out), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return out;
}

std::optional<std::string> RefuseCrossOriginRedirect(std::string_view from, std::string_view to) {
  auto lower = [](std::string_view text) {
    std::string out(text);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
  };
  const std::string from_origin = lower(index::UrlOrigin(from));
  const std::string to_origin = lower(index::UrlOrigin(to));
  if (!from_origin.empty() && from_origin == to_origin) return std::nullopt;
  return "it leaves " + std::string(index::UrlOrigin(from)) +
         " (torchdex-crawl follows redirects within a page's origin only)";
}

namespace {

// The rows of a project page, appended to `rows` with their strings wherever its allocator
// puts them: a project page's arena (PageRows, made on a parser thread and freed at once where
// the store's thread is done with it), or the heap.
void AppendAnchorRows(const catalogue::IndexFamily& family, std::string_view base_url,
                      std::string_view channel_path, std::string_view project,
                      const std::vector<index::Anchor>& anchors,
                      std::vector<CrawlWarning>* warnings, WheelNameCache* wheel_names,
                      AnchorRows& rows) {
  rows.reserve(rows.size() + anchors.size());
  const BaseParts base(family, base_url);
  for (const index::Anchor& a : anchors) {
    AnchorRow& row = rows.emplace_back();
    bool same_origin = false;
    const std::optional<std::string_view> rel = base.Relative(a.url, &same_origin);
    const bool under_base = rel && same_origin;
    row.filename = index::UrlFilename(a.url);
    row.project = project;
    FillFromFilename(row, project, warnings, a.url, wheel_names);
    if (a.hash_malformed && warnings != nullptr) {
      warnings->push_back(
          {"malformed hash", a.url + ": the link's hash \"" + a.hash +
                                 "\" is not hex of that algorithm's length (not stored)"});
    }
    if (rel && rel->starts_with(channel_path)) {
      row.backend = FileBackend(family, rel->substr(channel_path.size()), row.local);
    }
    if (!under_base) row.host = index::UrlHost(a.url);
    row.url = under_base ? *rel : std::string_view(a.url);
    row.text = a.text;
    row.sha256 = a.sha256;
    row.metadata_sha256 = a.metadata_sha256;
    row.has_metadata = a.has_metadata;
    row.requires_python = a.requires_python;
    if (a.yanked) row.yanked.emplace(*a.yanked, row.url.get_allocator());
    row.upload_time = a.upload_time;
  }
}

class Crawler {
 public:
  Crawler(const catalogue::IndexFamily& family, const catalogue::RoutingPolicy& policy,
          const CrawlOptions& options, index::Fetcher& fetcher, catalogue::Store& store,
          const Clock& clock)
      : family_(family), policy_(policy), options_(options), fetcher_(fetcher), store_(store),
        clock_(clock) {
    base_url_ = options.base_url.empty() ? family.base_url : options.base_url;
    if (!base_url_.ends_with('/')) base_url_.push_back('/');
  }

  CrawlReport Run(const index::Fetcher::OnProgress& on_progress) {
    for (const catalogue::Channel& c : family_.channels) {
      if (!options_.channels.empty() &&
          std::find(options_.channels.begin(), options_.channels.end(), c.name) == options_.channels.end()) {
        continue;
      }
      channels_[c.name] = ChannelState{c.name, c.path, {}, false};
    }
    for (const std::string& wanted : options_.channels) {
      if (family_.FindChannel(wanted) == nullptr) {
        report_.failures.push_back("unknown channel '" + wanted + "'");
        report_.error_code = core::ErrorCode::kUsage;
      }
    }
    if (!report_.failures.empty()) return report_;

    // What the store holds, read once: validators for conditional requests, and each page's
    // digest and anchor count, consulted for every answer instead of a query each.
    auto pages = store_.LoadPages();
    if (!pages) return Fail(pages.error());
    stored_ = std::move(pages).value();
    for (const auto& [path, page] : stored_) {
      if (page.status == 200 || page.status == 304) {
        validators_[path] = catalogue::Validators{page.etag, page.last_modified};
      }
    }

    std::string channel_names;
    for (const auto& [name, state] : channels_) channel_names += (channel_names.empty() ? "" : ",") + name;
    auto run = store_.BeginRun(clock_(), base_url_, channel_names);
    if (!run) return Fail(run.error());

    std::vector<index::FetchRequest> initial;
    for (const auto& [name, state] : channels_) {
      const PageTask root{state.path, name, state.path, PageKind::kChannelRoot, "", ""};
      Queue(initial, root);
      // A channel's variant indexes are declared (data/indexes.json), not discovered: a root
      // that lists them finds them already noted.
      if (const catalogue::Channel* channel = family_.FindChannel(name)) {
        for (const catalogue::VariantIndex& v : channel->variant_indexes) {
          NoteBackend(root, v.name, "data/indexes.json (variant index)", initial);
        }
      }
    }
    const auto started = std::chrono::steady_clock::now();
    auto seconds_since = [](std::chrono::steady_clock::time_point t) {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
    };
    fetcher_.Run(
        std::move(initial), [this](index::FetchResult&& r) { return OnResult(std::move(r)); },
        on_progress);
    report_.phases["fetch"] = seconds_since(started);
    const auto drained = std::chrono::steady_clock::now();
    for (Worker& parser : parsers_) parser.Drain();  // their tasks post to worker_: drained first
    report_.phases["drain_parsers"] = seconds_since(drained);
    worker_.Drain();
    report_.phases["drain"] = seconds_since(drained);

    if (store_error_) return Abort(core::MakeError(*store_error_));
    if (!report_.failures.empty()) return Abort({});
    if (!options_.default_index.empty()) FetchDefaultIndex();
    if (store_error_) return Abort(core::MakeError(*store_error_));
    if (!report_.failures.empty()) return Abort({});
    const auto finishing = std::chrono::steady_clock::now();
    if (auto s = Finish(); !s) return Abort(s.error());
    report_.phases["classify_and_commit"] = seconds_since(finishing);
    report_.ok = true;
    return report_;
  }

 private:
  // Queues a page into `into`, unless the crawl already asked for --max-pages pages: then the
  // crawl fails (once), and nothing more is queued.
  void Queue(std::vector<index::FetchRequest>& into, PageTask task) {
    if (tasks_.size() >= options_.max_pages) {
      if (!pages_exceeded_) {
        pages_exceeded_ = true;
        Failure("the crawl would ask for more than --max-pages " +
                std::to_string(options_.max_pages) + " pages (the next one: " + base_url_ +
                task.path + ")");
      }
      return;
    }
    into.push_back(Request(std::move(task)));
  }

  // A listing that would lead to more than --max-follow pages fails instead (issue 13 item 24:
  // a root of 20,000 links cost 20,001 requests).
  bool WithinFollowBound(const PageTask& task, std::size_t count, std::string_view what) {
    if (count <= options_.max_follow) return true;
    Update([](CrawlReport& r) { ++r.stats.pages_failed; });
    Failure(base_url_ + task.path + " lists " + std::to_string(count) + " " + std::string(what) +
            ", more than --max-follow " + std::to_string(options_.max_follow) +
            "; none of them was asked");
    return false;
  }

  index::FetchRequest Request(PageTask task) {
    index::FetchRequest request;
    request.url = base_url_ + task.path;
    if (auto it = validators_.find(task.path); it != validators_.end()) {
      request.etag = it->second.etag;
      request.last_modified = it->second.last_modified;
    }
    request.cookie = tasks_.size();
    tasks_.push_back(std::move(task));
    return request;
  }

  std::string TooManyLinks(const index::FetchResult& result) const {
    return "page " + PageUrl(result) + " has more than " + std::to_string(options_.max_links) +
           " links (--max-links); the rest was not read";
  }

  // The store failed before the run began: nothing to roll back.
  CrawlReport Fail(const core::Error& error) {
    report_.failures.push_back(error.message);
    report_.error_code = error.code;
    return report_;
  }

  // Rolls the run back: for `error` (the store's) when given, else for the pages that failed.
  CrawlReport Abort(const std::optional<core::Error>& error) {
    if (error) {
      report_.failures.push_back(error->message);
      report_.error_code = error->code;
    }
    std::string summary = std::to_string(report_.failures.size()) + " failure(s); first: " +
                          report_.failures.front();
    store_.AbortRun(clock_(), report_.stats, summary);
    report_.ok = false;
    return report_;
  }

  // Store errors and report entries come from both threads.
  void Check(core::Status s) {
    if (s) return;
    std::lock_guard<std::mutex> lock(report_mutex_);
    if (!store_error_) store_error_ = s.error().message;
  }
  bool StoreFailed() {
    std::lock_guard<std::mutex> lock(report_mutex_);
    return store_error_.has_value();
  }
  // What the report says shows URLs without their secrets (a --base-url with user:token@).
  void Warn(std::string kind, std::string warning) {
    std::lock_guard<std::mutex> lock(report_mutex_);
    report_.warnings.push_back({std::move(kind), core::RedactCredentials(warning)});
  }
  void Failure(std::string failure) {
    std::lock_guard<std::mutex> lock(report_mutex_);
    report_.failures.push_back(core::RedactCredentials(failure));
  }
  template <typename F>
  void Update(F&& f) {
    std::lock_guard<std::mutex> lock(report_mutex_);
    f(report_);
  }

  // Runs on the fetch thread. Pages that lead to other pages (channel roots, backend lists,
  // discovery pages) are read here, since what they list is the next requests; project pages,
  // the bulk, are parsed and stored on the worker thread, so reading the network never waits
  // for SQLite.
  std::vector<index::FetchRequest> OnResult(index::FetchResult&& result) {
    std::vector<index::FetchRequest> next;
    if (StoreFailed()) return next;
    const PageTask task = tasks_[result.request.cookie];
    const std::string now = clock_();
    Update([&](CrawlReport& r) { r.stats.wire_bytes += result.wire_bytes; });
    std::optional<AnchorRows> rows;  // a list page's entries, fresh or as stored
    switch (result.outcome) {
      case index::FetchOutcome::kOk:
        Update([](CrawlReport& r) { ++r.stats.pages_fetched; });
        rows = OnFetched(task, std::move(result), now, next);
        break;
      case index::FetchOutcome::kNotModified:
        Update([](CrawlReport& r) { ++r.stats.pages_not_modified; });
        rows = OnNotModified(task, result, now, next);
        break;
      case index::FetchOutcome::kAbsent:
        Update([](CrawlReport& r) { ++r.stats.pages_absent; });
        if (task.kind == PageKind::kVariantsJson) {
          // Nothing is written: what the store had of the file stays.
          Warn("bad variants.json", base_url_ + task.path + " (linked from " + task.linked_from + ") answered " +
                                        std::to_string(result.status) + "; " + Consequence(task));
        } else {
          OnAbsent(task, result, now, next);
        }
        break;
      case index::FetchOutcome::kFailed:
        OnFailed(task, result);
        break;
    }
    if (rows) OnListed(task, *rows, next);
    return next;
  }

  void OnFailed(const PageTask& task, const index::FetchResult& result) {
    if (task.kind == PageKind::kVariantsJson) {
      // One file of a variant index (too large, or its server failing): the rest of the
      // crawl stands, and what the store had of the file stays.
      Warn("bad variants.json", (result.error.empty() ? base_url_ + task.path + ": failed" : result.error) +
                                    " (linked from " + task.linked_from + "); " + Consequence(task));
      return;
    }
    Update([](CrawlReport& r) { ++r.stats.pages_failed; });
    Failure(result.error.empty() ? result.request.url + ": failed" : result.error);
  }

  // What a list page lists is the next requests.
  void OnListed(const PageTask& task, const AnchorRows& rows, std::vector<index::FetchRequest>& next) {
    switch (task.kind) {
      case PageKind::kChannelRoot:
        OnChannelRoot(task, rows, next);
        break;
      case PageKind::kDiscovery:
        OnDiscovery(task, rows, next);
        break;
      case PageKind::kBackendList:
        OnBackendList(task, rows, next);
        break;
      case PageKind::kProject:
      case PageKind::kVariantsJson:
        break;
    }
  }

  // A page that did not parse, or has more links than a page may: a failure of the crawl.
  template <typename Page>
  bool Unreadable(const Page& page, const index::FetchResult& result) {
    if (page && !page->more_anchors) return false;
    Update([](CrawlReport& r) { ++r.stats.pages_failed; });
    Failure(page ? TooManyLinks(result) : page.error().message);
    return true;
  }

  // A fresh page: a list page's entries for OnListed, nullopt for a page that is done here (or
  // handed to the parser and store threads).
  std::optional<AnchorRows> OnFetched(const PageTask& task, index::FetchResult&& result, const std::string& now,
                                      std::vector<index::FetchRequest>& next) {
    if (task.kind == PageKind::kVariantsJson) {
      OnVariantsJson(task, std::move(result), now);
      return std::nullopt;
    }
    if (task.kind == PageKind::kProject && family_.IsVariantIndex(task.backend)) {
      OnVariantIndexPage(task, std::move(result), now, next);
      return std::nullopt;
    }
    if (task.kind == PageKind::kProject) {
      PostProjectPage(task, std::move(result), now);
      return std::nullopt;
    }
    auto page = index::ParsePage(result.body, result.content_type, PageUrl(result), options_.max_links);
    if (Unreadable(page, result)) return std::nullopt;
    AnchorRows rows;
    if (task.kind == PageKind::kDiscovery) {
      // A flat project page ("torch/" at the channel root) links the files of every backend:
      // keep them as files (version, tags, hash, backend), for the backends whose own page
      // is missing (read_catalogue), and find backends through their links (OnDiscovery).
      std::vector<CrawlWarning> warnings;  // already said for the project pages
      AppendAnchorRows(family_, base_url_, task.channel_path, task.project, page->anchors, &warnings, &wheel_names_,
                       rows);
    } else {
      rows = ListAnchorRows(task, page->anchors);
    }
    worker_.Post([this, task, now, shape = page->shape, rows, result = std::move(result)]() mutable {
      StorePage(task, result, shape, rows, now);
    }, 0);
    return rows;
  }

  // A project page's anchors as rows, what they warn about said.
  PageRows ProjectPageRows(const PageTask& task, const std::vector<index::Anchor>& anchors) {
    std::vector<CrawlWarning> warnings;
    PageRows rows(anchors.size());
    AppendAnchorRows(family_, base_url_, task.channel_path, task.project, anchors, &warnings, &wheel_names_, rows.rows);
    for (CrawlWarning& w : warnings) Warn(std::move(w.kind), std::move(w.message));
    return rows;
  }

  // A variant index's project page: read here, since the variants.json files it links are the
  // next requests (a variant index has a few pages).
  void OnVariantIndexPage(const PageTask& task, index::FetchResult&& result, const std::string& now,
                          std::vector<index::FetchRequest>& next) {
    auto page = index::ParsePage(result.body, result.content_type, PageUrl(result), options_.max_links);
    if (Unreadable(page, result)) return;
    PageRows project_rows = ProjectPageRows(task, page->anchors);
    QueueVariantsFiles(task, project_rows.rows, next);
    worker_.Post([this, task, now, shape = page->shape, result = std::move(result),
                  rows = std::make_shared<PageRows>(std::move(project_rows))]() {
      StorePage(task, result, shape, rows->rows, now);
    }, 0);
  }

  // A pipeline: this thread reads the network, the parser thread turns bodies into rows, the
  // store thread writes them. Each queue is bounded, so memory stays flat.
  void PostProjectPage(const PageTask& task, index::FetchResult&& result, const std::string& now) {
    const std::size_t bytes = result.body.size();
    Worker& parser = parsers_[next_parser_++ % parsers_.size()];
    parser.Post([this, task, now, result = std::move(result)]() mutable {
      auto page = index::ParsePage(result.body, result.content_type, PageUrl(result), options_.max_links);
      std::string().swap(result.body);
      if (Unreadable(page, result)) return;
      PageRows project_rows = ProjectPageRows(task, page->anchors);
      const std::size_t row_bytes = RowBytes(project_rows.rows);
      const index::PageShape shape = page->shape;
      // The anchors' strings are copied: freed here, on the thread that made them.
      std::vector<index::Anchor>().swap(page->anchors);
      worker_.Post([this, task, now, shape, result = std::move(result),
                    rows = std::make_shared<PageRows>(std::move(project_rows))]() {
        StorePage(task, result, shape, rows->rows, now);
      }, row_bytes);
    }, bytes);
  }

  // A 304 whose entries are needed now (a list page, to queue what it lists; a variant index's
  // page, to ask for its variants.json files again): the store's copy, touched.
  AnchorRows StoredRows(const PageTask& task, const catalogue::Validators& validators, const std::string& now) {
    AnchorRows rows;
    worker_.Call([&] {
      if (!SameAsStored(task, validators)) Check(store_.TouchPage(task.path, 304, now, validators));
      auto stored = store_.AnchorsOf(task.path);
      if (!stored) return Check(stored.error());
      rows = std::move(stored).value();
      Update([&](CrawlReport& r) { r.stats.anchors += static_cast<std::int64_t>(rows.size()); });
    });
    return rows;
  }

  // The file is as stored, but the page's wheels may have changed since: their labels are
  // checked against it again.
  void RecheckStoredVariantsJson(const PageTask& task) {
    std::optional<catalogue::VariantsFileRecord> stored;
    worker_.Call([&] {
      auto files = store_.VariantsFiles(task.channel);
      if (!files) return Check(files.error());
      for (catalogue::VariantsFileRecord& f : *files) {
        if (f.path == task.path) stored = std::move(f);
      }
    });
    const std::string url = base_url_ + task.path;
    if (!stored) {
      Warn("bad variants.json", url + " (linked from " + task.linked_from +
                                    ") answered 304 Not Modified, but the store holds no copy of it; nothing is stored "
                                    "of it, and the variant wheels of " +
                                    task.project + " " + task.version + " have no variant metadata");
    } else if (!task.sha256.empty() && stored->sha256 != task.sha256) {
      // The server says unchanged; the page vouches for other bytes.
      Warn("bad variants.json", url + " answered 304 Not Modified, but its link on " + task.linked_from +
                                    " now gives sha256 " + task.sha256 + ", not the " + stored->sha256 +
                                    " of the stored copy; the stored copy is kept");
    } else if (auto parsed = catalogue::ParseVariantsJson(stored->json, url)) {
      CheckLabels(task, *parsed, url);
    }
  }

  // A 304: a list page's stored entries for OnListed, nullopt for a page done here.
  std::optional<AnchorRows> OnNotModified(const PageTask& task, const index::FetchResult& result,
                                          const std::string& now, std::vector<index::FetchRequest>& next) {
    const catalogue::Validators validators{result.etag, result.last_modified};
    if (task.kind == PageKind::kProject && family_.IsVariantIndex(task.backend)) {
      // As stored: its variants.json links are asked again (conditionally).
      QueueVariantsFiles(task, StoredRows(task, validators, now), next);
      return std::nullopt;
    }
    if (task.kind == PageKind::kVariantsJson) RecheckStoredVariantsJson(task);
    if (task.kind == PageKind::kProject || task.kind == PageKind::kVariantsJson) {
      if (auto it = stored_.find(task.path); it != stored_.end()) {
        const std::int64_t anchors = it->second.anchors;
        Update([&](CrawlReport& r) { r.stats.anchors += anchors; });
      }
      // The answer the store already holds needs no write, nor a task for the store's thread
      // (most of an unchanged crawl's answers).
      if (!SameAsStored(task, validators)) {
        worker_.Post([this, task, now, validators] { Check(store_.TouchPage(task.path, 304, now, validators)); }, 0);
      }
      return std::nullopt;
    }
    return StoredRows(task, validators, now);
  }

  // What happens to the store's copy of a variants.json this crawl could not use, and what
  // that means for the version's variant wheels.
  std::string Consequence(const PageTask& task) const {
    return stored_.contains(task.path) ? "the stored copy is kept (the variant wheels of " + task.project + " " +
                                             task.version + " keep its metadata)"
                                       : "nothing is stored of it, and the variant wheels of " + task.project + " " +
                                             task.version + " have no variant metadata";
  }

  // The variants.json of each version with variant wheels on a variant index's project page
  // (PEP 825: `{name}-{version}-variants.json`, linked from the page), queued with the labels
  // of that version's wheels; a version without one is a warning.
  void QueueVariantsFiles(const PageTask& task, std::span<const AnchorRow> rows,
                          std::vector<index::FetchRequest>& next) {
    std::map<std::string, std::vector<std::string>> labels;  // version -> labels of its wheels
    for (const AnchorRow& row : rows) {
      if (row.file_kind != "variant-wheel") continue;
      if (auto v = catalogue::SplitVariantLabel(row.filename)) {
        labels[std::string(row.version)].push_back(v->label);
      }
    }
    std::set<std::string> linked;
    for (const AnchorRow& row : rows) {
      if (row.file_kind != "variants-json") continue;
      if (!row.host.empty()) {
        Warn("bad variants.json", std::string(row.url) + " (linked from " + base_url_ + task.path +
             ") is not under the index base; not read");
        continue;
      }
      if (!linked.insert(std::string(row.version)).second) continue;
      PageTask file{std::string(row.url), task.channel, task.channel_path, PageKind::kVariantsJson,
                    task.backend, task.project};
      file.version = row.version;
      file.sha256 = row.sha256;
      file.linked_from = base_url_ + task.path;
      if (auto it = labels.find(std::string(row.version)); it != labels.end()) {
        file.labels = it->second;
        std::sort(file.labels.begin(), file.labels.end());
        file.labels.erase(std::unique(file.labels.begin(), file.labels.end()), file.labels.end());
      }
      Queue(next, std::move(file));
    }
    for (const auto& [version, version_labels] : labels) {
      if (linked.contains(version)) continue;
      Warn("bad variants.json", base_url_ + task.path + " links variant wheels of " + task.project +
           " " + version + " but no " + task.project + "-" + version +
           "-variants.json: those wheels have no variant metadata");
    }
  }

  // The labels of the version's wheels on the page against the file's: a wheel whose label the
  // file lacks is never chosen (PEP 825), a label without wheels is said too.
  void CheckLabels(const PageTask& task, const catalogue::VariantsJson& parsed, const std::string& url) {
    if (core::Status labels = catalogue::CheckWheelLabels(parsed, task.labels, url); !labels) {
      // Stored all the same: the file is valid, and those wheels are incompatible (PEP 825).
      Warn("variant label not in variants.json",
           labels.error().message + " (wheels on " + task.linked_from + "; they are never chosen)");
    }
    std::vector<std::string> unused;
    for (const auto& [label, props] : parsed.variants) {
      if (!std::binary_search(task.labels.begin(), task.labels.end(), label)) unused.push_back(label);
    }
    if (!unused.empty()) {
      std::string list;
      for (const std::string& l : unused) list += (list.empty() ? "" : ", ") + l;
      Warn("variant without wheels", url + ": no wheel of " + task.project + " " + task.version +
           " on " + task.linked_from + " has the label(s) " + list);
    }
  }

  // A variants.json answered: checked (size, the link's sha256, PEP 825's schema, the labels of
  // the wheels) and stored; one that fails a check is a warning with the place, and the store's
  // copy of it, if any, stays as it was.
  void OnVariantsJson(const PageTask& task, index::FetchResult&& result, const std::string& now) {
    const std::string url = base_url_ + task.path;
    auto refuse = [&](const std::string& why) { Warn("bad variants.json", why + "; " + Consequence(task)); };
    if (result.body.size() > catalogue::kMaxVariantsJsonBytes) {
      refuse(url + ": " + std::to_string(result.body.size()) + " bytes, more than the " +
             std::to_string(catalogue::kMaxVariantsJsonBytes) + " a variants.json may have");
      return;
    }
    const std::string sha256 = core::Sha256Hex(result.body);
    if (!task.sha256.empty() && sha256 != task.sha256) {
      refuse(url + ": its sha256 is " + sha256 + ", not the " + task.sha256 + " of its link on " +
             task.linked_from);
      return;
    }
    core::Expected<catalogue::VariantsJson> parsed = catalogue::ParseVariantsJson(result.body, url);
    if (!parsed) {
      refuse(parsed.error().message);
      return;
    }
    CheckLabels(task, *parsed, url);
    catalogue::VariantsFileRecord file{task.path, task.channel, task.backend, task.project,
                                       task.version,
                                       std::string(catalogue::VariantsSchemaName(parsed->schema)),
                                       sha256, catalogue::VariantsJsonToString(*parsed)};
    worker_.Post([this, task, now, file = std::move(file), result = std::move(result)]() {
      PageRecord record = RecordOf(task, result, now);
      record.shape = "json";
      record.digest = file.sha256;
      if (PutPageRecord(record, now)) Check(store_.PutVariantsFile(file));
    }, 0);
  }

  // A 304 that says what the store holds (its validators, a status of 200 or 304): nothing to
  // write, so an unchanged crawl writes no page at all. stored_ is read-only: any thread.
  bool SameAsStored(const PageTask& task, const catalogue::Validators& validators) const {
    auto it = stored_.find(task.path);
    if (it == stored_.end()) return false;
    const PageRecord& page = it->second;
    return (page.status == 200 || page.status == 304) &&
           (validators.etag.empty() || validators.etag == page.etag) &&
           (validators.last_modified.empty() || validators.last_modified == page.last_modified);
  }

  // The channel's stored content changes in this run (any thread).
  void MarkChanged(const std::string& channel) {
    std::lock_guard<std::mutex> lock(report_mutex_);
    report_.changed_channels.insert(channel);
  }
  // Rows of a variant wheel were written for the channel in this run (any thread).
  void NoteVariantWheels(const std::string& channel, std::span<const AnchorRow> rows) {
    const bool any = std::any_of(rows.begin(), rows.end(),
                                 [](const AnchorRow& row) { return row.file_kind == "variant-wheel"; });
    if (!any) return;
    std::lock_guard<std::mutex> lock(report_mutex_);
    variant_wheel_channels_.insert(channel);
  }
  bool WroteVariantWheels(const std::string& channel) {
    std::lock_guard<std::mutex> lock(report_mutex_);
    return variant_wheel_channels_.contains(channel);
  }

  // A list page's entries; each names the project (or backend) its link points to.
  AnchorRows ListAnchorRows(const PageTask& task, const std::vector<index::Anchor>& anchors) {
    AnchorRows rows;
    for (const index::Anchor& a : anchors) {
      AnchorRow row;
      const std::optional<std::string> rel = RelativeToBase(family_, base_url_, a.url);
      row.url = rel ? *rel : a.url;
      row.host = rel ? "" : std::string(index::UrlHost(a.url));
      row.text = a.text;
      row.file_kind = "link";
      if (row.host.empty() && row.url.starts_with(task.path) && row.url.ends_with('/')) {
        row.project = core::NormalizeName(Dirname(std::string_view(row.url).substr(task.path.size())));
      }
      rows.push_back(std::move(row));
    }
    return rows;
  }

  // What a page task says of the page, answered `status` at `now`.
  static PageRecord RecordOf(const PageTask& task, int status, const std::string& now) {
    PageRecord record;
    record.path = task.path;
    record.channel = task.channel;
    record.backend = task.backend;
    record.project = task.project;
    record.kind = task.kind;
    record.status = status;
    record.fetched_at = now;
    return record;
  }
  // ... of a page fetched whole, with its validators.
  static PageRecord RecordOf(const PageTask& task, const index::FetchResult& result, const std::string& now) {
    PageRecord record = RecordOf(task, static_cast<int>(result.status), now);
    record.etag = result.etag;
    record.last_modified = result.last_modified;
    return record;
  }

  // Worker thread: stores a fetched page's record (its digest set). When the digest is the
  // stored one, only the validators changed: the record keeps its changed_at and false is
  // returned (the content need not be written again); otherwise the page counts as changed.
  bool PutPageRecord(PageRecord& record, const std::string& now) {
    auto stored = stored_.find(record.path);
    if (stored != stored_.end() && stored->second.digest == record.digest) {
      record.changed_at = stored->second.changed_at;
      Check(store_.PutPage(record));
      return false;
    }
    Update([](CrawlReport& r) { ++r.stats.pages_changed; });
    MarkChanged(record.channel);
    record.changed_at = now;
    Check(store_.PutPage(record));
    return true;
  }

  // Worker thread: stores a fetched page, rewriting its anchors only when they changed.
  void StorePage(const PageTask& task, const index::FetchResult& result, index::PageShape shape,
                 std::span<const AnchorRow> rows, const std::string& now) {
    Update([&](CrawlReport& r) { r.stats.anchors += static_cast<std::int64_t>(rows.size()); });
    PageRecord record = RecordOf(task, result, now);
    record.shape = std::string(index::PageShapeName(shape));
    record.anchors = static_cast<std::int64_t>(rows.size());
    record.digest = DigestOf(rows);
    // Same anchors: only the validators (and the TIMESTAMP line) changed.
    if (!PutPageRecord(record, now)) return;
    // A page new to the store has no old anchors to delete.
    if (stored_.contains(task.path) || !rows.empty()) {
      NoteVariantWheels(task.channel, rows);
      Check(store_.ReplaceAnchors(task.path, rows));
    }
  }

  void OnAbsent(const PageTask& task, const index::FetchResult& result, const std::string& now,
                std::vector<index::FetchRequest>& next) {
    const std::string what = result.request.url + " answered " + std::to_string(result.status);
    const int answered = static_cast<int>(result.status);
    auto before = stored_.find(task.path);
    // Absent as before: nothing to write, no task for the store's thread.
    const bool same = before != stored_.end() && before->second.status == answered &&
                      before->second.anchors == 0;
    if (!same) {
      worker_.Post([this, task, now, status = answered] {
        auto stored = stored_.find(task.path);
        MarkChanged(task.channel);
        // Anchors that disappear are a change, like any other (the classification must see it).
        if (stored != stored_.end() && stored->second.anchors > 0) {
          Update([](CrawlReport& r) { ++r.stats.pages_changed; });
        }
        PageRecord record = RecordOf(task, status, now);
        record.changed_at = now;
        record.digest = DigestOf({});
        Check(store_.PutPage(record));
        if (stored != stored_.end()) Check(store_.ReplaceAnchors(task.path, {}));
      }, 0);
    }
    switch (task.kind) {
      case PageKind::kChannelRoot:
        Warn("no root index", "channel " + task.channel + ": no root index (" + what +
             "); backends are found through project pages only");
        // Older servers and partial mirrors list no root: still try the discovery projects.
        for (const std::string& project : family_.discovery_projects) {
          Queue(next, PageTask{task.channel_path + project + "/", task.channel, task.channel_path,
                               PageKind::kDiscovery, "", project});
        }
        break;
      case PageKind::kBackendList:
        channels_[task.channel].backends[task.backend].state = "empty";
        Warn("backend page missing", "backend " + task.backend + " (" + task.channel +
             ") is listed but its page is missing (" + what + "); recorded as empty");
        break;
      case PageKind::kDiscovery:
        Warn("discovery page missing", "discovery page missing: " + what);
        break;
      case PageKind::kProject:
        Warn("project page missing", "project page missing: " + what);
        break;
      case PageKind::kVariantsJson:
        break;  // answered before OnAbsent
    }
  }

  // A backend directory seen in a listing or a link: record it, and queue its project list
  // unless it is legacy (crawled on request only) or filtered out by --backend.
  void NoteBackend(const PageTask& task, const std::string& name, const std::string& from,
                   std::vector<index::FetchRequest>& next) {
    ChannelState& channel = channels_[task.channel];
    if (channel.backends.count(name) != 0) return;
    BackendRecord b;
    b.channel = task.channel;
    b.name = name;
    const catalogue::BackendName described = catalogue::DescribeBackend(name);
    b.kind = std::string(core::BackendKindWord(described.kind));
    b.toolkit = described.toolkit;
    if (family_.IsVariantIndex(name)) {
      b.kind = "variant";  // PEP 825 variant wheels of every accelerator, told apart by label
      b.toolkit.clear();
    }
    if (auto reason = family_.LegacyReason(name)) {
      b.legacy = true;
      b.legacy_reason = *reason;
    }
    b.discovered_from = from;
    const bool wanted =
        options_.backends.empty()
            ? (!b.legacy || options_.include_legacy)
            : std::find(options_.backends.begin(), options_.backends.end(), name) != options_.backends.end();
    b.state = wanted ? "ok" : (b.legacy ? "skipped (legacy)" : "skipped");
    channel.backends[name] = b;
    if (wanted) {
      Queue(next, PageTask{task.channel_path + name + "/", task.channel, task.channel_path,
                           PageKind::kBackendList, name, ""});
    }
  }

  void OnChannelRoot(const PageTask& task, std::span<const AnchorRow> rows,
                     std::vector<index::FetchRequest>& next) {
    channels_[task.channel].root_seen = true;
    std::set<std::string> discovery(family_.discovery_projects.begin(), family_.discovery_projects.end());
    std::vector<std::string> backends, discovered;
    std::set<std::string> seen;
    for (const AnchorRow& row : rows) {
      if (!row.host.empty() || !row.url.starts_with(task.path) || !row.url.ends_with('/')) continue;
      const std::string rest(std::string_view(row.url).substr(task.path.size()));
      if (rest.size() < 2 || rest.find('/') != rest.size() - 1) continue;  // only direct children
      const std::string name(Dirname(rest));
      if (!seen.insert(name).second) continue;
      if (family_.IsBackendName(name) || family_.LegacyReason(name)) {
        backends.push_back(name);
      } else if (discovery.count(core::NormalizeName(name)) != 0) {
        discovered.push_back(name);
      }
    }
    if (!WithinFollowBound(task, backends.size() + discovered.size(), "backends")) return;
    for (const std::string& name : backends) NoteBackend(task, name, "root index", next);
    for (const std::string& name : discovered) {
      Queue(next, PageTask{task.channel_path + name + "/", task.channel, task.channel_path,
                           PageKind::kDiscovery, "", name});
    }
  }

  void OnDiscovery(const PageTask& task, std::span<const AnchorRow> rows,
                   std::vector<index::FetchRequest>& next) {
    // "/whl/torch/" links into every backend directory: "/whl/cu128/torch-...".
    std::vector<std::string> dirs;
    std::set<std::string> seen;
    for (const AnchorRow& row : rows) {
      if (!row.host.empty() && !row.url.starts_with("http")) continue;
      std::optional<std::string> rel = row.host.empty()
                                           ? std::optional<std::string>(row.url)
                                           : RelativeToBase(family_, base_url_, row.url);
      if (!rel || !rel->starts_with(task.channel_path)) continue;
      const std::string in_channel = rel->substr(task.channel_path.size());
      const std::size_t slash = in_channel.find('/');
      if (slash == std::string::npos) continue;
      const std::string dir = in_channel.substr(0, slash);
      if ((family_.IsBackendName(dir) || family_.LegacyReason(dir)) && seen.insert(dir).second) {
        dirs.push_back(dir);
      }
    }
    if (!WithinFollowBound(task, dirs.size(), "backends")) return;
    for (const std::string& dir : dirs) {
      NoteBackend(task, dir, "links of " + task.project + "/", next);
    }
  }

  void OnBackendList(const PageTask& task, std::span<const AnchorRow> rows,
                     std::vector<index::FetchRequest>& next) {
    std::set<std::string> not_projects(family_.not_projects.begin(), family_.not_projects.end());
    std::vector<std::string> projects;
    std::set<std::string> seen;
    for (const AnchorRow& row : rows) {
      if (row.project.empty()) continue;
      std::string project(row.project);
      if (not_projects.count(project) != 0 || family_.IsBackendName(project)) continue;
      if (!core::IsValidName(project)) {
        // Not a name (a JSON list's "../x" arrives percent-encoded): no page to ask for.
        Warn("not a project name", base_url_ + task.path + " lists \"" + project +
                                       "\", which is not a project name; skipped");
        continue;
      }
      if (seen.insert(project).second) projects.push_back(std::move(project));
    }
    if (!WithinFollowBound(task, projects.size(), "projects")) return;
    for (const std::string& project : projects) {
      Queue(next, PageTask{task.path + project + "/", task.channel, task.channel_path,
                           PageKind::kProject, task.backend, project});
    }
    channels_[task.channel].backends[task.backend].projects =
        static_cast<std::int64_t>(projects.size());
  }

  void FetchDefaultIndex() {
    // Newest final release on the default index of each project that is not routed here.
    std::string base = options_.default_index;
    if (!base.ends_with('/')) base.push_back('/');
    std::vector<index::FetchRequest> requests;
    std::vector<std::string> names;
    for (const auto& [channel, state] : channels_) {
      auto listed = store_.ListedProjects(channel);
      if (!listed) {
        Check(listed.error());
        return;
      }
      for (const auto& [backend, project] : *listed) names.push_back(project);
    }
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    for (std::size_t i = 0; i < names.size(); ++i) {
      index::FetchRequest r;
      r.url = base + names[i] + "/";
      r.cookie = i;
      requests.push_back(std::move(r));
    }
    fetcher_.Run(std::move(requests), [&](index::FetchResult&& r) {
      if (r.outcome != index::FetchOutcome::kOk) {
        if (r.outcome == index::FetchOutcome::kFailed) {
          report_.warnings.push_back({"default index", "default index: " + r.error});
        }
        return std::vector<index::FetchRequest>();
      }
      auto page = index::ParsePage(r.body, r.content_type, PageUrl(r), options_.max_links);
      if (!page) return std::vector<index::FetchRequest>();
      if (page->more_anchors) {
        report_.warnings.push_back({"default index", "default index: " + TooManyLinks(r)});
      }
      std::vector<std::string> versions;
      const std::string& project = names[r.request.cookie];
      for (const index::Anchor& a : page->anchors) {
        AnchorRow row;
        row.filename = index::UrlFilename(a.url);
        FillFromFilename(row, project, nullptr, a.url);
        if (!row.version.empty() && !a.yanked) versions.emplace_back(row.version);
      }
      const std::string newest = catalogue::NewestFinalVersion(versions);
      if (!newest.empty()) default_newest_[project] = newest;
      return std::vector<index::FetchRequest>();
    });
  }

  static bool SameBackend(const BackendRecord& a, const BackendRecord& b) {
    return std::tie(a.channel, a.name, a.kind, a.toolkit, a.legacy, a.legacy_reason, a.state,
                    a.discovered_from, a.projects) ==
           std::tie(b.channel, b.name, b.kind, b.toolkit, b.legacy, b.legacy_reason, b.state,
                    b.discovered_from, b.projects);
  }

  // What the classification depends on besides the pages: the policy (and a default index,
  // whose answers are not stored, so a crawl that asks one always classifies again).
  std::string ClassificationInputs() const {
    std::string key = "policy:";
    for (const auto& [name, entry] : policy_.projects) key += name + "=" + entry.cls + "/" + entry.reason + ";";
    return key;
  }

  // Pages of the store this crawl did not ask for left the index. What was asked is known
  // here, so the pages that answered as before need no write to say they were seen.
  core::Status RemoveUnseenPages(const std::string& name, const std::unordered_set<std::string_view>& asked) {
    const std::vector<std::string>& narrowed = options_.backends;
    std::vector<std::string> unseen;
    for (const auto& [path, page] : stored_) {
      if (page.channel != name || asked.contains(path)) continue;
      if (!narrowed.empty() && std::find(narrowed.begin(), narrowed.end(), page.backend) == narrowed.end()) continue;
      unseen.push_back(path);
    }
    std::sort(unseen.begin(), unseen.end());
    if (auto s = store_.RemovePages(unseen); !s) return s;
    if (!unseen.empty()) MarkChanged(name);
    return {};
  }

  // Backends: written when they differ from the stored record, removed when the channel was
  // crawled whole and they are gone.
  core::Status StoreBackends(const std::string& name, const ChannelState& channel) {
    const bool narrowed = !options_.backends.empty();
    auto stored_backends = store_.Backends(name);
    if (!stored_backends) return stored_backends.error();
    std::map<std::string, const BackendRecord*> before;
    for (const BackendRecord& b : *stored_backends) before[b.name] = &b;
    for (const auto& [backend_name, b] : channel.backends) {
      if (narrowed && b.state.starts_with("skipped")) continue;
      report_.backends[name].push_back(b);
      auto it = before.find(backend_name);
      if (it != before.end() && SameBackend(*it->second, b)) continue;
      if (auto s = store_.PutBackend(b); !s) return s;
      MarkChanged(name);
    }
    if (narrowed) return {};
    for (const auto& [backend_name, b] : before) {
      if (channel.backends.contains(backend_name)) continue;
      if (auto s = store_.RemoveBackend(name, backend_name); !s) return s;
      MarkChanged(name);
    }
    return {};
  }

  // Nothing changed since the last classification of this channel: it stands, counted from the
  // store. This is most of a re-crawl's own work otherwise (grouping every anchor of the channel).
  core::Expected<bool> ClassificationStands(const std::string& name, const std::string& meta_key) {
    auto last_inputs = store_.GetMeta(meta_key);
    if (!last_inputs) return last_inputs.error();
    if (report_.changed_channels.contains(name) || !options_.default_index.empty() ||
        *last_inputs != ClassificationInputs()) {
      return false;
    }
    auto stored = store_.Projects(name);
    if (!stored) return stored.error();
    if (stored->empty()) return false;
    for (const catalogue::ProjectRecord& p : *stored) ++report_.classes[name][p.cls];
    return true;
  }

  // What the classification of a channel reads from the store.
  core::Expected<catalogue::ClassifyInput> ClassifyInputOf(const std::string& name) {
    auto listed = store_.ListedProjects(name);
    if (!listed) return listed.error();
    auto groups = store_.ProjectFileGroups(name);
    if (!groups) return groups.error();
    catalogue::ClassifyInput input;
    for (const auto& [backend, project] : *listed) input.projects.push_back(project);
    input.groups = std::move(groups).value();
    if (!default_newest_.empty()) {
      auto versions = store_.ProjectVersions(name);
      if (!versions) return versions.error();
      for (auto& [project, version] : *versions) input.versions[project].push_back(version);
    }
    input.default_index_newest = default_newest_;
    input.policy = &policy_;
    // A channel the store held no page of before this run holds the anchors this run wrote:
    // when none of them was a variant wheel, neither is any of the store's, and the query
    // that scans every anchor of the channel for them is not made (a new store's stable and
    // nightly channels).
    bool stored_before = false;
    for (const auto& [path, page] : stored_) stored_before = stored_before || page.channel == name;
    if (stored_before || WroteVariantWheels(name)) {
      auto variant_wheels = store_.VariantWheels(name);
      if (!variant_wheels) return variant_wheels.error();
      for (const catalogue::VariantWheelRow& w : *variant_wheels) {
        input.variant_wheels.emplace(w.project, w.filename);  // the first in order: an example
      }
    }
    return input;
  }

  core::Status ClassifyChannel(const std::string& name) {
    const std::string meta_key = "classified:" + name;
    core::Expected<bool> stands = ClassificationStands(name, meta_key);
    if (!stands) return stands.error();
    if (*stands) return {};
    core::Expected<catalogue::ClassifyInput> input = ClassifyInputOf(name);
    if (!input) return input.error();
    const std::vector<catalogue::ProjectRecord> classes = catalogue::Classify(name, *input);
    for (const catalogue::ProjectRecord& p : classes) ++report_.classes[name][p.cls];
    if (auto s = store_.ReplaceProjects(name, classes); !s) return s;
    MarkChanged(name);
    return store_.PutMeta(meta_key, options_.default_index.empty() ? ClassificationInputs() : "");
  }

  core::Status Finish() {
    std::unordered_set<std::string_view> asked;
    for (const PageTask& t : tasks_) asked.insert(t.path);
    for (const auto& [name, channel] : channels_) {
      if (auto s = RemoveUnseenPages(name, asked); !s) return s;
      if (auto s = StoreBackends(name, channel); !s) return s;
      if (auto s = ClassifyChannel(name); !s) return s;
    }
    const auto committing = std::chrono::steady_clock::now();
    core::Status committed = store_.CommitRun(clock_(), report_.stats);
    report_.phases["commit"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - committing).count();
    return committed;
  }

  const catalogue::IndexFamily& family_;
  const catalogue::RoutingPolicy& policy_;
  const CrawlOptions& options_;
  index::Fetcher& fetcher_;
  catalogue::Store& store_;
  const Clock& clock_;
  std::string base_url_;
  std::map<std::string, ChannelState> channels_;
  std::vector<PageTask> tasks_;
  std::unordered_map<std::string, catalogue::Validators> validators_;
  std::unordered_map<std::string, catalogue::PageRecord> stored_;  // read-only once the crawl runs
  std::map<std::string, std::string> default_newest_;
  std::optional<std::string> store_error_;
  std::mutex report_mutex_;
  std::set<std::string> variant_wheel_channels_;  // under report_mutex_
  WheelNameCache wheel_names_;  // filled by the parser threads
  // Last: destroyed (joined) first, while what their tasks use still exists; the parsers post
  // to worker_, so they go first.
  Worker worker_;  // the store's thread: every write, in order
  // Project pages: parse and turn into rows. Parsing is the slowest stage (libxml2 reads the
  // ~80 MB of a full crawl), and pages are independent: two threads share it.
  std::array<Worker, 2> parsers_;
  std::size_t next_parser_ = 0;
  bool pages_exceeded_ = false;  // --max-pages was reached (said once)
  CrawlReport report_;
};

}  // namespace

CrawlReport Crawl(const catalogue::IndexFamily& family, const catalogue::RoutingPolicy& policy,
                  const CrawlOptions& options, index::Fetcher& fetcher, catalogue::Store& store,
                  const Clock& clock, const index::Fetcher::OnProgress& on_progress) {
  Crawler crawler(family, policy, options, fetcher, store, clock);
  CrawlReport report = crawler.Run(on_progress);
  // Pages answer in any order: the report does not depend on it.
  std::sort(report.warnings.begin(), report.warnings.end(),
            [](const CrawlWarning& a, const CrawlWarning& b) {
              return std::tie(a.kind, a.message) < std::tie(b.kind, b.message);
            });
  return report;
}

}  // namespace torchdex::crawler
