#include "codegen/codegen.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

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

namespace {

// data/foo.json -> data/schema/foo.schema.json; "" for inputs outside data/.
std::string SchemaFor(std::string_view input) {
  constexpr std::string_view kData = "data/";
  if (input.rfind(kData, 0) != 0) return "";
  std::string stem(input.substr(kData.size()));
  if (stem.size() > 5 && stem.ends_with(".json")) stem.resize(stem.size() - 5);
  return "data/schema/" + stem + ".schema.json";
}

// The inputs of a table, with "folder/prefix*.json" expanded to the files of the folder that
// match, in name order (none is fine: a family without a catalogue).
std::vector<std::string> InputsOf(const TableSpec& table, const std::filesystem::path& root) {
  std::vector<std::string> out;
  for (std::string_view input : table.Inputs()) {
    const size_t star = input.find('*');
    if (star == std::string_view::npos) {
      out.emplace_back(input);
      continue;
    }
    const size_t slash = input.rfind('/', star);
    const std::string folder(input.substr(0, slash + 1));
    const std::string prefix(input.substr(slash + 1, star - slash - 1));
    const std::string suffix(input.substr(star + 1));
    std::vector<std::string> found;
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(root / folder, error)) {
      const std::string name = entry.path().filename().string();
      if (name.size() > prefix.size() + suffix.size() && name.starts_with(prefix) && name.ends_with(suffix) &&
          entry.is_regular_file(error)) {
        found.push_back(folder + name);
      }
    }
    std::sort(found.begin(), found.end());
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

// Data files other components read, kept in their hand layout: checked against their schema,
// not for canonical form.
bool HandLaidOut(std::string_view input) { return input == "data/indexes.json"; }

}  // namespace

int RunCodegen(const CodegenOptions& options, std::ostream& out, std::ostream& err) {
  // Every input once: read, and for data files checked against their schema.
  std::map<std::string, std::string, std::less<>> texts;
  for (const TableSpec& table : AllTables()) {
    for (const std::string& input : InputsOf(table, options.root)) {
      if (texts.contains(input)) continue;
      const std::filesystem::path path = options.root / input;
      std::optional<std::string> text = ReadWholeFile(path);
      if (!text) {
        err << "torchdex-codegen: " << input << ": cannot read " << path.string() << "\n";
        return kExitInvalidData;
      }
      const std::string schema_name = SchemaFor(input);
      if (!schema_name.empty()) {
        if (options.format && !options.check && !HandLaidOut(input)) {
          core::Expected<std::string> canonical = CanonicalJson(*text, input);
          if (!canonical) {
            err << "torchdex-codegen: " << canonical.error().message << "\n";
            return kExitInvalidData;
          }
          if (*canonical != *text) {
            if (!WriteAtomically(path, *canonical, err)) return kExitWriteFailed;
            out << "formatted " << input << "\n";
            text = std::move(*canonical);
          }
        }
        std::optional<std::string> schema = ReadWholeFile(options.root / schema_name);
        if (!schema) {
          err << "torchdex-codegen: " << input << ": no schema (cannot read " << schema_name
              << ")\n";
          return kExitInvalidData;
        }
        core::Status checked = CheckDataFile({input, *text}, {schema_name, *schema}, !HandLaidOut(input));
        if (!checked) {
          err << "torchdex-codegen: " << checked.error().message << "\n";
          return kExitInvalidData;
        }
      }
      texts.emplace(std::string(input), std::move(*text));
    }
  }

  int stale = 0;
  for (const TableSpec& table : AllTables()) {
    const std::vector<std::string> names = InputsOf(table, options.root);
    std::vector<InputFile> inputs;
    for (const std::string& input : names) {
      inputs.push_back({input, texts.find(input)->second});
    }
    core::Expected<std::vector<OutputFile>> generated = table.generate(inputs);
    if (!generated) {
      err << "torchdex-codegen: " << generated.error().message << "\n";
      return kExitInvalidData;
    }
    for (const OutputFile& file : *generated) {
      const std::filesystem::path out_path = options.root / file.path;
      const std::optional<std::string> current = ReadWholeFile(out_path);
      if (current && *current == file.content) continue;
      if (options.check) {
        err << "torchdex-codegen: stale: " << file.path << " (from " << table.inputs[0];
        for (std::string_view input : table.Inputs().subspan(1)) err << ", " << input;
        err << "; run torchdex-codegen to regenerate)\n";
        ++stale;
        continue;
      }
      if (!WriteAtomically(out_path, file.content, err)) return kExitWriteFailed;
      out << "wrote " << file.path << "\n";
    }
  }
  return stale > 0 ? kExitStale : kExitOk;
}

}  // namespace torchdex::codegen
