// SPDX-License-Identifier: GPL-3.0-or-later
#include "tilescope/remote/protocol.hpp"

#include <algorithm>
#include <array>
#include <initializer_list>

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

[[noreturn]] void refuse(const std::string& message) {
  throw Error(ErrorKind::InvalidArgument, message);
}

}  // namespace

nlohmann::json parseMessage(const std::string& line) {
  nlohmann::json message;
  try {
    // The callback sees every array and object as it opens, so a deep line stops at the limit
    // instead of building the whole tree.
    message = nlohmann::json::parse(
        line, [](int depth, nlohmann::json::parse_event_t event, nlohmann::json&) {
          if ((event == nlohmann::json::parse_event_t::object_start ||
               event == nlohmann::json::parse_event_t::array_start) &&
              depth >= kMaxDepth)
            throw TooDeep{};
          return true;
        });
  } catch (const TooDeep&) {
    throw Error(ErrorKind::InvalidArgument,
                "the line nests deeper than " + std::to_string(kMaxDepth) + " levels");
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
