// PEP 440 versions: parsing (with every spelling the PEP normalises), the normal form,
// and the total order that pip and packaging use.
#ifndef TORCHDEX_CORE_VERSION_H_
#define TORCHDEX_CORE_VERSION_H_

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/expected.h"

namespace torchdex::core {

enum class PreKind : std::uint8_t { kAlpha, kBeta, kRc };  // in PEP 440 order: a < b < rc
/// The normal-form spelling: "a", "b", "rc".
std::string_view PreKindWord(PreKind kind);

struct PreRelease {
  PreKind kind;
  std::uint64_t number;
  friend auto operator<=>(const PreRelease&, const PreRelease&) = default;
};

/// A segment of a local label ("cu124", "1"): numbers compare as numbers and sort after
/// any alphanumeric segment; alphanumeric segments compare as (lowercased) strings.
using LocalSegment = std::variant<std::uint64_t, std::string>;

class Version {
 public:
  /// Accepts every form PEP 440 normalises: case, a leading 'v', surrounding whitespace,
  /// '-', '_' or '.' separators, "alpha"/"beta"/"c"/"pre"/"preview"/"rev"/"r" spellings,
  /// implicit numbers ("1.0a" is 1.0a0) and implicit post releases ("1.0-1" is 1.0.post1).
  static Expected<Version> Parse(std::string_view text);

  Version() = default;

  std::uint64_t epoch() const { return epoch_; }
  const std::vector<std::uint64_t>& release() const { return release_; }
  const std::optional<PreRelease>& pre() const { return pre_; }
  const std::optional<std::uint64_t>& post() const { return post_; }
  const std::optional<std::uint64_t>& dev() const { return dev_; }
  const std::vector<LocalSegment>& local() const { return local_; }

  bool IsPrerelease() const { return pre_.has_value() || dev_.has_value(); }
  bool IsPostrelease() const { return post_.has_value(); }
  bool IsDevrelease() const { return dev_.has_value(); }
  bool HasLocal() const { return !local_.empty(); }

  /// The normal form: "1!2.0rc1.post2.dev3+cu124".
  std::string ToString() const;
  /// The local label in normal form ("cu124", "cpu.cxx11.abi"), empty when there is none.
  std::string LocalString() const;
  /// The version without its local label.
  Version Public() const;
  /// Epoch and release only: "1!2.0" for "1!2.0rc1.post2+cu124".
  Version Base() const;

  friend std::strong_ordering operator<=>(const Version& a, const Version& b);
  friend bool operator==(const Version& a, const Version& b) { return (a <=> b) == 0; }

 private:
  std::uint64_t epoch_ = 0;
  std::vector<std::uint64_t> release_;
  std::optional<PreRelease> pre_;
  std::optional<std::uint64_t> post_;
  std::optional<std::uint64_t> dev_;
  std::vector<LocalSegment> local_;
};

}  // namespace torchdex::core

#endif  // TORCHDEX_CORE_VERSION_H_
