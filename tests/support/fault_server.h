// An in-process HTTP/1.1 server on 127.0.0.1 for fault tests: each path answers from a script
// (status, headers, body, delay, hang, truncated body, garbage, a generated body of any size),
// and every request is recorded (path, headers, arrival time) for assertions. One thread
// accepts, one thread serves each connection; every response ends with Connection: close.
#ifndef TORCHDEX_TESTS_SUPPORT_FAULT_SERVER_H_
#define TORCHDEX_TESTS_SUPPORT_FAULT_SERVER_H_

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace torchdex::testing {

struct FaultResponse {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  double delay_s = 0;  // wait this long before answering
  bool hang = false;   // never answer; hold the connection until the client closes it
  // Truncation: Content-Length announces body.size(), only this many bytes are sent, then close.
  std::optional<std::size_t> send_only;
  std::optional<std::string> raw;  // sent verbatim instead of an HTTP response (garbage)
  // A generated body of this many bytes, streamed in small chunks (never held in memory).
  std::uint64_t generated_bytes = 0;
  bool announce_length = true;  // false: no Content-Length, the body ends when the server closes

  static FaultResponse Ok(std::string body, std::string content_type = "text/html");
  static FaultResponse Status(int status, std::string body = {});
  static FaultResponse Redirect(std::string location, int status = 302);
  static FaultResponse TooManyRequests(int retry_after_s);
  static FaultResponse Hang();
  static FaultResponse Truncated(std::string body, std::size_t sent);
  static FaultResponse Garbage(std::string bytes);
  static FaultResponse Generated(std::uint64_t bytes, bool announce_length);
};

struct RecordedRequest {
  std::string method;
  std::string target;                          // as sent: path and query
  std::map<std::string, std::string> headers;  // names lower-cased
  std::chrono::steady_clock::time_point received;

  /// The header's value, or "" when it was not sent; `name` in lower case.
  std::string Header(const std::string& name) const;
};

class FaultServer {
 public:
  /// Binds 127.0.0.1 on an ephemeral port and starts serving; throws std::runtime_error if it
  /// cannot.
  FaultServer();
  ~FaultServer();
  FaultServer(const FaultServer&) = delete;
  FaultServer& operator=(const FaultServer&) = delete;

  int port() const { return port_; }
  /// "http://127.0.0.1:<port><path>".
  std::string Url(std::string_view path) const;

  /// The n-th request for `path` (n from 0) gets responses[min(n, size-1)], so {500, 500, ok}
  /// fails twice then succeeds, and a single response repeats forever. Unscripted paths: 404.
  void Script(const std::string& path, std::vector<FaultResponse> responses);

  std::vector<RecordedRequest> Requests() const;
  std::vector<RecordedRequest> RequestsFor(const std::string& path) const;
  /// The most requests that were being answered at the same time.
  int MaxConcurrent() const { return max_concurrent_.load(); }

 private:
  void AcceptLoop();
  void Serve(int fd);
  // Waits up to `seconds` (forever when negative) for the server to stop or, when `fd` >= 0,
  // for the client to close `fd`. Returns false if the wait ended early.
  bool Wait(double seconds, int fd);
  FaultResponse Pick(const std::string& path);

  int listen_fd_ = -1;
  int wake_read_ = -1;  // a pipe, written once on stop, so every poll() wakes up
  int wake_write_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<int> concurrent_{0};
  std::atomic<int> max_concurrent_{0};
  std::thread acceptor_;

  mutable std::mutex mutex_;
  std::map<std::string, std::vector<FaultResponse>> scripts_;
  std::map<std::string, std::size_t> served_;  // requests per path so far
  std::vector<RecordedRequest> requests_;
  std::vector<std::thread> connections_;
  std::set<int> open_fds_;
};

}  // namespace torchdex::testing

#endif  // TORCHDEX_TESTS_SUPPORT_FAULT_SERVER_H_
