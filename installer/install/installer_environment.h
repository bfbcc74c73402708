// What pip and uv see of torchdex's environment when torchdex runs them (docs/install.md,
// "What pip and uv are not told"; issue 29, items 2 and 14). The routing index must be their
// only index and the plan's wheels their only source of a routed name, so every variable and
// configuration file that could give them another index, another torch source or another
// backend is kept from them:
//   - every PIP_* variable (for pip) or UV_* variable (for uv) is dropped, except the few named in the .cc that only
//     tune how they run (cache, timeouts, proxy and certificates, progress, credentials of a
//     named uv index): PIP_INDEX_URL, PIP_EXTRA_INDEX_URL, PIP_FIND_LINKS, PIP_CONSTRAINT,
//     UV_TORCH_BACKEND, UV_INDEX*, UV_EXTRA_INDEX_URL, UV_FIND_LINKS, UV_NO_SOURCES,
//     UV_CONFIG_FILE, UV_OVERRIDE and all the others never reach them;
//   - pip reads no configuration file (PIP_CONFIG_FILE=/dev/null: pip then skips the global,
//     user and site files alike);
//   - uv's pip interface reads none either (UV_NO_CONFIG=1, with --no-config on its argv);
//   - `uv sync` must read the project's own pyproject.toml (its [[tool.uv.index]] and
//     [tool.uv.sources] are the routing), so it gets no UV_NO_CONFIG; the user's uv.toml is
//     hidden from it (XDG_CONFIG_HOME pointed at an empty directory), and a system uv.toml or a
//     uv.toml beside the project, which cannot be hidden, refuses the run with its path.
// The names left out (never their values, which may hold credentials) are returned, for a note.
#ifndef TORCHDEX_INSTALLER_INSTALL_INSTALLER_ENVIRONMENT_H_
#define TORCHDEX_INSTALLER_INSTALL_INSTALLER_ENVIRONMENT_H_

#include <string>
#include <string_view>
#include <vector>

#include "core/expected.h"
#include "installer/platform/environment.h"

namespace torchdex::installer {

/// Which child is run: `python -m pip`, `uv pip install|compile`, or `uv sync`.
enum class InstallerRun { kPip, kUvPip, kUvSync };

struct InstallerEnvironment {
  Environment env;
  std::vector<std::string> left_out;  // the variables dropped, sorted
};

/// `env` as the child is to see it. For kUvSync, `empty_config_home` is an empty directory that
/// stands in for XDG_CONFIG_HOME (the caller owns it; "" when there is no user uv.toml to hide),
/// and `project_dir` the project's directory; an error names a uv.toml that cannot be hidden.
core::Expected<InstallerEnvironment> EnvironmentForInstaller(const Environment& env, InstallerRun run,
                                                             std::string_view empty_config_home = {},
                                                             std::string_view project_dir = {});

/// The user-level uv.toml uv would read ($XDG_CONFIG_HOME/uv/uv.toml, else
/// $HOME/.config/uv/uv.toml) when it exists; "" otherwise.
std::string UserUvConfig(const Environment& env);

/// "note: PIP_INDEX_URL, UV_TORCH_BACKEND are not passed to pip: ..." for `who`; "" when nothing
/// was left out.
std::string LeftOutNote(const InstallerEnvironment& child, std::string_view who);

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_INSTALL_INSTALLER_ENVIRONMENT_H_
