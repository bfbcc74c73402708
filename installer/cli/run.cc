#include "installer/cli/run.h"

#include <algorithm>
#include <sstream>

#include "installer/cli/commands.h"

#ifndef TORCHDEX_VERSION
#define TORCHDEX_VERSION "unknown"
#endif

namespace torchdex::installer {

namespace po = boost::program_options;

namespace {

constexpr const char* kExitCodes =
    "exit codes: 0 ok, 1 unexpected failure, 2 usage error, 3 malformed override variable\n";

const Subcommand kSubcommands[] = {
    {"detect", "torchdex detect [--json] [--root DIR] [--probe-timeout SECONDS]",
     "report the accelerator: NVIDIA driver and GPUs, AMD gfx, Intel XPU, WSL, containers, Jetson",
     kDetectDetails, &AddDetectOptions, &ValidateDetectOptions, &RunDetect},
    {"install",
     "torchdex install [REQUIREMENT...] [-r FILE]... [--torch-backend NAME] [--channel C] "
     "[--python PATH] [--index-url URL] [--dry-run] [--explain] [--offline] [--installer pip|uv] "
     "[--root DIR] [--catalogue FILE]... [-- INSTALLER ARGS]",
     "install the requirements, routed packages pinned to the chosen backend by URL and hash",
     kInstallDetails, &AddInstallOptions, &ValidateInstallOptions, &RunInstall},
    {"export",
     "torchdex export --format requirements|uv|pip-conf [REQUIREMENT...] [-r FILE]... "
     "[--output FILE] [install's choice options]",
     "write the decision for pip, uv or pip.conf: routed packages pinned to the backend",
     kExportDetails, &AddExportOptions, &ValidateInstallOptions, &RunExport},
};

const Subcommand* FindSubcommand(std::string_view name) {
  for (const Subcommand& command : kSubcommands) {
    if (name == command.name) return &command;
  }
  return nullptr;
}

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string UnknownCommand(std::string_view name) {
  std::string message = "unknown command \"" + std::string(name) + "\"";
  for (const Subcommand& command : kSubcommands) {
    if (EditDistance(name, command.name) <= 2) {
      message += " (did you mean \"" + std::string(command.name) + "\"?)";
      break;
    }
  }
  return message + "; see torchdex --help";
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
    po::options_description description(std::string(command->name) + " options");
    command->add_options(description, scratch);
    text << "usage: " << command->usage << "\n\n"
         << command->summary << "\n\n"
         << description << "\n"
         << command->details << "\n"
         << kExitCodes;
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
       << kExitCodes;
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
    // A command whose options include "requirement" takes its positional arguments there.
    po::positional_options_description command_positional;
    if (description.find_nothrow("requirement", false) != nullptr) {
      command_positional.add("requirement", -1);
    }
    po::variables_map command_values;
    po::store(po::command_line_parser(rest)
                  .options(description)
                  .positional(command_positional)
                  .run(),
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
  return command->run(options, deps, out, err);
}

int Main(const std::vector<std::string>& args, Deps& deps, std::ostream& out, std::ostream& err) {
  core::Expected<Options> options = ParseCommandLine(args);
  if (!options) {
    err << "torchdex: " << options.error().message << "\n";
    return kExitUsage;
  }
  return Run(*options, deps, out, err);
}

}  // namespace torchdex::installer
