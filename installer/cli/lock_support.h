// Shared by `lock`, `sync` and `sync --uv-project` (lock_command.cc, sync_command.cc,
// sync_uv_project.cc): files read and written whole, a temporary directory, the lock files
// as read, and the catalogue restricted to the backends that have a lock.
#ifndef TORCHDEX_INSTALLER_CLI_LOCK_SUPPORT_H_
#define TORCHDEX_INSTALLER_CLI_LOCK_SUPPORT_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "catalogue/catalogue.h"
#include "core/text.h"
#include "installer/cli/commands.h"
#include "installer/lock/pylock.h"
#include "installer/select/catalogue_source.h"
#include "installer/select/decide.h"
#include "installer/select/selection.h"

namespace torchdex::installer::lockcli {

using core::Join;

// The file whole, or an error naming it (missing, unreadable, larger than limit bytes).
core::Expected<std::string> ReadFileText(const std::string& path, std::uintmax_t limit);

// A temporary directory, removed with its contents when the object goes.
class TemporaryDirectory {
 public:
  TemporaryDirectory();
  ~TemporaryDirectory();
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

struct LockFile {
  std::string path;
  PyLock lock;
};

// The catalogue as the locks present offer it: only their backends, each offering exactly the
// versions and wheels its lock holds (a backend mapped to no lock: what the catalogue says);
// what a build contains (arch lists, driver floors) as the catalogue says. Selection runs over
// it unchanged, so sync decides as select does.
//
// Selection asks every backend for every routed name asked; with several locks those are the
// names any lock asked. Each lock is judged on its own: a routed name its [tool.torchdex]
// requirements do not name and its packages do not hold is no concern of that lock (offered in
// any version, with a wheel for every target), so a cpu lock of `torch` is not turned down
// because the cu124 lock also asked for torchvision.
class LockedView final : public CatalogueView {
 public:
  LockedView(std::shared_ptr<const CatalogueSource> keep, const CatalogueView& base,
             std::map<std::string, const PyLock*> locks);

  std::vector<BackendView> Backends(const std::string& channel) const override;
  std::vector<std::string> Versions(const std::string& project, const std::string& backend) const override;
  bool HasWheelFor(const std::string& project, const std::string& backend, const std::string& version,
                   const std::vector<core::Tag>& supported) const override;
  std::optional<ArchView> Arch(const std::string& backend, const std::string& torch_version,
                               const std::string& cpu_arch) const override {
    return base_.Arch(backend, torch_version, cpu_arch);
  }
  std::optional<core::DriverVersion> DriverFloor(const std::string& backend, core::TargetOs os) const override {
    return base_.DriverFloor(backend, os);
  }
  std::optional<core::DriverVersion> ReleaseDriver(const std::string& backend, core::TargetOs os) const override {
    return base_.ReleaseDriver(backend, os);
  }
  CudaLimits Limits(const std::string& backend) const override { return base_.Limits(backend); }
  std::string AsOf() const override { return base_.AsOf(); }

 private:
  // A backend without a lock of its own (a uv project's index): the catalogue answers.
  bool Unlocked(const std::string& backend) const;
  const LockedPackage* Find(const std::string& project, const std::string& backend) const;
  // Neither asked by the backend's lock nor held by it.
  bool NoConcernOf(const std::string& project, const std::string& backend) const;

  std::shared_ptr<const CatalogueSource> keep_;
  const CatalogueView& base_;
  std::map<std::string, const PyLock*> locks_;
  std::map<std::string, std::set<std::string>> asked_;  // backend -> the names its lock asked
};

// Where a routed package's file may come from (issue 29, item 11 and the attack's F3, F4, F7):
// the family's base URL, the override files' mirror and backend URLs, and the family's own hosts
// (https://download-r2.pytorch.org/ for nightly wheels), each without credentials, ending in '/'.
std::vector<std::string> RoutedFileRoots(const UserCatalogue& catalogue);

// A routed package's file must be a wheel under one of `roots` and, when its version carries a
// backend's local label (+cu124, +cpu, +rocm6.3, +xpu), the label of `backend`; else an error
// "WHERE: the routed package torch 9.9.9 comes from URL, not from backend cu124's index".
core::Status RoutedFileOfBackend(const std::string& where, const std::string& name, const std::string& version,
                                 const std::string& url, const std::string& backend,
                                 const std::vector<std::string>& roots);

// "torchdex sync: <message>" on err; the exit status of the error's code.
int Refuse(std::ostream& err, const core::Error& error);

// sync --uv-project (sync_uv_project.cc).
int SyncUvProject(const SyncCliOptions& o, Deps& deps, std::ostream& out, std::ostream& err);

}  // namespace torchdex::installer::lockcli

#endif  // TORCHDEX_INSTALLER_CLI_LOCK_SUPPORT_H_
