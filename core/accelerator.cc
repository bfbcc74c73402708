#include "core/accelerator.h"

#include <cstdio>
#include <utility>

namespace torchdex::core {
namespace {

struct KindRow {
  std::string_view word;
  std::string_view display;
  std::string_view enumerator;
};

constexpr KindRow kKindRows[] = {
#define TORCHDEX_BACKEND_KIND(enumerator, word, display) {word, display, #enumerator},
#include "core/backend_kinds.def"
};

const KindRow& RowOf(BackendKind kind) { return kKindRows[static_cast<std::size_t>(kind)]; }

constexpr std::string_view kOsWords[] = {"linux", "windows", "macos"};

std::string_view TrimSpaces(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\n' ||
                           text.back() == '\r')) {
    text.remove_suffix(1);
  }
  return text;
}

// Digits only, at most `max` of them, into *value.
bool ReadNumber(std::string_view text, std::size_t max, unsigned* value) {
  if (text.empty() || text.size() > max) return false;
  unsigned v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<unsigned>(c - '0');
  }
  *value = v;
  return true;
}

}  // namespace

std::string_view BackendKindWord(BackendKind kind) { return RowOf(kind).word; }
std::string_view BackendKindDisplayName(BackendKind kind) { return RowOf(kind).display; }
std::string_view BackendKindEnumerator(BackendKind kind) { return RowOf(kind).enumerator; }

namespace {
// In the order of the enum: the catalogue's word, the enumerator's name (for generated code).
constexpr std::pair<std::string_view, std::string_view> kStateRows[] = {
    {"ok", "kOk"}, {"ok (flat page only)", "kOkFlatPageOnly"}, {"empty", "kEmpty"},
    {"skipped", "kSkipped"}, {"skipped (legacy)", "kSkippedLegacy"}};
static_assert(std::size(kStateRows) == static_cast<std::size_t>(BackendState::kSkippedLegacy) + 1);
}  // namespace

std::string_view BackendStateWord(BackendState state) { return kStateRows[static_cast<std::size_t>(state)].first; }
std::string_view BackendStateEnumerator(BackendState state) {
  return kStateRows[static_cast<std::size_t>(state)].second;
}

std::vector<std::string> BackendStateWords() {
  std::vector<std::string> words;
  for (const auto& row : kStateRows) words.emplace_back(row.first);
  return words;
}

std::optional<BackendState> ParseBackendState(std::string_view word) {
  for (std::size_t i = 0; i < std::size(kStateRows); ++i) {
    if (kStateRows[i].first == word) return static_cast<BackendState>(i);
  }
  return std::nullopt;
}

std::optional<BackendKind> ParseBackendKind(std::string_view word) {
  for (BackendKind kind : kBackendKinds) {
    if (RowOf(kind).word == word) return kind;
  }
  return std::nullopt;
}

std::string_view TargetOsWord(TargetOs os) { return kOsWords[static_cast<std::size_t>(os)]; }

std::optional<TargetOs> ParseTargetOs(std::string_view word) {
  for (std::size_t i = 0; i < std::size(kOsWords); ++i) {
    if (kOsWords[i] == word) return static_cast<TargetOs>(i);
  }
  return std::nullopt;
}

std::string DriverVersion::ToString() const {
  std::string out;
  char text[16];
  for (std::size_t i = 0; i < size_; ++i) {
    std::snprintf(text, sizeof(text), "%s%0*u", i == 0 ? "" : ".", static_cast<int>(widths_[i]),
                  static_cast<unsigned>(parts_[i]));
    out += text;
  }
  return out;
}

std::optional<ComputeCapability> ComputeCapability::Parse(std::string_view text) {
  text = TrimSpaces(text);
  const std::size_t dot = text.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  unsigned major = 0;
  unsigned minor = 0;
  if (!ReadNumber(text.substr(0, dot), 2, &major) || !ReadNumber(text.substr(dot + 1), 1, &minor) ||
      major == 0) {
    return std::nullopt;
  }
  return ComputeCapability{static_cast<std::uint8_t>(major), static_cast<std::uint8_t>(minor)};
}

std::optional<ComputeCapability> ComputeCapability::ParseSm(std::string_view text) {
  if (!text.starts_with("sm_")) return std::nullopt;
  text.remove_prefix(3);
  if (!text.empty() && (text.back() == 'a' || text.back() == 'f')) text.remove_suffix(1);
  unsigned number = 0;
  if (text.size() < 2 || !ReadNumber(text, 3, &number) || number < 10) return std::nullopt;
  return ComputeCapability{static_cast<std::uint8_t>(number / 10), static_cast<std::uint8_t>(number % 10)};
}

std::string ComputeCapability::ToString() const {
  return std::to_string(major) + "." + std::to_string(minor);
}

std::string ComputeCapability::Sm() const {
  return "sm_" + std::to_string(major) + std::to_string(minor);
}

}  // namespace torchdex::core
