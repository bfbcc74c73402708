// `torchdex sync` of a lock of the variant index (sync_variant.cc, docs/variants.md).
#ifndef TORCHDEX_INSTALLER_CLI_SYNC_VARIANT_H_
#define TORCHDEX_INSTALLER_CLI_SYNC_VARIANT_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "catalogue/variants.h"
#include "core/expected.h"
#include "core/requirement.h"
#include "index/fetcher.h"
#include "installer/cli/lock_support.h"

namespace torchdex::installer::lockcli {

/// core::UrlFileName of a lock's URL, for comparing with a wheel's name and printing: a name that
/// decodes to control characters is given as written instead.
std::string UrlFileName(std::string_view url);

/// Resolves the locked variant wheels of `f` for this machine, as PEP 825 asks of an installer
/// that reads a lock listing variant wheels: each package's variants.json read from its locked
/// URL (`fetcher`, or libcurl when null, redirects checked before they are followed), its sha256
/// the lock's, its variants ranked by this machine's properties `host`; of the labels the
/// package's wheels carry, the best compatible one is chosen. Returns the label chosen per
/// package (packages whose marker is false for `markers` are skipped); what was found is added to `why`, a better variant than any locked to `warnings`.
/// Errors name the lock's line: kNotOffered when no locked variant of a package fits, kNetwork
/// when the file cannot be read or does not match its hash, kBadInputFile when the lock and
/// the file disagree (a wheel without a label, a label not in the file, a URL naming another
/// file than the wheel's name).
core::Expected<std::map<std::string, std::string>> ResolveLockedVariants(
    const LockFile& f, const core::MarkerEnvironment& markers, const catalogue::SupportedProperties& host,
    const std::vector<std::string>& trusted_hosts, index::Fetcher* fetcher, std::vector<std::string>& why,
    std::vector<std::string>& warnings);

}  // namespace torchdex::installer::lockcli

#endif  // TORCHDEX_INSTALLER_CLI_SYNC_VARIANT_H_
