// The planner against an in-memory index (a fake Fetcher): version and tag choice, PEP 658
// dependencies with markers and extras, hash checks, conflicts, the HTTPS rule, offline plans;
// and the pure pieces around it (core metadata, the installer argv, the export formats).
// tests/installer/e2e/ runs the same code against nginx and a real pip.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/sha256.h"
#include "installer/cli/run.h"
#include "installer/install/export.h"
#include "installer/install/metadata.h"
#include "installer/install/pip_command.h"
#include "installer/install/plan.h"
#include "installer/install/routing_index.h"
#include "installer/install/transport.h"
#include "tests/support/fault_server.h"

namespace torchdex::installer {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

constexpr const char* kBase = "https://download.pytorch.org/whl/cu124/";

class FakeFetcher final : public index::Fetcher {
 public:
  void Serve(const std::string& url, std::string body) {
    index::FetchResult result;
    result.outcome = index::FetchOutcome::kOk;
    result.status = 200;
    result.body = std::move(body);
    result.content_type = "text/html";
    responses_[url] = result;
  }
  void Fail(const std::string& url, index::FetchOutcome outcome, long status, std::string error) {
    index::FetchResult result;
    result.outcome = outcome;
    result.status = status;
    result.error = std::move(error);
    responses_[url] = result;
  }
  void Run(std::vector<index::FetchRequest> initial, const OnResult& on_result,
           const OnProgress& /*on_progress*/) override {
    for (index::FetchRequest& request : initial) {
      requested.push_back(request.url);
      index::FetchResult result;
      if (auto it = responses_.find(request.url); it != responses_.end()) {
        result = it->second;
      } else {
        result.outcome = index::FetchOutcome::kAbsent;
        result.status = 404;
        result.error = request.url + ": 404";
      }
      result.request = request;
      on_result(std::move(result));
    }
  }
  std::vector<std::string> requested;

 private:
  std::map<std::string, index::FetchResult> responses_;
};

struct FakeWheel {
  FakeWheel(std::string filename_, std::vector<std::string> requires_dist_ = {},
            std::string sha256_ = std::string(64, 'a'), bool metadata_ = true,
            std::string metadata_hash_override_ = "")
      : filename(std::move(filename_)),
        requires_dist(std::move(requires_dist_)),
        sha256(std::move(sha256_)),
        metadata(metadata_),
        metadata_hash_override(std::move(metadata_hash_override_)) {}
  std::string filename;
  std::vector<std::string> requires_dist;
  std::string sha256;
  bool metadata;
  std::string metadata_hash_override;  // a wrong hash on the page
  std::vector<std::string> provides_extra = {};
};

std::string Metadata(const std::string& name, const std::string& version,
                     const std::vector<std::string>& requires_dist,
                     const std::vector<std::string>& provides_extra = {}) {
  std::string text = "Metadata-Version: 2.1\nName: " + name + "\nVersion: " + version + "\n";
  for (const std::string& e : provides_extra) text += "Provides-Extra: " + e + "\n";
  for (const std::string& r : requires_dist) text += "Requires-Dist: " + r + "\n";
  return text + "\nDescription body: Requires-Dist: not-a-field\n";
}

// Serves a project page under `base` with the wheels, and each wheel's .metadata.
void ServeProject(FakeFetcher& fetcher, const std::string& base, const std::string& project,
                  const std::vector<FakeWheel>& wheels) {
  std::string html = "<html><body><h1>Links for " + project + "</h1>\n";
  for (const FakeWheel& wheel : wheels) {
    std::string encoded = wheel.filename;
    for (size_t at = encoded.find('+'); at != std::string::npos; at = encoded.find('+', at)) {
      encoded.replace(at, 1, "%2B");
    }
    const std::string url = base + encoded;
    // Name and version from the filename, for the metadata.
    const size_t dash = wheel.filename.find('-');
    const std::string name = wheel.filename.substr(0, dash);
    const std::string version =
        wheel.filename.substr(dash + 1, wheel.filename.find('-', dash + 1) - dash - 1);
    const std::string metadata = Metadata(name, version, wheel.requires_dist, wheel.provides_extra);
    html += "<a href=\"" + url + (wheel.sha256.empty() ? "" : "#sha256=" + wheel.sha256) + "\"";
    if (wheel.metadata) {
      const std::string hash = wheel.metadata_hash_override.empty() ? core::Sha256Hex(metadata)
                                                                    : wheel.metadata_hash_override;
      html += " data-core-metadata=\"sha256=" + hash + "\"";
      fetcher.Serve(url + ".metadata", metadata);
    }
    html += ">" + wheel.filename + "</a><br/>\n";
  }
  fetcher.Serve(base + project + "/", html + "</body></html>\n");
}

core::InterpreterInfo Cpython312() {
  core::InterpreterInfo info;
  info.python_minor = 12;
  info.libc_minor = 36;
  return info;
}

std::vector<core::AskedRequirement> Asked(std::vector<std::string> texts) {
  std::vector<core::AskedRequirement> out;
  for (const std::string& t : texts) out.push_back({*core::Requirement::Parse(t), t});
  return out;
}

PlanRequest Request(std::vector<std::string> routed) {
  PlanRequest request;
  for (const std::string& text : routed) request.routed.push_back(*core::Requirement::Parse(text));
  request.routed_projects = {"torch", "torchvision", "torchaudio", "triton", "pytorch-triton"};
  request.backend = "cu124";
  request.backend_index_url = kBase;
  request.default_index_url = "https://pypi.org/simple/";
  request.supported_tags = core::SupportedTags(Cpython312());
  request.markers = core::MarkerEnvironment::ForLinuxCPython(3, 12, 4);
  request.target_description = "CPython 3.12.4";
  return request;
}

// The cu124 backend of torch 2.5.1 / 2.6.0 with torchvision pinning torch exactly.
void ServeCu124(FakeFetcher& fetcher) {
  ServeProject(fetcher, kBase, "torch",
               {{"torch-2.5.1+cu124-cp312-cp312-linux_x86_64.whl",
                 {"filelock", "triton==3.1.0; platform_system == \"Linux\"",
                  "triton-extra; extra == \"opt\""}},
                {"torch-2.5.1+cu124-cp312-cp312-manylinux_2_17_x86_64.whl",
                 {"filelock", "triton==3.1.0; platform_system == \"Linux\""}},
                {"torch-2.6.0+cu124-cp312-cp312-manylinux_2_28_x86_64.whl",
                 {"filelock", "triton==3.2.0; platform_system == \"Linux\""}},
                {"torch-2.7.0+cu124-cp312-cp312-win_amd64.whl", {}},
                {"torch-2.7.0+cu124-cp311-cp311-manylinux_2_28_x86_64.whl", {}}});
  ServeProject(fetcher, kBase, "torchvision",
               {{"torchvision-0.20.1+cu124-cp312-cp312-linux_x86_64.whl", {"torch==2.5.1"}},
                {"torchvision-0.21.0+cu124-cp312-cp312-linux_x86_64.whl", {"torch==2.6.0"}}});
  ServeProject(fetcher, kBase, "triton",
               {{"triton-3.1.0-cp312-cp312-manylinux_2_17_x86_64.whl", {}},
                {"triton-3.2.0-cp312-cp312-manylinux_2_17_x86_64.whl", {}}});
}

const PlannedWheel* Find(const InstallPlan& plan, const std::string& name) {
  for (const PlannedWheel& wheel : plan.routed) {
    if (wheel.name == name) return &wheel;
  }
  return nullptr;
}

bool AnyContains(const std::vector<std::string>& lines, const std::string& needle) {
  for (const std::string& line : lines) {
    if (line.find(needle) != std::string::npos) return true;
  }
  return false;
}

TEST(InstallPlanTest, PicksTheHighestVersionAndTheBestTagForTheTarget) {
  FakeFetcher fetcher;
  ServeCu124(fetcher);
  auto plan = MakePlan(Request({"torch"}), &fetcher);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  // 2.7.0 is for Windows and for 3.11 only; 2.6.0 is the highest that fits.
  const PlannedWheel* torch = Find(*plan, "torch");
  ASSERT_NE(torch, nullptr);
  EXPECT_EQ(torch->version, "2.6.0+cu124");
  EXPECT_EQ(torch->url,
            std::string(kBase) + "torch-2.6.0%2Bcu124-cp312-cp312-manylinux_2_28_x86_64.whl");
  EXPECT_EQ(torch->sha256, std::string(64, 'a'));
  EXPECT_EQ(torch->page_url, std::string(kBase) + "torch/");
  // torch 2.6.0 pins triton==3.2.0 on Linux: followed through its metadata.
  const PlannedWheel* triton = Find(*plan, "triton");
  ASSERT_NE(triton, nullptr);
  EXPECT_EQ(triton->version, "3.2.0");
  EXPECT_EQ(triton->required_by, std::vector<std::string>{"torch 2.6.0+cu124 needs triton==3.2.0"});
  EXPECT_EQ(plan->routed.size(), 2u);  // filelock is not routed: the default index's business
}

TEST(InstallPlanTest, AmongWheelsOfOneVersionTheBestRankedTagWins) {
  FakeFetcher fetcher;
  ServeCu124(fetcher);
  auto plan = MakePlan(Request({"torch==2.5.1"}), &fetcher);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  // linux_x86_64 ranks above manylinux_2_17 for a glibc 2.36 CPython since packaging 26.3,
  // which pip 26.3 vendors (its sys_tags() on this machine; docs/standards.md).
  EXPECT_THAT(Find(*plan, "torch")->filename, HasSubstr("linux_x86_64"));
  EXPECT_THAT(Find(*plan, "torch")->filename, Not(HasSubstr("manylinux")));
}

TEST(InstallPlanTest, FollowsExactPinsOfDependentsAndNeverAsksTheDefaultIndex) {
  FakeFetcher fetcher;
  ServeCu124(fetcher);
  auto plan = MakePlan(Request({"torch", "torchvision==0.20.1"}), &fetcher);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(Find(*plan, "torch")->version, "2.5.1+cu124");
  EXPECT_EQ(Find(*plan, "torchvision")->version, "0.20.1+cu124");
  EXPECT_EQ(Find(*plan, "triton")->version, "3.1.0");
  EXPECT_EQ(
      Find(*plan, "torch")->required_by,
      (std::vector<std::string>{"you asked torch", "torchvision 0.20.1+cu124 needs torch==2.5.1"}));
  for (const std::string& url : fetcher.requested) {
    EXPECT_EQ(url.rfind(kBase, 0), 0u) << url;  // nothing outside the backend
    EXPECT_EQ(url.find("filelock"), std::string::npos) << url;
  }
}

TEST(InstallPlanTest, AConflictNamesWhoNeedsWhat) {
  FakeFetcher fetcher;
  ServeCu124(fetcher);
  auto plan = MakePlan(Request({"torch>=2.6", "torchvision==0.20.1"}), &fetcher);
  ASSERT_FALSE(plan.ok());
  EXPECT_THAT(plan.error().message, HasSubstr("conflict on torch"));
  EXPECT_THAT(plan.error().message,
              HasSubstr("torchvision 0.20.1+cu124 needs torch==2.5.1; you asked torch>=2.6"));
}

TEST(InstallPlanTest, TriesAnotherVersionOfADependentBeforeGivingUp) {
  FakeFetcher fetcher;
  ServeCu124(fetcher);
  // The newest torchvision (0.21.0) pins torch 2.6.0, which the user excluded: 0.20.1 fits.
  auto plan = MakePlan(Request({"torch<2.6", "torchvision"}), &fetcher);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(Find(*plan, "torchvision")->version, "0.20.1+cu124");
  EXPECT_EQ(Find(*plan, "torch")->version, "2.5.1+cu124");
}

TEST(InstallPlanTest, ExtrasAndMarkersDecideWhichDependenciesCount) {
  FakeFetcher fetcher;
  ServeProject(
      fetcher, kBase, "torch",
      {{"torch-2.5.1+cu124-cp312-cp312-linux_x86_64.whl",
        {"triton==3.1.0; platform_system == \"Windows\"", "triton-extra; extra == \"opt\""}}});
  ServeProject(fetcher, kBase, "triton-extra", {{"triton_extra-1.0-py3-none-any.whl", {}}});
  PlanRequest request = Request({"torch[opt]==2.5.1"});
  request.routed_projects.insert("triton-extra");
  auto plan = MakePlan(request, &fetcher);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_NE(Find(*plan, "triton-extra"), nullptr);
  EXPECT_EQ(Find(*plan, "triton"), nullptr);  // a Windows-only dependency on Linux

  request.routed = {*core::Requirement::Parse("torch==2.5.1")};
  plan = MakePlan(request, &fetcher);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->routed.size(), 1u);  // without the extra, only torch
}

TEST(InstallPlanTest, NightlyTorchPinsItsTritonBuild) {
  FakeFetcher fetcher;
  const std::string base = "https://download.pytorch.org/whl/nightly/cu124/";
  ServeProject(fetcher, base, "torch",
               {{"torch-2.6.0.dev20241112+cu124-cp312-cp312-linux_x86_64.whl",
                 {"pytorch-triton==3.2.0+git0d4682f0; platform_system == \"Linux\""},
                 ""}});
  ServeProject(fetcher, base, "pytorch-triton",
               {{"pytorch_triton-3.2.0+git0d4682f0-cp312-cp312-linux_x86_64.whl", {}, ""},
                {"pytorch_triton-3.2.0+git35c6c7c6-cp312-cp312-linux_x86_64.whl", {}, ""}});
  PlanRequest request = Request({"torch"});
  request.backend_index_url = base;
  request.prereleases = core::Prereleases::kAllow;
  auto plan = MakePlan(request, &fetcher);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(Find(*plan, "torch")->version, "2.6.0.dev20241112+cu124");
  EXPECT_EQ(Find(*plan, "pytorch-triton")->version, "3.2.0+git0d4682f0");
  // Nightly pages carry no hash: planned, with a warning naming each file.
  EXPECT_TRUE(Find(*plan, "torch")->sha256.empty());
  EXPECT_TRUE(AnyContains(plan->warnings,
                          "torch-2.6.0.dev20241112+cu124-cp312-cp312-linux_x86_64.whl: the page"));
  EXPECT_TRUE(AnyContains(plan->warnings, "gives no sha256"));
}

TEST(InstallPlanTest, AYankedFileIsChosenOnlyForAnExactPin) {
  FakeFetcher fetcher;
  fetcher.Serve(
      std::string(kBase) + "torch/",
      "<a href=\"torch-2.6.0%2Bcu124-cp312-cp312-linux_x86_64.whl#sha256=" + std::string(64, 'a') +
          "\" data-yanked=\"broken\">torch-2.6.0+cu124-cp312-cp312-linux_x86_64.whl</a>"
          "<a href=\"torch-2.5.1%2Bcu124-cp312-cp312-linux_x86_64.whl#sha256=" +
          std::string(64, 'a') + "\">torch-2.5.1+cu124-cp312-cp312-linux_x86_64.whl</a>");
  auto plan = MakePlan(Request({"torch"}), &fetcher);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(Find(*plan, "torch")->version, "2.5.1+cu124");
  plan = MakePlan(Request({"torch==2.6.0"}), &fetcher);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(Find(*plan, "torch")->version, "2.6.0+cu124");
  EXPECT_FALSE(MakePlan(Request({"torch==2.6.*"}), &fetcher).ok());
}

TEST(InstallPlanTest, AWrongMetadataHashIsAnError) {
  FakeFetcher fetcher;
  ServeProject(fetcher, kBase, "torch",
               {{"torch-2.5.1+cu124-cp312-cp312-linux_x86_64.whl",
                 {},
                 std::string(64, 'a'),
                 true,
                 std::string(64, 'b')}});
  auto plan = MakePlan(Request({"torch"}), &fetcher);
  ASSERT_FALSE(plan.ok());
  EXPECT_THAT(plan.error().message, HasSubstr("metadata of torch 2.5.1+cu124 does not match"));
  EXPECT_THAT(plan.error().message, HasSubstr(".whl.metadata has sha256"));
}

TEST(InstallPlanTest, NoMetadataMeansAWarningNotASilentGap) {
  FakeFetcher fetcher;
  ServeProject(
      fetcher, kBase, "torch",
      {{"torch-2.5.1+cu124-cp312-cp312-linux_x86_64.whl", {}, std::string(64, 'a'), false}});
  auto plan = MakePlan(Request({"torch"}), &fetcher);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_TRUE(AnyContains(plan->warnings, "no PEP 658 metadata"));
}

TEST(InstallPlanTest, MissingPagesVersionsAndUnreachableIndexesAreClearErrors) {
  FakeFetcher fetcher;
  ServeCu124(fetcher);
  auto missing_version = MakePlan(Request({"torch==9.9"}), &fetcher);
  ASSERT_FALSE(missing_version.ok());
  EXPECT_THAT(missing_version.error().message,
              HasSubstr("no version of torch on backend cu124 (" + std::string(kBase) +
                        "torch/) for CPython 3.12.4 matches: you asked torch==9.9 (there: "
                        "2.6.0+cu124, 2.5.1+cu124)"));

  auto missing_page = MakePlan(Request({"torchaudio"}), &fetcher);
  ASSERT_FALSE(missing_page.ok());
  EXPECT_THAT(missing_page.error().message,
              HasSubstr("backend cu124 has no page for torchaudio: " + std::string(kBase) +
                        "torchaudio/ answered 404"));

  FakeFetcher down;
  down.Fail(std::string(kBase) + "torch/", index::FetchOutcome::kFailed, 0,
            std::string(kBase) + "torch/: Couldn't connect to server");
  auto unreachable = MakePlan(Request({"torch"}), &down);
  ASSERT_FALSE(unreachable.ok());
  EXPECT_THAT(unreachable.error().message,
              HasSubstr("cannot read the cu124 page of torch: " + std::string(kBase) +
                        "torch/: Couldn't connect"));
}

TEST(InstallPlanTest, PlainHttpIsRefusedUnlessLoopbackOrTrusted) {
  FakeFetcher fetcher;
  PlanRequest request = Request({"torch"});
  request.backend_index_url = "http://mirror.example.com/whl/cu124";
  auto refused = MakePlan(request, &fetcher);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.error().message,
              HasSubstr("refusing plain HTTP: http://mirror.example.com/whl/cu124/"));
  EXPECT_TRUE(fetcher.requested.empty());

  // Trusted: pages are read, and a wheel link to another plain-HTTP host is still refused.
  request.trusted_hosts = {"mirror.example.com"};
  ServeProject(fetcher, "http://mirror.example.com/whl/cu124/", "torch",
               {{"torch-2.5.1+cu124-cp312-cp312-linux_x86_64.whl", {}}});
  auto trusted = MakePlan(request, &fetcher);
  ASSERT_TRUE(trusted.ok()) << trusted.error().message;

  FakeFetcher elsewhere;
  elsewhere.Serve(
      "http://mirror.example.com/whl/cu124/torch/",
      "<a href=\"http://cdn.example.net/torch-2.5.1%2Bcu124-cp312-cp312-linux_x86_64.whl"
      "\">torch-2.5.1+cu124-cp312-cp312-linux_x86_64.whl</a>");
  auto cdn = MakePlan(request, &elsewhere);
  ASSERT_FALSE(cdn.ok());
  EXPECT_THAT(
      cdn.error().message,
      HasSubstr("the wheel of torch 2.5.1+cu124: refusing plain HTTP: http://cdn.example.net/"));

  EXPECT_TRUE(CheckTransport("https://download.pytorch.org/whl/", {}, "x").ok());
  EXPECT_TRUE(CheckTransport("http://127.0.0.1:8080/simple/", {}, "x").ok());
  EXPECT_TRUE(CheckTransport("http://127.3.2.1/simple/", {}, "x").ok());
  EXPECT_TRUE(CheckTransport("http://localhost/simple/", {}, "x").ok());
  EXPECT_TRUE(CheckTransport("http://[::1]:9000/simple/", {}, "x").ok());
  EXPECT_TRUE(CheckTransport("http://mirror:8081/x", {"mirror:8081"}, "x").ok());
  EXPECT_FALSE(CheckTransport("http://128.0.0.1/simple/", {}, "x").ok());
  EXPECT_FALSE(CheckTransport("http://127.0.0.1.evil.com/simple/", {}, "x").ok());
  EXPECT_FALSE(CheckTransport("file:///etc/passwd", {}, "x").ok());
  EXPECT_FALSE(CheckTransport("http://mirror:8082/x", {"mirror:8081"}, "x").ok());
}

// Issue 13 item 20: pip (urllib3) connects to 0.0.0.0 here, whatever follows the backslash; a
// URL whose host parsers read differently is refused, on https too.
TEST(InstallPlanTest, TheHttpsRuleReadsTheHostAsPipDoes) {
  core::Status s = CheckTransport("http://0.0.0.0:8080\\@127.0.0.1:8080/whl/x.whl", {}, "x");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.error().message, HasSubstr("a backslash in its host part"));
  EXPECT_THAT(s.error().message, HasSubstr("pip would connect to 0.0.0.0:8080"));
  EXPECT_FALSE(CheckTransport("http://0.0.0.0:8080\\@127.0.0.1:8080/", {"127.0.0.1"}, "x").ok());
  EXPECT_FALSE(CheckTransport("https://evil.example\\@download.pytorch.org/whl/", {}, "x").ok());
  EXPECT_FALSE(CheckTransport("http://\\127.0.0.1/whl/", {}, "x").ok());
  // A backslash in the path is no ambiguity.
  EXPECT_TRUE(CheckTransport("http://127.0.0.1:8080/whl/a\\b", {}, "x").ok());
}

// Issue 13 item 25: the page's hash is read as pip reads the link ("[#&](sha512|...|md5)=..."),
// so a wheel pip would verify is verified: an md5-only fragment and "#egg=x&sha256=..." keep
// their hash in the direct reference, and a sha256 that is not 64 hex digits is refused (pip
// would refuse the download), never shown as a sha256.
TEST(InstallPlanTest, TheLinkHashIsReadAsPipReadsIt) {
  auto plan_with = [](const std::string& fragment) {
    FakeFetcher fetcher;
    fetcher.Serve(std::string(kBase) + "torch/",
                  "<a href=\"torch-2.5.1%2Bcu124-cp312-cp312-linux_x86_64.whl" + fragment +
                      "\">torch-2.5.1+cu124-cp312-cp312-linux_x86_64.whl</a>");
    return MakePlan(Request({"torch"}), &fetcher);
  };
  const std::string md5(32, 'b');
  auto plan = plan_with("#md5=" + md5);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_THAT(DirectReference(plan->routed.at(0)), ::testing::EndsWith(".whl#md5=" + md5));
  EXPECT_THAT(FormatPlan(*plan), HasSubstr("md5=" + md5));
  EXPECT_TRUE(AnyContains(plan->warnings, "md5 only"));

  const std::string sha(64, 'c');
  plan = plan_with("#egg=torch&sha256=" + sha);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_THAT(DirectReference(plan->routed.at(0)), ::testing::EndsWith(".whl#sha256=" + sha));
  EXPECT_EQ(plan->routed.at(0).sha256, sha);

  plan = plan_with("#sha256=zzzz");
  ASSERT_FALSE(plan.ok()) << FormatPlan(*plan);
  EXPECT_THAT(plan.error().message, HasSubstr("sha256=zzzz"));
  EXPECT_THAT(plan.error().message, HasSubstr("pip would refuse"));
}

// Issue 13 item 21: every redirect hop is held to the HTTPS rule, not only where the chain
// ends. 0.0.0.0 is not loopback to the rule, though Linux connects it to this machine.
TEST(InstallPlanTest, EveryRedirectHopIsHeldToTheHttpsRule) {
  using torchdex::testing::FaultResponse;
  torchdex::testing::FaultServer server;
  const std::string hop = "http://0.0.0.0:" + std::to_string(server.port()) + "/hop/torch/";
  server.Script("/whl/cu124/torch/", {FaultResponse::Redirect(hop)});
  server.Script("/hop/torch/", {FaultResponse::Redirect(server.Url("/real/torch/"))});
  server.Script("/real/torch/",
                {FaultResponse::Ok("<a href=\"torch-2.5.1%2Bcu124-cp312-cp312-linux_x86_64.whl\">"
                                   "torch-2.5.1+cu124-cp312-cp312-linux_x86_64.whl</a>")});
  PlanRequest request = Request({"torch"});
  request.backend_index_url = server.Url("/whl/cu124/");
  std::unique_ptr<index::Fetcher> fetcher = index::MakeCurlFetcher(index::FetchOptions{});
  auto plan = MakePlan(request, fetcher.get());
  ASSERT_FALSE(plan.ok()) << "planned " << plan->routed.front().url;
  EXPECT_THAT(plan.error().message, HasSubstr("the page of torch: refusing plain HTTP: " + hop));
}

// The installer's own fetchers check a redirect before following it: a hop the HTTPS rule
// refuses is never asked (the plan above refuses it too, but only after it was fetched).
TEST(InstallPlanTest, AGuardedFetcherNeverAsksARefusedHop) {
  using torchdex::testing::FaultResponse;
  torchdex::testing::FaultServer server;
  const std::string hop = "http://0.0.0.0:" + std::to_string(server.port()) + "/hop/torch/";
  server.Script("/whl/cu124/torch/", {FaultResponse::Redirect(hop)});
  server.Script("/hop/torch/", {FaultResponse::Ok("<a href=\"x.whl\">x.whl</a>")});
  std::unique_ptr<index::Fetcher> fetcher = index::MakeCurlFetcher(GuardedFetchOptions({}));
  index::FetchResult result;
  fetcher->Run({index::FetchRequest{server.Url("/whl/cu124/torch/"), "", "", 0}}, [&](index::FetchResult&& r) {
    result = std::move(r);
    return std::vector<index::FetchRequest>{};
  });
  EXPECT_EQ(result.outcome, index::FetchOutcome::kFailed);
  EXPECT_THAT(result.error, HasSubstr("refusing plain HTTP: " + hop));
  EXPECT_TRUE(server.RequestsFor("/hop/torch/").empty());
  // A trusted host's hop is followed.
  std::unique_ptr<index::Fetcher> trusting = index::MakeCurlFetcher(GuardedFetchOptions({"0.0.0.0"}));
  trusting->Run({index::FetchRequest{server.Url("/whl/cu124/torch/"), "", "", 0}}, [&](index::FetchResult&& r) {
    result = std::move(r);
    return std::vector<index::FetchRequest>{};
  });
  EXPECT_EQ(result.outcome, index::FetchOutcome::kOk) << result.error;
  EXPECT_EQ(server.RequestsFor("/hop/torch/").size(), 1u);
}

TEST(InstallPlanTest, ARoutedNameAmongTheOtherRequirementsIsRefused) {
  FakeFetcher fetcher;
  PlanRequest request = Request({});
  request.other = Asked({"numpy>=2", "Torch==2.5.1"});
  auto plan = MakePlan(request, &fetcher);
  ASSERT_FALSE(plan.ok());
  EXPECT_THAT(plan.error().message, HasSubstr("names the routed package torch"));

  request.other = Asked({"numpy>=2", "pillow ; python_version >= '3.8'"});
  plan = MakePlan(request, &fetcher);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->other, (std::vector<std::string>{"numpy>=2", "pillow ; python_version >= '3.8'"}));
}

TEST(InstallPlanTest, DirectReferencesToTheDefaultIndexFollowTheUrlRules) {
  // Non-routed direct references reached pip unchecked (issue 13, A.4).
  FakeFetcher fetcher;
  PlanRequest request = Request({});
  for (const char* refused : {"numpy @ http://0.0.0.0/numpy-2.0.0-py3-none-any.whl",
                              "evil @ file:///etc/passwd", "x @ ftp://example.com/x.whl"}) {
    request.other = Asked({refused});
    auto plan = MakePlan(request, &fetcher);
    ASSERT_FALSE(plan.ok()) << refused;
    EXPECT_EQ(plan.error().code, core::ErrorCode::kUsage) << refused;
    EXPECT_THAT(plan.error().message, HasSubstr(refused));
  }
  request.other = Asked({"numpy @ https://files.example.com/numpy-2.0.0-py3-none-any.whl",
                         "local @ http://127.0.0.1:8080/local-1.0-py3-none-any.whl"});
  EXPECT_TRUE(MakePlan(request, &fetcher).ok());
}

class TableSource final : public OfflineVersionsSource {
 public:
  std::vector<std::string> Versions(const std::string& project,
                                    const std::string& backend) const override {
    if (project == "torch" && backend == "cu124")
      return {"2.4.1+cu124", "2.5.1+cu124", "2.6.0+cu124"};
    return {};
  }
  bool HasWheelFor(const std::string&, const std::string&, const std::string& version,
                   const std::vector<core::Tag>&) const override {
    return version != "2.6.0+cu124";
  }
};

TEST(InstallPlanTest, ExtrasAndMarkersTravelWithThePinnedUrl) {
  // They were dropped: `torch[opt-einsum]==2.5.1` ran `torch @ URL` (issue 13, A.3).
  FakeFetcher fetcher;
  ServeCu124(fetcher);
  auto plan = MakePlan(Request({"torch[opt-einsum]==2.5.1 ; python_version >= \"3.8\""}), &fetcher);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  const PlannedWheel* torch = Find(*plan, "torch");
  ASSERT_NE(torch, nullptr);
  EXPECT_EQ(torch->extras, std::vector<std::string>{"opt-einsum"});
  const std::string reference = DirectReference(*torch);
  EXPECT_THAT(reference, ::testing::StartsWith("torch[opt-einsum] @ https://"));
  EXPECT_THAT(reference, HasSubstr("#sha256="));
  EXPECT_THAT(reference, ::testing::EndsWith(" ; python_version >= \"3.8\""));
  // What pip is given parses back to the same requirement.
  auto back = core::Requirement::Parse(reference);
  ASSERT_TRUE(back.ok()) << back.error().message << ": " << reference;
  EXPECT_EQ(back->extras, std::vector<std::string>{"opt-einsum"});
  auto argv = InstallCommand(*plan, {InstallerKind::kPip, "/usr/bin/python3", "", {}});
  ASSERT_TRUE(argv.ok());
  EXPECT_THAT(*argv, ::testing::Contains(reference));
  auto exported = Export(*plan, ExportFormat::kRequirements, {});
  ASSERT_TRUE(exported.ok());
  EXPECT_THAT(*exported, HasSubstr(reference + "\n"));
}

// ROCm >= 7.14: device code is a dependency (rocm_devices.h). The two layouts, as the PyTorch
// index (torch requires rocm[libraries,device-all]) and AMD's multi-arch index (per-target extras
// of torch) serve them.
constexpr const char* kRocmBase = "https://download.pytorch.org/whl/rocm7.14/";

PlanRequest RocmRequest(std::vector<std::string> routed, std::vector<std::string> gfx) {
  PlanRequest request = Request(std::move(routed));
  request.backend = "rocm7.14";
  request.backend_index_url = kRocmBase;
  request.gfx_targets = std::move(gfx);
  return request;
}

void ServeRocmTorch(FakeFetcher& fetcher, std::vector<std::string> requires_dist,
                    std::vector<std::string> provides_extra) {
  FakeWheel torch("torch-2.14.0+rocm7.14-cp312-cp312-manylinux_2_28_x86_64.whl",
                  std::move(requires_dist));
  torch.provides_extra = std::move(provides_extra);
  ServeProject(fetcher, kRocmBase, "torch", {torch});
}

// AMD's layout: the base pulls the libraries, each extra one device package.
void ServePerTargetExtras(FakeFetcher& fetcher) {
  ServeRocmTorch(fetcher,
                 {"filelock", "rocm[libraries]==7.14.*",
                  "rocm[device-all]==7.14.*; extra == \"device-all\"",
                  "rocm[device-gfx942]==7.14.*; extra == \"gfx942\"",
                  "rocm[device-gfx1100]==7.14.*; extra == \"gfx1100\"",
                  "rocm[device-gfx1201]==7.14.*; extra == \"gfx1201\""},
                 {"device-all", "gfx942", "gfx1100", "gfx1201"});
}

TEST(RocmDevicesTest, PerTargetExtrasInstallOnlyTheHostsDeviceCode) {
  FakeFetcher fetcher;
  ServePerTargetExtras(fetcher);
  auto plan = MakePlan(RocmRequest({"torch"}, {"gfx1100"}), &fetcher);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  const PlannedWheel* torch = Find(*plan, "torch");
  ASSERT_NE(torch, nullptr);
  EXPECT_EQ(torch->extras, std::vector<std::string>{"gfx1100"});
  EXPECT_EQ(torch->device_note, "gfx1100 only (torch[gfx1100], the wheel's per-target extra)");
  EXPECT_THAT(DirectReference(*torch), ::testing::StartsWith("torch[gfx1100] @ https://"));
  EXPECT_THAT(FormatPlan(*plan), HasSubstr("    device: gfx1100 only (torch[gfx1100]"));
  EXPECT_THAT(plan->warnings, IsEmpty());
  // Two GPUs of different targets: both, once each.
  auto two = MakePlan(RocmRequest({"torch"}, {"gfx942", "gfx1100", "gfx942"}), &fetcher);
  ASSERT_TRUE(two.ok()) << two.error().message;
  EXPECT_EQ(Find(*two, "torch")->extras, (std::vector<std::string>{"gfx1100", "gfx942"}));
  // What the user asked is kept as asked.
  auto asked = MakePlan(RocmRequest({"torch[device-all]"}, {"gfx1100"}), &fetcher);
  ASSERT_TRUE(asked.ok()) << asked.error().message;
  EXPECT_EQ(Find(*asked, "torch")->extras, std::vector<std::string>{"device-all"});
  EXPECT_THAT(Find(*asked, "torch")->device_note, HasSubstr("as asked"));
}

TEST(RocmDevicesTest, ATargetWithoutAnExtraIsRefusedNamingWhatIsOffered) {
  FakeFetcher fetcher;
  ServePerTargetExtras(fetcher);
  auto plan = MakePlan(RocmRequest({"torch"}, {"gfx1036"}), &fetcher);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().code, core::ErrorCode::kNotOffered);
  EXPECT_EQ(plan.error().message,
            "torch 2.14.0+rocm7.14 offers device code for gfx942, gfx1100, gfx1201 (its extras), "
            "not for gfx1036, the GPU target of this host");
  // No AMD GPU detected (a named backend on a machine without one): no guess, a warning.
  auto none = MakePlan(RocmRequest({"torch"}, {}), &fetcher);
  ASSERT_TRUE(none.ok()) << none.error().message;
  EXPECT_THAT(Find(*none, "torch")->extras, IsEmpty());
  ASSERT_EQ(none->warnings.size(), 1u);
  EXPECT_THAT(none->warnings[0], HasSubstr("no AMD GPU was detected: name one, e.g. torch[gfx942], or torch[device-all] for every target"));
}

TEST(RocmDevicesTest, ABaseRequirementOnEveryDevicePackageIsSaidNotHidden) {
  // The PyTorch index's rocm7.14 torch (RFC #191688): nothing standard narrows it.
  FakeFetcher fetcher;
  ServeRocmTorch(fetcher, {"filelock", "rocm[libraries,device-all]==7.14.*"}, {});
  auto plan = MakePlan(RocmRequest({"torch"}, {"gfx1100"}), &fetcher);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  const PlannedWheel* torch = Find(*plan, "torch");
  EXPECT_THAT(torch->extras, IsEmpty());
  EXPECT_THAT(torch->device_note, HasSubstr("every gfx target"));
  ASSERT_EQ(plan->warnings.size(), 1u);
  EXPECT_THAT(plan->warnings[0],
              HasSubstr("torch 2.14.0+rocm7.14 requires rocm[device-all,libraries]==7.14.*: the "
                        "installer fetches the device package of every gfx target"));
  EXPECT_THAT(plan->warnings[0], HasSubstr("this host needs only gfx1100"));
}

TEST(RocmDevicesTest, WheelsThatBundleTheirDeviceCodeAreLeftAlone) {
  FakeFetcher fetcher;
  ServeRocmTorch(fetcher, {"filelock", "pytorch-triton-rocm==3.3.0; platform_system == \"Linux\""},
                 {"opt-einsum"});
  auto plan = MakePlan(RocmRequest({"torch"}, {"gfx1100"}), &fetcher);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_THAT(Find(*plan, "torch")->extras, IsEmpty());
  EXPECT_EQ(Find(*plan, "torch")->device_note, "");
  EXPECT_THAT(FormatPlan(*plan), Not(HasSubstr("device:")));
}

TEST(InstallPlanTest, OfflinePlansComeFromTheTableAndCannotBeInstalled) {
  TableSource table;
  PlanRequest request = Request({"torch"});
  request.offline = &table;
  auto plan = MakePlan(request, nullptr);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_TRUE(plan->offline);
  EXPECT_EQ(Find(*plan, "torch")->version, "2.5.1+cu124");
  EXPECT_TRUE(Find(*plan, "torch")->url.empty());
  EXPECT_TRUE(AnyContains(plan->warnings, "offline"));
  auto argv = InstallCommand(*plan, {InstallerKind::kPip, "/usr/bin/python3", "", {}});
  ASSERT_FALSE(argv.ok());
  EXPECT_THAT(argv.error().message, HasSubstr("run without --offline"));
  EXPECT_FALSE(Export(*plan, ExportFormat::kRequirements, {}).ok());
  EXPECT_TRUE(Export(*plan, ExportFormat::kUv, {}).ok());
}

TEST(CoreMetadataTest, ReadsHeadersUntilTheBody) {
  auto metadata = ParseCoreMetadata(
      "Metadata-Version: 2.1\r\nName: torch\r\nVersion: 2.5.1+cu124\r\n"
      "Requires-Dist: filelock\r\nrequires-dist: triton==3.1.0;\r\n  platform_system == "
      "\"Linux\"\r\n"
      "Requires-Python: >=3.9.0\r\n\r\nRequires-Dist: from-the-body\r\n",
      "torch.metadata");
  ASSERT_TRUE(metadata.ok()) << metadata.error().message;
  EXPECT_EQ(metadata->name, "torch");
  EXPECT_EQ(metadata->version, "2.5.1+cu124");
  EXPECT_EQ(metadata->requires_python, ">=3.9.0");
  ASSERT_EQ(metadata->requires_dist.size(), 2u);
  EXPECT_EQ(metadata->requires_dist[1].NormalizedName(), "triton");
  EXPECT_FALSE(metadata->requires_dist[1].marker.empty());

  auto bad = ParseCoreMetadata("Name: torch\nRequires-Dist: triton===\n", "u.metadata");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.error().message, HasSubstr("u.metadata line 2: Requires-Dist \"triton===\""));
  EXPECT_FALSE(ParseCoreMetadata("not a header\n", "u").ok());
  EXPECT_FALSE(ParseCoreMetadata("Version: 1\n", "u").ok());
}

InstallPlan SamplePlan() {
  InstallPlan plan;
  plan.backend = "cu124";
  plan.backend_index_url = kBase;
  plan.default_index_url = "https://pypi.org/simple/";
  plan.target_description = "CPython 3.12.4 (/venv/bin/python)";
  plan.routed = {{"torch",
                  "2.5.1+cu124",
                  "torch-2.5.1+cu124-cp312-cp312-linux_x86_64.whl",
                  std::string(kBase) + "torch-2.5.1%2Bcu124-cp312-cp312-linux_x86_64.whl",
                  std::string(64, 'c'),
                  "sha256=" + std::string(64, 'c'),
                  std::string(kBase) + "torch/",
                  {"you asked torch"}},
                 {"triton",
                  "3.1.0",
                  "triton-3.1.0-cp312-cp312-linux_x86_64.whl",
                  std::string(kBase) + "triton-3.1.0-cp312-cp312-linux_x86_64.whl",
                  "",
                  "",
                  std::string(kBase) + "triton/",
                  {"torch 2.5.1+cu124 needs triton==3.1.0"}}};
  plan.other = {"numpy>=2", "pillow"};
  return plan;
}

TEST(InstallCommandTest, PipAndUvArgvPinRoutedPackagesByUrlAndHash) {
  const InstallPlan plan = SamplePlan();
  auto pip =
      InstallCommand(plan, {InstallerKind::kPip, "/venv/bin/python", "", {"--no-cache-dir"}});
  ASSERT_TRUE(pip.ok()) << pip.error().message;
  EXPECT_EQ(
      *pip,
      (std::vector<std::string>{
          "/venv/bin/python", "-m", "pip", "install",
          "torch @ " + std::string(kBase) +
              "torch-2.5.1%2Bcu124-cp312-cp312-linux_x86_64.whl#sha256=" + std::string(64, 'c'),
          "triton @ " + std::string(kBase) + "triton-3.1.0-cp312-cp312-linux_x86_64.whl",
          "numpy>=2", "pillow", "--index-url", "https://pypi.org/simple/", "--no-cache-dir"}));
  auto uv = InstallCommand(plan, {InstallerKind::kUv, "/venv/bin/python", "/usr/bin/uv", {}});
  ASSERT_TRUE(uv.ok());
  EXPECT_EQ(
      std::vector<std::string>(uv->begin(), uv->begin() + 5),
      (std::vector<std::string>{"/usr/bin/uv", "pip", "install", "--python", "/venv/bin/python"}));
  EXPECT_EQ(QuoteCommand({"/p y/python", "-m", "a'b", "x>=1"}),
            "'/p y/python' -m 'a'\\''b' 'x>=1'");
  EXPECT_FALSE(ParseInstallerKind("conda").ok());

  auto no_uv = FindUv({{"PATH", "/nonexistent-dir"}});
  ASSERT_FALSE(no_uv.ok());
  EXPECT_THAT(no_uv.error().message, HasSubstr("uv is not on PATH"));
}

class CannedRunner final : public ProcessRunner {
 public:
  ProcessResult Run(const std::vector<std::string>& argv, const Environment&,
                    std::chrono::milliseconds) override {
    calls.push_back(argv);
    ProcessResult result;
    result.status = ProcessResult::Status::kExited;
    result.exit_code = exit_code;
    result.output = output;
    return result;
  }
  ProcessResult RunInChild(const std::function<std::string()>&,
                           std::chrono::milliseconds) override {
    return {};
  }
  std::vector<std::vector<std::string>> calls;
  std::string output;
  int exit_code = 0;
};

TEST(InstallerDefaultIndexTest, PipsConfigurationInPipsOrderAndTheRoutingIndexReplacesIt) {
  EXPECT_EQ(PipConfigIndexUrl("global.cert='/etc/ssl/certs/ca-certificates.crt'\n"
                              "global.index-url='https://global.example/simple/'\n"),
            "https://global.example/simple/");
  EXPECT_EQ(PipConfigIndexUrl("global.index-url='https://global.example/simple/'\n"
                              "install.index-url='https://install.example/simple/'\n"),
            "https://install.example/simple/");
  EXPECT_EQ(PipConfigIndexUrl(":env:.index-url='https://env.example/simple/'\r\n"
                              "install.index-url='https://install.example/simple/'\n"),
            "https://env.example/simple/");
  EXPECT_EQ(PipConfigIndexUrl(":env:.extra-index-url='https://x/'\n"), "");

  InstallPlan plan;
  plan.default_index_url = "https://mirror.example/simple/";
  InstallCommandOptions options{InstallerKind::kPip, "/venv/bin/python", "", {}, ""};
  options.routing_index_url = "http://127.0.0.1:4242/simple/";
  auto argv = InstallCommand(plan, options);
  ASSERT_TRUE(argv.ok());
  // The routing index is given in the environment, not on the world-readable argv.
  EXPECT_EQ(*argv, (std::vector<std::string>{"/venv/bin/python", "-m", "pip", "install"}));
  EXPECT_EQ(DisplayCommand(*argv, options, "http://127.0.0.1:4242/<token>/simple/"),
            "PIP_INDEX_URL='http://127.0.0.1:4242/<token>/simple/' /venv/bin/python -m pip install");
  options.installer = InstallerKind::kUv;
  options.uv = "/usr/bin/uv";
  auto uv = InstallCommand(plan, options);
  ASSERT_TRUE(uv.ok());
  EXPECT_EQ(uv->back(), "/venv/bin/python");
  EXPECT_EQ(IndexVariable(InstallerKind::kUv), "UV_DEFAULT_INDEX");
  // Without a routing index (export's command), the plan's default index is on it.
  options.routing_index_url.clear();
  EXPECT_EQ(InstallCommand(plan, options)->back(), "https://mirror.example/simple/");

  // The credentials this run's netrc gives are not on the argv either.
  PlannedWheel torch;
  torch.name = "torch";
  torch.version = "2.5.1+cu124";
  torch.url = "https://user:s3cret@mirror.example/whl/torch-2.5.1%2Bcu124-py3-none-any.whl";
  torch.sha256 = std::string(64, 'a');
  torch.hash = "sha256=" + torch.sha256;
  plan.routed = {torch};
  ChildCredentials credentials;
  credentials.Add(torch.url);
  options.routing_index_url = "http://127.0.0.1:4242/t/simple/";
  options.credentials = &credentials;
  auto private_argv = InstallCommand(plan, options);
  ASSERT_TRUE(private_argv.ok());
  EXPECT_EQ(private_argv->back(),
            "torch @ https://mirror.example/whl/torch-2.5.1%2Bcu124-py3-none-any.whl#sha256=" + torch.sha256);
  options.credentials = nullptr;
  EXPECT_THAT(InstallCommand(plan, options)->back(), HasSubstr("s3cret"));

  // Asked of the installer: pip through `pip config list`, uv through its variables.
  CannedRunner runner;
  EXPECT_EQ(
      InstallerDefaultIndex(options, runner, {{"UV_INDEX_URL", "https://uv.example/simple/"}}),
      "https://uv.example/simple/");
  EXPECT_EQ(InstallerDefaultIndex(options, runner,
                                  {{"UV_INDEX_URL", "https://uv.example/simple/"},
                                   {"UV_DEFAULT_INDEX", "https://default.example/simple/"}}),
            "https://default.example/simple/");
  EXPECT_EQ(InstallerDefaultIndex(options, runner, {}), kPypiSimpleUrl);
  EXPECT_THAT(runner.calls, IsEmpty());
  options.installer = InstallerKind::kPip;
  runner.output = "global.index-url='https://corp.example/simple/'\n";
  EXPECT_EQ(InstallerDefaultIndex(options, runner, {}), "https://corp.example/simple/");
  EXPECT_THAT(runner.calls, ElementsAre(std::vector<std::string>{"/venv/bin/python", "-m", "pip",
                                                                 "config", "list"}));
  runner.exit_code = 1;  // no pip: its default (and the install then says pip is missing)
  EXPECT_EQ(InstallerDefaultIndex(options, runner, {}), kPypiSimpleUrl);
}

TEST(InstallCommandTest, InstallerOptionsThatAddAnIndexAreRefusedAfterTheDashes) {
  const InstallPlan plan = SamplePlan();
  for (const char* arg : {"--index-url", "--index-url=https://pypi.org/simple/", "-i",
                          "-ihttps://pypi.org/simple/", "--extra-index-url", "--find-links=/w",
                          "-f", "--index", "--default-index=https://x/", "-r", "--requirement",
                          // issue 29 (the attack of item 2): every other way to give a source
                          "-c", "--constraint", "--constraints", "--override", "--overrides", "--config-file",
                          "--torch-backend=cu121", "--extra-index", "--find", "-qf", "-Uc", "--trusted-host",
                          "--allow-insecure-host", "--no-verify-hashes", "torch @ file:///bait.whl", "numpy"}) {
    auto argv = InstallCommand(plan, {InstallerKind::kPip, "/venv/bin/python", "", {arg}, ""});
    ASSERT_FALSE(argv.ok()) << arg;
    EXPECT_EQ(argv.error().code, core::ErrorCode::kUsage);
    EXPECT_THAT(argv.error().message, HasSubstr(std::string(arg) + "\" after --: "));
    EXPECT_THAT(argv.error().message, HasSubstr("routing index"));
  }
  for (const char* arg : {"--no-index", "--index-strategy=first-index", "--no-cache-dir", "-I", "-q", "-qU",
                          "--no-deps", "--upgrade"}) {
    EXPECT_TRUE(
        InstallCommand(plan, {InstallerKind::kUv, "/venv/bin/python", "/usr/bin/uv", {arg}, ""})
            .ok())
        << arg;
  }
  // A passed option's value is its own: `--target -c` names a directory "-c".
  EXPECT_TRUE(InstallCommand(plan, {InstallerKind::kPip, "/venv/bin/python", "", {"--target", "-c"}, ""}).ok());
  EXPECT_FALSE(InstallCommand(plan, {InstallerKind::kPip, "/venv/bin/python", "", {"--target", "/t", "-c"}, ""}).ok());
}

TEST(InstallCommandTest, UvsCheckOfTheResolutionGetsThePassedOptionsThatChangeIt) {
  // The attack's G5: `-- --prerelease allow` reached `uv pip install` but not the `uv pip compile`
  // that checks its resolution first, which then resolved something else.
  EXPECT_EQ(ResolutionArgs({"--prerelease", "allow", "--no-cache", "--resolution=lowest", "-qU", "--target", "/t",
                            "--only-binary", ":all:", "--reinstall", "--upgrade-package", "torch"}),
            (std::vector<std::string>{"--prerelease", "allow", "--resolution=lowest", "-U", "--only-binary", ":all:",
                                      "--upgrade-package", "torch"}));
  EXPECT_TRUE(ResolutionArgs({"--quiet", "--link-mode", "copy", "--compile-bytecode", "-q"}).empty());
  // A value that looks like a resolution option is a value: `--target --pre` names a directory.
  EXPECT_TRUE(ResolutionArgs({"--target", "--pre"}).empty());
}

TEST(ExportTest, EachFormatSaysWhatWasChosenAndPinsRoutedPackagesToTheBackend) {
  const InstallPlan plan = SamplePlan();
  ExportContext context{{"detected: NVIDIA driver 550.144.03\nsecond line", "chosen: cu124"}};
  auto requirements = Export(plan, ExportFormat::kRequirements, context);
  ASSERT_TRUE(requirements.ok());
  EXPECT_THAT(*requirements, HasSubstr("# detected: NVIDIA driver 550.144.03\n# second line\n"));
  EXPECT_THAT(*requirements, HasSubstr("# chosen: cu124\n"));
  EXPECT_THAT(*requirements, HasSubstr("\n--index-url https://pypi.org/simple/\n"));
  EXPECT_THAT(*requirements, HasSubstr("\ntorch @ " + std::string(kBase)));
  EXPECT_THAT(*requirements, HasSubstr("# no sha256 on " + std::string(kBase) + "triton/"));

  auto uv = Export(plan, ExportFormat::kUv, context);
  ASSERT_TRUE(uv.ok());
  EXPECT_THAT(*uv, HasSubstr("[[tool.uv.index]]\nname = \"pytorch-cu124\"\nurl = \"" +
                             std::string(kBase) + "\"\nexplicit = true\n"));
  EXPECT_THAT(*uv, HasSubstr("\ntorch = { index = \"pytorch-cu124\" }"));
  EXPECT_THAT(*uv, HasSubstr("\ntriton = { index = \"pytorch-cu124\" }"));

  auto conf = Export(plan, ExportFormat::kPipConf, context);
  ASSERT_TRUE(conf.ok());
  EXPECT_THAT(*conf, HasSubstr("[global]\nindex-url = " + std::string(kBase) + "\n"));
  EXPECT_EQ(conf->find("extra-index-url ="), std::string::npos);
  EXPECT_FALSE(ParseExportFormat("poetry").ok());
}

TEST(InstallCliTest, OptionsAreCheckedBeforeAnythingRuns) {
  auto parsed = ParseCommandLine({"install", "--dry-run", "torch", "numpy>=2", "--", "--no-deps"});
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_EQ(parsed->install.choice.requirements, (std::vector<std::string>{"torch", "numpy>=2"}));
  EXPECT_EQ(parsed->passthrough, std::vector<std::string>{"--no-deps"});
  EXPECT_TRUE(parsed->install.dry_run);

  auto format = ParseCommandLine({"export", "--format", "poetry", "torch"});
  ASSERT_FALSE(format.ok());
  EXPECT_THAT(format.error().message, HasSubstr("unknown export format \"poetry\""));
  auto offline = ParseCommandLine({"install", "--offline", "torch"});
  ASSERT_FALSE(offline.ok());
  EXPECT_THAT(offline.error().message, HasSubstr("only be used with --dry-run"));
  EXPECT_FALSE(ParseCommandLine({"detect", "--", "x"}).ok());
  EXPECT_FALSE(ParseCommandLine({"install", "--installer", "conda", "torch"}).ok());
  EXPECT_FALSE(ParseCommandLine({"install"}).ok());
  EXPECT_TRUE(ParseCommandLine({"install", "--help"}).ok());
}

}  // namespace
}  // namespace torchdex::installer

namespace torchdex::installer {
namespace {

// The installer's failures, through a stand-in interpreter that fails as pip does: the exit
// code is passed on, and the cause is said in words.
class FakePython {
 public:
  FakePython(const std::string& stderr_text, int code) {
    char pattern[] = "/tmp/torchdex-fake-python-XXXXXX";
    dir_ = mkdtemp(pattern);
    path_ = dir_ + "/python";
    std::ofstream(path_) << "#!/bin/sh\ncat >&2 <<'EOF'\n" << stderr_text << "\nEOF\nexit " << code << "\n";
    chmod(path_.c_str(), 0755);
  }
  ~FakePython() { std::filesystem::remove_all(dir_); }
  const std::string& path() const { return path_; }

 private:
  std::string dir_;
  std::string path_;
};

struct InstallerFailure {
  const char* what;
  const char* stderr_text;
  int code;
  const char* explained;
};

TEST(ExecuteInstallTest, InstallerFailuresKeepTheirExitCodeAndAreExplained) {
  const InstallerFailure failures[] = {
      {"pip missing", "/venv/bin/python: No module named pip", 1, "has no pip; add it ("},
      {"read-only venv",
       "ERROR: Could not install packages due to an OSError: [Errno 30] Read-only file system: "
       "'/venv/lib/python3.11/site-packages/torch'",
       1, "cannot be written (read-only, or another user's); nothing was installed there"},
      {"wrong hash", "ERROR: THESE PACKAGES DO NOT MATCH THE HASHES FROM THE REQUIREMENTS FILE.", 1,
       "does not match the sha256 on the backend page"},
      {"any other failure", "ERROR: something else", 2, "exited with 2"},
  };
  const std::unique_ptr<ProcessRunner> runner = MakeSystemProcessRunner();
  for (const InstallerFailure& f : failures) {
    FakePython python(f.stderr_text, f.code);
    std::ostringstream out, err;
    const int code = ExecuteInstall({python.path(), "-m", "pip", "install", "torch"}, *runner, {},
                                    out, err, std::chrono::seconds(10));
    EXPECT_EQ(code, f.code) << f.what;
    EXPECT_THAT(err.str(), ::testing::HasSubstr(f.explained)) << f.what << ": " << err.str();
    EXPECT_THAT(err.str(), ::testing::HasSubstr("exited with " + std::to_string(f.code))) << f.what;
  }
}

}  // namespace
}  // namespace torchdex::installer
