// LoopbackServer over POSIX sockets: one thread accepts and reads every request head with one
// poll(), a fixed pool answers complete heads, a pipe wakes the accepting thread to stop. Reads and writes are bounded by poll() deadlines; writes use
// MSG_NOSIGNAL, so a client that hangs up never raises SIGPIPE in torchdex.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <string_view>
#include <thread>
#include <vector>

#include "installer/platform/loopback_server.h"

namespace torchdex::installer {
namespace {

using Clock = std::chrono::steady_clock;

std::string_view Reason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 502:
      return "Bad Gateway";
    case 505:
      return "HTTP Version Not Supported";
    default:
      return "Status";
  }
}

int MillisLeft(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return left.count() <= 0 ? 0 : static_cast<int>(left.count());
}

// Waits for `events` on `fd` until the deadline; false on timeout, on error, and when `stop`
// (the server's wake pipe, written once by Stop and never drained) becomes readable, so that
// a client that sends nothing cannot hold Stop for the whole read timeout.
bool WaitFor(int fd, short events, Clock::time_point deadline, int stop) {
  while (true) {
    pollfd p[2] = {{fd, events, 0}, {stop, POLLIN, 0}};
    const int left = MillisLeft(deadline);
    if (left == 0) return false;
    const int ready = ::poll(p, 2, left);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0 || p[1].revents != 0) return false;
    return (p[0].revents & (events | POLLHUP | POLLERR)) != 0;
  }
}

void SendAll(int fd, std::string_view data, std::chrono::milliseconds timeout, int stop) {
  const Clock::time_point deadline = Clock::now() + timeout;
  while (!data.empty()) {
    if (!WaitFor(fd, POLLOUT, deadline, stop)) return;
    const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) return;
    data.remove_prefix(static_cast<std::size_t>(n));
  }
}

void Answer(int fd, const HttpResponse& response, bool with_body, std::chrono::milliseconds timeout,
            int stop) {
  std::string head = "HTTP/1.1 " + std::to_string(response.status) + " " +
                     std::string(Reason(response.status)) + "\r\n";
  head += "Content-Type: " + response.content_type + "\r\n";
  head += "Content-Length: " + std::to_string(response.body.size()) + "\r\n";
  // Every run has its own port; nothing it serves is worth keeping in pip's or uv's cache.
  head += "Cache-Control: no-store\r\n";
  if (response.status == 405) head += "Allow: GET, HEAD\r\n";
  head += "Connection: close\r\n\r\n";
  SendAll(fd, head, timeout, stop);
  if (with_body) SendAll(fd, response.body, timeout, stop);
}

HttpResponse Plain(int status, std::string body) {
  return HttpResponse{status, "text/plain; charset=utf-8", std::move(body) + "\n"};
}

class PosixLoopbackServer final : public LoopbackServer {
 public:
  PosixLoopbackServer(Handler handler, LoopbackServerLimits limits)
      : handler_(std::move(handler)), limits_(limits) {}

  ~PosixLoopbackServer() override { Stop(); }

  core::Status Listen() {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (listen_fd_ < 0) return Failed("socket");
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);  // never INADDR_ANY
    address.sin_port = 0;
    if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
      return Failed("bind 127.0.0.1:0");
    }
    if (::listen(listen_fd_, 128) != 0) return Failed("listen");
    socklen_t length = sizeof address;
    if (::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      return Failed("getsockname");
    }
    port_ = ntohs(address.sin_port);
    if (::pipe2(wake_, O_CLOEXEC) != 0) return Failed("pipe");
    accepting_ = std::thread([this] { AcceptLoop(); });
    for (int i = 0; i < std::max(1, limits_.threads); ++i) {
      workers_.emplace_back([this] { WorkLoop(); });
    }
    return {};
  }

  int port() const override { return port_; }

  void Stop() override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stopped_) return;
      stopped_ = true;
    }
    work_.notify_all();
    if (wake_[1] >= 0) {
      const char byte = 0;
      [[maybe_unused]] const ssize_t ignored = ::write(wake_[1], &byte, 1);
    }
    if (accepting_.joinable()) accepting_.join();
    if (listen_fd_ >= 0) ::close(listen_fd_);
    listen_fd_ = -1;
    for (std::thread& worker : workers_) worker.join();
    workers_.clear();
    for (const Ready& ready : waiting_) ::close(ready.fd);
    waiting_.clear();
    for (int& fd : wake_) {
      if (fd >= 0) ::close(fd);
      fd = -1;
    }
  }

 private:
  core::Status Failed(const char* what) {
    const std::string why = std::string(what) + ": " + std::strerror(errno);
    if (listen_fd_ >= 0) ::close(listen_fd_);
    listen_fd_ = -1;
    return core::MakeError("cannot serve on 127.0.0.1: " + why);
  }

  // A connection whose request head is still arriving: read by the accepting thread, so a
  // client that sends nothing holds no worker (issue 29, item 16).
  struct Pending {
    int fd = -1;
    std::string head;
    Clock::time_point deadline;
  };
  // A connection for a worker: its complete head, or the status to refuse it with.
  struct Ready {
    int fd = -1;
    std::string head;
    int refusal = 0;  // 408 or 431; 0 to answer `head`
  };

  // Accepts, and reads every connection's head with one poll(): a head complete, too long or
  // too slow goes to the workers. At most `max_pending` heads are read at once; a connection
  // past that closes the one accepted longest ago, so idle connections cannot keep a new one out.
  void AcceptLoop() {
    std::deque<Pending> pending;
    std::vector<pollfd> fds;
    while (true) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (stopped_) break;
      }
      fds.assign({{listen_fd_, static_cast<short>(ReadyFull() ? 0 : POLLIN), 0}, {wake_[0], POLLIN, 0}});
      Clock::time_point soonest = Clock::time_point::max();
      for (const Pending& p : pending) {
        fds.push_back({p.fd, POLLIN, 0});
        soonest = std::min(soonest, p.deadline);
      }
      const int timeout = soonest == Clock::time_point::max() ? 1000 : std::max(1, MillisLeft(soonest));
      const int ready = ::poll(fds.data(), fds.size(), timeout);
      if (ready < 0 && errno != EINTR) break;
      if (ready > 0 && fds[1].revents != 0) break;
      ReadHeads(pending, fds);
      if (ready > 0 && (fds[0].revents & POLLIN) != 0) Accept(pending);
    }
    for (const Pending& p : pending) ::close(p.fd);
  }

  bool ReadyFull() {
    std::lock_guard<std::mutex> lock(mutex_);
    return waiting_.size() >= limits_.max_waiting;
  }

  void Accept(std::deque<Pending>& pending) {
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) {
      // Out of descriptors: give the answers in progress a moment to free some.
      if (errno == EMFILE || errno == ENFILE) std::this_thread::sleep_for(std::chrono::milliseconds(10));
      return;
    }
    if (pending.size() >= std::max<std::size_t>(1, limits_.max_pending)) {
      ::close(pending.front().fd);
      pending.pop_front();
    }
    pending.push_back({fd, {}, Clock::now() + limits_.read_timeout});
  }

  // Reads what arrived on each pending connection (fds[2 + i] is pending[i]) and hands on each
  // that is finished: a complete head, one too long, one past its deadline, or a closed one.
  void ReadHeads(std::deque<Pending>& pending, const std::vector<pollfd>& fds) {
    const Clock::time_point now = Clock::now();
    std::deque<Pending> still;
    for (std::size_t i = 0; i < pending.size(); ++i) {
      Pending& p = pending[i];
      int refusal = 0;
      bool gone = false;
      if ((fds[2 + i].revents & (POLLIN | POLLHUP | POLLERR)) != 0) gone = !Receive(p);
      const bool complete = p.head.find("\r\n\r\n") != std::string::npos;
      if (!complete && p.head.size() > limits_.max_request_bytes) refusal = 431;
      if (!complete && !gone && refusal == 0 && now >= p.deadline) refusal = 408;
      if (gone && !complete) {
        ::close(p.fd);
      } else if (complete || refusal != 0) {
        Hand({p.fd, std::move(p.head), refusal});
      } else {
        still.push_back(std::move(p));
      }
    }
    pending.swap(still);
  }

  // Appends what can be read now; false when the client closed or failed.
  bool Receive(Pending& p) {
    char buffer[4096];
    while (p.head.size() <= limits_.max_request_bytes) {
      const ssize_t n = ::recv(p.fd, buffer, sizeof buffer, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
      if (n <= 0) return false;
      p.head.append(buffer, static_cast<std::size_t>(n));
      if (p.head.find("\r\n\r\n") != std::string::npos) return true;
    }
    return true;
  }

  void Hand(Ready ready) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      waiting_.push_back(std::move(ready));
    }
    work_.notify_one();
  }

  void WorkLoop() {
    while (true) {
      Ready ready;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        work_.wait(lock, [this] { return stopped_ || !waiting_.empty(); });
        if (stopped_) return;
        ready = std::move(waiting_.front());
        waiting_.pop_front();
      }
      Serve(ready);
      ::shutdown(ready.fd, SHUT_RDWR);
      ::close(ready.fd);
    }
  }

  void Serve(const Ready& ready) {
    const int fd = ready.fd;
    const std::string& head = ready.head;
    if (ready.refusal == 408) {
      Reply(fd, Plain(408, "no complete request in time"));
      return;
    }
    const std::size_t end = head.find("\r\n\r\n");
    if (ready.refusal == 431 || end > limits_.max_request_bytes) {
      Reply(fd, Plain(431, "request head over " + std::to_string(limits_.max_request_bytes) + " bytes"));
      return;
    }
    // "METHOD SP TARGET SP HTTP/1.x" (RFC 9112 §3).
    const std::string_view line = std::string_view(head).substr(0, head.find("\r\n"));
    const std::size_t first = line.find(' ');
    const std::size_t second = first == std::string_view::npos ? first : line.find(' ', first + 1);
    if (second == std::string_view::npos || line.find(' ', second + 1) != std::string_view::npos) {
      Reply(fd, Plain(400, "malformed request line"));
      return;
    }
    HttpRequest request{std::string(line.substr(0, first)),
                        std::string(line.substr(first + 1, second - first - 1))};
    const std::string_view version = line.substr(second + 1);
    if (version != "HTTP/1.1" && version != "HTTP/1.0") {
      Reply(fd, Plain(505, "HTTP/1.0 and HTTP/1.1 only"));
      return;
    }
    const bool head_only = request.method == "HEAD";
    if (request.method != "GET" && !head_only) {
      Reply(fd, Plain(405, "GET and HEAD only"));
      return;
    }
    HttpResponse response;
    try {
      response = handler_(request);
    } catch (const std::exception& error) {
      response = Plain(500, std::string("torchdex: ") + error.what());
    }
    Reply(fd, response, !head_only);
  }

  void Reply(int fd, const HttpResponse& response, bool with_body = true) {
    Answer(fd, response, with_body, limits_.write_timeout, wake_[0]);
  }

  const Handler handler_;
  const LoopbackServerLimits limits_;
  int listen_fd_ = -1;
  int port_ = 0;
  int wake_[2] = {-1, -1};
  std::mutex mutex_;
  std::condition_variable work_;  // a connection is waiting, or stop
  std::deque<Ready> waiting_;     // heads read, for the workers
  bool stopped_ = false;
  std::thread accepting_;
  std::vector<std::thread> workers_;
};

}  // namespace

core::Expected<std::unique_ptr<LoopbackServer>> LoopbackServer::Start(Handler handler,
                                                                      LoopbackServerLimits limits) {
  auto server = std::make_unique<PosixLoopbackServer>(std::move(handler), limits);
  if (core::Status ok = server->Listen(); !ok) return ok.error();
  return std::unique_ptr<LoopbackServer>(std::move(server));
}

}  // namespace torchdex::installer
