// torchdex-codegen: data/*.json -> generated/*.inc. See codegen/codegen.h.
#include <iostream>
#include <string>

#include "codegen/codegen.h"

namespace {

constexpr const char* kUsage =
    "usage: torchdex-codegen [--root DIR] [--check | --format]\n"
    "\n"
    "Checks the curated tables in DIR/data/ against DIR/data/schema/, and turns them and\n"
    "DIR/generated/catalogue.json into sorted constexpr arrays in DIR/generated/ and the\n"
    "reference pages DIR/docs/reference/, writing only the files whose bytes change.\n"
    "\n"
    "  --root DIR  the repository root (default: the current directory)\n"
    "  --check     write nothing; exit 1 naming every stale generated file\n"
    "  --format    first rewrite data files in canonical form (sorted keys, one-space indent)\n"
    "\n"
    "exit codes: 0 up to date, 1 stale (--check), 2 usage, 3 invalid data, 4 write failed\n";

}  // namespace

int main(int argc, char** argv) {
  torchdex::codegen::CodegenOptions options;
  for (int i = 1; i < argc; ++i) {
    const std::string argument = argv[i];
    if (argument == "--check") {
      options.check = true;
    } else if (argument == "--format") {
      options.format = true;
    } else if (argument == "--root" && i + 1 < argc) {
      options.root = argv[++i];
    } else if (argument == "--help" || argument == "-h") {
      std::cout << kUsage;
      return torchdex::codegen::kExitOk;
    } else {
      std::cerr << "torchdex-codegen: unknown argument \"" << argument << "\"\n" << kUsage;
      return torchdex::codegen::kExitUsage;
    }
  }
  return torchdex::codegen::RunCodegen(options, std::cout, std::cerr);
}
