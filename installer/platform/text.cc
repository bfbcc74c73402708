#include "installer/platform/text.h"

#include <algorithm>

namespace torchdex::installer {

std::string_view Trim(std::string_view text) {
  const char* kSpace = " \t\r\n\v\f";
  const size_t start = text.find_first_not_of(kSpace);
  if (start == std::string_view::npos) return {};
  const size_t end = text.find_last_not_of(kSpace);
  return text.substr(start, end - start + 1);
}

std::vector<std::string_view> SplitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    start = end + 1;
  }
  return lines;
}

std::vector<std::string_view> Split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    const size_t end = text.find(separator, start);
    if (end == std::string_view::npos) {
      parts.push_back(text.substr(start));
      return parts;
    }
    parts.push_back(text.substr(start, end - start));
    start = end + 1;
  }
}

bool StartsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

std::string ToLower(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) {
    return static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  });
  return lower;
}

bool ContainsIgnoringCase(std::string_view text, std::string_view needle) {
  return ToLower(text).find(ToLower(needle)) != std::string::npos;
}

bool IsPlainText(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](unsigned char c) {
    return (c >= 0x20 && c < 0x7f) || c == '\n' || c == '\t' || c == '\r';
  });
}

std::string Quote(std::string_view text) {
  std::string shown = "\"";
  for (size_t i = 0; i < text.size() && i < 40; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    shown += (c >= 0x20 && c < 0x7f) ? static_cast<char>(c) : '?';
  }
  if (text.size() > 40) shown += "...";
  return shown + "\"";
}

}  // namespace torchdex::installer
