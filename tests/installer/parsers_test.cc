// The pure parsers, on the real formats of ../shared/research/detection.md.
#include <gtest/gtest.h>

#include "tests/installer/test_support.h"

#include "installer/detect/amd_parsers.h"
#include "installer/table/hardware_table.h"
#include "installer/detect/host_parsers.h"
#include "installer/detect/library_probe.h"
#include "installer/detect/nvidia_parsers.h"

namespace torchdex::installer {
namespace {

TEST(ParseProcNvidiaVersion, ProprietaryOpenAndAarch64Variants) {
  auto proprietary = ParseProcNvidiaVersion(
      "NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.86.15  Wed Jan 22 2025\n"
      "GCC version:  gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04)\n");
  ASSERT_TRUE(proprietary);
  EXPECT_EQ(testing::Text(proprietary->version), "570.86.15");
  EXPECT_FALSE(proprietary->open_module);
  EXPECT_EQ(proprietary->arch, "x86_64");

  auto open = ParseProcNvidiaVersion(
      "NVRM version: NVIDIA UNIX Open Kernel Module for aarch64  550.144.03  Release Build  "
      "(dvs-builder@U16-I3-D08-1-2)  Mon Dec 30 17:33:24 UTC 2024\n");
  ASSERT_TRUE(open);
  EXPECT_EQ(testing::Text(open->version), "550.144.03");
  EXPECT_TRUE(open->open_module);
  EXPECT_EQ(open->arch, "aarch64");

  auto two_parts =
      ParseProcNvidiaVersion("NVRM version: NVIDIA UNIX x86_64 Kernel Module  375.74  Wed\n");
  ASSERT_TRUE(two_parts);
  EXPECT_EQ(testing::Text(two_parts->version), "375.74");
}

TEST(ParseProcNvidiaVersion, NeverTakesTheGccLine) {
  EXPECT_FALSE(ParseProcNvidiaVersion("GCC version:  gcc version 12.3.0 (Ubuntu)\n"));
  EXPECT_FALSE(ParseProcNvidiaVersion("NVRM version: NVIDIA UNIX x86_64 Kernel Module\n"));
  EXPECT_FALSE(ParseProcNvidiaVersion(""));
}

TEST(ParseSysModuleVersion, OneVersionLine) {
  EXPECT_EQ(testing::Text(ParseSysModuleVersion("550.144.03\n")), "550.144.03");
  EXPECT_FALSE(ParseSysModuleVersion(""));
  EXPECT_FALSE(ParseSysModuleVersion("550"));
  EXPECT_FALSE(ParseSysModuleVersion("version 550.144.03"));
}

TEST(ParseGpuInformation, ColonTabSeparatedFields) {
  auto info = ParseGpuInformation(
      "Model: \t\t NVIDIA GeForce RTX 3090\nIRQ:   \t\t 77\n"
      "GPU UUID: \t GPU-eaf23aa1-4d3d-596c-da66-b86b0e5db584\nBus Location: \t 0000:01:00.0\n");
  ASSERT_TRUE(info);
  EXPECT_EQ(info->model, "NVIDIA GeForce RTX 3090");
  EXPECT_EQ(info->uuid, "GPU-eaf23aa1-4d3d-596c-da66-b86b0e5db584");
  EXPECT_EQ(info->bus_location, "0000:01:00.0");
}

TEST(NormalizePciBusId, EightDigitDomainsAndCase) {
  EXPECT_EQ(NormalizePciBusId("00000000:2B:00.0"), "0000:2b:00.0");
  EXPECT_EQ(NormalizePciBusId("0000:01:00.0"), "0000:01:00.0");
  EXPECT_EQ(NormalizePciBusId("[N/A]"), "");
  EXPECT_EQ(NormalizePciBusId("0000:01:00"), "");
}

TEST(ParseNvidiaSmiCsv, OneLinePerGpu) {
  auto gpus = ParseNvidiaSmiCsv(
      "570.86.15, 7.0, Tesla V100-PCIE-16GB, 00000000:01:00.0\n"
      "570.86.15, [N/A], NVIDIA GeForce RTX 4090, 00000000:02:00.0\n",
      true);
  ASSERT_EQ(gpus.size(), 2u);
  EXPECT_EQ(testing::Text(gpus[0].compute_capability), "7.0");
  EXPECT_EQ(testing::Text(gpus[1].compute_capability), "");
  EXPECT_EQ(gpus[1].pci_bus_id, "0000:02:00.0");
  EXPECT_TRUE(ParseNvidiaSmiCsv("driver_version, compute_cap\n", true).empty());  // a header
  EXPECT_EQ(ParseNvidiaSmiCsv("470.256.02, Tesla K80, 00000000:04:00.0\n", false).size(), 1u);
}

TEST(NvidiaSmiMessages, R470AndDriverNotLoaded) {
  EXPECT_TRUE(NvidiaSmiRejectsComputeCap("Field \"compute_cap\" is not a valid field to query.\n"));
  EXPECT_TRUE(NvidiaSmiCannotReachDriver(
      "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure"));
}

TEST(GfxFromTargetVersion, HexDigitsForMinorAndStepping) {
  EXPECT_EQ(GfxFromTargetVersion(90010), "gfx90a");
  EXPECT_EQ(GfxFromTargetVersion(90012), "gfx90c");
  EXPECT_EQ(GfxFromTargetVersion(90402), "gfx942");
  EXPECT_EQ(GfxFromTargetVersion(100300), "gfx1030");
  EXPECT_EQ(GfxFromTargetVersion(110000), "gfx1100");
  EXPECT_EQ(GfxFromTargetVersion(110501), "gfx1151");
  EXPECT_EQ(GfxFromTargetVersion(120001), "gfx1201");
  EXPECT_FALSE(GfxFromTargetVersion(0));
  EXPECT_FALSE(GfxFromTargetVersion(111700));  // minor 17 is not one hex digit
}

TEST(ParseKfdProperties, GpuAndCpuNodes) {
  auto gpu = ParseKfdProperties(
      "simd_count 192\ngfx_target_version 110000\nvendor_id 4098\ndevice_id 29772\n");
  ASSERT_TRUE(gpu);
  EXPECT_EQ(gpu->gfx_target_version, 110000u);
  EXPECT_EQ(gpu->vendor_id, 0x1002u);
  EXPECT_EQ(gpu->device_id, 0x744cu);
  auto cpu = ParseKfdProperties("cpu_cores_count 16\ngfx_target_version 0\n");
  ASSERT_TRUE(cpu);
  EXPECT_EQ(cpu->gfx_target_version, 0u);
  EXPECT_FALSE(ParseKfdProperties("gpu_id 4672\n"));
}

TEST(ParseRocmAgentEnumerator, DropsCpuAndIsaSuffixes) {
  EXPECT_EQ(ParseRocmAgentEnumerator("gfx000\ngfx90a:sramecc+:xnack-\ngfx1030\ngfx1030\n"),
            (std::vector<std::string>{"gfx90a", "gfx1030"}));
}

TEST(ParseRocmVersionFile, WithAndWithoutBuildSuffix) {
  EXPECT_EQ(ParseRocmVersionFile("6.4.0-47\n"), "6.4.0");
  EXPECT_EQ(ParseRocmVersionFile("7.2.1\n"), "7.2.1");
  EXPECT_FALSE(ParseRocmVersionFile("rocm\n"));
}

TEST(ParseNvTegraRelease, R35AndR36) {
  EXPECT_EQ(ParseNvTegraRelease("# R36 (release), REVISION: 4.3, GCID: 38968081, BOARD: generic\n"),
            "36.4.3");
  EXPECT_EQ(ParseNvTegraRelease("# R35 (release), REVISION: 4.1, GCID: 33958178, BOARD: t186ref\n"),
            "35.4.1");
  EXPECT_FALSE(ParseNvTegraRelease("R36 4.3\n"));
}

TEST(HostParsers, WslArchAndCgroup) {
  EXPECT_TRUE(OsReleaseIsWsl("5.15.167.4-microsoft-standard-WSL2\n"));
  EXPECT_FALSE(OsReleaseIsWsl("6.8.0-52-generic\n"));
  EXPECT_EQ(ParseKernelArch("aarch64\n"), "aarch64");
  EXPECT_FALSE(ParseKernelArch("x86 64"));
  EXPECT_EQ(ContainerRuntimeInCgroup("12:pids:/kubepods/besteffort/pod1\n"), "kubepods");
  EXPECT_EQ(ContainerRuntimeInCgroup("0::/init.scope\n"), "");
}

core::DriverVersion D(const char* text) { return *core::DriverVersion::Parse(text); }

TEST(MaxCudaForDriver, LinuxAndWindowsColumns) {
  auto linux_driver = MaxCudaForDriver(D("550.144.03"), DriverTable::kLinux);
  ASSERT_TRUE(linux_driver);
  EXPECT_EQ(linux_driver->cuda, "12.4");
  EXPECT_EQ(linux_driver->first_driver, "550.54.14");
  EXPECT_FALSE(linux_driver->beyond_table);
  EXPECT_EQ(MaxCudaForDriver(D("570.26"), DriverTable::kLinux)->cuda, "12.8");
  EXPECT_EQ(MaxCudaForDriver(D("570.25"), DriverTable::kLinux)->cuda, "12.6");
  // WSL and Windows report Windows numbers: 572.60 is 12.8 there.
  EXPECT_EQ(MaxCudaForDriver(D("572.60"), DriverTable::kWindows)->cuda, "12.8");
  auto newer = MaxCudaForDriver(D("610.43.02"), DriverTable::kLinux);
  ASSERT_TRUE(newer);
  EXPECT_EQ(newer->cuda, "13.2");
  EXPECT_TRUE(newer->beyond_table);
  EXPECT_FALSE(MaxCudaForDriver(D("400.10"), DriverTable::kLinux));
  EXPECT_FALSE(MaxCudaForDriver(D("540.4.0"), DriverTable::kNone));  // Jetson
  EXPECT_FALSE(MaxCudaForDriver(core::DriverVersion(), DriverTable::kLinux));  // unknown
}

TEST(ProbeAnswer, RoundTripsAndIgnoresAPartialLastLine) {
  ProbeAnswer answer;
  answer.library = "/usr/lib/wsl/lib/libnvidia-ml.so.1";
  answer.driver_version = D("572.60");
  answer.cuda_version = 12080;
  answer.devices_counted = true;
  answer.gpus.push_back({core::ComputeCapability{8, 9}, "0000:01:00.0", "GPU-0a1b", "NVIDIA GeForce RTX 4090"});
  const ProbeAnswer parsed = ParseProbeAnswer(FormatProbeAnswer(answer));
  EXPECT_EQ(parsed.library, answer.library);
  EXPECT_EQ(parsed.driver_version->ToString(), "572.60");
  EXPECT_EQ(parsed.gpus.at(0).compute_capability, (core::ComputeCapability{8, 9}));
  EXPECT_EQ(parsed.cuda_version, 12080);
  ASSERT_EQ(parsed.gpus.size(), 1u);
  EXPECT_EQ(parsed.gpus[0].name, "NVIDIA GeForce RTX 4090");
  EXPECT_TRUE(ParseProbeAnswer("library\t/x\ngpu\t8.9\t0000:01:00.0").gpus.empty());
  EXPECT_EQ(CudaVersionString(13010), "13.1");
  EXPECT_EQ(CudaVersionString(999), "");
}

}  // namespace
}  // namespace torchdex::installer
