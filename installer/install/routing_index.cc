#include "installer/install/routing_index.h"

#include <iomanip>
#include <map>
#include <random>
#include <sstream>

#include "core/name.h"
#include "core/url.h"
#include "core/wheel.h"
#include "index/page.h"
#include "index/url.h"
#include "installer/install/transport.h"

namespace torchdex::installer {

// One link of a PEP 503 page, with the attributes pip and uv read.
struct IndexLink {
  std::string url;  // absolute, without fragment
  std::string filename;
  std::string sha256;
  std::string requires_python;
  bool has_metadata = false;
  std::string metadata_sha256;
  std::optional<std::string> yanked;
};

namespace {

std::string WithSlash(std::string url) {
  if (!url.empty() && url.back() != '/') url += '/';
  return url;
}

std::string EscapeHtml(std::string_view text) {
  // Most hrefs and filenames need nothing: a page of PyPI's has thousands of them.
  if (text.find_first_of("&<>\"'") == std::string_view::npos) return std::string(text);
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// A message for the installer, which may print it: the credentials of an index URL hidden.
HttpResponse Text(int status, const std::string& message) {
  return HttpResponse{status, "text/plain; charset=utf-8",
                      "torchdex routing index: " + core::RedactCredentials(message) + "\n"};
}

// The project a file belongs to: a wheel's parsed name; for anything else (sdists, eggs), the
// normalised filename must start with "<name>-", as pip's own check of a file against a page.
bool FileOfProject(const std::string& filename, const std::string& name) {
  if (filename.size() > 4 && filename.compare(filename.size() - 4, 4, ".whl") == 0) {
    core::Expected<core::WheelFilename> wheel = core::ParseWheelFilename(filename);
    return wheel && wheel->name == name;
  }
  return core::NormalizeName(filename).rfind(name + "-", 0) == 0;
}



std::string RenderPage(const std::string& name, const std::vector<IndexLink>& links) {
  std::ostringstream page;
  page << "<!DOCTYPE html>\n<html>\n  <head>\n"
       << "    <meta name=\"pypi:repository-version\" content=\"1.0\">\n"
       << "    <title>Links for " << EscapeHtml(name) << "</title>\n  </head>\n  <body>\n"
       << "    <h1>Links for " << EscapeHtml(name) << "</h1>\n";
  for (const IndexLink& link : links) {
    std::string href = link.url;
    if (!link.sha256.empty()) href += "#sha256=" + link.sha256;
    page << "    <a href=\"" << EscapeHtml(href) << "\"";
    if (!link.requires_python.empty()) {
      page << " data-requires-python=\"" << EscapeHtml(link.requires_python) << "\"";
    }
    if (link.has_metadata) {
      // PEP 714's name and PEP 658's, as PyPI writes both.
      const std::string value =
          link.metadata_sha256.empty() ? "true" : "sha256=" + link.metadata_sha256;
      page << " data-core-metadata=\"" << value << "\" data-dist-info-metadata=\"" << value << "\"";
    }
    if (link.yanked) page << " data-yanked=\"" << EscapeHtml(*link.yanked) << "\"";
    page << ">" << EscapeHtml(link.filename) << "</a><br/>\n";
  }
  page << "  </body>\n</html>\n";
  return page.str();
}

// The page as pip or uv reads it: each link without the credentials the child's netrc gives
// (child_credentials.h), so no page carries a password.
HttpResponse Page(const std::string& name, std::vector<IndexLink> links, const ChildCredentials& credentials) {
  for (IndexLink& link : links) link.url = credentials.Strip(link.url);
  return HttpResponse{200, "text/html; charset=utf-8", RenderPage(name, links)};
}

// 128 bits for the routing index's path; an error when the system gives no randomness.
core::Expected<std::string> RandomToken() {
  try {
    std::random_device device;
    std::ostringstream token;
    for (int i = 0; i < 4; ++i) token << std::hex << std::setw(8) << std::setfill('0') << device();
    return token.str();
  } catch (const std::exception& e) {
    return core::MakeError(std::string("the routing index: no random token: ") + e.what(),
                           core::ErrorCode::kInstallerFailed);
  }
}

// Whether `target` starts with "/<token>/", compared in time that does not depend on where a
// guess first differs.
bool HasToken(std::string_view target, const std::string& token) {
  if (target.size() < token.size() + 2 || target[0] != '/' || target[token.size() + 1] != '/') return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < token.size(); ++i) diff |= static_cast<unsigned char>(target[i + 1] ^ token[i]);
  return diff == 0;
}

// The project name a request asks for, normalised; "" when the target is not /simple/<name>/.
std::string ProjectOf(std::string_view target) {
  target = target.substr(0, target.find_first_of("?#"));
  constexpr std::string_view kPrefix = "/simple/";
  if (target.substr(0, kPrefix.size()) != kPrefix) return {};
  target.remove_prefix(kPrefix.size());
  if (!target.empty() && target.back() == '/') target.remove_suffix(1);
  if (target.empty() || target.find('/') != std::string_view::npos) return {};
  // Decoded before the check: "tor%63h" is torch. A '%' left undecoded is not a name.
  const std::string decoded = core::PercentDecode(target);
  if (!core::IsValidName(decoded)) return {};
  return core::NormalizeName(decoded);
}

}  // namespace

RoutingIndexConfig RoutingConfigFor(const InstallPlan& plan,
                                    const std::vector<std::string>& routed_names,
                                    std::string default_index_url, MirrorRule mirror) {
  RoutingIndexConfig config;
  for (const std::string& name : routed_names) {
    config.routed_projects.insert(core::NormalizeName(name));
  }
  for (const PlannedWheel& wheel : plan.routed) config.routed_projects.insert(wheel.name);
  config.backend = plan.backend;
  config.backend_index_url = WithSlash(plan.backend_index_url);
  config.default_index_url = WithSlash(plan.default_index_url.empty() ? std::move(default_index_url)
                                                                      : plan.default_index_url);
  config.pinned = plan.routed;
  config.trusted_hosts = plan.trusted_hosts;
  config.mirror = std::move(mirror);
  for (const std::string* url : {&config.backend_index_url, &config.default_index_url, &config.mirror.mirror_url}) {
    config.credentials.Add(*url);
  }
  for (const PlannedWheel& wheel : config.pinned) config.credentials.Add(wheel.url);
  return config;
}

std::string DescribeRoutingIndex(const RoutingIndexConfig& config, std::string_view url) {
  std::string names;
  for (const std::string& name : config.routed_projects) {
    names += (names.empty() ? "" : ", ") + name;
  }
  return "routing index: " + std::string(url) +
         " (the installer's only index, this run only)\n"
         "  routed names, from backend " +
         config.backend + " (" + config.backend_index_url +
         ") only: " + (names.empty() ? "(none)" : names) +
         "\n"
         "  every other name, from the default index: " +
         config.default_index_url + "\n";
}

RoutingIndex::RoutingIndex(RoutingIndexConfig config, FetchPage fetch)
    : config_(std::move(config)), fetch_(std::move(fetch)) {}

HttpResponse RoutingIndex::Answer(const HttpRequest& request) {
  RoutedAnswer answer;
  const std::string name = ProjectOf(request.target);
  HttpResponse response;
  if (name.empty()) {
    answer.name = request.target.substr(0, 200);
    response = Text(404, "this index answers /simple/<project>/ only (no project list); \"" +
                             answer.name + "\" is not that");
  } else {
    answer.name = name;
    // The one decision: a routed name never reaches Forwarded.
    response = config_.routed_projects.count(name) ? Routed(name, answer) : Forwarded(name, answer);
  }
  answer.status = response.status;
  if (response.status == 502) answer.failure = response.body.substr(0, 1000);
  std::lock_guard<std::mutex> lock(mutex_);
  answers_.push_back(std::move(answer));
  return response;
}

HttpResponse RoutingIndex::Routed(const std::string& name, RoutedAnswer& answer) {
  std::vector<IndexLink> links;
  for (const PlannedWheel& wheel : config_.pinned) {
    if (wheel.name != name || wheel.url.empty()) continue;
    links.push_back({wheel.url,
                     wheel.filename.empty() ? index::UrlFilename(wheel.url) : wheel.filename,
                     wheel.sha256, "", wheel.metadata_read, "", std::nullopt});
  }
  if (!links.empty()) {
    RecordServed(name, links);
    answer.source = RoutedAnswer::Source::kPinned;
    answer.files = static_cast<int>(links.size());
    return Page(name, std::move(links), config_.credentials);
  }
  const std::string url = config_.backend_index_url + name + "/";
  const index::FetchResult result = fetch_(url);
  if (result.outcome == index::FetchOutcome::kAbsent) {
    return Text(404, "backend " + config_.backend + " has no page for the routed project " + name +
                         " (" + url + " answered " + std::to_string(result.status) +
                         "); a routed name is never looked up on the default index");
  }
  return Relay(name, url, result, RoutedAnswer::Source::kBackend, answer);
}

HttpResponse RoutingIndex::Forwarded(const std::string& name, RoutedAnswer& answer) {
  const std::string url = config_.default_index_url + name + "/";
  const index::FetchResult result = fetch_(url);
  if (result.outcome == index::FetchOutcome::kAbsent) {
    return Text(404, "the default index has no page for " + name + " (" + url + " answered " +
                         std::to_string(result.status) + ")");
  }
  return Relay(name, url, result, RoutedAnswer::Source::kDefaultIndex, answer);
}

HttpResponse RoutingIndex::Relay(const std::string& name, const std::string& page_url,
                                 const index::FetchResult& result, RoutedAnswer::Source source,
                                 RoutedAnswer& answer) {
  if (result.outcome == index::FetchOutcome::kFailed) {
    const std::string where = source == RoutedAnswer::Source::kBackend
                                  ? "backend " + config_.backend
                                  : std::string("the default index");
    return Text(502, "cannot read " + where + "'s page of " + name + ": " +
                         (result.error.empty() ? page_url : result.error));
  }
  const std::string base = result.effective_url.empty() ? page_url : result.effective_url;
  // A redirect must not lead off HTTPS either.
  if (core::Status ok = CheckTransport(base, config_.trusted_hosts, "the page of " + name); !ok) {
    return Text(502, ok.error().message);
  }
  core::Expected<index::IndexPage> page = index::ParsePage(result.body, result.content_type, base);
  if (!page) return Text(502, base + ": " + page.error().message);
  std::vector<IndexLink> links;
  const bool backend = source == RoutedAnswer::Source::kBackend;
  for (const index::Anchor& anchor : page->anchors) {
    const std::string filename = index::UrlFilename(anchor.url);
    // The backend's links as the planner takes them: onto the mirror, or refused off it.
    const std::string url = backend ? config_.mirror.Rewrite(anchor.url) : anchor.url;
    if (filename.empty() || !FileOfProject(filename, name) ||
        !CheckTransport(url, config_.trusted_hosts, filename) ||
        (backend && !config_.mirror.Check(url, filename))) {
      ++answer.dropped;
      continue;
    }
    links.push_back({url, filename, anchor.sha256, anchor.requires_python, anchor.has_metadata,
                     anchor.metadata_sha256, anchor.yanked});
  }
  if (backend) RecordServed(name, links);
  answer.source = source;
  answer.files = static_cast<int>(links.size());
  return Page(name, std::move(links), config_.credentials);
}

void RoutingIndex::RecordServed(const std::string& name, const std::vector<IndexLink>& links) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::map<std::string, std::string>& files = served_[name];
  for (const IndexLink& link : links) files[core::PercentDecode(core::StripCredentials(link.url))] = link.sha256;
}

bool RoutingIndex::ServedRouted(const std::string& name, const std::string& url, const std::string& sha256) const {
  // A page without hashes (nightly) is served without them: the URL decides, with the hash it had.
  if (!config_.routed_projects.count(name)) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  const auto files = served_.find(name);
  if (files == served_.end()) return false;
  // Credentials aside: the page pip or uv read had none where the netrc gave them.
  const auto file = files->second.find(core::PercentDecode(core::StripCredentials(url)));
  return file != files->second.end() && file->second == sha256;
}

std::vector<RoutedAnswer> RoutingIndex::Answers() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return answers_;
}

std::string RoutingIndex::Summary() const {
  // name -> where it came from, or why it did not; each name once, sorted.
  std::map<std::string, std::string> backend, other, refused;
  for (const RoutedAnswer& answer : Answers()) {
    if (answer.status == 200) {
      (answer.source == RoutedAnswer::Source::kDefaultIndex ? other : backend)[answer.name] = "";
    } else if (config_.routed_projects.count(answer.name)) {
      refused[answer.name] = std::to_string(answer.status);
    }
  }
  auto join = [](const std::map<std::string, std::string>& names, bool with_status) {
    std::string text;
    for (const auto& [name, status] : names) {
      text += (text.empty() ? "" : ", ") + name + (with_status ? " (" + status + ")" : "");
    }
    return text;
  };
  std::string text;
  if (!backend.empty()) {
    text += "routing index: " + join(backend, false) + " from backend " + config_.backend + " (" +
            config_.backend_index_url + ")\n";
  }
  if (!other.empty()) {
    text += "routing index: " + join(other, false) + " from the default index (" +
            config_.default_index_url + ")\n";
  }
  if (!refused.empty()) {
    text += "routing index: routed, not on backend " + config_.backend +
            " and so not served: " + join(refused, true) + "\n";
  }
  return text;
}

// Each server thread reads with a fetcher of its own (a curl multi handle keeps its
// connections, so a thread reuses them), or all share the one the caller gave, in turn.
struct RoutingIndexServer::Fetchers {
  index::Fetcher* shared = nullptr;
  index::FetchOptions options;
  std::mutex mutex;  // guards `idle`, and `shared` while it reads
  std::vector<std::unique_ptr<index::Fetcher>> idle;

  index::FetchResult Fetch(const std::string& url) {
    index::FetchResult result;
    result.request.url = url;
    result.error = url + ": the fetcher gave no answer";
    auto run = [&](index::Fetcher& fetcher) {
      fetcher.Run({index::FetchRequest{url, "", "", 0}}, [&](index::FetchResult&& done) {
        result = std::move(done);
        return std::vector<index::FetchRequest>{};
      });
    };
    if (shared != nullptr) {
      std::lock_guard<std::mutex> lock(mutex);
      run(*shared);
      return result;
    }
    std::unique_ptr<index::Fetcher> own;
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (!idle.empty()) {
        own = std::move(idle.back());
        idle.pop_back();
      }
    }
    if (!own) own = index::MakeCurlFetcher(options);
    run(*own);
    std::lock_guard<std::mutex> lock(mutex);
    idle.push_back(std::move(own));
    return result;
  }
};

index::FetchOptions RoutingFetchOptions() {
  index::FetchOptions options;
  options.parallelism = 1;
  options.max_attempts = 3;
  options.total_timeout_s = 60;
  options.max_body_bytes = 64ull << 20;
  return options;
}

core::Expected<std::unique_ptr<RoutingIndexServer>> RoutingIndexServer::Start(
    RoutingIndexConfig config, index::Fetcher* shared, index::FetchOptions options) {
  if (core::Status ok = CheckTransport(config.backend_index_url, config.trusted_hosts,
                                       "backend " + config.backend + " index");
      !ok) {
    return ok.error();
  }
  if (core::Status ok =
          CheckTransport(config.default_index_url, config.trusted_hosts, "default index");
      !ok) {
    return ok.error();
  }
  std::unique_ptr<RoutingIndexServer> server(new RoutingIndexServer());
  server->fetchers_ = std::make_unique<Fetchers>();
  server->fetchers_->shared = shared;
  server->fetchers_->options = options;
  Fetchers* fetchers = server->fetchers_.get();
  server->index_ = std::make_unique<RoutingIndex>(
      std::move(config), [fetchers](const std::string& url) { return fetchers->Fetch(url); });
  RoutingIndex* index = server->index_.get();
  core::Expected<std::string> token = RandomToken();
  if (!token) return token.error();
  server->token_ = *token;
  core::Expected<std::unique_ptr<LoopbackServer>> listening =
      LoopbackServer::Start([index, token = *token](const HttpRequest& request) {
        if (!HasToken(request.target, token)) {
          return HttpResponse{404, "text/plain; charset=utf-8", "torchdex routing index: not this run's path\n"};
        }
        return index->Answer(HttpRequest{request.method, request.target.substr(token.size() + 1)});
      });
  if (!listening) {
    return core::MakeError("the routing index: " + listening.error().message,
                           core::ErrorCode::kInstallerFailed);
  }
  server->server_ = std::move(listening).value();
  return server;
}

RoutingIndexServer::~RoutingIndexServer() {
  if (server_) server_->Stop();
}

std::string RoutingIndexServer::url() const {
  return "http://127.0.0.1:" + std::to_string(server_->port()) + "/" + token_ + "/simple/";
}

std::string RoutingIndexServer::DisplayUrl() const {
  return "http://127.0.0.1:" + std::to_string(server_->port()) + "/<token>/simple/";
}

core::Status RoutingIndexServer::Give(InstallerKind installer, const Environment& env,
                                      const std::string& private_dir, Environment& child_env) const {
  child_env[std::string(IndexVariable(installer))] = url();
  return GiveNetrc(index_->config().credentials, env, private_dir, child_env);
}

}  // namespace torchdex::installer
