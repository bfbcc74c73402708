// The stream every printed byte of torchdex passes (installer/platform/terminal_stream.h).
#include "installer/platform/terminal_stream.h"

#include <sstream>

#include <gtest/gtest.h>

namespace torchdex::installer {
namespace {

TEST(TerminalSafeStreamTest, EscapesWhatPassesAndHoldsACharacterCutAcrossWrites) {
  std::ostringstream target;
  {
    TerminalSafeStream out(target);
    out << "lock: \x1b]8;;evil\x07link\n";
    EXPECT_EQ(target.str(), "lock: \\u001b]8;;evil\\u0007link\n");
    out << "caf\xC3";  // half of é
    out.flush();       // a flush writes what is held, escaped if it is still half
    EXPECT_EQ(target.str(), "lock: \\u001b]8;;evil\\u0007link\ncaf\\xc3");
    out << "ok \xE2\x82";
    out << "\xAC\n";  // completed by the next write: the euro sign, whole
  }
  EXPECT_EQ(target.str(), "lock: \\u001b]8;;evil\\u0007link\ncaf\\xc3ok \xE2\x82\xAC\n");
}

}  // namespace
}  // namespace torchdex::installer
