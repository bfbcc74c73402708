#include "installer/install/installer_environment.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <sstream>

namespace torchdex::installer {
namespace {

namespace fs = std::filesystem;

// pip's variables that only tune how pip runs (pip install --help, "General Options"): none
// names an index, a file source, a constraint or what to resolve.
constexpr std::array<std::string_view, 19> kPipKept = {
    "PIP_BREAK_SYSTEM_PACKAGES", "PIP_CACHE_DIR",   "PIP_CERT",           "PIP_CLIENT_CERT",
    "PIP_DISABLE_PIP_VERSION_CHECK", "PIP_KEYRING_PROVIDER", "PIP_LOG", "PIP_NO_CACHE_DIR",
    "PIP_NO_COLOR",              "PIP_NO_INPUT",    "PIP_NO_WARN_SCRIPT_LOCATION", "PIP_PROGRESS_BAR",
    "PIP_PROXY",                 "PIP_QUIET",       "PIP_REQUIRE_VIRTUALENV", "PIP_RETRIES",
    "PIP_ROOT_USER_ACTION",      "PIP_TIMEOUT",     "PIP_VERBOSE"};

// uv's (docs/reference/environment): cache, managed Pythons, network tuning, TLS, how files
// are linked, progress, credentials. UV_PROJECT_ENVIRONMENT says where `uv sync` installs.
constexpr std::array<std::string_view, 19> kUvKept = {
    "UV_CACHE_DIR",           "UV_COMPILE_BYTECODE",     "UV_CONCURRENT_BUILDS",
    "UV_CONCURRENT_DOWNLOADS", "UV_CONCURRENT_INSTALLS", "UV_HTTP_RETRIES",
    "UV_HTTP_TIMEOUT",        "UV_KEYRING_PROVIDER",     "UV_LINK_MODE",
    "UV_NATIVE_TLS",          "UV_NO_CACHE",             "UV_NO_PROGRESS",
    "UV_PROJECT_ENVIRONMENT", "UV_PYTHON_DOWNLOADS",     "UV_PYTHON_INSTALL_DIR",
    "UV_PYTHON_PREFERENCE",   "UV_REQUEST_TIMEOUT",      "UV_CACHE_MAX_AGE",
    "UV_NO_COLOR"};

bool Kept(std::string_view name) {
  if (std::find(kPipKept.begin(), kPipKept.end(), name) != kPipKept.end()) return true;
  if (std::find(kUvKept.begin(), kUvKept.end(), name) != kUvKept.end()) return true;
  // The credentials of a named index (UV_INDEX_PYTORCH_CU128_USERNAME, docs/teams.md): they
  // add no index, and `sync --uv-project` needs them for a mirror's.
  return name.starts_with("UV_INDEX_") && name.size() > 9 &&
         (name.ends_with("_USERNAME") || name.ends_with("_PASSWORD"));
}

bool Exists(const fs::path& path) {
  std::error_code ignored;
  return fs::exists(path, ignored);
}

// The system uv.toml files uv reads (one per entry of XDG_CONFIG_DIRS, else /etc/xdg, then
// /etc/uv/uv.toml), which no variable hides.
std::vector<std::string> SystemUvConfigs(const Environment& env) {
  std::vector<std::string> found;
  std::string dirs = Lookup(env, "XDG_CONFIG_DIRS").value_or("");
  if (dirs.empty()) dirs = "/etc/xdg";
  std::stringstream list(dirs);
  std::string dir;
  while (std::getline(list, dir, ':')) {
    if (!dir.empty() && Exists(fs::path(dir) / "uv" / "uv.toml")) found.push_back((fs::path(dir) / "uv" / "uv.toml").string());
  }
  if (Exists("/etc/uv/uv.toml")) found.push_back("/etc/uv/uv.toml");
  return found;
}

}  // namespace

std::string UserUvConfig(const Environment& env) {
  fs::path home;
  if (std::optional<std::string> xdg = Lookup(env, "XDG_CONFIG_HOME"); xdg && !xdg->empty()) {
    home = *xdg;
  } else if (std::optional<std::string> user = Lookup(env, "HOME"); user && !user->empty()) {
    home = fs::path(*user) / ".config";
  } else {
    return {};
  }
  const fs::path file = home / "uv" / "uv.toml";
  return Exists(file) ? file.string() : std::string();
}

core::Expected<InstallerEnvironment> EnvironmentForInstaller(const Environment& env, InstallerRun run,
                                                             std::string_view empty_config_home,
                                                             std::string_view project_dir) {
  InstallerEnvironment child;
  for (const auto& [name, value] : env) {
    // Each reads its own prefix only: pip no UV_*, uv no PIP_*.
    const bool ours = name.starts_with(run == InstallerRun::kPip ? "PIP_" : "UV_");
    if (ours && !Kept(name)) {
      child.left_out.push_back(name);
      continue;
    }
    child.env.emplace(name, value);
  }
  switch (run) {
    case InstallerRun::kPip:
      // pip loads no configuration file at all when this names os.devnull (pip's
      // Configuration._load_config_files), the global and site ones included.
      child.env["PIP_CONFIG_FILE"] = "/dev/null";
      break;
    case InstallerRun::kUvPip:
      child.env["UV_NO_CONFIG"] = "1";
      break;
    case InstallerRun::kUvSync: {
      const std::vector<std::string> system = SystemUvConfigs(env);
      if (!system.empty()) {
        return core::MakeError(system.front() + ": a system uv.toml, which uv sync reads and which may give it "
                                   "another index or torch source; torchdex cannot hide it from uv sync, so it does "
                                   "not run it (remove the file, or use `torchdex lock` and `torchdex sync`, which "
                                   "run uv with --no-config)",
                               core::ErrorCode::kBadInputFile);
      }
      if (!project_dir.empty() && Exists(fs::path(project_dir) / "uv.toml")) {
        return core::MakeError((fs::path(project_dir) / "uv.toml").string() +
                                   ": uv reads it in place of the project's [tool.uv] (its indexes and sources, "
                                   "which route torch); remove it or merge it into pyproject.toml",
                               core::ErrorCode::kBadInputFile);
      }
      if (!empty_config_home.empty()) child.env["XDG_CONFIG_HOME"] = std::string(empty_config_home);
      break;
    }
  }
  // A variable set here again (PIP_CONFIG_FILE, UV_NO_CONFIG) is not one left out.
  std::erase_if(child.left_out, [&](const std::string& name) { return child.env.contains(name); });
  return child;
}

std::string LeftOutNote(const InstallerEnvironment& child, std::string_view who) {
  if (child.left_out.empty()) return {};
  std::string names;
  for (const std::string& name : child.left_out) names += (names.empty() ? "" : ", ") + name;
  return "note: " + names + (child.left_out.size() == 1 ? " is" : " are") + " not passed to " + std::string(who) +
         ": the routing index and the plan's wheels are its only sources (docs/install.md)\n";
}

}  // namespace torchdex::installer
