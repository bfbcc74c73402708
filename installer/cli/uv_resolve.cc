#include "installer/cli/uv_resolve.h"

#include "catalogue/catalogue.h"
#include "core/url.h"
#include "installer/cli/lock_support.h"
#include "installer/install/installer_environment.h"

namespace torchdex::installer {

namespace {

constexpr std::chrono::minutes kResolverTimeout{30};

}  // namespace

// uv's argv: the routing index its only index, the target as a path or described.
std::vector<std::string> UvCompileArgv(const std::string& uv, const Interpreter& target, bool universal,
                                       const std::string& in_path, const std::string& out_path) {
  std::vector<std::string> argv = {uv,           "pip",        "compile", "--no-config", "--quiet", "--format",
                                   "pylock.toml", "--output-file", out_path};
  if (universal) argv.push_back("--universal");
  if (target.path.empty()) {
    // A described target: uv's spelling of the platform is "<arch>-unknown-linux-gnu".
    argv.insert(argv.end(), {"--python-version", target.full_version.substr(0, target.full_version.rfind('.')),
                             "--python-platform", target.info.arch + "-unknown-linux-gnu"});
  } else {
    argv.insert(argv.end(), {"--python", target.path});
  }
  argv.push_back(in_path);
  return argv;
}

namespace {

// Why uv failed: an index the routing index could not read (uv sees only "502 Bad Gateway"),
// else what uv said.
core::Error ResolverFailure(const UvResolveRequest& r, const ProcessResult& result, const RoutingIndexServer& server) {
  const std::string why = result.status == ProcessResult::Status::kExited
                              ? "exited with status " + std::to_string(result.exit_code)
                              : (result.failure.empty() ? std::string("did not finish") : result.failure);
  std::string unreadable;
  for (const RoutedAnswer& a : server.index().Answers()) {
    if (a.status == 502 && unreadable.find(a.failure) == std::string::npos) unreadable += "  " + a.failure + "\n";
  }
  if (!unreadable.empty()) {
    return core::MakeError(r.what + " cannot be made: an index could not be read:\n" + unreadable +
                               "(uv pip compile " + why + ")",
                           core::ErrorCode::kNetwork);
  }
  return core::MakeError("uv pip compile for " + r.what + " " + why + ":\n" + result.errors + result.output,
                         core::ErrorCode::kNotOffered);
}

}  // namespace

std::string PinnedRoutedInput(const InstallPlan& plan) {
  std::string input;
  for (const PlannedWheel& w : plan.routed) {
    if (!w.variant_label.empty()) continue;
    input += w.name;
    if (!w.extras.empty()) input.append("[").append(lockcli::Join(w.extras, ",")).append("]");
    input.append("==").append(w.version);
    if (!w.marker.empty()) input.append(" ; ").append(w.marker);
    input.append("\n");
  }
  return input;
}

core::Expected<UvResolution> ResolveThroughRoutingIndex(const UvResolveRequest& r, Deps& deps, std::ostream& out) {
  const RoutingIndexConfig routing = RoutingConfigFor(*r.plan, r.routed_names, r.default_index, r.mirror);
  core::Expected<std::unique_ptr<RoutingIndexServer>> server =
      RoutingIndexServer::Start(routing, deps.fetcher, RoutingFetchOptions());
  if (!server) return server.error();
  lockcli::TemporaryDirectory work;
  if (work.path().empty()) return core::MakeError("cannot make a temporary directory");
  const std::string in_path = work.path() + "/requirements.in";
  const std::string out_path = work.path() + "/pylock.toml";
  if (core::Status ok = catalogue::WriteFileAtomically(in_path, r.input); !ok) return ok.error();
  // uv's settings that could add an index or a source behind the routing index's back are
  // kept from it (installer_environment.h), with --no-config for its files.
  core::Expected<InstallerEnvironment> child = EnvironmentForInstaller(deps.env, InstallerRun::kUvPip);
  if (!child) return child.error();
  out << LeftOutNote(*child, "uv pip compile");
  if (core::Status ok = (*server)->Give(InstallerKind::kUv, deps.env, work.path(), child->env); !ok) return ok.error();
  const ProcessResult result =
      deps.runner.Run(UvCompileArgv(r.uv, *r.target, r.universal, in_path, out_path), child->env, kResolverTimeout);
  (*server)->Stop();
  if (!result.Succeeded()) return ResolverFailure(r, result, **server);
  core::Expected<std::string> text = lockcli::ReadFileText(out_path, 64u << 20);
  if (!text) return text.error();
  core::Expected<PyLock> lock = ParsePyLock(*text, "uv's pylock.toml for " + r.what, false);
  if (!lock) return lock.error();
  return UvResolution{std::move(lock).value(), std::move(server).value()};
}

}  // namespace torchdex::installer
