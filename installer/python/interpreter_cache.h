// The interpreter's facts, cached: asking python costs a process start (about 10 ms, the largest
// part of what `torchdex sync` adds before pip or uv runs), and the answer only changes when the
// interpreter does. An entry is used only when everything the answer depends on is as it was
// when the entry was written (InterpreterCacheKey); anything else, a missing, corrupt or foreign
// entry included, is a miss: python is asked and the entry written again. The cache never
// makes a command fail. docs/performance.md has the measurements, docs/teams.md the switch.
#ifndef TORCHDEX_INSTALLER_PYTHON_INTERPRETER_CACHE_H_
#define TORCHDEX_INSTALLER_PYTHON_INTERPRETER_CACHE_H_

#include <chrono>
#include <string>
#include <string_view>

#include "core/expected.h"
#include "installer/platform/environment.h"
#include "installer/platform/process_runner.h"
#include "installer/python/interpreter.h"

namespace torchdex::installer {

/// Where the entries go: $TORCHDEX_CACHE_DIR, else $XDG_CACHE_HOME/torchdex, else
/// $HOME/.cache/torchdex, each with "/interpreter-v1" added; "" (no cache) when
/// TORCHDEX_NO_CACHE is set to anything but "" or "0", or no directory can be named.
std::string InterpreterCacheDirectory(const Environment& env);

/// What a cached answer for `path` depends on, as one string: the query script's hash, the
/// absolute path asked and the real path it leads to, the real file's device, inode, size,
/// modification and change times, the bytes of the pyvenv.cfg beside it (a venv's), the host's
/// uname and glibc version (platform_release, platform_version and the libc are host facts the
/// answer carries) and the library path variables. "" when the answer must not be cached: the
/// file cannot be examined, or it is not a native executable (a pyenv or asdf shim is a script
/// that picks its python by the directory and environment it runs in).
std::string InterpreterCacheKey(const std::string& path, const Environment& env);

/// The reply an entry holds when it is an entry for `key` (its header, then the key's sha256,
/// then the reply); "" for anything else. Pure (the fuzz target's entry point).
std::string InterpreterCacheEntryReply(std::string_view entry, const std::string& key);

enum class CacheUse { kNotCached, kHit, kMissWritten, kMissNotWritten };

/// QueryInterpreter, answered from the entry of InterpreterCacheDirectory(env) when its key is
/// this interpreter's key now; otherwise python is asked and its reply written to the entry
/// (atomically: a temporary file renamed over it). `use`, when given, says which happened.
core::Expected<Interpreter> QueryInterpreterCached(const std::string& path, ProcessRunner& runner,
                                                   const Environment& env,
                                                   std::chrono::milliseconds timeout,
                                                   CacheUse* use = nullptr);

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_PYTHON_INTERPRETER_CACHE_H_
