#include "installer/python/interpreter.h"

#include <charconv>

#include <unistd.h>

#include <nlohmann/json.hpp>
#include <filesystem>
#include <sstream>

namespace torchdex::installer {
namespace {

// Asks only the standard library, and prints one JSON object. sysconfig answers the ABI flags
// (Py_DEBUG, Py_GIL_DISABLED); platform.libc_ver the glibc version; platform.mac_ver macOS.
constexpr std::string_view kScript = R"py(
import json, os, platform, sys, sysconfig
impl = sys.implementation.name
libc, libc_version = platform.libc_ver()
musl = ""
if not libc and sys.platform.startswith("linux"):
    try:
        import subprocess
        out = subprocess.run(["ldd", "--version"], capture_output=True, text=True).stderr
        if "musl" in out:
            musl = out.split("Version", 1)[1].split()[0]
    except Exception:
        pass
print(json.dumps({
    "implementation": impl,
    "version": list(sys.version_info[:3]),
    "debug": bool(sysconfig.get_config_var("Py_DEBUG")),
    "free_threaded": bool(sysconfig.get_config_var("Py_GIL_DISABLED")),
    "soabi": sysconfig.get_config_var("SOABI") or "",
    "sys_platform": sys.platform,
    "machine": platform.machine(),
    "glibc": libc_version if libc == "glibc" else "",
    "musl": musl,
    "mac_ver": platform.mac_ver()[0],
    "os_name": os.name,
    "platform_system": platform.system(),
    "platform_release": platform.release(),
    "platform_version": platform.version(),
    "python_implementation": platform.python_implementation(),
    "executable": sys.executable,
}))
)py";

std::string NormalizeArch(std::string machine) {
  if (machine == "AMD64" || machine == "amd64") return "x86_64";
  if (machine == "arm64" || machine == "ARM64") return "aarch64";
  return machine;
}

std::pair<int, int> MajorMinor(const std::string& text) {
  int major = 0, minor = 0;
  char dot = 0;
  std::istringstream in(text);
  in >> major >> dot >> minor;
  return {major, minor};
}

}  // namespace

std::string_view InterpreterQueryScript() { return kScript; }

core::Expected<Interpreter> ParseInterpreterReply(std::string_view reply, const std::string& path) {
  auto fail = [&](const std::string& what) {
    return core::MakeError("python interpreter " + path + ": " + what);
  };
  nlohmann::json doc = nlohmann::json::parse(reply, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return fail("its answer is not the JSON object torchdex asked for");
  try {
    Interpreter out;
    // What runs is what the user named, never the sys.executable the answer reports: a lying
    // interpreter does not choose what torchdex runs (issue 29, item 13).
    out.path = path;
    const std::string impl = doc.at("implementation").get<std::string>();
    const auto long_version = doc.at("version").get<std::vector<long long>>();
    if (long_version.size() != 3) return fail("unexpected version");
    for (const long long part : long_version) {
      if (part < 0 || part > 9999) return fail("version part " + std::to_string(part) + " is out of range (0-9999)");
    }
    const std::vector<int> version(long_version.begin(), long_version.end());
    core::InterpreterInfo& info = out.info;
    info.implementation = impl == "cpython" ? "cp" : impl == "pypy" ? "pp" : impl;
    info.python_major = version[0];
    info.python_minor = version[1];
    info.debug = doc.value("debug", false);
    info.free_threaded = doc.value("free_threaded", false);
    const std::string soabi = doc.value("soabi", "");
    if (info.implementation == "pp") {
      // SOABI "pypy310-pp73-x86_64-linux-gnu" -> ABI tag "pypy310_pp73".
      std::string abi = soabi.substr(0, soabi.find('-', soabi.find('-') + 1));
      for (char& c : abi) {
        if (c == '-') c = '_';
      }
      info.pypy_abi = abi;
    }
    const std::string sys_platform = doc.at("sys_platform").get<std::string>();
    info.arch = NormalizeArch(doc.at("machine").get<std::string>());
    if (sys_platform.starts_with("linux")) {
      info.os = core::OperatingSystem::kLinux;
      const std::string glibc = doc.value("glibc", "");
      const std::string musl = doc.value("musl", "");
      if (!glibc.empty()) {
        info.libc = core::Libc::kGlibc;
        std::tie(info.libc_major, info.libc_minor) = MajorMinor(glibc);
      } else if (!musl.empty()) {
        info.libc = core::Libc::kMusl;
        std::tie(info.libc_major, info.libc_minor) = MajorMinor(musl);
      } else {
        return fail("neither glibc nor musl was found: cannot tell which Linux wheels it runs");
      }
    } else if (sys_platform == "darwin") {
      info.os = core::OperatingSystem::kMacOS;
      std::tie(info.macos_major, info.macos_minor) = MajorMinor(doc.value("mac_ver", "11.0"));
      if (info.arch == "aarch64") info.arch = "arm64";
    } else if (sys_platform == "win32") {
      info.os = core::OperatingSystem::kWindows;
    } else {
      return fail("platform '" + sys_platform + "' is not one PyTorch publishes wheels for");
    }
    out.full_version = std::to_string(version[0]) + "." + std::to_string(version[1]) + "." +
                       std::to_string(version[2]);
    auto& m = out.markers.values;
    m["python_version"] = std::to_string(version[0]) + "." + std::to_string(version[1]);
    m["python_full_version"] = out.full_version;
    m["os_name"] = doc.value("os_name", "");
    m["sys_platform"] = sys_platform;
    m["platform_machine"] = doc.at("machine").get<std::string>();
    m["platform_system"] = doc.value("platform_system", "");
    m["platform_release"] = doc.value("platform_release", "");
    m["platform_version"] = doc.value("platform_version", "");
    m["platform_python_implementation"] = doc.value("python_implementation", "");
    m["implementation_name"] = impl;
    m["implementation_version"] = out.full_version;
    const std::string name = impl == "cpython" ? "CPython" : impl == "pypy" ? "PyPy" : impl;
    out.description = name + " " + out.full_version + (info.free_threaded ? " (free-threaded)" : "") +
                      " at " + out.path;
    if (core::Status bounded = core::CheckInterpreterBounds(info); !bounded) return fail(bounded.error().message);
    return out;
  } catch (const nlohmann::json::exception& e) {
    return fail(std::string("its answer lacks a field: ") + e.what());
  }
}

core::Expected<Interpreter> QueryInterpreter(const std::string& path, ProcessRunner& runner,
                                             const Environment& env,
                                             std::chrono::milliseconds timeout) {
  core::Expected<std::string> reply = AskInterpreter(path, runner, env, timeout);
  if (!reply) return reply.error();
  return ParseInterpreterReply(*reply, path);
}

core::Expected<std::string> AskInterpreter(const std::string& path, ProcessRunner& runner,
                                           const Environment& env, std::chrono::milliseconds timeout) {
  Environment child_env = env;
  child_env.erase("PYTHONPATH");  // the answer is about the interpreter, not the caller's paths
  const ProcessResult r = runner.Run({path, "-I", "-c", std::string(kScript)}, child_env, timeout);
  if (!r.Succeeded()) {
    std::string why = r.status == ProcessResult::Status::kFailedToStart ? r.failure : r.Describe(timeout);
    if (!r.errors.empty()) why += ": " + r.errors.substr(0, 400);
    return core::MakeError("python interpreter " + path + " did not answer: " + why);
  }
  return r.output;
}

core::Expected<std::string> FindInterpreter(const std::string& explicit_path, const Environment& env) {
  auto executable = [](const std::string& p) { return access(p.c_str(), X_OK) == 0; };
  if (!explicit_path.empty()) {
    if (explicit_path.find('/') == std::string::npos) {
      // A bare name: look it up on PATH like a shell would.
      const std::string path = Lookup(env, "PATH").value_or("/usr/local/bin:/usr/bin:/bin");
      std::stringstream dirs(path);
      std::string dir;
      while (std::getline(dirs, dir, ':')) {
        // Relative PATH entries are not trusted (the current directory's python3 is nobody's choice).
        if (!dir.empty() && dir.front() == '/' && executable(dir + "/" + explicit_path)) return dir + "/" + explicit_path;
      }
      return core::MakeError("--python " + explicit_path + ": not found on PATH");
    }
    if (!executable(explicit_path)) return core::MakeError("--python " + explicit_path + ": no executable there");
    // Absolute, as given (not resolved: a venv's bin/python is a link out of the venv).
    std::error_code ignored;
    const std::filesystem::path absolute = std::filesystem::absolute(explicit_path, ignored);
    return absolute.empty() ? explicit_path : absolute.lexically_normal().string();
  }
  if (auto venv = Lookup(env, "VIRTUAL_ENV"); venv && !venv->empty()) {
    const std::string p = *venv + "/bin/python";
    if (executable(p)) return p;
    return core::MakeError("VIRTUAL_ENV=" + *venv + " has no bin/python; activate a working environment or pass --python");
  }
  const std::string path = Lookup(env, "PATH").value_or("/usr/local/bin:/usr/bin:/bin");
  std::stringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (!dir.empty() && dir.front() == '/' && executable(dir + "/python3")) return dir + "/python3";
  }
  return core::MakeError("no python3 on PATH and no VIRTUAL_ENV; pass --python PATH");
}

namespace {

// "3.12", "3.13t" into the interpreter's version and build.
core::Status DescribePython(std::string_view python_version, core::InterpreterInfo& info) {
  if (python_version.empty()) return {};
  std::string v(python_version);
  if (v.ends_with('t')) {
    info.free_threaded = true;
    v.pop_back();
  }
  const auto [major, minor] = MajorMinor(v);
  if (major != 3 || minor < 0 || v.find_first_not_of("0123456789.") != std::string::npos) {
    return core::MakeError("--python-version " + std::string(python_version) +
                           ": expected a Python 3 version such as 3.12 (or 3.13t)");
  }
  info.python_major = major;
  info.python_minor = minor;
  return {};
}

// Wheel platform tags as people copy them from filenames: manylinux_2_28_aarch64 (glibc 2.28),
// manylinux2014_x86_64 (2.17, PEP 599), manylinux_2_17_x86_64.manylinux2014_x86_64: the glibc
// they name into `info`, the platform left as linux_<arch>.
core::Status ReadManylinuxTag(std::string_view& platform, core::InterpreterInfo& info) {
  if (const std::size_t dot = platform.find('.'); dot != std::string_view::npos) platform = platform.substr(0, dot);
  static constexpr std::pair<std::string_view, int> kLegacyManylinux[] = {
      {"manylinux1_", 5}, {"manylinux2010_", 12}, {"manylinux2014_", 17}};
  for (const auto& [prefix, minor] : kLegacyManylinux) {
    if (!platform.starts_with(prefix)) continue;
    const std::string arch(platform.substr(prefix.size()));
    if (arch == "x86_64" || arch == "aarch64") {
      info.libc_minor = minor;
      platform = arch == "x86_64" ? "linux_x86_64" : "linux_aarch64";
    }
  }
  if (!platform.starts_with("manylinux_2_")) return {};
  // manylinux_2_<minor>_<arch>
  const std::string_view rest = platform.substr(12);
  const std::size_t underscore = rest.find('_');
  int minor = -1;
  if (underscore != std::string_view::npos) {
    auto [end, error] = std::from_chars(rest.data(), rest.data() + underscore, minor);
    if (error != std::errc() || end != rest.data() + underscore) minor = -1;
  }
  const std::string_view arch = underscore == std::string_view::npos ? "" : rest.substr(underscore + 1);
  if (minor < 0 || minor > 99 || (arch != "x86_64" && arch != "aarch64")) {
    return core::MakeError("--platform " + std::string(platform) +
                               ": expected manylinux_2_<glibc minor>_x86_64 or _aarch64",
                           core::ErrorCode::kUsage);
  }
  info.libc_minor = minor;
  platform = arch == "x86_64" ? "linux_x86_64" : "linux_aarch64";
  return {};
}

// macosx_11_0_arm64
core::Status ReadMacosTag(std::string_view platform, core::InterpreterInfo& info) {
  info.os = core::OperatingSystem::kMacOS;
  std::string rest(platform.substr(7));
  const std::size_t a = rest.find('_');
  const std::size_t b = a == std::string::npos ? a : rest.find('_', a + 1);
  const auto bad = [&] {
    return core::MakeError("--platform " + std::string(platform) + ": expected macosx_<major>_<minor>_<arch>");
  };
  if (b == std::string::npos) return bad();
  try {
    info.macos_major = std::stoi(rest.substr(0, a));
    info.macos_minor = std::stoi(rest.substr(a + 1, b - a - 1));
  } catch (...) {
    return bad();
  }
  info.arch = rest.substr(b + 1);
  return {};
}

}  // namespace

core::Expected<core::InterpreterInfo> DescribeTarget(std::string_view python_version,
                                                     std::string_view platform, int glibc_minor) {
  core::InterpreterInfo info;
  if (core::Status ok = DescribePython(python_version, info); !ok) return ok.error();
  info.libc_major = 2;
  info.libc_minor = glibc_minor;
  if (core::Status ok = ReadManylinuxTag(platform, info); !ok) return ok.error();
  if (platform == "linux_x86_64" || platform == "linux_aarch64") {
    info.os = core::OperatingSystem::kLinux;
    info.arch = std::string(platform.substr(6));
  } else if (platform == "win_amd64" || platform == "win_arm64") {
    info.os = core::OperatingSystem::kWindows;
    info.arch = platform == "win_amd64" ? "x86_64" : "aarch64";
  } else if (platform.starts_with("macosx_")) {
    if (core::Status ok = ReadMacosTag(platform, info); !ok) return ok.error();
  } else {
    return core::MakeError("--platform " + std::string(platform) +
                               ": expected linux_x86_64, linux_aarch64, manylinux_2_28_x86_64 (a wheel's "
                               "platform tag), win_amd64, win_arm64 or macosx_11_0_arm64",
                           core::ErrorCode::kUsage);
  }
  if (core::Status bounded = core::CheckInterpreterBounds(info); !bounded) {
    return core::MakeError("--python-version/--platform (" + std::string(python_version) + ", " + std::string(platform) +
                               "): " + bounded.error().message,
                           core::ErrorCode::kUsage);
  }
  return info;
}

}  // namespace torchdex::installer
