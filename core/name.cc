#include "core/name.h"

namespace torchdex::core {
namespace {

bool IsSeparator(char c) { return c == '-' || c == '_' || c == '.'; }
bool IsAsciiAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}
char ToLowerAscii(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

}  // namespace

std::string NormalizeName(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  bool in_separator_run = false;
  for (char c : name) {
    if (IsSeparator(c)) {
      if (!in_separator_run) out.push_back('-');
      in_separator_run = true;
    } else {
      out.push_back(ToLowerAscii(c));
      in_separator_run = false;
    }
  }
  return out;
}

bool IsValidName(std::string_view name) {
  if (name.empty() || !IsAsciiAlnum(name.front()) || !IsAsciiAlnum(name.back())) return false;
  for (char c : name) {
    if (!IsAsciiAlnum(c) && !IsSeparator(c)) return false;
  }
  return true;
}

bool SameProject(std::string_view a, std::string_view b) {
  return NormalizeName(a) == NormalizeName(b);
}

}  // namespace torchdex::core
