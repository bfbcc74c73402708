// torchdex: the installer's thin main(). Everything else is in the torchdex_installer library.
#include <unistd.h>

#include <iostream>
#include <string>
#include <vector>

#include "installer/cli/run.h"

int main(int argc, char** argv) {
  using namespace torchdex::installer;
  std::ios::sync_with_stdio(false);
  const Environment env = EnvironmentFromEnviron(environ);
  const std::unique_ptr<ProcessRunner> runner = MakeSystemProcessRunner();
  const SteadyClock clock;
  Deps deps{env, *runner, clock};
  return Main(std::vector<std::string>(argv + 1, argv + argc), deps, std::cout, std::cerr);
}
