// Running the installer (docs/install.md): `python -m pip install` by default, or
// `uv pip install --python PY` when asked and uv is on PATH. Routed packages go as PEP 508
// direct references with the page's hash in the fragment ("torch @ URL#sha256=HEX"), which pip
// and uv verify on download; the other requirements as the user wrote them; the routing index
// (routing_index.h) as the only index, which forwards what is not routed to the user's default
// index. Always an argv, never a shell; its exit code becomes torchdex's.
#ifndef TORCHDEX_INSTALLER_INSTALL_PIP_COMMAND_H_
#define TORCHDEX_INSTALLER_INSTALL_PIP_COMMAND_H_

#include <chrono>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.h"
#include "installer/install/child_credentials.h"
#include "installer/platform/environment.h"
#include "installer/platform/process_runner.h"
#include "installer/install/plan.h"

namespace torchdex::installer {

enum class InstallerKind { kPip, kUv };

/// "pip" or "uv"; anything else is an error listing both.
core::Expected<InstallerKind> ParseInstallerKind(std::string_view text);

struct InstallCommandOptions {
  InstallerKind installer = InstallerKind::kPip;
  std::string python;                   // the target interpreter (absolute path)
  std::string uv;                       // uv's absolute path (FindUv) when installer is kUv
  std::vector<std::string> extra_args;  // after `--` on torchdex's command line, passed through
  /// The routing index (routing_index.h) serving this run: when set, the installer's only
  /// index, in place of the plan's default index, which the routing index forwards every name
  /// that is not routed to. It is not on the argv: the child gets it in IndexVariable()
  /// (RoutingIndexServer::Give), and the argv's routed URLs lose the credentials `credentials`
  /// gives the child's netrc.
  std::string routing_index_url = {};  // `= {}`: brace-initialised options may leave it out
  const ChildCredentials* credentials = nullptr;
};

/// The variable that names the installer's index without an argv: PIP_INDEX_URL for pip,
/// UV_DEFAULT_INDEX for uv.
std::string_view IndexVariable(InstallerKind installer);

/// The argv as torchdex prints it: the routing index's variable first when `options` has one
/// ("PIP_INDEX_URL=http://127.0.0.1:<port>/<token>/simple/ python -m pip ..."), shown with
/// `shown_index_url`.
std::string DisplayCommand(const std::vector<std::string>& argv, const InstallCommandOptions& options,
                           std::string_view shown_index_url);

/// uv on PATH, as an absolute path; else an error saying what needed it and what to do instead.
core::Expected<std::string> FindUv(
    const Environment& env, std::string_view needed_by = "--installer uv",
    std::string_view instead = "install uv or use the default installer, pip");

/// The default index the installer would use without torchdex's `--index-url`: for pip, what
/// `python -m pip config list` says (PIP_INDEX_URL, then an `install.` and a `global.` value
/// of the configuration files, pip's own order); for uv, UV_DEFAULT_INDEX, then UV_INDEX_URL;
/// else PyPI. uv's configuration files are not read (docs/install.md).
std::string InstallerDefaultIndex(const InstallCommandOptions& options, ProcessRunner& runner,
                                  const Environment& env);

/// The index URL of `pip config list` output, by pip's precedence; "" when none is set.
std::string PipConfigIndexUrl(std::string_view config_list);

/// "torch @ https://.../torch-2.5.1%2Bcu124-...whl#sha256=HEX", with the page's hash as pip
/// reads the link ("#md5=HEX" when that is all the page gives); without a fragment when the
/// page gave no hash.
std::string DirectReference(const PlannedWheel& wheel);

/// Of the arguments passed after `--` (already checked), those that change what uv resolves and
/// that `uv pip compile` takes too (--prerelease, --resolution, --only-binary, -U, ...), with
/// their values: given to uv's check of the resolution, so that it resolves as the install does.
std::vector<std::string> ResolutionArgs(const std::vector<std::string>& extra_args);

/// The argv to run. An offline plan (no URLs) cannot be installed: that is an error.
core::Expected<std::vector<std::string>> InstallCommand(const InstallPlan& plan,
                                                        const InstallCommandOptions& options);

/// pip's resolution of the same install, installing nothing: `python -m pip install --dry-run
/// --quiet --report REPORT_PATH ...` with each routed wheel as `name==version` (the routing index
/// answers it with exactly the plan's wheel and its PEP 658 metadata, so no wheel is downloaded
/// for it). pip only (install_report.h).
core::Expected<std::vector<std::string>> ResolutionReportCommand(const InstallPlan& plan,
                                                                 const InstallCommandOptions& options,
                                                                 const std::string& report_path);

/// The argv for display, quoted for a POSIX shell where needed (never executed by one).
std::string QuoteCommand(const std::vector<std::string>& argv);

/// How long the installer may run: a long bound, only so that a wedged child cannot hang
/// torchdex forever (a CUDA torch download is ~2.5 GB).
inline constexpr std::chrono::milliseconds kInstallTimeout = std::chrono::hours(6);

/// Runs `argv` through `runner` and relays its stdout to `out` and stderr to `err`. Returns the
/// installer's exit code; a child that could not start, crashed or timed out is explained on
/// `err` and gives 1. When pip reports a hash mismatch, adds what that means for the index.
int ExecuteInstall(const std::vector<std::string>& argv, ProcessRunner& runner,
                   const Environment& env, std::ostream& out, std::ostream& err,
                   std::chrono::milliseconds timeout = kInstallTimeout);

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_INSTALL_PIP_COMMAND_H_
