// The routing check of a uv project's own lock (uv.lock, uv's format: https://docs.astral.sh/uv/
// concepts/projects/layout/#the-lockfile), run by `torchdex sync --uv-project` between `uv lock`
// and `uv sync --frozen` (issue 29, item 4): uv routes a name to the project's explicit
// `pytorch-<backend>` index only when the project names it, so a routed package that only a
// dependency reaches (lightning -> torch), or a direct URL a dependency gives, would come from
// elsewhere. Every package of the lock whose name is routed must come from one of the project's
// backend indexes; anything else is a located error with the packages that require it. Pure.
#ifndef TORCHDEX_INSTALLER_LOCK_UV_LOCK_H_
#define TORCHDEX_INSTALLER_LOCK_UV_LOCK_H_

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.h"

namespace torchdex::installer {

/// `text` is the uv.lock at `path`; `routed` says whether a normalised name is routed;
/// `indexes` are the project's backend index URLs (compared without credentials or a trailing
/// '/'). A routed package from any other registry, or from a URL, path or git source, is an
/// error "PATH:LINE: torch 99.0.0 comes from ... (required by needs-torch 1.0) ...".
/// `file_ok` judges each wheel and sdist URL of a routed package (its name, version, URL and
/// where it is written): a registry of the right name does not make its files the backend's.
using UvLockFileCheck =
    std::function<core::Status(const std::string& where, const std::string& name, const std::string& version,
                               const std::string& url)>;
core::Status CheckUvLockRouting(std::string_view text, const std::string& path,
                                const std::function<bool(const std::string&)>& routed,
                                const std::vector<std::string>& indexes, const UvLockFileCheck& file_ok = {});

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_LOCK_UV_LOCK_H_
