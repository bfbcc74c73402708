// `torchdex detect`: runs detection and prints it.
#include <sys/stat.h>

#include <chrono>
#include <cmath>
#include <cstdio>

#include "installer/cli/commands.h"
#include "installer/cli/decision_inputs.h"
#include "installer/detect/detect.h"
#include "installer/detect/report.h"
#include "installer/variants/providers.h"

namespace torchdex::installer {

namespace po = boost::program_options;

const char* const kDetectDetails =
    "Reports the accelerator of this machine (or of the host captured under --root): the NVIDIA\n"
    "driver and the compute capability of each GPU, AMD gfx targets, Intel XPU devices, WSL2,\n"
    "containers and Jetson, each with where it came from. Files under /sys, /proc, /dev and /etc\n"
    "are read first; NVML, libcuda and nvidia-smi run in a child process, with the timeout, only\n"
    "when the files leave the driver or a compute capability unknown.\n"
    "\n"
    "Overrides (environment; empty means unset): TORCHDEX_CUDA_DRIVER_VERSION (or\n"
    "UV_CUDA_DRIVER_VERSION), CONDA_OVERRIDE_CUDA, TORCHDEX_CUDA_ARCH, TORCHDEX_AMD_GPU_ARCH (or\n"
    "UV_AMD_GPU_ARCHITECTURE), TORCHDEX_XPU=0|1. CUDA_VISIBLE_DEVICES narrows the GPUs that "
    "count.\n"
    "See docs/detection.md.\n"
    "\n"
    "--variants prints the wheel-variant properties (PEP 825) this host supports instead, per\n"
    "namespace in priority order, each feature's values most preferred first: nvidia\n"
    "(cuda_version_lower_bound, cuda_version_upper_bound, sm_arch), intel (device_ip), amd\n"
    "(gfx_arch, rocm_version), derived from the same facts, then what every external provider\n"
    "prints: an executable torchdex-provider-<namespace> on PATH (or named in an override\n"
    "file's \"providers\"), run with --provider-timeout and at most 1 MiB of output, replaces\n"
    "or adds its namespace. See docs/variants.md.\n";

void AddDetectOptions(po::options_description& description, Options& options) {
  description.add_options()("json", po::bool_switch(&options.detect.json),
                            "print a JSON object instead of words")(
      "root", po::value<std::string>(&options.detect.root)->value_name("DIR"),
      "read every file under DIR instead of / (a host captured as a folder), and look for "
      "tools and libraries only under DIR")("root-providers", po::bool_switch(&options.detect.root_providers),
      "run the torchdex-provider-* executables on the PATH of the --root host (they are files of the capture; not run by default)")(
      "probe-timeout",
      po::value<double>(&options.detect.probe_timeout_seconds)->value_name("SECONDS"),
      "time limit for each child process (NVML, libcuda, nvidia-smi, rocm_agent_enumerator); "
      "default 5")("variants", po::bool_switch(&options.detect.variants),
                   "print the wheel-variant properties (PEP 825) of this host")(
      "provider-timeout",
      po::value<double>(&options.detect.provider_timeout_seconds)->value_name("SECONDS"),
      "with --variants: time limit for each external provider; default 5");
}

core::Expected<bool> CheckProbeTimeout(double seconds) {
  if (!std::isfinite(seconds) || seconds <= 0 || seconds > 600) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", seconds);  // -1, not -1.000000
    return core::MakeError(std::string("--probe-timeout: expected seconds in (0, 600], got ") + text);
  }
  return true;
}

core::Expected<bool> ValidateDetectOptions(Options& options) {
  if (auto ok = CheckProbeTimeout(options.detect.probe_timeout_seconds); !ok) return ok.error();
  if (auto ok = CheckProbeTimeout(options.detect.provider_timeout_seconds); !ok) {
    return core::MakeError("--provider-timeout" +
                           ok.error().message.substr(std::string("--probe-timeout").size()));
  }
  struct stat info;
  if (::stat(options.detect.root.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
    return core::MakeError("--root: " + options.detect.root + " is not a directory");
  }
  return true;
}

int RunDetect(const Options& options, Deps& deps, std::ostream& out, std::ostream& err) {
  const std::string& root = options.detect.root;
  const FileReader files(root);  // "/" and "" are this machine
  DetectOptions detect_options;
  detect_options.probe_timeout = std::chrono::milliseconds(
      std::max<int64_t>(1, std::llround(options.detect.probe_timeout_seconds * 1000)));
  const DetectDeps detect_deps{files, deps.env, deps.runner, deps.clock};
  core::Expected<HostFacts> facts = Detect(detect_options, detect_deps);
  if (!facts) {
    err << "torchdex detect: " << facts.error().message << "\n";
    return ExitStatus(facts.error().code);
  }
  if (options.detect.variants) {
    std::vector<std::string> warnings;
    core::Expected<EffectiveOverrides> overrides = LoadUserOverrides({}, deps.env);
    if (!overrides) {
      err << "torchdex detect: " << overrides.error().message << "\n";
      return ExitStatus(core::ErrorCode::kBadInputFile);
    }
    std::vector<ExternalProvider> named;
    for (const auto& [ns, exe] : overrides->providers) named.push_back({ns, exe.value, exe.origin});
    const std::vector<ExternalProvider> external =
        WithNamedProviders(ExternalProvidersFor(files, deps.env, !options.detect.root.empty() && options.detect.root != "/",
                                                options.detect.root_providers, &warnings),
                           named);
    VariantDetection variants = DetectVariantProperties(
        *facts, external, deps.env, deps.runner,
        std::chrono::milliseconds(
            std::max<int64_t>(1, std::llround(options.detect.provider_timeout_seconds * 1000))));
    warnings.insert(warnings.end(), variants.warnings.begin(), variants.warnings.end());
    variants.warnings = std::move(warnings);
    out << (options.detect.json ? VariantDetectionToJson(variants)
                                : VariantDetectionToText(variants));
    return kExitOk;
  }
  out << (options.detect.json ? HostFactsToJson(*facts) : HostFactsToText(*facts));
  return kExitOk;
}

}  // namespace torchdex::installer
