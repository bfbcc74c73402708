#include "index/lazy_libs.h"

#include <dlfcn.h>

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

}  // namespace

const Curl* LoadCurl(std::string* error) {
  static Curl api;
  static Loaded state;
  static std::once_flag once;
  std::call_once(once, [] {
    void* library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
      const char* why = dlerror();
      state.error = std::string("libcurl.so.4 cannot be loaded (") + (why ? why : "?") +
                    "); install the libcurl4 package";
      return;
    }
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
      state.error = "libcurl.so.4 lacks " + missing + ": torchdex needs libcurl 7.85 or newer";
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
    void* library = dlopen("libxml2.so.2", RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
      const char* why = dlerror();
      state.error = std::string("libxml2.so.2 cannot be loaded (") + (why ? why : "?") +
                    "); install the libxml2 package";
      return;
    }
    std::string missing;
    Bind(library, "htmlCreatePushParserCtxt", &api.create_push_parser, &missing);
    Bind(library, "htmlCtxtUseOptions", &api.use_options, &missing);
    Bind(library, "htmlParseChunk", &api.parse_chunk, &missing);
    Bind(library, "htmlFreeParserCtxt", &api.free_parser, &missing);
    if (!missing.empty()) {
      state.error = "libxml2.so.2 lacks " + missing;
      return;
    }
    state.ok = true;
  });
  if (!state.ok && error != nullptr) *error = state.error;
  return state.ok ? &api : nullptr;
}

}  // namespace torchdex::index::lazy
