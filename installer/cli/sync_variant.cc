// `torchdex sync` of a lock of the variant index (pylock.variant.toml, `lock --backend
// variant`): the lock names one variant wheel per package, chosen on the machine that locked.
// PEP 825 ("Integration with pylock.toml") asks an installer to resolve the variants it lists,
// so each locked package's variants.json is read from its locked URL, checked against the
// locked sha256, and ranked by this host's properties: the locked label must be compatible
// here, and a better one is said. docs/variants.md.
#include "installer/cli/sync_variant.h"

#include <memory>

#include "catalogue/variants.h"
#include "core/sha256.h"
#include "core/url.h"
#include "installer/install/transport.h"

namespace torchdex::installer::lockcli {

core::Status CheckLockedVariants(const LockFile& f, const catalogue::SupportedProperties& host,
                                 const std::vector<std::string>& trusted_hosts, index::Fetcher* fetcher,
                                 std::vector<std::string>& why, std::vector<std::string>& warnings) {
  std::unique_ptr<index::Fetcher> own;
  if (fetcher == nullptr) {
    index::FetchOptions options;
    options.max_body_bytes = 4u << 20;  // the crawler's bound on a variants.json
    own = index::MakeCurlFetcher(options);
    fetcher = own.get();
  }
  for (const LockedPackage& p : f.lock.packages) {
    if (!p.variants_json) continue;
    const std::string at = f.path + ":" + std::to_string(p.variants_json->line) + ": " + p.name + " " + p.version;
    const std::string& url = p.variants_json->url;
    if (core::Status ok = CheckTransport(url, trusted_hosts, "the variants.json of " + p.name); !ok) {
      return core::MakeError(at + ": " + ok.error().message, core::ErrorCode::kBadInputFile);
    }
    index::FetchResult result;
    fetcher->Run({index::FetchRequest{url, "", "", 0}}, [&](index::FetchResult&& r) {
      result = std::move(r);
      return std::vector<index::FetchRequest>{};
    });
    for (const std::string& hop : result.redirects) {
      if (core::Status ok = CheckTransport(hop, trusted_hosts, "the variants.json of " + p.name); !ok) {
        return core::MakeError(at + ": " + ok.error().message, core::ErrorCode::kNetwork);
      }
    }
    if (result.outcome != index::FetchOutcome::kOk) {
      return core::MakeError(at + ": its variants.json " + core::RedactCredentials(url) + " could not be read (" +
                                 (result.error.empty() ? "HTTP " + std::to_string(result.status) : result.error) +
                                 "), so its variant cannot be checked for this machine",
                             core::ErrorCode::kNetwork);
    }
    const std::string actual = core::Sha256Hex(result.body);
    if (actual != p.variants_json->sha256) {
      return core::MakeError(at + ": its variants.json " + core::RedactCredentials(url) + " has sha256 " + actual +
                                 ", the lock says " + p.variants_json->sha256 + "; nothing is installed",
                             core::ErrorCode::kNetwork);
    }
    core::Expected<catalogue::VariantsJson> json = catalogue::ParseVariantsJson(result.body, url);
    if (!json) return core::MakeError(at + ": " + json.error().message, core::ErrorCode::kBadInputFile);
    const std::vector<catalogue::RankedVariant> ranked = catalogue::RankVariants(*json, host);
    for (const LockedWheel& w : p.wheels) {
      const std::optional<catalogue::VariantWheelName> name = catalogue::SplitVariantLabel(w.name);
      const std::string wheel_at = f.path + ":" + std::to_string(w.line) + ": " + p.name + " " + p.version;
      if (!name) {
        return core::MakeError(wheel_at + ": " + w.name + " has no variant label, but the package locks a variants.json",
                               core::ErrorCode::kBadInputFile);
      }
      const catalogue::RankedVariant* mine = nullptr;
      for (const catalogue::RankedVariant& r : ranked) {
        if (r.label == name->label) mine = &r;
      }
      if (mine == nullptr) {
        return core::MakeError(wheel_at + ": the variant " + name->label + " of " + w.name + " is not in its variants.json " +
                                   core::RedactCredentials(url),
                               core::ErrorCode::kBadInputFile);
      }
      if (!mine->compatible) {
        return core::MakeError(wheel_at + ": the locked variant " + name->label + " does not fit this machine (" +
                                   mine->incompatible_because + "); lock again on it (torchdex lock --backend variant)",
                               core::ErrorCode::kNotOffered);
      }
      why.push_back(p.name + " " + p.version + ": the locked variant " + name->label + " fits this machine");
      if (!ranked.empty() && ranked.front().compatible && ranked.front().label != name->label) {
        warnings.push_back(p.name + " " + p.version + ": this machine's best variant is " + ranked.front().label +
                           " (by " + catalogue::DecidingProperty(ranked.front(), mine) + "); the lock holds " +
                           name->label + " (torchdex lock --backend variant on this machine locks " +
                           ranked.front().label + ")");
      }
    }
  }
  return {};
}

}  // namespace torchdex::installer::lockcli
