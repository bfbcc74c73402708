#include "crawler/exit_codes.h"

namespace torchdex::crawler {

int ExitStatus(core::ErrorCode code) {
  switch (code) {
    case core::ErrorCode::kNetwork:
      return kExitCrawlFailed;  // a page failed, did not parse, or led elsewhere
    case core::ErrorCode::kUsage:
    case core::ErrorCode::kBadInputFile:
      return kExitUsage;  // the command line, indexes.json, routing-policy.json, a catalogue
    case core::ErrorCode::kFailure:
    case core::ErrorCode::kBadEnvironment:
    case core::ErrorCode::kNotOffered:
    case core::ErrorCode::kInstallerFailed:
      return kExitStore;  // the store (locked, unreadable, malformed), the export file, the rest
  }
  return kExitStore;
}

const char* const kExitCodesHelp =
    "exit codes: 0 ok; 1 the crawl had failures: the index (a page failed after its retries, did\n"
    "            not parse, was too large or led elsewhere; the store is as it was);\n"
    "            2 bad usage or a bad input file; 3 the store is locked by another crawl or\n"
    "            cannot be used (unreadable, malformed, not writable), or the export cannot be\n"
    "            written; diff --guard: 0 no change, 10 changed (allowed), 20 refused\n";

}  // namespace torchdex::crawler
