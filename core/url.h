// Percent-decoding (RFC 3986 §2.1) of the parts of index URLs that name files:
// "torch-2.5.1%2Bcu124-..." is "torch-2.5.1+cu124-...", and credentials hidden for display.
#ifndef TORCHDEX_CORE_URL_H_
#define TORCHDEX_CORE_URL_H_

#include <string>
#include <string_view>

namespace torchdex::core {

/// %XX decoding; a '%' not followed by two hex digits is kept as is, and '+' stays '+'.
std::string PercentDecode(std::string_view text);

/// The file a URL names: its path's last segment, without query or fragment, percent-decoded
/// ("https://h/d/torch-2.5.1%2Bcpu-py3-none-any.whl#sha256=..." -> "torch-2.5.1+cpu-...whl").
std::string UrlFileName(std::string_view url);

/// Every URL in `text` with its credentials hidden the way pip shows them
/// (`redact_auth_from_url`): "https://user:s3cret@host/" is "https://user:****@host/", a token
/// alone ("https://tok@host/") is "https://****@host/". For anything torchdex prints: plans,
/// commands, errors, JSON, export headers; the URLs themselves are used unchanged.
std::string RedactCredentials(std::string_view text);

/// `url` without the user information of its authority: "https://user:s3cret@host/x" is
/// "https://host/x". For what torchdex writes into files meant to be shared (lock files): the
/// installer that reads them takes credentials from its own configuration (netrc, keyring).
std::string StripCredentials(std::string_view url);

/// Every URL in `text` without its user information, as StripCredentials does for one URL:
/// for sentences written into shared files (a lock's decision).
std::string StripCredentialsInText(std::string_view text);

}  // namespace torchdex::core

#endif  // TORCHDEX_CORE_URL_H_
