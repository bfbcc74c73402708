// torchdex: the installer's thin main(). Everything else is in the torchdex_installer library.
#include <unistd.h>

#include <csignal>
#include <iostream>
#include <string>
#include <vector>

#include "installer/cli/run.h"
#include "installer/platform/process_runner.h"

int main(int argc, char** argv) {
  using namespace torchdex::installer;
  std::ios::sync_with_stdio(false);
  const Environment env = EnvironmentFromEnviron(environ);
  const std::unique_ptr<ProcessRunner> runner = MakeSystemProcessRunner();
  const SteadyClock clock;
  Deps deps{env, *runner, clock};
  const int code = Main(std::vector<std::string>(argv + 1, argv + argc), deps, std::cout, std::cerr);
  // Interrupted while a child ran: the command has unwound (its temporary directories are
  // gone); the process now ends by that signal, as the shell expects (exit status 128 + N).
  if (const int signal = PendingInterrupt(); signal != 0) {
    std::cout.flush();
    std::cerr.flush();
    std::signal(signal, SIG_DFL);
    std::raise(signal);
  }
  return code;
}
