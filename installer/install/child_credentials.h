// The credentials of the indexes and mirrors an install reads, handed to pip or uv without
// argv (issue 29, item 9; docs/install.md, "What a local user can see"). An argv is
// world-readable (/proc/PID/cmdline), and so is every page the routing index serves to whoever
// has its URL; so the URLs on pip's or uv's argv and on the routing index's pages carry no
// user:password, and the child reads them from a netrc file of this run instead (mode 0600, in
// the run's private directory, NETRC pointing at it; pip reads NETRC through requests, uv
// natively). The user's own netrc ($NETRC, else ~/.netrc) follows this run's entries, so the
// hosts it names keep working.
//
// netrc holds one login a host, and its tokens cannot hold white space or quotes: a URL whose
// credentials do not fit (a second user for a host already given, a password with a space)
// keeps them, and Unfit() names its host for a warning.
#ifndef TORCHDEX_INSTALLER_INSTALL_CHILD_CREDENTIALS_H_
#define TORCHDEX_INSTALLER_INSTALL_CHILD_CREDENTIALS_H_

#include <map>
#include <set>
#include <string>
#include <string_view>

#include "core/expected.h"
#include "installer/platform/environment.h"

namespace torchdex::installer {

class ChildCredentials {
 public:
  /// Takes the user:password of `url` (percent-decoded), if it has one, for its host.
  void Add(std::string_view url);
  /// `url` without its user information when this run's netrc gives its host exactly that;
  /// else `url` unchanged.
  std::string Strip(std::string_view url) const;
  bool empty() const { return hosts_.empty(); }
  /// Hosts whose credentials stay in their URLs (see above), sorted.
  const std::set<std::string>& Unfit() const { return unfit_; }
  /// The netrc text: one `machine` line a host, then `user_netrc` as it is.
  std::string Netrc(std::string_view user_netrc) const;

 private:
  struct Login {
    std::string user;
    std::string password;
  };
  std::map<std::string, Login> hosts_;  // host (lower case, no port) -> its login
  std::set<std::string> unfit_;
};

/// Writes this run's netrc into `private_dir` (which the caller made, mode 0700) with mode 0600,
/// the user's own ($NETRC of `env`, else $HOME/.netrc, when readable) after it, and points
/// `child_env`'s NETRC at it. Nothing happens when `credentials` is empty.
core::Status GiveNetrc(const ChildCredentials& credentials, const Environment& env,
                       const std::string& private_dir, Environment& child_env);

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_INSTALL_CHILD_CREDENTIALS_H_
