#include "installer/install/pip_command.h"

#include <unistd.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <sstream>

#include "installer/install/routing_index.h"

namespace torchdex::installer {

core::Expected<InstallerKind> ParseInstallerKind(std::string_view text) {
  if (text == "pip") return InstallerKind::kPip;
  if (text == "uv") return InstallerKind::kUv;
  return core::MakeError("unknown installer \"" + std::string(text) + "\" (pip or uv)");
}

core::Expected<std::string> FindUv(const Environment& env, std::string_view needed_by,
                                   std::string_view instead) {
  const std::string path = Lookup(env, "PATH").value_or("");
  std::stringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty() || dir.front() != '/') continue;  // relative PATH entries are not trusted
    const std::string candidate = dir + "/uv";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  std::string message(needed_by);
  message.append(": uv is not on PATH (").append(path.empty() ? std::string("PATH is empty") : path);
  message.append("); ").append(instead);
  return core::MakeError(message);
}

std::string PipConfigIndexUrl(std::string_view config_list) {
  // Lines like "global.index-url='https://...'"; ":env:." is PIP_INDEX_URL. pip applies the
  // global section, then the command's, then the environment (pip's ConfigOptionParser).
  std::map<std::string, std::string, std::less<>> values;
  size_t start = 0;
  while (start < config_list.size()) {
    size_t end = config_list.find('\n', start);
    if (end == std::string_view::npos) end = config_list.size();
    std::string_view line = config_list.substr(start, end - start);
    start = end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const size_t equals = line.find('=');
    if (equals == std::string_view::npos) continue;
    std::string_view value = line.substr(equals + 1);
    if (value.size() >= 2 && (value.front() == '\'' || value.front() == '"') &&
        value.back() == value.front()) {
      value = value.substr(1, value.size() - 2);
    }
    values[std::string(line.substr(0, equals))] = std::string(value);
  }
  for (const char* key : {":env:.index-url", "install.index-url", "global.index-url"}) {
    if (auto it = values.find(key); it != values.end() && !it->second.empty()) return it->second;
  }
  return {};
}

std::string InstallerDefaultIndex(const InstallCommandOptions& options, ProcessRunner& runner,
                                  const Environment& env) {
  if (options.installer == InstallerKind::kUv) {
    for (const char* name : {"UV_DEFAULT_INDEX", "UV_INDEX_URL"}) {
      if (std::optional<std::string> value = Lookup(env, name); value && !value->empty()) {
        return *value;
      }
    }
    return std::string(kPypiSimpleUrl);
  }
  const ProcessResult listed =
      runner.Run({options.python, "-m", "pip", "config", "list"}, env, std::chrono::seconds(60));
  if (listed.Succeeded()) {
    if (std::string url = PipConfigIndexUrl(listed.output); !url.empty()) return url;
  }
  // No pip, or no setting: pip's own default (and pip without pip fails later, clearly).
  return std::string(kPypiSimpleUrl);
}

std::string DirectReference(const PlannedWheel& wheel) {
  std::string reference = wheel.name;
  if (!wheel.extras.empty()) {
    reference += "[";
    for (std::size_t i = 0; i < wheel.extras.size(); ++i) reference += (i ? "," : "") + wheel.extras[i];
    reference += "]";
  }
  reference += " @ " + wheel.url;
  // The page's hash as pip itself would have read and checked it (md5 too).
  if (!wheel.hash.empty()) reference += "#" + wheel.hash;
  else if (!wheel.sha256.empty()) reference += "#sha256=" + wheel.sha256;
  // PEP 508: a marker after a URL needs a space before the ';'.
  if (!wheel.marker.empty()) reference += " ; " + wheel.marker;
  return reference;
}

namespace {

// The installer options that may follow `--` (issue 29, F2 of the attack of item 2): only those
// that change how pip or uv install, never what they resolve or where they take it from. Every
// other option is refused, whatever it is: an allowlist, because both take options that add a
// source under many names (-c, --constraints, --overrides, --config-file, --torch-backend, -f,
// abbreviations such as --extra-index, clusters such as -qf). `value`: the option takes one.
struct PassedOption {
  std::string_view name;
  bool value;
};
constexpr PassedOption kPassedOptions[] = {
    {"--no-deps", false},         {"--upgrade", false},          {"-U", false},
    {"--force-reinstall", false}, {"--reinstall", false},        {"--ignore-installed", false},
    {"-I", false},                {"--user", false},             {"--target", true},
    {"--prefix", true},           {"--no-build-isolation", false}, {"--no-compile", false},
    {"--compile-bytecode", false}, {"--break-system-packages", false}, {"--no-warn-script-location", false},
    {"--quiet", false},           {"-q", false},                 {"--verbose", false},
    {"-v", false},                {"--progress-bar", true},      {"--no-progress", false},
    {"--timeout", true},          {"--retries", true},           {"--proxy", true},
    {"--cert", true},             {"--client-cert", true},       {"--no-cache-dir", false},
    {"--no-cache", false},        {"--only-binary", true},       {"--prefer-binary", false},
    {"--no-binary", true},        {"--pre", false},              {"--no-index", false},
    {"--index-strategy", true},   {"--link-mode", true},         {"--resolution", true},
    {"--prerelease", true},       {"--no-color", false},         {"--color", true},
    {"--keyring-provider", true}, {"--native-tls", false},       {"--strict", false},
    {"--no-python-downloads", false}, {"--reinstall-package", true}, {"--upgrade-package", true},
    {"--exists-action", true},    {"--root-user-action", true},  {"--use-pep517", false},
    {"--no-use-pep517", false},   {"--require-virtualenv", false}};

const PassedOption* Passed(std::string_view arg) {
  const std::string_view name = arg.substr(0, arg.find('='));
  for (const PassedOption& option : kPassedOptions) {
    if (option.name == name) return &option;
  }
  return nullptr;
}

// Those of them that change what uv resolves and that `uv pip compile` takes too: the check of
// uv's resolution before an install (install_command.cc) must resolve as the install will.
constexpr std::string_view kResolutionOptions[] = {
    "--no-deps",       "--upgrade",    "-U",           "--upgrade-package",    "--only-binary",
    "--no-binary",     "--pre",        "--prerelease", "--resolution",         "--index-strategy",
    "--no-build-isolation", "--keyring-provider", "--native-tls"};

bool Resolves(std::string_view arg) {
  const std::string_view name = arg.substr(0, arg.find('='));
  return std::find(std::begin(kResolutionOptions), std::end(kResolutionOptions), name) != std::end(kResolutionOptions);
}

constexpr std::string_view kOnlyIndex =
    "the installer's only index is torchdex's routing index (routed names from the backend, every other name "
    "from the default index), so options that name an index, a source, a constraint, an override or a "
    "configuration file are not passed (give the default index with --index-url, requirements before --, "
    "requirement files with -r; spell a passed option out in full)";

// "" when every argument may be passed on; else the one that may not, and why.
std::string RefusedPassthrough(const std::vector<std::string>& args) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg.empty() || arg[0] != '-') {
      return "\"" + arg + "\" after --: a requirement goes before --, where torchdex plans it (after -- it would "
             "reach the installer unrouted); " + std::string(kOnlyIndex);
    }
    // A cluster of short switches ("-qU"): each must be one of the switches passed on.
    const bool cluster = arg.size() > 2 && arg[1] != '-' && arg.find('=') == std::string::npos;
    if (cluster) {
      for (std::size_t c = 1; c < arg.size(); ++c) {
        const PassedOption* option = Passed(std::string("-") + arg[c]);
        if (option == nullptr || option->value) {
          return "\"" + arg + "\" after --: -" + std::string(1, arg[c]) + " is not an option torchdex passes on: " +
                 std::string(kOnlyIndex);
        }
      }
      continue;
    }
    const PassedOption* option = Passed(arg);
    if (option == nullptr) {
      return "\"" + arg + "\" after --: not an option torchdex passes on: " + std::string(kOnlyIndex);
    }
    if (option->value && arg.find('=') == std::string::npos) ++i;  // its value
  }
  return {};
}

}  // namespace

std::vector<std::string> ResolutionArgs(const std::vector<std::string>& extra_args) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < extra_args.size(); ++i) {
    const std::string& arg = extra_args[i];
    const bool cluster = arg.size() > 2 && arg[0] == '-' && arg[1] != '-' && arg.find('=') == std::string::npos;
    if (cluster) {
      if (arg.find('U') != std::string::npos) out.push_back("-U");
      continue;
    }
    const PassedOption* option = Passed(arg);
    const bool with_value = option != nullptr && option->value && arg.find('=') == std::string::npos &&
                            i + 1 < extra_args.size();
    if (option != nullptr && Resolves(arg)) {
      out.push_back(arg);
      if (with_value) out.push_back(extra_args[i + 1]);
    }
    if (with_value) ++i;
  }
  return out;
}

namespace {

// "torch[opt-einsum]==2.5.1+cu124 ; marker": the routed wheel by name and exact version, which
// the routing index answers with exactly that wheel (for pip's resolution report).
std::string VersionPin(const PlannedWheel& wheel) {
  std::string pin = wheel.name;
  if (!wheel.extras.empty()) {
    pin += "[";
    for (std::size_t i = 0; i < wheel.extras.size(); ++i) pin += (i ? "," : "") + wheel.extras[i];
    pin += "]";
  }
  pin += "==" + wheel.version;
  if (!wheel.marker.empty()) pin += " ; " + wheel.marker;
  return pin;
}

core::Expected<std::vector<std::string>> Command(const InstallPlan& plan, const InstallCommandOptions& options,
                                                 bool by_version);

}  // namespace

core::Expected<std::vector<std::string>> InstallCommand(const InstallPlan& plan,
                                                        const InstallCommandOptions& options) {
  return Command(plan, options, false);
}

core::Expected<std::vector<std::string>> ResolutionReportCommand(const InstallPlan& plan,
                                                                 const InstallCommandOptions& options,
                                                                 const std::string& report_path) {
  if (options.installer != InstallerKind::kPip) return core::MakeError("a resolution report is pip's");
  core::Expected<std::vector<std::string>> argv = Command(plan, options, true);
  if (!argv) return argv;
  argv->insert(argv->begin() + 4, {"--dry-run", "--quiet", "--report", report_path});
  return argv;
}

namespace {

core::Expected<std::vector<std::string>> Command(const InstallPlan& plan, const InstallCommandOptions& options,
                                                 bool by_version) {
  if (const std::string refused = RefusedPassthrough(options.extra_args); !refused.empty()) {
    return core::MakeError(refused, core::ErrorCode::kUsage);
  }
  if (plan.offline) {
    return core::MakeError(
        "an offline plan has no wheel URLs or hashes and cannot be installed; "
        "run without --offline");
  }
  if (options.python.empty()) return core::MakeError("no target interpreter for the installer");
  std::vector<std::string> argv;
  if (options.installer == InstallerKind::kPip) {
    argv = {options.python, "-m", "pip", "install"};
  } else {
    if (options.uv.empty()) return core::MakeError("--installer uv: no uv path (FindUv)");
    argv = {options.uv, "pip", "install", "--python", options.python};
  }
  for (PlannedWheel wheel : plan.routed) {
    if (wheel.url.empty()) return core::MakeError(wheel.name + ": the plan has no wheel URL");
    if (options.credentials != nullptr) wheel.url = options.credentials->Strip(wheel.url);
    argv.push_back(by_version ? VersionPin(wheel) : DirectReference(wheel));
  }
  argv.insert(argv.end(), plan.other.begin(), plan.other.end());
  if (options.routing_index_url.empty() && !plan.default_index_url.empty()) {
    argv.push_back("--index-url");  // no routing index: the export's and the tests' command
    argv.push_back(plan.default_index_url);
  }
  for (const std::string& host : plan.trusted_hosts) {
    argv.push_back(options.installer == InstallerKind::kPip ? "--trusted-host"
                                                            : "--allow-insecure-host");
    argv.push_back(host);
  }
  argv.insert(argv.end(), options.extra_args.begin(), options.extra_args.end());
  return argv;
}

}  // namespace

std::string_view IndexVariable(InstallerKind installer) {
  return installer == InstallerKind::kPip ? "PIP_INDEX_URL" : "UV_DEFAULT_INDEX";
}

std::string DisplayCommand(const std::vector<std::string>& argv, const InstallCommandOptions& options,
                           std::string_view shown_index_url) {
  if (options.routing_index_url.empty()) return QuoteCommand(argv);
  return std::string(IndexVariable(options.installer)) + "=" + QuoteCommand({std::string(shown_index_url)}) + " " +
         QuoteCommand(argv);
}

std::string QuoteCommand(const std::vector<std::string>& argv) {
  std::string text;
  for (const std::string& arg : argv) {
    if (!text.empty()) text += ' ';
    const bool plain = !arg.empty() && arg.find_first_not_of(
                                           "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                           "0123456789-_./:=@%+,") == std::string::npos;
    if (plain) {
      text += arg;
      continue;
    }
    text += '\'';
    for (char c : arg) {
      if (c == '\'') {
        text += "'\\''";
      } else {
        text += c;
      }
    }
    text += '\'';
  }
  return text;
}

int ExecuteInstall(const std::vector<std::string>& argv, ProcessRunner& runner,
                   const Environment& env, std::ostream& out, std::ostream& err,
                   std::chrono::milliseconds timeout) {
  if (argv.empty()) {
    err << "torchdex: no installer command\n";
    return 1;
  }
  const ProcessResult result = runner.Run(argv, env, timeout);
  out << result.output;
  err << result.errors;
  out.flush();
  if (result.status != ProcessResult::Status::kExited) {
    err << "torchdex: " << argv.front() << " " << result.Describe(timeout)
        << (result.failure.empty() ? "" : ": " + result.failure) << "\n";
    return 1;
  }
  if (result.exit_code != 0) {
    // pip: "THESE PACKAGES DO NOT MATCH THE HASHES FROM THE REQUIREMENTS FILE"; uv: "Hash
    // mismatch for ...". A wheel re-uploaded under the same name (pytorch/pytorch#110847).
    const std::string all = result.output + result.errors;
    if (all.find("DO NOT MATCH THE HASHES") != std::string::npos ||
        all.find("Hash mismatch") != std::string::npos) {
      err << "torchdex: a downloaded wheel does not match the sha256 on the backend page; "
             "nothing was installed. The index may have a re-uploaded wheel; report it to the "
             "index owner, or pin another version.\n";
    }
    if (all.find("No module named pip") != std::string::npos) {
      err << "torchdex: " << argv.front() << " has no pip; add it (" << argv.front()
          << " -m ensurepip) or use --installer uv\n";
    }
    if (all.find("Read-only file system") != std::string::npos ||
        all.find("Permission denied") != std::string::npos) {
      err << "torchdex: the environment of " << argv.front()
          << " cannot be written (read-only, or another user's); nothing was installed there\n";
    }
    err << "torchdex: " << argv.front() << " exited with " << result.exit_code << "\n";
  }
  return result.exit_code;
}

}  // namespace torchdex::installer
