#include "codegen/located.h"

#include <algorithm>
#include <cstdio>

#include "core/sha256.h"

namespace torchdex::codegen::detail {

[[noreturn]] void Fail(std::string pointer, std::string message) {
  throw LocatedError{std::move(pointer), std::move(message), ""};
}

[[noreturn]] void FailIn(std::string_view file, std::string pointer, std::string message) {
  throw LocatedError{std::move(pointer), std::move(message), std::string(file)};
}

std::string Child(const std::string& pointer, std::string_view key) {
  std::string out = pointer + "/";
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}
std::string Child(const std::string& pointer, size_t index) {
  return pointer + "/" + std::to_string(index);
}

const json& Require(const json& object, const std::string& pointer, const char* key) {
  if (!object.is_object()) Fail(pointer, "expected an object");
  auto it = object.find(key);
  if (it == object.end()) Fail(Child(pointer, key), std::string("missing \"") + key + "\"");
  return *it;
}

const json& RequireArray(const json& object, const std::string& pointer, const char* key) {
  const json& value = Require(object, pointer, key);
  if (!value.is_array()) Fail(Child(pointer, key), "expected an array");
  return value;
}

std::string RequireString(const json& object, const std::string& pointer, const char* key) {
  const json& value = Require(object, pointer, key);
  if (!value.is_string() || value.get_ref<const std::string&>().empty()) {
    Fail(Child(pointer, key), "expected a non-empty string");
  }
  return value.get<std::string>();
}

bool RequireBool(const json& object, const std::string& pointer, const char* key) {
  const json& value = Require(object, pointer, key);
  if (!value.is_boolean()) Fail(Child(pointer, key), "expected true or false");
  return value.get<bool>();
}

bool OptionalBool(const json& object, const std::string& pointer, const char* key) {
  auto it = object.find(key);
  if (it == object.end()) return false;
  if (!it->is_boolean()) Fail(Child(pointer, key), "expected true or false");
  return it->get<bool>();
}

// The top-level "sources": [{"id": ...}, ...] of a data file; rows cite them by id.
std::set<std::string> ReadSourceIds(const json& document) {
  std::set<std::string> ids;
  const json& sources = RequireArray(document, "", "sources");
  for (size_t i = 0; i < sources.size(); ++i) {
    std::string id = RequireString(sources[i], Child("/sources", i), "id");
    if (!ids.insert(id).second) Fail(Child(Child("/sources", i), "id"), "duplicate source id");
  }
  return ids;
}

// Every row carries "source": a non-empty list of source ids, each optionally followed by
// ":detail" ("linux-pciids:INTEL_DG2_IDS").
void RequireSource(const json& row, const std::string& pointer, const std::set<std::string>& ids) {
  auto it = row.find("source");
  if (it == row.end()) Fail(Child(pointer, "source"), "missing \"source\": every row cites one");
  if (!it->is_array() || it->empty()) {
    Fail(Child(pointer, "source"), "expected a non-empty array of source ids");
  }
  for (size_t i = 0; i < it->size(); ++i) {
    const json& entry = (*it)[i];
    if (!entry.is_string()) Fail(Child(Child(pointer, "source"), i), "expected a source id");
    const std::string& text = entry.get_ref<const std::string&>();
    const std::string id = text.substr(0, text.find(':'));
    if (!ids.contains(id)) {
      Fail(Child(Child(pointer, "source"), i),
           "unknown source id \"" + id + "\" (not in /sources)");
    }
  }
}

// Dotted decimal numbers: "8.6", "550.54.14". `parts` bounds how many components are allowed.
std::vector<unsigned> ParseDotted(const std::string& text, const std::string& pointer,
                                  size_t min_parts, size_t max_parts, const char* what) {
  std::vector<unsigned> numbers;
  size_t start = 0;
  while (true) {
    size_t end = text.find('.', start);
    std::string part = text.substr(start, end == std::string::npos ? end : end - start);
    if (part.empty() || part.size() > 6 ||
        !std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      numbers.clear();
      break;
    }
    numbers.push_back(static_cast<unsigned>(std::stoul(part)));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  if (numbers.size() < min_parts || numbers.size() > max_parts) {
    Fail(pointer, std::string("bad ") + what + " \"" + text + "\"");
  }
  return numbers;
}

// A C++ string literal: printable ASCII as is, the rest as octal escapes (never hex: a hex
// escape would swallow a following hex digit).
std::string Literal(std::string_view text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\%03o", c);
      out += buffer;
    }
  }
  return out + "\"";
}

std::string ChunkedLiteral(std::string_view text) {
  constexpr std::size_t kChunk = 96;
  std::string out;
  for (std::size_t at = 0; at < text.size() || at == 0; at += kChunk) {
    out += "\n    ";
    out += Literal(text.substr(at, kChunk));
  }
  return out;
}

std::string Banner(std::span<const InputFile> inputs, bool markdown) {
  std::string text = markdown ? "<!-- generated by torchdex-codegen from "
                              : "// generated by torchdex-codegen from ";
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (i > 0) text += markdown ? ",\n     " : ",\n//   ";
    text += std::string(inputs[i].path) + " sha256=" + core::Sha256Hex(inputs[i].text);
  }
  return text + (markdown ? "; do not edit -->\n" : "; do not edit\n");
}

json ParseDocument(std::string_view data_text) {
  json document = json::parse(data_text, nullptr, /*allow_exceptions=*/false);
  if (document.is_discarded()) Fail("", "not valid JSON");
  if (!document.is_object()) Fail("", "expected a JSON object at the top level");
  return document;
}

}  // namespace torchdex::codegen::detail
