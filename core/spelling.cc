#include "core/spelling.h"

#include <algorithm>
#include <tuple>

namespace torchdex::core {

std::size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

std::vector<std::string> ClosestNames(std::string_view word, const std::vector<std::string>& known,
                                      std::size_t max_distance, std::size_t limit) {
  // (distance, not a prefix match, name) sorted; names compared in reverse so that the newest
  // of a family ("cu129") comes before older ones.
  std::vector<std::tuple<std::size_t, bool, std::string>> scored;
  for (const std::string& k : known) {
    const std::size_t d = EditDistance(word, k);
    if (d <= max_distance && d < std::max<std::size_t>(word.size(), 1)) {
      scored.emplace_back(d, !std::string_view(k).starts_with(word), k);
    }
  }
  std::sort(scored.begin(), scored.end(), [](const auto& x, const auto& y) {
    if (std::get<0>(x) != std::get<0>(y)) return std::get<0>(x) < std::get<0>(y);
    if (std::get<1>(x) != std::get<1>(y)) return !std::get<1>(x);
    return std::get<2>(x) > std::get<2>(y);
  });
  std::vector<std::string> out;
  for (const auto& s : scored) {
    if (out.size() == limit) break;
    out.push_back(std::get<2>(s));
  }
  return out;
}

std::string DidYouMean(std::string_view word, const std::vector<std::string>& known, bool quote,
                       std::size_t limit) {
  const std::vector<std::string> close = ClosestNames(word, known, 2, limit);
  if (close.empty()) return "";
  auto q = [&](const std::string& s) { return quote ? "\"" + s + "\"" : s; };
  std::string out = " (did you mean ";
  for (std::size_t i = 0; i < close.size(); ++i) {
    if (i != 0) out += i + 1 == close.size() ? " or " : ", ";
    out += q(close[i]);
  }
  return out + "?)";
}

}  // namespace torchdex::core
