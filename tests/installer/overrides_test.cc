#include "installer/override_files/override_files.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace torchdex::installer {
namespace {

core::Expected<OverrideFile> Parse(const std::string& text) { return ParseOverrideFile(text, "/etc/x/o.json"); }

std::string ErrorOf(const std::string& text) {
  auto parsed = Parse(text);
  EXPECT_FALSE(parsed.ok()) << text;
  return parsed.ok() ? "" : parsed.error().message;
}

TEST(OverridesTest, ReadsEverythingAFileCanSay) {
  auto f = Parse(R"({
    // comments are allowed
    "format": 1,
    "mirror": "https://nexus.example.com/repository/pytorch/whl",
    "backends": {
      "cu128": {"url": "https://artifactory.example.com/pt-cu128/"},
      "cu126-internal": {"kind": "cuda", "toolkit": "12.6", "url": "http://pypi.internal/cu126",
                         "driver_floor": {"linux": "560.28.03"}, "arch": ["8.0", "9.0"], "ptx": "9.0"}
    },
    "routed": {"add": {"My_Pkg": "built per CUDA version in our CI"},
               "remove": {"torchdata": "we take it from PyPI"}},
    "pin": {"TorchVision": "cu126"},
    "catalogue": "newer/catalogue.json",
    "trusted_hosts": ["pypi.internal"]
  })");
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ(*f->mirror, "https://nexus.example.com/repository/pytorch/whl/");
  EXPECT_EQ(f->backend_urls.at("cu128"), "https://artifactory.example.com/pt-cu128/");
  const CustomBackend& b = f->custom_backends.at("cu126-internal");
  EXPECT_EQ(b.kind, core::BackendKind::kCuda);
  EXPECT_EQ(b.index_url, "http://pypi.internal/cu126/");
  EXPECT_EQ(b.driver_floor.at(core::TargetOs::kLinux).ToString(), "560.28.03");
  EXPECT_EQ(b.cuda_arch, (std::vector<core::ComputeCapability>{{8, 0}, {9, 0}}));
  EXPECT_EQ(b.ptx, (core::ComputeCapability{9, 0}));
  EXPECT_EQ(f->routed_add.at("my-pkg"), "built per CUDA version in our CI");
  EXPECT_EQ(f->routed_remove.at("torchdata"), "we take it from PyPI");
  EXPECT_EQ(f->pins.at("torchvision"), "cu126");
  EXPECT_EQ(*f->catalogue, "/etc/x/newer/catalogue.json");
  EXPECT_EQ(f->trusted_hosts, (std::vector<std::string>{"pypi.internal"}));
}

TEST(OverridesTest, EveryErrorSaysWhere) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"{\"format\": 1,\n \"mirror\": \"https://x/\",\n oops}", "/etc/x/o.json:3:2: not valid JSON"},
      {"[]", "/etc/x/o.json: /: expected an object"},
      {"{\"mirror\": \"https://x/\"}", "/etc/x/o.json: /format: expected 1"},
      {"{\"format\": 1, \"mirorr\": \"https://x/\"}", "/etc/x/o.json: /mirorr: unknown key \"mirorr\" (did you mean \"mirror\"?)"},
      {"{\"format\": 1, \"mirror\": \"ftp://x/\"}", "/mirror: expected an http:// or https:// URL, got \"ftp://x/\""},
      {"{\"format\": 1, \"backends\": {\"cu128\": {\"ulr\": \"https://x/\"}}}", "/backends/cu128/ulr: unknown key \"ulr\" (did you mean \"url\"?)"},
      {"{\"format\": 1, \"backends\": {\"my\": {\"kind\": \"cuda\", \"url\": \"https://x/\"}}}", "/backends/my: a cuda backend needs \"toolkit\""},
      {"{\"format\": 1, \"backends\": {\"my\": {\"kind\": \"cdua\", \"url\": \"https://x/\"}}}", "/backends/my/kind: \"cdua\" is not one of cpu, cuda, rocm, xpu (did you mean \"cuda\"?)"},
      {"{\"format\": 1, \"backends\": {\"my\": {\"kind\": \"cpu\", \"url\": \"https://x/\", \"driver_floor\": {\"linux\": \"new\"}}}}", "/backends/my/driver_floor/linux: \"new\" is not a driver version"},
      {"{\"format\": 1, \"backends\": {\"my\": {\"kind\": \"cuda\", \"toolkit\": \"12.6\", \"url\": \"https://x/\", \"arch\": [\"8.x\"]}}}", "/backends/my/arch/0: \"8.x\" is not a compute capability"},
      {"{\"format\": 1, \"backends\": {\"my\": {\"kind\": \"cuda\", \"toolkit\": \"12.6\", \"url\": \"https://x/\", \"ptx\": \"nine\"}}}", "/backends/my/ptx: \"nine\" is not a compute capability"},
      {"{\"format\": 1, \"routed\": {\"add\": {\"-bad-\": \"x\"}}}", "/routed/add/-bad-: \"-bad-\" is not a valid project name"},
      {"{\"format\": 1, \"routed\": {\"add\": {\"x\": \"\"}}}", "/routed/add/x: expected the reason"},
      {"{\"format\": 1, \"routed\": {\"add\": {\"x\": \"a\"}, \"remove\": {\"X\": \"b\"}}}", "/routed/remove/x: \"x\" is both added and removed"},
      {"{\"format\": 1, \"pin\": {\"torch\": 3}}", "/pin/torch: expected a non-empty string"},
      {"{\"format\": 1, \"trusted_hosts\": \"h\"}", "/trusted_hosts: expected an array"},
  };
  for (const auto& [text, want] : cases) {
    const std::string error = ErrorOf(text);
    EXPECT_NE(error.find(want), std::string::npos) << "got: " << error << "\nwant: " << want;
  }
}

class TempFiles {
 public:
  TempFiles() {
    char pattern[] = "/tmp/torchdex-overrides-XXXXXX";
    dir_ = mkdtemp(pattern);
  }
  ~TempFiles() { std::filesystem::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& text) {
    const std::string path = dir_ + "/" + name;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path) << text;
    return path;
  }
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
};

TEST(OverridesTest, LaterFilesWinKeyByKeyAndSayWhereEachEntryCameFrom) {
  TempFiles t;
  const std::string a = t.Write("a.json", R"({"format": 1, "mirror": "https://a/", "pin": {"torch": "cu126"},
                                              "routed": {"add": {"mypkg": "from a"}}})");
  const std::string b = t.Write("b.json", R"({"format": 1, "mirror": "https://b/",
                                              "routed": {"remove": {"mypkg": "b drops it"}}})");
  auto effective = LoadOverrides(FileReader(""), {a, b});
  ASSERT_TRUE(effective.ok()) << effective.error().message;
  EXPECT_EQ(effective->mirror->value, "https://b/");
  EXPECT_EQ(effective->mirror->origin, b);
  EXPECT_EQ(effective->pins.at("torch").origin, a);
  EXPECT_EQ(effective->routed_add.count("mypkg"), 0u);
  EXPECT_EQ(effective->routed_remove.at("mypkg").origin, b);
  EXPECT_EQ(effective->files, (std::vector<std::string>{a, b}));
}

TEST(OverridesTest, ABadFileAppliesNothing) {
  TempFiles t;
  const std::string good = t.Write("good.json", R"({"format": 1, "mirror": "https://good/"})");
  const std::string bad = t.Write("bad.json", R"({"format": 1, "pin": {"torch": ""}})");
  auto effective = LoadOverrides(FileReader(""), {good, bad});
  ASSERT_FALSE(effective.ok());
  EXPECT_NE(effective.error().message.find(bad + ": /pin/torch"), std::string::npos) << effective.error().message;
  EXPECT_EQ(effective.error().code, core::ErrorCode::kBadInputFile);
  auto missing = LoadOverrides(FileReader(""), {t.dir() + "/nope.json"});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("nope.json: cannot be read"), std::string::npos);
}

TEST(OverridesTest, ReadsOnlyRegularFilesOfABoundedSize) {
  // /dev/zero once read 5.4 GB; a FIFO hung the command.
  auto zero = LoadOverrides(FileReader(""), {"/dev/zero"});
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(zero.error().message.find("/dev/zero: not a regular file"), std::string::npos) << zero.error().message;
  TempFiles t;
  const std::string big = t.Write("big.json", std::string(kMaxOverrideFileBytes + 1, ' '));
  auto large = LoadOverrides(FileReader(""), {big});
  ASSERT_FALSE(large.ok());
  EXPECT_NE(large.error().message.find("larger than 1 MiB"), std::string::npos) << large.error().message;
  EXPECT_EQ(large.error().code, core::ErrorCode::kBadInputFile);
}

TEST(OverridesTest, FilesComeFromTheConfigFolderThenTheVariableThenTheCommandLine) {
  const OverrideSources sources{"/home/u/.config", "/srv/a.json::/srv/b.json", {"cli.json"}};
  const auto paths = OverrideFilePaths(sources, [](const std::string& dir) {
    EXPECT_EQ(dir, "/home/u/.config/torchdex/catalogue.d");
    return std::vector<std::string>{dir + "/10-site.json", dir + "/20-user.json"};
  });
  EXPECT_EQ(paths, (std::vector<std::string>{"/home/u/.config/torchdex/catalogue.d/10-site.json",
                                             "/home/u/.config/torchdex/catalogue.d/20-user.json",
                                             "/srv/a.json", "/srv/b.json", "cli.json"}));
}

TEST(OverridesTest, TheMirrorReplacesTheIndexForEveryBackendButThoseWithTheirOwnUrl) {
  EffectiveOverrides o;
  const std::string base = "https://download.pytorch.org/whl/";
  EXPECT_EQ(BackendIndexUrl(o, base, "", "cu128"), "https://download.pytorch.org/whl/cu128/");
  EXPECT_EQ(BackendIndexUrl(o, base, "nightly/", "cu128"), "https://download.pytorch.org/whl/nightly/cu128/");
  o.mirror = Sourced<std::string>{"https://nexus/pytorch/", "m.json"};
  EXPECT_EQ(BackendIndexUrl(o, base, "", "cu126"), "https://nexus/pytorch/cu126/");
  o.backend_urls["cu128"] = {"https://art/cu128/", "m.json"};
  EXPECT_EQ(BackendIndexUrl(o, base, "", "cu128"), "https://art/cu128/");
  CustomBackend custom;
  custom.index_url = "http://pypi.internal/cu126/";
  o.custom_backends["internal"] = {custom, "m.json"};
  EXPECT_EQ(BackendIndexUrl(o, base, "", "internal"), "http://pypi.internal/cu126/");
}

}  // namespace
}  // namespace torchdex::installer
