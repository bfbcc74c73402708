// What `--torch-backend variant` needs besides the decision, shared by install and select: the
// host's variant properties (built-in providers from the facts, detected when the decision did
// not detect, and the external providers of PATH and the override files), and the sentences
// that say them (docs/variants.md).
#ifndef TORCHDEX_INSTALLER_CLI_VARIANT_INPUTS_H_
#define TORCHDEX_INSTALLER_CLI_VARIANT_INPUTS_H_

#include <string>
#include <vector>

#include "core/expected.h"
#include "installer/cli/commands.h"
#include "installer/cli/decision_inputs.h"
#include "installer/variants/providers.h"

namespace torchdex::installer {

/// The variant properties of the host `choice` describes (--root, the detection overrides);
/// what was worth a warning is in the result's `warnings`.
core::Expected<VariantDetection> DetectVariantsForChoice(const ChoiceOptions& choice,
                                                         const DecisionInputs& inputs, Deps& deps);

/// `--torch-backend variant` (install) and `lock --backend variant`: the decision, made over
/// the CPU backend's routing (every routed package is offered there), becomes the variant
/// index's: backend "variant", the channel's variant index URL, named by `named_by`, the
/// host's variant properties said as its explanation. Returns those properties; their
/// warnings are added to the decision's.
core::Expected<VariantDetection> UseVariantIndex(const ChoiceOptions& choice, const DecisionInputs& inputs,
                                                 const std::string& named_by, Deps& deps, Decision& decision);

/// "variant index: ...", then "this host supports nvidia :: sm_arch :: 80_real, ... (built-in
/// nvidia)" per feature, or that only the null variant fits.
std::vector<std::string> VariantHostExplanation(const VariantDetection& variants);

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_CLI_VARIANT_INPUTS_H_
