// Shared pieces of `lock` and `sync` (lock_support.h).
#include "installer/cli/lock_support.h"

#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "catalogue/variants.h"
#include "core/name.h"
#include "core/requirement.h"
#include "core/tags.h"
#include "core/url.h"
#include "core/wheel.h"
#include "index/url.h"
#include "installer/cli/exit_codes.h"
#include "installer/platform/text.h"

namespace torchdex::installer::lockcli {

namespace fs = std::filesystem;


core::Expected<std::string> ReadFileText(const std::string& path, std::uintmax_t limit) {
  std::error_code error;
  const std::uintmax_t size = fs::file_size(path, error);
  if (error) return core::MakeError(path + ": cannot be read: " + error.message(), core::ErrorCode::kBadInputFile);
  if (size > limit) {
    return core::MakeError(path + ": " + std::to_string(size) + " bytes, more than a lock file may have (" +
                               std::to_string(limit) + ")",
                           core::ErrorCode::kBadInputFile);
  }
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) return core::MakeError(path + ": cannot be read", core::ErrorCode::kBadInputFile);
  return text.str();
}

TemporaryDirectory::TemporaryDirectory() {
  std::string pattern = (fs::temp_directory_path() / "torchdex-lock-XXXXXX").string();
  if (::mkdtemp(pattern.data()) != nullptr) path_ = pattern;
}

TemporaryDirectory::~TemporaryDirectory() {
  std::error_code ignored;
  if (!path_.empty()) fs::remove_all(path_, ignored);
}

// What a lock offers for a name it has no concern with: any version (the requirement is a
// name alone), with a wheel for every target.
constexpr const char* kAnyVersion = "0";

LockedView::LockedView(std::shared_ptr<const CatalogueSource> keep, const CatalogueView& base,
                       std::map<std::string, const PyLock*> locks)
    : keep_(std::move(keep)), base_(base), locks_(std::move(locks)) {
  for (const auto& [backend, lock] : locks_) {
    if (lock == nullptr) continue;
    std::set<std::string>& names = asked_[backend];
    for (const std::string& text : lock->torchdex.requirements) {
      auto r = core::Requirement::Parse(text);
      if (r) names.insert(core::NormalizeName(r->name));
    }
  }
}

bool LockedView::NoConcernOf(const std::string& project, const std::string& backend) const {
  auto asked = asked_.find(backend);
  if (asked == asked_.end()) return false;
  return !asked->second.contains(project) && Find(project, backend) == nullptr;
}

std::vector<BackendView> LockedView::Backends(const std::string& channel) const {
  std::vector<BackendView> out;
  for (const BackendView& b : base_.Backends(channel)) {
    if (locks_.contains(b.name)) out.push_back(b);
  }
  return out;
}

std::vector<std::string> LockedView::Versions(const std::string& project, const std::string& backend) const {
  if (Unlocked(backend)) return base_.Versions(project, backend);
  if (NoConcernOf(project, backend)) return {kAnyVersion};
  const LockedPackage* p = Find(project, backend);
  if (p == nullptr) return {};
  return {p->version};
}

bool LockedView::HasWheelFor(const std::string& project, const std::string& backend, const std::string& version,
                             const std::vector<core::Tag>& supported) const {
  if (Unlocked(backend)) return base_.HasWheelFor(project, backend, version, supported);
  if (NoConcernOf(project, backend)) return version == kAnyVersion;
  const LockedPackage* p = Find(project, backend);
  if (p == nullptr || p->version != version) return false;
  for (const LockedWheel& w : p->wheels) {
    auto wheel = core::ParseWheelFilename(w.name);
    if (wheel && (supported.empty() || core::BestTagRank(wheel->Tags(), supported))) return true;
  }
  return false;
}

bool LockedView::Unlocked(const std::string& backend) const {
  auto it = locks_.find(backend);
  return it != locks_.end() && it->second == nullptr;
}

const LockedPackage* LockedView::Find(const std::string& project, const std::string& backend) const {
  auto it = locks_.find(backend);
  if (it == locks_.end()) return nullptr;
  for (const LockedPackage& p : it->second->packages) {
    if (p.name == project) return &p;
  }
  return nullptr;
}

namespace {

std::string Root(std::string url) {
  url = core::StripCredentials(url);
  if (!url.empty() && url.back() != '/') url += '/';
  return url;
}

// "cu124" for "2.5.1+cu124"; "" when the local label is not a backend's.
std::string BackendLabel(const std::string& version) {
  const std::size_t plus = version.find('+');
  if (plus == std::string::npos) return {};
  const std::string label = version.substr(plus + 1);
  const bool backend_like = label == "cpu" || label == "xpu" ||
                            (label.starts_with("cu") && label.size() > 2 &&
                             label.find_first_not_of("0123456789", 2) == std::string::npos) ||
                            (label.starts_with("rocm") && label.size() > 4 &&
                             label.find_first_not_of("0123456789.", 4) == std::string::npos);
  return backend_like ? label : std::string();
}

}  // namespace

std::vector<std::string> RoutedFileRoots(const UserCatalogue& catalogue) {
  std::vector<std::string> roots;
  if (catalogue.source) {
    roots.push_back(Root(catalogue.source->default_base_url));
    for (const std::string& host : catalogue.source->upstream_hosts) roots.push_back("https://" + host + "/");
  }
  const EffectiveOverrides& o = catalogue.overrides;
  if (o.mirror) roots.push_back(Root(o.mirror->value));
  for (const auto& [backend, url] : o.backend_urls) roots.push_back(Root(url.value));
  return roots;
}

namespace {

// The decoded segments of a URL's path; nullopt when one is "." or ".." (literal or encoded: pip
// and uv resolve them, so "/whl/cu124/../../simple/x" would leave the root that a prefix says it
// is under), or holds an encoded '/' or a '\' (the attack's G1).
std::optional<std::vector<std::string>> Segments(std::string_view path) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    const std::string raw(path.substr(start, slash - start));
    const std::string lowered = ToLower(raw);
    if (lowered.find("%2f") != std::string::npos || lowered.find("%5c") != std::string::npos ||
        raw.find('\\') != std::string::npos) {
      return std::nullopt;
    }
    const std::string decoded = core::PercentDecode(raw);
    if (decoded == "." || decoded == "..") return std::nullopt;
    if (!decoded.empty()) out.push_back(decoded);
    start = slash + 1;
  }
  return out;
}

// Whether `url` lies under `root`: the same origin (scheme, host and port, letters' case aside,
// credentials aside) and the root's path segments a prefix of its own.
bool Under(const std::string& url, const std::string& root) {
  const std::string plain = core::StripCredentials(url), base = core::StripCredentials(root);
  if (ToLower(index::UrlOrigin(plain)) != ToLower(index::UrlOrigin(base)) || index::UrlOrigin(plain).empty()) {
    return false;
  }
  const auto mine = Segments(index::UrlPath(plain));
  const auto theirs = Segments(index::UrlPath(base));
  if (!mine || !theirs || theirs->size() > mine->size()) return false;
  return std::equal(theirs->begin(), theirs->end(), mine->begin());
}

}  // namespace

core::Status RoutedFileOfBackend(const std::string& where, const std::string& name, const std::string& version,
                                 const std::string& url, const std::string& backend,
                                 const std::vector<std::string>& roots) {
  const std::string file = core::UrlFileName(url);
  core::Expected<core::WheelFilename> wheel = core::ParseWheelFilename(file);
  if (!wheel) {  // a variant wheel (PEP 825) names its label after the platform tag
    if (const std::optional<catalogue::VariantWheelName> variant = catalogue::SplitVariantLabel(file)) {
      wheel = core::ParseWheelFilename(variant->plain_filename);
    }
  }
  const std::string file_version = wheel ? wheel->version.ToString() : "";
  const std::optional<std::vector<std::string>> segments = Segments(index::UrlPath(url));
  std::string why;
  if (index::HasAmbiguousAuthority(url)) {
    why = "has a '\\' in its authority, which parsers read as different hosts";
  } else if (!segments) {
    why = "has a dot segment or an encoded '/' in its path";
  } else if (std::none_of(roots.begin(), roots.end(), [&](const std::string& root) { return Under(url, root); })) {
    why = "is not under the family's index, its mirror or its hosts (" + Join(roots, ", ") + ")";
  } else if (!wheel) {
    why = "is not a wheel";
  } else if (file_version != version) {
    why = "is the file of version " + file_version;  // the name, not the lock's word, says what it is
  } else if (const std::string label = BackendLabel(file_version); !label.empty() && label != backend) {
    why = "is a build of backend " + label;
  } else if (std::any_of(segments->begin(), segments->end(), [&](const std::string& part) {
               return part != backend && !BackendLabel("0+" + part).empty();
             })) {
    why = "lies in another backend's directory";
  } else {
    return {};
  }
  return core::MakeError(where + ": the routed package " + name + " " + version + " comes from " +
                             core::RedactCredentials(url) + ", which " + why + ", not a wheel of backend " + backend +
                             "; a routed package comes only from its backend",
                         core::ErrorCode::kBadInputFile);
}

int Refuse(std::ostream& err, const core::Error& error) {
  err << "torchdex sync: " << core::RedactCredentials(error.message) << "\n";
  return ExitStatus(error.code);
}

}  // namespace torchdex::installer::lockcli
