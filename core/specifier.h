// PEP 440 version specifiers ("==2.5.*", "~=1.4.2", ">=2.6,<3") and the matching rules
// for local versions and pre-releases, as pip and packaging apply them.
#ifndef TORCHDEX_CORE_SPECIFIER_H_
#define TORCHDEX_CORE_SPECIFIER_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.h"
#include "core/version.h"

namespace torchdex::core {

enum class SpecOp : std::uint8_t {
  kCompatible,    // ~=
  kEqual,         // ==
  kNotEqual,      // !=
  kLessEqual,     // <=
  kGreaterEqual,  // >=
  kLess,          // <
  kGreater,       // >
  kArbitrary,     // ===
};

std::string_view SpecOpText(SpecOp op);

/// Whether a pre-release (or dev release) may match.
///  kDefault: only when the specifier itself names a pre-release (">=2.6.0rc1"), as pip does;
///  kAllow / kDeny: forced, as `--pre` and marker evaluation (which allows them) do.
/// Contains(v, kDefault) judges v alone, as packaging did before 26.0; packaging 26's
/// contains(v, prereleases=None) also lets in a pre-release as "the only candidate", which
/// here is Filter's answer (pip itself calls contains only with prereleases=True).
enum class Prereleases : std::uint8_t { kDefault, kAllow, kDeny };

class Specifier {
 public:
  static Expected<Specifier> Parse(std::string_view text);

  SpecOp op() const { return op_; }
  /// The version as written after the operator, without a trailing ".*".
  const std::string& version_text() const { return version_text_; }
  bool wildcard() const { return wildcard_; }

  /// True when the specifier itself names a pre-release with any operator but != (packaging 26).
  bool AllowsPrereleasesByDefault() const;
  bool Contains(const Version& candidate, Prereleases prereleases = Prereleases::kDefault) const;

  /// Normal form: operator then normalised version, "==2.5.*", ">=2.6.0rc1".
  std::string ToString() const;

 private:
  bool Matches(const Version& candidate) const;

  SpecOp op_ = SpecOp::kEqual;
  std::string version_text_;
  Version version_;  // parsed version_text_; unused for ===
  Version less_bound_;  // for <V with V no pre-release: V.dev0, the exclusive upper bound
  bool wildcard_ = false;
};

class SpecifierSet {
 public:
  /// Comma-separated specifiers; the empty string is the set that matches everything, and
  /// empty items are skipped (">=2.6,,<3," is ">=2.6,<3"), as packaging reads them.
  static Expected<SpecifierSet> Parse(std::string_view text);

  const std::vector<Specifier>& specifiers() const { return specifiers_; }
  bool empty() const { return specifiers_.empty(); }

  bool AllowsPrereleasesByDefault() const;
  bool Contains(const Version& candidate, Prereleases prereleases = Prereleases::kDefault) const;

  /// pip's choice among candidates: those that match; when only pre-releases match and the
  /// policy is kDefault, those pre-releases (PEP 440: "accept pre-releases if they are the only
  /// candidates"). Keeps the input order.
  std::vector<Version> Filter(std::span<const Version> candidates,
                              Prereleases prereleases = Prereleases::kDefault) const;

  /// Sorted, comma-joined normal form (as packaging prints it).
  std::string ToString() const;

 private:
  std::vector<Specifier> specifiers_;
};

}  // namespace torchdex::core

#endif  // TORCHDEX_CORE_SPECIFIER_H_
