// Lookups in the compiled package table (installer/table/catalogue_table.h), against the budget
// of docs/performance.md (each lookup <= 100 ns; IsRouted <= 50 ns per name), and the alternative the
// table replaces: parsing generated/catalogue.json at start-up.
//
//   cmake --build build/release --target table_lookup_bench
//   build/release/bench/table_lookup_bench --benchmark_min_time=0.2
#include <benchmark/benchmark.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "catalogue/catalogue.h"
#include "core/tags.h"
#include "installer/select/catalogue_source.h"
#include "installer/select/selection.h"
#include "installer/table/catalogue_table.h"

namespace {

namespace table = torchdex::installer::table;

std::vector<std::string_view> RoutedNames() {
  std::vector<std::string_view> names;
  for (const table::ProjectRow& row : table::Projects()) {
    if (row.project_class == table::ProjectClass::kRouted ||
        row.project_class == table::ProjectClass::kCompanion) {
      names.push_back(row.name);
    }
  }
  return names;
}

const table::TargetTags& LinuxCp312() {
  static const std::vector<torchdex::core::Tag> tags = [] {
    torchdex::core::InterpreterInfo info;
    info.python_minor = 12;
    info.libc_minor = 28;
    return torchdex::core::SupportedTags(info);
  }();
  static const table::TargetTags target(tags);
  return target;
}

void BM_IsRoutedEveryRoutedName(benchmark::State& state) {
  const std::vector<std::string_view> names = RoutedNames();
  for (auto _ : state) {
    for (std::string_view name : names) benchmark::DoNotOptimize(table::IsRouted(name));
  }
  state.counters["names"] = static_cast<double>(names.size());
  state.counters["per_name"] = benchmark::Counter(
      static_cast<double>(names.size()),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_IsRoutedEveryRoutedName);

void BM_IsRoutedMixedCaseAndMisses(benchmark::State& state) {
  const std::string_view names[] = {"Torch_Vision", "pytorch..Triton", "numpy", "requests"};
  for (auto _ : state) {
    for (std::string_view name : names) benchmark::DoNotOptimize(table::IsRouted(name));
  }
  state.counters["per_name"] = benchmark::Counter(
      4, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_IsRoutedMixedCaseAndMisses);

void BM_FindBackend(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(table::FindBackend("cu128"));
}
BENCHMARK(BM_FindBackend);

void BM_Versions(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(table::Versions("torch", "cu128").size());
}
BENCHMARK(BM_Versions);

void BM_FindVersion(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(table::FindVersion("torch", "cu121", "2.3.1"));
}
BENCHMARK(BM_FindVersion);

void BM_WheelFits(benchmark::State& state) {
  const table::TargetTags& target = LinuxCp312();
  for (auto _ : state) {
    benchmark::DoNotOptimize(table::WheelFits("torch", "cu128", "2.8.0", target));
  }
}
BENCHMARK(BM_WheelFits);

void BM_BestWheel(benchmark::State& state) {
  const table::TargetTags& target = LinuxCp312();
  for (auto _ : state) benchmark::DoNotOptimize(table::BestWheel("torch", "cu128", target));
}
BENCHMARK(BM_BestWheel);

void BM_ArchList(benchmark::State& state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(table::ArchList("cu128", "2.8.0+cu128", table::CpuArch::kX86_64));
  }
}
BENCHMARK(BM_ArchList);

// What selection runs per backend and release: the catalogue view's arch list (the table's
// row, as compute capabilities) and whether an sm_89 GPU runs it.
void BM_ArchViewAndBuildRunsOn(benchmark::State& state) {
  static const torchdex::installer::CatalogueSource source =
      std::move(torchdex::installer::LoadCatalogueSource({})).value();
  const torchdex::installer::CatalogueView& view = source.ViewFor("stable");
  const torchdex::core::ComputeCapability gpu{8, 9};
  const std::vector<torchdex::core::ComputeCapability> integrated = view.Limits("cu130").integrated;
  for (auto _ : state) {
    auto arch = view.Arch("cu130", "2.9.1", "x86_64");
    benchmark::DoNotOptimize(torchdex::installer::BuildRunsOn(*arch, gpu, integrated));
  }
}
BENCHMARK(BM_ArchViewAndBuildRunsOn);

void BM_DriverFloor(benchmark::State& state) {
  for (auto _ : state)
    benchmark::DoNotOptimize(table::DriverFloor("cu128", torchdex::core::TargetOs::kLinux));
}
BENCHMARK(BM_DriverFloor);

// Once per target interpreter: ranking the table's tags against its supported tags.
void BM_TargetTagsConstruction(benchmark::State& state) {
  torchdex::core::InterpreterInfo info;
  info.python_minor = 12;
  info.libc_minor = 28;
  const std::vector<torchdex::core::Tag> tags = torchdex::core::SupportedTags(info);
  for (auto _ : state) {
    table::TargetTags target(tags);
    benchmark::DoNotOptimize(target);
  }
}
BENCHMARK(BM_TargetTagsConstruction)->Unit(benchmark::kMicrosecond);

// ---- Start-up: the compiled table against parsing catalogue.json ----

// The table needs no start-up work: the first answer is a lookup in data the loader mapped.
void BM_StartupCompiledTable(benchmark::State& state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(table::IsRouted("torch"));
    benchmark::DoNotOptimize(table::Versions("torch", "cu128").size());
  }
}
BENCHMARK(BM_StartupCompiledTable);

std::string CatalogueText() {
  std::ifstream in(TORCHDEX_SOURCE_DIR "/generated/catalogue.json", std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The alternative: read and parse generated/catalogue.json (779 KB) into the catalogue model
// before the first answer.
void BM_StartupReadAndParseCatalogueJson(benchmark::State& state) {
  for (auto _ : state) {
    auto catalogue = torchdex::catalogue::ParseCatalogueJson(CatalogueText(), "catalogue.json");
    if (!catalogue) state.SkipWithError(catalogue.error().message.c_str());
    benchmark::DoNotOptimize(catalogue->projects.count("torch"));
  }
}
BENCHMARK(BM_StartupReadAndParseCatalogueJson)->Unit(benchmark::kMillisecond);

void BM_StartupParseCatalogueJsonInMemory(benchmark::State& state) {
  const std::string text = CatalogueText();
  for (auto _ : state) {
    auto catalogue = torchdex::catalogue::ParseCatalogueJson(text, "catalogue.json");
    benchmark::DoNotOptimize(catalogue->projects.count("torch"));
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_StartupParseCatalogueJsonInMemory)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
