// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The run servers by name, as `--backend KIND@SERVER` names them in both command lines: the app
// keeps them (Backend > GPU Server...) in its settings file, which tilescope-bench reads here
// without Qt. No Qt.
#include <optional>
#include <string>
#include <vector>

#include "tilescope/remote/remote_backend.hpp"

namespace tilescope::remote {

// The app's settings file: $XDG_CONFIG_HOME/TileScope/TileScope.json, or
// ~/.config/TileScope/TileScope.json without it; empty when neither variable is set.
std::string appSettingsPath();

// The servers in the settings file at `path` ("servers": [{"name", "command", "backend"}]); none
// when the file does not exist. An entry without a name or a command is left out. Throws
// tilescope::Error(InvalidArgument) when the file cannot be read or is not JSON.
std::vector<ServerAddress> readConfiguredServers(const std::string& path);

// For "KIND@SERVER" (e.g. "cuda@gpu1"): the configured server SERVER, running its KIND backend
// (cpu or cuda, whichever the server was configured with). nullopt for a backend id without '@'.
// Throws tilescope::Error(InvalidArgument) naming the server when none of `configured` has that
// name, and naming the kind when it is neither cpu nor cuda.
std::optional<ServerAddress> serverBackend(const std::string& backendId,
                                           const std::vector<ServerAddress>& configured);

}  // namespace tilescope::remote
