// PEP 751 lock files (https://peps.python.org/pep-0751/) as torchdex writes and reads them:
// one `pylock.<backend>.toml` per backend, each package with its version and its wheels (URL
// and sha256), and `[tool.torchdex]` saying which backend the lock is for, the catalogue's date
// and what torchdex decided. The reader is strict about what it needs (every wheel has a URL
// and a sha256, names are PEP 503-normalised, versions and markers parse) and says where a
// problem is: "pylock.cu124.toml:12:1: packages[3] (torch): ...". Pure; no I/O.
#ifndef TORCHDEX_INSTALLER_LOCK_PYLOCK_H_
#define TORCHDEX_INSTALLER_LOCK_PYLOCK_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.h"
#include "core/requirement.h"

namespace torchdex::installer {

struct LockedWheel {
  std::string name;    // the file name ("torch-2.5.1+cu124-cp312-cp312-linux_x86_64.whl")
  std::string url;     // where it is downloaded from
  std::string sha256;  // lower-case hex
  std::optional<long long> size;
  std::string upload_time;  // as written (RFC 3339), "" when absent
  int line = 0;             // where it is written in the file
};

/// PEP 825's `[packages.variants-json]` (python/peps, peps/pep-0825.rst, "Integration with
/// pylock.toml"): the `{name}-{version}-variants.json` the package's variant wheel was chosen
/// by, locked to its hash: `url` (as archive.url) and `hashes` (as archive.hashes). PEP 825
/// gives the wheel's label no field of its own: the wheel's file name carries it.
struct LockedVariantsJson {
  std::string url;
  std::string sha256;  // lower-case hex
  int line = 0;
};

struct LockedPackage {
  std::string name;     // normalised (PEP 503)
  std::string version;  // normal form, "2.5.1+cu124"
  std::string marker;   // "" when none
  std::string requires_python;
  std::string index;  // the index the package came from ("" when not said)
  std::vector<LockedWheel> wheels;
  bool routed = false;  // [packages.tool.torchdex] routed = true: from the backend's index
  std::optional<LockedVariantsJson> variants_json;  // variant wheels only (PEP 825)
  int line = 0;
};

/// `[tool.torchdex]`: what the lock is for.
struct TorchdexLockInfo {
  std::string backend;   // "cu124"
  std::string channel;   // "stable"
  std::string index_url; // the backend's index
  std::string catalogue; // the catalogue's description ("embedded table (... as of 2026-03-15)")
  std::string catalogue_date;  // "2026-03-15"; "" when not known
  std::string target;          // what the lock was resolved for ("CPython 3.11.2 on linux x86_64")
  std::vector<std::string> decision;  // the decision in sentences
  std::vector<std::string> requirements;  // what was asked, as written
  int line = 0;
};

struct PyLock {
  std::string lock_version = "1.0";
  std::string created_by = "torchdex";
  std::string requires_python;           // "" when none
  std::vector<std::string> environments;  // markers; empty when none
  std::vector<LockedPackage> packages;    // sorted by name
  TorchdexLockInfo torchdex;
};

/// The file name PEP 751 allows for a backend: `pylock.<name>.toml` where the name has no dot,
/// so a dot of the backend becomes '-' ("rocm6.3" -> "pylock.rocm6-3.toml").
std::string LockFileName(std::string_view backend);
/// Whether `file_name` is a PEP 751 lock file name (`pylock.toml` or `pylock.<name>.toml`).
bool IsLockFileName(std::string_view file_name);

/// The lock as TOML (toml.h), byte-stable: same lock, same text.
std::string WritePyLock(const PyLock& lock);

/// Parses and checks a lock file; `file` prefixes every error, with the line and column.
/// Errors (kBadInputFile): not TOML, a lock-version other than 1.x, a package without a name or
/// version, a name that is not normalised, a wheel without a URL or sha256, a marker or
/// requires-python that does not parse, a [packages.variants-json] without a url or a sha256
/// (or by path), a source other than wheels (sdists, VCS, directories:
/// torchdex installs wheels only; an sdist beside wheels is left out), no [tool.torchdex]
/// backend (unless `torchdex_table` is false: a lock another tool wrote, such as uv's).
core::Expected<PyLock> ParsePyLock(std::string_view text, std::string_view file, bool torchdex_table = true);

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_LOCK_PYLOCK_H_
