#include "core/text.h"

#include <charconv>

namespace torchdex::core {

std::string Join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out.append(separator);
    out.append(items[i]);
  }
  return out;
}

std::vector<unsigned> ParseDottedNumbers(std::string_view text) {
  std::vector<unsigned> numbers;
  size_t start = 0;
  while (true) {
    const size_t end = text.find('.', start);
    const std::string_view part =
        text.substr(start, end == std::string_view::npos ? end : end - start);
    unsigned value = 0;
    auto [pointer, error] = std::from_chars(part.data(), part.data() + part.size(), value);
    if (part.empty() || part.size() > 6 || error != std::errc() ||
        pointer != part.data() + part.size()) {
      return {};
    }
    numbers.push_back(value);
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  if (numbers.size() > 4) return {};
  return numbers;
}

TextPosition PositionBefore(std::string_view text, std::size_t offset) {
  TextPosition at;
  for (std::size_t i = 0; i + 1 < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++at.line;
      at.column = 1;
    } else {
      ++at.column;
    }
  }
  return at;
}

}  // namespace torchdex::core
