#include "installer/platform/environment.h"

namespace torchdex::installer {

Environment EnvironmentFromEnviron(const char* const* entries) {
  Environment env;
  for (; entries != nullptr && *entries != nullptr; ++entries) {
    std::string_view entry(*entries);
    const size_t equals = entry.find('=');
    if (equals == std::string_view::npos || equals == 0) continue;
    env.emplace(std::string(entry.substr(0, equals)), std::string(entry.substr(equals + 1)));
  }
  return env;
}

std::optional<std::string> Lookup(const Environment& env, std::string_view name) {
  auto it = env.find(name);
  if (it == env.end()) return std::nullopt;
  return it->second;
}

}  // namespace torchdex::installer
