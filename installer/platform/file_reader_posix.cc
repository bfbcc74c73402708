#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "installer/platform/file_reader.h"

namespace torchdex::installer {

FileReader::FileReader(std::string root) : root_(std::move(root)) {
  while (!root_.empty() && root_.back() == '/') root_.pop_back();
}

std::string FileReader::LocalPath(std::string_view host_path) const {
  std::string path = root_;
  path += host_path;
  return path;
}

ReadResult FileReader::Read(std::string_view host_path, size_t limit) const {
  ReadResult result;
  const std::string path = LocalPath(host_path);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return result;
    result.status = ReadResult::Status::kError;
    result.error = std::strerror(errno);
    return result;
  }
  // sysfs files report a size of 4096 whatever they hold: read until EOF, not by st_size.
  char buffer[4096];
  result.status = ReadResult::Status::kOk;
  while (true) {
    const size_t want = std::min(sizeof buffer, limit + 1 - result.contents.size());
    const ssize_t n = ::read(fd, buffer, want);
    if (n < 0) {
      if (errno == EINTR) continue;
      result.status = ReadResult::Status::kError;
      result.error = std::strerror(errno);
      break;
    }
    if (n == 0) break;
    result.contents.append(buffer, static_cast<size_t>(n));
    if (result.contents.size() > limit) {
      result.contents.resize(limit);
      result.status = ReadResult::Status::kTooLarge;
      break;
    }
  }
  ::close(fd);
  return result;
}

bool FileReader::Exists(std::string_view host_path) const {
  struct stat info;
  return ::stat(LocalPath(host_path).c_str(), &info) == 0;
}

bool FileReader::IsRegularFile(std::string_view host_path) const {
  struct stat info;
  return ::stat(LocalPath(host_path).c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

bool FileReader::IsDirectory(std::string_view host_path) const {
  struct stat info;
  return ::stat(LocalPath(host_path).c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

std::vector<std::string> FileReader::ListDirectory(std::string_view host_path) const {
  std::vector<std::string> names;
  DIR* dir = ::opendir(LocalPath(host_path).c_str());
  if (dir == nullptr) return names;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string_view name = entry->d_name;
    if (name == "." || name == "..") continue;
    names.emplace_back(name);
  }
  ::closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

std::optional<std::string> FileReader::ReadLink(std::string_view host_path) const {
  char buffer[4096];
  const ssize_t n = ::readlink(LocalPath(host_path).c_str(), buffer, sizeof buffer);
  if (n <= 0) return std::nullopt;
  return std::string(buffer, static_cast<size_t>(n));
}

bool FileReader::CanReadWrite(std::string_view host_path) const {
  return ::access(LocalPath(host_path).c_str(), R_OK | W_OK) == 0;
}

bool FileReader::IsExecutable(std::string_view host_path) const {
  const std::string path = LocalPath(host_path);
  struct stat info;
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
         ::access(path.c_str(), X_OK) == 0;
}

}  // namespace torchdex::installer
