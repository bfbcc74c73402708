// The routing index (docs/install.md, "The routing index"): a PEP 503 simple index that
// torchdex serves on 127.0.0.1 for one `install` run and gives pip or uv as their only index.
// It is what keeps a routed name off the default index when pip or uv reach it through a
// dependency (lightning, torchmetrics and timm require torch; issue 13 A.1):
//
//   GET /simple/<name>/   a routed name: the plan's wheel when the plan pinned the name, else
//                         the chosen backend's page for it; 404 when the backend lacks it.
//                         Never the default index, whatever happens.
//                         any other name: the default index's page, relayed.
//
// The decision is made on the PEP 503-normalised name (percent-decoded first; what is not a
// project name is refused), so "Torch", "TORCH_" and "tor%63h" are torch. A page is parsed and
// written again: every link absolute (pip and uv download from the backend or the default index
// directly, never through torchdex), the sha256, requires-python, core-metadata and yanked
// attributes kept, links that break the HTTPS rule (transport.h) dropped, and only files of the
// project asked for listed, so no page can carry another project's files.
#ifndef TORCHDEX_INSTALLER_INSTALL_ROUTING_INDEX_H_
#define TORCHDEX_INSTALLER_INSTALL_ROUTING_INDEX_H_

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.h"
#include "index/fetcher.h"
#include "installer/install/child_credentials.h"
#include "installer/install/pip_command.h"
#include "installer/install/plan.h"
#include "installer/platform/environment.h"
#include "installer/platform/loopback_server.h"

namespace torchdex::installer {

/// pip's and uv's default index, where every other name goes when nothing else is configured.
inline constexpr std::string_view kPypiSimpleUrl = "https://pypi.org/simple/";

/// What `install --dry-run` shows for the routing index's URL: the port and the token are
/// chosen at run time.
inline constexpr std::string_view kRoutingIndexPlaceholderUrl = "http://127.0.0.1:<port>/<token>/simple/";

struct IndexLink;  // one link of a page the routing index writes (routing_index.cc)

struct RoutingIndexConfig {
  std::set<std::string> routed_projects;  // normalised: PlanRequest::routed_projects
  std::string backend;                    // "cu124"
  std::string backend_index_url;          // ".../whl/cu124/"
  std::string default_index_url;          // every other name: --index-url, else the installer's
  std::vector<PlannedWheel> pinned;       // the plan's routed wheels: answered with exactly these
  std::vector<std::string> trusted_hosts;
  MirrorRule mirror;  // the backend's pages keep the plan's mirror rule: nothing leaves a mirror
  /// The credentials of the indexes above, the mirror and the pinned wheels: the pages link
  /// without them (child_credentials.h), and the child reads them from this run's netrc.
  ChildCredentials credentials = {};
};

/// The configuration for a plan: its backend, default index (`default_index_url` when the
/// plan has none), trusted hosts and routed wheels, the decision's routed names, the plan's
/// mirror rule (MirrorOf its request), and the credentials of all these URLs.
RoutingIndexConfig RoutingConfigFor(const InstallPlan& plan,
                                    const std::vector<std::string>& routed_names,
                                    std::string default_index_url, MirrorRule mirror = {});

/// For `install --dry-run`: the URL the installer gets, what it serves from where.
///   routing index: http://127.0.0.1:<port>/simple/ (the installer's only index, this run only)
///     routed names, from backend cu124 (https://...) only: torch, torchvision, ...
///     every other name, from the default index: https://pypi.org/simple/
std::string DescribeRoutingIndex(const RoutingIndexConfig& config, std::string_view url);

/// One answer, for the summary after the run and for tests.
struct RoutedAnswer {
  enum class Source { kPinned, kBackend, kDefaultIndex, kNone };
  std::string name;  // normalised; the request target when it was not a project name
  Source source = Source::kNone;
  int status = 0;
  int files = 0;    // files listed
  int dropped = 0;  // links left out: another project's files, or plain HTTP elsewhere
  std::string failure;  // with status 502: why the page could not be read (the installer shows
                        // only "502 Bad Gateway")
};

class RoutingIndex {
 public:
  /// Reads one page; called on the server's threads, several at once.
  using FetchPage = std::function<index::FetchResult(const std::string& url)>;

  RoutingIndex(RoutingIndexConfig config, FetchPage fetch);

  /// The answer to one request. Thread-safe.
  HttpResponse Answer(const HttpRequest& request);

  std::vector<RoutedAnswer> Answers() const;
  /// Whether `url` (compared percent-decoded) with `sha256` is a file this index listed for the
  /// routed `name`: the plan's pinned wheel or a file of the backend's page. What a resolver
  /// locked or an installer chose for a routed name is checked against this (issue 29, items 3
  /// and 5): a routed name comes from nothing else.
  bool ServedRouted(const std::string& name, const std::string& url, const std::string& sha256) const;
  /// What was served, in lines for the user: "routing index: torch, triton from backend cu124
  /// (URL); filelock, needs-torch from the default index (URL)"; "" when nothing was asked.
  std::string Summary() const;

  const RoutingIndexConfig& config() const { return config_; }

 private:
  HttpResponse Routed(const std::string& name, RoutedAnswer& answer);
  HttpResponse Forwarded(const std::string& name, RoutedAnswer& answer);
  HttpResponse Relay(const std::string& name, const std::string& page_url,
                     const index::FetchResult& result, RoutedAnswer::Source source,
                     RoutedAnswer& answer);

  const RoutingIndexConfig config_;
  const FetchPage fetch_;
  void RecordServed(const std::string& name, const std::vector<IndexLink>& links);

  mutable std::mutex mutex_;
  std::vector<RoutedAnswer> answers_;
  std::map<std::string, std::map<std::string, std::string>> served_;  // name -> decoded URL -> sha256
};

/// The routing index served on 127.0.0.1 for one run: Start, give it to the installer (Give),
/// Stop when it has exited (the destructor stops too). Its pages are served under a path of
/// 128 random bits, new each run: a request for any other path is answered 404 without
/// reading anything, so a local process that cannot read the child's environment cannot read
/// the pages either (issue 29, item 9).
class RoutingIndexServer {
 public:
  /// `shared`, when not null, is the fetcher to read pages with (one page at a time, as the
  /// tests' fetchers expect); else each server thread reads with its own curl fetcher, made on
  /// first use with `options`. The backend and default index URLs must pass the HTTPS rule.
  static core::Expected<std::unique_ptr<RoutingIndexServer>> Start(RoutingIndexConfig config,
                                                                   index::Fetcher* shared,
                                                                   index::FetchOptions options);
  ~RoutingIndexServer();

  /// "http://127.0.0.1:PORT/TOKEN/simple/": a secret while the run lasts, given to the child
  /// in its environment, never on an argv or in torchdex's output.
  std::string url() const;
  /// url() as torchdex prints it: the token shown as "<token>".
  std::string DisplayUrl() const;
  /// Gives the index to the installer's child: url() in `child_env`'s PIP_INDEX_URL (pip) or
  /// UV_DEFAULT_INDEX (uv), never on its argv (world-readable), and the credentials' netrc,
  /// written into `private_dir` (GiveNetrc).
  core::Status Give(InstallerKind installer, const Environment& env, const std::string& private_dir,
                    Environment& child_env) const;
  int port() const { return server_->port(); }
  /// Closes the port and waits for answers in progress. Idempotent.
  void Stop() { server_->Stop(); }
  const RoutingIndex& index() const { return *index_; }

 private:
  struct Fetchers;
  RoutingIndexServer() = default;

  std::unique_ptr<Fetchers> fetchers_;
  std::unique_ptr<RoutingIndex> index_;
  std::unique_ptr<LoopbackServer> server_;
  std::string token_;
};

/// The bounds of the routing index's own reads: pages up to 64 MiB (PyPI's largest simple
/// pages are a few MiB), a minute per attempt, three attempts.
index::FetchOptions RoutingFetchOptions();

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_INSTALL_ROUTING_INDEX_H_
