// torchdex-crawl: discovers and crawls every PyTorch backend index into the catalogue store.
#include <iostream>
#include <string>
#include <vector>

#include "crawler/cli.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return torchdex::crawler::RunCrawlCli(args, std::cout, std::cerr,
                                        torchdex::crawler::DefaultCliDeps());
}
