// Percent-decoding (RFC 3986 §2.1) of the parts of index URLs that name files:
// "torch-2.5.1%2Bcu124-..." is "torch-2.5.1+cu124-...".
#ifndef TORCHDEX_CORE_URL_H_
#define TORCHDEX_CORE_URL_H_

#include <string>
#include <string_view>

namespace torchdex::core {

/// %XX decoding; a '%' not followed by two hex digits is kept as is, and '+' stays '+'.
std::string PercentDecode(std::string_view text);

}  // namespace torchdex::core

#endif  // TORCHDEX_CORE_URL_H_
