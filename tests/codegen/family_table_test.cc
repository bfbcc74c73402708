// GenerateFamilyTable: data/indexes.json + data/cuda-drivers.json + family catalogues ->
// generated/family_table.inc, with errors that name the file and the JSON pointer; and
// torchdex-codegen picking up generated/family-<name>.json files by their names.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "codegen/codegen.h"
#include "codegen/tables.h"

namespace torchdex::codegen {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;
const fs::path kSource = TORCHDEX_SOURCE_DIR;
const fs::path kFixtures = TORCHDEX_FIXTURES_DIR;

std::string ReadText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

const std::string kIndexes = ReadText(kSource / "data/indexes.json");
const std::string kDrivers = ReadText(kSource / "data/cuda-drivers.json");
const std::string kPaddle = ReadText(kFixtures / "catalogue/family-paddle.json");

TEST(GenerateFamilyTable, HoldsEveryFamilyAndTheCataloguesGiven) {
  const InputFile inputs[] = {{"data/indexes.json", kIndexes},
                              {"data/cuda-drivers.json", kDrivers},
                              {"generated/family-paddle.json", kPaddle}};
  auto out = GenerateFamilyTable(inputs);
  ASSERT_TRUE(out.ok()) << out.error().message;
  ASSERT_EQ(out->size(), 1u);
  const std::string& inc = out->front().content;
  EXPECT_EQ(out->front().path, "generated/family_table.inc");
  EXPECT_THAT(inc, HasSubstr("{\"pytorch\", \"https://download.pytorch.org/whl/\", \"torch\", 0, 2, 0, 3, 0, 0, 0, 0, \"\", \"\"},"));
  EXPECT_THAT(inc, HasSubstr("{\"paddle\", \"https://www.paddlepaddle.org.cn/packages/\", \"paddlepaddle-gpu\","));
  EXPECT_THAT(inc, HasSubstr("\"generated/family-paddle.json\", \"{\\012  \\\"backends\\\""));
  EXPECT_THAT(inc, HasSubstr("{\"cu126\", {550, 54, 14}, {550, 54, 14}, \"https://www.paddleocr.ai/"));
  EXPECT_THAT(inc, HasSubstr("{12, {525, 60, 13}, {528, 33, 0}},"));
  // Without the catalogue the family is still known, with no catalogue.
  auto bare = GenerateFamilyTable(std::span(inputs).first(2));
  ASSERT_TRUE(bare.ok());
  EXPECT_THAT(bare->front().content, HasSubstr("\"paddlepaddle-gpu\", 2, 1, 3, 2, 0, 1, 0, 2, \"\", \"\"},"));
}

TEST(GenerateFamilyTable, ACatalogueOfAnUnknownOrAnotherFamilyIsALocatedError) {
  const InputFile unknown[] = {{"data/indexes.json", kIndexes},
                               {"data/cuda-drivers.json", kDrivers},
                               {"generated/family-jax.json", kPaddle}};
  auto a = GenerateFamilyTable(unknown);
  ASSERT_FALSE(a.ok());
  EXPECT_THAT(a.error().message, HasSubstr("generated/family-jax.json: no index family \"jax\" in data/indexes.json "
                                           "(known: pytorch, paddle)"));
  const std::string pytorch = ReadText(kFixtures / "catalogue/2026-03-15.json");
  const InputFile other[] = {{"data/indexes.json", kIndexes},
                             {"data/cuda-drivers.json", kDrivers},
                             {"generated/family-paddle.json", pytorch}};
  auto b = GenerateFamilyTable(other);
  ASSERT_FALSE(b.ok());
  EXPECT_THAT(b.error().message, HasSubstr("generated/family-paddle.json: /provenance/family: \"pytorch\", but the "
                                           "file is the catalogue of family \"paddle\""));
  const InputFile broken[] = {{"data/indexes.json", kIndexes},
                              {"data/cuda-drivers.json", kDrivers},
                              {"generated/family-paddle.json", "{\"backends\": 1}"}};
  auto c = GenerateFamilyTable(broken);
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.error().message, HasSubstr("generated/family-paddle.json"));
}

TEST(GenerateFamilyTable, ABadFloorIsLocated) {
  std::string indexes = kIndexes;
  const size_t at = indexes.find("\"linux\": \"550.54.14\"");
  ASSERT_NE(at, std::string::npos);
  indexes.replace(at, std::string("\"linux\": \"550.54.14\"").size(), "\"linux\": \"five-fifty\"");
  const InputFile inputs[] = {{"data/indexes.json", indexes}, {"data/cuda-drivers.json", kDrivers}};
  auto out = GenerateFamilyTable(inputs);
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.error().message, HasSubstr("data/indexes.json: /families/1/driver_floors/1/linux:"));
}

// data/dependent-indexes.json: the rows of the committed file, and located errors.
TEST(GenerateDependentIndexes, HoldsPygAndItsPages) {
  const std::string data = ReadText(kSource / "data/dependent-indexes.json");
  auto inc = GenerateDependentIndexes(data, "data/dependent-indexes.json");
  ASSERT_TRUE(inc.ok()) << inc.error().message;
  EXPECT_THAT(*inc, HasSubstr("{\"pyg\", \"https://data.pyg.org/whl/\", \"torch-{torch}+{backend}.html\", "
                              "\"pt{major}{minor}{backend}\", \"torch\", "));
  EXPECT_THAT(*inc, HasSubstr("{\"pyg\", \"torch-scatter\"},"));
  EXPECT_THAT(*inc, HasSubstr("{\"pyg\", \"2.3\", \"2.3.0\", \"cu121\", \"https://pytorch-geometric.readthedocs.io"));
}

TEST(GenerateDependentIndexes, BadRowsAreLocated) {
  const std::string data = ReadText(kSource / "data/dependent-indexes.json");
  const auto error_with = [&](const std::string& from, const std::string& to) {
    std::string changed = data;
    const size_t at = changed.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at == std::string::npos) return std::string();
    changed.replace(at, from.size(), to);
    auto inc = GenerateDependentIndexes(changed, "data/dependent-indexes.json");
    return inc.ok() ? std::string("(no error)") : inc.error().message;
  };
  EXPECT_THAT(error_with("\"torch\": \"2.4.0\"", "\"torch\": \"2.5.0\""),
              HasSubstr("data/dependent-indexes.json: /indexes/0/pages/1/torch: page key 2.5.0 is not a torch 2.4 release"));
  EXPECT_THAT(error_with("\"for\": \"2.4\"", "\"for\": \"2.5\""),
              HasSubstr("/indexes/0/pages/1/for: torch 2.5 is listed twice"));
  EXPECT_THAT(error_with("\"torch-scatter\"", "\"Torch_Scatter\""),
              HasSubstr("/indexes/0/projects/2: \"Torch_Scatter\" is not in PEP 503 normal form (\"torch-scatter\")"));
  EXPECT_THAT(error_with("\"pyg-usage\"\n     ]", "\"no-such-source\"\n     ]"), HasSubstr("/indexes/0/pages/0/source"));
}

TEST(RunCodegen, PicksUpFamilyCataloguesByTheirNames) {
  std::string pattern = (fs::temp_directory_path() / "torchdex-codegen-family-XXXXXX").string();
  const fs::path root = ::mkdtemp(pattern.data());
  fs::copy(kSource / "data", root / "data", fs::copy_options::recursive);
  fs::create_directories(root / "generated");
  for (const char* name : {"catalogue.json", "catalogue-test.json", "catalogue-nightly.json"}) {
    fs::copy_file(kFixtures / "catalogue" / (std::string("2026-03-15") +
                                            (std::string(name) == "catalogue.json" ? ".json"
                                             : std::string(name) == "catalogue-test.json" ? "-test.json"
                                                                                           : "-nightly.json")),
                  root / "generated" / name);
  }
  CodegenOptions options;
  options.root = root;
  std::ostringstream out, err;
  ASSERT_EQ(RunCodegen(options, out, err), kExitOk) << err.str();
  EXPECT_THAT(ReadText(root / "generated/family_table.inc"), HasSubstr("\"paddlepaddle-gpu\", 2, 1, 3, 2, 0, 1, 0, 2, \"\", \"\"}"));
  // A family catalogue appears: the table is stale until regenerated, then holds it.
  fs::copy_file(kFixtures / "catalogue/family-paddle.json", root / "generated/family-paddle.json");
  options.check = true;
  std::ostringstream out_check, err_check;
  EXPECT_EQ(RunCodegen(options, out_check, err_check), kExitStale);
  EXPECT_THAT(err_check.str(), HasSubstr("stale: generated/family_table.inc"));
  options.check = false;
  std::ostringstream out_again, err_again;
  ASSERT_EQ(RunCodegen(options, out_again, err_again), kExitOk) << err_again.str();
  EXPECT_THAT(ReadText(root / "generated/family_table.inc"), HasSubstr("\"generated/family-paddle.json\""));
  fs::remove_all(root);
}

}  // namespace
}  // namespace torchdex::codegen
