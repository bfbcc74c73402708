// fork/exec with pipes, poll() against a deadline, and SIGKILL of the child's process group on
// timeout (a shell script's own children would otherwise keep the pipes open). On Linux a child
// also dies with torchdex: each child is in a group of its own, so a signal that ends torchdex
// (Ctrl-C, a CI job's SIGTERM, a parent torchdex's SIGKILL on timeout) would not reach it.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/types.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>

#include "installer/platform/process_runner.h"

namespace torchdex::installer {
namespace {

constexpr size_t kMaxCapture = 1 << 20;  // a tool printing more than 1 MiB is not answering us

volatile std::sig_atomic_t g_interrupt = 0;

extern "C" void OnInterrupt(int signal) { g_interrupt = signal; }

constexpr int kInterruptSignals[] = {SIGINT, SIGTERM, SIGHUP};

// While a child is waited for, the interrupting signals are caught (and restored after).
class InterruptScope {
 public:
  InterruptScope() {
    struct sigaction action {};
    action.sa_handler = OnInterrupt;
    sigemptyset(&action.sa_mask);
    for (std::size_t i = 0; i < std::size(kInterruptSignals); ++i) {
      ::sigaction(kInterruptSignals[i], &action, &saved_[i]);
    }
  }
  ~InterruptScope() {
    for (std::size_t i = 0; i < std::size(kInterruptSignals); ++i) {
      ::sigaction(kInterruptSignals[i], &saved_[i], nullptr);
    }
  }
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;

 private:
  struct sigaction saved_[std::size(kInterruptSignals)];
};

ProcessResult Interrupted() {
  ProcessResult result;
  result.status = ProcessResult::Status::kInterrupted;
  result.signal = g_interrupt;
  result.failure = std::string("interrupted by ") + ::strsignal(g_interrupt);
  return result;
}

void KillGroup(pid_t pid, int* status) {
  ::kill(-pid, SIGKILL);  // the whole group: a script's `sleep` dies with it
  ::kill(pid, SIGKILL);
  while (::waitpid(pid, status, 0) < 0 && errno == EINTR) {
  }
}

int64_t NowMillis() {
  struct timespec now;
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  return int64_t{now.tv_sec} * 1000 + now.tv_nsec / 1000000;
}

// In the child, before exec: SIGKILL when the process that forked it ends (Linux; elsewhere the
// child outlives it, as before). `parent` was read before fork: if it is gone already, the
// death signal would never come.
void DieWithParent(pid_t parent) {
#ifdef __linux__
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);
#else
  (void)parent;
#endif
}

void WriteAll(int fd, const std::string& data) {
  size_t written = 0;
  while (written < data.size()) {
    const ssize_t n = ::write(fd, data.data() + written, data.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    written += static_cast<size_t>(n);
  }
}

// Whether the child has exited (and is reaped into `status`); false while it runs.
bool Reaped(pid_t pid, int* status) {
  pid_t done;
  while ((done = ::waitpid(pid, status, WNOHANG)) < 0 && errno == EINTR) {
  }
  return done == pid;
}

// Reads both pipes until EOF, the child's exit or the deadline. When the child has exited, what
// its pipes hold is read and the answer taken then: a process it left behind holding a pipe (a
// provider's daemon, issue 29, item 15) is killed with the rest of its group, not waited for.
// A child that closed its output and kept running gets only the time that is left.
ProcessResult Collect(pid_t pid, int out_fd, int err_fd, std::chrono::milliseconds timeout) {
  const InterruptScope catching;
  ProcessResult result;
  const int64_t deadline = NowMillis() + timeout.count();
  struct pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
  int open_count = (out_fd >= 0) + (err_fd >= 0);
  if (err_fd < 0) fds[1].fd = -1;
  int status = 0;
  bool reaped = false;
  char buffer[4096];
  while (g_interrupt == 0) {
    if (!reaped) reaped = Reaped(pid, &status);
    const int64_t left = deadline - NowMillis();
    if (open_count == 0 && reaped) break;
    if (left <= 0) break;
    // In slices: a signal taken by another thread interrupts no poll of this one. Once the child
    // has exited, only what is already in the pipes is read (a poll that does not wait).
    const int ready = ::poll(fds, 2, reaped ? 0 : static_cast<int>(std::min<int64_t>(left, open_count ? 100 : 1)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0 || (ready == 0 && reaped)) break;
    for (int i = 0; i < 2 && ready > 0; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_count;
        continue;
      }
      std::string& sink = i == 0 ? result.output : result.errors;
      if (sink.size() < kMaxCapture) sink.append(buffer, static_cast<size_t>(n));
    }
  }
  for (auto& entry : fds) {
    if (entry.fd >= 0) ::close(entry.fd);
  }
  if (reaped) {
    ::kill(-pid, SIGKILL);  // what it left in its group (the group outlives its leader)
  } else {
    KillGroup(pid, &status);
    if (g_interrupt != 0) return Interrupted();
    result.status = ProcessResult::Status::kTimedOut;
    return result;
  }
  if (g_interrupt != 0) return Interrupted();
  if (WIFSIGNALED(status)) {
    result.status = ProcessResult::Status::kSignaled;
    result.signal = WTERMSIG(status);
  } else {
    result.status = ProcessResult::Status::kExited;
    result.exit_code = WEXITSTATUS(status);
  }
  return result;
}

class PosixProcessRunner final : public ProcessRunner {
 public:
  ProcessResult Run(const std::vector<std::string>& argv, const Environment& env,
                    std::chrono::milliseconds timeout) override {
    ProcessResult failed;
    if (argv.empty()) {
      failed.failure = "empty argv";
      return failed;
    }
    if (g_interrupt != 0) return Interrupted();  // interrupted: nothing more is started
    // Everything the child needs is built before fork: after fork only async-signal-safe calls.
    std::vector<std::string> env_strings;
    for (const auto& [name, value] : env) {
      if (name == "CUDA_VISIBLE_DEVICES") continue;
      env_strings.push_back(name + "=" + value);
    }
    std::vector<char*> envp;
    for (auto& entry : env_strings) envp.push_back(entry.data());
    envp.push_back(nullptr);
    std::vector<std::string> argv_copy = argv;
    std::vector<char*> args;
    for (auto& entry : argv_copy) args.push_back(entry.data());
    args.push_back(nullptr);

    int out_pipe[2], err_pipe[2];
    if (::pipe2(out_pipe, O_CLOEXEC) != 0) {
      failed.failure = std::strerror(errno);
      return failed;
    }
    if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
      failed.failure = std::strerror(errno);
      ::close(out_pipe[0]);
      ::close(out_pipe[1]);
      return failed;
    }
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) {
      failed.failure = std::strerror(errno);
      for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) ::close(fd);
      return failed;
    }
    if (pid == 0) {
      ::setpgid(0, 0);
      DieWithParent(parent);
      const int devnull = ::open("/dev/null", O_RDONLY);
      if (devnull >= 0) ::dup2(devnull, 0);
      ::dup2(out_pipe[1], 1);
      ::dup2(err_pipe[1], 2);
      ::execve(args[0], args.data(), envp.data());
      static const char kMessage[] = "exec failed\n";
      (void)!::write(2, kMessage, sizeof kMessage - 1);
      ::_exit(127);
    }
    ::setpgid(pid, pid);  // also from the parent: no race with kill(-pid) on a fast timeout
    ::close(out_pipe[1]);
    ::close(err_pipe[1]);
    return Collect(pid, out_pipe[0], err_pipe[0], timeout);
  }

  ProcessResult RunInChild(const std::function<std::string()>& body,
                           std::chrono::milliseconds timeout) override {
    if (g_interrupt != 0) return Interrupted();
    ProcessResult failed;
    int out_pipe[2];
    if (::pipe2(out_pipe, O_CLOEXEC) != 0) {
      failed.failure = std::strerror(errno);
      return failed;
    }
    std::fflush(nullptr);  // no buffered output is written twice
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) {
      failed.failure = std::strerror(errno);
      ::close(out_pipe[0]);
      ::close(out_pipe[1]);
      return failed;
    }
    if (pid == 0) {
      ::setpgid(0, 0);
      DieWithParent(parent);
      ::close(out_pipe[0]);
      // A crash in the library must show as the signal it is, even when a handler (a sanitizer
      // runtime, a crash reporter) is installed in torchdex.
      for (int crash : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) ::signal(crash, SIG_DFL);
      for (int interrupt : kInterruptSignals) ::signal(interrupt, SIG_DFL);
      // libcuda and NVML read the real environment, not our Environment map.
      ::unsetenv("CUDA_VISIBLE_DEVICES");
      // A library that prints to stdout/stderr must not mix into torchdex's own output.
      const int devnull = ::open("/dev/null", O_WRONLY);
      if (devnull >= 0) {
        ::dup2(devnull, 1);
        ::dup2(devnull, 2);
      }
      WriteAll(out_pipe[1], body());
      ::_exit(0);
    }
    ::setpgid(pid, pid);
    ::close(out_pipe[1]);
    return Collect(pid, out_pipe[0], -1, timeout);
  }
};

}  // namespace

std::string ProcessResult::Describe(std::chrono::milliseconds timeout) const {
  char buffer[160];
  switch (status) {
    case Status::kExited:
      std::snprintf(buffer, sizeof buffer, "exited with %d", exit_code);
      return buffer;
    case Status::kSignaled:
      std::snprintf(buffer, sizeof buffer, "crashed (signal %d, %s)", signal, ::strsignal(signal));
      return buffer;
    case Status::kTimedOut:
      std::snprintf(buffer, sizeof buffer, "timed out after %g s and was killed",
                    static_cast<double>(timeout.count()) / 1000.0);
      return buffer;
    case Status::kFailedToStart:
      return "could not be started: " + failure;
    case Status::kInterrupted:
      return failure;
  }
  return "unknown";
}

int PendingInterrupt() { return g_interrupt; }
void ClearPendingInterruptForTesting() { g_interrupt = 0; }

std::unique_ptr<ProcessRunner> MakeSystemProcessRunner() {
  return std::make_unique<PosixProcessRunner>();
}

}  // namespace torchdex::installer
