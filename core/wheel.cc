#include "core/wheel.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "core/name.h"

namespace torchdex::core {
namespace {

constexpr std::string_view kWheelExtension = ".whl";

// Every message starts the same way, so a caller that logs it needs to add nothing.
Error WheelError(std::string_view filename, std::string_view what) {
  std::string message = "invalid wheel filename '";
  message.append(filename);
  message.append("': ");
  message.append(what);
  return MakeError(std::move(message));
}

std::string Quoted(std::string_view text) {
  std::string out = "'";
  out.append(text);
  out.push_back('\'');
  return out;
}

std::vector<std::string_view> Split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  // Sized once: a crawl splits 200,000 filenames, each into 5 parts and 3 tag sets.
  parts.reserve(static_cast<std::size_t>(std::count(text.begin(), text.end(), separator)) + 1);
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(separator, start);
    if (end == std::string_view::npos) {
      parts.push_back(text.substr(start));
      return parts;
    }
    parts.push_back(text.substr(start, end - start));
    start = end + 1;
  }
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAsciiLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// packaging.utils.parse_wheel_filename, which pip uses: the name part is "[\w._]+" without
// "__" (PEP 427's escaping turns every run of '-', '_' and '.' into one '_'). Only ASCII here:
// \w would also take any Unicode letter, which no index serves in a wheel name.
bool IsWheelName(std::string_view name) {
  if (name.empty() || name.find("__") != std::string_view::npos) return false;
  for (char c : name) {
    if (!IsAsciiLetter(c) && !IsDigit(c) && c != '_' && c != '.') return false;
  }
  return true;
}

// packaging 26.3: each interpreter of the python tag must be a Python identifier ("cp312",
// not "3.12"); as above, ASCII only.
bool IsIdentifier(std::string_view text) {
  if (text.empty() || IsDigit(text.front())) return false;
  for (char c : text) {
    if (!IsAsciiLetter(c) && !IsDigit(c) && c != '_') return false;
  }
  return true;
}

// packaging.utils.parse_wheel_filename: the build tag matches (\d+)(.*) and sorts as
// (int, str), so the number must fit in what we compare it as.
Expected<BuildTag> ParseBuildTag(std::string_view filename, std::string_view text) {
  if (text.empty() || !IsDigit(text.front())) {
    return WheelError(filename, "build tag " + Quoted(text) + " must start with a digit");
  }
  BuildTag build;
  std::size_t i = 0;
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  for (; i < text.size() && IsDigit(text[i]); ++i) {
    const auto digit = static_cast<std::uint64_t>(text[i] - '0');
    if (build.number > (kMax - digit) / 10) {
      return WheelError(filename,
                        "build tag " + Quoted(text) + " has a number too large for 64 bits");
    }
    build.number = build.number * 10 + digit;
  }
  build.suffix = std::string(text.substr(i));
  return build;
}

// A tag part is a compressed tag set: '.'-separated alternatives (PEP 425). Lowercased, as
// packaging.tags.Tag lowercases every field, so that tags compare equal to SupportedTags'.
Expected<std::vector<std::string>> ParseTagSet(std::string_view filename, std::string_view what,
                                               std::string_view text) {
  if (text.empty()) return WheelError(filename, std::string(what) + " tag is empty");
  std::vector<std::string> tags;
  const std::vector<std::string_view> elements = Split(text, '.');
  tags.reserve(elements.size());
  for (std::string_view element : elements) {
    if (element.empty()) {
      return WheelError(filename, std::string(what) + " tag " + Quoted(text) +
                                      " has an empty element in its '.'-separated set");
    }
    std::string tag(element);
    for (char& c : tag) {
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    tags.push_back(std::move(tag));
  }
  return tags;
}

// The python, abi and platform parts (`parts`, three) into `wheel`; `context` names the text
// in errors (the filename, or the tag part alone).
Status ReadTagParts(std::string_view context, const std::string_view* parts, WheelFilename& wheel) {
  struct TagPart {
    std::string_view what;
    std::vector<std::string>* out;
  };
  const TagPart tag_parts[] = {
      {"python", &wheel.python_tags}, {"abi", &wheel.abi_tags}, {"platform", &wheel.platform_tags}};
  for (std::size_t i = 0; i < 3; ++i) {
    Expected<std::vector<std::string>> tags = ParseTagSet(context, tag_parts[i].what, parts[i]);
    if (!tags.ok()) return tags.error();
    *tag_parts[i].out = std::move(tags).value();
  }
  for (const std::string& python : wheel.python_tags) {
    if (!IsIdentifier(python)) return WheelError(context, "python tag " + Quoted(python) + " is not an identifier");
  }
  return {};
}

}  // namespace

Expected<std::vector<Tag>> ParseWheelTags(std::string_view spelled) {
  const std::vector<std::string_view> parts = Split(spelled, '-');
  if (parts.size() != 3) {
    return WheelError(spelled, "expected the tags python-abi-platform, found " + std::to_string(parts.size()) +
                                   " '-'-separated parts");
  }
  WheelFilename wheel;
  if (Status ok = ReadTagParts(spelled, parts.data(), wheel); !ok.ok()) return ok.error();
  return wheel.Tags();
}

std::vector<Tag> WheelFilename::Tags() const {
  std::vector<Tag> tags;
  tags.reserve(python_tags.size() * abi_tags.size() * platform_tags.size());
  for (const std::string& python : python_tags) {
    for (const std::string& abi : abi_tags) {
      for (const std::string& platform : platform_tags) {
        tags.push_back(Tag{python, abi, platform});
      }
    }
  }
  return tags;
}

Expected<WheelFilename> ParseWheelFilename(std::string_view filename) {
  // Case-sensitive, as in packaging.utils.parse_wheel_filename.
  if (!filename.ends_with(kWheelExtension)) {
    return WheelError(filename, "missing the '.whl' extension");
  }
  const std::string_view stem = filename.substr(0, filename.size() - kWheelExtension.size());
  // Names and versions in wheel filenames never contain '-' (names escape it as '_', and the
  // normal form of a version has none), so every '-' separates two parts.
  const std::vector<std::string_view> parts = Split(stem, '-');
  if (parts.size() != 5 && parts.size() != 6) {
    return WheelError(filename,
                      "expected 5 or 6 '-'-separated parts "
                      "(name-version[-build]-python-abi-platform), found " +
                          std::to_string(parts.size()));
  }

  WheelFilename wheel;
  const std::string_view name = parts[0];
  if (!IsWheelName(name)) {
    return WheelError(filename, "name " + Quoted(name) +
                                    " is not a wheel's project name (letters, digits, '.' and "
                                    "'_', never two '_' together)");
  }
  wheel.name = NormalizeName(name);

  Expected<Version> version = Version::Parse(parts[1]);
  if (!version.ok()) {
    return WheelError(filename,
                      "version " + Quoted(parts[1]) + " is invalid: " + version.error().message);
  }
  wheel.version = std::move(version).value();

  std::size_t next = 2;
  if (parts.size() == 6) {
    Expected<BuildTag> build = ParseBuildTag(filename, parts[next++]);
    if (!build.ok()) return build.error();
    wheel.build = std::move(build).value();
  }

  if (Status ok = ReadTagParts(filename, parts.data() + next, wheel); !ok.ok()) return ok.error();
  return wheel;
}

}  // namespace torchdex::core
