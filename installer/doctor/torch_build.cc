#include "installer/doctor/torch_build.h"

#include "core/text.h"
#include "core/version.h"
#include "installer/platform/text.h"

namespace torchdex::installer {
namespace {

std::optional<std::string>* FieldOf(TorchVersionFile& file, std::string_view name) {
  if (name == "__version__") return &file.version;
  if (name == "cuda") return &file.cuda;
  if (name == "hip") return &file.hip;
  if (name == "xpu") return &file.xpu;
  return nullptr;
}

// The literals version.py gives the four fields: 'text', "text" or None (nullopt); false for
// anything else.
bool ReadLiteral(std::string_view value, std::optional<std::string>& out) {
  if (value == "None") {
    out.reset();
    return true;
  }
  if (value.size() >= 2 && (value.front() == '\'' || value.front() == '"') && value.back() == value.front()) {
    const std::string_view inner = value.substr(1, value.size() - 2);
    if (inner.find_first_of("'\"\\\n") != std::string_view::npos) return false;
    out = std::string(inner);
    return true;
  }
  return false;
}

void ReadLine(std::string_view line, std::size_t number, TorchVersionFile& file) {
  line = Trim(line);
  if (line.empty() || line.front() == '#') return;
  const std::size_t equals = line.find('=');
  if (equals == std::string_view::npos) return;
  std::string_view name = Trim(line.substr(0, equals));
  if (const std::size_t colon = name.find(':'); colon != std::string_view::npos) name = Trim(name.substr(0, colon));
  std::optional<std::string>* field = FieldOf(file, name);
  if (field == nullptr) return;
  if (name == "cuda") file.assigns_cuda = true;
  if (name == "hip") file.assigns_hip = true;
  std::optional<std::string> value;
  if (!ReadLiteral(Trim(line.substr(equals + 1)), value)) {
    file.warnings.push_back("line " + std::to_string(number) + ": " + std::string(name) +
                            " is not a string or None; read as unknown");
    field->reset();
    return;
  }
  *field = std::move(value);
}

// "12.4" -> "12.4", "6.2.41133" -> "6.2"; empty when it is not dotted numbers, at least two.
std::string MajorMinor(std::string_view version) {
  const std::vector<unsigned> parts = core::ParseDottedNumbers(version);
  if (parts.size() < 2) return "";
  return std::to_string(parts[0]) + "." + std::to_string(parts[1]);
}

}  // namespace

TorchVersionFile ParseTorchVersionFile(std::string_view text) {
  TorchVersionFile file;
  const std::vector<std::string_view> lines = SplitLines(text);
  for (std::size_t i = 0; i < lines.size(); ++i) ReadLine(lines[i], i + 1, file);
  return file;
}

std::optional<TorchBuild> BuildFromLocalLabel(std::string_view version) {
  auto parsed = core::Version::Parse(version);
  if (!parsed || !parsed->HasLocal()) return std::nullopt;
  const std::string label = parsed->LocalString();
  const std::string source = "the local label of " + std::string(version);
  const std::string first = label.substr(0, label.find('.'));
  if (first == "cpu") return TorchBuild{"cpu", core::BackendKind::kCpu, "", source};
  if (first == "xpu") return TorchBuild{"xpu", core::BackendKind::kXpu, "", source};
  if (first.size() > 2 && first.rfind("cu", 0) == 0 &&
      first.find_first_not_of("0123456789", 2) == std::string::npos) {
    const std::string digits = first.substr(2);
    return TorchBuild{first, core::BackendKind::kCuda, digits.substr(0, digits.size() - 1) + "." + digits.back(), source};
  }
  if (label.rfind("rocm", 0) == 0 && core::ParseDottedNumbers(label.substr(4)).size() >= 2) {
    return TorchBuild{label, core::BackendKind::kRocm, label.substr(4), source};
  }
  return std::nullopt;
}

std::optional<TorchBuild> BuildFromVersionFile(const TorchVersionFile& file, const std::string& path) {
  if (file.hip) {
    const std::string toolkit = MajorMinor(file.hip->substr(0, file.hip->find('-')));
    if (toolkit.empty()) return std::nullopt;
    return TorchBuild{"rocm" + toolkit, core::BackendKind::kRocm, toolkit, path + ": hip = '" + *file.hip + "'"};
  }
  if (file.cuda) {
    const std::string toolkit = MajorMinor(*file.cuda);
    if (toolkit.empty()) return std::nullopt;
    std::string name = "cu" + toolkit;
    name.erase(name.find('.'), 1);
    return TorchBuild{name, core::BackendKind::kCuda, toolkit, path + ": cuda = '" + *file.cuda + "'"};
  }
  if (!file.assigns_cuda && !file.assigns_hip) return std::nullopt;
  if (file.xpu) return TorchBuild{"xpu", core::BackendKind::kXpu, "", path + ": xpu = '" + *file.xpu + "'"};
  return TorchBuild{"cpu", core::BackendKind::kCpu, "", path + ": cuda and hip are None"};
}

}  // namespace torchdex::installer
