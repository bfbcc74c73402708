// Project names: PEP 503 normalisation and the PEP 508 rule for what a name may be.
#ifndef TORCHDEX_CORE_NAME_H_
#define TORCHDEX_CORE_NAME_H_

#include <string>
#include <string_view>

namespace torchdex::core {

/// PEP 503: lowercase, and every run of '-', '_' and '.' becomes one '-'.
/// "Jinja2" -> "jinja2", "typing_extensions" -> "typing-extensions", "zope..Interface" -> "zope-interface".
std::string NormalizeName(std::string_view name);

/// PEP 508 (and the core metadata spec): ASCII letters and digits, with '.', '-' and '_'
/// allowed inside but not at either end.
bool IsValidName(std::string_view name);

/// True when the two names are the same project (equal after NormalizeName).
bool SameProject(std::string_view a, std::string_view b);

}  // namespace torchdex::core

#endif  // TORCHDEX_CORE_NAME_H_
