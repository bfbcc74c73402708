// Every file detection reads goes through a FileReader given a root: "/sys/module/nvidia/version"
// is read as ROOT/sys/module/nvidia/version. With the root "/" that is the machine itself; with a
// captured host folder (tests/fixtures/hosts/<name>/, or `torchdex detect --root DIR`) it is that
// host, through exactly the same code.
#ifndef TORCHDEX_INSTALLER_PLATFORM_FILE_READER_H_
#define TORCHDEX_INSTALLER_PLATFORM_FILE_READER_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace torchdex::installer {

struct ReadResult {
  enum class Status {
    kOk,        // contents holds the whole file
    kMissing,   // no such file (or a parent is missing)
    kTooLarge,  // longer than the limit; contents holds the first `limit` bytes
    kError,     // exists but cannot be read (EPERM on a masked KFD node, EIO ...)
  };
  Status status = Status::kMissing;
  std::string contents;
  std::string error;  // strerror text for kError
};

class FileReader {
 public:
  // `root` is a directory; "" or "/" means the real root.
  explicit FileReader(std::string root);

  // Host paths are absolute ("/proc/driver/nvidia/version"). Reads stop at `limit` bytes: sysfs
  // and procfs files are tiny, and a huge or endless file must not stall detection.
  ReadResult Read(std::string_view host_path, size_t limit = 64 * 1024) const;
  bool Exists(std::string_view host_path) const;
  bool IsDirectory(std::string_view host_path) const;
  // A regular file (after symbolic links), not a FIFO, device or folder.
  bool IsRegularFile(std::string_view host_path) const;
  // Entry names (no "." or ".."), sorted; empty when absent or unreadable.
  std::vector<std::string> ListDirectory(std::string_view host_path) const;
  // The target of a symbolic link, as stored; nullopt when not a link.
  std::optional<std::string> ReadLink(std::string_view host_path) const;
  // Whether this process may open the file for reading and writing (/dev/kfd).
  bool CanReadWrite(std::string_view host_path) const;
  // Whether the file is a regular file this process may execute.
  bool IsExecutable(std::string_view host_path) const;

  // The path on this machine: root + host_path. For exec and dlopen.
  std::string LocalPath(std::string_view host_path) const;
  bool IsRealRoot() const { return root_.empty(); }
  const std::string& root() const { return root_; }  // "" for the real root

 private:
  std::string root_;  // without a trailing slash; "" for "/"
};

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_PLATFORM_FILE_READER_H_
