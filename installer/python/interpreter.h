// The target interpreter: asked once for what its wheel tags depend on (version,
// implementation, ABI flags, platform, libc), then its tags come from core::SupportedTags.
#ifndef TORCHDEX_INSTALLER_PYTHON_INTERPRETER_H_
#define TORCHDEX_INSTALLER_PYTHON_INTERPRETER_H_

#include <chrono>
#include <string>
#include <string_view>

#include "core/expected.h"
#include "core/requirement.h"
#include "core/tags.h"
#include "installer/platform/environment.h"
#include "installer/platform/process_runner.h"

namespace torchdex::installer {

struct Interpreter {
  std::string path;                 // absolute path of the executable asked
  core::InterpreterInfo info;       // what SupportedTags needs
  std::string full_version;         // "3.12.4"
  core::MarkerEnvironment markers;  // for evaluating requirement markers
  std::string description;          // "CPython 3.12.4 (/venv/bin/python)"
};

/// Parses the reply of the query script (a JSON object); errors name the interpreter.
core::Expected<Interpreter> ParseInterpreterReply(std::string_view reply, const std::string& path);

/// Runs `path` once with a small script (argv, no shell) and reads its reply.
core::Expected<Interpreter> QueryInterpreter(const std::string& path, ProcessRunner& runner,
                                             const Environment& env,
                                             std::chrono::milliseconds timeout);

/// The raw reply of the query script (what QueryInterpreter parses), or an error naming `path`.
core::Expected<std::string> AskInterpreter(const std::string& path, ProcessRunner& runner,
                                           const Environment& env, std::chrono::milliseconds timeout);

/// --python, else $VIRTUAL_ENV/bin/python, else python3 on PATH: the absolute path, or an error
/// saying what was looked for.
core::Expected<std::string> FindInterpreter(const std::string& explicit_path, const Environment& env);

/// An interpreter described by the user (--python-version 3.12 --platform linux_x86_64).
/// `platform`: linux_x86_64, linux_aarch64, win_amd64, win_arm64, macosx_11_0_arm64,
/// macosx_10_9_x86_64 ...; glibc is assumed to be `glibc_minor` (2.x).
core::Expected<core::InterpreterInfo> DescribeTarget(std::string_view python_version,
                                                     std::string_view platform, int glibc_minor);

/// The script QueryInterpreter runs (exposed for tests that run it with a real python3).
std::string_view InterpreterQueryScript();

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_PYTHON_INTERPRETER_H_
