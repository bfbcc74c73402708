// Small string helpers shared by the parsers.
#ifndef TORCHDEX_INSTALLER_PLATFORM_TEXT_H_
#define TORCHDEX_INSTALLER_PLATFORM_TEXT_H_

#include <string>
#include <string_view>
#include <vector>

namespace torchdex::installer {

std::string_view Trim(std::string_view text);
std::vector<std::string_view> SplitLines(std::string_view text);
std::vector<std::string_view> Split(std::string_view text, char separator);
bool StartsWith(std::string_view text, std::string_view prefix);
std::string ToLower(std::string_view text);
bool ContainsIgnoringCase(std::string_view text, std::string_view needle);
// Whether the text is printable ASCII plus tabs and newlines (sysfs and procfs files are).
bool IsPlainText(std::string_view text);
// Shows a bad value in a message: at most 40 characters, non-printable bytes as '?'.
std::string Quote(std::string_view text);

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_PLATFORM_TEXT_H_
