// SPDX-License-Identifier: GPL-3.0-or-later
// The client's reading of a run server's replies (docs/remote.md): every field it uses is checked
// for its type before use, so a server that sends a number where a string belongs fails that
// connection or run with Error(Unavailable) naming the field, never with a JSON library's
// exception. No Qt.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tilescope/backend.hpp"
#include "tilescope/error.hpp"

namespace tilescope::remote {

// What a server's hello says of itself and of the backend a client asked for.
struct Hello {
  std::string program;                       // "tilescope-bench 0.1.0"
  std::optional<std::string> backendReason;  // why that backend is unavailable there
  std::vector<DeviceInfo> devices;
  std::map<std::string, std::string> elementRefusals;  // element type -> why it cannot run
};

// Reads the hello reply of the server `where` ("server gpu1") for its backend `backend`. Throws
// Error(Unavailable) starting with `where`: another reply, another protocol version, no such
// backend, or a field of the wrong type (named with its path, e.g. "backends[0].available").
Hello readHello(const nlohmann::json& hello, const std::string& backend, const std::string& where);

// The kind of a reply ("progress", "result", "error", ...); Error(Unavailable) when "reply" is
// missing or not a string.
std::string replyKind(const nlohmann::json& reply);

struct Progress {
  double fraction = 0;
  std::string stage;
};
// A progress reply: "fraction" a number, "stage" a string (either may be missing).
Progress readProgress(const nlohmann::json& reply);

struct ErrorReply {
  ErrorKind kind = ErrorKind::LaunchFailed;  // an unknown kind reads as a failed launch
  std::string message = "no message";
  bool restart = false;  // a sticky fault: only a new server brings the device back
};
// An error reply: "kind" and "message" strings, "restart" a boolean (each may be missing).
ErrorReply readErrorReply(const nlohmann::json& reply);

}  // namespace tilescope::remote
