// The real uv's resolution through the routing index, shared by `lock` (the lock's packages) and
// `export --format uv-project` (the routed packages the other requirements reach, which the
// project must name: issue 29, item 4): `uv pip compile --no-config --format pylock.toml` with the
// routing index as its only index, in the environment installer_environment.h gives uv.
#ifndef TORCHDEX_INSTALLER_CLI_UV_RESOLVE_H_
#define TORCHDEX_INSTALLER_CLI_UV_RESOLVE_H_

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "core/expected.h"
#include "installer/cli/commands.h"
#include "installer/install/plan.h"
#include "installer/install/routing_index.h"
#include "installer/lock/pylock.h"
#include "installer/python/interpreter.h"

namespace torchdex::installer {

struct UvResolveRequest {
  const InstallPlan* plan = nullptr;       // its backend, routed wheels, trusted hosts
  std::vector<std::string> routed_names;   // the decision's
  std::string default_index;               // every other name
  MirrorRule mirror;
  std::string input;                       // requirements.in, one requirement a line
  const Interpreter* target = nullptr;     // a path, or described (--python-version)
  std::string uv;                          // uv's absolute path
  bool universal = false;                  // --universal: every platform, markers kept
  std::string what;                        // "the cu124 lock": for messages
};

struct UvResolution {
  PyLock lock;                                  // uv's pylock.toml, as read
  std::unique_ptr<RoutingIndexServer> server;   // stopped; what it served (ServedRouted)
};

/// The resolution, or an error: an index that could not be read (exit 6, with the routing
/// index's reason), uv's own failure (exit 4, with what uv said).
core::Expected<UvResolution> ResolveThroughRoutingIndex(const UvResolveRequest& request, Deps& deps,
                                                        std::ostream& out);

/// `uv pip compile --no-config --quiet --format pylock.toml --output-file OUT`, for `target` (a
/// path, or described), universal or not, reading IN; its index is the routing index, given in
/// its environment (RoutingIndexServer::Give).
std::vector<std::string> UvCompileArgv(const std::string& uv, const Interpreter& target,
                                       bool universal, const std::string& in_path, const std::string& out_path);

/// "torch==2.5.1+cu124 ; marker" for each routed wheel of `plan` but variant wheels.
std::string PinnedRoutedInput(const InstallPlan& plan);

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_CLI_UV_RESOLVE_H_
