#include "installer/platform/file_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace torchdex::installer {

core::Status WriteFileReplacing(const std::string& path, std::string_view text, FileAccess access) {
  std::string temporary = path + ".torchdex-XXXXXX";
  const int fd = ::mkstemp(temporary.data());  // O_CREAT | O_EXCL, mode 0600
  if (fd < 0) {
    return core::MakeError("cannot write " + path + ": " + std::strerror(errno));
  }
  const auto fail = [&](int error) -> core::Status {
    ::close(fd);
    ::unlink(temporary.c_str());
    return core::MakeError("cannot write " + path + ": " + std::strerror(error));
  };
  if (access == FileAccess::kShared) {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    if (::fchmod(fd, 0666 & ~mask) != 0) return fail(errno);
  }
  for (std::size_t put = 0; put < text.size();) {
    const ssize_t n = ::write(fd, text.data() + put, text.size() - put);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return fail(n < 0 ? errno : EIO);
    put += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0) {
    const int error = errno;
    ::unlink(temporary.c_str());
    return core::MakeError("cannot write " + path + ": " + std::strerror(error));
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(temporary.c_str());
    return core::MakeError("cannot write " + path + ": " + std::strerror(error));
  }
  return {};
}

}  // namespace torchdex::installer
