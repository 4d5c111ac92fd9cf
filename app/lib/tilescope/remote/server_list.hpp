// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The run servers by name, as `--backend KIND@SERVER` names them in both command lines: the app
// keeps them (Backend > GPU Server...) in its settings file, which tilescope-bench reads here
// without Qt. No Qt.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tilescope/remote/remote_backend.hpp"

namespace tilescope::remote {

// The app's settings file: $XDG_CONFIG_HOME/TileScope/TileScope.json, or
// ~/.config/TileScope/TileScope.json without it; empty when neither variable is set.
std::string appSettingsPath();

struct ConfiguredServers {
  std::vector<ServerAddress> servers;
  // One line per entry left out, naming it and why: "servers[1].name: 5 is not a string; that
  // server is left out".
  std::vector<std::string> problems;
};

// The settings' "servers" list ([{"name", "command", "backend"}], the backend "cuda" when not
// given; null: none). An entry that is not an object, has a member of the wrong type, or has no
// name or no command is left out and described in `problems`.
ConfiguredServers serversFromSettings(const nlohmann::json& servers);

// The servers in the settings file at `path`, as serversFromSettings reads them, each problem
// naming the file; none when the file does not exist. Throws tilescope::Error(InvalidArgument)
// when the file cannot be read or is not JSON.
ConfiguredServers readConfiguredServers(const std::string& path);

// For "KIND@SERVER" (e.g. "cuda@gpu1"): the configured server SERVER, running its KIND backend
// (cpu or cuda, whichever the server was configured with). nullopt for a backend id without '@'.
// Throws tilescope::Error(InvalidArgument) naming the server when none of `configured` has that
// name, and naming the kind when it is neither cpu nor cuda.
std::optional<ServerAddress> serverBackend(const std::string& backendId,
                                           const std::vector<ServerAddress>& configured);

}  // namespace tilescope::remote
