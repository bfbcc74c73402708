#include "installer/install/transport.h"

#include <algorithm>
#include <cctype>

#include "index/url.h"

namespace torchdex::installer {

std::string Lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// "host:port" -> "host"; "[::1]:8080" -> "::1"; "[::1]" -> "::1".
std::string HostWithoutPort(std::string_view host_and_port) {
  if (!host_and_port.empty() && host_and_port.front() == '[') {
    const size_t close = host_and_port.find(']');
    return Lower(host_and_port.substr(
        1, close == std::string_view::npos ? std::string_view::npos : close - 1));
  }
  const size_t colon = host_and_port.rfind(':');
  // More than one colon without brackets: a bare IPv6 address, no port.
  if (colon != std::string_view::npos && host_and_port.find(':') == colon) {
    return Lower(host_and_port.substr(0, colon));
  }
  return Lower(host_and_port);
}

namespace {

bool IsIpv4Loopback(std::string_view host) {
  // 127.0.0.0/8: four decimal octets, the first 127.
  int parts = 0;
  size_t start = 0;
  while (start <= host.size()) {
    size_t dot = host.find('.', start);
    if (dot == std::string_view::npos) dot = host.size();
    const std::string_view part = host.substr(start, dot - start);
    if (part.empty() || part.size() > 3 ||
        !std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return false;
    }
    const int value = std::stoi(std::string(part));
    if (value > 255 || (parts == 0 && value != 127)) return false;
    ++parts;
    start = dot + 1;
    if (dot == host.size()) break;
  }
  return parts == 4;
}

}  // namespace

bool IsLoopbackHost(std::string_view host_and_port) {
  const std::string host = HostWithoutPort(host_and_port);
  return host == "localhost" || host == "::1" || host == "0:0:0:0:0:0:0:1" || IsIpv4Loopback(host);
}

core::Status CheckTransport(std::string_view url, const std::vector<std::string>& trusted_hosts,
                            std::string_view what) {
  const std::string lower = Lower(url.substr(0, std::min<size_t>(url.size(), 8)));
  const std::string subject = what.empty() ? std::string() : std::string(what) + ": ";
  // pip (urllib3) and libcurl would not agree on the host: refused whatever the scheme.
  if (index::HasAmbiguousAuthority(url)) {
    return core::MakeError(subject + "refusing " + std::string(url) +
                           ": a backslash in its host part (pip would connect to " +
                           std::string(index::UrlHost(url)) + ", other tools elsewhere)");
  }
  if (lower.rfind("https://", 0) == 0) return {};
  if (lower.rfind("http://", 0) != 0) {
    return core::MakeError(subject + "unsupported URL " + std::string(url) +
                           " (torchdex uses https://, or http:// on loopback or a trusted host)");
  }
  const std::string_view host_and_port = index::UrlHost(url);
  if (IsLoopbackHost(host_and_port)) return {};
  const std::string host = HostWithoutPort(host_and_port);
  for (const std::string& trusted : trusted_hosts) {
    const std::string entry = Lower(trusted);
    if (entry == Lower(host_and_port) || entry == host) return {};
  }
  return core::MakeError(subject + "refusing plain HTTP: " + std::string(url) +
                         " (use https://, or mark the host " + host +
                         " trusted in an override file's \"trusted_hosts\")");
}

index::FetchOptions GuardedFetchOptions(std::vector<std::string> trusted_hosts) {
  index::FetchOptions options;
  options.check_redirect = [trusted = std::move(trusted_hosts)](std::string_view, std::string_view to)
      -> std::optional<std::string> {
    core::Status ok = CheckTransport(to, trusted, "a redirect");
    if (ok) return std::nullopt;
    return ok.error().message;
  };
  return options;
}

}  // namespace torchdex::installer
