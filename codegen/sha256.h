// SHA-256 (FIPS 180-4), for the banner of generated files: it ties each generated file to the
// exact bytes of the data file it came from, so `torchdex-codegen --check` and reviewers can see
// which input a table was built from.
#ifndef TORCHDEX_CODEGEN_SHA256_H_
#define TORCHDEX_CODEGEN_SHA256_H_

#include <string>
#include <string_view>

namespace torchdex::codegen {

// Lower-case hex digest of `data`.
std::string Sha256Hex(std::string_view data);

}  // namespace torchdex::codegen

#endif  // TORCHDEX_CODEGEN_SHA256_H_
