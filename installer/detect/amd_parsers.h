// Pure parsers for AMD: KFD topology node properties, rocm_agent_enumerator output and
// /opt/rocm/.info/version. Formats: ../shared/research/detection.md section 3.7.
#ifndef TORCHDEX_INSTALLER_DETECT_AMD_PARSERS_H_
#define TORCHDEX_INSTALLER_DETECT_AMD_PARSERS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace torchdex::installer {

struct KfdNodeProperties {
  uint64_t gfx_target_version = 0;  // 0 on CPU nodes
  unsigned vendor_id = 0;           // 4098 = 0x1002
  unsigned device_id = 0;
};
// /sys/class/kfd/kfd/topology/nodes/<N>/properties: "key value" lines, decimal. nullopt when
// there is no gfx_target_version line (not a properties file).
std::optional<KfdNodeProperties> ParseKfdProperties(std::string_view contents);

// gfx_target_version -> gfx name: major = v/10000, minor = (v/100)%100, stepping = v%100, minor
// and stepping printed as hex digits: 90010 -> gfx90a, 110501 -> gfx1151. nullopt for 0 (a CPU)
// and for values whose minor or stepping do not fit in one hex digit.
std::optional<std::string> GfxFromTargetVersion(uint64_t version);

// "gfx1100", "gfx90a": "gfx" then 3 or 4 lower-case hex digits.
bool IsGfxName(std::string_view text);

// rocm_agent_enumerator (or -name): one target per line, CPU agents as gfx000 (dropped), ISA
// suffixes such as ":sramecc+:xnack-" stripped. Distinct names in first-seen order.
std::vector<std::string> ParseRocmAgentEnumerator(std::string_view output);

// /opt/rocm/.info/version: "6.4.0-47" or "7.2.1" -> "6.4.0" / "7.2.1".
std::optional<std::string> ParseRocmVersionFile(std::string_view contents);

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_DETECT_AMD_PARSERS_H_
