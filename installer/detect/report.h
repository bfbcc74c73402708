// HostFacts as `torchdex detect` prints them: JSON (--json) or words.
#ifndef TORCHDEX_INSTALLER_DETECT_REPORT_H_
#define TORCHDEX_INSTALLER_DETECT_REPORT_H_

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "installer/detect/host_facts.h"

namespace torchdex::installer {

// The --json object (documented field by field in docs/detection.md), pretty-printed, with a
// trailing newline. Key order is fixed.
std::string HostFactsToJson(const HostFacts& facts);
/// The same document as a value, for commands that embed it (select --json).
nlohmann::ordered_json HostFactsJson(const HostFacts& facts);

// What was found and where from, in words.
std::string HostFactsToText(const HostFacts& facts);

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_DETECT_REPORT_H_
