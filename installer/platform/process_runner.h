// Child processes go through a ProcessRunner: tools (nvidia-smi, rocm_agent_enumerator) by argv,
// never a shell, and in-process probes (dlopen of NVML or libcuda) in a forked child. Both are
// bounded by a timeout: a hang or a crash in the child becomes a result to report, never a hang
// or a crash of torchdex. CUDA_VISIBLE_DEVICES is removed in every child: an empty or invalid
// value makes cuInit fail (conda PR #11667) and would hide GPUs from the probe.
#ifndef TORCHDEX_INSTALLER_PLATFORM_PROCESS_RUNNER_H_
#define TORCHDEX_INSTALLER_PLATFORM_PROCESS_RUNNER_H_

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "installer/platform/environment.h"

namespace torchdex::installer {

struct ProcessResult {
  enum class Status {
    kExited,         // exit_code is set
    kSignaled,       // killed by `signal` (a crash: SIGSEGV, SIGABRT ...)
    kTimedOut,       // still running at the deadline; killed
    kFailedToStart,  // `failure` says why (fork, pipe or exec failed)
    kInterrupted,    // torchdex got SIGINT, SIGTERM or SIGHUP: the child was killed (or not started)
  };
  Status status = Status::kFailedToStart;
  int exit_code = -1;
  int signal = 0;
  std::string output;  // stdout (for RunInChild: what the function returned)
  std::string errors;  // stderr
  std::string failure;

  bool Succeeded() const { return status == Status::kExited && exit_code == 0; }
  // "exited with 3", "crashed (signal 11, Segmentation fault)", "timed out after 0.3 s" ...
  std::string Describe(std::chrono::milliseconds timeout) const;
};

class ProcessRunner {
 public:
  virtual ~ProcessRunner() = default;

  // Runs argv[0] (an absolute path) with argv, in `env` minus CUDA_VISIBLE_DEVICES.
  virtual ProcessResult Run(const std::vector<std::string>& argv, const Environment& env,
                            std::chrono::milliseconds timeout) = 0;

  // Runs `body` in a forked child with CUDA_VISIBLE_DEVICES unset; what it returns comes back
  // as `output` through a pipe. The child exits right after, without running destructors.
  virtual ProcessResult RunInChild(const std::function<std::string()>& body,
                                   std::chrono::milliseconds timeout) = 0;
};

// The runner for this platform (process_runner_posix.cc; process_runner_win32.cc).
std::unique_ptr<ProcessRunner> MakeSystemProcessRunner();

// SIGINT, SIGTERM or SIGHUP that arrived while the system runner waited for a child (0: none).
// The runner catches them only then: the child is killed, the wait ends as kInterrupted and no
// later child is started, so the command unwinds (temporary directories removed) and main ends
// the process with that signal. At any other moment the signal acts as it always does.
int PendingInterrupt();
void ClearPendingInterruptForTesting();

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_PLATFORM_PROCESS_RUNNER_H_
