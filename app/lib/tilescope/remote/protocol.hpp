// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The run server's protocol (tilescope-bench --serve; docs/remote.md): one JSON object per line
// on stdin and stdout. Shared by the server and its clients, no Qt.
#include <cstddef>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "tilescope/error.hpp"

namespace tilescope::remote {

// Raised when the messages change in a way an older peer would misread.
inline constexpr int kProtocolVersion = 1;
// The longest line either side reads: a request is a few hundred bytes, a hello a few tens of
// kilobytes; anything longer is refused unread.
inline constexpr std::size_t kMaxLineBytes = std::size_t(1) << 20;
// The longest reply a client reads: a trace carries the owner of every element of C (as runs,
// usually a few hundred kilobytes; a mapping with no regularity takes tens of megabytes).
inline constexpr std::size_t kMaxReplyBytes = std::size_t(64) << 20;
// The deepest nesting of arrays and objects a message may have (a request needs 3).
inline constexpr int kMaxDepth = 16;

// The two errors of the run server's protocol: a server or a reply that cannot serve
// (Error(Unavailable), which the app tells as such), and a message or request against the
// protocol (Error(InvalidArgument)).
[[noreturn]] void unavailable(const std::string& message);
[[noreturn]] void refuse(const std::string& message);

// Parses one line into a JSON object. Throws tilescope::Error(InvalidArgument) saying what is
// wrong: not JSON (with the parser's reason), too deeply nested, a key given twice in one
// object (naming it), not an object.
nlohmann::json parseMessage(const std::string& line);

// The id a message carries, echoed in every reply to it: a number, a string or null (null too
// when it has none or one of another type).
nlohmann::json idOf(const nlohmann::json& message);

// A request's verb, checked with its id and members before anything runs: the id is a number, a
// string or null, the verb is hello, run, ceilings, autotune, trace or bye, and no member is
// unknown to it. Throws tilescope::Error(InvalidArgument) naming what is wrong. (cancel is answered
// by the server's reader as it arrives, never queued.)
std::string checkedVerb(const nlohmann::json& message);

// The string member `name` of a message; throws tilescope::Error(InvalidArgument) when it is
// missing or not a string.
const std::string& stringMember(const nlohmann::json& message, const char* name);

// One line of compact JSON with its newline; invalid UTF-8 in a string (an echoed request) is
// replaced, never thrown.
std::string formatMessage(const nlohmann::json& message);

// "invalid-argument", "device-lost", ...: ErrorKind as the protocol spells it, and back.
std::string kindName(ErrorKind kind);
std::optional<ErrorKind> kindFromName(const std::string& name);

}  // namespace tilescope::remote
