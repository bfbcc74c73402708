#include "installer/python/interpreter.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <tuple>
#include <vector>

extern char** environ;

namespace torchdex::installer {
namespace {

TEST(InterpreterTest, AsksARealPythonOnce) {
  const Environment env = EnvironmentFromEnviron(environ);
  auto path = FindInterpreter("python3", env);
  ASSERT_TRUE(path.ok()) << path.error().message;
  auto runner = MakeSystemProcessRunner();
  auto python = QueryInterpreter(*path, *runner, env, std::chrono::seconds(20));
  ASSERT_TRUE(python.ok()) << python.error().message;
  EXPECT_EQ(python->info.implementation, "cp");
  EXPECT_EQ(python->info.python_major, 3);
  EXPECT_GE(python->info.python_minor, 8);
  EXPECT_EQ(python->info.os, core::OperatingSystem::kLinux);
  EXPECT_EQ(python->info.libc, core::Libc::kGlibc);
  EXPECT_EQ(python->info.libc_major, 2);
  EXPECT_GE(python->info.libc_minor, 17);
  EXPECT_EQ(python->markers.values.at("sys_platform"), "linux");
  EXPECT_EQ(python->markers.values.at("python_version"),
            "3." + std::to_string(python->info.python_minor));
  EXPECT_NE(python->description.find("CPython 3."), std::string::npos);
  const auto tags = core::SupportedTags(python->info);
  ASSERT_FALSE(tags.empty());
  EXPECT_EQ(tags.front().interpreter, "cp3" + std::to_string(python->info.python_minor));
}

TEST(InterpreterTest, AMissingOrBrokenInterpreterIsAClearError) {
  const Environment env = EnvironmentFromEnviron(environ);
  auto missing = FindInterpreter("/nonexistent/bin/python", env);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, "--python /nonexistent/bin/python: no executable there");
  Environment venv = env;
  venv["VIRTUAL_ENV"] = "/nonexistent/venv";
  auto bad_venv = FindInterpreter("", venv);
  ASSERT_FALSE(bad_venv.ok());
  EXPECT_NE(bad_venv.error().message.find("VIRTUAL_ENV=/nonexistent/venv has no bin/python"), std::string::npos);
  auto runner = MakeSystemProcessRunner();
  // /bin/false "answers" with an exit code and nothing else.
  auto broken = QueryInterpreter("/bin/false", *runner, env, std::chrono::seconds(5));
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.error().message.find("python interpreter /bin/false did not answer: exited with 1"),
            std::string::npos) << broken.error().message;
  auto garbage = ParseInterpreterReply("Python 3.12.1", "/x/python");
  ASSERT_FALSE(garbage.ok());
  EXPECT_EQ(garbage.error().message, "python interpreter /x/python: its answer is not the JSON object torchdex asked for");
}

TEST(InterpreterTest, ReadsFreeThreadedAndMuslAnswers) {
  auto t = ParseInterpreterReply(R"({"implementation": "cpython", "version": [3, 13, 1], "debug": false,
    "free_threaded": true, "soabi": "cpython-313t-x86_64-linux-musl", "sys_platform": "linux",
    "machine": "x86_64", "glibc": "", "musl": "1.2", "mac_ver": "", "os_name": "posix",
    "platform_system": "Linux", "platform_release": "6.1", "platform_version": "#1",
    "python_implementation": "CPython", "executable": "/opt/py/bin/python3.13t"})", "/opt/py/bin/python3.13t");
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_TRUE(t->info.free_threaded);
  EXPECT_EQ(t->info.libc, core::Libc::kMusl);
  EXPECT_EQ(t->info.libc_minor, 2);
  EXPECT_EQ(core::SupportedTags(t->info).front().abi, "cp313t");
  EXPECT_EQ(t->description, "CPython 3.13.1 (free-threaded) at /opt/py/bin/python3.13t");
}

std::string Reply(const std::string& version, const std::string& glibc,
                  const std::string& executable = "/opt/py/bin/python3") {
  return R"({"implementation": "cpython", "version": )" + version + R"(, "debug": false,
    "free_threaded": false, "soabi": "cpython-312-x86_64-linux-gnu", "sys_platform": "linux",
    "machine": "x86_64", "glibc": ")" + glibc + R"(", "musl": "", "mac_ver": "", "os_name": "posix",
    "platform_system": "Linux", "platform_release": "6.1", "platform_version": "#1",
    "python_implementation": "CPython", "executable": ")" + executable + R"("})";
}

// Issue 29, item 7: every number that sizes a loop of the tag lists is bounded where it enters;
// a minor version of 2147483648 or a glibc of 999999999999999999999.1 built tags without bound.
TEST(InterpreterTest, NumbersOutOfRangeAreRefusedWhereTheyEnter) {
  ASSERT_TRUE(ParseInterpreterReply(Reply("[3, 12, 1]", "2.36"), "/p").ok());
  for (const auto& [version, glibc, why] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"[3, 2147483648, 0]", "2.36", "version part 2147483648 is out of range"},
           {"[3, -1, 0]", "2.36", "version part -1 is out of range"},
           {"[3, 100, 0]", "2.36", "python minor version 100 is out of range (0-99)"},
           {"[3, 12, 1]", "999999999999999999999.1", "libc major version 2147483647 is out of range"},
           {"[3, 12, 1]", "2.1000000", "libc minor version 1000000 is out of range (0-999)"}}) {
    auto reply = ParseInterpreterReply(Reply(version, glibc), "/p");
    ASSERT_FALSE(reply.ok()) << version << " " << glibc;
    EXPECT_NE(reply.error().message.find("python interpreter /p: "), std::string::npos) << reply.error().message;
    EXPECT_NE(reply.error().message.find(why), std::string::npos) << reply.error().message;
  }
  auto flag = DescribeTarget("3.99999", "linux_x86_64", 36);
  ASSERT_FALSE(flag.ok());
  EXPECT_NE(flag.error().message.find("python minor version 99999 is out of range"), std::string::npos);
  EXPECT_FALSE(DescribeTarget("3.12", "macosx_100000_0_arm64", 36).ok());
  EXPECT_FALSE(DescribeTarget("3.12", "linux_x86_64", 100000).ok());  // the machine's glibc, as read
  // Past the bounds (a caller that did not check), the lists are cut there, not endless.
  core::InterpreterInfo huge;
  huge.python_minor = 2147483647;
  huge.libc_minor = 2147483647;
  EXPECT_LT(core::SupportedTags(huge).size(), 2000000u);
}

// Issue 29, item 13: what runs is the interpreter the user named, not the sys.executable its
// answer reports.
TEST(InterpreterTest, TheInterpreterNamedIsTheOneRunNotTheOneItReports) {
  auto reply = ParseInterpreterReply(Reply("[3, 12, 1]", "2.36", "/tmp/evil/python"), "/venv/bin/python");
  ASSERT_TRUE(reply.ok()) << reply.error().message;
  EXPECT_EQ(reply->path, "/venv/bin/python");
  EXPECT_EQ(reply->description, "CPython 3.12.1 at /venv/bin/python");
}

TEST(InterpreterTest, DescribesATargetFromAWheelsPlatformTag) {
  // --platform manylinux_2_28_aarch64, as copied from a wheel's name, was refused (issue 13, D.18).
  auto tag = DescribeTarget("3.12", "manylinux_2_28_aarch64", 35);
  ASSERT_TRUE(tag.ok()) << tag.error().message;
  EXPECT_EQ(tag->os, core::OperatingSystem::kLinux);
  EXPECT_EQ(tag->arch, "aarch64");
  EXPECT_EQ(tag->libc_minor, 28);  // the tag's glibc, not the default
  auto legacy = DescribeTarget("3.12", "manylinux2014_x86_64", 35);
  ASSERT_TRUE(legacy.ok());
  EXPECT_EQ(legacy->libc_minor, 17);
  auto compressed = DescribeTarget("3.12", "manylinux_2_17_x86_64.manylinux2014_x86_64", 35);
  ASSERT_TRUE(compressed.ok());
  EXPECT_EQ(compressed->arch, "x86_64");
  EXPECT_EQ(compressed->libc_minor, 17);
  for (const char* bad : {"manylinux_2_x_x86_64", "manylinux_2_28_riscv64", "musllinux_1_2_x86_64"}) {
    auto refused = DescribeTarget("3.12", bad, 35);
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_EQ(refused.error().code, core::ErrorCode::kUsage);
  }
}

TEST(InterpreterTest, DescribesATargetFromFlags) {
  auto linux = DescribeTarget("3.12", "linux_aarch64", 28);
  ASSERT_TRUE(linux.ok());
  EXPECT_EQ(linux->arch, "aarch64");
  EXPECT_EQ(linux->python_minor, 12);
  // packaging 26.3 (pip 26.3) puts the plain platform first, then manylinux newest first.
  EXPECT_EQ(core::PlatformTags(*linux).front(), "linux_aarch64");
  EXPECT_EQ(core::PlatformTags(*linux).at(1), "manylinux_2_28_aarch64");
  auto mac = DescribeTarget("3.11", "macosx_11_0_arm64", 0);
  ASSERT_TRUE(mac.ok());
  EXPECT_EQ(mac->os, core::OperatingSystem::kMacOS);
  EXPECT_EQ(mac->macos_major, 11);
  EXPECT_EQ(mac->arch, "arm64");
  auto win = DescribeTarget("3.13t", "win_amd64", 0);
  ASSERT_TRUE(win.ok());
  EXPECT_TRUE(win->free_threaded);
  EXPECT_EQ(core::PlatformTags(*win).front(), "win_amd64");
  EXPECT_FALSE(DescribeTarget("2.7", "linux_x86_64", 28).ok());
  auto bad = DescribeTarget("3.12", "solaris_sparc", 28);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("--platform solaris_sparc: expected linux_x86_64"), std::string::npos);
}

}  // namespace
}  // namespace torchdex::installer
