// SPDX-License-Identifier: GPL-3.0-or-later
#include "tilescope/remote/replies.hpp"

#include "tilescope/io/json_fields.hpp"
#include "tilescope/remote/protocol.hpp"
#include "tilescope/report/report.hpp"

namespace tilescope::remote {
namespace {

using nlohmann::json;

// "'backends[0].id' is 7, not a string".
[[noreturn]] void wrongType(const std::string& path, const json& value, const char* expected) {
  unavailable("'" + path + "' is " + io::shownValue(value) + ", not " + expected);
}

// The member `name` of `object` when present and not null, after its type is checked.
const json* member(const json& object, const char* name, const std::string& path,
                   bool (json::*isType)() const noexcept, const char* expected) {
  const auto found = object.find(name);
  if (found == object.end() || found->is_null()) return nullptr;
  if (!((*found).*isType)()) wrongType(io::memberPath(path, name), *found, expected);
  return &*found;
}

std::optional<std::string> stringOf(const json& object, const char* name,
                                    const std::string& path = "") {
  const json* value = member(object, name, path, &json::is_string, "a string");
  return value ? std::optional(value->get<std::string>()) : std::nullopt;
}

// The index of the entry of `backends` with the id `backend`, every entry's id checked on the way.
std::optional<std::size_t> backendEntry(const json& backends, const std::string& backend) {
  for (std::size_t i = 0; i < backends.size(); ++i) {
    const std::string path = io::elementPath("backends", i);
    if (!backends[i].is_object()) wrongType(path, backends[i], "an object");
    if (stringOf(backends[i], "id", path) == backend) return i;
  }
  return std::nullopt;
}

// A reply as an error message quotes it: compact JSON, cut short.
std::string excerpt(const json& reply) {
  std::string text = formatMessage(reply);
  text.pop_back();  // the newline
  return text.size() > 200 ? text.substr(0, 200) + "..." : text;
}

}  // namespace

Hello readHello(const json& hello, const std::string& backend, const std::string& where) {
  try {
    if (stringOf(hello, "reply") != "hello")
      unavailable(where + " answered hello with: " + excerpt(hello));
    Hello read;
    read.program = stringOf(hello, "program").value_or("an unknown program");
    const json protocol = hello.value("protocol", json());
    if (protocol != kProtocolVersion)
      unavailable(where + " runs " + read.program + ", which speaks protocol version " +
                  excerpt(protocol) + "; this TileScope speaks version " +
                  std::to_string(kProtocolVersion) + ": install the same version on both sides");
    const json* backends = member(hello, "backends", "", &json::is_array, "an array");
    const std::optional<std::size_t> index =
        backends ? backendEntry(*backends, backend) : std::nullopt;
    if (!index) unavailable(where + " (" + read.program + ") has no " + backend + " backend");
    const json& entry = (*backends)[*index];
    const std::string path = io::elementPath("backends", *index);
    const json* available = member(entry, "available", path, &json::is_boolean, "true or false");
    if (!available || !available->get<bool>())
      read.backendReason = where + ": " + stringOf(entry, "reason", path).value_or("unavailable");
    if (const json* devices = member(entry, "devices", path, &json::is_array, "an array")) {
      const std::string at = io::memberPath(path, "devices");
      for (std::size_t i = 0; i < devices->size(); ++i)
        read.devices.push_back(report::deviceFromJson((*devices)[i], io::elementPath(at, i)));
    }
    if (const json* refusals =
            member(entry, "element_refusals", path, &json::is_object, "an object")) {
      const std::string at = io::memberPath(path, "element_refusals");
      for (const auto& [element, why] : refusals->items()) {
        if (!why.is_string()) wrongType(io::memberPath(at, element), why, "a string");
        read.elementRefusals[element] = why.get<std::string>();
      }
    }
    return read;
  } catch (const Error& e) {
    const std::string message = e.what();
    if (message.rfind(where, 0) == 0) throw;
    unavailable(where + " sent a hello this TileScope cannot use: " + message);
  }
}

std::string replyKind(const json& reply) {
  try {
    const std::optional<std::string> kind = stringOf(reply, "reply");
    if (!kind) unavailable("it has no 'reply'");
    return *kind;
  } catch (const Error& e) {
    unavailable(std::string("the server's reply: ") + e.what());
  }
}

Progress readProgress(const json& reply) {
  try {
    Progress progress;
    if (const json* fraction = member(reply, "fraction", "", &json::is_number, "a number"))
      progress.fraction = fraction->get<double>();
    progress.stage = stringOf(reply, "stage").value_or("");
    return progress;
  } catch (const Error& e) {
    unavailable(std::string("the server's progress reply: ") + e.what());
  }
}

ErrorReply readErrorReply(const json& reply) {
  try {
    ErrorReply error;
    if (const std::optional<std::string> kind = stringOf(reply, "kind"))
      error.kind = kindFromName(*kind).value_or(ErrorKind::LaunchFailed);
    if (const std::optional<std::string> message = stringOf(reply, "message"))
      error.message = *message;
    if (const json* restart = member(reply, "restart", "", &json::is_boolean, "true or false"))
      error.restart = restart->get<bool>();
    return error;
  } catch (const Error& e) {
    unavailable(std::string("the server's error reply: ") + e.what());
  }
}

}  // namespace tilescope::remote
