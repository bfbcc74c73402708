#include "installer/cli/variant_inputs.h"

#include <algorithm>
#include <cmath>

#include "installer/detect/detect.h"
#include "installer/override_files/override_files.h"
#include "installer/select/decide.h"

namespace torchdex::installer {

core::Expected<VariantDetection> DetectVariantsForChoice(const ChoiceOptions& choice,
                                                         const DecisionInputs& inputs, Deps& deps) {
  HostFacts facts = inputs.facts;
  const FileReader files(choice.root);
  if (!inputs.detected) {
    DetectOptions detect_options;
    detect_options.probe_timeout = std::chrono::milliseconds(
        std::max<int64_t>(1, std::llround(choice.probe_timeout_seconds * 1000)));
    core::Expected<HostFacts> detected =
        Detect(detect_options, DetectDeps{files, deps.env, deps.runner, deps.clock});
    if (!detected) return detected.error();
    facts = std::move(detected).value();
  }
  std::vector<std::string> warnings;
  std::vector<ExternalProvider> named;
  for (const auto& [ns, exe] : inputs.catalogue.overrides.providers) {
    named.push_back({ns, exe.value, exe.origin});
  }
  const std::vector<ExternalProvider> external =
      WithNamedProviders(ExternalProvidersFor(files, deps.env, !choice.root.empty() && choice.root != "/",
                                              choice.root_providers, &warnings),
                         named);
  VariantDetection variants =
      DetectVariantProperties(facts, external, deps.env, deps.runner, kDefaultProviderTimeout);
  warnings.insert(warnings.end(), variants.warnings.begin(), variants.warnings.end());
  variants.warnings = std::move(warnings);
  return variants;
}

core::Expected<VariantDetection> UseVariantIndex(const ChoiceOptions& choice, const DecisionInputs& inputs,
                                                 const std::string& named_by, Deps& deps, Decision& decision) {
  core::Expected<VariantDetection> variants = DetectVariantsForChoice(choice, inputs, deps);
  if (!variants) return variants.error();
  for (const std::string& w : variants->warnings) decision.warnings.push_back(w);
  decision.backend = "variant";
  decision.forced_by = named_by + " variant";
  decision.index_url =
      BackendIndexUrl(inputs.catalogue.overrides, decision.upstream_base, ChannelPath(decision.channel), "variant");
  decision.explanation = VariantHostExplanation(*variants);
  return variants;
}

std::vector<std::string> VariantHostExplanation(const VariantDetection& variants) {
  std::vector<std::string> out = {"variant index: the wheel is chosen by PEP 825 variant properties"};
  for (const catalogue::SupportedNamespace& ns : variants.properties) {
    for (const catalogue::VariantFeature& f : ns.features) {
      std::string line = "this host supports " + ns.name + " :: " + f.name + " :: ";
      for (std::size_t i = 0; i < f.values.size() && i < 6; ++i) {
        if (i) line += ", ";
        line += f.values[i];
      }
      if (f.values.size() > 6) line += ", ...";
      out.push_back(line + " (" + ns.provider + ")");
    }
  }
  if (variants.properties.empty()) {
    out.push_back("this host supports no variant property: the null variant");
  }
  return out;
}

}  // namespace torchdex::installer
