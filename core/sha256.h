// SHA-256 (FIPS 180-4): the banner of generated files ties each to the exact bytes of its
// inputs (codegen), and PEP 658 metadata files are checked against their page's hash before
// they are trusted (install).
#ifndef TORCHDEX_CORE_SHA256_H_
#define TORCHDEX_CORE_SHA256_H_

#include <string>
#include <string_view>

namespace torchdex::core {

// Lower-case hex digest of `data`.
std::string Sha256Hex(std::string_view data);

}  // namespace torchdex::core

#endif  // TORCHDEX_CORE_SHA256_H_
