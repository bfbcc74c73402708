// A copy of PyTorch's whl/test/variant/ layout (docs/variants.md) for the tests: the torch page
// links the variant wheels of 2.10.0 (variants.json in schema v0.0.3) and 2.11.0 (v0.1.1) with
// the labels and properties of the real variant-repack configs (tests/fixtures/variants/), a
// 2.9.0 whose variants.json does not parse and a 2.8.0 with a wheel whose label its file lacks.
// Served by nginx (tests/support/nginx.h) for variant_index_test and the crawler's tests.
#ifndef TORCHDEX_TESTS_SUPPORT_VARIANT_INDEX_H_
#define TORCHDEX_TESTS_SUPPORT_VARIANT_INDEX_H_

#include <filesystem>
#include <string>

namespace torchdex::testing {

/// The labels of every good version's wheels.
inline constexpr const char* kVariantLabels[] = {"null", "cuda12.6", "cuda12.8", "cuda13.0",
                                                 "xpu",  "rocm7.0",  "rocm7.1"};

/// The sha256 the page gives a fixture wheel: that of its file name (a distinct one per file).
std::string VariantWheelSha(const std::string& filename);

/// Writes under `root`: whl/test/index.html (listing variant/), whl/test/variant/index.html
/// (listing torch/), whl/test/variant/torch/index.html and the variants.json files, from the
/// fixtures of `fixtures` (tests/fixtures). The wheels themselves are links only.
void WriteVariantIndex(const std::filesystem::path& root, const std::filesystem::path& fixtures);

}  // namespace torchdex::testing

#endif  // TORCHDEX_TESTS_SUPPORT_VARIANT_INDEX_H_
