// Every error code reaches the documented exit status through the command line (one test per
// code), and the table maps each code to its own status. docs/exit-codes.md lists them.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "installer/cli/exit_codes.h"
#include "installer/cli/run.h"
#include "installer/platform/clock.h"
#include "tests/installer/test_support.h"

namespace torchdex::installer {
namespace {

namespace fs = std::filesystem;
const fs::path kHosts = fs::path(TORCHDEX_FIXTURES_DIR) / "hosts";

// A fetcher whose every request fails as an unreachable server's does.
class UnreachableFetcher final : public index::Fetcher {
 public:
  void Run(std::vector<index::FetchRequest> initial, const OnResult& on_result,
           const OnProgress& = {}) override {
    while (!initial.empty()) {
      std::vector<index::FetchRequest> next;
      for (index::FetchRequest& request : initial) {
        index::FetchResult result;
        result.request = request;
        result.outcome = index::FetchOutcome::kFailed;
        result.error = "GET " + request.url + ": Couldn't connect to server (curl error 7)";
        for (index::FetchRequest& more : on_result(std::move(result))) next.push_back(std::move(more));
      }
      initial = std::move(next);
    }
  }
};

using Result = testing::CliResult;

Result Torchdex(const std::vector<std::string>& args, Environment env = {}) {
  UnreachableFetcher fetcher;
  return testing::RunTorchdex(args, std::move(env), &fetcher);
}

std::string Write(const fs::path& dir, const std::string& name, const std::string& text) {
  fs::create_directories(dir);
  std::ofstream(dir / name) << text;
  return (dir / name).string();
}

class ExitCodesTest : public ::testing::Test {
 protected:
  fs::path dir_ = fs::temp_directory_path() / ("torchdex-exit-" + std::to_string(::getpid()));
  void TearDown() override { fs::remove_all(dir_); }
};

TEST_F(ExitCodesTest, EachCodeHasItsOwnStatus) {
  std::set<int> statuses;
  for (core::ErrorCode code : {core::ErrorCode::kUsage, core::ErrorCode::kBadEnvironment,
                               core::ErrorCode::kNotOffered, core::ErrorCode::kBadInputFile,
                               core::ErrorCode::kNetwork}) {
    EXPECT_TRUE(statuses.insert(ExitStatus(code)).second) << static_cast<int>(code);
  }
  EXPECT_EQ(ExitStatus(core::ErrorCode::kFailure), kExitFailure);
  EXPECT_EQ(statuses.count(kExitFailure), 0u);
}

TEST_F(ExitCodesTest, Usage) {
  EXPECT_EQ(Torchdex({"select", "--frobnicate"}).code, kExitUsage);
  EXPECT_EQ(Torchdex({"select", "--torch-backend", "cu1288"}).code, kExitUsage);
  // A described target that is no Python version (exit 1 before).
  const Result python = Torchdex({"select", "--python-version", "3.x"});
  EXPECT_EQ(python.code, kExitUsage) << python.err;
  EXPECT_NE(python.err.find("--python-version 3.x"), std::string::npos) << python.err;
  // A requirement that does not parse, on the command line and in a -r file.
  EXPECT_EQ(Torchdex({"select", "torch>=="}).code, kExitUsage);
  // Spellings pip normalises reached it as written and installed from the default index
  // (issue 13, A.2): each is parsed once and refused.
  for (const char* spelling : {"torch ;", "torch ; ", "torch\r", "torch\f", "torch\v"}) {
    const Result r = Torchdex({"install", "--dry-run", "--offline", "--python", "/usr/bin/python3", spelling});
    EXPECT_EQ(r.code, kExitUsage) << spelling << ": " << r.err;
    EXPECT_NE(r.err.find("invalid requirement"), std::string::npos) << r.err;
  }
  const std::string dashed = Write(dir_, "dashed.txt", "-e .\n");
  EXPECT_EQ(Torchdex({"install", "--dry-run", "--offline", "--python", "/usr/bin/python3", "-r", dashed}).code,
            kExitUsage);
  const std::string file = Write(dir_, "req.txt", "torch\n--extra-index-url https://x/\n");
  const Result option = Torchdex({"install", "--dry-run", "--offline", "--python", "/usr/bin/python3", "-r", file});
  EXPECT_EQ(option.code, kExitUsage) << option.err;  // exit 1 before
  // An option after -- that would put an index beside the routing index (no routed
  // requirement: nothing to read, so the plan is made without the network).
  const Result index = Torchdex({"install", "--dry-run", "--python", "/usr/bin/python3",
                                 "--torch-backend", "cpu", "--index-url", "https://pypi.org/simple/",
                                 "numpy", "--", "--extra-index-url", "https://x/"});
  EXPECT_EQ(index.code, kExitUsage) << index.err;
  EXPECT_NE(index.err.find("\"--extra-index-url\" after --"), std::string::npos) << index.err;
}

TEST_F(ExitCodesTest, BadEnvironment) {
  // A malformed override variable: 3 from detect, and now from select too (it was 1).
  const Environment env = {{"TORCHDEX_CUDA_ARCH", "x.y"}};
  EXPECT_EQ(Torchdex({"detect", "--root", (kHosts / "linux-no-gpu").string()}, env).code, kExitBadOverride);
  const Result select = Torchdex({"select", "--root", (kHosts / "linux-no-gpu").string()}, env);
  EXPECT_EQ(select.code, kExitBadOverride) << select.err;
  EXPECT_NE(select.err.find("TORCHDEX_CUDA_ARCH"), std::string::npos);
}

TEST_F(ExitCodesTest, NotOffered) {
  // A named backend without the version asked (exit 1 before).
  const Result named = Torchdex({"select", "--torch-backend", "cu126", "torch==2.3.1"});
  EXPECT_EQ(named.code, kExitNoBackend) << named.err;
  // Nothing qualifies on an automatic choice: the status, and why on stderr (it said nothing).
  const Result none = Torchdex({"select", "--root", (kHosts / "linux-no-gpu").string(), "torch==1.0.0"});
  EXPECT_EQ(none.code, kExitNoBackend);
  EXPECT_NE(none.err.find("no backend offers what was asked for any CPython 3.9-3.14 on linux x86_64: "
                          "torch==1.0.0 is offered (1.0.0), but not for"), std::string::npos) << none.err;
  const Result python = Torchdex({"select", "--root", (kHosts / "linux-no-gpu").string(), "--python-version", "3.15"});
  EXPECT_EQ(python.code, kExitNoBackend);
  EXPECT_NE(python.err.find("not for CPython 3.15 on linux x86_64"), std::string::npos) << python.err;
  // install: the named backend does not offer it either (exit 1 before).
  const Result install = Torchdex({"install", "--dry-run", "--offline", "--python", "/usr/bin/python3",
                              "--torch-backend", "cu126", "torch==2.3.1"});
  EXPECT_EQ(install.code, kExitNoBackend) << install.err;
}

TEST_F(ExitCodesTest, BadInputFile) {
  const std::string broken = Write(dir_, "broken.json", "{\"format\": 1,\n  \"mirror\": }");
  EXPECT_EQ(Torchdex({"select", "--catalogue", broken}).code, kExitBadInputFile);
  EXPECT_EQ(Torchdex({"catalogue", "check", broken}).code, kExitBadInputFile);
  const Result missing = Torchdex({"install", "--dry-run", "--offline", "--python", "/usr/bin/python3", "-r",
                              (dir_ / "absent.txt").string()});
  EXPECT_EQ(missing.code, kExitBadInputFile) << missing.err;
  // A directory is not an empty requirements file (a lock made from it would lock nothing), and
  // an endless one is not read without end.
  for (const std::string& not_a_file : {dir_.string(), std::string("/dev/zero")}) {
    const Result odd = Torchdex({"install", "--dry-run", "--offline", "--python", "/usr/bin/python3", "-r", not_a_file});
    EXPECT_EQ(odd.code, kExitBadInputFile) << not_a_file << ": " << odd.err;
    EXPECT_NE(odd.err.find("-r " + not_a_file + ": "), std::string::npos) << odd.err;
  }
  // The user's config file.
  const std::string config = (dir_ / "config").string();
  Write(dir_ / "config" / "torchdex", "config.json", "[1, 2]");
  const Result bad_config = Torchdex({"select"}, {{"XDG_CONFIG_HOME", config}});
  EXPECT_EQ(bad_config.code, kExitBadInputFile) << bad_config.err;
  EXPECT_NE(bad_config.err.find("config.json: not a JSON object"), std::string::npos) << bad_config.err;
}

TEST_F(ExitCodesTest, Network) {
  const Result r = Torchdex({"install", "--dry-run", "--python", "/usr/bin/python3", "--torch-backend", "cpu", "torch"});
  EXPECT_EQ(r.code, kExitNetwork) << r.err;
  EXPECT_NE(r.err.find("Couldn't connect to server"), std::string::npos) << r.err;
}

TEST_F(ExitCodesTest, HelpSaysWhatEachCommandDoes) {
  // detect documented exit 4, which it never uses; catalogue showed its internal --action;
  // export offered --offline "with --dry-run", which it refuses (issue 13, D.16).
  const std::string detect = HelpText("detect");
  EXPECT_NE(detect.find("3 malformed override"), std::string::npos);
  EXPECT_EQ(detect.find("4 no backend"), std::string::npos) << detect;
  EXPECT_EQ(HelpText("catalogue").find("--action"), std::string::npos);
  EXPECT_EQ(HelpText("select").find("--requirement"), std::string::npos);
  const std::string exported = HelpText("export");
  EXPECT_NE(exported.find("--offline"), std::string::npos);
  EXPECT_EQ(exported.find("with --dry-run"), std::string::npos) << exported;
  EXPECT_NE(HelpText("install").find("installer's own status"), std::string::npos);
  // A bad number is shown as given, not as "-1.000000".
  const Result timeout = Torchdex({"detect", "--probe-timeout", "-1"});
  EXPECT_EQ(timeout.code, kExitUsage);
  EXPECT_NE(timeout.err.find("got -1\n"), std::string::npos) << timeout.err;
}

TEST_F(ExitCodesTest, InstallAndExportPrintThePlanAsJson) {
  // There was no --json for them (issue 13, D.16).
  const std::unique_ptr<ProcessRunner> runner = MakeSystemProcessRunner();
  const SteadyClock clock;
  const Environment env = {{"PATH", "/usr/bin:/bin"}};
  Deps deps{env, *runner, clock};
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"install", "--dry-run", "--offline", "--json"},
        std::vector<std::string>{"export", "--offline", "--json"}}) {
    std::vector<std::string> all = args;
    for (const char* a : {"--python", "/usr/bin/python3", "--torch-backend", "cpu", "torch[opt-einsum]", "numpy"}) {
      all.emplace_back(a);
    }
    std::ostringstream out, err;
    ASSERT_EQ(Main(all, deps, out, err), kExitOk) << err.str();
    const nlohmann::json doc = nlohmann::json::parse(out.str(), nullptr, false);
    ASSERT_FALSE(doc.is_discarded()) << out.str();
    EXPECT_EQ(doc["backend"], "cpu");
    EXPECT_EQ(doc["forced_by"], "--torch-backend");
    ASSERT_EQ(doc["routed"].size(), 1u);
    EXPECT_EQ(doc["routed"][0]["name"], "torch");
    EXPECT_EQ(doc["routed"][0]["extras"], nlohmann::json::array({"opt-einsum"}));
    EXPECT_EQ(doc["other"], nlohmann::json::array({"numpy"}));
  }
  EXPECT_EQ(Torchdex({"install", "--json", "torch"}).code, kExitUsage);  // the plan needs --dry-run
}

}  // namespace
}  // namespace torchdex::installer
