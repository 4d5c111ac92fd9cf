// SPDX-License-Identifier: GPL-3.0-or-later
#include "tilescope/remote/protocol.hpp"

#include <algorithm>
#include <array>
#include <initializer_list>
#include <set>
#include <vector>

namespace tilescope::remote {

namespace {

constexpr std::array kKinds = {
    std::pair{ErrorKind::InvalidArgument, "invalid-argument"},
    std::pair{ErrorKind::Unsupported, "unsupported"},
    std::pair{ErrorKind::Unavailable, "unavailable"},
    std::pair{ErrorKind::OutOfMemory, "out-of-memory"},
    std::pair{ErrorKind::LaunchFailed, "launch-failed"},
    std::pair{ErrorKind::DeviceLost, "device-lost"},
    std::pair{ErrorKind::Cancelled, "cancelled"},
};

struct TooDeep {};
struct DuplicateKey {
  std::string key;
};

// The members each verb takes.
struct VerbMembers {
  const char* verb;
  std::initializer_list<const char*> members;
};
const VerbMembers kVerbs[] = {
    {"hello", {"verb", "id", "protocol"}},
    {"run", {"verb", "id", "backend", "request"}},
    {"ceilings", {"verb", "id", "backend", "device"}},
    {"autotune", {"verb", "id", "backend", "request"}},
    {"trace", {"verb", "id", "backend", "request", "block"}},
    {"bye", {"verb", "id"}},
};

}  // namespace

void unavailable(const std::string& message) {
  throw Error(ErrorKind::Unavailable, message);
}

void refuse(const std::string& message) {
  throw Error(ErrorKind::InvalidArgument, message);
}

nlohmann::json parseMessage(const std::string& line) {
  nlohmann::json message;
  // The keys of each object open at the moment, to refuse one given twice (the parser would keep
  // the last: {"verb":"hello","verb":"bye"} would say bye).
  std::vector<std::set<std::string>> openObjects;
  try {
    // The callback sees every array and object as it opens, so a deep line stops at the limit
    // instead of building the whole tree.
    message = nlohmann::json::parse(
        line,
        [&openObjects](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
          using Event = nlohmann::json::parse_event_t;
          if ((event == Event::object_start || event == Event::array_start) && depth >= kMaxDepth)
            throw TooDeep{};
          if (event == Event::object_start) openObjects.emplace_back();
          if (event == Event::object_end) openObjects.pop_back();
          if (event == Event::key && !openObjects.back().insert(parsed.get<std::string>()).second)
            throw DuplicateKey{parsed.get<std::string>()};
          return true;
        });
  } catch (const TooDeep&) {
    throw Error(ErrorKind::InvalidArgument,
                "the line nests deeper than " + std::to_string(kMaxDepth) + " levels");
  } catch (const DuplicateKey& duplicate) {
    throw Error(ErrorKind::InvalidArgument,
                "the line gives the key '" + duplicate.key + "' twice in one object");
  } catch (const nlohmann::json::exception& e) {
    throw Error(ErrorKind::InvalidArgument, std::string("the line is not JSON: ") + e.what());
  }
  if (!message.is_object())
    throw Error(ErrorKind::InvalidArgument, "the line is not a JSON object");
  return message;
}

std::string formatMessage(const nlohmann::json& message) {
  return message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + '\n';
}

nlohmann::json idOf(const nlohmann::json& message) {
  const auto id = message.find("id");
  if (id == message.end()) return nullptr;
  if (id->is_number() || id->is_string() || id->is_null()) return *id;
  return nullptr;
}

const std::string& stringMember(const nlohmann::json& message, const char* name) {
  const auto it = message.find(name);
  if (it == message.end()) refuse(std::string("the message has no '") + name + "'");
  if (!it->is_string()) refuse(std::string("'") + name + "' is not a string");
  return it->get_ref<const std::string&>();
}

std::string checkedVerb(const nlohmann::json& message) {
  if (const auto id = message.find("id");
      id != message.end() && !(id->is_number() || id->is_string() || id->is_null()))
    refuse("'id' is not a number, a string or null");
  const std::string& verb = stringMember(message, "verb");
  const auto known = std::find_if(std::begin(kVerbs), std::end(kVerbs),
                                  [&](const VerbMembers& v) { return verb == v.verb; });
  if (known == std::end(kVerbs))
    refuse("unknown verb '" + verb + "' (hello, run, ceilings, autotune, trace, cancel or bye)");
  for (const auto& [name, value] : message.items()) {
    if (std::none_of(known->members.begin(), known->members.end(),
                     [&name = name](const char* member) { return name == member; }))
      refuse("unknown member '" + name + "' in a '" + verb + "' message");
  }
  return verb;
}

std::string kindName(ErrorKind kind) {
  for (const auto& [known, name] : kKinds)
    if (known == kind) return name;
  return "invalid-argument";
}

std::optional<ErrorKind> kindFromName(const std::string& name) {
  for (const auto& [kind, known] : kKinds)
    if (known == name) return kind;
  return std::nullopt;
}

}  // namespace tilescope::remote
