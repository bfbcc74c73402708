// Detection of the accelerator: `Detect` reads the host through its seams (a FileReader with a
// root, a ProcessRunner with a timeout, the environment as a map, an injectable clock) and
// returns HostFacts. Cheap file reads come first; a child process runs only when the files
// cannot answer. See docs/detection.md for the order of the sources.
#ifndef TORCHDEX_INSTALLER_DETECT_DETECT_H_
#define TORCHDEX_INSTALLER_DETECT_DETECT_H_

#include <chrono>

#include "core/expected.h"
#include "installer/platform/clock.h"
#include "installer/platform/environment.h"
#include "installer/platform/file_reader.h"
#include "installer/detect/host_facts.h"
#include "installer/platform/process_runner.h"

namespace torchdex::installer {

struct DetectOptions {
  std::chrono::milliseconds probe_timeout{5000};  // per child process
};

struct DetectDeps {
  const FileReader& files;
  const Environment& env;
  ProcessRunner& runner;
  const Clock& clock;
};

// Fails only on a malformed override variable (the error names it). Everything else that goes
// wrong (unreadable or garbage files, probes that hang or crash) is a warning in the facts.
core::Expected<HostFacts> Detect(const DetectOptions& options, const DetectDeps& deps);

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_DETECT_DETECT_H_
