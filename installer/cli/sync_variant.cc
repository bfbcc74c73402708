// `torchdex sync` of a lock of the variant index (pylock.variant.toml, `lock --backend
// variant`): the lock names one variant wheel per package, chosen on the machine that locked.
// PEP 825 ("Integration with pylock.toml") asks an installer to resolve the variants it lists,
// so each locked package's variants.json is read from its locked URL, checked against the
// locked sha256, and ranked by this host's properties: the locked label must be compatible
// here, and a better one is said. docs/variants.md.
#include "installer/cli/sync_variant.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "catalogue/variants.h"
#include "core/sha256.h"
#include "core/url.h"
#include "installer/install/transport.h"

namespace torchdex::installer::lockcli {

std::string UrlFileName(std::string_view url) {
  std::string decoded = core::UrlFileName(url);
  // Decoded control characters are never printed: the segment is then shown as written.
  if (std::any_of(decoded.begin(), decoded.end(), [](char c) {
        return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
      })) {
    url = url.substr(0, url.find_first_of("?#"));
    return std::string(url.substr(url.rfind('/') + 1));
  }
  return decoded;
}

namespace {

using LabelledWheels = std::vector<std::pair<const LockedWheel*, std::string>>;

// The wheels' labels first: what is checked is the file each URL fetches.
core::Expected<LabelledWheels> LabelWheels(const LockFile& f, const LockedPackage& p) {
  LabelledWheels labelled;
  for (const LockedWheel& w : p.wheels) {
    const std::string wheel_at = f.path + ":" + std::to_string(w.line) + ": " + p.name + " " + p.version;
    if (const std::string file = UrlFileName(w.url); file != w.name) {
      return core::MakeError(wheel_at + ": the wheel's name " + w.name + " is not the file its url names (" + file + ")",
                             core::ErrorCode::kBadInputFile);
    }
    const std::optional<catalogue::VariantWheelName> name = catalogue::SplitVariantLabel(w.name);
    if (!name) {
      return core::MakeError(wheel_at + ": " + w.name + " has no variant label, but the package locks a variants.json",
                             core::ErrorCode::kBadInputFile);
    }
    labelled.emplace_back(&w, name->label);
  }
  return labelled;
}

// The package's variants.json, fetched from its URL (which obeys the HTTPS rule and names the
// file of its wheels, PEP 825), checked against the lock's sha256, and parsed.
core::Expected<catalogue::VariantsJson> FetchLockedVariantsJson(const LockedPackage& p, const LabelledWheels& labelled,
                                                                const std::vector<std::string>& trusted_hosts,
                                                                index::Fetcher& fetcher, const std::string& at) {
  const std::string& url = p.variants_json->url;
  if (core::Status ok = CheckTransport(url, trusted_hosts, "the variants.json of " + p.name); !ok) {
    return core::MakeError(at + ": " + ok.error().message, core::ErrorCode::kBadInputFile);
  }
  if (!labelled.empty()) {
    const std::string expected = catalogue::VariantsJsonFilenameOf(labelled.front().first->name);
    if (const std::string file = UrlFileName(url); file != expected) {
      return core::MakeError(at + ": its variants.json url names " + file + ", not " + expected +
                                 " (PEP 825: the {name}-{version}-variants.json of its wheels)",
                             core::ErrorCode::kBadInputFile);
    }
  }
  index::FetchResult result;
  fetcher.Run({index::FetchRequest{url, "", "", 0}}, [&](index::FetchResult&& r) {
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
  return json;
}

// PEP 825: the installer resolves the variants a lock lists; the best compatible one wins.
core::Expected<std::string> PickLockedVariant(const LockFile& f, const LockedPackage& p, const LabelledWheels& labelled,
                                              const std::vector<catalogue::RankedVariant>& ranked, const std::string& at,
                                              std::vector<std::string>& why, std::vector<std::string>& warnings) {
  std::set<std::string> locked;
  for (const auto& entry : labelled) {
    // (no structured binding: clang 14, the fuzz build's compiler, cannot capture one)
    const LockedWheel* wheel = entry.first;
    const std::string& label = entry.second;
    if (std::none_of(ranked.begin(), ranked.end(), [&](const catalogue::RankedVariant& r) { return r.label == label; })) {
      return core::MakeError(f.path + ":" + std::to_string(wheel->line) + ": " + p.name + " " + p.version +
                                 ": the variant " + label + " of " + wheel->name + " is not in its variants.json " +
                                 core::RedactCredentials(p.variants_json->url),
                             core::ErrorCode::kBadInputFile);
    }
    locked.insert(label);
  }
  const catalogue::RankedVariant* best = nullptr;
  std::string misfits;
  for (const catalogue::RankedVariant& r : ranked) {
    if (!locked.contains(r.label)) continue;
    if (r.compatible && best == nullptr) best = &r;
    if (!r.compatible) misfits += (misfits.empty() ? "" : "; ") + r.label + ": " + r.incompatible_because;
  }
  std::string list;
  for (const std::string& l : locked) list += (list.empty() ? "" : ", ") + l;
  if (best == nullptr) {
    return core::MakeError(at + ": " + (locked.size() == 1 ? "the locked variant " + list + " does not" :
                                                              "none of the locked variants (" + list + ") does") +
                               " fit this machine (" + misfits + "); lock again on it (torchdex lock --backend variant)",
                           core::ErrorCode::kNotOffered);
  }
  why.push_back(p.name + " " + p.version + ": the locked variant " + best->label + " fits this machine" +
                (locked.size() > 1 ? " (the best of the locked " + list + ")" : std::string()));
  if (!ranked.empty() && ranked.front().compatible && ranked.front().label != best->label) {
    warnings.push_back(p.name + " " + p.version + ": this machine's best variant is " + ranked.front().label + " (by " +
                       catalogue::DecidingProperty(ranked.front(), best) + "); the lock holds " + best->label +
                       " (torchdex lock --backend variant on this machine locks " + ranked.front().label + ")");
  }
  return best->label;
}

}  // namespace

core::Expected<std::map<std::string, std::string>> ResolveLockedVariants(
    const LockFile& f, const core::MarkerEnvironment& markers, const catalogue::SupportedProperties& host,
    const std::vector<std::string>& trusted_hosts, index::Fetcher* fetcher, std::vector<std::string>& why,
    std::vector<std::string>& warnings) {
  std::unique_ptr<index::Fetcher> own;
  if (fetcher == nullptr) {
    // A redirect is checked before it is followed: a hop the transport rule refuses is never asked.
    index::FetchOptions options = GuardedFetchOptions(trusted_hosts);
    options.max_body_bytes = 4u << 20;  // the crawler's bound on a variants.json
    // A few kB: a server that stalls on it is given up on in about a minute, not four.
    options.total_timeout_s = 20;
    options.max_attempts = 3;
    own = index::MakeCurlFetcher(options);
    fetcher = own.get();
  }
  std::map<std::string, std::string> chosen;
  for (const LockedPackage& p : f.lock.packages) {
    if (!p.variants_json) continue;
    if (!p.marker.empty()) {
      // A package this machine does not install is not resolved (a marker that does not parse is
      // WheelsFor's to say).
      auto marker = core::Marker::Parse(p.marker);
      auto applies = marker ? marker->Evaluate(markers) : core::Expected<bool>(true);
      if (applies && !*applies) continue;
    }
    const std::string at = f.path + ":" + std::to_string(p.variants_json->line) + ": " + p.name + " " + p.version;
    core::Expected<LabelledWheels> labelled = LabelWheels(f, p);
    if (!labelled) return labelled.error();
    core::Expected<catalogue::VariantsJson> json = FetchLockedVariantsJson(p, *labelled, trusted_hosts, *fetcher, at);
    if (!json) return json.error();
    core::Expected<std::string> label =
        PickLockedVariant(f, p, *labelled, catalogue::RankVariants(*json, host), at, why, warnings);
    if (!label) return label.error();
    chosen[p.name] = *label;
  }
  return chosen;
}

}  // namespace torchdex::installer::lockcli
