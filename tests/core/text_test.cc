#include "core/text.h"

#include <gtest/gtest.h>

namespace torchdex::core {
namespace {

TEST(JoinTest, PutsTheSeparatorBetweenItemsOnly) {
  EXPECT_EQ(Join({}), "");
  EXPECT_EQ(Join({"a"}), "a");
  EXPECT_EQ(Join({"a", "b", "c"}), "a, b, c");
  EXPECT_EQ(Join({"gfx1100", "gfx1101"}, " "), "gfx1100 gfx1101");
  EXPECT_EQ(Join({"", ""}, "; "), "; ");
}

// nlohmann's parse_error::byte is one past the byte the parser stopped at.
TEST(PositionBeforeTest, CountsLinesAndColumnsFromOne) {
  const std::string text = "{\n  \"a\": x\n}";
  EXPECT_EQ(PositionBefore(text, 0).line, 1u);
  EXPECT_EQ(PositionBefore(text, 1).column, 1u);
  const TextPosition x = PositionBefore(text, text.find('x') + 1);
  EXPECT_EQ(x.line, 2u);
  EXPECT_EQ(x.column, 8u);
  const TextPosition end = PositionBefore(text, 1000);  // past the end: counts to the end
  EXPECT_EQ(end.line, 3u);
  EXPECT_EQ(end.column, 2u);
}

TEST(ParseDottedNumbersTest, ReadsDecimalPartsOrNothing) {
  EXPECT_EQ(ParseDottedNumbers("12.4.1"), (std::vector<unsigned>{12, 4, 1}));
  EXPECT_EQ(ParseDottedNumbers("6"), (std::vector<unsigned>{6}));
  for (const char* bad : {"", "12.", ".4", "12..4", "12.4a", "1234567.0", "-1.0", "12 .4"}) {
    EXPECT_TRUE(ParseDottedNumbers(bad).empty()) << bad;
  }
}

}  // namespace
}  // namespace torchdex::core
