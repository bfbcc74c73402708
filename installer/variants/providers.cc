#include "installer/variants/providers.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "core/utf8.h"

namespace torchdex::installer {

namespace {

using catalogue::SupportedNamespace;
using catalogue::VariantFeature;
using nlohmann::ordered_json;

// nvidia-variant-provider2 json/nvidia.json `constants`: umd_min_major 11, umd_max_major 15,
// umd_max_minor 20; sm_min_major 5.
constexpr int kUmdMinMajor = 11;
constexpr int kUmdMaxMajor = 15;
constexpr int kUmdMaxMinor = 20;
constexpr int kSmMinMajor = 5;

bool IsName(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

std::string Visible(std::string_view text, std::size_t at_most = 80) { return core::OneLine(text, at_most); }

void AddUnique(std::vector<std::string>& list, const std::string& value) {
  if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
}

bool ParseMajorMinor(const std::string& text, int* major, int* minor) {
  // "12.4", "6.4.0" (what follows the minor is ignored), "13".
  int a = 0, b = 0;
  const int n = std::sscanf(text.c_str(), "%d.%d", &a, &b);
  if (n < 1 || a < 0 || b < 0) return false;
  *major = a;
  *minor = n == 2 ? b : 0;
  return true;
}

}  // namespace

std::vector<std::string> CudaLowerBounds(int major, int minor) {
  std::vector<std::string> out;
  // The provider's range check: a driver outside 11.0-15.20 turns NVIDIA detection off.
  if (major < kUmdMinMajor || major > kUmdMaxMajor ||
      (major == kUmdMaxMajor && minor > kUmdMaxMinor)) {
    return out;
  }
  for (int m = major; m >= kUmdMinMajor; --m) {
    for (int n = (m == major ? minor : kUmdMaxMinor); n >= 0; --n) {
      out.push_back(std::to_string(m) + "." + std::to_string(n));
    }
    out.push_back(std::to_string(m));
  }
  return out;
}

std::vector<std::string> CudaUpperBounds(int major, int minor) {
  std::vector<std::string> out;
  if (major < kUmdMinMajor || major > kUmdMaxMajor ||
      (major == kUmdMaxMajor && minor > kUmdMaxMinor)) {
    return out;
  }
  for (int m = kUmdMaxMajor; m >= major; --m) {
    if (m > major) {
      for (int n = kUmdMaxMinor; n >= 0; --n)
        out.push_back(std::to_string(m) + "." + std::to_string(n));
      out.push_back(std::to_string(m));
    } else {
      for (int n = kUmdMaxMinor; n > minor; --n)
        out.push_back(std::to_string(m) + "." + std::to_string(n));
    }
  }
  return out;
}

std::vector<std::string> SmArchValues(core::ComputeCapability cc) {
  std::vector<std::string> out;
  if (cc.major < kSmMinMajor) return out;  // the provider warns and omits sm_arch
  const std::string major = std::to_string(cc.major);
  for (int m = cc.minor; m >= 0; --m) out.push_back(major + std::to_string(m) + "_real");
  out.push_back(major + "0_virtual");
  return out;
}

std::vector<std::string> IntelDeviceIps(std::string_view platform) {
  // GT GMDIDs per platform and the base IP each runs the code of: wheelnext/intel-variant-provider
  // intel_variant_provider/devices.py (commit 281ecc0) `_intel_devips`; the platform names are
  // data/intel-xpu-devices.json's. The torch xpu variant lists 12.55.8 (dg2), 12.60.7 (pvc),
  // 12.71.4 (mtl-h), 12.74.4 (arl-h), 20.1.0 (bmg), 20.4.4 (lnl-m), 30.0.4 (ptl-h), 30.1.0
  // (ptl-u) (wheelnext/variant-repack configs/torch-2.11/torch_variant_config.toml).
  static const std::map<std::string_view, std::vector<std::string>> kIps = {
      {"DG2", {"12.55.8"}},  // acm-g10; G11/G12 (12.56.5, 12.57.0) run 12.55.8's code
      {"ATS-M", {"12.55.8"}},
      {"PVC", {"12.60.7"}},
      {"MTL-H", {"12.71.4", "12.70.4"}},
      {"MTL-U", {"12.70.4"}},
      {"ARL-U/ARL-S", {"12.70.4"}},
      {"ARL-H", {"12.74.4"}},
      {"BMG", {"20.1.0"}},  // bmg-g21; g31 (20.2.0) runs 20.1.0's code
      {"LNL", {"20.4.4", "20.1.0"}},
      {"PTL", {"30.0.4"}},  // ptl-h; ptl-u is 30.1.0 and runs 30.0.4's code
      {"WCL", {"30.3.1", "30.0.4"}},
      {"NVL-S/H/U/HX", {"30.4.4", "30.0.4"}},
  };
  auto it = kIps.find(platform);
  return it == kIps.end() ? std::vector<std::string>{} : it->second;
}

SupportedNamespace NvidiaProperties(const NvidiaFacts& facts) {
  SupportedNamespace ns{"nvidia", "built-in nvidia", {}};
  int major = 0, minor = 0;
  if (!facts.cuda_driver_api.empty() && ParseMajorMinor(facts.cuda_driver_api, &major, &minor)) {
    std::vector<std::string> lower = CudaLowerBounds(major, minor);
    if (!lower.empty()) {
      ns.features.push_back({"cuda_version_lower_bound", std::move(lower)});
      ns.features.push_back({"cuda_version_upper_bound", CudaUpperBounds(major, minor)});
    }
  }
  // sm_arch: the provider orders by the highest GPU; torchdex adds what the other visible GPUs
  // run after it, so a variant any of them runs is compatible.
  std::vector<core::ComputeCapability> ccs;
  for (const NvidiaGpu& gpu : facts.gpus) {
    if (gpu.visible && gpu.compute_capability) ccs.push_back(*gpu.compute_capability);
  }
  std::sort(ccs.rbegin(), ccs.rend());
  std::vector<std::string> sm;
  for (const core::ComputeCapability& cc : ccs) {
    for (const std::string& v : SmArchValues(cc)) AddUnique(sm, v);
  }
  if (!sm.empty() && !ns.features.empty()) ns.features.push_back({"sm_arch", std::move(sm)});
  return ns;
}

SupportedNamespace AmdProperties(const AmdFacts& facts) {
  // wheelnext/amd-variant-provider plugin.py: gfx_arch (the detected targets) first, then
  // rocm_version as major.minor.
  SupportedNamespace ns{"amd", "built-in amd", {}};
  if (!facts.gfx.empty()) ns.features.push_back({"gfx_arch", facts.gfx});
  int major = 0, minor = 0;
  if (!facts.rocm_version.empty() && ParseMajorMinor(facts.rocm_version, &major, &minor)) {
    ns.features.push_back({"rocm_version", {std::to_string(major) + "." + std::to_string(minor)}});
  }
  return ns;
}

SupportedNamespace IntelProperties(const IntelFacts& facts) {
  SupportedNamespace ns{"intel", "built-in intel", {}};
  std::vector<std::string> ips;
  for (const IntelGpu& gpu : facts.xpu_devices) {
    for (const std::string& ip : IntelDeviceIps(gpu.platform)) AddUnique(ips, ip);
  }
  if (!ips.empty()) ns.features.push_back({"device_ip", std::move(ips)});
  return ns;
}

catalogue::SupportedProperties BuiltInProperties(const HostFacts& facts) {
  catalogue::SupportedProperties out;
  if (facts.nvidia) {
    SupportedNamespace ns = NvidiaProperties(*facts.nvidia);
    if (!ns.features.empty()) out.push_back(std::move(ns));
  }
  if (facts.intel) {
    SupportedNamespace ns = IntelProperties(*facts.intel);
    if (!ns.features.empty()) out.push_back(std::move(ns));
  }
  if (facts.amd) {
    SupportedNamespace ns = AmdProperties(*facts.amd);
    if (!ns.features.empty()) out.push_back(std::move(ns));
  }
  return out;
}

std::vector<ExternalProvider> FindExternalProviders(const FileReader& files, const Environment& env,
                                                    std::vector<std::string>* warnings) {
  std::vector<ExternalProvider> out;
  const std::optional<std::string> path = Lookup(env, "PATH");
  if (!path) return out;
  std::set<std::string> seen;
  std::stringstream dirs(*path);
  std::string dir;
  constexpr std::string_view kPrefix = "torchdex-provider-";
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty() || dir.front() != '/') continue;  // a relative entry means the working folder
    std::vector<std::string> names = files.ListDirectory(dir);
    std::sort(names.begin(), names.end());
    for (const std::string& name : names) {
      if (name.rfind(kPrefix, 0) != 0) continue;
      const std::string ns = name.substr(kPrefix.size());
      const std::string full = (dir.back() == '/' ? dir : dir + "/") + name;
      if (!files.IsRegularFile(full) || !files.IsExecutable(full)) {
        // A shell skips it silently; a vendor who forgot the execute bit wants to know.
        if (warnings) warnings->push_back("provider " + full + ": not an executable file; not run");
        continue;
      }
      if (!IsName(ns)) {
        if (warnings) {
          warnings->push_back("provider " + full + ": \"" + Visible(ns) +
                              "\" is not a namespace (^[a-z0-9_]+$); not run");
        }
        continue;
      }
      if (!seen.insert(ns).second) continue;  // the first on PATH wins, as a shell would
      out.push_back({ns, files.LocalPath(full), "PATH"});
    }
  }
  std::sort(out.begin(), out.end(), [](const ExternalProvider& a, const ExternalProvider& b) {
    return a.name_space < b.name_space;
  });
  return out;
}

std::vector<ExternalProvider> ExternalProvidersFor(const FileReader& files, const Environment& env, bool captured,
                                                   bool root_providers, std::vector<std::string>* warnings) {
  std::vector<ExternalProvider> found = FindExternalProviders(files, env, warnings);
  if (!captured || root_providers) return found;
  if (warnings) {
    for (const ExternalProvider& p : found) {
      warnings->push_back("provider " + p.path + ": on the PATH of the host captured under --root, not run (a "
                          "captured file is not a program of this machine; --root-providers runs them)");
    }
  }
  return {};
}

std::vector<ExternalProvider> WithNamedProviders(std::vector<ExternalProvider> found,
                                                 const std::vector<ExternalProvider>& named) {
  for (const ExternalProvider& n : named) {
    auto same = std::find_if(found.begin(), found.end(), [&](const ExternalProvider& p) {
      return p.name_space == n.name_space;
    });
    if (same != found.end()) {
      *same = n;
    } else {
      found.push_back(n);
    }
  }
  std::sort(found.begin(), found.end(), [](const ExternalProvider& a, const ExternalProvider& b) {
    return a.name_space < b.name_space;
  });
  return found;
}

namespace {

// Reads one provider's answer; every error says "provider <who>: " and where.
class ProviderAnswerReader {
 public:
  explicit ProviderAnswerReader(const std::string& provider) : provider_(provider) {}

  core::Error Fail(const std::string& what) const {
    return core::MakeError("provider " + provider_ + ": " + what, core::ErrorCode::kBadInputFile);
  }

  // The protocol's header: only its keys, its version, the namespace it was run for.
  std::optional<core::Error> CheckHeader(const ordered_json& doc, const std::string& expected_namespace) const {
    if (!doc.is_object()) return Fail("expected a JSON object");
    for (const auto& [key, value] : doc.items()) {
      if (key != "version" && key != "namespace" && key != "features" && key != "warnings") {
        return Fail("at /" + Visible(key) + ": not a key of protocol version 1");
      }
    }
    const auto version = doc.find("version");
    if (version == doc.end() || !version->is_number_integer()) {
      return Fail("at /version: expected the protocol version, an integer");
    }
    if (version->get<std::int64_t>() != kProviderProtocolVersion) {
      return Fail("at /version: protocol version " + version->dump() + "; torchdex speaks " +
                  std::to_string(kProviderProtocolVersion));
    }
    const auto ns = doc.find("namespace");
    if (ns == doc.end() || !ns->is_string()) return Fail("at /namespace: expected a string");
    const std::string name = ns->get<std::string>();
    if (name != expected_namespace) {
      return Fail("at /namespace: \"" + Visible(name) + "\", but the provider is for \"" + expected_namespace +
                  "\": a provider reports its own namespace only");
    }
    return std::nullopt;
  }

  // One feature: {"name": ..., "values": [...]}, its values unique and well formed.
  core::Expected<VariantFeature> Feature(const ordered_json& f, const std::string& at,
                                         std::set<std::string>& feature_names) const {
    if (!f.is_object()) return Fail(at + ": expected an object");
    for (const auto& [key, value] : f.items()) {
      if (key != "name" && key != "values") return Fail(at + "/" + Visible(key) + ": not a key of a feature");
    }
    const auto fname = f.find("name");
    if (fname == f.end() || !fname->is_string() || !IsName(fname->get<std::string>())) {
      return Fail(at + "/name: expected a feature name matching ^[a-z0-9_]+$");
    }
    const std::string feature = fname->get<std::string>();
    if (!feature_names.insert(feature).second) return Fail(at + "/name: \"" + feature + "\" is given twice");
    const auto values = f.find("values");
    if (values == f.end() || !values->is_array()) return Fail(at + "/values: expected a list of strings");
    if (values->size() > kMaxProviderValues) {
      return Fail(at + "/values: more than " + std::to_string(kMaxProviderValues) + " values");
    }
    VariantFeature parsed{feature, {}};
    std::set<std::string> seen;
    for (std::size_t j = 0; j < values->size(); ++j) {
      const ordered_json& v = (*values)[j];
      const std::string vat = at + "/values/" + std::to_string(j);
      if (!v.is_string() || !catalogue::IsVariantLabel(v.get<std::string>())) {
        return Fail(vat + ": expected a value matching ^[a-z0-9_.]+$, got " +
                    Visible(v.dump(-1, ' ', false, ordered_json::error_handler_t::replace), 40));
      }
      if (!seen.insert(v.get<std::string>()).second) {
        return Fail(vat + ": \"" + v.get<std::string>() + "\" is given twice");
      }
      parsed.values.push_back(v.get<std::string>());
    }
    return parsed;
  }

 private:
  const std::string& provider_;
};

}  // namespace

core::Expected<SupportedNamespace> ParseProviderOutput(std::string_view output,
                                                       const std::string& expected_namespace,
                                                       const std::string& provider) {
  const ProviderAnswerReader r(provider);
  if (output.size() >= kMaxProviderOutput) {
    return r.Fail("printed " + std::to_string(kMaxProviderOutput >> 20) +
                  " MiB or more; the protocol's output is a few KB (docs/variants.md)");
  }
  ordered_json doc;
  try {
    doc = ordered_json::parse(output);
  } catch (const ordered_json::exception& e) {
    std::string what = e.what();
    if (const std::size_t colon = what.rfind(": "); colon != std::string::npos) what = what.substr(colon + 2);
    return r.Fail("not valid JSON: " + what + " (it printed \"" + Visible(output, 60) + "\")");
  }
  if (std::optional<core::Error> e = r.CheckHeader(doc, expected_namespace)) return *e;
  const auto features = doc.find("features");
  if (features == doc.end() || !features->is_array()) {
    return r.Fail("at /features: expected a list of {\"name\", \"values\"}");
  }
  if (features->size() > kMaxProviderFeatures) {
    return r.Fail("at /features: " + std::to_string(features->size()) + " features, more than " +
                  std::to_string(kMaxProviderFeatures));
  }
  SupportedNamespace out{expected_namespace, provider, {}};
  std::set<std::string> feature_names;
  for (std::size_t i = 0; i < features->size(); ++i) {
    core::Expected<VariantFeature> parsed =
        r.Feature((*features)[i], "at /features/" + std::to_string(i), feature_names);
    if (!parsed) return parsed.error();
    if (!parsed->values.empty()) out.features.push_back(std::move(parsed).value());
  }
  return out;
}

VariantDetection DetectVariantProperties(const HostFacts& facts,
                                         const std::vector<ExternalProvider>& external,
                                         const Environment& env, ProcessRunner& runner,
                                         std::chrono::milliseconds timeout) {
  VariantDetection out;
  out.properties = BuiltInProperties(facts);
  for (const char* builtin : {"nvidia", "intel", "amd"}) {
    const bool found =
        std::any_of(out.properties.begin(), out.properties.end(),
                    [&](const SupportedNamespace& ns) { return ns.name == builtin; });
    out.providers.push_back(
        {builtin, "built-in", found ? "answered" : "nothing on this host", found});
  }
  // A provider may itself run torchdex (a wrapper, or the Python provider package): that torchdex
  // runs no provider of its own, or each would start the next without end.
  if (const std::optional<std::string> parent = Lookup(env, kProviderEnvironmentVariable);
      parent && !external.empty()) {
    out.warnings.push_back("running as the provider torchdex-provider-" + Visible(*parent) + " (" +
                           std::string(kProviderEnvironmentVariable) +
                           " is set): external providers are not run, the built-in ones answer");
    return out;
  }
  Environment child_env = env;
  for (const ExternalProvider& p : external) {
    const std::string who = "torchdex-provider-" + p.name_space + " (" + p.path + ")";
    ProviderRun run{p.name_space, p.path, "", false};
    child_env[std::string(kProviderEnvironmentVariable)] = p.name_space;
    const ProcessResult result = runner.Run({p.path}, child_env, timeout);
    if (!result.Succeeded()) {
      run.outcome = result.Describe(timeout);
      out.warnings.push_back("provider " + who + " " + run.outcome +
                             "; its namespace is left to the built-in detection");
      out.providers.push_back(std::move(run));
      continue;
    }
    core::Expected<SupportedNamespace> parsed =
        ParseProviderOutput(result.output, p.name_space, who);
    if (!parsed) {
      run.outcome = "invalid output";
      out.warnings.push_back(parsed.error().message + "; ignored");
      out.providers.push_back(std::move(run));
      continue;
    }
    // Replace the built-in provider of the namespace, or add one after them.
    auto same = std::find_if(out.properties.begin(), out.properties.end(),
                             [&](const SupportedNamespace& ns) { return ns.name == p.name_space; });
    for (ProviderRun& earlier : out.providers) {
      if (earlier.name_space == p.name_space && earlier.provider == "built-in" && earlier.used) {
        earlier.used = false;
        earlier.outcome = "answered; replaced by " + p.path;
      }
    }
    if (same != out.properties.end()) {
      *same = std::move(*parsed);
    } else if (!parsed->features.empty()) {
      out.properties.push_back(std::move(*parsed));
    }
    run.outcome = "answered";
    run.used = true;
    out.providers.push_back(std::move(run));
  }
  return out;
}

std::string VariantDetectionToJson(const VariantDetection& d) {
  ordered_json doc;
  doc["version"] = kProviderProtocolVersion;
  doc["namespaces"] = ordered_json::array();
  for (const SupportedNamespace& ns : d.properties) {
    ordered_json n;
    n["namespace"] = ns.name;
    n["provider"] = ns.provider;
    n["features"] = ordered_json::array();
    for (const VariantFeature& f : ns.features) {
      n["features"].push_back({{"name", f.name}, {"values", f.values}});
    }
    doc["namespaces"].push_back(std::move(n));
  }
  doc["providers"] = ordered_json::array();
  for (const ProviderRun& p : d.providers) {
    doc["providers"].push_back({{"namespace", p.name_space},
                                {"provider", p.provider},
                                {"outcome", p.outcome},
                                {"used", p.used}});
  }
  doc["warnings"] = d.warnings;
  return doc.dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

std::string VariantDetectionToText(const VariantDetection& d) {
  std::string out;
  if (d.properties.empty()) {
    out += "No variant properties: only the null variant (and non-variant wheels) fit this host.\n";
  }
  for (const SupportedNamespace& ns : d.properties) {
    out += ns.name + " (" + ns.provider + ")\n";
    for (const VariantFeature& f : ns.features) {
      out += "  " + ns.name + " :: " + f.name + " :: ";
      for (std::size_t i = 0; i < f.values.size(); ++i) {
        if (i == 12) {
          out += ", ... (" + std::to_string(f.values.size()) + " values)";
          break;
        }
        if (i) out += ", ";
        out += f.values[i];
      }
      out += "\n";
    }
  }
  for (const ProviderRun& p : d.providers) {
    if (p.provider == "built-in") continue;
    out += "provider " + p.name_space + ": " + p.provider + ": " + p.outcome + "\n";
  }
  for (const std::string& w : d.warnings) out += "warning: " + w + "\n";
  return out;
}

}  // namespace torchdex::installer
