// A client for tests of the servers torchdex runs on loopback (installer/platform/
// loopback_server.h): curl for ordinary requests, raw bytes for malformed ones, and what
// /proc/net says is listening.
#ifndef TORCHDEX_TESTS_INSTALLER_LOOPBACK_CLIENT_H_
#define TORCHDEX_TESTS_INSTALLER_LOOPBACK_CLIENT_H_

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "index/fetcher.h"

namespace torchdex::installer::testing {

/// The body of GET `url` (or "failed: ..."); `status` gets the HTTP status.
inline std::string Fetch(const std::string& url, long* status = nullptr) {
  index::FetchOptions options;
  options.max_attempts = 1;
  options.connect_timeout_s = 5;
  std::unique_ptr<index::Fetcher> fetcher = index::MakeCurlFetcher(options);
  std::string body;
  fetcher->Run({index::FetchRequest{url, "", "", 0}}, [&](index::FetchResult&& result) {
    body = result.outcome == index::FetchOutcome::kFailed ? "failed: " + result.error : result.body;
    if (status != nullptr) *status = result.status;
    return std::vector<index::FetchRequest>{};
  });
  return body;
}

inline int Connect(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// Sends `request` as it is and reads until the server closes.
inline std::string Raw(int port, const std::string& request) {
  const int fd = Connect(port);
  if (fd < 0) return "connect failed";
  ::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  std::string response;
  char buffer[4096];
  for (ssize_t n; (n = ::recv(fd, buffer, sizeof buffer, 0)) > 0;) {
    response.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return response;
}

// The local addresses of listening TCP sockets on `port`, from /proc/net/tcp and tcp6.
inline std::vector<std::string> ListeningAddresses(int port) {
  std::vector<std::string> found;
  char port_hex[8];
  std::snprintf(port_hex, sizeof port_hex, "%04X", port);
  for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
    std::ifstream in(table);
    std::string line;
    std::getline(in, line);  // the header
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      std::string slot, local, remote, state;
      fields >> slot >> local >> remote >> state;
      if (state == "0A" && local.size() > 5 && local.substr(local.size() - 4) == port_hex) {
        found.push_back(local);
      }
    }
  }
  return found;
}

/// "0100007F:1F90": 127.0.0.1:8080 as /proc/net/tcp writes a local address.
inline std::string ProcLoopbackAddress(int port) {
  char text[16];
  std::snprintf(text, sizeof text, "0100007F:%04X", port);
  return text;
}

}  // namespace torchdex::installer::testing

#endif  // TORCHDEX_TESTS_INSTALLER_LOOPBACK_CLIENT_H_
