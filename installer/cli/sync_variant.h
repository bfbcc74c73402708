// `torchdex sync` of a lock of the variant index (sync_variant.cc, docs/variants.md).
#ifndef TORCHDEX_INSTALLER_CLI_SYNC_VARIANT_H_
#define TORCHDEX_INSTALLER_CLI_SYNC_VARIANT_H_

#include <string>
#include <vector>

#include "catalogue/variants.h"
#include "core/expected.h"
#include "index/fetcher.h"
#include "installer/cli/lock_support.h"

namespace torchdex::installer::lockcli {

/// Checks every locked variant wheel of `f` against this machine's properties `host`: the
/// package's variants.json read from its locked URL (`fetcher`, or libcurl when null), its
/// sha256 the lock's, the wheel's label compatible by PEP 825's ranking. What was found is
/// added to `why`, a better variant for this machine to `warnings`. Errors name the lock's
/// line: kNotOffered when a locked variant does not fit, kNetwork when the file cannot be read
/// or does not match its hash, kBadInputFile when the lock and the file disagree.
core::Status CheckLockedVariants(const LockFile& f, const catalogue::SupportedProperties& host,
                                 const std::vector<std::string>& trusted_hosts, index::Fetcher* fetcher,
                                 std::vector<std::string>& why, std::vector<std::string>& warnings);

}  // namespace torchdex::installer::lockcli

#endif  // TORCHDEX_INSTALLER_CLI_SYNC_VARIANT_H_
