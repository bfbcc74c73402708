// The process environment, passed in as a value: detection never calls getenv() deep inside,
// so tests give each host its own environment and overrides are testable in-process.
#ifndef TORCHDEX_INSTALLER_PLATFORM_ENVIRONMENT_H_
#define TORCHDEX_INSTALLER_PLATFORM_ENVIRONMENT_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace torchdex::installer {

using Environment = std::map<std::string, std::string, std::less<>>;

// `environ`-style "NAME=value" entries, NULL-terminated.
Environment EnvironmentFromEnviron(const char* const* entries);

// The value of `name`, or nullopt when it is unset.
std::optional<std::string> Lookup(const Environment& env, std::string_view name);

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_PLATFORM_ENVIRONMENT_H_
