#include "installer/install/metadata.h"

#include <algorithm>
#include <cctype>

namespace torchdex::installer {
namespace {

std::string_view Trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  return text;
}

bool SameField(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

struct Field {
  std::string name;
  std::string value;
  int line = 0;
};

}  // namespace

core::Expected<CoreMetadata> ParseCoreMetadata(std::string_view text, std::string_view origin) {
  std::vector<Field> fields;
  int line_number = 0;
  size_t position = 0;
  while (position < text.size()) {
    size_t end = text.find('\n', position);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(position, end - position);
    position = end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (Trim(line).empty()) break;  // the body (description) follows
    if (line.front() == ' ' || line.front() == '\t') {
      if (fields.empty()) {
        return core::MakeError(std::string(origin) + " line " + std::to_string(line_number) +
                               ": a continuation line before any field");
      }
      fields.back().value += " ";
      fields.back().value += Trim(line);
      continue;
    }
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) {
      return core::MakeError(std::string(origin) + " line " + std::to_string(line_number) +
                             ": not a \"Field: value\" header: " + std::string(line));
    }
    fields.push_back({std::string(Trim(line.substr(0, colon))),
                      std::string(Trim(line.substr(colon + 1))), line_number});
  }

  CoreMetadata metadata;
  for (const Field& field : fields) {
    if (SameField(field.name, "Name")) {
      metadata.name = field.value;
    } else if (SameField(field.name, "Version")) {
      metadata.version = field.value;
    } else if (SameField(field.name, "Requires-Python")) {
      metadata.requires_python = field.value;
    } else if (SameField(field.name, "Provides-Extra")) {
      metadata.provides_extra.push_back(field.value);
    } else if (SameField(field.name, "Requires-Dist")) {
      core::Expected<core::Requirement> requirement = core::Requirement::Parse(field.value);
      if (!requirement) {
        return core::MakeError(std::string(origin) + " line " + std::to_string(field.line) +
                               ": Requires-Dist \"" + field.value +
                               "\": " + requirement.error().message);
      }
      metadata.requires_dist.push_back(std::move(*requirement));
    }
  }
  if (metadata.name.empty()) {
    return core::MakeError(std::string(origin) + ": no Name field; not core metadata");
  }
  return metadata;
}

}  // namespace torchdex::installer
