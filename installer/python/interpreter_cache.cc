#include "installer/python/interpreter_cache.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/sha256.h"
#include "catalogue/catalogue.h"

namespace torchdex::installer {
namespace {

namespace fs = std::filesystem;

// The first line of an entry; a file that does not start with it is not an entry.
constexpr std::string_view kHeader = "torchdex interpreter cache 1\n";
// An entry is a few hundred bytes; anything much larger is not one.
constexpr std::size_t kEntryLimit = 64 * 1024;

void AddField(std::string& key, std::string_view name, std::string_view value) {
  key.append(name);
  key += '=';
  key += std::to_string(value.size());  // length-prefixed: no value can pose as another field
  key += ':';
  key.append(value);
  key += '\n';
}

// A native executable starts with ELF's or Mach-O's magic; a shim is a script ("#!").
bool IsNativeExecutable(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char magic[4] = {};
  if (!in.read(reinterpret_cast<char*>(magic), 4)) return false;
  const uint32_t big = (uint32_t{magic[0]} << 24) | (uint32_t{magic[1]} << 16) | (uint32_t{magic[2]} << 8) | magic[3];
  const uint32_t little = (uint32_t{magic[3]} << 24) | (uint32_t{magic[2]} << 16) | (uint32_t{magic[1]} << 8) | magic[0];
  if (big == 0x7f454c46) return true;  // "\x7fELF"
  for (uint32_t mach : {0xfeedfaceu, 0xfeedfacfu, 0xcafebabeu}) {
    if (big == mach || little == mach) return true;
  }
  return false;
}

// The bytes of a small file, or "absent" when there is none to read.
std::string SmallFileDigest(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "absent";
  std::ostringstream text;
  text << in.rdbuf();
  return core::Sha256Hex(text.str());
}

std::string EntryPath(const std::string& directory, const std::string& absolute) {
  return directory + "/" + core::Sha256Hex(absolute).substr(0, 32) + ".entry";
}

// The entry's reply when its key is `key`; "" otherwise (missing, foreign, corrupt, too large,
// or not the user's own file).
std::string ReadEntry(const std::string& file, const std::string& key) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return "";
  struct stat st {};
  std::string text;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ::geteuid() &&
      static_cast<std::size_t>(st.st_size) <= kEntryLimit) {
    text.resize(static_cast<std::size_t>(st.st_size));
    std::size_t got = 0;
    while (got < text.size()) {
      const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
      if (n <= 0) break;
      got += static_cast<std::size_t>(n);
    }
    text.resize(got);
  }
  ::close(fd);
  return InterpreterCacheEntryReply(text, key);
}

// Written to a temporary file of the directory and renamed over the entry: a reader sees the
// old entry or the new one, whole. False when anything fails (the cache is then left as it was).
bool WriteEntry(const std::string& directory, const std::string& file, const std::string& key,
                const std::string& reply) {
  std::error_code error;
  fs::create_directories(directory, error);
  if (error) return false;
  std::string text(kHeader);
  text += core::Sha256Hex(key);
  text += '\n';
  text += reply;
  return catalogue::WriteFileAtomically(file, text, nullptr, catalogue::FileAccess::kPrivate).ok();
}

}  // namespace

std::string InterpreterCacheEntryReply(std::string_view entry, const std::string& key) {
  if (entry.size() > kEntryLimit || !entry.starts_with(kHeader)) return "";
  const std::size_t key_end = entry.find('\n', kHeader.size());
  if (key_end == std::string_view::npos) return "";
  if (entry.substr(kHeader.size(), key_end - kHeader.size()) != core::Sha256Hex(key)) return "";
  return std::string(entry.substr(key_end + 1));
}

std::string InterpreterCacheDirectory(const Environment& env) {
  if (auto off = Lookup(env, "TORCHDEX_NO_CACHE"); off && !off->empty() && *off != "0") return "";
  std::string base;
  if (auto dir = Lookup(env, "TORCHDEX_CACHE_DIR"); dir && !dir->empty()) {
    base = *dir;
  } else if (auto xdg = Lookup(env, "XDG_CACHE_HOME"); xdg && !xdg->empty() && xdg->front() == '/') {
    base = *xdg + "/torchdex";
  } else if (auto home = Lookup(env, "HOME"); home && !home->empty() && home->front() == '/') {
    base = *home + "/.cache/torchdex";
  } else {
    return "";
  }
  return base + "/interpreter-v1";
}

std::string InterpreterCacheKey(const std::string& path, const Environment& env) {
  std::error_code error;
  const fs::path absolute = fs::absolute(path, error);
  if (error) return "";
  const fs::path real = fs::canonical(absolute, error);
  if (error) return "";
  struct stat st {};
  if (::stat(real.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return "";
  if (!IsNativeExecutable(real.string())) return "";
  const auto modified = fs::last_write_time(real, error);
  if (error) return "";

  std::string key;
  AddField(key, "script", core::Sha256Hex(InterpreterQueryScript()));
  AddField(key, "path", absolute.string());
  AddField(key, "real", real.string());
  AddField(key, "file", std::to_string(st.st_dev) + " " + std::to_string(st.st_ino) + " " +
                            std::to_string(st.st_size) + " " + std::to_string(st.st_mode) + " " +
                            std::to_string(modified.time_since_epoch().count()) + " " +
                            std::to_string(static_cast<long long>(st.st_ctime)));
  // A venv's pyvenv.cfg sits beside its bin/ (or beside the executable, as Python looks for it).
  AddField(key, "pyvenv", SmallFileDigest(absolute.parent_path() / "pyvenv.cfg"));
  AddField(key, "pyvenv-up", SmallFileDigest(absolute.parent_path().parent_path() / "pyvenv.cfg"));
  struct utsname host {};
  if (::uname(&host) != 0) return "";
  AddField(key, "uname", std::string(host.sysname) + " " + host.release + " " + host.version + " " + host.machine);
#ifdef _CS_GNU_LIBC_VERSION
  char libc[64] = {};
  if (::confstr(_CS_GNU_LIBC_VERSION, libc, sizeof libc) > 0) AddField(key, "libc", libc);
#endif
  for (const char* variable : {"LD_LIBRARY_PATH", "LD_PRELOAD", "DYLD_LIBRARY_PATH"}) {
    AddField(key, variable, Lookup(env, variable).value_or("-"));
  }
  return key;
}

core::Expected<Interpreter> QueryInterpreterCached(const std::string& path, ProcessRunner& runner,
                                                   const Environment& env,
                                                   std::chrono::milliseconds timeout, CacheUse* use) {
  CacheUse ignored;
  CacheUse& said = use != nullptr ? *use : ignored;
  said = CacheUse::kNotCached;
  const std::string directory = InterpreterCacheDirectory(env);
  const std::string key = directory.empty() ? std::string() : InterpreterCacheKey(path, env);
  if (key.empty()) return QueryInterpreter(path, runner, env, timeout);

  std::error_code error;
  const std::string file = EntryPath(directory, fs::absolute(path, error).string());
  if (const std::string reply = ReadEntry(file, key); !reply.empty()) {
    core::Expected<Interpreter> cached = ParseInterpreterReply(reply, path);
    if (cached) {
      said = CacheUse::kHit;
      return cached;
    }
  }
  core::Expected<std::string> reply = AskInterpreter(path, runner, env, timeout);
  if (!reply) return reply.error();
  core::Expected<Interpreter> parsed = ParseInterpreterReply(*reply, path);
  if (!parsed) return parsed;
  // The key again: an interpreter replaced while it answered is not cached under the old key.
  const bool same = InterpreterCacheKey(path, env) == key;
  said = same && WriteEntry(directory, file, key, *reply) ? CacheUse::kMissWritten : CacheUse::kMissNotWritten;
  return parsed;
}

}  // namespace torchdex::installer
