#include "tests/support/variant_index.h"

#include <fstream>
#include <sstream>

#include "core/sha256.h"

namespace torchdex::testing {

namespace fs = std::filesystem;

namespace {

std::string Slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

std::string VariantWheelSha(const std::string& filename) { return core::Sha256Hex(filename); }

void WriteVariantIndex(const fs::path& root, const fs::path& fixtures) {
  const fs::path index = root / "whl" / "test" / "variant";
  const fs::path page = index / "torch";
  fs::create_directories(page);
  std::ofstream(root / "whl" / "test" / "index.html")
      << "<!DOCTYPE html>\n<html><body>\n<a href=\"/whl/test/variant/\">variant</a><br/>\n"
         "</body></html>\n";
  std::ofstream(index / "index.html")
      << "<!DOCTYPE html>\n<html><body>\n<a href=\"/whl/test/variant/torch/\">torch</a><br/>\n"
         "</body></html>\n";
  std::ostringstream html;
  html << "<!DOCTYPE html>\n<html><body><h1>Links for torch</h1>\n";
  auto link = [&](const std::string& file, const std::string& sha) {
    html << "<a href=\"/whl/test/variant/" << file << "#sha256=" << sha << "\">" << file
         << "</a><br/>\n";
  };
  for (const char* version : {"2.10.0", "2.11.0"}) {
    const std::string json_name = std::string("torch-") + version + "-variants.json";
    const std::string json = Slurp(fixtures / "variants" / json_name);
    std::ofstream(index / json_name, std::ios::binary) << json;
    link(json_name, core::Sha256Hex(json));
    for (const char* label : kVariantLabels) {
      const std::string wheel = std::string("torch-") + version + "-py3-none-any-" + label + ".whl";
      link(wheel, VariantWheelSha(wheel));
    }
  }
  // 2.9.0: a variants.json that does not parse; 2.8.0: a wheel whose label the file lacks.
  std::ofstream(index / "torch-2.9.0-variants.json") << "{\"$schema\": ";
  link("torch-2.9.0-variants.json", core::Sha256Hex("{\"$schema\": "));
  link("torch-2.9.0-py3-none-any-cuda12.8.whl", VariantWheelSha("torch-2.9.0-py3-none-any-cuda12.8.whl"));
  const std::string v28 =
      std::string(R"({"$schema": "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json",)") +
      R"( "default-priorities": {"namespace": ["nvidia"]}, "variants": {"null": {}}})";
  std::ofstream(index / "torch-2.8.0-variants.json") << v28;
  link("torch-2.8.0-variants.json", core::Sha256Hex(v28));
  link("torch-2.8.0-py3-none-any-cuda12.9.whl", VariantWheelSha("torch-2.8.0-py3-none-any-cuda12.9.whl"));
  link("torch-2.8.0-py3-none-any-null.whl", VariantWheelSha("torch-2.8.0-py3-none-any-null.whl"));
  html << "</body></html>\n";
  std::ofstream(page / "index.html") << html.str();
}

}  // namespace torchdex::testing
