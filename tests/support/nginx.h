// A real nginx on 127.0.0.1 for tests that need realistic serving (ETag, 304, gzip, static
// files): a child process with a generated config in its own temporary directory (pid file,
// logs and temp paths all inside it, so it runs as root or not without touching /var).
// Paths behave like download.pytorch.org: /whl/cu128/torch and /whl/cu128/torch/ both serve
// whl/cu128/torch/index.html, without a redirect.
#ifndef TORCHDEX_TESTS_SUPPORT_NGINX_H_
#define TORCHDEX_TESTS_SUPPORT_NGINX_H_

#include <sys/types.h>

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "core/expected.h"

namespace torchdex::testing {

class Nginx {
 public:
  /// Starts nginx serving `document_root` and waits until its port answers. Fails (with what
  /// nginx said) when nginx is not installed or does not start; never skips. The binary is
  /// $TORCHDEX_NGINX, else /usr/sbin/nginx, else `nginx` on PATH. With `basic_auth`
  /// ("user:password"), every request needs those credentials (HTTP basic authentication).
  static core::Expected<std::unique_ptr<Nginx>> Start(const std::filesystem::path& document_root,
                                                      const std::string& basic_auth = "");

  ~Nginx();  // stops nginx and removes its temporary directory
  Nginx(const Nginx&) = delete;
  Nginx& operator=(const Nginx&) = delete;

  int port() const { return port_; }
  /// "http://127.0.0.1:<port><path>".
  std::string Url(std::string_view path) const;
  const std::filesystem::path& directory() const { return directory_; }
  /// The access log so far, a line per request:
  /// `<connection serial> <request number on it> <status> "<request line>" "<User-Agent>"`.
  std::string AccessLog() const;

 private:
  Nginx() = default;

  pid_t pid_ = -1;
  int port_ = 0;
  std::filesystem::path directory_;
};

}  // namespace torchdex::testing

#endif  // TORCHDEX_TESTS_SUPPORT_NGINX_H_
