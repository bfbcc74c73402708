// torchdex-codegen as a library: main() parses the command line into CodegenOptions and calls
// RunCodegen, which tests call in-process.
#ifndef TORCHDEX_CODEGEN_CODEGEN_H_
#define TORCHDEX_CODEGEN_CODEGEN_H_

#include <filesystem>
#include <ostream>

namespace torchdex::codegen {

// Exit codes of torchdex-codegen.
enum ExitCode : int {
  kExitOk = 0,           // every generated file is up to date (written if it was not)
  kExitStale = 1,        // --check: at least one generated file differs from what data/ gives
  kExitUsage = 2,        // bad command line
  kExitInvalidData = 3,  // a data file is missing, not JSON, or fails validation
  kExitWriteFailed = 4,  // a generated file could not be written
};

struct CodegenOptions {
  std::filesystem::path root = ".";  // the repository root: data/ and generated/ are under it
  bool check = false;                // compare only; write nothing
  bool format = false;               // rewrite data/*.json in canonical form, then generate
};

// Generates every table of AllTables() from its inputs (root/data, root/generated/catalogue.json)
// into root/generated and root/docs/reference. Every input under data/ is first checked against
// data/schema/<name>.schema.json and for canonical form. Files are written only when their bytes
// change (through a temporary file and a rename). Messages go to `out` (what was written or is
// stale) and `err` (errors).
int RunCodegen(const CodegenOptions& options, std::ostream& out, std::ostream& err);

}  // namespace torchdex::codegen

#endif  // TORCHDEX_CODEGEN_CODEGEN_H_
