// torchdex-codegen: golden output, byte stability, errors located by file and JSON pointer,
// write-only-when-changed, --check, and the real data/ against the checked-in generated/.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "codegen/codegen.h"
#include "core/sha256.h"
#include "codegen/tables.h"

namespace torchdex::codegen {
namespace {

const std::filesystem::path kFixtures = TORCHDEX_FIXTURES_DIR;
const std::filesystem::path kSource = TORCHDEX_SOURCE_DIR;

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(Sha256, KnownDigests) {
  EXPECT_EQ(core::Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(core::Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(core::Sha256Hex(std::string(1000, 'a')),
            "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3");
}

TEST(GenerateNvidiaGpus, MatchesTheGoldenFile) {
  const std::string input = ReadFile(kFixtures / "codegen" / "nvidia-gpus-small.json");
  auto generated = GenerateNvidiaGpus(input, "data/nvidia-gpus.json");
  ASSERT_TRUE(generated) << generated.error().message;
  EXPECT_EQ(*generated, ReadFile(kFixtures / "codegen" / "nvidia-gpus-small.inc"));
  // Byte-stable: the same input gives the same bytes.
  EXPECT_EQ(*generated, *GenerateNvidiaGpus(input, "data/nvidia-gpus.json"));
}

struct BadInput {
  const char* json;
  const char* message;
};

TEST(GenerateNvidiaGpus, ErrorsNameTheFileAndThePointer) {
  const std::string sources = R"("sources": [{"id": "pciids"}])";
  const BadInput cases[] = {
      {"[1, 2", "data/x.json: not valid JSON"},
      {"{\"devices\": []}", "data/x.json: /sources: missing \"sources\""},
      {"{ SOURCES, \"devices\": [{\"pci_id\": \"0x2204\", \"name\": \"a\", \"architecture\": "
       "\"b\", "
       "\"compute_capability\": \"8.6\"}]}",
       "data/x.json: /devices/0/source: missing \"source\": every row cites one"},
      {"{ SOURCES, \"devices\": [{\"pci_id\": \"0x2204\", \"name\": \"a\", \"architecture\": "
       "\"b\", "
       "\"compute_capability\": \"8.x\", \"source\": [\"pciids\"]}]}",
       "data/x.json: /devices/0/compute_capability: bad compute capability"},
      {"{ SOURCES, \"devices\": [{\"pci_id\": \"0x2204\", \"name\": \"a\", \"architecture\": "
       "\"b\", "
       "\"compute_capability\": \"8.6\", \"source\": [\"wikipedia\"]}]}",
       "data/x.json: /devices/0/source/0: unknown source id \"wikipedia\""},
      {"{ SOURCES, \"devices\": [{\"pci_id\": \"0x2204\", \"name\": \"a\", \"architecture\": "
       "\"b\", "
       "\"compute_capability\": \"8.6\", \"source\": [\"pciids\"]}, {\"pci_id\": \"0x2204\", "
       "\"name\": "
       "\"c\", \"architecture\": \"b\", \"compute_capability\": \"8.6\", \"source\": "
       "[\"pciids\"]}]}",
       "data/x.json: /devices/1/pci_id: duplicate pci_id 0x2204 (first at /devices/0/pci_id)"},
      {"{ SOURCES, \"devices\": [{\"pci_id\": \"0x22G4\", \"name\": \"a\", \"architecture\": "
       "\"b\", "
       "\"compute_capability\": \"8.6\", \"source\": [\"pciids\"]}]}",
       "data/x.json: /devices/0/pci_id: expected a PCI id"},
  };
  for (const BadInput& bad : cases) {
    std::string json = bad.json;
    if (const size_t at = json.find("SOURCES"); at != std::string::npos)
      json.replace(at, 7, sources);
    auto generated = GenerateNvidiaGpus(json, "data/x.json");
    ASSERT_FALSE(generated) << json;
    EXPECT_EQ(generated.error().message.rfind(bad.message, 0), 0u)
        << "got: " << generated.error().message << "\nwanted to start with: " << bad.message;
  }
}

TEST(GenerateIntelXpuDevices, UnknownPlatformIsLocated) {
  const std::string json = R"({"sources": [{"id": "pci.ids"}],
    "platforms": [{"platform": "DG2", "xpu_supported": true, "support_level": "validated",
                   "reason": "r", "source": ["pci.ids"]}],
    "devices": [{"pci_id": "0x56a0", "name": "Arc A770", "platform": "DG3", "source": ["pci.ids"]}]})";
  auto generated = GenerateIntelXpuDevices(json, "data/intel-xpu-devices.json");
  ASSERT_FALSE(generated);
  EXPECT_EQ(generated.error().message,
            "data/intel-xpu-devices.json: /devices/0/platform: unknown platform \"DG3\"");
}

TEST(GenerateNvidiaDriverCuda, DriverMinimumsMustRise) {
  const std::string json = R"({"sources": [{"id": "t3"}], "releases": [
    {"cuda": "12.4", "linux_min_driver": "550.54.14", "windows_min_driver": "551.61", "source": ["t3"]},
    {"cuda": "12.5", "linux_min_driver": "525.60.13", "windows_min_driver": null, "source": ["t3"]}]})";
  auto generated = GenerateNvidiaDriverCuda(json, "data/cuda-drivers.json");
  ASSERT_FALSE(generated);
  EXPECT_EQ(generated.error().message,
            "data/cuda-drivers.json: /releases/1/linux_min_driver: not above the driver of "
            "the previous CUDA release");
}

class TempRepository {
 public:
  TempRepository() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "torchdex-codegen-XXXXXX").string();
    root_ = ::mkdtemp(pattern.data());
    std::filesystem::create_directories(root_ / "data" / "schema");
    std::filesystem::create_directories(root_ / "generated");
    for (const TableSpec& table : AllTables()) {
      for (std::string_view input : table.Inputs()) {
        if (input.find('*') != std::string_view::npos) continue;  // a pattern: none is fine
        std::filesystem::copy_file(kSource / input, root_ / input,
                                   std::filesystem::copy_options::skip_existing);
      }
    }
    for (const auto& entry : std::filesystem::directory_iterator(kSource / "data" / "schema")) {
      std::filesystem::copy_file(entry.path(), root_ / "data" / "schema" / entry.path().filename());
    }
  }
  ~TempRepository() { std::filesystem::remove_all(root_); }
  const std::filesystem::path& root() const { return root_; }

 private:
  std::filesystem::path root_;
};

TEST(RunCodegen, WritesOnlyWhatChangedAndCheckNamesStaleFiles) {
  TempRepository repository;
  CodegenOptions options;
  options.root = repository.root();
  std::ostringstream out, err;
  ASSERT_EQ(RunCodegen(options, out, err), kExitOk) << err.str();
  EXPECT_NE(out.str().find("wrote generated/nvidia_gpus.inc"), std::string::npos);

  std::ostringstream out_again, err_again;
  ASSERT_EQ(RunCodegen(options, out_again, err_again), kExitOk);
  EXPECT_EQ(out_again.str(), "");  // nothing changed, nothing written

  std::ofstream(repository.root() / "generated/intel_xpu_devices.inc", std::ios::app)
      << "// edited\n";
  options.check = true;
  std::ostringstream out_check, err_check;
  EXPECT_EQ(RunCodegen(options, out_check, err_check), kExitStale);
  EXPECT_NE(err_check.str().find("stale: generated/intel_xpu_devices.inc"), std::string::npos);
  EXPECT_EQ(err_check.str().find("nvidia_gpus.inc"), std::string::npos);
}

TEST(RunCodegen, InvalidDataIsAnErrorAndWritesNothing) {
  TempRepository repository;
  std::ofstream(repository.root() / "data/nvidia-gpus.json", std::ios::trunc)
      << "{\"sources\": []}";
  CodegenOptions options;
  options.root = repository.root();
  std::ostringstream out, err;
  EXPECT_EQ(RunCodegen(options, out, err), kExitInvalidData);
  // The schema check comes first.
  EXPECT_NE(err.str().find("data/nvidia-gpus.json: /about: missing \"about\" (required by "
                           "data/schema/nvidia-gpus.schema.json)"),
            std::string::npos)
      << err.str();
  EXPECT_FALSE(std::filesystem::exists(repository.root() / "generated/nvidia_gpus.inc"));
}

TEST(RunCodegen, NonCanonicalDataFailsAndFormatRewritesIt) {
  TempRepository repository;
  const std::filesystem::path data = repository.root() / "data/cuda-drivers.json";
  const std::string text = ReadFile(data);
  // An extra blank line: still JSON, no longer canonical.
  std::ofstream(data, std::ios::binary | std::ios::trunc) << "{\n" << text.substr(1);
  CodegenOptions options;
  options.root = repository.root();
  std::ostringstream out, err;
  EXPECT_EQ(RunCodegen(options, out, err), kExitInvalidData);
  EXPECT_NE(err.str().find("data/cuda-drivers.json: not in canonical form from line 2"),
            std::string::npos)
      << err.str();

  options.format = true;
  std::ostringstream out_format, err_format;
  ASSERT_EQ(RunCodegen(options, out_format, err_format), kExitOk) << err_format.str();
  EXPECT_NE(out_format.str().find("formatted data/cuda-drivers.json"), std::string::npos);
  EXPECT_EQ(ReadFile(data), ReadFile(kSource / "data/cuda-drivers.json"));
}

TEST(RunCodegen, TheCheckedInTablesAreFresh) {
  CodegenOptions options;
  options.root = kSource;
  options.check = true;
  std::ostringstream out, err;
  EXPECT_EQ(RunCodegen(options, out, err), kExitOk) << err.str();
}

}  // namespace
}  // namespace torchdex::codegen
