#include "tests/support/fault_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace torchdex::testing {
namespace {

std::string Lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::string Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) {
    text.remove_suffix(1);
  }
  return std::string(text);
}

const char* Reason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 301:
      return "Moved Permanently";
    case 302:
      return "Found";
    case 304:
      return "Not Modified";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 410:
      return "Gone";
    case 429:
      return "Too Many Requests";
    case 500:
      return "Internal Server Error";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    default:
      return "Status";
  }
}

bool SendAll(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t sent = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (sent < 0 && errno == EINTR) continue;
    if (sent <= 0) return false;
    data.remove_prefix(static_cast<std::size_t>(sent));
  }
  return true;
}

void CloseQuietly(int fd) {
  if (fd >= 0) ::close(fd);
}

}  // namespace

FaultResponse FaultResponse::Ok(std::string body, std::string content_type) {
  FaultResponse response;
  response.body = std::move(body);
  response.headers.emplace_back("Content-Type", std::move(content_type));
  return response;
}

FaultResponse FaultResponse::Status(int status, std::string body) {
  FaultResponse response;
  response.status = status;
  response.body = std::move(body);
  return response;
}

FaultResponse FaultResponse::Redirect(std::string location, int status) {
  FaultResponse response;
  response.status = status;
  response.headers.emplace_back("Location", std::move(location));
  return response;
}

FaultResponse FaultResponse::TooManyRequests(int retry_after_s) {
  FaultResponse response;
  response.status = 429;
  response.headers.emplace_back("Retry-After", std::to_string(retry_after_s));
  return response;
}

FaultResponse FaultResponse::Hang() {
  FaultResponse response;
  response.hang = true;
  return response;
}

FaultResponse FaultResponse::Truncated(std::string body, std::size_t sent) {
  FaultResponse response;
  response.body = std::move(body);
  response.send_only = sent;
  return response;
}

FaultResponse FaultResponse::Garbage(std::string bytes) {
  FaultResponse response;
  response.raw = std::move(bytes);
  return response;
}

FaultResponse FaultResponse::Generated(std::uint64_t bytes, bool announce_length) {
  FaultResponse response;
  response.generated_bytes = bytes;
  response.announce_length = announce_length;
  response.headers.emplace_back("Content-Type", "text/html");
  return response;
}

std::string RecordedRequest::Header(const std::string& name) const {
  const auto found = headers.find(name);
  return found == headers.end() ? std::string() : found->second;
}

FaultServer::FaultServer() {
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
  wake_read_ = pipe_fds[0];
  wake_write_ = pipe_fds[1];

  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) throw std::runtime_error("socket failed");
  const int yes = 1;
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t length = sizeof address;
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::listen(listen_fd_, 128) != 0 ||
      ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    const std::string why = std::strerror(errno);
    CloseQuietly(listen_fd_);
    CloseQuietly(wake_read_);
    CloseQuietly(wake_write_);
    throw std::runtime_error("fault server cannot listen on 127.0.0.1: " + why);
  }
  port_ = ntohs(address.sin_port);
  acceptor_ = std::thread([this] { AcceptLoop(); });
}

FaultServer::~FaultServer() {
  stopping_ = true;
  const char byte = 'x';
  [[maybe_unused]] const ssize_t written = ::write(wake_write_, &byte, 1);
  {
    // Unblocks a connection thread stuck in send() to a client that stopped reading.
    std::lock_guard<std::mutex> lock(mutex_);
    for (int fd : open_fds_) ::shutdown(fd, SHUT_RDWR);
  }
  if (acceptor_.joinable()) acceptor_.join();
  std::vector<std::thread> connections;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    connections.swap(connections_);
  }
  for (std::thread& connection : connections) connection.join();
  CloseQuietly(listen_fd_);
  CloseQuietly(wake_read_);
  CloseQuietly(wake_write_);
}

std::string FaultServer::Url(std::string_view path) const {
  return "http://127.0.0.1:" + std::to_string(port_) + std::string(path);
}

void FaultServer::Script(const std::string& path, std::vector<FaultResponse> responses) {
  std::lock_guard<std::mutex> lock(mutex_);
  scripts_[path] = std::move(responses);
  served_[path] = 0;
}

std::vector<RecordedRequest> FaultServer::Requests() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return requests_;
}

std::vector<RecordedRequest> FaultServer::RequestsFor(const std::string& path) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<RecordedRequest> matching;
  for (const RecordedRequest& request : requests_) {
    if (request.target == path) matching.push_back(request);
  }
  return matching;
}

void FaultServer::AcceptLoop() {
  while (!stopping_) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_read_, POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (stopping_ || fds[1].revents) return;
    if (!(fds[0].revents & POLLIN)) continue;
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    std::lock_guard<std::mutex> lock(mutex_);
    open_fds_.insert(fd);
    connections_.emplace_back([this, fd] { Serve(fd); });
  }
}

bool FaultServer::Wait(double seconds, int fd) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(std::max(0.0, seconds)));
  while (!stopping_) {
    int timeout_ms = -1;
    if (seconds >= 0) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return true;
      timeout_ms = static_cast<int>(left.count());
    }
    pollfd fds[2] = {{wake_read_, POLLIN, 0}, {fd, POLLIN, 0}};
    const int ready = ::poll(fds, fd >= 0 ? 2 : 1, timeout_ms);
    if (ready < 0 && errno != EINTR) return false;
    if (ready == 0) return true;
    if (fds[0].revents) return false;
    if (fd >= 0 && fds[1].revents) {
      char scratch[256];
      const ssize_t got = ::recv(fd, scratch, sizeof scratch, 0);
      if (got <= 0) return false;  // the client closed (or reset) the connection
    }
  }
  return false;
}

FaultResponse FaultServer::Pick(const std::string& path) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto script = scripts_.find(path);
  if (script == scripts_.end() || script->second.empty()) {
    return FaultResponse::Status(404, "not scripted: " + path + "\n");
  }
  const std::size_t index = std::min(served_[path]++, script->second.size() - 1);
  return script->second[index];
}

void FaultServer::Serve(int fd) {
  // Read the request head; a GET has no body.
  std::string head;
  char buffer[4096];
  while (head.find("\r\n\r\n") == std::string::npos && head.size() < (64u << 10)) {
    pollfd fds[2] = {{fd, POLLIN, 0}, {wake_read_, POLLIN, 0}};
    if (::poll(fds, 2, 10000) <= 0 || fds[1].revents) break;
    const ssize_t got = ::recv(fd, buffer, sizeof buffer, 0);
    if (got <= 0) break;
    head.append(buffer, static_cast<std::size_t>(got));
  }
  const std::size_t head_end = head.find("\r\n\r\n");
  if (head_end != std::string::npos && !stopping_) {
    RecordedRequest request;
    request.received = std::chrono::steady_clock::now();
    std::string_view rest(head.data(), head_end + 2);
    const std::size_t line_end = rest.find("\r\n");
    const std::string_view request_line = rest.substr(0, line_end);
    const std::size_t space1 = request_line.find(' ');
    const std::size_t space2 = request_line.find(' ', space1 + 1);
    request.method = std::string(request_line.substr(0, space1));
    request.target = std::string(request_line.substr(space1 + 1, space2 - space1 - 1));
    rest.remove_prefix(line_end + 2);
    while (!rest.empty()) {
      const std::size_t end = rest.find("\r\n");
      const std::string_view line = rest.substr(0, end);
      const std::size_t colon = line.find(':');
      if (colon != std::string_view::npos) {
        request.headers[Lower(std::string(line.substr(0, colon)))] = Trim(line.substr(colon + 1));
      }
      if (end == std::string_view::npos) break;
      rest.remove_prefix(end + 2);
    }
    const std::string path = request.target;
    const bool is_head = request.method == "HEAD";
    {
      std::lock_guard<std::mutex> lock(mutex_);
      requests_.push_back(std::move(request));
    }

    const int now_serving = ++concurrent_;
    int seen = max_concurrent_.load();
    while (now_serving > seen && !max_concurrent_.compare_exchange_weak(seen, now_serving)) {
    }

    const FaultResponse response = Pick(path);
    bool go_on = response.delay_s <= 0 || Wait(response.delay_s, -1);
    if (response.hang) {
      Wait(-1, fd);
      go_on = false;
    }
    // Counted as in flight until the answer starts: once the client has the whole answer it may
    // open its next transfer before this thread gets to run again.
    --concurrent_;
    if (go_on && response.raw) {
      SendAll(fd, *response.raw);
    } else if (go_on) {
      std::string out =
          "HTTP/1.1 " + std::to_string(response.status) + " " + Reason(response.status) + "\r\n";
      for (const auto& [name, value] : response.headers) out += name + ": " + value + "\r\n";
      const bool bodiless =
          response.status == 304 || response.status == 204 || response.status < 200 || is_head;
      if (!bodiless) {
        if (response.generated_bytes > 0) {
          if (response.announce_length) {
            out += "Content-Length: " + std::to_string(response.generated_bytes) + "\r\n";
          }
        } else {
          out += "Content-Length: " + std::to_string(response.body.size()) + "\r\n";
        }
      }
      out += "Connection: close\r\n\r\n";
      bool ok = SendAll(fd, out);
      if (ok && !bodiless) {
        if (response.generated_bytes > 0) {
          std::string chunk(64u << 10, 'x');
          for (std::size_t i = 0; i < chunk.size(); i += 64) chunk[i] = '\n';
          std::uint64_t left = response.generated_bytes;
          while (ok && left > 0 && !stopping_) {
            const std::size_t size =
                static_cast<std::size_t>(std::min<std::uint64_t>(left, chunk.size()));
            ok = SendAll(fd, std::string_view(chunk.data(), size));
            left -= size;
          }
        } else {
          const std::size_t size =
              std::min(response.body.size(), response.send_only.value_or(response.body.size()));
          SendAll(fd, std::string_view(response.body.data(), size));
        }
      }
    }
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    open_fds_.erase(fd);
    ::shutdown(fd, SHUT_WR);
    ::close(fd);
  }
}

}  // namespace torchdex::testing
