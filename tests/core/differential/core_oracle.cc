// core's answers for tests/core/differential/differential.py, which asks packaging the same
// questions and compares. One JSON object a line on stdin, one answer a line on stdout, in the
// same order; the kind of each case is its "kind" key (version, order, specifier, marker,
// requirement, wheel, tags). Only core's public API is called, so what is compared is what the
// rest of torchdex sees.
#include <cstdint>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/name.h"
#include "core/requirement.h"
#include "core/sha256.h"
#include "core/specifier.h"
#include "core/tags.h"
#include "core/version.h"
#include "core/wheel.h"

namespace torchdex::core {
namespace {

using nlohmann::json;

json Failure(const Error& error) { return json{{"ok", false}, {"error", error.message}}; }


json AnswerVersion(const json& in) {
  const Expected<Version> v = Version::Parse(in.at("text").get<std::string>());
  if (!v) return Failure(v.error());
  json pre = nullptr;
  if (v->pre()) pre = json::array({PreKindWord(v->pre()->kind), v->pre()->number});
  return json{
      {"ok", true},
      {"normal", v->ToString()},
      {"public", v->Public().ToString()},
      {"base", v->Base().ToString()},
      {"epoch", v->epoch()},
      {"release", v->release()},
      {"pre", pre},
      {"post", v->post() ? json(*v->post()) : json(nullptr)},
      {"dev", v->dev() ? json(*v->dev()) : json(nullptr)},
      {"local", v->HasLocal() ? json(v->LocalString()) : json(nullptr)},
      {"is_prerelease", v->IsPrerelease()},
      {"is_postrelease", v->IsPostrelease()},
      {"is_devrelease", v->IsDevrelease()},
  };
}

json AnswerOrder(const json& in) {
  const Expected<Version> a = Version::Parse(in.at("a").get<std::string>());
  if (!a) return Failure(a.error());
  const Expected<Version> b = Version::Parse(in.at("b").get<std::string>());
  if (!b) return Failure(b.error());
  const auto order = *a <=> *b;
  return json{{"ok", true}, {"cmp", order < 0 ? -1 : (order > 0 ? 1 : 0)}};
}

json AnswerSpecifier(const json& in) {
  const Expected<SpecifierSet> set = SpecifierSet::Parse(in.at("spec").get<std::string>());
  if (!set) return Failure(set.error());
  std::vector<Version> versions;
  for (const json& text : in.at("versions")) {
    Expected<Version> v = Version::Parse(text.get<std::string>());
    if (!v) return Failure(v.error());
    versions.push_back(std::move(v).value());
  }
  json contains = json::array();
  for (const Version& v : versions) {
    contains.push_back(json::array({set->Contains(v, Prereleases::kAllow),
                                    set->Contains(v, Prereleases::kDeny),
                                    set->Contains(v, Prereleases::kDefault)}));
  }
  // Filter keeps the input order and answers versions; the indices are what compares.
  auto filtered = [&](Prereleases prereleases) {
    json indices = json::array();
    const std::vector<Version> kept = set->Filter(versions, prereleases);
    std::size_t next = 0;
    for (std::size_t i = 0; i < versions.size() && next < kept.size(); ++i) {
      // Equal versions (1.0 and 1.0.0) are told apart by their position.
      if ((versions[i] <=> kept[next]) == 0 && versions[i].ToString() == kept[next].ToString()) {
        indices.push_back(i);
        ++next;
      }
    }
    return indices;
  };
  return json{
      {"ok", true},
      {"normal", set->ToString()},
      {"prereleases", set->AllowsPrereleasesByDefault()},
      {"contains", contains},
      {"filter",
       {{"allow", filtered(Prereleases::kAllow)},
        {"deny", filtered(Prereleases::kDeny)},
        {"default", filtered(Prereleases::kDefault)}}},
  };
}

json AnswerMarker(const json& in) {
  const Expected<Marker> marker = Marker::Parse(in.at("text").get<std::string>());
  if (!marker) return Failure(marker.error());
  json results = json::array();
  for (const json& env_json : in.at("environments")) {
    MarkerEnvironment env;
    for (const auto& [key, value] : env_json.items()) env.values[key] = value.get<std::string>();
    for (const json& extra : in.at("extras")) {
      const Expected<bool> value = marker->Evaluate(env, extra.get<std::string>());
      results.push_back(value ? json(*value) : json("error"));
    }
  }
  return json{{"ok", true}, {"normal", marker->ToString()}, {"evaluate", results}};
}

json AnswerRequirement(const json& in) {
  const Expected<Requirement> r = Requirement::Parse(in.at("text").get<std::string>());
  if (!r) return Failure(r.error());
  return json{
      {"ok", true},
      {"name", r->name},
      {"extras", r->extras},
      {"specifier", r->specifiers.ToString()},
      {"url", r->url},
      {"marker", r->marker.ToString()},
      {"str", r->ToString()},
  };
}

json AnswerWheel(const json& in) {
  const Expected<WheelFilename> w = ParseWheelFilename(in.at("filename").get<std::string>());
  if (!w) return Failure(w.error());
  json tags = json::array();
  for (const Tag& tag : w->Tags()) tags.push_back(tag.ToString());
  json build = nullptr;
  if (w->build) build = json::array({w->build->number, w->build->suffix});
  return json{{"ok", true},
              {"name", w->name},
              {"version", w->version.ToString()},
              {"build", build},
              {"tags", tags}};
}

Expected<InterpreterInfo> ReadInterpreter(const json& in) {
  InterpreterInfo info;
  info.implementation = in.at("implementation").get<std::string>();
  info.python_major = in.at("python_major").get<int>();
  info.python_minor = in.at("python_minor").get<int>();
  info.free_threaded = in.value("free_threaded", false);
  info.debug = in.value("debug", false);
  info.pypy_abi = in.value("pypy_abi", "");
  const std::string os = in.at("os").get<std::string>();
  if (os == "linux") {
    info.os = OperatingSystem::kLinux;
  } else if (os == "macos") {
    info.os = OperatingSystem::kMacOS;
  } else if (os == "windows") {
    info.os = OperatingSystem::kWindows;
  } else {
    return MakeError("unknown os '" + os + "'");
  }
  info.arch = in.at("arch").get<std::string>();
  info.libc = in.value("libc", "glibc") == "musl" ? Libc::kMusl : Libc::kGlibc;
  info.libc_major = in.value("libc_major", 2);
  info.libc_minor = in.value("libc_minor", 17);
  info.macos_major = in.value("macos_major", 11);
  info.macos_minor = in.value("macos_minor", 0);
  return info;
}

// A list runs to a thousand tags; its digest travels unless the whole list is asked for.
json AnswerTags(const json& in) {
  const Expected<InterpreterInfo> info = ReadInterpreter(in.at("interpreter"));
  if (!info) return Failure(info.error());
  std::string joined;
  json list = json::array();
  const std::vector<Tag> tags = SupportedTags(*info);
  for (const Tag& tag : tags) {
    joined += tag.ToString();
    joined += '\n';
    if (in.value("full", false)) list.push_back(tag.ToString());
  }
  json out{{"ok", true}, {"count", tags.size()}, {"sha256", Sha256Hex(joined)}};
  if (in.value("full", false)) out["tags"] = list;
  return out;
}

json Answer(const json& in) {
  const std::string kind = in.at("kind").get<std::string>();
  if (kind == "version") return AnswerVersion(in);
  if (kind == "order") return AnswerOrder(in);
  if (kind == "specifier") return AnswerSpecifier(in);
  if (kind == "marker") return AnswerMarker(in);
  if (kind == "requirement") return AnswerRequirement(in);
  if (kind == "wheel") return AnswerWheel(in);
  if (kind == "tags") return AnswerTags(in);
  return Failure(MakeError("core_oracle: unknown kind '" + kind + "'"));
}

}  // namespace
}  // namespace torchdex::core

int main() {
  std::ios::sync_with_stdio(false);
  std::string line;
  std::size_t number = 0;
  while (std::getline(std::cin, line)) {
    ++number;
    nlohmann::json in;
    try {
      in = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception& e) {
      std::cerr << "core_oracle: line " << number << ": not JSON: " << e.what() << "\n";
      return 2;
    }
    try {
      std::cout << torchdex::core::Answer(in).dump(-1, ' ', false,
                                                   nlohmann::json::error_handler_t::replace)
                << "\n";
    } catch (const nlohmann::json::exception& e) {
      std::cerr << "core_oracle: line " << number << ": " << e.what() << "\n";
      return 2;
    }
  }
  std::cout.flush();
  return 0;
}
