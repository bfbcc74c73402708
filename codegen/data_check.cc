// CheckDataFile: a data file against its JSON Schema, and its canonical form. The schema
// support is the subset data/schema/*.schema.json use (no dependency beyond nlohmann):
// type (a name or a list), properties, required, additionalProperties (true/false), items,
// enum, pattern (ECMAScript), minItems, minLength, uniqueItems and "$ref": "#/$defs/NAME".
// Anything else in a schema is an error, so a schema cannot silently ask for more than is checked.
#include <regex>
#include <set>
#include <string>

#include "codegen/located.h"
#include "codegen/tables.h"

namespace torchdex::codegen {
namespace {

using namespace detail;  // NOLINT: the helpers of codegen/located.h

const std::set<std::string>& KnownKeywords() {
  static const std::set<std::string> kKeywords = {
      "$schema",   "$defs",       "title",    "description",
      "type",      "properties",  "required", "additionalProperties",
      "items",     "enum",        "pattern",  "minItems",
      "minLength", "uniqueItems", "$ref"};
  return kKeywords;
}

std::string TypeName(const json& value) {
  switch (value.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::boolean:
      return "boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      return "integer";
    case json::value_t::number_float:
      return "number";
    case json::value_t::string:
      return "string";
    case json::value_t::array:
      return "array";
    case json::value_t::object:
      return "object";
    default:
      return "unknown";
  }
}

bool HasType(const json& value, const std::string& type) {
  const std::string actual = TypeName(value);
  return actual == type || (type == "number" && actual == "integer");
}

class SchemaValidator {
 public:
  SchemaValidator(const json& root, std::string schema_file)
      : root_(root), schema_file_(std::move(schema_file)) {}

  void Validate(const json& value, const json& schema, const std::string& schema_pointer,
                const std::string& pointer) {
    if (!schema.is_object()) FailIn(schema_file_, schema_pointer, "expected a schema object");
    for (const auto& [keyword, unused] : schema.items()) {
      if (!KnownKeywords().contains(keyword)) {
        FailIn(schema_file_, Child(schema_pointer, keyword),
               "keyword not supported by torchdex-codegen's schema check");
      }
    }
    if (auto ref = schema.find("$ref"); ref != schema.end()) {
      const std::string target = ref->get<std::string>();
      if (target.rfind("#/", 0) != 0)
        FailIn(schema_file_, Child(schema_pointer, "$ref"),
               "only local references (#/...) are supported");
      const json::json_pointer where(target.substr(1));
      if (!root_.contains(where))
        FailIn(schema_file_, Child(schema_pointer, "$ref"), "dangling reference " + target);
      Validate(value, root_.at(where), target.substr(1), pointer);
      return;
    }
    if (auto type = schema.find("type"); type != schema.end()) {
      bool ok = false;
      std::string wanted;
      const json types = type->is_array() ? *type : json::array({*type});
      for (const json& name : types) {
        ok = ok || HasType(value, name.get<std::string>());
        wanted += (wanted.empty() ? "" : " or ") + name.get<std::string>();
      }
      if (!ok) Fail(pointer, "expected " + wanted + ", got " + TypeName(value));
    }
    if (auto values = schema.find("enum"); values != schema.end()) {
      if (std::find(values->begin(), values->end(), value) == values->end()) {
        Fail(pointer, "expected one of " + values->dump() + ", got " + value.dump());
      }
    }
    if (value.is_string())
      CheckString(value.get_ref<const std::string&>(), schema, schema_pointer, pointer);
    if (value.is_array()) CheckArray(value, schema, schema_pointer, pointer);
    if (value.is_object()) CheckObject(value, schema, schema_pointer, pointer);
  }

 private:
  void CheckString(const std::string& text, const json& schema, const std::string& schema_pointer,
                   const std::string& pointer) {
    if (auto min = schema.find("minLength");
        min != schema.end() && text.size() < min->get<size_t>()) {
      Fail(pointer, text.empty() ? "expected a non-empty string" : "string too short");
    }
    if (auto pattern = schema.find("pattern"); pattern != schema.end()) {
      const std::string& source = pattern->get_ref<const std::string&>();
      auto [it, inserted] = patterns_.try_emplace(source);
      if (inserted) {
        try {
          it->second = std::regex(source, std::regex::ECMAScript);
        } catch (const std::regex_error&) {
          FailIn(schema_file_, Child(schema_pointer, "pattern"), "not a valid regular expression");
        }
      }
      if (!std::regex_search(text, it->second)) {
        Fail(pointer, "\"" + text + "\" does not match " + source);
      }
    }
  }

  void CheckArray(const json& array, const json& schema, const std::string& schema_pointer,
                  const std::string& pointer) {
    if (auto min = schema.find("minItems");
        min != schema.end() && array.size() < min->get<size_t>()) {
      Fail(pointer, "expected at least " + std::to_string(min->get<size_t>()) + " item(s)");
    }
    if (schema.value("uniqueItems", false)) {
      for (size_t i = 1; i < array.size(); ++i) {
        for (size_t j = 0; j < i; ++j) {
          if (array[i] == array[j]) {
            Fail(Child(pointer, i), "duplicate of " + Child(pointer, j));
          }
        }
      }
    }
    if (auto items = schema.find("items"); items != schema.end()) {
      for (size_t i = 0; i < array.size(); ++i) {
        Validate(array[i], *items, Child(schema_pointer, "items"), Child(pointer, i));
      }
    }
  }

  void CheckObject(const json& object, const json& schema, const std::string& schema_pointer,
                   const std::string& pointer) {
    if (auto required = schema.find("required"); required != schema.end()) {
      for (const json& key : *required) {
        if (!object.contains(key.get<std::string>())) {
          Fail(Child(pointer, key.get<std::string>()),
               "missing \"" + key.get<std::string>() + "\" (required by " + schema_file_ + ")");
        }
      }
    }
    const auto properties = schema.find("properties");
    const bool closed =
        schema.contains("additionalProperties") && schema["additionalProperties"] == false;
    for (const auto& [key, value] : object.items()) {
      if (properties != schema.end() && properties->contains(key)) {
        Validate(value, (*properties)[key], Child(Child(schema_pointer, "properties"), key),
                 Child(pointer, key));
      } else if (closed) {
        Fail(Child(pointer, key), "unexpected key \"" + key + "\" (not in " + schema_file_ + ")");
      }
    }
  }

  const json& root_;
  std::string schema_file_;
  std::map<std::string, std::regex> patterns_;
};

// The first line where `a` and `b` differ, counting from 1.
size_t FirstDifferentLine(std::string_view a, std::string_view b) {
  size_t line = 1;
  for (size_t i = 0; i < a.size() && i < b.size() && a[i] == b[i]; ++i) {
    if (a[i] == '\n') ++line;
  }
  return line;
}

}  // namespace

core::Expected<std::string> CanonicalJson(std::string_view text, std::string_view file) {
  return Located(file, [&]() -> std::string { return ParseDocument(text).dump(1) + "\n"; });
}

core::Status CheckDataFile(const InputFile& data, const InputFile& schema, bool canonical) {
  auto result = Located(data.path, [&]() -> bool {
    json schema_document;
    try {
      schema_document = ParseDocument(schema.text);
    } catch (const LocatedError& error) {
      FailIn(schema.path, error.pointer, error.message);
    }
    const json document = ParseDocument(data.text);
    SchemaValidator(schema_document, std::string(schema.path))
        .Validate(document, schema_document, "", "");
    const std::string canonical_text = document.dump(1) + "\n";
    if (canonical && canonical_text != data.text) {
      Fail("", "not in canonical form from line " +
                   std::to_string(FirstDifferentLine(canonical_text, data.text)) +
                   " (keys sorted, one-space indent, a trailing newline: torchdex-codegen "
                   "--format rewrites it)");
    }
    return true;
  });
  if (!result) return result.error();
  return {};
}

}  // namespace torchdex::codegen
