#include "catalogue/variants.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>

#include "core/text.h"
#include "core/utf8.h"

namespace torchdex::catalogue {

namespace {

using nlohmann::ordered_json;

bool IsName(std::string_view s) {  // namespace or feature: ^[a-z0-9_]+$
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}
bool IsValue(std::string_view s) {  // feature value and label: ^[a-z0-9_.]+$
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
  });
}

std::string Escape(const std::string& key) {  // RFC 6901
  std::string out;
  for (char c : key) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out.push_back(c);
  }
  return out;
}

// A value in a message: one line, at most 60 bytes (core::OneLine).
std::string Visible(std::string_view text) { return core::OneLine(text, 60); }

class Reader {
 public:
  explicit Reader(const std::string& where) : where_(where) {}

  core::Error Fail(const std::string& pointer, const std::string& what) const {
    std::string message = where_;
    message.append(": at ");
    message.append(pointer.empty() ? "the top" : pointer);
    message.append(": ");
    message.append(what);
    return core::MakeError(std::move(message), core::ErrorCode::kBadInputFile);
  }

  // A list of unique strings, each checked by `valid`.
  core::Expected<std::vector<std::string>> Strings(const ordered_json& value,
                                                   const std::string& pointer,
                                                   bool (*valid)(std::string_view),
                                                   const char* pattern, bool allow_empty) const {
    if (!value.is_array()) return Fail(pointer, "expected a list of strings");
    if (value.empty() && !allow_empty) return Fail(pointer, "expected at least one value");
    // Priority lists are searched item by item later: bounded, so the worst file stays cheap.
    if (value.size() > kMaxVariantsJsonListItems) {
      return Fail(pointer, "more than " + std::to_string(kMaxVariantsJsonListItems) + " values in one list");
    }
    std::vector<std::string> out;
    std::set<std::string> seen;
    for (std::size_t i = 0; i < value.size(); ++i) {
      const std::string at = pointer + "/" + std::to_string(i);
      if (!value[i].is_string()) return Fail(at, "expected a string");
      const std::string text = value[i].get<std::string>();
      if (!valid(text)) {
        return Fail(at, "\"" + Visible(text) + "\" does not match " + pattern);
      }
      if (!seen.insert(text).second) return Fail(at, "\"" + text + "\" is given twice");
      out.push_back(text);
    }
    return out;
  }

  // namespace -> feature -> [values] (a variant's properties or static-properties).
  core::Expected<VariantProperties> Properties(const ordered_json& value,
                                               const std::string& pointer) const {
    if (!value.is_object()) return Fail(pointer, "expected an object of namespaces");
    VariantProperties out;
    for (const auto& [ns, features] : value.items()) {
      const std::string at = pointer + "/" + Escape(ns);
      if (!IsName(ns)) return Fail(at, "the namespace does not match ^[a-z0-9_]+$");
      if (!features.is_object()) return Fail(at, "expected an object of features");
      VariantNamespace parsed{ns, {}};
      for (const auto& [feature, values] : features.items()) {
        const std::string fat = at + "/" + Escape(feature);
        if (!IsName(feature)) return Fail(fat, "the feature does not match ^[a-z0-9_]+$");
        auto list = Strings(values, fat, IsValue, "^[a-z0-9_.]+$", false);
        if (!list) return list.error();
        parsed.features.push_back({feature, std::move(*list)});
      }
      if (!parsed.features.empty()) out.push_back(std::move(parsed));
    }
    return out;
  }

 private:
  const std::string& where_;
};

const VariantFeature* FindFeature(const std::vector<VariantFeature>& features,
                                  const std::string& name) {
  for (const VariantFeature& f : features) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::size_t IndexOf(const std::vector<std::string>& list, const std::string& item) {
  return static_cast<std::size_t>(std::find(list.begin(), list.end(), item) - list.begin());
}

void AppendMissing(std::vector<std::string>& order, const std::vector<std::string>& more) {
  for (const std::string& item : more) {
    if (std::find(order.begin(), order.end(), item) == order.end()) order.push_back(item);
  }
}

std::string Join(const std::vector<std::string>& items, std::size_t at_most = 8) {
  std::string out;
  for (std::size_t i = 0; i < items.size() && i < at_most; ++i) {
    if (i) out += ", ";
    out += items[i];
  }
  if (items.size() > at_most) out += ", ... (" + std::to_string(items.size()) + ")";
  return out;
}

bool KeyLess(const RankedProperty& a, const RankedProperty& b) {
  if (a.ns_index != b.ns_index) return a.ns_index < b.ns_index;
  if (a.feature_index != b.feature_index) return a.feature_index < b.feature_index;
  return a.value_index < b.value_index;
}
bool KeyEqual(const RankedProperty& a, const RankedProperty& b) {
  return !KeyLess(a, b) && !KeyLess(b, a);
}

// PEP 825 step 7: a before b.
bool VariantBefore(const RankedVariant& a, const RankedVariant& b) {
  const std::size_t common = std::min(a.key.size(), b.key.size());
  for (std::size_t i = 0; i < common; ++i) {
    if (!KeyEqual(a.key[i], b.key[i])) return KeyLess(a.key[i], b.key[i]);
  }
  if (a.key.size() != b.key.size()) return a.key.size() > b.key.size();
  return a.label < b.label;
}

}  // namespace

std::string_view VariantsSchemaName(VariantsSchema schema) {
  return schema == VariantsSchema::kV003 ? "v0.0.3" : "v0.1.1";
}

bool IsVariantLabel(std::string_view label) { return IsValue(label); }

namespace {
struct TooManyKeys {
  std::string pointer;  // of the object
};

// The text as JSON, refusing what nlohmann would take silently: a key given twice (it keeps the
// last), an object of more keys than a variants.json has.
core::Expected<ordered_json> ParseStrictJson(std::string_view text, const std::string& where, const Reader& r) {
  std::vector<std::set<std::string>> keys_at;
  std::vector<std::string> key_path;
  std::optional<std::string> duplicate;
  const ordered_json::parser_callback_t callback = [&](int depth, ordered_json::parse_event_t event,
                                                       ordered_json& parsed) {
    if (event == ordered_json::parse_event_t::object_start) {
      keys_at.emplace_back();
    } else if (event == ordered_json::parse_event_t::object_end) {
      if (!keys_at.empty()) keys_at.pop_back();
    } else if (event == ordered_json::parse_event_t::key) {
      const std::string key = parsed.get<std::string>();
      key_path.resize(static_cast<std::size_t>(std::max(depth - 1, 0)));
      key_path.push_back(key);
      if (!keys_at.empty() && !keys_at.back().insert(key).second && !duplicate) {
        std::string pointer;
        for (const std::string& k : key_path) pointer += "/" + Escape(k);
        duplicate = pointer;
      }
      // ordered_json keeps an object's keys in a vector and looks each new one up in it: an
      // object of 200,000 keys cost a minute (issue 29, item 8). Stopped at the bound instead.
      if (!keys_at.empty() && keys_at.back().size() > kMaxVariantsJsonObjectKeys) {
        std::string pointer;
        for (std::size_t i = 0; i + 1 < key_path.size(); ++i) pointer.append("/").append(Escape(key_path[i]));
        throw TooManyKeys{pointer};
      }
    }
    return true;
  };
  ordered_json doc;
  try {
    doc = ordered_json::parse(text, callback, /*allow_exceptions=*/true);
  } catch (const ordered_json::parse_error& e) {
    const core::TextPosition at = core::PositionBefore(text, e.byte);
    std::string what = e.what();
    if (const std::size_t colon = what.rfind(": "); colon != std::string::npos) what = what.substr(colon + 2);
    return core::MakeError(where + ":" + std::to_string(at.line) + ":" + std::to_string(at.column) +
                               ": not valid JSON: " + what,
                           core::ErrorCode::kBadInputFile);
  } catch (const ordered_json::exception& e) {  // 1e999999 and the like
    return core::MakeError(where + ": not valid JSON: " + std::string(e.what()), core::ErrorCode::kBadInputFile);
  } catch (const TooManyKeys& e) {
    return r.Fail(e.pointer, "more than " + std::to_string(kMaxVariantsJsonObjectKeys) +
                                 " keys in one object (a variants.json has a few labels, namespaces and features)");
  }
  if (duplicate) return r.Fail(*duplicate, "the key is given twice");
  if (!doc.is_object()) return r.Fail("", "expected an object");
  return doc;
}

// "$schema" says the version; keys this version does not have are refused: a v0.1.1 file with
// `providers` is not what PEP 825 describes, and a typo must not pass silently.
core::Status ReadSchema(const ordered_json& doc, const Reader& r, VariantsJson& file) {
  const auto schema = doc.find("$schema");
  if (schema == doc.end()) {
    return r.Fail("", std::string("no \"$schema\": torchdex reads ") + std::string(kVariantsSchemaV003) + " and " +
                          std::string(kVariantsSchemaV011));
  }
  if (!schema->is_string()) return r.Fail("/$schema", "expected a string");
  const std::string url = schema->get<std::string>();
  if (url == kVariantsSchemaV003) {
    file.schema = VariantsSchema::kV003;
  } else if (url == kVariantsSchemaV011) {
    file.schema = VariantsSchema::kV011;
  } else {
    return r.Fail("/$schema", "unknown schema \"" + Visible(url) + "\": torchdex reads " +
                                  std::string(kVariantsSchemaV003) + " and " + std::string(kVariantsSchemaV011) +
                                  " (PEP 825: a tool must treat an unknown version as unsupported)");
  }
  const bool v003 = file.schema == VariantsSchema::kV003;
  for (const auto& [key, value] : doc.items()) {
    const bool known = key == "$schema" || key == "default-priorities" || key == "variants" ||
                       (v003 && (key == "providers" || key == "static-properties"));
    if (!known) {
      return r.Fail("/" + Escape(key),
                    std::string("not a key of the ") + std::string(VariantsSchemaName(file.schema)) + " schema");
    }
  }
  return {};
}

// v0.0.3's default-priorities.feature: namespace -> [features].
core::Status ReadFeaturePriorities(const ordered_json& features, const Reader& r, VariantsJson& file) {
  if (!features.is_object()) return r.Fail("/default-priorities/feature", "expected an object");
  for (const auto& [ns, list] : features.items()) {
    const std::string at = "/default-priorities/feature/" + Escape(ns);
    if (!IsName(ns)) return r.Fail(at, "the namespace does not match ^[a-z0-9_]+$");
    auto names = r.Strings(list, at, IsName, "^[a-z0-9_]+$", true);
    if (!names) return names.error();
    file.feature_priorities[ns] = std::move(*names);
  }
  return {};
}

// v0.0.3's default-priorities.property: namespace -> feature -> [values].
core::Status ReadPropertyPriorities(const ordered_json& properties, const Reader& r, VariantsJson& file) {
  if (!properties.is_object()) return r.Fail("/default-priorities/property", "expected an object");
  for (const auto& [ns, features] : properties.items()) {
    const std::string at = "/default-priorities/property/" + Escape(ns);
    if (!IsName(ns)) return r.Fail(at, "the namespace does not match ^[a-z0-9_]+$");
    if (!features.is_object()) return r.Fail(at, "expected an object of features");
    for (const auto& [feature, list] : features.items()) {
      const std::string fat = at + "/" + Escape(feature);
      if (!IsName(feature)) return r.Fail(fat, "the feature does not match ^[a-z0-9_]+$");
      auto values = r.Strings(list, fat, IsValue, "^[a-z0-9_.]+$", true);
      if (!values) return values.error();
      file.property_priorities[ns][feature] = std::move(*values);
    }
  }
  return {};
}

core::Status ReadPriorities(const ordered_json& doc, const Reader& r, VariantsJson& file) {
  const bool v003 = file.schema == VariantsSchema::kV003;
  const auto priorities = doc.find("default-priorities");
  if (priorities == doc.end()) return r.Fail("", "no \"default-priorities\"");
  if (!priorities->is_object()) return r.Fail("/default-priorities", "expected an object");
  for (const auto& [key, value] : priorities->items()) {
    if (key != "namespace" && !(v003 && (key == "feature" || key == "property"))) {
      return r.Fail("/default-priorities/" + Escape(key),
                    std::string("not a key of the ") + std::string(VariantsSchemaName(file.schema)) + " schema");
    }
  }
  const auto namespaces = priorities->find("namespace");
  if (namespaces == priorities->end()) return r.Fail("/default-priorities", "no \"namespace\"");
  auto order = r.Strings(*namespaces, "/default-priorities/namespace", IsName, "^[a-z0-9_]+$", false);
  if (!order) return order.error();
  file.namespace_priorities = std::move(*order);
  if (const auto features = priorities->find("feature"); features != priorities->end()) {
    if (core::Status ok = ReadFeaturePriorities(*features, r, file); !ok) return ok;
  }
  if (const auto properties = priorities->find("property"); properties != priorities->end()) {
    if (core::Status ok = ReadPropertyPriorities(*properties, r, file); !ok) return ok;
  }
  return {};
}

// v0.0.3's providers and static-properties.
core::Status ReadProviders(const ordered_json& doc, const Reader& r, VariantsJson& file) {
  if (const auto providers = doc.find("providers"); providers != doc.end()) {
    if (!providers->is_object()) return r.Fail("/providers", "expected an object");
    for (const auto& [ns, provider] : providers->items()) {
      const std::string at = "/providers/" + Escape(ns);
      if (!IsName(ns)) return r.Fail(at, "the namespace does not match ^[a-z0-9_]+$");
      if (!provider.is_object()) return r.Fail(at, "expected an object");
      std::string api;
      if (const auto p = provider.find("plugin-api"); p != provider.end()) {
        if (!p->is_string()) return r.Fail(at + "/plugin-api", "expected a string");
        api = p->get<std::string>();
      }
      file.providers[ns] = api;
    }
  }
  if (const auto statics = doc.find("static-properties"); statics != doc.end()) {
    auto parsed = r.Properties(*statics, "/static-properties");
    if (!parsed) return parsed.error();
    file.static_properties = std::move(*parsed);
  }
  return {};
}

// The variants, label -> properties, every namespace one of default-priorities.namespace.
core::Status ReadVariantLabels(const ordered_json& doc, const Reader& r, VariantsJson& file) {
  const bool v003 = file.schema == VariantsSchema::kV003;
  const auto known_namespace = [&](const std::string& ns) {
    return std::find(file.namespace_priorities.begin(), file.namespace_priorities.end(), ns) !=
           file.namespace_priorities.end();
  };
  const auto variants = doc.find("variants");
  if (variants == doc.end()) return r.Fail("", "no \"variants\"");
  if (!variants->is_object()) return r.Fail("/variants", "expected an object of labels");
  for (const auto& [label, properties] : variants->items()) {
    const std::string at = "/variants/" + Escape(label);
    if (!IsValue(label)) return r.Fail(at, "the label does not match ^[0-9a-z_.]+$");
    if (v003 && label.size() > 16) return r.Fail(at, "the label is longer than the 16 characters of the v0.0.3 schema");
    auto parsed = r.Properties(properties, at);
    if (!parsed) return parsed.error();
    if (label == "null" && !parsed->empty()) return r.Fail(at, "the null variant must have no properties");
    for (const VariantNamespace& ns : *parsed) {
      if (!known_namespace(ns.name)) {
        return r.Fail(at + "/" + Escape(ns.name), "the namespace is not in /default-priorities/namespace (" +
                                                      Join(file.namespace_priorities) + ")");
      }
    }
    file.variants[label] = std::move(*parsed);
  }
  for (const VariantNamespace& ns : file.static_properties) {
    if (!known_namespace(ns.name)) {
      return r.Fail("/static-properties/" + Escape(ns.name), "the namespace is not in /default-priorities/namespace");
    }
  }
  return {};
}

}  // namespace

core::Expected<VariantsJson> ParseVariantsJson(std::string_view text, const std::string& where) {
  const Reader r(where);
  if (text.size() > kMaxVariantsJsonBytes) {
    return core::MakeError(where + ": " + std::to_string(text.size()) + " bytes, more than the " +
                               std::to_string(kMaxVariantsJsonBytes >> 20) + " MiB a variants.json may have",
                           core::ErrorCode::kBadInputFile);
  }
  core::Expected<ordered_json> doc = ParseStrictJson(text, where, r);
  if (!doc) return doc.error();
  VariantsJson file;
  for (core::Status (*step)(const ordered_json&, const Reader&, VariantsJson&) :
       {&ReadSchema, &ReadPriorities, &ReadProviders, &ReadVariantLabels}) {
    if (core::Status ok = step(*doc, r, file); !ok) return ok.error();
  }
  return file;
}

std::string VariantsJsonToString(const VariantsJson& file) {
  ordered_json doc;
  doc["$schema"] = file.schema == VariantsSchema::kV003 ? kVariantsSchemaV003 : kVariantsSchemaV011;
  doc["default-priorities"]["namespace"] = file.namespace_priorities;
  for (const auto& [ns, list] : file.feature_priorities) {
    doc["default-priorities"]["feature"][ns] = list;
  }
  for (const auto& [ns, features] : file.property_priorities) {
    for (const auto& [feature, list] : features) {
      doc["default-priorities"]["property"][ns][feature] = list;
    }
  }
  auto properties = [](const VariantProperties& props) {
    ordered_json out = ordered_json::object();
    for (const VariantNamespace& ns : props) {
      for (const VariantFeature& f : ns.features) out[ns.name][f.name] = f.values;
    }
    return out;
  };
  if (!file.providers.empty()) {
    for (const auto& [ns, api] : file.providers) {
      doc["providers"][ns] = ordered_json::object();
      if (!api.empty()) doc["providers"][ns]["plugin-api"] = api;
    }
  }
  if (!file.static_properties.empty())
    doc["static-properties"] = properties(file.static_properties);
  doc["variants"] = ordered_json::object();
  for (const auto& [label, props] : file.variants) doc["variants"][label] = properties(props);
  return doc.dump(-1, ' ', false, ordered_json::error_handler_t::replace);
}

std::optional<VariantWheelName> SplitVariantLabel(std::string_view filename) {
  if (filename.size() < 4 || filename.substr(filename.size() - 4) != ".whl") return std::nullopt;
  const std::string_view stem = filename.substr(0, filename.size() - 4);
  const std::size_t count = static_cast<std::size_t>(std::count(stem.begin(), stem.end(), '-'));
  // name-version-py-abi-plat is 4 dashes, with a build tag 5; a label adds one. Six dashes is a
  // build tag and a label; five is a label unless the third part is a build tag (a digit first).
  if (count < 5 || count > 6) return std::nullopt;
  if (count == 5) {
    const std::size_t first = stem.find('-');
    const std::size_t second = stem.find('-', first + 1);
    const char c = second + 1 < stem.size() ? stem[second + 1] : '\0';
    if (c >= '0' && c <= '9') return std::nullopt;  // a build tag: a plain wheel
  }
  const std::size_t last = stem.rfind('-');
  const std::string_view label = stem.substr(last + 1);
  if (!IsValue(label)) return std::nullopt;
  VariantWheelName out;
  out.plain_filename = std::string(stem.substr(0, last)) + ".whl";
  out.label = std::string(label);
  return out;
}

std::string VariantsJsonFilename(std::string_view wheel_name, std::string_view version) {
  std::string out(wheel_name);
  out.push_back('-');
  out.append(version);
  out.append("-variants.json");
  return out;
}

std::string VariantsJsonFilenameOf(std::string_view wheel_filename) {
  const std::size_t first = wheel_filename.find('-');
  const std::size_t second = wheel_filename.find('-', first + 1);
  return VariantsJsonFilename(wheel_filename.substr(0, first), wheel_filename.substr(first + 1, second - first - 1));
}

core::Status CheckWheelLabels(const VariantsJson& file, const std::vector<std::string>& labels,
                              const std::string& where) {
  std::vector<std::string> missing;
  for (const std::string& label : labels) {
    if (!file.variants.count(label) &&
        std::find(missing.begin(), missing.end(), label) == missing.end()) {
      missing.push_back(label);
    }
  }
  if (missing.empty()) return {};
  std::vector<std::string> has;
  for (const auto& [label, props] : file.variants) has.push_back(label);
  return core::MakeError(where + ": the wheels' variant label" + (missing.size() > 1 ? "s " : " ") +
                             Join(missing) + (missing.size() > 1 ? " are" : " is") +
                             " not in the file (it has " + Join(has, 16) +
                             "); PEP 825: such wheels are incompatible",
                         core::ErrorCode::kBadInputFile);
}

namespace {

// What is supported: the host's namespaces, then static-properties for those it lacks.
class Supported {
 public:
  Supported(const VariantsJson& file, const SupportedProperties& host) {
    for (const VariantNamespace& ns : file.static_properties) {
      const bool detected =
          std::any_of(host.begin(), host.end(), [&](const SupportedNamespace& h) { return h.name == ns.name; });
      if (!detected) statics_.push_back({ns.name, "static-properties", ns.features});
    }
    for (const SupportedNamespace& ns : host) all_.push_back(&ns);
    for (const SupportedNamespace& ns : statics_) all_.push_back(&ns);
  }
  Supported(const Supported&) = delete;
  Supported& operator=(const Supported&) = delete;

  const SupportedNamespace* Find(const std::string& name) const {
    for (const SupportedNamespace* ns : all_) {
      if (ns->name == name) return ns;
    }
    return nullptr;
  }

 private:
  std::vector<SupportedNamespace> statics_;
  std::vector<const SupportedNamespace*> all_;
};

// PEP 825 steps 1-3: the orders of namespaces, features and values.
struct Orders {
  const std::vector<std::string>& namespaces;
  std::map<std::string, std::vector<std::string>> features;
  std::map<std::string, std::map<std::string, std::vector<std::string>>> values;
};

Orders OrdersOf(const VariantsJson& file, const Supported& supported) {
  Orders orders{file.namespace_priorities, {}, {}};
  for (const std::string& ns : orders.namespaces) {
    std::vector<std::string>& features = orders.features[ns];
    if (auto it = file.feature_priorities.find(ns); it != file.feature_priorities.end()) features = it->second;
    const SupportedNamespace* s = supported.Find(ns);
    if (s != nullptr) {
      std::vector<std::string> names;
      for (const VariantFeature& f : s->features) names.push_back(f.name);
      AppendMissing(features, names);
    }
    for (const std::string& feature : features) {
      std::vector<std::string>& values = orders.values[ns][feature];
      if (auto it = file.property_priorities.find(ns); it != file.property_priorities.end()) {
        if (auto jt = it->second.find(feature); jt != it->second.end()) values = jt->second;
      }
      if (s != nullptr) {
        if (const VariantFeature* f = FindFeature(s->features, feature)) AppendMissing(values, f->values);
      }
    }
  }
  return orders;
}

// Step 4: the best value of the feature: the first of the value order the variant has and the
// host supports.
std::optional<RankedProperty> BestValue(const VariantNamespace& ns, const VariantFeature& feature,
                                        const VariantFeature& offered, Orders& orders) {
  const std::vector<std::string>& values = orders.values[ns.name][feature.name];
  for (std::size_t i = 0; i < values.size(); ++i) {
    const bool in_variant = std::find(feature.values.begin(), feature.values.end(), values[i]) != feature.values.end();
    const bool on_host = std::find(offered.values.begin(), offered.values.end(), values[i]) != offered.values.end();
    if (in_variant && on_host) {
      return RankedProperty{ns.name, feature.name, values[i], IndexOf(orders.namespaces, ns.name),
                            IndexOf(orders.features[ns.name], feature.name), i};
    }
  }
  return std::nullopt;
}

std::string IncompatibleBecause(const VariantNamespace& ns, const VariantFeature& feature,
                                const SupportedNamespace* s, const VariantFeature* offered) {
  std::string because = ns.name + " :: " + feature.name + ": ";
  if (s == nullptr) return because + "no provider on this host supports the " + ns.name + " namespace";
  if (offered == nullptr) return because + "this host's " + ns.name + " provider reports no " + feature.name;
  return because + "none of " + Join(feature.values) + " is supported (this host: " + Join(offered->values) + ")";
}

// One variant: compatible with its key (steps 4-6), or why not (its first feature the host
// does not support).
RankedVariant RankOne(const std::string& label, const VariantProperties& props, const Supported& supported,
                      Orders& orders) {
  RankedVariant ranked;
  ranked.label = label;
  ranked.compatible = true;
  for (const VariantNamespace& ns : props) {
    const SupportedNamespace* s = supported.Find(ns.name);
    for (const VariantFeature& feature : ns.features) {
      const VariantFeature* offered = s ? FindFeature(s->features, feature.name) : nullptr;
      std::optional<RankedProperty> best = offered != nullptr ? BestValue(ns, feature, *offered, orders) : std::nullopt;
      if (!best) {
        if (ranked.compatible) ranked.incompatible_because = IncompatibleBecause(ns, feature, s, offered);
        ranked.compatible = false;
        continue;
      }
      ranked.key.push_back(*best);
    }
  }
  std::sort(ranked.key.begin(), ranked.key.end(), KeyLess);
  return ranked;
}

}  // namespace

std::vector<RankedVariant> RankVariants(const VariantsJson& file, const SupportedProperties& host) {
  const Supported supported(file, host);
  Orders orders = OrdersOf(file, supported);
  std::vector<RankedVariant> compatible, incompatible;
  for (const auto& [label, props] : file.variants) {
    RankedVariant ranked = RankOne(label, props, supported, orders);
    (ranked.compatible ? compatible : incompatible).push_back(std::move(ranked));
  }
  // Step 7 (the null variant has an empty key, so it sorts after every variant with one).
  std::stable_sort(compatible.begin(), compatible.end(), VariantBefore);
  compatible.insert(compatible.end(), incompatible.begin(), incompatible.end());
  return compatible;
}

std::string DecidingProperty(const RankedVariant& winner, const RankedVariant* runner_up) {
  if (runner_up == nullptr || !runner_up->compatible) {
    if (winner.key.empty()) return "the only compatible variant (no properties: the fallback)";
    return "the only compatible variant (" + winner.key.front().ToString() + ")";
  }
  const std::size_t common = std::min(winner.key.size(), runner_up->key.size());
  for (std::size_t i = 0; i < common; ++i) {
    if (!KeyEqual(winner.key[i], runner_up->key[i])) {
      return winner.key[i].ToString() + " (before " + runner_up->label + "'s " +
             runner_up->key[i].ToString() + ")";
    }
  }
  if (winner.key.size() != runner_up->key.size()) {
    return winner.key[common].ToString() + " (a property " + runner_up->label + " lacks)";
  }
  return "label order (same properties as " + runner_up->label + ")";
}

}  // namespace torchdex::catalogue
