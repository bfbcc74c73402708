#include "tests/support/nginx.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

namespace torchdex::testing {
namespace {

namespace fs = std::filesystem;

std::string FindNginx() {
  if (const char* configured = std::getenv("TORCHDEX_NGINX"); configured && *configured) {
    return ::access(configured, X_OK) == 0 ? configured : "";
  }
  if (::access("/usr/sbin/nginx", X_OK) == 0) return "/usr/sbin/nginx";
  if (const char* path = std::getenv("PATH")) {
    std::stringstream dirs(path);
    std::string dir;
    while (std::getline(dirs, dir, ':')) {
      const std::string candidate = dir + "/nginx";
      if (!dir.empty() && ::access(candidate.c_str(), X_OK) == 0) return candidate;
    }
  }
  return {};
}

// A port that was free a moment ago (nginx binds it next; Start retries on a clash).
int FreePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return 0;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
    port = ntohs(address.sin_port);
  }
  ::close(fd);
  return port;
}

bool PortAnswers(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  ::close(fd);
  return ok;
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string Config(const fs::path& dir, const fs::path& root, int port, bool basic_auth) {
  const std::string d = dir.string();
  std::ostringstream c;
  c << "daemon off;\n"
       "master_process off;\n"
       "worker_processes 1;\n"
    << "pid " << d << "/nginx.pid;\n"
    << "error_log " << d << "/error.log warn;\n"
    << "events { worker_connections 512; }\n"
       "http {\n"
    // The connection serial number and its request count show keep-alive reuse to tests.
    << "  log_format torchdex '$connection $connection_requests $status \"$request\" "
       "\"$http_user_agent\"';\n"
    << "  access_log " << d << "/access.log torchdex;\n"
    << "  client_body_temp_path " << d << "/client_body;\n"
    << "  proxy_temp_path " << d << "/proxy;\n"
    << "  fastcgi_temp_path " << d << "/fastcgi;\n"
    << "  uwsgi_temp_path " << d << "/uwsgi;\n"
    << "  scgi_temp_path " << d << "/scgi;\n"
    << "  types { text/html html; application/json json; application/xml xml; }\n"
       "  default_type application/octet-stream;\n"
       "  sendfile on;\n"
       "  keepalive_timeout 65;\n"
       "  keepalive_requests 100000;\n"
       "  etag on;\n"
       "  gzip on;\n"
       // text/html is always compressed when gzip is on; naming it again only earns a warning.
       "  gzip_types application/json application/xml;\n"
       "  gzip_min_length 256;\n"
       "  gzip_vary on;\n"
       "  server {\n"
    << "    listen 127.0.0.1:" << port << ";\n"
    << "    server_name localhost;\n"
    << "    root " << root.string() << ";\n"
    << "    index index.html;\n"
    << (basic_auth ? "    auth_basic \"torchdex\";\n    auth_basic_user_file " + d + "/htpasswd;\n" : std::string())
       // Like the CloudFront function of download.pytorch.org: /whl/x and /whl/x/ both answer
       // 200 with whl/x/index.html, never a redirect.
    << "    location / { try_files $uri $uri/index.html $uri/ =404; }\n"
       "  }\n"
       "}\n";
  return c.str();
}

}  // namespace

core::Expected<std::unique_ptr<Nginx>> Nginx::Start(const fs::path& document_root, const std::string& basic_auth) {
  const std::string binary = FindNginx();
  if (binary.empty()) {
    return core::MakeError(
        "nginx not found ($TORCHDEX_NGINX, /usr/sbin/nginx, PATH): install the Debian package "
        "nginx (scripts/test does)");
  }
  std::error_code error;
  const fs::path root = fs::absolute(document_root, error);
  if (error || !fs::is_directory(root)) {
    return core::MakeError("nginx document root is not a directory: " + document_root.string());
  }

  std::string pattern = (fs::temp_directory_path() / "torchdex-nginx-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    return core::MakeError("mkdtemp " + pattern + ": " + std::strerror(errno));
  }
  std::unique_ptr<Nginx> nginx(new Nginx());
  nginx->directory_ = pattern;
  const fs::path config = nginx->directory_ / "nginx.conf";
  const fs::path error_log = nginx->directory_ / "error.log";
  if (!basic_auth.empty()) {
    const std::size_t colon = basic_auth.find(':');
    std::ofstream out(nginx->directory_ / "htpasswd");  // nginx reads "{PLAIN}" passwords as they are
    out << basic_auth.substr(0, colon) << ":{PLAIN}" << basic_auth.substr(colon + 1) << "\n";
    if (!out) return core::MakeError("cannot write htpasswd");
  }

  std::string last_failure;
  for (int attempt = 0; attempt < 5; ++attempt) {
    nginx->port_ = FreePort();
    if (nginx->port_ == 0) return core::MakeError("no free port on 127.0.0.1");
    {
      std::ofstream out(config, std::ios::trunc);
      out << Config(nginx->directory_, root, nginx->port_, !basic_auth.empty());
      if (!out) return core::MakeError("cannot write " + config.string());
    }
    const std::string prefix = nginx->directory_.string() + "/";
    const std::string config_text = config.string();
    const std::string error_text = error_log.string();
    std::vector<char*> argv = {const_cast<char*>(binary.c_str()),      const_cast<char*>("-p"),
                               const_cast<char*>(prefix.c_str()),      const_cast<char*>("-e"),
                               const_cast<char*>(error_text.c_str()),  const_cast<char*>("-c"),
                               const_cast<char*>(config_text.c_str()), nullptr};
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) return core::MakeError(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
      // Only async-signal-safe calls here. nginx dies with the test process.
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(127);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    nginx->pid_ = pid;

    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
      int status = 0;
      if (::waitpid(pid, &status, WNOHANG) == pid) {
        nginx->pid_ = -1;
        last_failure =
            "nginx exited (status " + std::to_string(status) + "): " + ReadFile(error_log);
        break;
      }
      if (PortAnswers(nginx->port_)) return nginx;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (nginx->pid_ > 0) {
      return core::MakeError("nginx did not answer on port " + std::to_string(nginx->port_) +
                             " within 10 s: " + ReadFile(error_log));
    }
    if (last_failure.find("Address already in use") == std::string::npos) break;
  }
  return core::MakeError(binary + " did not start: " + last_failure);
}

Nginx::~Nginx() {
  if (pid_ > 0) {
    ::kill(pid_, SIGTERM);
    int status = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (::waitpid(pid_, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  std::error_code ignored;
  if (!directory_.empty()) fs::remove_all(directory_, ignored);
}

std::string Nginx::AccessLog() const { return ReadFile(directory_ / "access.log"); }

std::string Nginx::Url(std::string_view path) const {
  return "http://127.0.0.1:" + std::to_string(port_) + std::string(path);
}

}  // namespace torchdex::testing
