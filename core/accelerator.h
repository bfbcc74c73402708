// The vocabulary of accelerators, as values with one parser and one formatter each: the kind of
// a backend (core/backend_kinds.def), an NVIDIA driver version, a CUDA compute capability and
// the target operating system. Detection produces them, the compiled table stores them (they
// are constexpr), selection compares them; nothing travels as text in between.
#ifndef TORCHDEX_CORE_ACCELERATOR_H_
#define TORCHDEX_CORE_ACCELERATOR_H_

#include <array>
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace torchdex::core {

// ---- Backend kinds ----

enum class BackendKind : std::uint8_t {
#define TORCHDEX_BACKEND_KIND(enumerator, word, display) enumerator,
#include "core/backend_kinds.def"
};

/// Every kind, in the order of the .def file.
inline constexpr BackendKind kBackendKinds[] = {
#define TORCHDEX_BACKEND_KIND(enumerator, word, display) BackendKind::enumerator,
#include "core/backend_kinds.def"
};

/// The catalogue's word for a kind ("cuda"), as catalogue.json, override files and JSON output
/// spell it.
std::string_view BackendKindWord(BackendKind kind);
/// The inverse of BackendKindWord; nullopt for a word that is no kind.
std::optional<BackendKind> ParseBackendKind(std::string_view word);
/// The name in sentences ("CUDA", "ROCm").
std::string_view BackendKindDisplayName(BackendKind kind);
/// The enumerator's own name ("kCuda"), for generated code.
std::string_view BackendKindEnumerator(BackendKind kind);

// ---- Backend states ----

/// What a crawl found of a backend's directory, as catalogues spell it.
enum class BackendState : std::uint8_t {
  kOk,              // "ok": its project list and pages were read
  kOkFlatPageOnly,  // "ok (flat page only)": its pages are missing, the flat page links its wheels
  kEmpty,           // "empty": its project list is missing or lists nothing
  kSkipped,         // "skipped": not crawled (not asked for)
  kSkippedLegacy,   // "skipped (legacy)": a legacy directory, not crawled
};
/// The catalogue's word for a state ("ok (flat page only)").
std::string_view BackendStateWord(BackendState state);
/// The enumerator's own name ("kOkFlatPageOnly"), for generated code.
std::string_view BackendStateEnumerator(BackendState state);
/// Every state's word, in the enum's order ("ok, ok (flat page only), ..." in messages).
std::vector<std::string> BackendStateWords();
/// The inverse of BackendStateWord; nullopt for a word that is no state.
std::optional<BackendState> ParseBackendState(std::string_view word);
/// Whether the catalogue knows what a backend in this state offers (its pages or the flat page).
constexpr bool OffersBuilds(BackendState state) {
  return state == BackendState::kOk || state == BackendState::kOkFlatPageOnly;
}

// ---- Target operating systems ----

enum class TargetOs : std::uint8_t { kLinux, kWindows, kMacOS };
/// "linux", "windows", "macos".
std::string_view TargetOsWord(TargetOs os);
std::optional<TargetOs> ParseTargetOs(std::string_view word);

// ---- NVIDIA driver versions ----

/// An NVIDIA driver version: "550.144.03", "572.60", and "580" for a branch alone (NVIDIA's
/// minimum-driver tables). Ordered numerically, a missing part counting as 0; printed exactly
/// as it was parsed ("03" stays "03"). Constructed from numbers, it is printed the way NVIDIA
/// writes its tables: two-digit minor and patch, trailing zero parts left out.
class DriverVersion {
 public:
  constexpr DriverVersion() = default;
  constexpr DriverVersion(std::uint32_t major, std::uint32_t minor = 0, std::uint32_t patch = 0)  // NOLINT
      : parts_{major, minor, patch, 0}, widths_{0, 2, 2, 0},
        size_(major == 0 ? 0 : patch != 0 ? 3 : minor != 0 ? 2 : 1) {}

  /// 1 to 4 dot-separated decimal numbers of at most 6 digits; the first not 0.
  static constexpr std::optional<DriverVersion> Parse(std::string_view text) {
    DriverVersion out;
    std::size_t start = 0;
    while (true) {
      if (out.size_ == 4) return std::nullopt;
      std::size_t end = start;
      std::uint32_t value = 0;
      while (end < text.size() && text[end] >= '0' && text[end] <= '9') {
        value = value * 10 + static_cast<std::uint32_t>(text[end] - '0');
        ++end;
        if (end - start > 6) return std::nullopt;
      }
      if (end == start) return std::nullopt;
      out.parts_[out.size_] = value;
      out.widths_[out.size_] = static_cast<std::uint8_t>(end - start);
      ++out.size_;
      if (end == text.size()) break;
      if (text[end] != '.') return std::nullopt;
      start = end + 1;
    }
    if (out.parts_[0] == 0) return std::nullopt;
    return out;
  }

  std::string ToString() const;
  /// false for the default value: "not known" in tables.
  constexpr bool known() const { return size_ != 0; }
  /// How many parts were given (0 for an unknown version).
  constexpr std::size_t size() const { return size_; }
  constexpr std::uint32_t major() const { return parts_[0]; }
  constexpr std::uint32_t part(std::size_t i) const { return i < size_ ? parts_[i] : 0; }

  friend constexpr std::strong_ordering operator<=>(const DriverVersion& a, const DriverVersion& b) {
    for (std::size_t i = 0; i < 4; ++i) {
      if (auto c = a.part(i) <=> b.part(i); c != 0) return c;
    }
    return std::strong_ordering::equal;
  }
  friend constexpr bool operator==(const DriverVersion& a, const DriverVersion& b) {
    return (a <=> b) == 0;
  }

 private:
  std::array<std::uint32_t, 4> parts_{};
  std::array<std::uint8_t, 4> widths_{};  // digits as written; 0: as few as the number needs
  std::uint8_t size_ = 0;
};

// ---- CUDA compute capabilities ----

/// A compute capability: 8.6 is "8.6" and "sm_86"; 12.0 is "12.0" and "sm_120".
struct ComputeCapability {
  std::uint8_t major = 0;
  std::uint8_t minor = 0;

  /// "8.6", "12.0" (surrounding spaces allowed, as NVML and nvidia-smi print it); the major
  /// 1-99, the minor one digit.
  static std::optional<ComputeCapability> Parse(std::string_view text);
  /// "sm_86", "sm_120" (an arch-specific suffix "sm_90a" is accepted and dropped).
  static std::optional<ComputeCapability> ParseSm(std::string_view text);
  std::string ToString() const;  // "8.6"
  std::string Sm() const;        // "sm_86"

  friend constexpr auto operator<=>(const ComputeCapability&, const ComputeCapability&) = default;
};

}  // namespace torchdex::core

#endif  // TORCHDEX_CORE_ACCELERATOR_H_
