#include "core/accelerator.h"

#include <gtest/gtest.h>

namespace torchdex::core {
namespace {

TEST(BackendKindTest, ReadsBackEveryWordItWrites) {
  for (BackendKind kind : kBackendKinds) {
    EXPECT_EQ(ParseBackendKind(BackendKindWord(kind)), kind) << BackendKindWord(kind);
    EXPECT_FALSE(BackendKindDisplayName(kind).empty());
    EXPECT_TRUE(BackendKindEnumerator(kind).starts_with("k"));
  }
  EXPECT_EQ(BackendKindWord(BackendKind::kRocm), "rocm");
  EXPECT_EQ(BackendKindDisplayName(BackendKind::kRocm), "ROCm");
  EXPECT_EQ(BackendKindEnumerator(BackendKind::kCuda), "kCuda");
  EXPECT_EQ(ParseBackendKind("CUDA"), std::nullopt);  // the catalogue's words are lower case
  EXPECT_EQ(ParseBackendKind("npu"), std::nullopt);
}

TEST(TargetOsTest, ReadsBackEveryWord) {
  for (TargetOs os : {TargetOs::kLinux, TargetOs::kWindows, TargetOs::kMacOS}) {
    EXPECT_EQ(ParseTargetOs(TargetOsWord(os)), os);
  }
  EXPECT_EQ(TargetOsWord(TargetOs::kMacOS), "macos");
  EXPECT_EQ(ParseTargetOs("darwin"), std::nullopt);
}

TEST(DriverVersionTest, PrintsWhatItParsed) {
  for (const char* text : {"550.144.03", "572.60", "580", "470.82.01", "540.4.0", "31.0.15.5222"}) {
    auto v = DriverVersion::Parse(text);
    ASSERT_TRUE(v) << text;
    EXPECT_EQ(v->ToString(), text);
  }
}

TEST(DriverVersionTest, RefusesWhatIsNoVersion) {
  for (const char* text : {"", ".", "550.", ".550", "550..1", "550.1a", "a", "1.2.3.4.5", "0.1",
                           "1234567.1", "550 .1", "-550", "550.144.03\n"}) {
    EXPECT_FALSE(DriverVersion::Parse(text)) << text;
  }
}

TEST(DriverVersionTest, OrdersNumerically) {
  auto v = [](const char* text) { return *DriverVersion::Parse(text); };
  EXPECT_LT(v("550.144.03"), v("560.28.03"));
  EXPECT_GT(v("570.124.06"), v("570.26"));
  EXPECT_EQ(v("580"), v("580.0.0"));
  EXPECT_LT(v("99.1"), v("450.80.02"));
  EXPECT_LT(v("550.54.9"), v("550.54.14"));  // numbers, not text
}

TEST(DriverVersionTest, NumbersPrintTheWayNvidiaWritesItsTables) {
  EXPECT_EQ(DriverVersion(525, 60, 13).ToString(), "525.60.13");
  EXPECT_EQ(DriverVersion(496, 4, 0).ToString(), "496.04");
  EXPECT_EQ(DriverVersion(535, 54, 3).ToString(), "535.54.03");
  EXPECT_EQ(DriverVersion(580, 0, 0).ToString(), "580");
  EXPECT_FALSE(DriverVersion(0, 0, 0).known());
  EXPECT_FALSE(DriverVersion().known());
  static_assert(DriverVersion::Parse("525.60.13")->part(1) == 60, "parses at compile time");
  static_assert(DriverVersion(525, 60, 13) == *DriverVersion::Parse("525.60.13"));
}

TEST(ComputeCapabilityTest, ParsesBothSpellings) {
  EXPECT_EQ(ComputeCapability::Parse("8.6"), (ComputeCapability{8, 6}));
  EXPECT_EQ(ComputeCapability::Parse(" 12.0 \n"), (ComputeCapability{12, 0}));
  EXPECT_EQ(ComputeCapability::ParseSm("sm_86"), (ComputeCapability{8, 6}));
  EXPECT_EQ(ComputeCapability::ParseSm("sm_120"), (ComputeCapability{12, 0}));
  EXPECT_EQ(ComputeCapability::ParseSm("sm_90a"), (ComputeCapability{9, 0}));
  EXPECT_EQ((ComputeCapability{12, 0}).Sm(), "sm_120");
  EXPECT_EQ((ComputeCapability{8, 9}).ToString(), "8.9");
  for (const char* bad : {"", "8", "8.", ".6", "0.6", "8.10", "123.0", "8.6.1", "x.y"}) {
    EXPECT_FALSE(ComputeCapability::Parse(bad)) << bad;
  }
  for (const char* bad : {"", "sm_", "sm_8", "86", "gfx1100", "sm_8x", "sm_1200"}) {
    EXPECT_FALSE(ComputeCapability::ParseSm(bad)) << bad;
  }
  EXPECT_LT((ComputeCapability{8, 6}), (ComputeCapability{8, 9}));
  EXPECT_LT((ComputeCapability{9, 0}), (ComputeCapability{12, 0}));
}

}  // namespace
}  // namespace torchdex::core
