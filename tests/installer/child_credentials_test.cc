// The credentials pip and uv read from this run's netrc instead of their argv
// (installer/install/child_credentials.h; issue 29, item 9).
#include "installer/install/child_credentials.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "installer/cli/lock_support.h"

namespace torchdex::installer {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(ChildCredentialsTest, EachHostsLoginGoesToTheNetrcAndLeavesItsUrls) {
  ChildCredentials credentials;
  credentials.Add("https://download.pytorch.org/whl/cu124/");  // none: nothing to give
  EXPECT_TRUE(credentials.empty());
  credentials.Add("https://user:s%3Acret@Mirror.Example:8443/whl/cu124/");
  credentials.Add("https://user:s%3Acret@mirror.example/pypi/simple/");  // the same again
  credentials.Add("http://ci:tok@[::1]:3141/simple/");
  EXPECT_EQ(credentials.Netrc(""),
            "machine [::1] login ci password tok\n"
            "machine mirror.example login user password s:cret\n");
  EXPECT_THAT(credentials.Unfit(), IsEmpty());
  EXPECT_EQ(credentials.Strip("https://user:s%3Acret@mirror.example:8443/whl/cu124/torch-2.5.1.whl"),
            "https://mirror.example:8443/whl/cu124/torch-2.5.1.whl");
  EXPECT_EQ(credentials.Strip("http://ci:tok@[::1]:3141/simple/x/"), "http://[::1]:3141/simple/x/");
  // Other credentials for a host, and hosts it holds nothing for, are left as they are.
  EXPECT_EQ(credentials.Strip("https://user:other@mirror.example/x.whl"), "https://user:other@mirror.example/x.whl");
  EXPECT_EQ(credentials.Strip("https://a:b@elsewhere.example/x.whl"), "https://a:b@elsewhere.example/x.whl");
  EXPECT_EQ(credentials.Strip("https://mirror.example/x.whl"), "https://mirror.example/x.whl");
}

TEST(ChildCredentialsTest, WhatNetrcCannotHoldStaysInTheUrlAndIsNamed) {
  ChildCredentials credentials;
  credentials.Add("https://user:one@a.example/");
  credentials.Add("https://other:two@a.example/");          // netrc has one login a host
  credentials.Add("https://user:with%20space@b.example/");  // a netrc token has no space
  credentials.Add("https://tokenonly@c.example/");          // no password to write
  credentials.Add("https://user:quo%22te@d.example/");
  EXPECT_THAT(credentials.Unfit(), ElementsAre("a.example", "b.example", "c.example", "d.example"));
  EXPECT_EQ(credentials.Netrc(""), "machine a.example login user password one\n");
  EXPECT_EQ(credentials.Strip("https://user:with%20space@b.example/x"), "https://user:with%20space@b.example/x");
  EXPECT_EQ(credentials.Strip("https://other:two@a.example/x"), "https://other:two@a.example/x");
  // A URL whose host parsers read differently gives nothing (index::HasAmbiguousAuthority).
  ChildCredentials ambiguous;
  ambiguous.Add("http://u:p@0.0.0.0:1\\@127.0.0.1:1/");
  // Nor does a host that is not one netrc token (a line of its own could follow), or none.
  ambiguous.Add("https://u:p@evil host machine x/");
  ambiguous.Add("https://u:p@/x");
  ambiguous.Add("https://");
  EXPECT_TRUE(ambiguous.empty());
}

TEST(ChildCredentialsTest, TheNetrcIsPrivateAndKeepsTheUsersOwnAfterItsEntries) {
  lockcli::TemporaryDirectory dir;
  ASSERT_FALSE(dir.path().empty());
  const fs::path user_netrc = fs::path(dir.path()) / "user-netrc";
  std::ofstream(user_netrc) << "machine github.com login me password mine\n";
  ChildCredentials credentials;
  Environment child;
  ASSERT_TRUE(GiveNetrc(credentials, {{"NETRC", user_netrc.string()}}, dir.path(), child).ok());
  EXPECT_TRUE(child.empty());  // nothing to give: the user's NETRC is the child's as it was
  credentials.Add("https://user:s3cret@mirror.example/whl/");
  ASSERT_TRUE(GiveNetrc(credentials, {{"NETRC", user_netrc.string()}}, dir.path(), child).ok());
  ASSERT_EQ(child.count("NETRC"), 1u);
  const fs::path netrc = child.at("NETRC");
  EXPECT_EQ(netrc.parent_path(), fs::path(dir.path()));
  EXPECT_EQ(fs::status(netrc).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
  std::ostringstream text;
  text << std::ifstream(netrc).rdbuf();
  EXPECT_EQ(text.str(),
            "machine mirror.example login user password s3cret\n\n"
            "machine github.com login me password mine\n\n");
  // Without NETRC, the user's ~/.netrc; a missing one is no error.
  const fs::path home = fs::path(dir.path()) / "home";
  fs::create_directories(home);
  std::ofstream(home / ".netrc") << "machine gitlab.com login x password y\n";
  ASSERT_TRUE(GiveNetrc(credentials, {{"HOME", home.string()}}, dir.path(), child).ok());
  text.str("");
  text << std::ifstream(netrc).rdbuf();
  EXPECT_EQ(text.str(), "machine mirror.example login user password s3cret\n\nmachine gitlab.com login x password y\n\n");
  ASSERT_TRUE(GiveNetrc(credentials, {{"HOME", (home / "none").string()}}, dir.path(), child).ok());
}

}  // namespace
}  // namespace torchdex::installer
