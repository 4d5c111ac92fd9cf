// SPDX-License-Identifier: GPL-3.0-or-later
#include "tilescope/remote/server_list.hpp"

#include <cstdlib>

#include "tilescope/error.hpp"
#include "tilescope/io/file_io.hpp"
#include "tilescope/quote.hpp"

namespace tilescope::remote {
namespace {

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

std::string stringMember(const nlohmann::json& entry, const char* name) {
  const auto found = entry.find(name);
  return found != entry.end() && found->is_string() ? found->get<std::string>() : std::string();
}

}  // namespace

std::string appSettingsPath() {
  // QStandardPaths' GenericConfigLocation, then the app's organisation and application names.
  const std::string configHome = environment("XDG_CONFIG_HOME");
  if (!configHome.empty()) return configHome + "/TileScope/TileScope.json";
  const std::string home = environment("HOME");
  if (!home.empty()) return home + "/.config/TileScope/TileScope.json";
  return "";
}

std::vector<ServerAddress> readConfiguredServers(const std::string& path) {
  std::vector<ServerAddress> servers;
  if (path.empty()) return servers;
  const std::string what = "the app's settings";
  const std::optional<std::string> text =
      io::readFile(path, io::kMaxSessionBytes, what, /*missingIsEmpty=*/true);
  if (!text) return servers;
  const nlohmann::json settings = io::parseJson(*text, what + " '" + path + "'");
  const auto list = settings.is_object() ? settings.find("servers") : settings.end();
  if (list == settings.end() || !list->is_array()) return servers;
  for (const nlohmann::json& entry : *list) {
    if (!entry.is_object()) continue;
    ServerAddress server{stringMember(entry, "name"), stringMember(entry, "command"),
                         stringMember(entry, "backend")};
    if (server.backend.empty()) server.backend = "cuda";
    if (!server.name.empty() && !server.command.empty()) servers.push_back(std::move(server));
  }
  return servers;
}

std::optional<ServerAddress> serverBackend(const std::string& backendId,
                                           const std::vector<ServerAddress>& configured) {
  const std::size_t at = backendId.find('@');
  if (at == std::string::npos) return std::nullopt;
  const std::string kind = backendId.substr(0, at), name = backendId.substr(at + 1);
  if (kind != "cpu" && kind != "cuda")
    throw Error(ErrorKind::InvalidArgument,
                "--backend " + quoteValue(backendId) + ": the backend before '@' is cpu or cuda");
  std::string known;
  for (const ServerAddress& server : configured) {
    if (server.name == name) return ServerAddress{name, server.command, kind};
    known += (known.empty() ? "" : ", ") + server.name;
  }
  throw Error(ErrorKind::InvalidArgument,
              "--backend " + quoteValue(backendId) + ": no run server named " + quoteValue(name) +
                  " (" + (known.empty() ? "none is configured" : "configured: " + known) +
                  "; add one in tilescope: Backend > GPU Server...)");
}

}  // namespace tilescope::remote
