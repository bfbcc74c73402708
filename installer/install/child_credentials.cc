#include "installer/install/child_credentials.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "core/url.h"
#include "index/url.h"
#include "installer/platform/text.h"

namespace torchdex::installer {
namespace {

namespace fs = std::filesystem;

struct Authority {
  std::string host;      // lower case, without the port
  std::string userinfo;  // as written, "" when none
};

// The authority of an absolute URL; nullopt for one without a scheme or one whose host parsers
// read differently (index::HasAmbiguousAuthority), which gets no netrc entry.
std::optional<Authority> AuthorityOf(std::string_view url) {
  const std::size_t scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos || index::HasAmbiguousAuthority(url)) return std::nullopt;
  const std::size_t start = scheme_end + 3;
  const std::size_t end = std::min(url.find_first_of("/?#", start), url.size());
  std::string_view authority = url.substr(start, end - start);
  Authority out;
  if (const std::size_t at = authority.rfind('@'); at != std::string_view::npos) {
    out.userinfo = std::string(authority.substr(0, at));
    authority.remove_prefix(at + 1);
  }
  if (authority.empty()) return std::nullopt;
  const std::size_t port = authority.front() == '[' ? authority.find(']') + 1 : authority.find(':');
  out.host = ToLower(authority.substr(0, std::min(port, authority.size())));
  return out;
}

// A netrc token cannot be empty or hold white space, quotes, a backslash or a '#'.
bool FitsNetrc(const std::string& token) {
  return !token.empty() && std::none_of(token.begin(), token.end(), [](unsigned char c) {
    return c <= ' ' || c == 0x7f || c == '"' || c == '\'' || c == '\\' || c == '#';
  });
}

std::string ReadUserNetrc(const Environment& env) {
  std::string path;
  if (std::optional<std::string> named = Lookup(env, "NETRC"); named && !named->empty()) {
    path = *named;
  } else if (std::optional<std::string> home = Lookup(env, "HOME"); home && !home->empty()) {
    path = *home + "/.netrc";
  }
  std::error_code ec;
  constexpr std::uintmax_t kMaxNetrcBytes = 1 << 20;
  if (path.empty() || !fs::is_regular_file(path, ec) || fs::file_size(path, ec) > kMaxNetrcBytes) return {};
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

void ChildCredentials::Add(std::string_view url) {
  const std::optional<Authority> authority = AuthorityOf(url);
  // A host netrc cannot name as one token gets no entry either (a line of its own is the risk).
  if (!authority || authority->userinfo.empty() || !FitsNetrc(authority->host)) return;
  const std::size_t colon = authority->userinfo.find(':');
  Login login{core::PercentDecode(authority->userinfo.substr(0, colon)),
              colon == std::string::npos ? "" : core::PercentDecode(authority->userinfo.substr(colon + 1))};
  if (!FitsNetrc(login.user) || !FitsNetrc(login.password)) {
    unfit_.insert(authority->host);
    return;
  }
  const auto [it, added] = hosts_.emplace(authority->host, login);
  if (!added && (it->second.user != login.user || it->second.password != login.password)) {
    unfit_.insert(authority->host);
  }
}

std::string ChildCredentials::Strip(std::string_view url) const {
  const std::optional<Authority> authority = AuthorityOf(url);
  if (!authority || authority->userinfo.empty()) return std::string(url);
  const auto it = hosts_.find(authority->host);
  if (it == hosts_.end()) return std::string(url);
  const std::size_t colon = authority->userinfo.find(':');
  const bool same = core::PercentDecode(authority->userinfo.substr(0, colon)) == it->second.user &&
                    colon != std::string::npos &&
                    core::PercentDecode(authority->userinfo.substr(colon + 1)) == it->second.password;
  return same ? core::StripCredentials(url) : std::string(url);
}

std::string ChildCredentials::Netrc(std::string_view user_netrc) const {
  std::string text;
  for (const auto& [host, login] : hosts_) {
    text.append("machine ").append(host).append(" login ").append(login.user);
    text.append(" password ").append(login.password).append("\n");
  }
  if (!user_netrc.empty()) text.append("\n").append(user_netrc).append("\n");
  return text;
}

core::Status GiveNetrc(const ChildCredentials& credentials, const Environment& env,
                       const std::string& private_dir, Environment& child_env) {
  if (credentials.empty()) return {};
  const std::string path = (fs::path(private_dir) / "netrc").string();
  std::error_code ec;
  {
    std::ofstream create(path, std::ios::binary | std::ios::trunc);  // empty until it is private
  }
  fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write, fs::perm_options::replace, ec);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << credentials.Netrc(ReadUserNetrc(env));
  out.close();
  if (ec || !out) {
    return core::MakeError("cannot write the installer's netrc " + path + (ec ? ": " + ec.message() : ""),
                           core::ErrorCode::kInstallerFailed);
  }
  child_env["NETRC"] = path;
  return {};
}

}  // namespace torchdex::installer
