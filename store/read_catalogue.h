// One channel of the SQLite store as a catalogue: what torchdex-crawl exports. Only the crawler
// reads the store; the installer and codegen read catalogue.json or the compiled table.
#ifndef TORCHDEX_STORE_READ_CATALOGUE_H_
#define TORCHDEX_STORE_READ_CATALOGUE_H_

#include <string_view>

#include "catalogue/catalogue.h"
#include "core/expected.h"

namespace torchdex::catalogue {

class Store;

/// Reads one channel of the store into a catalogue.
core::Expected<Catalogue> ReadCatalogue(Store& store, std::string_view family,
                                        std::string_view channel, std::string_view note);

}  // namespace torchdex::catalogue

#endif  // TORCHDEX_STORE_READ_CATALOGUE_H_
