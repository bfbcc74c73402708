#include "core/spelling.h"

#include <gtest/gtest.h>

namespace torchdex::core {
namespace {

TEST(SpellingTest, CountsSwapsAsOneEdit) {
  EXPECT_EQ(EditDistance("cdua", "cuda"), 1u);
  EXPECT_EQ(EditDistance("cuda", "cpu"), 3u);
  EXPECT_EQ(EditDistance("", "abc"), 3u);
  EXPECT_EQ(EditDistance("selct", "select"), 1u);
}

TEST(SpellingTest, SuggestsTheClosestAndTheNewestOfAFamily) {
  const std::vector<std::string> backends = {"cpu", "cu102", "cu118", "cu121", "cu126", "cu128", "cu129", "xpu"};
  EXPECT_EQ(ClosestNames("cu12", backends), (std::vector<std::string>{"cu129", "cu128", "cu126"}));
  EXPECT_EQ(DidYouMean("cu12", backends, false), " (did you mean cu129?)");
  EXPECT_EQ(DidYouMean("cu12", backends, false, 3), " (did you mean cu129, cu128 or cu126?)");
  EXPECT_EQ(DidYouMean("cdua", {"cpu", "cuda", "rocm", "xpu"}), " (did you mean \"cuda\"?)");
  EXPECT_EQ(DidYouMean("nothing-alike", backends), "");
  EXPECT_EQ(DidYouMean("x", backends), "");  // one letter is too short to guess from
}

}  // namespace
}  // namespace torchdex::core
