// libcurl and libxml2, loaded when first needed rather than at program start. Linked the usual
// way they bring ~30 shared libraries (TLS, Kerberos, LDAP, ICU, p11-kit ...) whose loading and
// initialisers cost torchdex ~4 ms before main(), on every `torchdex detect` and `select`, which
// never use HTTP or HTML. Private to index/: only its .cc files include it.
#ifndef TORCHDEX_INDEX_LAZY_LIBS_H_
#define TORCHDEX_INDEX_LAZY_LIBS_H_

#include <curl/curl.h>
#include <libxml/HTMLparser.h>

#include <string>

namespace torchdex::index::lazy {

struct Curl {
  decltype(&::curl_global_init) global_init;
  decltype(&::curl_easy_init) easy_init;
  decltype(&::curl_easy_cleanup) easy_cleanup;
  decltype(&::curl_easy_reset) easy_reset;
  decltype(&::curl_easy_setopt) easy_setopt;
  decltype(&::curl_easy_getinfo) easy_getinfo;
  decltype(&::curl_easy_header) easy_header;
  decltype(&::curl_easy_strerror) easy_strerror;
  decltype(&::curl_multi_init) multi_init;
  decltype(&::curl_multi_cleanup) multi_cleanup;
  decltype(&::curl_multi_setopt) multi_setopt;
  decltype(&::curl_multi_add_handle) multi_add_handle;
  decltype(&::curl_multi_remove_handle) multi_remove_handle;
  decltype(&::curl_multi_perform) multi_perform;
  decltype(&::curl_multi_poll) multi_poll;
  decltype(&::curl_multi_info_read) multi_info_read;
  decltype(&::curl_multi_strerror) multi_strerror;
  decltype(&::curl_slist_append) slist_append;
  decltype(&::curl_slist_free_all) slist_free_all;
};

struct Xml {
  decltype(&::htmlCreatePushParserCtxt) create_push_parser;
  decltype(&::htmlCtxtUseOptions) use_options;
  decltype(&::htmlParseChunk) parse_chunk;
  decltype(&::htmlFreeParserCtxt) free_parser;
  decltype(&::xmlInitParser) init_parser;
};

/// libcurl.so.4 (or the file TORCHDEX_LIBCURL names), loaded once; nullptr when it cannot be,
/// with the reason and the package to install in *error.
const Curl* LoadCurl(std::string* error);
/// libxml2.so.2 (or the file TORCHDEX_LIBXML2 names), loaded once; nullptr when it cannot be,
/// with the reason and the package to install in *error.
const Xml* LoadXml(std::string* error);

}  // namespace torchdex::index::lazy

#endif  // TORCHDEX_INDEX_LAZY_LIBS_H_
