#include "core/url.h"

#include <gtest/gtest.h>

namespace torchdex::core {
namespace {

TEST(UrlTest, PercentDecodesFilenames) {
  EXPECT_EQ(PercentDecode("torch-2.5.1%2Bcu124-x.whl"), "torch-2.5.1+cu124-x.whl");
  EXPECT_EQ(PercentDecode("%2b%41+%zz%4"), "+A+%zz%4");
  EXPECT_EQ(PercentDecode("torch-2.5.1%2Bcu124%2b%zz%4"), "torch-2.5.1+cu124+%zz%4");
}

}  // namespace
}  // namespace torchdex::core
