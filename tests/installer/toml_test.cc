// The TOML reader and writer of lock files (installer/lock/toml.h): what PEP 751 files use,
// read as TOML 1.0 says, and every bad input a located error.
#include "installer/lock/toml.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace torchdex::installer::toml {
namespace {

using ::testing::HasSubstr;

Value Parsed(std::string_view text) {
  auto v = Parse(text, "t.toml");
  EXPECT_TRUE(v.ok()) << (v.ok() ? "" : v.error().message);
  return v.ok() ? *v : Value::Table();
}

std::string ErrorOf(std::string_view text) {
  auto v = Parse(text, "t.toml");
  EXPECT_FALSE(v.ok()) << text;
  return v.ok() ? "" : v.error().message;
}


TEST(TomlTest, ReadsWhatLockFilesUse) {
  const Value v = Parsed(
      "# a lock\n"
      "lock-version = '1.0'\n"
      "environments = [\n  \"sys_platform == 'linux'\", # a comment\n  'os_name == \"nt\"',\n]\n"
      "created-by = \"uv\"\n"
      "\n"
      "[[packages]]\n"
      "name = \"torch\"\n"
      "wheels = [{ url = \"https://h/torch-2.5.1%2Bcpu.whl\", size = 1_234, hashes = { sha256 = \"ab\" } }]\n"
      "upload-time = 2024-10-29T17:00:00Z\n"
      "[packages.tool.torchdex]\n"
      "routed = true\n"
      "[[packages]]\n"
      "name = \"filelock\"\n"
      "\"quoted key\" = \"tab\\there \\u00e9 \\U0001F600\"\n"
      "a.b.c = -16\nh = 0xff_ff\n"
      "[tool.torchdex]\n"
      "backend = \"cpu\"\n");
  EXPECT_EQ(v.Find("lock-version")->text, "1.0");
  ASSERT_EQ(v.Find("environments")->items.size(), 2u);
  EXPECT_EQ(v.Find("environments")->items[1].text, "os_name == \"nt\"");
  const Value& packages = *v.Find("packages");
  ASSERT_EQ(packages.items.size(), 2u);
  const Value& torch = packages.items[0];
  EXPECT_EQ(torch.line, 9);
  const Value& wheel = torch.Find("wheels")->items[0];
  EXPECT_EQ(wheel.Find("size")->integer, 1234);
  EXPECT_EQ(wheel.Find("hashes")->Find("sha256")->text, "ab");
  EXPECT_EQ(torch.Find("upload-time")->kind, Value::Kind::kDateTime);
  EXPECT_EQ(torch.Find("upload-time")->text, "2024-10-29T17:00:00Z");
  EXPECT_TRUE(torch.Find("tool")->Find("torchdex")->Find("routed")->boolean);
  EXPECT_EQ(packages.items[1].Find("quoted key")->text, "tab\there \xC3\xA9 \xF0\x9F\x98\x80");
  EXPECT_EQ(packages.items[1].Find("a")->Find("b")->Find("c")->integer, -16);
  EXPECT_EQ(packages.items[1].Find("h")->integer, 0xffff);
  EXPECT_EQ(v.Find("tool")->Find("torchdex")->Find("backend")->text, "cpu");
}

TEST(TomlTest, MultiLineStringsTrimTheFirstNewlineAndLineEndingBackslashes) {
  const Value v = Parsed("a = \"\"\"\nline one\nline \\\n    two\"\"\"\nb = '''\n\\n stays'''\nc = \"\"\"x\"\"\"\"\"\n");
  EXPECT_EQ(v.Find("a")->text, "line one\nline two");
  EXPECT_EQ(v.Find("b")->text, "\\n stays");
  EXPECT_EQ(v.Find("c")->text, "x\"\"");
}

TEST(TomlTest, IntegersAtTheirLimits) {
  const Value v = Parsed("max = 9223372036854775807\nmin = -9223372036854775808\nb = 0b101\no = 0o17\n");
  EXPECT_EQ(v.Find("max")->integer, INT64_MAX);
  EXPECT_EQ(v.Find("min")->integer, INT64_MIN);
  EXPECT_EQ(v.Find("b")->integer, 5);
  EXPECT_EQ(v.Find("o")->integer, 15);
  EXPECT_THAT(ErrorOf("x = 9223372036854775808\n"), HasSubstr("t.toml:1:5: integer out of range"));
}

TEST(TomlTest, BadInputIsALocatedError) {
  EXPECT_EQ(ErrorOf("a = 1\na = 2\n"), "t.toml:2:1: duplicate key a (first at line 1)");
  EXPECT_EQ(ErrorOf("[t]\nx = 1\n[t]\n"), "t.toml:3:1: [t]: already a table defined at line 1");
  EXPECT_EQ(ErrorOf("a = \"open\n"), "t.toml:1:5: unterminated string");
  EXPECT_EQ(ErrorOf("a = \"\\q\"\n"), "t.toml:1:7: unknown escape \\q");
  EXPECT_EQ(ErrorOf("a = 1.5\n"), "t.toml:1:5: floats are not supported in lock files: 1.5");
  EXPECT_EQ(ErrorOf("a = 1 b = 2\n"), "t.toml:1:7: expected the end of the line, found 'b'");
  EXPECT_EQ(ErrorOf("a = [1, 2\n"), "t.toml:2:1: expected ',' or ']' in an array, found the end of the file");
  EXPECT_EQ(ErrorOf("a = { x = 1, }\n"), "t.toml:1:14: a trailing comma is not allowed in an inline table");
  EXPECT_THAT(ErrorOf("a = { x = 1 }\n[a]\n"), HasSubstr("t.toml:2:1: [a]: already a table"));
  EXPECT_THAT(ErrorOf("a = { x = 1 }\na.y = 2\n"), HasSubstr("t.toml:2:1: cannot add keys to a"));
  EXPECT_THAT(ErrorOf("a = [1]\n[[a]]\n"), HasSubstr("t.toml:2:1: [[a]]: already an array"));
  EXPECT_THAT(ErrorOf("a = 2024-13-01\n"), HasSubstr("t.toml:1:5: not a valid date-time"));
  EXPECT_THAT(ErrorOf("a = \"\x01\"\n"), HasSubstr("t.toml:1:6: control character U+0001 in a string"));
  EXPECT_EQ(ErrorOf("a = \"\xff\"\n"), "t.toml:1:6: not valid UTF-8");
  EXPECT_EQ(ErrorOf("a =\n"), "t.toml:1:4: expected a value after '='");
  EXPECT_EQ(ErrorOf("= 1\n"), "t.toml:1:1: expected a key, found '='");
  EXPECT_EQ(ErrorOf("a = 01\n"), "t.toml:1:5: leading zeros are not allowed: 01");
  std::string deep = "a = ";
  for (int i = 0; i < 100; ++i) deep += "[";
  EXPECT_THAT(ErrorOf(deep), HasSubstr("nested deeper than 64 levels"));
}

// Issue 29, item 6: a dotted key of 200,000 parts (`a.a.a...= 1`) crashed the reader's tables'
// destructors. Each part of a key or header is a level, counted with the values' nesting.
TEST(TomlTest, DeepDottedKeysAndHeadersAreLocatedErrorsNotCrashes) {
  std::string key = "a";
  for (int i = 0; i < 200000; ++i) key += ".a";
  EXPECT_EQ(ErrorOf(key + " = 1\n"), "t.toml:1:129: a key of more than 64 dotted parts");
  EXPECT_THAT(ErrorOf("[" + key + "]\n"), HasSubstr("a key of more than 64 dotted parts"));
  // Within the bound, keys and headers read; their levels add up with a value's.
  std::string parts = "a";
  for (int i = 1; i < 30; ++i) parts += ".a";  // 30 + 30 levels: within 64
  const Value read = Parsed("[" + parts + "]\n" + parts + " = 1\n");
  EXPECT_TRUE(read.Find("a") != nullptr);
  std::string nested = "[" + parts + "]\n" + parts + " = ";
  for (int i = 0; i < 10; ++i) nested += "[";
  EXPECT_THAT(ErrorOf(nested), HasSubstr("nested deeper than 64 levels"));
  std::string inline_dotted = "x = ";
  for (int i = 0; i < 20; ++i) inline_dotted += "{ a.b.c.d = ";
  EXPECT_THAT(ErrorOf(inline_dotted), HasSubstr("nested deeper than 64 levels"));
}

// Issue 29, item 8: a table of many keys is read in linear time (each key's duplicate check is a
// look-up, not a scan of every key before it), and finds what it holds.
TEST(TomlTest, ATableOfManyKeysIsReadWhole) {
  std::string text = "[t]\n";
  for (int i = 0; i < 100000; ++i) text.append("k").append(std::to_string(i)).append(" = ").append(std::to_string(i)).append("\n");
  const Value read = Parsed(text);
  const Value* t = read.Find("t");
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->entries.size(), 100000u);
  EXPECT_EQ(t->Find("k99999")->integer, 99999);
  EXPECT_EQ(t->Find("k17")->integer, 17);
  EXPECT_EQ(t->Find("k100000"), nullptr);
  EXPECT_THAT(ErrorOf(text + "k5 = 1\n"), HasSubstr("t.toml:100002:1: duplicate key k5 (first at line 7)"));
  // A copy shares the index until one of them adds a key; both still find their own.
  Value copy = *t;
  copy.Set("extra", Value::Integer(1));
  EXPECT_EQ(copy.Find("extra")->integer, 1);
  EXPECT_EQ(t->Find("extra"), nullptr);
  EXPECT_EQ(copy.Find("k42")->integer, 42);
}

TEST(TomlTest, WhatIsWrittenReadsBackTheSame) {
  const std::string text =
      "lock-version = \"1.0\"\nlist = [\"a\\\"b\", \"\\u0007\"]\n[[packages]]\nname = \"x\"\n"
      "wheels = [{ url = \"u\", hashes = { sha256 = \"h\" } }, { url = \"v\", hashes = {} }]\n"
      "[packages.tool.torchdex]\nrouted = true\n[[packages]]\nname = \"y\"\n"
      "[tool.\"a b\"]\nt = 07:32:00\nd = 1979-05-27 07:32:00+01:00\n";
  const Value first = Parsed(text);
  const std::string written = Write(first);
  const Value second = Parsed(written);
  EXPECT_TRUE(Same(first, second)) << written;
  EXPECT_EQ(Write(second), written);
  EXPECT_THAT(written, HasSubstr("[[packages]]\nname = \"x\"\n"));
  EXPECT_THAT(written, HasSubstr("[packages.tool.torchdex]\nrouted = true\n"));
  EXPECT_THAT(written, HasSubstr("[tool.\"a b\"]\n"));
  EXPECT_THAT(written, HasSubstr("\"\\u0007\""));
  // A sub-table defined before its parent's own keys: written parent first, still the same.
  const Value late = Parsed("[a.b]\nc = 1\n[a]\nx = 2\n");
  EXPECT_EQ(Write(late), "[a]\nx = 2\n\n[a.b]\nc = 1\n");
  EXPECT_TRUE(Same(late, Parsed(Write(late))));
}

}  // namespace
}  // namespace torchdex::installer::toml
