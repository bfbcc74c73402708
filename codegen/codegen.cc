#include "codegen/codegen.h"

#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <system_error>

#include "codegen/tables.h"

namespace torchdex::codegen {
namespace {

std::optional<std::string> ReadWholeFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// Writes through a temporary file in the same directory and renames it over the target, so a
// failed write never leaves a half-written table behind.
bool WriteAtomically(const std::filesystem::path& path, const std::string& contents,
                     std::ostream& err) {
  std::error_code error;
  std::filesystem::create_directories(path.parent_path(), error);
  const std::filesystem::path temporary = path.string() + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << contents;
    out.flush();
    if (!out) {
      err << "torchdex-codegen: cannot write " << temporary.string() << "\n";
      return false;
    }
  }
  std::filesystem::rename(temporary, path, error);
  if (error) {
    err << "torchdex-codegen: cannot rename " << temporary.string() << " to " << path.string()
        << ": " << error.message() << "\n";
    std::filesystem::remove(temporary, error);
    return false;
  }
  return true;
}

}  // namespace

int RunCodegen(const CodegenOptions& options, std::ostream& out, std::ostream& err) {
  int stale = 0;
  for (const TableSpec& table : AllTables()) {
    const std::filesystem::path data_path = options.root / table.data_file;
    std::optional<std::string> data_text = ReadWholeFile(data_path);
    if (!data_text) {
      err << "torchdex-codegen: " << table.data_file << ": cannot read " << data_path.string()
          << "\n";
      return kExitInvalidData;
    }
    core::Expected<std::string> generated = table.generate(*data_text, table.data_file);
    if (!generated) {
      err << "torchdex-codegen: " << generated.error().message << "\n";
      return kExitInvalidData;
    }
    const std::filesystem::path out_path = options.root / table.generated_file;
    const std::optional<std::string> current = ReadWholeFile(out_path);
    if (current && *current == *generated) continue;
    if (options.check) {
      err << "torchdex-codegen: stale: " << table.generated_file << " (from " << table.data_file
          << "; run torchdex-codegen to regenerate)\n";
      ++stale;
      continue;
    }
    if (!WriteAtomically(out_path, *generated, err)) return kExitWriteFailed;
    out << "wrote " << table.generated_file << "\n";
  }
  return stale > 0 ? kExitStale : kExitOk;
}

}  // namespace torchdex::codegen
