// Variant providers (docs/variants.md): what this host supports, as PEP 825 properties
// (`namespace :: feature :: value`), per namespace, each feature's values most preferred first.
//
// Built-in providers turn the HostFacts that `select` decides from into properties, with the
// value orderings of the WheelNext providers (nvidia: wheelnext/nvidia-variant-provider2
// json/nvidia.json; amd: wheelnext/amd-variant-provider; intel: wheelnext/intel-variant-provider).
// External providers are executables, `torchdex-provider-<namespace>` on PATH or named in an
// override file, that print one namespace as JSON (docs/schema/variant-provider.schema.json);
// torchdex runs each in a child with a timeout and a size bound, checks what it prints, and
// merges it: an external provider replaces the built-in one of its namespace or adds one.
// A provider that hangs, crashes or prints garbage is a warning with its name; the rest goes on.
#ifndef TORCHDEX_INSTALLER_VARIANTS_PROVIDERS_H_
#define TORCHDEX_INSTALLER_VARIANTS_PROVIDERS_H_

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "catalogue/variants.h"
#include "core/expected.h"
#include "installer/detect/host_facts.h"
#include "installer/platform/environment.h"
#include "installer/platform/file_reader.h"
#include "installer/platform/process_runner.h"

namespace torchdex::installer {

/// The protocol version providers print ("version": 1) and the bounds torchdex holds them to.
inline constexpr int kProviderProtocolVersion = 1;
inline constexpr std::chrono::milliseconds kDefaultProviderTimeout{5000};
inline constexpr std::size_t kMaxProviderOutput = 1u << 20;  // the runner keeps at most 1 MiB
inline constexpr std::size_t kMaxProviderFeatures = 64;
inline constexpr std::size_t kMaxProviderValues = 4096;

/// The built-in providers, from detection's facts. A namespace with nothing to report is left
/// out (a host without an NVIDIA driver has no nvidia namespace).
catalogue::SupportedNamespace NvidiaProperties(const NvidiaFacts& facts);
catalogue::SupportedNamespace AmdProperties(const AmdFacts& facts);
catalogue::SupportedNamespace IntelProperties(const IntelFacts& facts);
catalogue::SupportedProperties BuiltInProperties(const HostFacts& facts);

/// The `cuda_version_lower_bound` values a driver supporting CUDA `major.minor` offers, in
/// nvidia-variant-provider2's order ("12.4", "12.3" ... "12.0", "12", "11.20" ... "11"); empty
/// outside the provider's range 11.0-15.20.
std::vector<std::string> CudaLowerBounds(int major, int minor);
std::vector<std::string> CudaUpperBounds(int major, int minor);
/// The `sm_arch` values a GPU of compute capability `cc` runs, in the provider's order:
/// "86_real", "85_real" ... "80_real", "80_virtual".
std::vector<std::string> SmArchValues(core::ComputeCapability cc);
/// Intel's device IPs (GT GMDID, "20.1.0") of an XPU platform of data/intel-xpu-devices.json
/// ("BMG"): its own, then the base one whose code it runs; empty when unknown.
std::vector<std::string> IntelDeviceIps(std::string_view platform);

/// One external provider found.
/// Set, to its namespace, in the environment of every provider torchdex runs; a torchdex that
/// finds it set runs no external provider (a provider that calls torchdex would otherwise start
/// a chain of them).
inline constexpr std::string_view kProviderEnvironmentVariable = "TORCHDEX_PROVIDER_FOR";

struct ExternalProvider {
  std::string name_space;  // "acme"
  std::string path;        // host path of the executable
  std::string found_in;    // "PATH" or the override file
};

/// For one run: under a captured host (`captured`: --root DIR other than /), the
/// providers found on its PATH are files of that capture, not this machine's programs, so they
/// run only when `root_providers` (--root-providers) says so; else each is a warning, not run
/// (issue 29, item 18). On this machine, FindExternalProviders.
std::vector<ExternalProvider> ExternalProvidersFor(const FileReader& files, const Environment& env, bool captured,
                                                   bool root_providers, std::vector<std::string>* warnings);

/// `torchdex-provider-<namespace>` executables in the directories of PATH (under the reader's
/// root), the first of each name only, sorted by namespace.
std::vector<ExternalProvider> FindExternalProviders(const FileReader& files, const Environment& env,
                                                    std::vector<std::string>* warnings);

/// `found` with the providers an override file names (`"providers": {"acme": "/path"}`): each
/// replaces the one of its namespace found on PATH.
std::vector<ExternalProvider> WithNamedProviders(std::vector<ExternalProvider> found,
                                                 const std::vector<ExternalProvider>& named);

/// Parses and checks what provider `provider` printed. Errors name the provider.
core::Expected<catalogue::SupportedNamespace> ParseProviderOutput(
    std::string_view output, const std::string& expected_namespace, const std::string& provider);

struct ProviderRun {
  std::string name_space;
  std::string provider;  // "built-in" or the executable's path
  std::string outcome;   // "answered", "timed out after 5 s and was killed", "invalid: ..."
  bool used = false;
};

struct VariantDetection {
  catalogue::SupportedProperties properties;  // built-in ones first, then added namespaces
  std::vector<ProviderRun> providers;         // every provider, built-in and external
  std::vector<std::string> warnings;
};

/// The built-in properties of `facts`, with the external providers run and merged.
VariantDetection DetectVariantProperties(const HostFacts& facts,
                                         const std::vector<ExternalProvider>& external,
                                         const Environment& env, ProcessRunner& runner,
                                         std::chrono::milliseconds timeout);

/// `detect --variants --json`: {"version": 1, "namespaces": [...], "providers": [...], ...}.
std::string VariantDetectionToJson(const VariantDetection& detection);
/// The same in words: one `namespace :: feature :: values` line per feature.
std::string VariantDetectionToText(const VariantDetection& detection);

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_VARIANTS_PROVIDERS_H_
