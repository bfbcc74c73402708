#include "index/lazy_libs.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

namespace torchdex::index::lazy {
namespace {

template <typename T>
bool Bind(void* library, const char* name, T* slot, std::string* missing) {
  *slot = reinterpret_cast<T>(dlsym(library, name));
  if (*slot == nullptr && missing->empty()) *missing = name;
  return *slot != nullptr;
}

struct Loaded {
  bool ok = false;
  std::string error;
};

struct Library {
  std::string said;  // how errors name it: "libcurl.so.4", or "TORCHDEX_LIBCURL=/x.so"
  void* handle = nullptr;
};

// Loads `soname`, or the file the variable `variable` names (docs/http.md); `install` says what
// to install when that fails, with the reason, in *error. The variable is read here rather than
// passed in: like LD_LIBRARY_PATH, which the loader reads itself, it is one fact about the
// whole process, read once at the first load. It lets a user point at a library outside the
// loader's path, and the tests ask for one that is not there.
Library Open(const char* soname, const char* variable, const char* install, std::string* error) {
  const char* chosen = std::getenv(variable);
  const bool overridden = chosen != nullptr && *chosen != '\0';
  const char* name = overridden ? chosen : soname;
  Library library;
  library.said = overridden ? std::string(variable) + "=" + name : std::string(name);
  library.handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (library.handle == nullptr) {
    const char* why = dlerror();
    *error = library.said + " cannot be loaded (" + (why ? why : "?") + "); " +
             (overridden ? "unset " + std::string(variable) + " to load " + soname + ", or " : "") +
             install;
  }
  return library;
}

}  // namespace

const Curl* LoadCurl(std::string* error) {
  static Curl api;
  static Loaded state;
  static std::once_flag once;
  std::call_once(once, [] {
    // The package names of the distributions a manylinux wheel runs on (the wheel does not
    // bring libcurl: docs/packaging.md).
    const Library lib = Open("libcurl.so.4", "TORCHDEX_LIBCURL",
                             "install libcurl 7.85 or newer: the package libcurl4 (Debian, "
                             "Ubuntu, openSUSE) or libcurl (Fedora, RHEL)",
                             &state.error);
    if (lib.handle == nullptr) return;
    void* library = lib.handle;
    std::string missing;
    Bind(library, "curl_global_init", &api.global_init, &missing);
    Bind(library, "curl_easy_init", &api.easy_init, &missing);
    Bind(library, "curl_easy_cleanup", &api.easy_cleanup, &missing);
    Bind(library, "curl_easy_reset", &api.easy_reset, &missing);
    Bind(library, "curl_easy_setopt", &api.easy_setopt, &missing);
    Bind(library, "curl_easy_getinfo", &api.easy_getinfo, &missing);
    Bind(library, "curl_easy_header", &api.easy_header, &missing);
    Bind(library, "curl_easy_strerror", &api.easy_strerror, &missing);
    Bind(library, "curl_multi_init", &api.multi_init, &missing);
    Bind(library, "curl_multi_cleanup", &api.multi_cleanup, &missing);
    Bind(library, "curl_multi_setopt", &api.multi_setopt, &missing);
    Bind(library, "curl_multi_add_handle", &api.multi_add_handle, &missing);
    Bind(library, "curl_multi_remove_handle", &api.multi_remove_handle, &missing);
    Bind(library, "curl_multi_perform", &api.multi_perform, &missing);
    Bind(library, "curl_multi_poll", &api.multi_poll, &missing);
    Bind(library, "curl_multi_info_read", &api.multi_info_read, &missing);
    Bind(library, "curl_multi_strerror", &api.multi_strerror, &missing);
    Bind(library, "curl_slist_append", &api.slist_append, &missing);
    Bind(library, "curl_slist_free_all", &api.slist_free_all, &missing);
    if (!missing.empty()) {
      state.error = lib.said + " lacks " + missing + ": torchdex needs libcurl 7.85 or newer";
      return;
    }
    state.ok = true;
  });
  if (!state.ok && error != nullptr) *error = state.error;
  return state.ok ? &api : nullptr;
}

const Xml* LoadXml(std::string* error) {
  static Xml api;
  static Loaded state;
  static std::once_flag once;
  std::call_once(once, [] {
    const Library lib =
        Open("libxml2.so.2", "TORCHDEX_LIBXML2",
             "install the package libxml2 (Debian, Ubuntu, Fedora, RHEL, openSUSE)", &state.error);
    if (lib.handle == nullptr) return;
    void* library = lib.handle;
    std::string missing;
    Bind(library, "htmlCreatePushParserCtxt", &api.create_push_parser, &missing);
    Bind(library, "htmlCtxtUseOptions", &api.use_options, &missing);
    Bind(library, "htmlParseChunk", &api.parse_chunk, &missing);
    Bind(library, "htmlFreeParserCtxt", &api.free_parser, &missing);
    Bind(library, "xmlInitParser", &api.init_parser, &missing);
    if (!missing.empty()) {
      state.error = lib.said + " lacks " + missing;
      return;
    }
    // libxml2 2.9 sets up its globals on first use, and that is not thread-safe; pages are
    // parsed on several threads at once (the routing index), so set them up here, once.
    api.init_parser();
    state.ok = true;
  });
  if (!state.ok && error != nullptr) *error = state.error;
  return state.ok ? &api : nullptr;
}

}  // namespace torchdex::index::lazy
