#include "core/name.h"

#include <gtest/gtest.h>

namespace torchdex::core {
namespace {

TEST(NameTest, NormalisesAsPep503) {
  EXPECT_EQ(NormalizeName("Jinja2"), "jinja2");
  EXPECT_EQ(NormalizeName("typing_extensions"), "typing-extensions");
  EXPECT_EQ(NormalizeName("nvidia_cudnn_cu12"), "nvidia-cudnn-cu12");
  EXPECT_EQ(NormalizeName("zope..Interface"), "zope-interface");
  EXPECT_EQ(NormalizeName("a-_.-b"), "a-b");
  EXPECT_EQ(NormalizeName("Pillow"), "pillow");
  EXPECT_EQ(NormalizeName("pytorch-triton-rocm"), "pytorch-triton-rocm");
}

TEST(NameTest, SameProjectComparesNormalisedNames) {
  EXPECT_TRUE(SameProject("Typing.Extensions", "typing_extensions"));
  EXPECT_FALSE(SameProject("torch", "torchvision"));
}

TEST(NameTest, ValidNamesFollowPep508) {
  for (const char* ok : {"torch", "a", "A1", "typing_extensions", "zope.interface", "x-y_z.w"}) {
    EXPECT_TRUE(IsValidName(ok)) << ok;
  }
  for (const char* bad : {"", "-torch", "torch-", ".x", "x_", "tor ch", "torch!", "tör"}) {
    EXPECT_FALSE(IsValidName(bad)) << bad;
  }
}

}  // namespace
}  // namespace torchdex::core
