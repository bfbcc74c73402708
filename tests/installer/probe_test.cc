// The probe path for real: fake libnvidia-ml.so.1 / libcuda.so.1 (answer, hang, crash) loaded in
// a child process, and fake nvidia-smi scripts (multi-GPU, R470, hang, driver not loaded) run
// through the PosixProcessRunner. Hangs use a 0.3 s timeout; nothing asserts on time.
#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "tests/installer/test_support.h"

namespace torchdex::installer::testing {
namespace {

using namespace std::chrono_literals;

// A WSL2 host with no /sys/module/nvidia: only the probes can answer.
void MakeWslHost(const TempRoot& root) {
  root.Write("/proc/sys/kernel/arch", "x86_64\n");
  root.Write("/proc/sys/kernel/osrelease", "5.15.167.4-microsoft-standard-WSL2\n");
  root.Write("/dev/dxg", "");
}

// A Linux host whose only NVIDIA GPU has a PCI id no table knows: the compute capability needs a
// probe, the driver version is in /sys.
void MakeUnknownGpuHost(const TempRoot& root) {
  root.Write("/proc/sys/kernel/arch", "x86_64\n");
  root.Write("/sys/module/nvidia/version", "580.95.05\n");
  root.Write("/sys/bus/pci/devices/0000:01:00.0/vendor", "0x10de\n");
  root.Write("/sys/bus/pci/devices/0000:01:00.0/device", "0x2fff\n");
  root.Write("/sys/bus/pci/devices/0000:01:00.0/class", "0x030000\n");
  root.Write("/dev/nvidiactl", "");
}

void MakeJetsonHost(const TempRoot& root) {
  root.Write("/proc/sys/kernel/arch", "aarch64\n");
  root.Write("/etc/nv_tegra_release",
             "# R36 (release), REVISION: 4.3, GCID: 38968081, BOARD: generic, EABI: aarch64, DATE: "
             "Wed Jan  8 01:49:37 UTC 2025\n");
  root.Write("/dev/nvhost-ctrl-gpu", "");
}

std::filesystem::path Fake(const char* mode, const char* library) {
  return kFakes / mode / library;
}

TEST(NvmlProbe, AnswersOnWslFromTheWslLibraryDirectory) {
  TempRoot root;
  MakeWslHost(root);
  root.Link("/usr/lib/wsl/lib/libnvidia-ml.so.1", Fake("answer", "libnvidia-ml.so.1"));
  const HostFacts facts = DetectUnder(root.path(), {});
  ASSERT_TRUE(facts.nvidia);
  EXPECT_EQ(testing::Text(facts.nvidia->driver_version), "572.60");
  EXPECT_EQ(facts.nvidia->driver_source, "nvml (/usr/lib/wsl/lib/libnvidia-ml.so.1)");
  EXPECT_EQ(facts.nvidia->driver_table, DriverTable::kWindows);
  EXPECT_EQ(facts.nvidia->cuda_driver_api, "12.8");
  EXPECT_EQ(facts.nvidia->cuda_driver_api_source, "nvml (/usr/lib/wsl/lib/libnvidia-ml.so.1)");
  ASSERT_EQ(facts.nvidia->gpus.size(), 2u);
  EXPECT_EQ(facts.nvidia->gpus[0].pci_bus_id, "0000:01:00.0");
  EXPECT_EQ(testing::Text(facts.nvidia->gpus[0].compute_capability), "8.9");
  EXPECT_EQ(facts.nvidia->gpus[0].uuid, "GPU-0a1b2c3d-1111-2222-3333-444455556666");
  EXPECT_EQ(facts.nvidia->gpus[1].pci_bus_id, "0000:2b:00.0");
  EXPECT_EQ(facts.nvidia->gpus[1].name, "NVIDIA GeForce RTX 3060");
  EXPECT_EQ(testing::Text(facts.nvidia->gpus[1].compute_capability), "8.6");
  ASSERT_EQ(facts.probes.size(), 1u);
  EXPECT_EQ(facts.probes[0].what, "nvml");
  EXPECT_EQ(facts.probes[0].outcome, "answered");
  EXPECT_TRUE(facts.warnings.empty()) << facts.warnings.front();
}

TEST(NvmlProbe, HangIsKilledAndDetectionFallsBackToNvidiaSmi) {
  TempRoot root;
  MakeWslHost(root);
  root.Link("/usr/lib/wsl/lib/libnvidia-ml.so.1", Fake("hang", "libnvidia-ml.so.1"));
  root.Link("/usr/lib/wsl/lib/nvidia-smi", kFakeTools / "multi-gpu");
  const HostFacts facts = DetectUnder(root.path(), {}, 300ms);
  ASSERT_TRUE(facts.nvidia);
  EXPECT_TRUE(
      AnyWarningContains(facts, "nvml (/usr/lib/wsl/lib/libnvidia-ml.so.1) timed out after 0.3 s"));
  ASSERT_EQ(facts.probes.size(), 2u);
  EXPECT_EQ(facts.probes[1].what, "nvidia-smi");
  EXPECT_EQ(testing::Text(facts.nvidia->driver_version), "580.95.05");
  ASSERT_EQ(facts.nvidia->gpus.size(), 2u);
  EXPECT_EQ(testing::Text(facts.nvidia->gpus[1].compute_capability), "7.0");
}

TEST(NvmlProbe, CrashBecomesAWarningAndLibcudaAnswers) {
  TempRoot root;
  MakeUnknownGpuHost(root);
  root.Link("/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1", Fake("crash", "libnvidia-ml.so.1"));
  root.Link("/usr/lib/x86_64-linux-gnu/libcuda.so.1", Fake("answer", "libcuda.so.1"));
  const HostFacts facts = DetectUnder(root.path(), {});
  ASSERT_TRUE(facts.nvidia);
  // The child resets SIGSEGV to the default first, so even a sanitizer build reports the signal.
  const char* kOutcome = "nvml (/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1) crashed (signal 11";
  EXPECT_TRUE(AnyWarningContains(facts, kOutcome)) << ::testing::PrintToString(facts.warnings);
  EXPECT_EQ(testing::Text(facts.nvidia->driver_version), "580.95.05");  // the files win for the driver
  EXPECT_EQ(facts.nvidia->driver_source, "/sys/module/nvidia/version");
  EXPECT_EQ(facts.nvidia->cuda_driver_api, "12.6");  // libcuda answered
  // The fake libcuda gives no PCI address: with one GPU on each side it is the same one.
  ASSERT_EQ(facts.nvidia->gpus.size(), 1u);
  EXPECT_EQ(facts.nvidia->gpus[0].pci_id, "0x2fff");
  EXPECT_EQ(testing::Text(facts.nvidia->gpus[0].compute_capability), "8.7");
  EXPECT_EQ(facts.nvidia->gpus[0].compute_capability_source,
            "libcuda (/usr/lib/x86_64-linux-gnu/libcuda.so.1)");
}

TEST(LibcudaProbe, AnswersOnJetsonEvenWithAnEmptyCudaVisibleDevicesInTheParent) {
  TempRoot root;
  MakeJetsonHost(root);
  root.Link("/usr/lib/aarch64-linux-gnu/nvidia/libcuda.so.1", Fake("answer", "libcuda.so.1"));
  // The fake cuInit fails with an empty CUDA_VISIBLE_DEVICES, as the real one does: the probe
  // child must remove it from the real environment it inherits.
  ::setenv("CUDA_VISIBLE_DEVICES", "", 1);
  const HostFacts facts = DetectUnder(root.path(), {});
  ::unsetenv("CUDA_VISIBLE_DEVICES");
  ASSERT_TRUE(facts.jetson);
  EXPECT_EQ(facts.jetson->l4t, "36.4.3");
  ASSERT_TRUE(facts.nvidia);
  EXPECT_EQ(facts.nvidia->cuda_driver_api, "12.6");
  EXPECT_EQ(facts.nvidia->driver_table, DriverTable::kNone);
  ASSERT_EQ(facts.nvidia->gpus.size(), 1u);
  EXPECT_EQ(facts.nvidia->gpus[0].name, "Orin (nvgpu)");
  EXPECT_EQ(testing::Text(facts.nvidia->gpus[0].compute_capability), "8.7");
  ASSERT_FALSE(facts.probes.empty());
  EXPECT_EQ(facts.probes.back().what, "libcuda");
  EXPECT_EQ(facts.probes.back().outcome, "answered");
}

TEST(LibcudaProbe, HangAndCrashBecomeWarnings) {
  for (const char* mode : {"hang", "crash"}) {
    TempRoot root;
    MakeJetsonHost(root);
    root.Link("/usr/lib/aarch64-linux-gnu/nvidia/libcuda.so.1", Fake(mode, "libcuda.so.1"));
    const HostFacts facts = DetectUnder(root.path(), {}, 300ms);
    ASSERT_TRUE(facts.nvidia) << mode;
    EXPECT_TRUE(facts.nvidia->cuda_driver_api.empty()) << mode;
    const std::string expected =
        std::string(mode) == "hang" ? "timed out after 0.3 s" : "crashed (signal 6";
    EXPECT_TRUE(AnyWarningContains(facts, expected)) << mode;
  }
}

TEST(NvidiaSmi, MultiGpuLinesFillEveryGpu) {
  TempRoot root;
  MakeWslHost(root);
  root.Link("/usr/lib/wsl/lib/nvidia-smi", kFakeTools / "multi-gpu");
  const HostFacts facts = DetectUnder(root.path(), {});
  ASSERT_TRUE(facts.nvidia);
  EXPECT_EQ(testing::Text(facts.nvidia->driver_version), "580.95.05");
  EXPECT_EQ(facts.nvidia->driver_source, "nvidia-smi (/usr/lib/wsl/lib/nvidia-smi)");
  ASSERT_EQ(facts.nvidia->gpus.size(), 2u);
  EXPECT_EQ(facts.nvidia->gpus[0].name, "NVIDIA GeForce RTX 4090");
  EXPECT_EQ(testing::Text(facts.nvidia->gpus[0].compute_capability), "8.9");
  EXPECT_EQ(facts.nvidia->gpus[1].name, "Tesla V100-PCIE-16GB");
  EXPECT_EQ(testing::Text(facts.nvidia->gpus[1].compute_capability), "7.0");
  EXPECT_TRUE(facts.warnings.empty());
}

TEST(NvidiaSmi, R470IsAskedAgainWithoutComputeCap) {
  TempRoot root;
  MakeUnknownGpuHost(root);
  root.Write("/sys/bus/pci/devices/0000:01:00.0/device", "0x2fff\n");
  root.Link("/usr/bin/nvidia-smi", kFakeTools / "r470");
  const HostFacts facts = DetectUnder(root.path(), {});
  ASSERT_TRUE(facts.nvidia);
  ASSERT_EQ(facts.probes.size(), 2u);
  EXPECT_EQ(facts.probes[0].outcome,
            "this nvidia-smi does not know compute_cap; asked again without it");
  EXPECT_EQ(facts.probes[1].outcome, "answered");
  // Its line names another bus address: reported as a second GPU, with a name, no CC.
  ASSERT_EQ(facts.nvidia->gpus.size(), 2u);
  EXPECT_EQ(facts.nvidia->gpus[1].name, "Tesla K80");
  EXPECT_FALSE(facts.nvidia->gpus[1].compute_capability);
  EXPECT_TRUE(AnyWarningContains(facts, "compute capability of Tesla K80 at 0000:04:00.0 unknown"));
}

TEST(NvidiaSmi, HangIsKilledWithItsChildren) {
  TempRoot root;
  MakeWslHost(root);
  root.Link("/usr/lib/wsl/lib/nvidia-smi", kFakeTools / "hang");
  const HostFacts facts = DetectUnder(root.path(), {}, 300ms);
  ASSERT_TRUE(facts.nvidia);
  EXPECT_TRUE(
      AnyWarningContains(facts, "nvidia-smi (/usr/lib/wsl/lib/nvidia-smi) timed out after 0.3 s"));
  EXPECT_FALSE(facts.nvidia->driver_version);
}

TEST(NvidiaSmi, DriverNotLoadedMeansNoUsableDevice) {
  TempRoot root;
  MakeWslHost(root);
  root.Link("/usr/lib/wsl/lib/nvidia-smi", kFakeTools / "driver-not-loaded");
  const HostFacts facts = DetectUnder(root.path(), {});
  ASSERT_TRUE(facts.nvidia);
  EXPECT_FALSE(facts.nvidia->devices_exposed);
  EXPECT_EQ(facts.nvidia->devices_exposed_source,
            "nvidia-smi could not communicate with the NVIDIA driver");
  EXPECT_TRUE(AnyWarningContains(facts, "no CUDA build will be chosen"));
}

TEST(Probes, NoChildProcessWhenTheFilesAnswer) {
  // The known-GPU host of the corpus, with a fake nvidia-smi that would answer differently:
  // it must not run.
  TempRoot root;
  root.CopyFrom(kFixtures / "hosts" / "linux-rtx3090-driver550-proprietary");
  root.Link("/usr/bin/nvidia-smi", kFakeTools / "multi-gpu");
  root.Link("/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1", Fake("answer", "libnvidia-ml.so.1"));
  const HostFacts facts = DetectUnder(root.path(), {{"PATH", "/usr/bin"}});
  EXPECT_TRUE(facts.probes.empty());
  ASSERT_TRUE(facts.nvidia);
  EXPECT_EQ(testing::Text(facts.nvidia->driver_version), "550.144.03");
  EXPECT_EQ(testing::Text(facts.nvidia->gpus.at(0).compute_capability), "8.6");
}

TEST(ProcessRunner, RemovesCudaVisibleDevicesAndPassesTheRest) {
  std::unique_ptr<ProcessRunner> runner = MakeSystemProcessRunner();
  const ProcessResult result =
      runner->Run({"/bin/sh", "-c", "echo \"[${CUDA_VISIBLE_DEVICES-unset}] [$KEEP]\""},
                  {{"CUDA_VISIBLE_DEVICES", "0"}, {"KEEP", "kept"}}, 5000ms);
  ASSERT_TRUE(result.Succeeded()) << result.Describe(5000ms);
  EXPECT_EQ(result.output, "[unset] [kept]\n");
}

TEST(ProcessRunner, ReportsExitCodesStderrAndExecFailures) {
  std::unique_ptr<ProcessRunner> runner = MakeSystemProcessRunner();
  ProcessResult result = runner->Run({"/bin/sh", "-c", "echo oops >&2; exit 3"}, {}, 5000ms);
  EXPECT_EQ(result.status, ProcessResult::Status::kExited);
  EXPECT_EQ(result.exit_code, 3);
  EXPECT_EQ(result.errors, "oops\n");
  result = runner->Run({"/nonexistent/tool"}, {}, 5000ms);
  EXPECT_EQ(result.exit_code, 127);
}

// Issue 29, item 15: a provider that prints its answer and exits 0, leaving a child that holds
// its output, had its answer thrown away at the timeout. The answer is taken at exit, and what it
// left in its process group is killed.
TEST(ProcessRunner, TheAnswerIsTakenAtExitAndWhatTheChildLeftHoldingItsOutputIsKilled) {
  std::unique_ptr<ProcessRunner> runner = MakeSystemProcessRunner();
  const ProcessResult result =
      runner->Run({"/bin/sh", "-c", "echo '{\"ok\": 1}'; sleep 60 & echo $! >&2; exit 0"}, {}, 10000ms);
  ASSERT_EQ(result.status, ProcessResult::Status::kExited) << result.Describe(10000ms);
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.output, "{\"ok\": 1}\n");
  const int left_behind = std::atoi(result.errors.c_str());
  ASSERT_GT(left_behind, 0) << result.errors;
  // Killed: gone, or a zombie until init reaps it (a bound, so a failure does not hang).
  auto alive = [&] {
    std::ifstream stat("/proc/" + std::to_string(left_behind) + "/stat");
    std::string pid, name, state;
    return stat >> pid >> name >> state && state != "Z";
  };
  for (int i = 0; i < 500 && alive(); ++i) std::this_thread::sleep_for(10ms);
  EXPECT_FALSE(alive()) << "sleep " << left_behind << " outlived the run";
}

TEST(ProcessRunner, RunInChildReturnsTheAnswerAndSurvivesACrash) {
  std::unique_ptr<ProcessRunner> runner = MakeSystemProcessRunner();
  ProcessResult result = runner->RunInChild([] { return std::string("hello\n"); }, 5000ms);
  ASSERT_TRUE(result.Succeeded());
  EXPECT_EQ(result.output, "hello\n");
  result = runner->RunInChild([]() -> std::string { std::abort(); }, 5000ms);
  EXPECT_EQ(result.status, ProcessResult::Status::kSignaled);
  EXPECT_EQ(result.signal, SIGABRT);
  ::setenv("CUDA_VISIBLE_DEVICES", "0", 1);
  result = runner->RunInChild(
      []() -> std::string {
        const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
        return visible == nullptr ? "unset" : visible;
      },
      5000ms);
  ::unsetenv("CUDA_VISIBLE_DEVICES");
  EXPECT_EQ(result.output, "unset");
}

// SIGTERM while a child runs: the child's whole group is killed at once, the wait ends as
// kInterrupted, and no later child is started (main then ends torchdex by that signal, after the
// command unwound: LockE2eTest.ASigtermDuringTheResolverLeavesNoTemporaryDirectory).
TEST(ProcessRunner, ASignalWhileAChildRunsKillsItAndStartsNoOther) {
  std::unique_ptr<ProcessRunner> runner = MakeSystemProcessRunner();
  std::thread signaller([] {
    std::this_thread::sleep_for(500ms);
    ::kill(::getpid(), SIGTERM);
  });
  const auto start = std::chrono::steady_clock::now();
  ProcessResult result = runner->Run({"/bin/sh", "-c", "sleep 30; echo late"}, {}, 60000ms);
  const auto took = std::chrono::steady_clock::now() - start;
  signaller.join();
  EXPECT_EQ(result.status, ProcessResult::Status::kInterrupted) << result.Describe(60000ms);
  EXPECT_EQ(result.signal, SIGTERM);
  EXPECT_EQ(result.output, "");
  EXPECT_LT(took, 10s);
  EXPECT_EQ(PendingInterrupt(), SIGTERM);
  result = runner->Run({"/bin/sh", "-c", "echo started"}, {}, 5000ms);
  EXPECT_EQ(result.status, ProcessResult::Status::kInterrupted);
  EXPECT_EQ(result.output, "");
  ClearPendingInterruptForTesting();
  EXPECT_TRUE(runner->Run({"/bin/sh", "-c", "true"}, {}, 5000ms).Succeeded());
}

}  // namespace
}  // namespace torchdex::installer::testing
