#include "core/utf8.h"

#include <gtest/gtest.h>

namespace torchdex::core {
namespace {

const std::string kFffd = "\xEF\xBF\xBD";

TEST(Utf8Test, WellFormedTextIsUnchanged) {
  for (const char* text : {"", "torch-2.5.1+cu124", "1.0\xE2\x82\xAC", "\xF0\x9F\x94\xA5",
                           "\xC2\x80", "\xED\x9F\xBF", "\xF4\x8F\xBF\xBF", "\xEF\xBF\xBD"}) {
    EXPECT_TRUE(IsValidUtf8(text)) << text;
    EXPECT_EQ(ToValidUtf8(text), text);
  }
}

// Unicode §3.9 "U+FFFD substitution of maximal subparts" (its Table 3-8 example among them), the
// answers of Python's bytes.decode("utf-8", "replace").
TEST(Utf8Test, ReplacesEachMaximalSubpartWithOneReplacementCharacter) {
  EXPECT_EQ(ToValidUtf8("\xFF"), kFffd);
  EXPECT_EQ(ToValidUtf8("1.0\xE2\x82"), "1.0" + kFffd);  // cut in half
  EXPECT_EQ(ToValidUtf8("\xE2\x82"
                        "a"),
            kFffd + "a");
  EXPECT_EQ(ToValidUtf8("\x80\xBF"), kFffd + kFffd);                          // stray continuations
  EXPECT_EQ(ToValidUtf8("\xC0\xAF"), kFffd + kFffd);                          // overlong '/'
  EXPECT_EQ(ToValidUtf8("\xE0\x80\xAF"), kFffd + kFffd + kFffd);              // overlong, 3 bytes
  EXPECT_EQ(ToValidUtf8("\xED\xA0\x80"), kFffd + kFffd + kFffd);              // a surrogate
  EXPECT_EQ(ToValidUtf8("\xF4\x90\x80\x80"), kFffd + kFffd + kFffd + kFffd);  // > U+10FFFF
  EXPECT_EQ(ToValidUtf8("\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64"),
            "a" + kFffd + kFffd + kFffd + "b" + kFffd + "c" + kFffd + kFffd + "d");
  for (const char* bad : {"\xFF", "a\xC2", "\xED\xA0\x80", "\xF5\x80\x80\x80"}) {
    EXPECT_FALSE(IsValidUtf8(bad)) << bad;
    EXPECT_TRUE(IsValidUtf8(ToValidUtf8(bad))) << bad;
  }
}

// Issue 29, item 12: nothing printed may drive a terminal.
TEST(Utf8Test, ForTerminalEscapesControlsBidiMarksAndBadBytesOnly) {
  EXPECT_EQ(ForTerminal("torch 2.5.1+cu124: d\xC3\xA9tect\xC3\xA9 \xE2\x82\xAC\n\ttab"),
            "torch 2.5.1+cu124: d\xC3\xA9tect\xC3\xA9 \xE2\x82\xAC\n\ttab");
  EXPECT_EQ(ForTerminal("\x1b[31mred\r\x07\x7f"), "\\u001b[31mred\\u000d\\u0007\\u007f");
  EXPECT_EQ(ForTerminal("a\xC2\x9B" "31mb"), "a\\u009b31mb");                  // C1 CSI
  EXPECT_EQ(ForTerminal("x\xE2\x80\xAEgpj.exe"), "x\\u202egpj.exe");           // right-to-left override
  EXPECT_EQ(ForTerminal("\xE2\x81\xA6i\xE2\x81\xA9"), "\\u2066i\\u2069");  // isolates
  EXPECT_EQ(ForTerminal("bad \xFF byte"), "bad \\xff byte");
  // A character cut at the end waits for the rest when asked to.
  std::size_t consumed = 0;
  EXPECT_EQ(ForTerminal("ok \xE2\x82", &consumed), "ok ");
  EXPECT_EQ(consumed, 3u);
  EXPECT_EQ(ForTerminal("ok \xE2\x82"), "ok \\xe2\\x82");
}

TEST(Utf8Test, CharacterAtNeverCutsACharacter) {
  EXPECT_EQ(CharacterAt("1.0\xE2\x82\xAC", 3), "\xE2\x82\xAC");
  EXPECT_EQ(CharacterAt("1.0\xFF", 3), "\\xff");
  EXPECT_EQ(CharacterAt("1.0\xE2\x82", 3), "\\xe2");
  EXPECT_EQ(CharacterAt("x", 0), "x");
  EXPECT_EQ(CharacterAt("x", 1), "");
  EXPECT_EQ(Utf8SequenceLength("\xF0\x9F\x94\xA5", 0), 4u);
  EXPECT_EQ(Utf8SequenceLength("\xF0\x9F\x94", 0), 0u);
}

TEST(Utf8Test, OneLineKeepsAMessageOnOneLineAndCutsOnlyBetweenCharacters) {
  // The one escaper of values in messages (variants.json, override files, providers).
  EXPECT_EQ(OneLine("https://x/\n--extra-index-url\tevil\r"), "https://x/\\n--extra-index-url\\tevil\\r");
  EXPECT_EQ(OneLine("\x1b[2Jcafé \xe2\x80\xae\xff"), "\\u001b[2Jcafé \\u202e\\xff");
  EXPECT_EQ(OneLine("abcdef", 3), "abc...");
  EXPECT_EQ(OneLine("ab\xe2\x82\xac", 3), "ab...");  // "€" whole or not at all
  EXPECT_EQ(OneLine("ab\xe2\x82\xac", 5), "ab\xe2\x82\xac");
  EXPECT_EQ(OneLine(""), "");
}

}  // namespace
}  // namespace torchdex::core
