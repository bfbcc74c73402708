// Which URLs torchdex fetches or hands to the installer (docs/install.md): HTTPS only,
// except loopback (127.0.0.0/8, ::1, localhost) and the hosts the user marks trusted, as pip's
// own secure-origin rule does (pip `SECURE_ORIGINS`, `--trusted-host`).
#ifndef TORCHDEX_INSTALLER_INSTALL_TRANSPORT_H_
#define TORCHDEX_INSTALLER_INSTALL_TRANSPORT_H_

#include <string>
#include <string_view>
#include <vector>

#include "core/expected.h"
#include "index/fetcher.h"

namespace torchdex::installer {

/// "localhost", "127.0.0.1" ... "127.255.255.254", "::1" / "[::1]"; a port is ignored.
bool IsLoopbackHost(std::string_view host_and_port);

/// ASCII lower case (host names compare case-insensitively).
std::string Lower(std::string_view text);
/// "host:port" -> "host"; "[::1]:8080" -> "::1"; lower case.
std::string HostWithoutPort(std::string_view host_and_port);

/// OK for https://; for http:// only when the host is loopback or trusted (a trusted entry is
/// "host" or "host:port"); anything else (http elsewhere, file:, ftp:, no scheme) is an error
/// that names the URL and `what` ("the wheel of torch 2.5.1+cu124").
core::Status CheckTransport(std::string_view url, const std::vector<std::string>& trusted_hosts,
                            std::string_view what);

/// Fetch options for the installer's own requests: a redirect is checked with CheckTransport
/// before it is followed, so a hop the rule refuses is never asked (docs/http.md).
index::FetchOptions GuardedFetchOptions(std::vector<std::string> trusted_hosts);

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_INSTALL_TRANSPORT_H_
