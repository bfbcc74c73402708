// A small HTTP/1.1 server on 127.0.0.1, inside the torchdex process, for what torchdex serves
// to its own children (the routing index of `install`, docs/install.md). It binds the loopback
// address only (never a wildcard), on an ephemeral port; one thread reads every request head, a
// fixed pool of threads answers complete ones; every request, and the number of connections
// read and waiting, is bounded; every response ends with
// `Connection: close`, so a client's idle keep-alive connection never holds a thread. The
// handler is called on those threads, at the same time for different connections.
// POSIX sockets: loopback_server_posix.cc.
#ifndef TORCHDEX_INSTALLER_PLATFORM_LOOPBACK_SERVER_H_
#define TORCHDEX_INSTALLER_PLATFORM_LOOPBACK_SERVER_H_

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "core/expected.h"

namespace torchdex::installer {

struct HttpRequest {
  std::string method;  // "GET"
  std::string target;  // as sent: "/simple/torch/?x" (path and query)
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};

struct LoopbackServerLimits {
  int threads = 16;               // connections answered at once
  std::size_t max_waiting = 256;  // heads read, not yet answered; then the backlog holds them
  /// Heads being read at once, by one thread that polls them all: an idle connection holds no
  /// worker, and one past this closes the connection accepted longest ago (issue 29, item 16).
  std::size_t max_pending = 512;
  std::size_t max_request_bytes = 16 << 10;       // request line and headers; more: 431
  std::chrono::milliseconds read_timeout{10000};  // for the whole request head
  std::chrono::milliseconds write_timeout{60000};
};

class LoopbackServer {
 public:
  using Handler = std::function<HttpResponse(const HttpRequest&)>;

  /// Binds 127.0.0.1:0 and starts serving; an error says which call failed.
  static core::Expected<std::unique_ptr<LoopbackServer>> Start(Handler handler,
                                                               LoopbackServerLimits limits = {});

  virtual ~LoopbackServer() = default;  // stops
  /// The port it listens on (stays readable after Stop).
  virtual int port() const = 0;
  /// Closes the listening socket (the port is closed when this returns), drops connections not
  /// yet answered or still sending, and waits for handlers in progress to return. Idempotent.
  virtual void Stop() = 0;
};

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_PLATFORM_LOOPBACK_SERVER_H_
