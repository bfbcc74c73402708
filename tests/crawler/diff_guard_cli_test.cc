// `torchdex-crawl diff --guard`: the sync job's publish decision as exit codes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "catalogue/catalogue.h"
#include "crawler/cli.h"

namespace torchdex::crawler {
namespace {

namespace fs = std::filesystem;

catalogue::Catalogue Small() {
  catalogue::Catalogue c;
  c.family = "pytorch";
  c.channel = "stable";
  c.crawled_from = "http://127.0.0.1/whl/";
  for (const char* name : {"cpu", "cu126"}) {
    catalogue::CatalogueBackend b;
    b.kind = std::string(name) == "cpu" ? "cpu" : "cuda";
    b.toolkit = std::string(name) == "cpu" ? "" : "12.6";
    b.state = core::BackendState::kOk;
    b.projects = 2;
    c.backends[name] = b;
  }
  catalogue::CatalogueProject torch;
  torch.cls = "routed";
  torch.reason = "builds differ by backend";
  torch.builds["cpu"]["2.9.0+cpu"] = {"cp312-cp312-manylinux_2_28_x86_64"};
  torch.builds["cu126"]["2.9.0+cu126"] = {"cp312-cp312-manylinux_2_28_x86_64"};
  c.projects["torch"] = torch;
  return c;
}

struct Result {
  int code;
  std::string out, err;
};

class DiffGuardCliTest : public ::testing::Test {
 protected:
  DiffGuardCliTest() {
    char pattern[] = "/tmp/torchdex-guard-cli-XXXXXX";
    dir_ = mkdtemp(pattern);
  }
  ~DiffGuardCliTest() override { fs::remove_all(dir_); }

  std::string Write(const std::string& name, const catalogue::Catalogue& c) {
    const fs::path path = dir_ / name;
    std::ofstream(path) << catalogue::WriteCatalogueJson(c);
    return path.string();
  }
  Result Run(std::vector<std::string> args) {
    std::ostringstream out, err;
    const int code = RunCrawlCli(args, out, err, DefaultCliDeps());
    return {code, out.str(), err.str()};
  }

  fs::path dir_;
};

TEST_F(DiffGuardCliTest, ExitCodesAreNoChangeChangedAndRefused) {
  const std::string old_path = Write("old.json", Small());
  catalogue::Catalogue moved = Small();
  moved.crawled_from = "http://mirror.example/whl/";  // provenance only
  Result r = Run({"diff", old_path, Write("moved.json", moved), "--guard"});
  EXPECT_EQ(r.code, kExitNoChange) << r.out << r.err;
  EXPECT_EQ(r.out.rfind("**Verdict: no change**", 0), 0u) << r.out;

  catalogue::Catalogue grown = Small();
  grown.projects["torch"].builds["cpu"]["2.10.0+cpu"] = {"cp312-cp312-manylinux_2_28_x86_64"};
  r = Run({"diff", old_path, Write("grown.json", grown), "--guard"});
  EXPECT_EQ(r.code, kExitChanged) << r.out << r.err;
  EXPECT_NE(r.out.find("- new torch release(s): 2.10.0"), std::string::npos) << r.out;

  catalogue::Catalogue shrunk = Small();
  shrunk.backends.erase("cu126");
  shrunk.projects["torch"].builds.erase("cu126");
  const std::string shrunk_path = Write("shrunk.json", shrunk);
  r = Run({"diff", old_path, shrunk_path, "--guard"});
  EXPECT_EQ(r.code, kExitRefused) << r.out << r.err;
  EXPECT_NE(r.out.find("- REFUSED: backend cu126 disappeared from the index"), std::string::npos)
      << r.out;
  EXPECT_NE(
      r.out.find("- REFUSED: 1 of 2 wheels would be removed (50.0%, more than the 10.0% allowed)"),
      std::string::npos)
      << r.out;

  // Accepting the backend's removal leaves the share rule; a limit of 1 accepts that too.
  r = Run({"diff", old_path, shrunk_path, "--guard", "--allow-removed", "cu126"});
  EXPECT_EQ(r.code, kExitRefused) << r.out;
  r = Run({"diff", old_path, shrunk_path, "--guard", "--allow-removed", "cu126", "--max-wheel-loss",
           "1"});
  EXPECT_EQ(r.code, kExitChanged) << r.out;

  r = Run({"diff", old_path, shrunk_path, "--guard", "--json"});
  EXPECT_EQ(r.code, kExitRefused);
  EXPECT_NE(r.out.find("\"verdict\": \"refused\""), std::string::npos) << r.out;

  // Without --guard, diff only reports: exit 0 whatever changed.
  EXPECT_EQ(Run({"diff", old_path, shrunk_path}).code, kExitOk);
}

TEST_F(DiffGuardCliTest, RejectsAShareOutsideZeroToOne) {
  const std::string old_path = Write("old.json", Small());
  const Result r = Run({"diff", old_path, old_path, "--guard", "--max-wheel-loss", "10"});
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_NE(r.err.find("--max-wheel-loss must be a share between 0 and 1"), std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace torchdex::crawler
