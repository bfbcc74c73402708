#include "store/index_config.h"

#include <fstream>
#include <mutex>
#include <shared_mutex>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <unordered_map>

#include "core/name.h"
#include "core/spelling.h"

namespace torchdex::catalogue {

// std::regex is slow and heavy to include, so it stays here, and answers are memoised: a crawl
// asks about the same few hundred directory names hundreds of thousands of times.
struct CompiledPatterns {
  std::regex backend;
  std::vector<std::regex> legacy;
  // A crawl asks from its network and parser threads at once; almost every question has been
  // asked before, so readers share the lock.
  std::shared_mutex memo_mutex;
  std::unordered_map<std::string, bool> backend_memo;
  std::unordered_map<std::string, int> legacy_memo;  // index into legacy, -1 for none
};

namespace {

using nlohmann::json;

struct Reader {
  std::string_view origin;
  core::Error Fail(const std::string& pointer, const std::string& what) const {
    return core::MakeError(std::string(origin) + ": " + pointer + ": " + what,
                           core::ErrorCode::kBadInputFile);
  }
};

}  // namespace

const Channel* IndexFamily::FindChannel(std::string_view name) const {
  for (const Channel& c : channels) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

bool IndexFamily::IsVariantIndex(std::string_view dir) const {
  for (const Channel& c : channels) {
    for (const VariantIndex& v : c.variant_indexes) {
      if (v.name == dir) return true;
    }
  }
  return false;
}

bool IndexFamily::IsBackendName(std::string_view dir) const {
  std::string key(dir);
  {
    std::shared_lock<std::shared_mutex> read(compiled->memo_mutex);
    if (auto it = compiled->backend_memo.find(key); it != compiled->backend_memo.end()) return it->second;
  }
  const bool match = std::regex_match(key, compiled->backend);
  std::unique_lock<std::shared_mutex> write(compiled->memo_mutex);
  compiled->backend_memo.emplace(std::move(key), match);
  return match;
}

std::optional<std::string> IndexFamily::LegacyReason(std::string_view dir) const {
  std::string key(dir);
  int index = -1;
  bool known = false;
  {
    std::shared_lock<std::shared_mutex> read(compiled->memo_mutex);
    if (auto it = compiled->legacy_memo.find(key); it != compiled->legacy_memo.end()) {
      index = it->second;
      known = true;
    }
  }
  if (!known) {
    for (std::size_t i = 0; i < compiled->legacy.size(); ++i) {
      if (std::regex_match(key, compiled->legacy[i])) {
        index = static_cast<int>(i);
        break;
      }
    }
    std::unique_lock<std::shared_mutex> write(compiled->memo_mutex);
    compiled->legacy_memo.emplace(std::move(key), index);
  }
  if (index < 0) return std::nullopt;
  return legacy_patterns[static_cast<std::size_t>(index)].reason;
}

namespace {

// Whether every key of `keys` is a non-empty string of `object`; the first that is not.
const char* FirstMissingString(const json& object, std::initializer_list<const char*> keys) {
  for (const char* key : keys) {
    if (!object.is_object() || !object.contains(key) || !object[key].is_string() ||
        object[key].get<std::string>().empty()) {
      return key;
    }
  }
  return nullptr;
}

// One family of indexes.json, at JSON pointer `at`.
class FamilyReader {
 public:
  using Failure = std::optional<core::Error>;
  FamilyReader(const Reader& r, const json& f, std::string at) : r_(r), f_(f), at_(std::move(at)) {}

  core::Expected<IndexFamily> Read() const {
    IndexFamily family;
    auto name = Str("name");
    if (!name) return name.error();
    family.name = *name;
    auto base = Str("base_url");
    if (!base) return base.error();
    family.base_url = *base;
    if (!family.base_url.ends_with('/')) family.base_url.push_back('/');
    auto pattern = Str("backend_pattern");
    if (!pattern) return pattern.error();
    family.compiled = std::make_shared<CompiledPatterns>();
    try {
      family.compiled->backend = std::regex(*pattern, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      return r_.Fail(at_ + "/backend_pattern", std::string("not a valid regular expression: ") + e.what());
    }
    family.backend_pattern = *pattern;
    if (Failure e = Strings("hosts", &family.hosts)) return *e;
    if (Failure e = Strings("not_projects", &family.not_projects)) return *e;
    if (Failure e = Strings("discovery_projects", &family.discovery_projects)) return *e;
    if (f_.contains("primary_project")) {
      auto primary = Str("primary_project");
      if (!primary) return primary.error();
      family.primary_project = core::NormalizeName(*primary);
    } else if (!family.discovery_projects.empty()) {
      family.primary_project = core::NormalizeName(family.discovery_projects.front());
    }
    if (Failure e = ReadRoutedProjects(family)) return *e;
    if (Failure e = ReadChannels(family)) return *e;
    if (Failure e = ReadLegacyPatterns(family)) return *e;
    return family;
  }

 private:
  core::Expected<std::string> Str(const char* key) const {
    if (FirstMissingString(f_, {key}) != nullptr) return r_.Fail(at_ + "/" + key, "expected a non-empty string");
    return f_[key].get<std::string>();
  }

  Failure Strings(const char* key, std::vector<std::string>* out) const {
    if (!f_.contains(key)) return std::nullopt;
    if (!f_[key].is_array()) return r_.Fail(at_ + "/" + key, "expected an array of strings");
    for (std::size_t k = 0; k < f_[key].size(); ++k) {
      if (!f_[key][k].is_string()) return r_.Fail(at_ + "/" + key + "/" + std::to_string(k), "expected a string");
      out->push_back(f_[key][k].get<std::string>());
    }
    return std::nullopt;
  }

  Failure ReadRoutedProjects(IndexFamily& family) const {
    if (!f_.contains("routed_projects")) return std::nullopt;
    if (!f_["routed_projects"].is_array()) return r_.Fail(at_ + "/routed_projects", "expected an array");
    for (std::size_t k = 0; k < f_["routed_projects"].size(); ++k) {
      const json& p = f_["routed_projects"][k];
      const std::string pat = at_ + "/routed_projects/" + std::to_string(k);
      if (const char* missing = FirstMissingString(p, {"name", "reason", "source"})) {
        return r_.Fail(pat + "/" + missing, "expected a non-empty string");
      }
      RoutedProject routed;
      routed.name = core::NormalizeName(p["name"].get<std::string>());
      routed.reason = p["reason"].get<std::string>();
      routed.source = p["source"].get<std::string>();
      for (const RoutedProject& seen : family.routed_projects) {
        if (seen.name == routed.name) return r_.Fail(pat + "/name", "'" + routed.name + "' is listed twice");
      }
      family.routed_projects.push_back(std::move(routed));
    }
    return std::nullopt;
  }

  Failure ReadChannels(IndexFamily& family) const {
    if (!f_.contains("channels") || !f_["channels"].is_array() || f_["channels"].empty()) {
      return r_.Fail(at_ + "/channels", "expected a non-empty array of channels");
    }
    for (std::size_t k = 0; k < f_["channels"].size(); ++k) {
      const json& c = f_["channels"][k];
      const std::string cat = at_ + "/channels/" + std::to_string(k);
      if (!c.is_object() || !c.contains("name") || !c["name"].is_string() || !c.contains("path") ||
          !c["path"].is_string()) {
        return r_.Fail(cat, "expected {\"name\": string, \"path\": string}");
      }
      Channel channel{c["name"].get<std::string>(), c["path"].get<std::string>()};
      if (!channel.path.empty() && !channel.path.ends_with('/')) channel.path.push_back('/');
      if (c.contains("variant_indexes")) {
        if (Failure e = ReadVariantIndexes(c["variant_indexes"], cat + "/variant_indexes", channel)) return e;
      }
      if (family.FindChannel(channel.name) != nullptr) {
        return r_.Fail(cat + "/name", "duplicate channel '" + channel.name + "'");
      }
      family.channels.push_back(std::move(channel));
    }
    return std::nullopt;
  }

  Failure ReadVariantIndexes(const json& list, const std::string& at, Channel& channel) const {
    if (!list.is_array()) return r_.Fail(at, "expected an array");
    for (std::size_t v = 0; v < list.size(); ++v) {
      const json& e = list[v];
      const std::string vat = at + "/" + std::to_string(v);
      if (const char* missing = FirstMissingString(e, {"name", "path", "reason", "source"})) {
        return r_.Fail(vat + "/" + missing, "expected a non-empty string");
      }
      VariantIndex index{e["name"].get<std::string>(), e["path"].get<std::string>(), e["reason"].get<std::string>(),
                         e["source"].get<std::string>()};
      if (!index.path.ends_with('/')) index.path.push_back('/');
      // One directory below the channel: the crawler stores it as a backend of that name.
      if (index.path != index.name + "/") {
        return r_.Fail(vat + "/path", "expected \"" + index.name + "/\" (the directory named like the index)");
      }
      if (!core::IsValidName(index.name) || index.name.find('.') != std::string::npos) {
        return r_.Fail(vat + "/name", "'" + index.name + "' is not a directory name of letters, digits, '-' and '_'");
      }
      channel.variant_indexes.push_back(std::move(index));
    }
    return std::nullopt;
  }

  Failure ReadLegacyPatterns(IndexFamily& family) const {
    if (!f_.contains("legacy_patterns")) return std::nullopt;
    if (!f_["legacy_patterns"].is_array()) return r_.Fail(at_ + "/legacy_patterns", "expected an array");
    for (std::size_t k = 0; k < f_["legacy_patterns"].size(); ++k) {
      const json& p = f_["legacy_patterns"][k];
      const std::string pat = at_ + "/legacy_patterns/" + std::to_string(k);
      if (!p.is_object() || !p.contains("pattern") || !p["pattern"].is_string() || !p.contains("reason") ||
          !p["reason"].is_string()) {
        return r_.Fail(pat, "expected {\"pattern\": string, \"reason\": string}");
      }
      LegacyPattern legacy;
      legacy.pattern = p["pattern"].get<std::string>();
      legacy.reason = p["reason"].get<std::string>();
      try {
        family.compiled->legacy.emplace_back(legacy.pattern, std::regex::ECMAScript);
      } catch (const std::regex_error& e) {
        return r_.Fail(pat + "/pattern", std::string("not a valid regular expression: ") + e.what());
      }
      family.legacy_patterns.push_back(std::move(legacy));
    }
    return std::nullopt;
  }

  const Reader& r_;
  const json& f_;
  const std::string at_;
};

}  // namespace

core::Expected<IndexConfig> ParseIndexConfig(std::string_view text, std::string_view origin) {
  const Reader r{origin};
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false, /*ignore_comments=*/true);
  if (doc.is_discarded()) return r.Fail("", "not valid JSON");
  if (!doc.is_object() || !doc.contains("families") || !doc["families"].is_array()) {
    return r.Fail("/families", "expected an array of index families");
  }
  IndexConfig config;
  const json& families = doc["families"];
  for (std::size_t i = 0; i < families.size(); ++i) {
    const std::string at = "/families/" + std::to_string(i);
    core::Expected<IndexFamily> family = FamilyReader(r, families[i], at).Read();
    if (!family) return family.error();
    for (const IndexFamily& seen : config.families) {
      if (seen.name == family->name) return r.Fail(at + "/name", "duplicate family '" + family->name + "'");
    }
    config.families.push_back(std::move(family).value());
  }
  if (config.families.empty()) return r.Fail("/families", "expected at least one index family");
  return config;
}

core::Expected<IndexConfig> LoadIndexConfig(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return core::MakeError(path + ": cannot be read", core::ErrorCode::kBadInputFile);
  std::ostringstream text;
  text << in.rdbuf();
  return ParseIndexConfig(text.str(), path);
}

core::Expected<const IndexFamily*> FindFamily(const IndexConfig& config, std::string_view name,
                                              std::string_view origin) {
  std::vector<std::string> known;
  for (const IndexFamily& f : config.families) {
    if (f.name == name) return &f;
    known.push_back(f.name);
  }
  std::string list;
  for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
  return core::MakeError(std::string(origin) + " has no index family '" + std::string(name) + "'" +
                             core::DidYouMean(std::string(name), known) + "; known families: " + list,
                         core::ErrorCode::kUsage);
}

BackendName DescribeBackend(std::string_view name) {
  auto digits_after = [&](std::size_t from) {
    std::size_t end = from;
    while (end < name.size() && (std::isdigit(static_cast<unsigned char>(name[end])) != 0)) ++end;
    return name.substr(from, end - from);
  };
  BackendName out;
  if (name.starts_with("cu") && name.size() > 2 && std::isdigit(static_cast<unsigned char>(name[2]))) {
    // cuXYZ: the last digit is the minor version (cu118 = 11.8, cu75 = 7.5, cu100 = 10.0).
    const std::string_view digits = digits_after(2);
    out.kind = core::BackendKind::kCuda;
    if (digits.size() >= 2) {
      out.toolkit = std::string(digits.substr(0, digits.size() - 1)) + "." +
                    std::string(digits.substr(digits.size() - 1));
    }
  } else if (name.starts_with("rocm")) {
    out.kind = core::BackendKind::kRocm;
    std::size_t end = 4;
    while (end < name.size() && (std::isdigit(static_cast<unsigned char>(name[end])) != 0 || name[end] == '.')) ++end;
    out.toolkit = std::string(name.substr(4, end - 4));
  } else if (name.starts_with("cpu")) {
    out.kind = core::BackendKind::kCpu;
  } else if (name.starts_with("xpu")) {
    out.kind = core::BackendKind::kXpu;
  }
  return out;
}

}  // namespace torchdex::catalogue
