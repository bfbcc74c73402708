// Garbage in every file detection reads (empty, binary, huge, endless, wrong format): a warning
// naming the file and a sane answer, never a crash or a hang.
#include <gtest/gtest.h>

#include "tests/installer/test_support.h"

namespace torchdex::installer::testing {
namespace {

enum class Garbage { kEmpty, kBinary, kHuge, kEndless, kWrongFormat };

struct Case {
  const char* host;
  const char* file;
};

std::string Name(Garbage garbage) {
  switch (garbage) {
    case Garbage::kEmpty:
      return "empty";
    case Garbage::kBinary:
      return "binary";
    case Garbage::kHuge:
      return "huge";
    case Garbage::kEndless:
      return "endless";
    case Garbage::kWrongFormat:
      return "wrong format";
  }
  return "";
}

void Spoil(const TempRoot& root, const std::string& file, Garbage garbage) {
  switch (garbage) {
    case Garbage::kEmpty:
      root.Write(file, "");
      break;
    case Garbage::kBinary:
      root.Write(file, std::string("\x7f"
                                   "ELF\x02\x01\x01\x00\xff\xfe",
                                   10));
      break;
    case Garbage::kHuge:
      root.Write(file, std::string(1 << 20, '7'));
      break;
    case Garbage::kEndless:
      root.Link(file, "/dev/zero");
      break;
    case Garbage::kWrongFormat:
      root.Write(file, "<html><body>502 Bad Gateway</body></html>\n");
      break;
  }
}

const Case kCases[] = {
    {"linux-rtx3090-driver550-proprietary", "/sys/module/nvidia/version"},
    {"linux-rtx3090-driver550-proprietary", "/proc/driver/nvidia/version"},
    {"linux-rtx3090-driver550-proprietary", "/proc/driver/nvidia/gpus/0000:01:00.0/information"},
    {"linux-rtx3090-driver550-proprietary", "/sys/bus/pci/devices/0000:01:00.0/class"},
    {"linux-rtx3090-driver550-proprietary", "/sys/bus/pci/devices/0000:01:00.0/device"},
    {"linux-rtx3090-driver550-proprietary", "/proc/sys/kernel/arch"},
    {"amd-rx7900xtx-gfx1100-rocm6.4", "/sys/class/kfd/kfd/topology/nodes/1/properties"},
    {"amd-rx7900xtx-gfx1100-rocm6.4", "/opt/rocm/.info/version"},
    {"jetson-orin-r36", "/etc/nv_tegra_release"},
    {"intel-arc-a770-xpu-plus-uhd770", "/sys/bus/pci/devices/0000:03:00.0/vendor"},
};

TEST(Garbage, EveryFileEveryKind) {
  for (const Case& item : kCases) {
    for (Garbage garbage : {Garbage::kEmpty, Garbage::kBinary, Garbage::kHuge, Garbage::kEndless,
                            Garbage::kWrongFormat}) {
      SCOPED_TRACE(std::string(item.file) + " in " + item.host + ": " + Name(garbage));
      TempRoot root;
      root.CopyFrom(kFixtures / "hosts" / item.host);
      Spoil(root, item.file, garbage);
      const HostFacts facts = DetectUnder(root.path(), {});
      EXPECT_EQ(facts.os, core::TargetOs::kLinux);
      EXPECT_FALSE(facts.arch.empty());
      {
        bool named = false;
        for (const std::string& warning : facts.warnings) {
          // A PCI device directory is named by its directory, the rest by the file itself.
          if (warning.find(item.file) != std::string::npos ||
              warning.find(std::string(item.file).substr(
                  0, std::string(item.file).rfind('/') + 1)) != std::string::npos) {
            named = true;
          }
        }
        EXPECT_TRUE(named) << "no warning names the file; warnings: " << facts.warnings.size();
      }
      EXPECT_TRUE(facts.probes.empty()) << "garbage must not start a probe without a device";
    }
  }
}

TEST(Garbage, DriverFallsBackFromSysToProc) {
  TempRoot root;
  root.CopyFrom(kFixtures / "hosts" / "linux-rtx3090-driver550-proprietary");
  root.Write("/sys/module/nvidia/version", "\x01\x02garbage");
  const HostFacts facts = DetectUnder(root.path(), {});
  ASSERT_TRUE(facts.nvidia);
  EXPECT_EQ(testing::Text(facts.nvidia->driver_version), "550.144.03");
  EXPECT_EQ(facts.nvidia->driver_source, "/proc/driver/nvidia/version");
  EXPECT_EQ(testing::Text(facts.nvidia->gpus.at(0).compute_capability), "8.6");
}

TEST(Garbage, BadKfdNodeLeavesTheOthers) {
  TempRoot root;
  root.CopyFrom(kFixtures / "hosts" / "amd-rx7900xtx-gfx1100-rocm6.4");
  root.Write("/sys/class/kfd/kfd/topology/nodes/2/properties", "gfx_target_version 999999\n");
  const HostFacts facts = DetectUnder(root.path(), {});
  ASSERT_TRUE(facts.amd);
  EXPECT_EQ(facts.amd->gfx, std::vector<std::string>{"gfx1100"});
  EXPECT_TRUE(AnyWarningContains(facts, "nodes/2/properties: gfx_target_version 999999"));
}

}  // namespace
}  // namespace torchdex::installer::testing
