// Windows ProcessRunner: NOT BUILT YET (installer/CMakeLists.txt leaves it out of non-Windows
// builds), a stub that says what it will do.
//
// Run(): CreateProcessW with a quoted command line built from argv (no shell), an environment
// block without CUDA_VISIBLE_DEVICES, stdout/stderr through anonymous pipes read by overlapped
// I/O, the child in a Job object so that TerminateJobObject on timeout also kills its children,
// and WaitForSingleObject(process, timeout).
//
// RunInChild(): Windows has no fork. The library probes will instead run `torchdex.exe
// --internal-probe nvml` (the same binary, a hidden subcommand that calls ProbeNvml and prints
// its answer) through Run(), which gives the same isolation and the same timeout.
#include "installer/platform/process_runner.h"

namespace torchdex::installer {
namespace {

class Win32ProcessRunner final : public ProcessRunner {
 public:
  ProcessResult Run(const std::vector<std::string>&, const Environment&,
                    std::chrono::milliseconds) override {
    ProcessResult result;
    result.failure = "child processes are not implemented on Windows yet";
    return result;
  }
  ProcessResult RunInChild(const std::function<std::string()>&,
                           std::chrono::milliseconds) override {
    ProcessResult result;
    result.failure = "child processes are not implemented on Windows yet";
    return result;
  }
};

}  // namespace

std::unique_ptr<ProcessRunner> MakeSystemProcessRunner() {
  return std::make_unique<Win32ProcessRunner>();
}

std::string ProcessResult::Describe(std::chrono::milliseconds) const {
  return status == Status::kFailedToStart ? "could not be started: " + failure : "finished";
}

int PendingInterrupt() { return 0; }  // Windows: the console's Ctrl-C acts as it always does
void ClearPendingInterruptForTesting() {}

}  // namespace torchdex::installer
