// Override and config files refuse what they cannot mean, say every error with its place, and
// never abort (issue 13, B.8-B.10, B.12). Each case here was accepted, or aborted, before.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "installer/cli/run.h"
#include "installer/override_files/override_files.h"
#include "installer/platform/clock.h"
#include "tests/installer/test_support.h"

namespace torchdex::installer {
namespace {

namespace fs = std::filesystem;

std::string ErrorOf(const std::string& text) {
  auto parsed = ParseOverrideFile(text, "/etc/x/o.json");
  EXPECT_FALSE(parsed.ok()) << text;
  return parsed.ok() ? "" : parsed.error().message;
}

// The keys an error offers for an unknown one ("...; expected one of a, b, c").
std::set<std::string> KeysOffered(const std::string& error) {
  const std::string marker = "; expected one of ";
  const std::size_t at = error.find(marker);
  EXPECT_NE(at, std::string::npos) << error;
  std::set<std::string> keys;
  if (at == std::string::npos) return keys;
  std::string rest = error.substr(at + marker.size());
  rest = rest.substr(0, rest.find_first_of("\n(")) + ",";
  for (std::size_t from = 0, comma; (comma = rest.find(',', from)) != std::string::npos; from = comma + 1) {
    std::string key = rest.substr(from, comma - from);
    key.erase(0, key.find_first_not_of(' '));
    key.erase(key.find_last_not_of(' ') + 1);
    if (!key.empty()) keys.insert(key);
  }
  return keys;
}

std::set<std::string> SchemaKeys(const nlohmann::json& object) {
  std::set<std::string> keys;
  for (const auto& [key, value] : object.at("properties").items()) keys.insert(key);
  EXPECT_EQ(object.value("additionalProperties", true), false) << "the schema must refuse unknown keys too";
  return keys;
}

// docs/schema/overrides.schema.json and the parser name the same keys at every level, so the
// schema an editor checks a file with cannot drift from what torchdex accepts.
TEST(OverrideValidationTest, TheSchemaNamesTheKeysTheParserTakes) {
  std::ifstream in(std::string(TORCHDEX_SOURCE_DIR) + "/docs/schema/overrides.schema.json");
  ASSERT_TRUE(in) << "docs/schema/overrides.schema.json";
  const nlohmann::json schema = nlohmann::json::parse(in);
  const nlohmann::json& properties = schema.at("properties");
  const nlohmann::json& custom = properties.at("backends").at("additionalProperties").at("oneOf").at(1);
  const std::string custom_backend = R"("kind": "cuda", "toolkit": "12.8", "url": "https://example.org/whl/cu128x/")";
  const struct {
    const char* where;
    std::string file;
    std::set<std::string> expected;
  } places[] = {
      {"the top", R"({"format": 1, "zzz": 1})", SchemaKeys(schema)},
      {"a family's section", R"({"format": 1, "families": {"paddle": {"zzz": 1}}})",
       SchemaKeys(properties.at("families").at("additionalProperties"))},
      {"routed", R"({"format": 1, "routed": {"add": [], "zzz": 1}})", SchemaKeys(properties.at("routed"))},
      {"a known backend", R"({"format": 1, "backends": {"cu128": {"url": "https://example.org/", "zzz": 1}}})",
       SchemaKeys(properties.at("backends").at("additionalProperties").at("oneOf").at(0))},
      {"a custom backend", R"({"format": 1, "backends": {"cu128x": {)" + custom_backend + R"(, "zzz": 1}}})",
       SchemaKeys(custom)},
      {"a custom backend's driver floor",
       R"({"format": 1, "backends": {"cu128x": {)" + custom_backend +
           R"(, "driver_floor": {"linux": "570.26", "zzz": "1"}}}})",
       SchemaKeys(custom.at("properties").at("driver_floor"))},
  };
  for (const auto& place : places) {
    EXPECT_EQ(KeysOffered(ErrorOf(place.file)), place.expected) << place.where << ": " << place.file;
  }
}

TEST(OverrideValidationTest, RefusesDuplicateKeysAndHugeNumbersWithTheirPlace) {
  EXPECT_EQ(ErrorOf(R"({"format": 1, "format": 1})"), "/etc/x/o.json: /format: the key is given twice");
  EXPECT_EQ(ErrorOf(R"({"format": 1, "backends": {"cu128": {"url": "https://a/", "url": "https://b/"}}})"),
            "/etc/x/o.json: /backends/cu128/url: the key is given twice");
  // 1e999999 aborted every command (exit 134, out_of_range.406).
  EXPECT_EQ(ErrorOf(R"({"format": 1, "mirror": 1e999999})"),
            "/etc/x/o.json: not valid JSON: number overflow parsing '1e999999'");
}

TEST(OverrideValidationTest, RefusesWhatWouldInjectLinesIntoAnExport) {
  EXPECT_EQ(ErrorOf("{\"format\": 1, \"mirror\": \"https://x/\\n--extra-index-url https://evil/\"}"),
            "/etc/x/o.json: /mirror: \"https://x/\\n--extra-index-url https://evil/\" contains a space or "
            "control character");
  EXPECT_EQ(ErrorOf(R"({"format": 1, "mirror": "http:///x"})"), "/etc/x/o.json: /mirror: \"http:///x\" has no host");
  for (const char* host : {"a b", "a\\nb", "", "evil/path", "-x"}) {
    const std::string error = ErrorOf(std::string(R"({"format": 1, "trusted_hosts": [")") + host + "\"]}");
    EXPECT_NE(error.find("/trusted_hosts/0: "), std::string::npos) << host << ": " << error;
  }
  EXPECT_TRUE(ParseOverrideFile(R"({"format": 1, "trusted_hosts": ["pypi.internal", "10.0.0.5:8080"]})", "o").ok());
}

TEST(OverrideValidationTest, ReportsEveryErrorOfAFile) {
  const std::string error =
      ErrorOf(R"({"format": 1, "mirorr": "x", "pin": {"torch": 3}, "trusted_hosts": ["a b"], "mirror": "ftp://x"})");
  for (const char* each : {"/mirorr: unknown key \"mirorr\" (did you mean \"mirror\"?)", "/mirror: expected an http",
                           "/pin/torch: expected a non-empty string", "/trusted_hosts/0: \"a b\" is not a host"}) {
    EXPECT_NE(error.find(each), std::string::npos) << each << " in:\n" << error;
  }
}

using Result = testing::CliResult;

class OverrideCliTest : public ::testing::Test {
 protected:
  fs::path dir_ = fs::temp_directory_path() / ("torchdex-ovr-" + std::to_string(::getpid()));
  void TearDown() override { fs::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& text) {
    fs::create_directories((dir_ / name).parent_path());
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }
  Result Select(std::vector<std::string> args, Environment env = {}) {
    args.insert(args.begin(), "select");
    return testing::RunTorchdex(args, std::move(env));
  }
};

TEST_F(OverrideCliTest, ConflictingPinsAreAnErrorWhateverTheOrder) {
  // They were settled by the order of the arguments, silently.
  const std::string pins = Write("pins.json", R"({"format": 1, "pin": {"torchvision": "cu126", "torchaudio": "cu128"}})");
  const Result ab = Select({"--catalogue", pins, "torchvision", "torchaudio"});
  const Result ba = Select({"--catalogue", pins, "torchaudio", "torchvision"});
  EXPECT_EQ(ab.code, kExitBadInputFile);
  EXPECT_EQ(ab.err, ba.err);
  EXPECT_NE(ab.err.find("torchaudio -> cu128 (" + pins + "), torchvision -> cu126 (" + pins + ")"),
            std::string::npos) << ab.err;
  // Pins that agree are fine; the user's own choice overrides them all.
  const std::string agree = Write("agree.json", R"({"format": 1, "pin": {"torchvision": "cu126", "torchaudio": "cu126"}})");
  EXPECT_EQ(Select({"--catalogue", agree, "torchvision", "torchaudio"}).code, kExitOk);
  EXPECT_EQ(Select({"--catalogue", pins, "--torch-backend", "cpu", "torchvision", "torchaudio"}).code, kExitOk);
}

TEST_F(OverrideCliTest, ABackendUrlForNoBackendIsATypo) {
  const std::string typo = Write("typo.json", R"({"format": 1, "backends": {"cu1288": {"url": "https://x/"}}})");
  const Result r = Select({"--catalogue", typo});
  EXPECT_EQ(r.code, kExitBadInputFile);
  EXPECT_NE(r.err.find(typo + ": /backends/cu1288: no backend \"cu1288\" (did you mean cu128?)"), std::string::npos)
      << r.err;
}

TEST_F(OverrideCliTest, ConfigFileKeysAreChecked) {
  Write("cfg/torchdex/config.json", R"({"torch_backen": "cu126"})");
  const Result r = Select({}, {{"XDG_CONFIG_HOME", (dir_ / "cfg").string()}});
  EXPECT_EQ(r.code, kExitBadInputFile);
  EXPECT_NE(r.err.find("config.json: /torch_backen: unknown key \"torch_backen\" (did you mean \"torch_backend\"?)"),
            std::string::npos) << r.err;
}

TEST_F(OverrideCliTest, CredentialsInAMirrorUrlAreNeverPrinted) {
  // catalogue check, plans, select --json and export headers printed "s3cret" (issue 13, B.11).
  const std::string mirror = Write("m.json", R"({"format": 1, "mirror": "http://user:s3cret@127.0.0.1:9/whl/"})");
  auto run = [&](const std::vector<std::string>& args) {
    const Result r = testing::RunTorchdex(args);
    return r.out + r.err;
  };
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"catalogue", "check", mirror},
           {"catalogue", "show", "--catalogue", mirror},
           {"select", "--catalogue", mirror, "--explain"},
           {"select", "--catalogue", mirror, "--json"},
           {"install", "--dry-run", "--offline", "--python", "/usr/bin/python3", "--catalogue", mirror, "torch"}}) {
    const std::string printed = run(args);
    EXPECT_EQ(printed.find("s3cret"), std::string::npos) << args[0] << " " << args[1] << ":\n" << printed;
    EXPECT_NE(printed.find("user:****@127.0.0.1:9"), std::string::npos) << args[0] << " " << args[1] << ":\n" << printed;
  }
  // An export is the user's own file: its index URL keeps the credentials it needs; its
  // comments do not show them.
  const std::string exported = run({"export", "--format", "uv", "--offline", "--python", "/usr/bin/python3",
                                    "--catalogue", mirror, "torch"});
  EXPECT_NE(exported.find("# chosen: cpu http://user:****@127.0.0.1:9/whl/cpu/"), std::string::npos) << exported;
  EXPECT_NE(exported.find("url = \"http://user:s3cret@127.0.0.1:9/whl/cpu/\""), std::string::npos) << exported;
}

}  // namespace
}  // namespace torchdex::installer
