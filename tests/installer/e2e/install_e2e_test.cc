// End to end: a PyTorch-style index and a PyPI-style default index of tiny but valid wheels
// (make_index.py), served by a real nginx on 127.0.0.1; a real venv made by the system python3
// with its bundled pip (offline); the planner over the real curl fetcher; the real pip.
// The venv is made once and copied for each test that installs (a copy of a venv works when
// run through its own bin/python, which is all these tests do).
// The routing index's tests (issue 13 A.1) run `torchdex install` in process with the pinned
// pip 26.3 and uv 0.13.9 of the tools venv, for packages of the default index that reach torch
// and triton only through their dependencies, and read nginx's access log: no request for a
// routed name on the default index, the backend's pages read by torchdex, its wheels by the
// installer.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "index/fetcher.h"
#include "installer/cli/run.h"
#include "installer/platform/clock.h"
#include "installer/platform/process_runner.h"
#include "installer/install/export.h"
#include "installer/install/pip_command.h"
#include "installer/install/plan.h"
#include "installer/python/interpreter.h"
#include "tests/support/fault_server.h"
#include "tests/installer/e2e/e2e_support.h"
#include "tests/support/nginx.h"

namespace torchdex::installer {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

const char* const kPython = TORCHDEX_TEST_PYTHON;
const char* const kMakeIndex = TORCHDEX_MAKE_INDEX_SCRIPT;
const char* const kToolsBin = TORCHDEX_TOOLS_BIN_DIR;  // pip 26.3 and uv 0.13.9
constexpr std::chrono::seconds kChildTimeout{120};

const auto& ReadText = e2e::ReadBytes;
const auto& WriteText = e2e::WriteBytes;

using e2e::Output;

// A connection to 127.0.0.1:port is refused.
bool PortClosed(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  const bool refused = ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 &&
                       errno == ECONNREFUSED;
  ::close(fd);
  return refused;
}

int RoutingPortAfter(const std::string& out, const std::string& marker);

// The routing index's port, from "running: PIP_INDEX_URL=http://127.0.0.1:PORT/<token>/simple/ ..."
// (UV_DEFAULT_INDEX= for uv).
int RoutingPort(const std::string& out) {
  const std::string marker = "_INDEX_URL='http://127.0.0.1:", uv_marker = "_DEFAULT_INDEX='http://127.0.0.1:";
  if (out.find(marker) == std::string::npos) return RoutingPortAfter(out, uv_marker);
  return RoutingPortAfter(out, marker);
}

int RoutingPortAfter(const std::string& out, const std::string& marker) {
  const size_t at = out.find(marker);
  return at == std::string::npos ? 0 : std::stoi(out.substr(at + marker.size()));
}

class InstallE2eTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const fs::path root = e2e::MakeTempRoot("install-e2e");
    ASSERT_FALSE(root.empty());
    root_ = new fs::path(root);
    runner_ = MakeSystemProcessRunner().release();
    // Children see only this: no user pip config, find-links or cache from the machine.
    env_ = new Environment(e2e::ChildEnvironment(root));

    Output index = RunChild({kPython, kMakeIndex, (*root_ / "index").string()});
    ASSERT_EQ(index.exit_code, 0) << index.err;
    // A backend whose page has a wrong sha256 for torch 2.5.1 (a re-uploaded wheel,
    // pytorch/pytorch#110847); its links point at the good cu124 files.
    fs::copy(*root_ / "index/whl/cu124", *root_ / "index/whl/cu124-bad",
             fs::copy_options::recursive);
    const fs::path bad_page = *root_ / "index/whl/cu124-bad/torch/index.html";
    std::string page = ReadText(bad_page);
    const size_t at = page.find("#sha256=") + 8;
    page.replace(at, 64, std::string(64, 'f'));
    WriteText(bad_page, page);

    auto nginx = testing::Nginx::Start(*root_ / "index");
    ASSERT_TRUE(nginx.ok()) << nginx.error().message;
    nginx_ = nginx->release();

    Output venv = RunChild({kPython, "-m", "venv", (*root_ / "base-venv").string()});
    ASSERT_EQ(venv.exit_code, 0) << venv.out << venv.err;
    auto python = QueryInterpreter((*root_ / "base-venv/bin/python").string(), *runner_, *env_,
                                   std::chrono::seconds(30));
    ASSERT_TRUE(python.ok()) << python.error().message;
    interpreter_ = new Interpreter(std::move(*python));
    MakePip26Venv();
  }

  // base-venv-pip26: a venv without the bundled pip, given the tools venv's pinned pip (a
  // pure-Python package, copied; the same Python), since the tests have no network to install
  // it with.
  static void MakePip26Venv() {
    ASSERT_EQ(e2e::MakeVenvWithPinnedPip(*root_ / "base-venv-pip26", kPython, kToolsBin, *runner_, *env_), "");
  }

  static void TearDownTestSuite() {
    delete nginx_;
    delete interpreter_;
    delete env_;
    delete runner_;
    if (root_ != nullptr) {
      std::error_code ignored;
      fs::remove_all(*root_, ignored);
    }
    delete root_;
  }

  void SetUp() override {
    // A failure in SetUpTestSuite leaves these unset; every test would crash on them.
    if (nginx_ == nullptr || interpreter_ == nullptr) GTEST_SKIP() << "suite setup failed";
  }

  static Output RunChild(const std::vector<std::string>& argv, const Environment* env = nullptr) {
    return e2e::RunChild(*runner_, argv, env ? *env : *env_, kChildTimeout);
  }

  // A fresh venv: a copy of the base one (Debian's bundled pip), or of the one with pip 26.3.
  static std::string NewVenv(const std::string& name, const std::string& base = "base-venv") {
    return e2e::CopyVenv(*root_, name, base);
  }

  static PlanRequest Request(const std::string& backend_path, std::vector<std::string> routed,
                             std::vector<std::string> other = {}) {
    PlanRequest request;
    for (const std::string& text : routed) {
      request.routed.push_back(*core::Requirement::Parse(text));
    }
    for (const std::string& text : other) request.other.push_back({*core::Requirement::Parse(text), text});
    request.routed_projects = {"torch", "torchvision", "torchaudio", "triton", "pytorch-triton"};
    request.backend = backend_path.substr(backend_path.rfind('/', backend_path.size() - 2) + 1);
    if (!request.backend.empty() && request.backend.back() == '/') request.backend.pop_back();
    request.backend_index_url = nginx_->Url(backend_path);
    request.default_index_url = nginx_->Url("/simple/");
    request.supported_tags = core::SupportedTags(interpreter_->info);
    request.markers = interpreter_->markers;
    request.target_description = interpreter_->description;
    return request;
  }

  static core::Expected<InstallPlan> Plan(const PlanRequest& request) {
    index::FetchOptions options;
    options.max_attempts = 2;
    options.backoff_initial_s = 0.05;
    options.connect_timeout_s = 5;
    std::unique_ptr<index::Fetcher> fetcher = index::MakeCurlFetcher(options);
    return MakePlan(request, fetcher.get());
  }

  static Output Install(const InstallPlan& plan, const std::string& python) {
    auto argv = InstallCommand(plan, {InstallerKind::kPip, python, "", {}});
    if (!argv) return {-1, "", argv.error().message};
    std::ostringstream out, err;
    const int code = ExecuteInstall(*argv, *runner_, *env_, out, err);
    return {code, out.str(), err.str()};
  }

  // name -> version of every distribution in the venv but pip and setuptools.
  static std::map<std::string, std::string> Installed(const std::string& python) {
    Output listed =
        RunChild({python, "-c",
                  "import importlib.metadata as m, json\n"
                  "print(json.dumps({d.metadata['Name']: d.version for d in m.distributions()}))"});
    EXPECT_EQ(listed.exit_code, 0) << listed.err;
    std::map<std::string, std::string> installed;
    const nlohmann::json listing = nlohmann::json::parse(listed.out);
    for (const auto& [name, version] : listing.items()) {
      if (name != "pip" && name != "setuptools") installed[name] = version.get<std::string>();
    }
    return installed;
  }

  // One line of nginx's access log (tests/support/nginx.h).
  struct Logged {
    std::string status;
    std::string path;
    std::string agent;  // "torchdex/...", "pip/26.3 {...}", "uv/0.13.9 ..."
  };

  // The requests nginx logged after the first `skip` bytes of its log.
  static std::vector<Logged> LoggedSince(size_t skip) {
    std::vector<Logged> logged;
    std::istringstream log(nginx_->AccessLog().substr(skip));
    for (std::string line; std::getline(log, line);) {
      std::istringstream fields(line);
      std::string connection, number, status, method, path;
      fields >> connection >> number >> status >> method >> path;
      const size_t agent = line.rfind(" \"");
      logged.push_back(
          {status, path,
           agent == std::string::npos ? "" : line.substr(agent + 2, line.size() - agent - 3)});
    }
    return logged;
  }

  static std::vector<std::string> RequestedPaths() {
    std::vector<std::string> paths;
    std::istringstream log(nginx_->AccessLog());
    for (std::string line; std::getline(log, line);) {
      const size_t get = line.find("\"GET ");
      if (get == std::string::npos) continue;
      paths.push_back(line.substr(get + 5, line.find(' ', get + 5) - get - 5));
    }
    return paths;
  }

  // The routing index (issue 13 A.1): routed names reached through dependencies.
  // `torchdex install` in process: the backend through a mirror override pointing at nginx;
  // the default index nginx's /simple/, given by --index-url or, when `by_flag` is false, by
  // the installer's own setting in `env`; pip 26.3 in a fresh venv, or the tools venv's uv.
  static Output Torchdex(const std::string& python, const std::string& installer,
                         const std::string& backend, const std::vector<std::string>& requirements,
                         bool by_flag, const Environment& env) {
    const fs::path overrides = *root_ / "routing-mirror.json";
    WriteText(overrides, "{\"format\": 1, \"mirror\": \"" + nginx_->Url("/whl/") + "\"}\n");
    std::vector<std::string> args = {"install",     "--python",    python,
                                     "--installer", installer,     "--torch-backend",
                                     backend,       "--catalogue", overrides.string()};
    if (by_flag) {
      args.push_back("--index-url");
      args.push_back(nginx_->Url("/simple/"));
    }
    args.insert(args.end(), requirements.begin(), requirements.end());
    return e2e::RunTorchdex(args, env, *runner_);
  }

  // The environment of a run: the suite's, with the tools venv first on PATH (FindUv) and a
  // uv cache and no uv configuration of the machine's.
  static Environment RunEnvironment(const std::string& name) {
    Environment env = *env_;
    env["PATH"] = std::string(kToolsBin) + ":" + env["PATH"];
    env["UV_CACHE_DIR"] = (*root_ / ("uv-cache-" + name)).string();
    env["UV_NO_CONFIG"] = "1";
    env["UV_PYTHON_DOWNLOADS"] = "never";
    return env;
  }

  // What every run must show in nginx's log: no routed name asked of the default index,
  // ever; and, for the names given, the routing index (torchdex's agent) reading the backend's
  // page, and the installer downloading the backend's wheel itself.
  static void ExpectRoutedFromTheBackendOnly(const std::vector<Logged>& logged,
                                             const std::string& installer,
                                             const std::vector<std::string>& backend_pages,
                                             const std::string& wheel) {
    std::string log;
    for (const Logged& line : logged) {
      log += line.status + " " + line.path + " " + line.agent.substr(0, 16) + "\n";
      for (const char* routed : {"/simple/torch", "/simple/triton"}) {
        EXPECT_NE(line.path.rfind(routed, 0), 0u) << line.path << " asked of the default index";
      }
    }
    auto logged_by = [&](const std::string& path, const std::string& agent) {
      for (const Logged& line : logged) {
        if (line.path == path && line.agent.rfind(agent, 0) == 0 && line.status == "200") {
          return true;
        }
      }
      return false;
    };
    for (const std::string& page : backend_pages) {
      EXPECT_TRUE(logged_by(page, "torchdex/")) << page << " not read by torchdex:\n" << log;
    }
    EXPECT_TRUE(logged_by(wheel, installer + "/"))
        << wheel << " not downloaded by " << installer << ":\n"
        << log;
    // The other names went through the routing index to the default index.
    EXPECT_TRUE(logged_by("/simple/needs-torch/", "torchdex/")) << log;
  }

  void TransitiveRunOf(const std::string& installer) {
    const std::string python = NewVenv("venv-transitive-" + installer, "base-venv-pip26");
    const size_t log_start = nginx_->AccessLog().size();
    const Output run = Torchdex(python, installer, "cu124", {"needs-needs-torch"}, true,
                                RunEnvironment(installer));
    ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
    // torch 2.6.0+cu124 is the backend's newest; its triton==3.2.0 comes from the backend too.
    EXPECT_EQ(Installed(python),
              (std::map<std::string, std::string>{{"torch", "2.6.0+cu124"},
                                                  {"triton", "3.2.0"},
                                                  {"filelock", "3.16.1"},
                                                  {"needs-torch", "1.0"},
                                                  {"needs-needs-torch", "1.0"}}));
    EXPECT_THAT(run.out, HasSubstr("routing index: torch, triton from backend cu124 (" +
                                   nginx_->Url("/whl/cu124/") + ")\n"));
    EXPECT_THAT(run.out, HasSubstr("routing index: filelock, needs-needs-torch, needs-torch from "
                                   "the default index (" +
                                   nginx_->Url("/simple/") + ")\n"));
    ExpectRoutedFromTheBackendOnly(LoggedSince(log_start), installer,
                                   {"/whl/cu124/torch/", "/whl/cu124/triton/"},
                                   "/whl/cu124/torch-2.6.0%2Bcu124-py3-none-any.whl");
    // The routing index lived for the run only.
    const int port = RoutingPort(run.out);
    ASSERT_GT(port, 0) << run.out;
    EXPECT_TRUE(PortClosed(port)) << port;
  }

  // torch asked directly as well (pinned by URL and hash), the default index named by the
  // installer's own setting instead of --index-url, the cpu backend.
  void DirectAndTransitiveRunOf(const std::string& installer) {
    const std::string python = NewVenv("venv-direct-" + installer, "base-venv-pip26");
    Environment env = RunEnvironment(installer + "-direct");
    env[installer == "pip" ? "PIP_INDEX_URL" : "UV_INDEX_URL"] = nginx_->Url("/simple/");
    const size_t log_start = nginx_->AccessLog().size();
    const Output run = Torchdex(python, installer, "cpu", {"torch", "needs-torch"}, false, env);
    ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
    EXPECT_EQ(Installed(python),
              (std::map<std::string, std::string>{
                  {"torch", "2.5.1+cpu"}, {"filelock", "3.16.1"}, {"needs-torch", "1.0"}}));
    EXPECT_THAT(run.out, HasSubstr("'torch @ " + nginx_->Url("/whl/cpu/torch-2.5.1%2Bcpu")));
    EXPECT_THAT(run.out, HasSubstr("from the default index (" + nginx_->Url("/simple/") + ")"));
    ExpectRoutedFromTheBackendOnly(LoggedSince(log_start), installer, {"/whl/cpu/torch/"},
                                   "/whl/cpu/torch-2.5.1%2Bcpu-py3-none-any.whl");
    EXPECT_TRUE(PortClosed(RoutingPort(run.out)));
  }

  static inline fs::path* root_ = nullptr;
  static inline ProcessRunner* runner_ = nullptr;
  static inline Environment* env_ = nullptr;
  static inline testing::Nginx* nginx_ = nullptr;
  static inline Interpreter* interpreter_ = nullptr;
};

TEST_F(InstallE2eTest, InstallsTheCu124BuildAndTakesOnlyTheRestFromTheDefaultIndex) {
  auto plan = Plan(Request("/whl/cu124/", {"torch==2.5.1", "torchvision"}, {"typing-extensions"}));
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_TRUE(plan->warnings.empty()) << FormatPlan(*plan);
  const std::string python = NewVenv("venv-cu124");
  const Output result = Install(*plan, python);
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_EQ(Installed(python),
            (std::map<std::string, std::string>{{"torch", "2.5.1+cu124"},
                                                {"torchvision", "0.20.1+cu124"},
                                                {"triton", "3.1.0"},  // torch's routed dependency
                                                {"filelock", "3.16.1"},
                                                {"typing-extensions", "4.12.2"}}));
  // Routed names were never looked up on the default index, which has torch 9.9.9 and
  // triton 9.9.9; the others came from it.
  const std::vector<std::string> paths = RequestedPaths();
  for (const std::string& path : paths) {
    EXPECT_THAT(path, Not(HasSubstr("/simple/torch"))) << path;
    EXPECT_THAT(path, Not(HasSubstr("/simple/triton"))) << path;
  }
  EXPECT_THAT(paths, ::testing::Contains(HasSubstr("/simple/filelock/")));
}

TEST_F(InstallE2eTest, ARoutedNameWithAHigherVersionOnTheDefaultIndexIsNotTaken) {
  // The bait works: pip with the backend as an extra index takes torch 9.9.9 from the default.
  const std::string report = (*root_ / "confusion.json").string();
  const Output pip =
      RunChild({(*root_ / "base-venv/bin/python").string(), "-m", "pip", "install", "--dry-run",
                "--quiet", "--report", report, "--index-url", nginx_->Url("/simple/"),
                "--extra-index-url", nginx_->Url("/whl/cu124/"), "torch"});
  ASSERT_EQ(pip.exit_code, 0) << pip.err;
  std::string pip_torch;
  const nlohmann::json confusion = nlohmann::json::parse(ReadText(report));
  for (const auto& item : confusion["install"]) {
    if (item["metadata"]["name"] == "torch") pip_torch = item["metadata"]["version"];
  }
  EXPECT_EQ(pip_torch, "9.9.9");

  // The planner only ever reads the backend for routed names.
  auto plan = Plan(Request("/whl/cu124/", {"torch"}));
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  ASSERT_EQ(plan->routed.size(), 2u);
  EXPECT_EQ(plan->routed[0].name, "torch");
  EXPECT_EQ(plan->routed[0].version, "2.6.0+cu124");
  EXPECT_EQ(plan->routed[1].name, "triton");
  EXPECT_EQ(plan->routed[1].version, "3.2.0");
  for (const PlannedWheel& wheel : plan->routed) {
    EXPECT_THAT(wheel.url, HasSubstr("/whl/cu124/"));
  }
}

TEST_F(InstallE2eTest, AnExplicitCpuBackendGivesTheCpuBuild) {
  auto plan = Plan(Request("/whl/cpu/", {"torch", "torchvision"}));
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  // The cpu torchvision anchor has no #sha256 (index-format.md quirk 1): said, and installed.
  ASSERT_EQ(plan->warnings.size(), 1u) << FormatPlan(*plan);
  EXPECT_THAT(plan->warnings[0], HasSubstr("torchvision-0.20.1+cpu-py3-none-any.whl: the page"));
  EXPECT_THAT(FormatPlan(*plan), HasSubstr("sha256: none on the page (not verified)"));
  const std::string python = NewVenv("venv-cpu");
  const Output result = Install(*plan, python);
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_EQ(Installed(python),
            (std::map<std::string, std::string>{
                {"torch", "2.5.1+cpu"}, {"torchvision", "0.20.1+cpu"}, {"filelock", "3.16.1"}}));
}

TEST_F(InstallE2eTest, AWrongHashOnThePageFailsAndInstallsNothing) {
  auto plan = Plan(Request("/whl/cu124-bad/", {"torch==2.5.1"}));
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  ASSERT_EQ(plan->routed[0].sha256, std::string(64, 'f'));
  const std::string python = NewVenv("venv-bad-hash");
  const Output result = Install(*plan, python);
  EXPECT_NE(result.exit_code, 0);
  EXPECT_THAT(result.err, HasSubstr("DO NOT MATCH THE HASHES"));
  EXPECT_THAT(result.err,
              HasSubstr("torchdex: a downloaded wheel does not match the sha256 on the backend "
                        "page; nothing was installed"));
  EXPECT_TRUE(Installed(python).empty());
}

TEST_F(InstallE2eTest, AnInterpreterWithoutPipIsAClearErrorWithItsExitCode) {
  const fs::path venv = *root_ / "venv-without-pip";
  ASSERT_EQ(RunChild({"/usr/bin/python3", "-m", "venv", "--without-pip", venv.string()}).exit_code, 0);
  const std::string python = (venv / "bin/python").string();
  auto plan = Plan(Request("/whl/cu124/", {"torch==2.5.1"}));
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  const Output r = Install(*plan, python);
  EXPECT_EQ(r.exit_code, 1) << r.err;  // python -m pip: "No module named pip", exit 1
  EXPECT_THAT(r.err, HasSubstr("torchdex: " + python + " has no pip; add it (" + python +
                               " -m ensurepip) or use --installer uv"));
  EXPECT_THAT(r.err, HasSubstr("exited with 1"));
}

TEST_F(InstallE2eTest, UnreachableForbiddenAndMissingGiveClearErrors) {
  // Nothing listens on a port that was just closed.
  testing::FaultServer* closed = new testing::FaultServer();
  const std::string dead = closed->Url("/whl/cu124/");
  delete closed;
  PlanRequest request = Request("/whl/cu124/", {"torch"});
  request.backend_index_url = dead;
  auto unreachable = Plan(request);
  ASSERT_FALSE(unreachable.ok());
  EXPECT_THAT(unreachable.error().message, HasSubstr("cannot read the cu124 page of torch: "));
  EXPECT_THAT(unreachable.error().message, HasSubstr(dead + "torch/"));

  testing::FaultServer server;
  server.Script("/whl/cu124/torch/",
                {testing::FaultResponse::Status(403, "<Error><Code>AccessDenied</Code></Error>")});
  request.backend_index_url = server.Url("/whl/cu124/");
  auto forbidden = Plan(request);
  ASSERT_FALSE(forbidden.ok());
  EXPECT_THAT(forbidden.error().message,
              HasSubstr("backend cu124 has no page for torch: " + server.Url("/whl/cu124/torch/") +
                        " answered 403"));

  auto missing = Plan(Request("/whl/cu124/", {"torch==2.7.0"}));
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.error().message,
              HasSubstr("no version of torch on backend cu124 (" +
                        nginx_->Url("/whl/cu124/torch/") + ") for " + interpreter_->description +
                        " matches: you asked torch==2.7.0 (there: 2.6.0+cu124, 2.5.1+cu124)"));

  auto conflict = Plan(Request("/whl/cu124/", {"torch>=2.6", "torchvision==0.20.1"}));
  ASSERT_FALSE(conflict.ok());
  EXPECT_THAT(conflict.error().message,
              HasSubstr("torchvision 0.20.1+cu124 needs torch==2.5.1; you asked torch>=2.6"));
}

TEST_F(InstallE2eTest, NightlyTorchBringsItsPytorchTritonFromTheNightlyBackend) {
  PlanRequest request = Request("/whl/nightly/cu124/", {"torch"});
  request.prereleases = core::Prereleases::kAllow;
  auto plan = Plan(request);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  ASSERT_EQ(plan->routed.size(), 2u);
  EXPECT_EQ(plan->routed[0].name, "pytorch-triton");
  EXPECT_EQ(plan->routed[0].version, "3.2.0+git0d4682f0");
  EXPECT_EQ(plan->routed[1].version, "2.6.0.dev20241112+cu124");
  EXPECT_EQ(plan->warnings.size(), 2u);  // no sha256 on nightly pages, one warning per wheel
}

TEST_F(InstallE2eTest, PipReadsTheExportedRequirementsFile) {
  auto plan = Plan(Request("/whl/cu124/", {"torch==2.5.1", "torchvision"}, {"typing-extensions"}));
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  auto text = Export(*plan, ExportFormat::kRequirements,
                     {{"detected: a test host", "chosen: cu124 (named on the command line)"}});
  ASSERT_TRUE(text.ok()) << text.error().message;
  const fs::path file = *root_ / "requirements.txt";
  WriteText(file, *text);
  const std::string report = (*root_ / "report.json").string();
  const Output pip = RunChild({(*root_ / "base-venv/bin/python").string(), "-m", "pip", "install",
                               "--dry-run", "--quiet", "--report", report, "-r", file.string()});
  ASSERT_EQ(pip.exit_code, 0) << pip.out << pip.err << *text;
  std::map<std::string, std::string> would_install;
  const nlohmann::json report_json = nlohmann::json::parse(ReadText(report));
  for (const auto& item : report_json["install"]) {
    would_install[item["metadata"]["name"]] = item["metadata"]["version"];
  }
  EXPECT_EQ(would_install, (std::map<std::string, std::string>{{"torch", "2.5.1+cu124"},
                                                               {"torchvision", "0.20.1+cu124"},
                                                               {"triton", "3.1.0"},
                                                               {"filelock", "3.16.1"},
                                                               {"typing-extensions", "4.12.2"}}));
}

TEST_F(InstallE2eTest, TheUvExportIsValidToml) {
  auto plan = Plan(Request("/whl/cu124/", {"torch==2.5.1", "torchvision"}));
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  auto text = Export(*plan, ExportFormat::kUv, {{"chosen: cu124"}});
  ASSERT_TRUE(text.ok());
  const fs::path file = *root_ / "pyproject-fragment.toml";
  WriteText(file, *text);
  const Output parsed = RunChild(
      {kPython, "-c",
       "import json, sys, tomllib\nprint(json.dumps(tomllib.load(open(sys.argv[1], 'rb'))))",
       file.string()});
  ASSERT_EQ(parsed.exit_code, 0) << parsed.err << *text;
  const nlohmann::json toml = nlohmann::json::parse(parsed.out);
  const nlohmann::json& uv = toml["tool"]["uv"];
  ASSERT_EQ(uv["index"].size(), 1u);
  EXPECT_EQ(uv["index"][0]["name"], "pytorch-cu124");
  EXPECT_EQ(uv["index"][0]["url"], nginx_->Url("/whl/cu124/"));
  EXPECT_EQ(uv["index"][0]["explicit"], true);
  EXPECT_EQ(uv["sources"], nlohmann::json::parse(R"({"torch": {"index": "pytorch-cu124"},
      "torchvision": {"index": "pytorch-cu124"}, "triton": {"index": "pytorch-cu124"}})"));
}

TEST_F(InstallE2eTest, PipReadsTheExportedPipConf) {
  auto plan = Plan(Request("/whl/cu124/", {"torch"}));
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  auto text = Export(*plan, ExportFormat::kPipConf, {});
  ASSERT_TRUE(text.ok());
  const fs::path file = *root_ / "pip.conf";
  WriteText(file, *text);
  Environment env = *env_;
  env["PIP_CONFIG_FILE"] = file.string();
  const Output config =
      RunChild({(*root_ / "base-venv/bin/python").string(), "-m", "pip", "config", "list"}, &env);
  ASSERT_EQ(config.exit_code, 0) << config.err;
  EXPECT_THAT(config.out, HasSubstr("global.index-url='" + nginx_->Url("/whl/cu124/") + "'"));
}

// The command line, in process, with a mirror override pointing at nginx: `--torch-backend cu124`
// reads the loopback copy, and the default index is the loopback PyPI.
TEST_F(InstallE2eTest, TheInstallAndExportCommandsRunThePlan) {
  const fs::path overrides = *root_ / "mirror.json";
  WriteText(overrides, "{\"format\": 1, \"mirror\": \"" + nginx_->Url("/whl/") + "\"}\n");
  const std::string python = NewVenv("venv-cli");
  e2e::ZeroClock clock;
  Deps deps{*env_, *runner_, clock};
  const std::vector<std::string> choice = {
      "--python",         python,        "--torch-backend",      "cu124", "--catalogue",
      overrides.string(), "--index-url", nginx_->Url("/simple/")};
  auto with = [&](std::vector<std::string> head, std::vector<std::string> tail) {
    head.insert(head.end(), choice.begin(), choice.end());
    head.insert(head.end(), tail.begin(), tail.end());
    return head;
  };

  std::ostringstream dry_out, dry_err;
  ASSERT_EQ(Main(with({"install", "--dry-run"}, {"torch==2.5.1", "typing-extensions"}), deps,
                 dry_out, dry_err),
            0)
      << dry_err.str();
  EXPECT_THAT(dry_out.str(), HasSubstr("backend cu124 named by --torch-backend; torch 2.5.1+cu124"));
  EXPECT_THAT(dry_out.str(), HasSubstr("  torch 2.5.1+cu124\n"));
  EXPECT_THAT(dry_out.str(), HasSubstr("would run: PIP_INDEX_URL='http://127.0.0.1:<port>/<token>/simple/' " + python +
                                       " -m pip install 'torch @ " +
                                       nginx_->Url("/whl/cu124/torch-2.5.1%2Bcu124")));
  // The routing index is said, and its URL shown, not started.
  EXPECT_THAT(dry_out.str(), HasSubstr("routing index: http://127.0.0.1:<port>/<token>/simple/ (the "
                                       "installer's only index, this run only)\n"));
  EXPECT_THAT(dry_out.str(), HasSubstr("  every other name, from the default index: " +
                                       nginx_->Url("/simple/") + "\n"));
  EXPECT_THAT(dry_out.str(), HasSubstr(" typing-extensions\n"));  // the index is not on the argv
  std::ostringstream json_out, json_err;
  ASSERT_EQ(Main(with({"install", "--dry-run", "--json"}, {"torch==2.5.1"}), deps, json_out,
                 json_err),
            0)
      << json_err.str();
  const nlohmann::json plan_json = nlohmann::json::parse(json_out.str());
  EXPECT_EQ(plan_json["command_environment"]["PIP_INDEX_URL"], "http://127.0.0.1:<port>/<token>/simple/")
      << json_out.str();
  EXPECT_EQ(json_out.str().find("--index-url"), std::string::npos) << json_out.str();
  EXPECT_TRUE(Installed(python).empty());  // a dry run changes nothing

  // --torch-backend=auto over a captured host: an RTX 3090 on driver 550 with torch==2.5.1
  // gets cu124 (cu121 and cu118 also have 2.5.1; the newest toolkit wins), as `select` says.
  std::ostringstream auto_out, auto_err;
  const std::string host = std::string(TORCHDEX_FIXTURES_DIR) + "/hosts/linux-rtx3090-driver550-proprietary";
  ASSERT_EQ(Main({"install", "--dry-run", "--python", python, "--root", host, "--catalogue",
                  overrides.string(), "--index-url", nginx_->Url("/simple/"), "torch==2.5.1"},
                 deps, auto_out, auto_err),
            0)
      << auto_err.str();
  EXPECT_THAT(auto_out.str(), HasSubstr("chose cu124 (CUDA): torch 2.5.1+cu124 is the newest that fits"));
  EXPECT_THAT(auto_out.str(), HasSubstr("backend: cu124 (" + nginx_->Url("/whl/cu124/") + ")"));

  const fs::path exported = *root_ / "cli-requirements.txt";
  std::ostringstream export_out, export_err;
  ASSERT_EQ(Main(with({"export", "--format", "requirements", "--output", exported.string()},
                      {"torch==2.5.1"}),
                 deps, export_out, export_err),
            0)
      << export_err.str();
  EXPECT_THAT(ReadText(exported), HasSubstr("# chosen: cu124"));

  std::ostringstream out, err;
  ASSERT_EQ(Main(with({"install"}, {"torch==2.5.1", "typing-extensions", "--", "--no-cache-dir"}),
                 deps, out, err),
            0)
      << out.str() << err.str();
  EXPECT_THAT(out.str(), HasSubstr("--no-cache-dir"));
  EXPECT_EQ(Installed(python),
            (std::map<std::string, std::string>{{"torch", "2.5.1+cu124"},
                                                {"triton", "3.1.0"},
                                                {"filelock", "3.16.1"},
                                                {"typing-extensions", "4.12.2"}}));
}

// --- The routing index (issue 13 A.1): routed names reached through dependencies.

TEST_F(InstallE2eTest, PipAloneTakesTheBaitTorchThatADependencyAsksFor) {
  // The bug: with the default index alone, pip installs the default index's torch 9.9.9 for a
  // package that requires torch (lightning, torchmetrics and timm do), and says nothing.
  const std::string report = (*root_ / "transitive-bait.json").string();
  const Output pip = RunChild({(*root_ / "base-venv-pip26/bin/python").string(), "-m", "pip",
                               "install", "--dry-run", "--quiet", "--report", report, "--index-url",
                               nginx_->Url("/simple/"), "needs-needs-torch"});
  ASSERT_EQ(pip.exit_code, 0) << pip.err;
  std::map<std::string, std::string> would_install;
  const nlohmann::json parsed = nlohmann::json::parse(ReadText(report));
  for (const auto& item : parsed["install"]) {
    would_install[item["metadata"]["name"]] = item["metadata"]["version"];
  }
  EXPECT_EQ(would_install["torch"], "9.9.9");
  EXPECT_EQ(would_install["needs-torch"], "1.0");
}

TEST_F(InstallE2eTest, PipGetsRoutedNamesReachedThroughDependenciesFromTheBackend) {
  TransitiveRunOf("pip");
}

TEST_F(InstallE2eTest, UvGetsRoutedNamesReachedThroughDependenciesFromTheBackend) {
  TransitiveRunOf("uv");
}

// A mirror and a default index behind basic authentication (issue 29, item 9): pip and uv get
// the credentials from this run's netrc, never on their argv (world-readable) nor on the routing
// index's pages, and the routing index answers only under its per-run token.
void PrivateIndexRunOf(const std::string& installer, const std::string& python, const fs::path& index_root) {
  auto private_nginx = testing::Nginx::Start(index_root, "ci:s3cret-pw");
  ASSERT_TRUE(private_nginx.ok()) << private_nginx.error().message;
  const testing::Nginx& nginx = **private_nginx;
  const std::string credentialed = "http://ci:s3cret-pw@127.0.0.1:" + std::to_string(nginx.port());
  const fs::path overrides = index_root.parent_path() / ("private-mirror-" + installer + ".json");
  std::ofstream(overrides) << "{\"format\": 1, \"mirror\": \"" << credentialed << "/whl/\"}\n";
  Environment env = e2e::ChildEnvironment(index_root.parent_path());
  env["PATH"] = std::string(kToolsBin) + ":" + env["PATH"];
  env["UV_CACHE_DIR"] = (index_root.parent_path() / ("uv-cache-private-" + installer)).string();
  env["UV_PYTHON_DOWNLOADS"] = "never";
  const std::unique_ptr<ProcessRunner> runner = MakeSystemProcessRunner();
  const Output run = e2e::RunTorchdex({"install", "--python", python, "--installer", installer, "--torch-backend",
                                       "cu124", "--catalogue", overrides.string(), "--index-url",
                                       credentialed + "/simple/", "needs-torch"},
                                      env, *runner);
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const std::size_t running = run.out.find("running: ");
  ASSERT_NE(running, std::string::npos) << run.out;
  const std::string argv_line = run.out.substr(running, run.out.find('\n', running) - running);
  // Before: 'torch @ http://ci:****@127.0.0.1:...' (the argv carried them, redacted only here).
  EXPECT_EQ(argv_line.find("ci:"), std::string::npos) << argv_line;
  EXPECT_THAT(argv_line, HasSubstr("'torch @ http://127.0.0.1:" + std::to_string(nginx.port()) + "/whl/cu124/"));
  EXPECT_EQ(run.out.find("s3cret"), std::string::npos) << run.out;
  EXPECT_EQ(run.err.find("s3cret"), std::string::npos) << run.err;
  // The wheel was downloaded with them (pip sends a netrc's credentials at once, uv after the
  // 401 that asks for them; without them nginx answers only 401 and the install fails).
  EXPECT_THAT(nginx.AccessLog(), HasSubstr(" 200 \"GET /whl/cu124/torch-2.6.0%2Bcu124-py3-none-any.whl"));
}

TEST_F(InstallE2eTest, PipAndUvReadAPrivateIndexsCredentialsFromTheRunsNetrcNotTheirArgv) {
  for (const std::string installer : {"pip", "uv"}) {
    SCOPED_TRACE(installer);
    PrivateIndexRunOf(installer, NewVenv("venv-private-" + installer, "base-venv-pip26"), *root_ / "index");
  }
}

TEST_F(InstallE2eTest, PipGetsTorchAskedAndReachedFromTheBackendWithItsOwnDefaultIndex) {
  DirectAndTransitiveRunOf("pip");
}

TEST_F(InstallE2eTest, UvGetsTorchAskedAndReachedFromTheBackendWithItsOwnDefaultIndex) {
  DirectAndTransitiveRunOf("uv");
}

TEST_F(InstallE2eTest, ARoutedNameTheBackendLacksIsNotTakenFromTheDefaultIndex) {
  // needs-triton requires triton; the cpu backend has none, the default index has 9.9.9. The
  // routing index answers 404, so pip finds no triton at all: the install fails.
  const std::string python = NewVenv("venv-missing-triton", "base-venv-pip26");
  const size_t log_start = nginx_->AccessLog().size();
  const Output run =
      Torchdex(python, "pip", "cpu", {"needs-triton"}, true, RunEnvironment("missing"));
  EXPECT_NE(run.exit_code, 0) << run.out << run.err;
  EXPECT_THAT(run.err, HasSubstr("No matching distribution found for triton"));
  EXPECT_THAT(
      run.out,
      HasSubstr("routing index: routed, not on backend cpu and so not served: triton (404)"));
  for (const Logged& line : LoggedSince(log_start)) {
    EXPECT_NE(line.path.rfind("/simple/triton", 0), 0u) << line.path;
  }
  EXPECT_TRUE(Installed(python).empty());
}

// --- The routing guarantee in every way an installer can be told of another source (issue 29).

// A dependency that names a routed package by a direct URL (`Requires-Dist: torch @ URL`): pip
// alone takes it; torchdex checks pip's resolution first and refuses, with the chain of packages
// that asked for it, whether the URL is one level down or two, and installs nothing.
TEST_F(InstallE2eTest, PipAloneTakesTheTorchADependencyNamesByUrl) {
  const std::string report = (*root_ / "url-bait.json").string();
  const Output pip = RunChild({(*root_ / "base-venv-pip26/bin/python").string(), "-m", "pip", "install", "--dry-run",
                               "--quiet", "--report", report, "--index-url", nginx_->Url("/simple/"),
                               "needs-needs-url-torch"});
  ASSERT_EQ(pip.exit_code, 0) << pip.err;
  std::map<std::string, std::string> would_install;
  const nlohmann::json parsed = nlohmann::json::parse(ReadText(report));
  for (const auto& item : parsed["install"]) would_install[item["metadata"]["name"]] = item["metadata"]["version"];
  EXPECT_EQ(would_install["torch"], "99.0.0");
}

TEST_F(InstallE2eTest, ARoutedNameADependencyGivesByUrlIsRefusedWithItsChain) {
  for (const std::string& top : {std::string("needs-url-torch"), std::string("needs-needs-url-torch")}) {
    const std::string python = NewVenv("venv-url-" + top, "base-venv-pip26");
    const Output run = Torchdex(python, "pip", "cu124", {top}, true, RunEnvironment("url"));
    EXPECT_EQ(run.exit_code, 4) << run.out << run.err;
    EXPECT_THAT(run.err, HasSubstr("pip would install the routed package torch 99.0.0 from file://" +
                                   (*root_ / "index/bait/torch-99.0.0-py3-none-any.whl").string() +
                                   " (a direct URL), not a wheel of backend cu124"));
    EXPECT_THAT(run.err, HasSubstr(top == "needs-url-torch" ? "asked for by needs-url-torch 1.0 (asked) -> torch."
                                                            : "asked for by needs-needs-url-torch 1.0 (asked) -> "
                                                              "needs-url-torch 1.0 -> torch."));
    EXPECT_TRUE(Installed(python).empty()) << top;
  }
  // torch asked as well: pip cannot have both, so its resolution fails and nothing is installed.
  const std::string python = NewVenv("venv-url-and-torch", "base-venv-pip26");
  const Output both = Torchdex(python, "pip", "cu124", {"torch", "needs-url-torch"}, true, RunEnvironment("url"));
  EXPECT_NE(both.exit_code, 0) << both.out << both.err;
  EXPECT_THAT(both.err, HasSubstr("pip's resolution"));
  EXPECT_TRUE(Installed(python).empty());
  // uv refuses a URL that only a dependency gives by itself.
  const std::string uv_python = NewVenv("venv-url-uv", "base-venv-pip26");
  const Output uv = Torchdex(uv_python, "uv", "cu124", {"needs-needs-url-torch"}, true, RunEnvironment("url-uv"));
  EXPECT_NE(uv.exit_code, 0) << uv.out << uv.err;
  EXPECT_TRUE(Installed(uv_python).empty());
  // ... but not when the package that gives it is itself asked by URL (the attack's F1): uv's
  // resolution is checked as pip's is, for both installers.
  const std::string by_url =
      "needs-url-torch @ " + nginx_->Url("/simple/needs_url_torch-1.0-py3-none-any.whl");
  for (const char* installer : {"uv", "pip"}) {
    const std::string python_url = NewVenv(std::string("venv-url-req-") + installer, "base-venv-pip26");
    const Output run = Torchdex(python_url, installer, "cu124", {by_url}, true, RunEnvironment("url-req"));
    EXPECT_EQ(run.exit_code, 4) << installer << run.out << run.err;
    // uv's pylock.toml gives a local file as a path relative to itself.
    EXPECT_THAT(run.err, HasSubstr(std::string(installer) + " would install the routed package torch 99.0.0 from "));
    EXPECT_THAT(run.err, HasSubstr("bait/torch-99.0.0-py3-none-any.whl (a direct URL), not a wheel of backend cu124"));
    EXPECT_TRUE(Installed(python_url).empty()) << installer;
  }
}

// A routed name reached only through the default index's packages is pinned, after pip's
// resolution is checked, to the wheel the routing index served.
TEST_F(InstallE2eTest, PipsResolutionOfATransitiveTorchIsPinnedToTheBackendsWheel) {
  const std::string python = NewVenv("venv-pinned-transitive", "base-venv-pip26");
  const Output run = Torchdex(python, "pip", "cu124", {"needs-torch"}, true, RunEnvironment("pinned"));
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_THAT(run.out, HasSubstr("pinned: torch 2.6.0+cu124 from backend cu124 (reached through needs-torch 1.0 "
                                 "(asked) -> torch)\n"));
  EXPECT_THAT(run.out, HasSubstr("'torch @ " + nginx_->Url("/whl/cu124/torch-2.6.0%2Bcu124-py3-none-any.whl#sha256=")));
  // Every package is held at the version that was checked (the attack's F6: a version published
  // between the check and the install cannot come in).
  EXPECT_THAT(run.out, HasSubstr(" -c /"));
  EXPECT_THAT(run.out, HasSubstr("/constraints.txt\n"));
  EXPECT_EQ(Installed(python).at("torch"), "2.6.0+cu124");
}

// Every variable and configuration file that can give pip or uv another index or torch source is
// kept from them (installer_environment.h): each here points at the bait (the default index's
// torch 9.9.9 as an extra index, the torch 99.0.0 of bait/ as find-links), and the backend's torch
// is installed all the same, with a note naming what was left out.
void ExpectBaitSettingsIgnored(const std::string& installer, Environment env, const Output& run,
                               const std::map<std::string, std::string>& installed) {
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_EQ(installed.at("torch"), "2.6.0+cu124") << run.out << run.err;
  for (const auto& [name, value] : env) {
    if (name.rfind(installer == "pip" ? "PIP_" : "UV_", 0) != 0 || name == "UV_CACHE_DIR" ||
        name == "UV_PYTHON_DOWNLOADS" || name == "PIP_DISABLE_PIP_VERSION_CHECK" || name == "PIP_NO_INPUT" ||
        name == "PIP_CONFIG_FILE" || name == "UV_NO_CONFIG") {
      continue;
    }
    EXPECT_THAT(run.out, HasSubstr(name)) << "the note does not name " << name << ":\n" << run.out;
  }
}

TEST_F(InstallE2eTest, TheInstallersOwnIndexSettingsNeverReachThem) {
  const std::string simple = nginx_->Url("/simple/");
  const std::string bait = (*root_ / "index/bait").string();
  const fs::path pip_conf = *root_ / "bait-pip.conf";
  WriteText(pip_conf, "[global]\nextra-index-url = " + simple + "\nfind-links = " + bait + "\n");
  const fs::path uv_toml = *root_ / "bait-uv.toml";
  WriteText(uv_toml, "extra-index-url = [\"" + simple + "\"]\nfind-links = [\"" + bait + "\"]\n");
  {
    Environment env = RunEnvironment("env-pip");
    env["PIP_EXTRA_INDEX_URL"] = simple;
    env["PIP_FIND_LINKS"] = bait;
    env["PIP_PRE"] = "1";
    const std::string python = NewVenv("venv-env-pip", "base-venv-pip26");
    const Output run = Torchdex(python, "pip", "cu124", {"needs-torch"}, true, env);
    ExpectBaitSettingsIgnored("pip", env, run, Installed(python));
    env.erase("PIP_EXTRA_INDEX_URL");
    env.erase("PIP_FIND_LINKS");
    env["PIP_CONFIG_FILE"] = pip_conf.string();  // pip's files: none is read
    const std::string from_file = NewVenv("venv-conf-pip", "base-venv-pip26");
    const Output by_file = Torchdex(from_file, "pip", "cu124", {"needs-torch"}, true, env);
    ExpectBaitSettingsIgnored("pip", env, by_file, Installed(from_file));
  }
  Environment env = RunEnvironment("env-uv");
  env["UV_EXTRA_INDEX_URL"] = simple;
  env["UV_INDEX"] = "bait=" + simple;
  env["UV_FIND_LINKS"] = bait;
  env["UV_INDEX_STRATEGY"] = "unsafe-best-match";
  env["UV_CONFIG_FILE"] = uv_toml.string();
  env["UV_NO_SOURCES"] = "1";
  env.erase("UV_NO_CONFIG");
  const std::string python = NewVenv("venv-env-uv", "base-venv-pip26");
  const size_t log_start = nginx_->AccessLog().size();
  const Output run = Torchdex(python, "uv", "cu124", {"needs-torch"}, true, env);
  ExpectBaitSettingsIgnored("uv", env, run, Installed(python));
  for (const Logged& line : LoggedSince(log_start)) {
    EXPECT_NE(line.path.rfind("/simple/torch", 0), 0u) << line.path << " asked of the default index";
  }
}

}  // namespace
}  // namespace torchdex::installer
