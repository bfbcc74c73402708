#include "installer/cli/run.h"

#include <algorithm>
#include <sstream>

#include "core/spelling.h"
#include "core/url.h"
#include "installer/cli/commands.h"
#include "installer/platform/terminal_stream.h"

#ifndef TORCHDEX_VERSION
#define TORCHDEX_VERSION "unknown"
#endif

namespace torchdex::installer {

namespace po = boost::program_options;

namespace {

const Subcommand kSubcommands[] = {
    {"detect",
     "torchdex detect [--json] [--variants [--provider-timeout SECONDS]] [--root DIR] "
     "[--probe-timeout SECONDS]",
     "report the accelerator: NVIDIA driver and GPUs, AMD gfx, Intel XPU, WSL, containers, Jetson",
     kDetectDetails, &AddDetectOptions, nullptr, &ValidateDetectOptions, &RunDetect},
    {"select",
     "torchdex select [REQUIREMENT...] [--torch-backend=auto|cpu|cuXYZ|rocmX.Y|xpu] "
     "[--channel stable|test|nightly] [--python-version X.Y | --python PATH] [--platform TAG] "
     "[--root DIR] [--catalogue FILE]... [--explain] [--json]",
     "choose the backend for this machine (or another) and say why",
     kSelectDetails, &AddSelectOptions, "requirement", &ValidateSelectOptions, &RunSelect},
    {"catalogue", "torchdex catalogue show [--json] [--catalogue FILE]... | torchdex catalogue check FILE",
     "show the effective catalogue and where each entry came from; check an override file",
     kCatalogueDetails, &AddCatalogueOptions, "action", &ValidateCatalogueOptions, &RunCatalogue},
    {"install",
     "torchdex install [REQUIREMENT...] [-r FILE]... [--torch-backend NAME] [--channel C] "
     "[--python PATH] [--index-url URL] [--dry-run] [--explain] [--offline] [--installer pip|uv] "
     "[--root DIR] [--catalogue FILE]... [-- INSTALLER ARGS]",
     "install the requirements, routed packages pinned to the chosen backend by URL and hash",
     kInstallDetails, &AddInstallOptions, "requirement", &ValidateInstallOptions, &RunInstall},
    {"export",
     "torchdex export --format requirements|uv|pip-conf|uv-project [REQUIREMENT...] [-r FILE]... "
     "[--backend NAME]... [--output FILE] [install's choice options]",
     "write the decision for pip, uv or pip.conf: routed packages pinned to the backend",
     kExportDetails, &AddExportOptions, "requirement", &ValidateInstallOptions, &RunExport},
    {"lock",
     "torchdex lock [REQUIREMENT...] [-r FILE]... [--backend NAME]... "
     "[--python PATH | --python-version X.Y [--platform TAG]] [--index-url URL] [-o DIR] [--channel C] [--root DIR] [--catalogue FILE]... [--explain]",
     "write a PEP 751 lock file per backend (pylock.<backend>.toml), resolved by uv",
     kLockDetails, &AddLockOptions, "requirement", &ValidateLockOptions, &RunLock},
    {"sync",
     "torchdex sync [--lock-dir DIR] [--python PATH] [--installer pip|uv] [--dry-run] [--explain] "
     "[--root DIR] [--catalogue FILE]...",
     "install the lock file that fits this machine, exactly, its hashes verified",
     kSyncDetails, &AddSyncOptions, nullptr, &ValidateSyncOptions, &RunSync},
};

const Subcommand* FindSubcommand(std::string_view name) {
  for (const Subcommand& command : kSubcommands) {
    if (name == command.name) return &command;
  }
  return nullptr;
}

std::string UnknownCommand(std::string_view name) {
  std::vector<std::string> names;
  for (const Subcommand& command : kSubcommands) names.emplace_back(command.name);
  return "unknown command \"" + std::string(name) + "\"" + core::DidYouMean(name, names) +
         "; see torchdex --help";
}

po::options_description GlobalOptions(Options& options) {
  po::options_description global("global options");
  global.add_options()("help,h", po::bool_switch(&options.help),
                       "show help; after a command, that command's help")(
      "version", po::bool_switch(&options.version), "print the version");
  return global;
}

}  // namespace

std::span<const Subcommand> Subcommands() { return kSubcommands; }

std::string HelpText(std::string_view name) {
  Options scratch;
  std::ostringstream text;
  if (const Subcommand* command = FindSubcommand(name)) {
    po::options_description all(std::string(command->name) + " options");
    command->add_options(all, scratch);
    // The option that takes the positional arguments is how they are stored, not an option to
    // show: the usage line names them.
    po::options_description description(std::string(command->name) + " options");
    for (const auto& option : all.options()) {
      if (command->positional == nullptr || option->long_name() != command->positional) description.add(option);
    }
    text << "usage: " << command->usage << "\n\n"
         << command->summary << "\n\n"
         << description << "\n"
         << command->details << "\n"
         << ExitCodesHelp(command->name);
    return text.str();
  }
  text << "usage: torchdex [--help] [--version] COMMAND [OPTIONS]\n\n"
       << "Installs the right PyTorch build for this machine.\n\ncommands:\n";
  for (const Subcommand& command : kSubcommands) {
    text << "  " << command.name
         << std::string(10 - std::min<size_t>(9, std::string_view(command.name).size()), ' ')
         << command.summary << "\n";
  }
  text << "\n"
       << GlobalOptions(scratch) << "\n"
       << "torchdex COMMAND --help shows the options of a command.\n"
       << ExitCodesHelp("");
  return text.str();
}

core::Expected<Options> ParseCommandLine(const std::vector<std::string>& all_args) {
  Options options;
  // Everything after the first `--` belongs to the installer that `install` runs.
  std::vector<std::string> args = all_args;
  if (auto dashes = std::find(args.begin(), args.end(), "--"); dashes != args.end()) {
    options.passthrough.assign(dashes + 1, args.end());
    args.erase(dashes, args.end());
  }
  try {
    po::options_description global = GlobalOptions(options);
    po::options_description positional_options;
    positional_options.add_options()("command", po::value<std::string>(&options.command))(
        "arguments", po::value<std::vector<std::string>>());
    po::options_description all;
    all.add(global).add(positional_options);
    po::positional_options_description positional;
    positional.add("command", 1).add("arguments", -1);
    // Global options first; what is left belongs to the subcommand.
    po::parsed_options parsed = po::command_line_parser(args)
                                    .options(all)
                                    .positional(positional)
                                    .allow_unregistered()
                                    .run();
    po::variables_map values;
    po::store(parsed, values);
    po::notify(values);
    if (options.command.empty()) {
      std::vector<std::string> rest =
          po::collect_unrecognized(parsed.options, po::include_positional);
      if (!rest.empty())
        return core::MakeError("unknown option " + rest.front() + "; see torchdex --help");
      if (!options.help && !options.version)
        return core::MakeError("missing command; see torchdex --help");
      return options;
    }
    const Subcommand* command = FindSubcommand(options.command);
    if (command == nullptr) return core::MakeError(UnknownCommand(options.command));

    std::vector<std::string> rest =
        po::collect_unrecognized(parsed.options, po::include_positional);
    auto name = std::find(rest.begin(), rest.end(), options.command);
    if (name != rest.end()) rest.erase(name);
    po::options_description description(std::string(command->name) + " options");
    command->add_options(description, options);
    if (!options.passthrough.empty() && options.command != "install") {
      return core::MakeError(options.command + ": arguments after -- are only for install");
    }
    // The command's positional arguments go to the option its row names ("requirement").
    po::positional_options_description command_positional;
    if (command->positional != nullptr) command_positional.add(command->positional, -1);
    po::variables_map command_values;
    po::store(po::command_line_parser(rest).options(description).positional(command_positional).run(),
              command_values);
    po::notify(command_values);
    if (!options.help) {
      core::Expected<bool> valid = command->validate(options);
      if (!valid) return valid.error();
    }
  } catch (const po::error& error) {
    std::string message = error.what();
    if (!options.command.empty()) message = options.command + ": " + message;
    return core::MakeError(message + "; see torchdex " + options.command +
                           (options.command.empty() ? "" : " ") + "--help");
  }
  return options;
}

int Run(const Options& options, Deps& deps, std::ostream& out, std::ostream& err) {
  if (options.version) {
    out << "torchdex " << TORCHDEX_VERSION << "\n";
    return kExitOk;
  }
  if (options.help) {
    out << HelpText(options.command);
    return kExitOk;
  }
  const Subcommand* command = FindSubcommand(options.command);
  if (command == nullptr) {
    err << "torchdex: " << UnknownCommand(options.command) << "\n";
    return kExitUsage;
  }
  if (command->name == std::string_view("install") || command->name == std::string_view("export")) {
    // install streams the installer's output, and export's output is the user's own file (its
    // index URLs need their credentials): both hide credentials line by line themselves.
    return command->run(options, deps, out, err);
  }
  // Everything else is printed with credentials in URLs hidden, as pip shows them.
  std::ostringstream command_out, command_err;
  const int code = command->run(options, deps, command_out, command_err);
  out << core::RedactCredentials(command_out.str());
  err << core::RedactCredentials(command_err.str());
  return code;
}

int Main(const std::vector<std::string>& args, Deps& deps, std::ostream& raw_out, std::ostream& raw_err) {
  // Every byte printed passes core::ForTerminal (platform/terminal_stream.h).
  TerminalSafeStream out(raw_out);
  TerminalSafeStream err(raw_err);
  core::Expected<Options> options = ParseCommandLine(args);
  if (!options) {
    err << "torchdex: " << options.error().message << "\n";
    return kExitUsage;
  }
  return Run(*options, deps, out, err);
}

}  // namespace torchdex::installer
