// The worst inputs of the readers of outside input, within their size bounds (issue 29, item 8):
// each must cost well under a second. Not a test: it measures (docs/performance.md, "Readers'
// worst cases"). Run: build/release/bench/reader_worst_case_bench.
//   variants.json: 4 MiB of one namespace's features (refused at the 257th key), and the
//     largest file that is accepted (256 labels x 256 features)
//   pylock.toml: 120,000 packages (28 MB, under sync's 64 MiB cap)
//   TOML: one table of 400,000 keys; a key of 200,000 dotted parts
//   pip's report: 100,000 installed packages
#include <string>

#include <benchmark/benchmark.h>

// GCC 12 warns of overlapping copies in std::string's operator+ where there are none (GCC bug
// 105329): these inputs are built with it freely.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wrestrict"
#endif

#include "catalogue/variants.h"
#include "installer/install/install_report.h"
#include "installer/lock/pylock.h"
#include "installer/lock/toml.h"

namespace {

using namespace torchdex;  // NOLINT(build/namespaces)

const std::string kSchema = "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json";

std::string ManyFeatures() {
  std::string features;
  while (features.size() < (4u << 20) - 200) {
    features.append(features.empty() ? "" : ", ").append("\"f").append(std::to_string(features.size())).append("\": [\"1\"]");
  }
  return "{\"$schema\": \"" + kSchema + "\", \"default-priorities\": {\"namespace\": [\"cpu\"]}, "
         "\"variants\": {\"fast\": {\"cpu\": {" + features + "}}}}";
}

std::string LargestAccepted() {
  std::string variants;
  for (int label = 0; label < 256; ++label) {
    std::string features;
    for (int f = 0; f < 256 && variants.size() + features.size() < (4u << 20) - 4096; ++f) {
      features.append(f ? ", " : "").append("\"f").append(std::to_string(f)).append("\": [\"1\"]");
    }
    variants.append(label ? ", " : "").append("\"l").append(std::to_string(label)).append("\": {\"cpu\": {").append(features).append("}}");
    if (variants.size() > (4u << 20) - 8192) break;
  }
  return "{\"$schema\": \"" + kSchema + "\", \"default-priorities\": {\"namespace\": [\"cpu\"]}, \"variants\": {" +
         variants + "}}";
}

void BM_VariantsJsonManyFeatures(benchmark::State& state) {
  const std::string text = ManyFeatures();
  for (auto _ : state) benchmark::DoNotOptimize(catalogue::ParseVariantsJson(text, "x-1-variants.json").ok());
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_VariantsJsonManyFeatures)->Unit(benchmark::kMillisecond);

void BM_VariantsJsonLargestAccepted(benchmark::State& state) {
  const std::string text = LargestAccepted();
  for (auto _ : state) benchmark::DoNotOptimize(catalogue::ParseVariantsJson(text, "x-1-variants.json").ok());
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_VariantsJsonLargestAccepted)->Unit(benchmark::kMillisecond);

void BM_PylockManyPackages(benchmark::State& state) {
  std::string text = "lock-version = \"1.0\"\ncreated-by = \"bench\"\n";
  for (int i = 0; i < 120000; ++i) {
    const std::string name = "p" + std::to_string(i);
    text += "\n[[packages]]\nname = \"" + name + "\"\nversion = \"1.0\"\n\n[[packages.wheels]]\nname = \"" + name +
            "-1.0-py3-none-any.whl\"\nurl = \"https://h/" + name + "-1.0-py3-none-any.whl\"\nhashes = { sha256 = \"" +
            std::string(64, 'a') + "\" }\n";
  }
  for (auto _ : state) benchmark::DoNotOptimize(installer::ParsePyLock(text, "pylock.toml", false).ok());
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_PylockManyPackages)->Unit(benchmark::kMillisecond);

void BM_TomlManyKeys(benchmark::State& state) {
  std::string text = "[t]\n";
  for (int i = 0; i < 400000; ++i) text.append("k").append(std::to_string(i)).append(" = 1\n");
  for (auto _ : state) benchmark::DoNotOptimize(installer::toml::Parse(text, "t.toml").ok());
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_TomlManyKeys)->Unit(benchmark::kMillisecond);

void BM_TomlDeepKey(benchmark::State& state) {
  std::string text = "a";
  for (int i = 0; i < 200000; ++i) text += ".a";
  text += " = 1\n";
  for (auto _ : state) benchmark::DoNotOptimize(installer::toml::Parse(text, "t.toml").ok());
}
BENCHMARK(BM_TomlDeepKey)->Unit(benchmark::kMillisecond);

void BM_PipReportManyPackages(benchmark::State& state) {
  std::string text = "{\"version\": \"1\", \"install\": [";
  for (int i = 0; i < 100000; ++i) {
    text += std::string(i ? "," : "") + "{\"metadata\": {\"name\": \"p" + std::to_string(i) +
            "\", \"version\": \"1.0\", \"requires_dist\": [\"p" + std::to_string(i + 1) +
            "\"]}, \"requested\": false, \"download_info\": {\"url\": \"https://h/p.whl\", \"archive_info\": "
            "{\"hashes\": {\"sha256\": \"aa\"}}}}";
  }
  text += "]}";
  for (auto _ : state) benchmark::DoNotOptimize(installer::ParseInstallReport(text, "r.json").ok());
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_PipReportManyPackages)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
