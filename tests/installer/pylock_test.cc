// PEP 751 lock files as torchdex writes and reads them (installer/lock/pylock.h). That the
// files are valid PEP 751 for packaging's reference parser and for uv is checked end to end
// (tests/installer/e2e/lock_e2e_test.cc).
#include "installer/lock/pylock.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace torchdex::installer {
namespace {

using ::testing::HasSubstr;

const std::string kSha(64, 'a');

PyLock Sample() {
  PyLock lock;
  lock.requires_python = ">=3.9";
  LockedPackage torch;
  torch.name = "torch";
  torch.version = "2.5.1+cu124";
  torch.routed = true;
  torch.index = "https://download.pytorch.org/whl/cu124/";
  torch.wheels.push_back({"torch-2.5.1+cu124-cp312-cp312-linux_x86_64.whl",
                          "https://download.pytorch.org/whl/cu124/torch-2.5.1%2Bcu124-cp312-cp312-linux_x86_64.whl",
                          kSha, 123, "", 0});
  LockedPackage filelock;
  filelock.name = "filelock";
  filelock.version = "3.16.1";
  filelock.marker = "python_version >= \"3.8\"";
  filelock.wheels.push_back({"filelock-3.16.1-py3-none-any.whl", "https://pypi/f.whl", std::string(64, 'b'), {}, "", 0});
  lock.packages = {filelock, torch};
  lock.torchdex.backend = "cu124";
  lock.torchdex.channel = "stable";
  lock.torchdex.index_url = "https://download.pytorch.org/whl/cu124/";
  lock.torchdex.catalogue = "embedded table";
  lock.torchdex.catalogue_date = "2026-03-15";
  lock.torchdex.target = "CPython 3.12.4";
  lock.torchdex.requirements = {"torch==2.5.1", "filelock"};
  lock.torchdex.decision = {"backend cu124 named by --backend"};
  return lock;
}

TEST(PyLockTest, FileNamesAreThoseThePepAllows) {
  EXPECT_EQ(LockFileName("cu128"), "pylock.cu128.toml");
  EXPECT_EQ(LockFileName("rocm6.3"), "pylock.rocm6-3.toml");
  EXPECT_TRUE(IsLockFileName("pylock.toml"));
  EXPECT_TRUE(IsLockFileName("pylock.cpu.toml"));
  EXPECT_TRUE(IsLockFileName(LockFileName("rocm6.3")));
  EXPECT_FALSE(IsLockFileName("pylock.rocm6.3.toml"));
  EXPECT_FALSE(IsLockFileName("pylock..toml"));
  EXPECT_FALSE(IsLockFileName("pylock.cpu.toml.torchdex-tmp"));
  EXPECT_FALSE(IsLockFileName("xpylock.cpu.toml"));
}

TEST(PyLockTest, WhatIsWrittenReadsBackTheSame) {
  const std::string text = WritePyLock(Sample());
  auto read = ParsePyLock(text, "pylock.cu124.toml");
  ASSERT_TRUE(read.ok()) << read.error().message << "\n" << text;
  EXPECT_EQ(read->torchdex.backend, "cu124");
  EXPECT_EQ(read->torchdex.catalogue_date, "2026-03-15");
  EXPECT_EQ(read->torchdex.requirements, Sample().torchdex.requirements);
  ASSERT_EQ(read->packages.size(), 2u);
  EXPECT_EQ(read->packages[1].name, "torch");
  EXPECT_TRUE(read->packages[1].routed);
  EXPECT_FALSE(read->packages[0].routed);
  EXPECT_EQ(read->packages[1].wheels[0].sha256, kSha);
  EXPECT_EQ(read->packages[1].wheels[0].size, 123);
  EXPECT_EQ(read->packages[0].marker, "python_version >= \"3.8\"");
  EXPECT_EQ(WritePyLock(*read), text);  // byte-stable
  EXPECT_THAT(text, HasSubstr("lock-version = \"1.0\"\n"));
  EXPECT_THAT(text, HasSubstr("created-by = \"torchdex\"\n"));
  EXPECT_THAT(text, HasSubstr("[tool.torchdex]\nbackend = \"cu124\"\n"));
}

// A lock is committed and shared: the credentials of a private mirror or index are never
// written into it (the installer that syncs it takes them from netrc or its keyring).
TEST(PyLockTest, CredentialsAreNeverWritten) {
  PyLock lock = Sample();
  lock.packages[1].index = "https://tok:MIRRORSECRET@mirror.example/whl/cu124/";
  lock.packages[1].wheels[0].url = "https://tok:MIRRORSECRET@mirror.example/whl/cu124/torch.whl";
  lock.packages[0].wheels[0].url = "https://user:s3cr3tpass@pypi.example/f.whl";
  lock.torchdex.index_url = "https://tok:MIRRORSECRET@mirror.example/whl/cu124/";
  // A variant wheel's variants.json, and URLs in the sentences (a warning, a requirement).
  lock.packages[1].variants_json = LockedVariantsJson{"https://tok:MIRRORSECRET@mirror.example/v.json", std::string(64, 'a')};
  lock.torchdex.decision.push_back("warning: https://tok:MIRRORSECRET@mirror.example/x.json: read unverified");
  lock.torchdex.requirements.push_back("foo @ https://user:s3cr3tpass@pypi.example/foo.whl");
  lock.torchdex.target = "CPython 3.12 (https://tok:MIRRORSECRET@x/)";
  const std::string text = WritePyLock(lock);
  EXPECT_NE(text.find("url = \"https://mirror.example/v.json\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"warning: https://mirror.example/x.json: read unverified\""), std::string::npos) << text;
  EXPECT_EQ(text.find("SECRET"), std::string::npos) << text;
  EXPECT_EQ(text.find("s3cr3t"), std::string::npos) << text;
  EXPECT_EQ(text.find("tok"), std::string::npos) << text;
  EXPECT_NE(text.find("url = \"https://mirror.example/whl/cu124/torch.whl\""), std::string::npos) << text;
  EXPECT_NE(text.find("index = \"https://mirror.example/whl/cu124/\""), std::string::npos) << text;
}

TEST(PyLockTest, AWheelNamedOnlyByItsUrlGetsItsDecodedName) {
  auto read = ParsePyLock(
      "lock-version = \"1.0\"\ncreated-by = \"uv\"\n[[packages]]\nname = \"torch\"\nversion = \"2.5.1+cpu\"\n"
      "wheels = [{ url = \"http://h/torch-2.5.1%2Bcpu-py3-none-any.whl\", hashes = { sha256 = \"" +
          kSha + "\" } }]\nsdist = { url = \"http://h/torch.tar.gz\", hashes = { sha256 = \"" + kSha + "\" } }\n",
      "uv.toml", false);
  ASSERT_TRUE(read.ok()) << read.error().message;
  EXPECT_EQ(read->packages[0].wheels[0].name, "torch-2.5.1+cpu-py3-none-any.whl");
  // Found by toml_fuzz: a name that decodes to bytes that are not UTF-8 could not be written.
  auto bad = ParsePyLock(
      "lock-version = \"1.0\"\ncreated-by = \"uv\"\n[[packages]]\nname = \"torch\"\nversion = \"2.5.1\"\n"
      "wheels = [{ url = \"http://h/torch%BC.whl\", hashes = { sha256 = \"" + kSha + "\" } }]\n",
      "uv.toml", false);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message,
            "uv.toml:6:19: packages[0] (torch): the file name of the url is not UTF-8 once decoded");
}

std::string ErrorOf(const std::string& text) {
  auto read = ParsePyLock(text, "pylock.x.toml");
  EXPECT_FALSE(read.ok()) << text;
  return read.ok() ? "" : read.error().message;
}

TEST(PyLockTest, BadLocksAreLocatedErrors) {
  const std::string head = "lock-version = \"1.0\"\ncreated-by = \"t\"\n";
  const std::string tail = "[tool.torchdex]\nbackend = \"cpu\"\n";
  const std::string hashes = "hashes = { sha256 = \"" + kSha + "\" }";
  EXPECT_EQ(ErrorOf("lock-version = \"2.0\"\n"),
            "pylock.x.toml:1:16: lock-version \"2.0\" is not supported: torchdex reads lock-version 1.x (PEP 751)");
  EXPECT_THAT(ErrorOf("lock-version = \"1.0\"\ncreated-by = \"t\"\n[[packages]]\nname = \"Torch\"\n"),
              HasSubstr("pylock.x.toml:4:8: packages[0]: name \"Torch\" is not a normalised project name"));
  EXPECT_THAT(ErrorOf(head + "[[packages]]\nname = \"torch\"\nversion = \"2.5\"\n" + tail),
              HasSubstr("pylock.x.toml:3:1: packages[0] (torch): no wheels"));
  EXPECT_THAT(ErrorOf(head + "[[packages]]\nname = \"torch\"\nversion = \"2.5\"\nwheels = [{ url = \"u\" }]\n" + tail),
              HasSubstr("pylock.x.toml:6:11: packages[0] (torch): wheel u: hashes must be a table with a sha256"));
  EXPECT_THAT(ErrorOf(head + "[[packages]]\nname = \"torch\"\nversion = \"2.5\"\n"
                             "wheels = [{ url = \"u\", hashes = { md5 = \"x\" } }]\n" + tail),
              HasSubstr("pylock.x.toml:6:33: packages[0] (torch): wheel u: no sha256"));
  EXPECT_THAT(ErrorOf(head + "[[packages]]\nname = \"torch\"\nversion = \"2.5\"\n"
                             "wheels = [{ url = \"u\", hashes = { sha256 = \"ABC\" } }]\n" + tail),
              HasSubstr("sha256 is not 64 lower-case hex digits"));
  EXPECT_THAT(ErrorOf(head + "[[packages]]\nname = \"torch\"\nversion = \"two\"\n" + tail),
              HasSubstr("pylock.x.toml:5:11: packages[0] (torch): version:"));
  EXPECT_THAT(ErrorOf(head + "[[packages]]\nname = \"torch\"\nversion = \"2.5\"\nmarker = \"python_version >\"\n"
                             "wheels = [{ url = \"u\", " + hashes + " }]\n" + tail),
              HasSubstr("pylock.x.toml:6:10: packages[0] (torch): marker:"));
  EXPECT_THAT(ErrorOf(head + "[[packages]]\nname = \"x\"\nversion = \"1\"\nvcs = { type = \"git\" }\n" + tail),
              HasSubstr("pylock.x.toml:6:7: packages[0] (x): a package from a vcs is not supported"));
  EXPECT_THAT(ErrorOf(head + "packages = []\n"), HasSubstr("pylock.x.toml:1:1: no [tool.torchdex] table"));
  EXPECT_THAT(ErrorOf("created-by = \"t\"\npackages = []\n"), HasSubstr("missing the key lock-version"));
  EXPECT_THAT(ErrorOf(head + "packages = []\n[tool.torchdex]\nchannel = \"stable\"\n"),
              HasSubstr("pylock.x.toml:4:1: [tool.torchdex]: missing the key backend"));
  // An escape sequence (here one that sets a terminal's title) is never printed back.
  EXPECT_THAT(ErrorOf(head + "packages = []\n[tool.torchdex]\nbackend = \"cpu\\u001b]0;pwned\\u0007\"\n"),
              HasSubstr("pylock.x.toml:5:11: [tool.torchdex]: backend holds the control character 0x1b"));
  EXPECT_THAT(ErrorOf(head + "packages = []\n[tool.torchdex]\nbackend = \"cpu\"\ndecision = [\"ok\", \"\\u009b\\u007f\"]\n"),
              HasSubstr("[tool.torchdex]: decision holds the control character 0x7f"));
  EXPECT_THAT(ErrorOf("lock-version = \"1.0\"\ncreated-by = \"t\"\n[[packages]\n"),
              HasSubstr("pylock.x.toml:3:"));
}

// PEP 825 (python/peps peps/pep-0825.rst, "Integration with pylock.toml"): a package of variant
// wheels locks its `{name}-{version}-variants.json` to a hash in [packages.variants-json].
TEST(PyLockTest, AVariantWheelsVariantsJsonIsLockedAndReadBack) {
  PyLock lock = Sample();
  LockedPackage& torch = lock.packages[1];
  torch.version = "2.10.0";
  torch.wheels[0].name = "torch-2.10.0-cp312-cp312-manylinux_2_28_x86_64-cuda12.8.whl";
  torch.wheels[0].url = "https://download.pytorch.org/whl/test/variant/" + torch.wheels[0].name;
  torch.variants_json = LockedVariantsJson{
      "https://download.pytorch.org/whl/test/variant/torch-2.10.0-variants.json", std::string(64, 'c'), 0};
  const std::string text = WritePyLock(lock);
  EXPECT_THAT(text, HasSubstr("[packages.variants-json]\n"
                              "url = \"https://download.pytorch.org/whl/test/variant/torch-2.10.0-variants.json\"\n"
                              "hashes = { sha256 = \"" + std::string(64, 'c') + "\" }\n"));
  auto read = ParsePyLock(text, "pylock.variant.toml");
  ASSERT_TRUE(read.ok()) << read.error().message << "\n" << text;
  ASSERT_TRUE(read->packages[1].variants_json.has_value());
  EXPECT_EQ(read->packages[1].variants_json->url, torch.variants_json->url);
  EXPECT_EQ(read->packages[1].variants_json->sha256, torch.variants_json->sha256);
  EXPECT_GT(read->packages[1].variants_json->line, 0);
  EXPECT_FALSE(read->packages[0].variants_json.has_value());
  EXPECT_EQ(WritePyLock(*read), text);
}

TEST(PyLockTest, ABadVariantsJsonTableIsALocatedError) {
  const std::string head = "lock-version = \"1.0\"\ncreated-by = \"t\"\n[[packages]]\nname = \"torch\"\n"
                           "version = \"2.10.0\"\nwheels = [{ url = \"u-null.whl\", hashes = { sha256 = \"" +
                           kSha + "\" } }]\n";
  const std::string tail = "[tool.torchdex]\nbackend = \"variant\"\n";
  EXPECT_THAT(ErrorOf(head + "[packages.variants-json]\nhashes = { sha256 = \"" + kSha + "\" }\n" + tail),
              HasSubstr("pylock.x.toml:7:1: packages[0] (torch): variants-json: missing the key url"));
  EXPECT_THAT(ErrorOf(head + "[packages.variants-json]\npath = \"v.json\"\n" + tail),
              HasSubstr("pylock.x.toml:8:8: packages[0] (torch): variants-json: a variants.json by path is not supported"));
  EXPECT_THAT(ErrorOf(head + "[packages.variants-json]\nurl = \"v.json\"\n" + tail),
              HasSubstr("pylock.x.toml:7:1: packages[0] (torch): variants-json: hashes must be a table with a sha256"));
  EXPECT_THAT(ErrorOf(head + "[packages.variants-json]\nurl = \"v.json\"\nhashes = { sha256 = \"x\" }\n" + tail),
              HasSubstr("packages[0] (torch): variants-json: sha256 is not 64 lower-case hex digits: \"x\""));
  EXPECT_THAT(ErrorOf(head + "variants-json = \"v.json\"\n" + tail),
              HasSubstr("packages[0] (torch): variants-json must be a table (PEP 825)"));
  EXPECT_THAT(ErrorOf(head + "[packages.variants-json]\nurl = \"v.json\"\nhashes = { sha512 = \"x\" }\n" + tail),
              HasSubstr("packages[0] (torch): variants-json: hashes has no sha256"));
  EXPECT_THAT(ErrorOf(head + "[packages.variants-json]\nurl = \"v.json\"\npath = \"v.json\"\nhashes = { sha256 = \"" +
                      kSha + "\" }\n" + tail),
              HasSubstr("packages[0] (torch): variants-json: url and path: name the file once (PEP 825)"));
}

}  // namespace
}  // namespace torchdex::installer
