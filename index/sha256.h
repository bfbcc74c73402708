// SHA-256 (FIPS 180-4) of what torchdex downloads itself: PEP 658 metadata files are checked
// against the page's data-core-metadata before they are trusted (index-format.md §1.4).
// The same code as codegen/sha256.cc, which the installer may not depend on (CONTRIBUTING.md:
// installer uses core, index, catalogue, generated).
#ifndef TORCHDEX_INDEX_SHA256_H_
#define TORCHDEX_INDEX_SHA256_H_

#include <string>
#include <string_view>

namespace torchdex::index {

/// Lower-case hex digest of `data`.
std::string Sha256Hex(std::string_view data);

}  // namespace torchdex::index

#endif  // TORCHDEX_INDEX_SHA256_H_
