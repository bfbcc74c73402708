// "Did you mean ...?" for unknown names (commands, keys, backends), as ninja's
// SpellcheckStringV does.
#ifndef TORCHDEX_CORE_SPELLING_H_
#define TORCHDEX_CORE_SPELLING_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace torchdex::core {

/// Optimal string alignment distance: insertions, deletions, substitutions and swaps of two
/// neighbours ("cdua" -> "cuda") each count one.
std::size_t EditDistance(std::string_view a, std::string_view b);

/// The known names closest to `word` (at most `max_distance` edits), closest first; among equal
/// distances, names that start with `word` first, then later names first (cu12 -> cu129, cu128).
std::vector<std::string> ClosestNames(std::string_view word, const std::vector<std::string>& known,
                                      std::size_t max_distance = 2, std::size_t limit = 3);

/// " (did you mean \"x\"?)" or " (did you mean x, y or z?)" with `quote`; "" when none is close.
std::string DidYouMean(std::string_view word, const std::vector<std::string>& known,
                       bool quote = true, std::size_t limit = 1);

}  // namespace torchdex::core

#endif  // TORCHDEX_CORE_SPELLING_H_
