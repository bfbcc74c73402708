// PEP 508 dependency specifiers ("torch[opt]>=2.6; python_version >= '3.10'",
// "foo @ https://host/foo.whl") and environment markers with their evaluation.
#ifndef TORCHDEX_CORE_REQUIREMENT_H_
#define TORCHDEX_CORE_REQUIREMENT_H_

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.h"
#include "core/specifier.h"

namespace torchdex::core {

/// The values markers are evaluated against (PEP 508 "Environment Markers"), keyed by the
/// variable name ("python_version", "sys_platform", ...). `extra` is set per evaluation.
struct MarkerEnvironment {
  std::map<std::string, std::string, std::less<>> values;

  /// The environment of a CPython x.y.z on Linux x86_64, for tests and planning.
  static MarkerEnvironment ForLinuxCPython(int major, int minor, int micro,
                                           std::string_view machine = "x86_64");
};

/// A parsed marker expression. Evaluation follows packaging: version comparison when both
/// sides are versions and the operator is a version operator, string comparison otherwise.
class Marker {
 public:
  struct Node;  // an expression tree; defined in requirement.cc

  static Expected<Marker> Parse(std::string_view text);

  Marker();
  ~Marker();
  Marker(const Marker&);
  Marker& operator=(const Marker&);
  Marker(Marker&&) noexcept;
  Marker& operator=(Marker&&) noexcept;

  bool empty() const { return root_ == nullptr; }
  /// Evaluates with `extra` set to the given value (normalised as a name); "" means no extra.
  /// A comparison that is undefined (an ordering of two non-version strings) is an error.
  Expected<bool> Evaluate(const MarkerEnvironment& env, std::string_view extra = "") const;
  std::string ToString() const;

 private:
  std::shared_ptr<const Node> root_;
};

struct Requirement {
  std::string name;                 // as written
  std::vector<std::string> extras;  // normalised, sorted, unique
  SpecifierSet specifiers;          // empty when a URL is given
  std::string url;                  // after "@", empty when none
  Marker marker;                    // empty when none

  std::string NormalizedName() const;
  std::string ToString() const;

  /// One requirement line, as in a requirements file without options or comments.
  static Expected<Requirement> Parse(std::string_view text);
};

/// A requirement as the user wrote it, parsed once (argv or a -r file).
struct AskedRequirement {
  Requirement requirement;
  std::string text;  // as written: what an installer is given for a name that is not routed
};

}  // namespace torchdex::core

#endif  // TORCHDEX_CORE_REQUIREMENT_H_
