#include "core/specifier.h"

#include <algorithm>
#include <array>
#include <utility>

namespace torchdex::core {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

struct OpSpelling {
  std::string_view text;
  SpecOp op;
};
// Longest first, so "===" is not read as "==" followed by "=".
constexpr std::array<OpSpelling, 8> kOps = {{
    {"===", SpecOp::kArbitrary},
    {"~=", SpecOp::kCompatible},
    {"==", SpecOp::kEqual},
    {"!=", SpecOp::kNotEqual},
    {"<=", SpecOp::kLessEqual},
    {">=", SpecOp::kGreaterEqual},
    {"<", SpecOp::kLess},
    {">", SpecOp::kGreater},
}};

Error InvalidSpecifier(std::string_view text, std::string_view why) {
  return MakeError("invalid specifier '" + std::string(text) + "': " + std::string(why));
}

// The tokens packaging's _version_split gives for a public version in normal form:
// epoch, each release number, then the pre, post and dev parts ("rc1", "post2", "dev3").
// Prefix matching ("==2.5.*") compares these tokens, padding the release with zeros.
std::vector<std::string> SplitForPrefixMatch(const Version& v) {
  std::vector<std::string> tokens;
  tokens.push_back(std::to_string(v.epoch()));
  for (std::uint64_t n : v.release()) tokens.push_back(std::to_string(n));
  if (v.pre()) {
    static constexpr std::array<std::string_view, 3> kPre = {"a", "b", "rc"};
    tokens.push_back(std::string(kPre[static_cast<std::size_t>(v.pre()->kind)]) +
                     std::to_string(v.pre()->number));
  }
  if (v.post()) tokens.push_back("post" + std::to_string(*v.post()));
  if (v.dev()) tokens.push_back("dev" + std::to_string(*v.dev()));
  return tokens;
}

// "==prefix.*": the candidate's public version, release padded with zeros to the prefix's
// length, starts with the prefix. `prefix` holds epoch and release only (the grammar allows
// ".*" right after the release), so only the release needs padding.
bool PrefixMatches(const Version& candidate, const Version& prefix) {
  std::vector<std::string> tokens = SplitForPrefixMatch(candidate.Public());
  const std::vector<std::string> want = SplitForPrefixMatch(prefix);
  const std::size_t candidate_release = 1 + candidate.release().size();
  if (candidate_release < want.size()) {
    tokens.insert(tokens.begin() + static_cast<std::ptrdiff_t>(candidate_release),
                  want.size() - candidate_release, "0");
  }
  if (tokens.size() < want.size()) return false;
  return std::equal(want.begin(), want.end(), tokens.begin());
}

std::string Lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

}  // namespace

std::string_view SpecOpText(SpecOp op) {
  for (const OpSpelling& spelling : kOps) {
    if (spelling.op == op) return spelling.text;
  }
  return "";
}

Expected<Specifier> Specifier::Parse(std::string_view text) {
  const std::string_view trimmed = Trim(text);
  Specifier spec;
  std::string_view rest;
  bool found = false;
  for (const OpSpelling& spelling : kOps) {
    if (trimmed.starts_with(spelling.text)) {
      spec.op_ = spelling.op;
      rest = Trim(trimmed.substr(spelling.text.size()));
      found = true;
      break;
    }
  }
  if (!found) {
    return InvalidSpecifier(text, "expected an operator (~=, ==, !=, <=, >=, <, >, ===)");
  }
  if (rest.empty()) {
    return InvalidSpecifier(text, "expected a version after '" +
                                      std::string(SpecOpText(spec.op_)) + "'");
  }
  if (std::any_of(rest.begin(), rest.end(), IsSpace)) {
    return InvalidSpecifier(text, "unexpected whitespace inside the version");
  }

  if (spec.op_ == SpecOp::kArbitrary) {
    // "===" compares strings; its operand need not be a valid version, but it stops at ';'
    // and ')' as in packaging's grammar (a marker or the closing parenthesis follows).
    if (rest.find_first_of(";)") != std::string_view::npos) {
      return InvalidSpecifier(text, "unexpected ';' or ')' in the operand of '==='");
    }
    spec.version_text_ = std::string(rest);
    return spec;
  }

  std::string_view version_text = rest;
  if (version_text.ends_with(".*")) {
    if (spec.op_ != SpecOp::kEqual && spec.op_ != SpecOp::kNotEqual) {
      return InvalidSpecifier(text, "a '.*' prefix match is only allowed with == and !=");
    }
    spec.wildcard_ = true;
    version_text.remove_suffix(2);
  }
  Expected<Version> version = Version::Parse(version_text);
  if (!version) return InvalidSpecifier(text, version.error().message);
  spec.version_ = std::move(version).value();
  spec.version_text_ = std::string(version_text);

  const Version& v = spec.version_;
  if (spec.wildcard_ && (v.pre() || v.post() || v.dev() || v.HasLocal())) {
    return InvalidSpecifier(text, "a '.*' prefix may hold only an epoch and release numbers");
  }
  if (spec.op_ == SpecOp::kLess && !v.IsPrerelease()) {
    // V.dev0, the first version of V's family: V has no pre, dev or local part here.
    Expected<Version> bound = Version::Parse(v.ToString() + ".dev0");
    if (!bound) return InvalidSpecifier(text, bound.error().message);
    spec.less_bound_ = std::move(bound).value();
  }
  const bool local_allowed = spec.op_ == SpecOp::kEqual || spec.op_ == SpecOp::kNotEqual;
  if (v.HasLocal() && !local_allowed) {
    return InvalidSpecifier(text, "a local version label is only allowed with == and !=");
  }
  if (spec.op_ == SpecOp::kCompatible && v.release().size() < 2) {
    return InvalidSpecifier(text, "'~=' needs at least two release numbers (~=2.5, not ~=2)");
  }
  return spec;
}

bool Specifier::AllowsPrereleasesByDefault() const {
  switch (op_) {
    case SpecOp::kEqual:
    case SpecOp::kGreaterEqual:
    case SpecOp::kLessEqual:
    case SpecOp::kCompatible:
    case SpecOp::kLess:
    case SpecOp::kGreater:
      // packaging 26.0 counts < and > too (Specifier.prereleases; 24.x did not): pip 26
      // installs 2.6.0rc2 for "torch>2.6.0rc1" without --pre.
      return version_.IsPrerelease();
    case SpecOp::kArbitrary: {
      Expected<Version> v = Version::Parse(version_text_);
      return v && v->IsPrerelease();
    }
    case SpecOp::kNotEqual:
      return false;
  }
  return false;
}

bool Specifier::Contains(const Version& candidate, Prereleases prereleases) const {
  const bool allow_pre = prereleases == Prereleases::kAllow ||
                         (prereleases == Prereleases::kDefault && AllowsPrereleasesByDefault());
  if (candidate.IsPrerelease() && !allow_pre) return false;
  return Matches(candidate);
}

bool Specifier::Matches(const Version& candidate) const {
  switch (op_) {
    case SpecOp::kArbitrary:
      return Lowercase(candidate.ToString()) == Lowercase(version_text_);
    case SpecOp::kEqual:
    case SpecOp::kNotEqual: {
      bool equal;
      if (wildcard_) {
        equal = PrefixMatches(candidate, version_);
      } else if (version_.HasLocal()) {
        equal = candidate == version_;
      } else {
        // PEP 440: without a local label in the specifier, the candidate's is ignored,
        // so ==2.5.1 matches 2.5.1+cu124.
        equal = candidate.Public() == version_;
      }
      return op_ == SpecOp::kEqual ? equal : !equal;
    }
    case SpecOp::kLessEqual:
      return candidate.Public() <= version_;
    case SpecOp::kGreaterEqual:
      return candidate.Public() >= version_;
    case SpecOp::kLess:
      // PEP 440: <V excludes the pre-releases of V unless V is one (<2.6 rejects 2.6.0rc1).
      // As packaging reads "of V" (_ranges.standard_ranges): <V is <V.dev0, so the dev
      // releases of V are out and, for a final V, its pre-releases; 1.0a1 matches <1.0.post1.
      if (version_.IsPrerelease()) return candidate < version_;
      return candidate < less_bound_;
    case SpecOp::kGreater:
      // PEP 440: >V excludes the local versions of V and, unless V is a post release, its
      // post releases. "Of V" means V's public version, as packaging reads it: >1.0a1 takes
      // 1.0a2+local and 1.0.post1 (a post release of 1.0, not of 1.0a1), and >1.0.dev1 takes
      // 1.0.post1. Comparing epoch and release alone here rejected the nightly
      // 2.12.0.dev20260314+cu128 for torch>2.12.0.dev20260301 (issue 15).
      if (!(candidate > version_)) return false;
      if (candidate.Public() == version_) return false;
      if (!version_.IsPostrelease() && !version_.IsDevrelease() && candidate.IsPostrelease() &&
          candidate.Base() == version_.Base() && candidate.pre() == version_.pre()) {
        return false;
      }
      return true;
    case SpecOp::kCompatible: {
      // ~=X.Y.Z means >=X.Y.Z, ==X.Y.*
      if (!(candidate.Public() >= version_)) return false;
      const std::vector<std::uint64_t>& release = version_.release();
      Expected<Version> prefix = Version::Parse(
          [&] {
            std::string p = std::to_string(version_.epoch()) + "!";
            for (std::size_t i = 0; i + 1 < release.size(); ++i) {
              if (i != 0) p.push_back('.');
              p += std::to_string(release[i]);
            }
            return p;
          }());
      return prefix && PrefixMatches(candidate, *prefix);
    }
  }
  return false;
}

std::string Specifier::ToString() const {
  std::string out(SpecOpText(op_));
  if (op_ == SpecOp::kArbitrary) return out + version_text_;
  out += version_.ToString();
  if (wildcard_) out += ".*";
  return out;
}

Expected<SpecifierSet> SpecifierSet::Parse(std::string_view text) {
  SpecifierSet set;
  if (Trim(text).empty()) return set;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string_view item =
        text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    // Empty items are skipped, as packaging's SpecifierSet does (">=2.6," is ">=2.6").
    if (!Trim(item).empty()) {
      Expected<Specifier> spec = Specifier::Parse(item);
      if (!spec) return spec.error();
      set.specifiers_.push_back(std::move(spec).value());
    }
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return set;
}

bool SpecifierSet::AllowsPrereleasesByDefault() const {
  return std::any_of(specifiers_.begin(), specifiers_.end(),
                     [](const Specifier& s) { return s.AllowsPrereleasesByDefault(); });
}

bool SpecifierSet::Contains(const Version& candidate, Prereleases prereleases) const {
  // The set decides once whether pre-releases are allowed, then every member matches with
  // that decision: ">=2.6.0rc1,<3" lets 2.7.0rc1 through both.
  const bool allow_pre = prereleases == Prereleases::kAllow ||
                         (prereleases == Prereleases::kDefault && AllowsPrereleasesByDefault());
  if (candidate.IsPrerelease() && !allow_pre) return false;
  const Prereleases member = allow_pre ? Prereleases::kAllow : Prereleases::kDeny;
  return std::all_of(specifiers_.begin(), specifiers_.end(),
                     [&](const Specifier& s) { return s.Contains(candidate, member); });
}

std::vector<Version> SpecifierSet::Filter(std::span<const Version> candidates,
                                          Prereleases prereleases) const {
  std::vector<Version> matched;
  std::vector<Version> prerelease_matches;
  const bool explicit_choice = prereleases != Prereleases::kDefault;
  for (const Version& v : candidates) {
    if (explicit_choice || !v.IsPrerelease() || AllowsPrereleasesByDefault()) {
      if (Contains(v, prereleases)) matched.push_back(v);
    } else if (Contains(v, Prereleases::kAllow)) {
      prerelease_matches.push_back(v);
    }
  }
  if (matched.empty() && !explicit_choice) return prerelease_matches;
  return matched;
}

std::string SpecifierSet::ToString() const {
  std::vector<std::string> parts;
  parts.reserve(specifiers_.size());
  for (const Specifier& s : specifiers_) parts.push_back(s.ToString());
  std::sort(parts.begin(), parts.end());
  std::string out;
  for (const std::string& p : parts) {
    if (!out.empty()) out.push_back(',');
    out += p;
  }
  return out;
}

}  // namespace torchdex::core
