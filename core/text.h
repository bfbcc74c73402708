// Small text helpers every layer uses: joining words, and where in a text a byte offset is.
#ifndef TORCHDEX_CORE_TEXT_H_
#define TORCHDEX_CORE_TEXT_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace torchdex::core {

/// "a, b, c": the items with `separator` between them.
std::string Join(const std::vector<std::string>& items, std::string_view separator = ", ");

/// "12.4.1" -> {12, 4, 1}: CUDA and ROCm versions; empty when not dot-separated decimal numbers
/// of at most 6 digits each. (Driver versions are core::DriverVersion.)
std::vector<unsigned> ParseDottedNumbers(std::string_view text);

/// A line and column of a text, both from 1.
struct TextPosition {
  std::size_t line = 1;
  std::size_t column = 1;
};

/// Where the byte before `offset` stands (nlohmann's parse_error::byte counts one past the byte
/// it stopped at); an offset past the end counts to the end.
TextPosition PositionBefore(std::string_view text, std::size_t offset);

}  // namespace torchdex::core

#endif  // TORCHDEX_CORE_TEXT_H_
