#include "core/url.h"

#include <gtest/gtest.h>

namespace torchdex::core {
namespace {

TEST(UrlTest, PercentDecodesFilenames) {
  EXPECT_EQ(PercentDecode("torch-2.5.1%2Bcu124-x.whl"), "torch-2.5.1+cu124-x.whl");
  EXPECT_EQ(PercentDecode("%2b%41+%zz%4"), "+A+%zz%4");
  EXPECT_EQ(PercentDecode("torch-2.5.1%2Bcu124%2b%zz%4"), "torch-2.5.1+cu124+%zz%4");
}

TEST(UrlFileName, IsTheDecodedLastSegmentWithoutQueryOrFragment) {
  EXPECT_EQ(UrlFileName("https://h/whl/cpu/torch-2.5.1%2Bcpu-py3-none-any.whl#sha256=ab"),
            "torch-2.5.1+cpu-py3-none-any.whl");
  EXPECT_EQ(UrlFileName("https://h/a/b.whl?x=1/c.whl"), "b.whl");
  EXPECT_EQ(UrlFileName("https://h/dir/"), "");
}

}  // namespace
}  // namespace torchdex::core

namespace torchdex::core {
namespace {

TEST(StripCredentialsTest, DropsTheUserInformationOnly) {
  EXPECT_EQ(StripCredentials("http://user:s3cret@host/whl/"), "http://host/whl/");
  EXPECT_EQ(StripCredentials("https://tok3n@host:8443/simple/?a=b@c"), "https://host:8443/simple/?a=b@c");
  EXPECT_EQ(StripCredentials("https://a@b:p@ss@host/x@y"), "https://host/x@y");
  EXPECT_EQ(StripCredentials("https://host/path@not-userinfo"), "https://host/path@not-userinfo");
  EXPECT_EQ(StripCredentials("https://user:pw@host"), "https://host");
  EXPECT_EQ(StripCredentials("not a url"), "not a url");
}

TEST(RedactCredentialsTest, HidesPasswordsAndTokensAsPipDoes) {
  EXPECT_EQ(RedactCredentials("http://user:s3cret@host/whl/"), "http://user:****@host/whl/");
  EXPECT_EQ(RedactCredentials("https://tok3n@host:8443/simple/"), "https://****@host:8443/simple/");
  EXPECT_EQ(RedactCredentials("GET https://u:p@a/x failed; see https://b/y and http://c:d@e"),
            "GET https://u:****@a/x failed; see https://b/y and http://c:****@e");
  EXPECT_EQ(RedactCredentials("https://host/a@b"), "https://host/a@b");  // '@' in the path
  EXPECT_EQ(RedactCredentials("no url here"), "no url here");
  EXPECT_EQ(RedactCredentials("'torch @ https://u:p@h/t.whl'"), "'torch @ https://u:****@h/t.whl'");
}

}  // namespace
}  // namespace torchdex::core
