// Core metadata (the METADATA file of a wheel, served alone as `<wheel>.metadata` by PEP 658):
// email-header fields, of which the planner needs Name, Version, Requires-Python, the
// Provides-Extra lines and the Requires-Dist lines (core metadata spec 2.1+, "Requires-Dist" as PEP 508 strings).
#ifndef TORCHDEX_INSTALLER_INSTALL_METADATA_H_
#define TORCHDEX_INSTALLER_INSTALL_METADATA_H_

#include <string>
#include <string_view>
#include <vector>

#include "core/expected.h"
#include "core/requirement.h"

namespace torchdex::installer {

struct CoreMetadata {
  std::string name;
  std::string version;
  std::string requires_python;
  std::vector<core::Requirement> requires_dist;  // in file order
  std::vector<std::string> provides_extra;       // as written, in file order
};

/// Parses the header section (up to the first empty line; the body is the description).
/// Continuation lines (leading space or tab) join their field. A Requires-Dist that is not a
/// PEP 508 string is an error naming `origin` (the metadata URL) and the line number.
core::Expected<CoreMetadata> ParseCoreMetadata(std::string_view text, std::string_view origin);

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_INSTALL_METADATA_H_
