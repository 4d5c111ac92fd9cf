// SPDX-License-Identifier: GPL-3.0-or-later
#include "tilescope/remote/server_list.hpp"

#include <cstdlib>

#include "tilescope/error.hpp"
#include "tilescope/io/file_io.hpp"
#include "tilescope/io/json_fields.hpp"
#include "tilescope/quote.hpp"

namespace tilescope::remote {
namespace {

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

// The string member `name` of a server entry; "" when missing or null.
std::string stringMember(const nlohmann::json& entry, const char* name, const std::string& path) {
  const auto found = entry.find(name);
  if (found == entry.end() || found->is_null()) return {};
  if (!found->is_string())
    io::refuseAt(io::memberPath(path, name), io::shownValue(*found) + " is not a string");
  return found->get<std::string>();
}

ServerAddress serverFromEntry(const nlohmann::json& entry, const std::string& path) {
  io::objectAt(entry, path);
  ServerAddress server{stringMember(entry, "name", path), stringMember(entry, "command", path),
                       stringMember(entry, "backend", path)};
  if (server.backend.empty()) server.backend = "cuda";
  if (server.name.empty()) io::refuseAt(path, "the server has no name");
  if (server.command.empty())
    io::refuseAt(path, "server " + quoteValue(server.name) + " has no command");
  return server;
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

ConfiguredServers serversFromSettings(const nlohmann::json& servers) {
  ConfiguredServers read;
  if (servers.is_null()) return read;
  if (!servers.is_array()) {
    read.problems.push_back("servers: " + io::shownValue(servers) +
                            " is not a list; no server is read from it");
    return read;
  }
  for (std::size_t i = 0; i < servers.size(); ++i) {
    try {
      read.servers.push_back(serverFromEntry(servers[i], io::elementPath("servers", i)));
    } catch (const Error& error) {
      read.problems.push_back(std::string(error.what()) + "; that server is left out");
    }
  }
  return read;
}

ConfiguredServers readConfiguredServers(const std::string& path) {
  if (path.empty()) return {};
  const std::string what = "the app's settings";
  const std::optional<std::string> text =
      io::readFile(path, io::kMaxSessionBytes, what, /*missingIsEmpty=*/true);
  if (!text) return {};
  const nlohmann::json settings = io::parseJson(*text, what + " '" + path + "'");
  const auto list = settings.is_object() ? settings.find("servers") : settings.end();
  ConfiguredServers read = serversFromSettings(list == settings.end() ? nlohmann::json() : *list);
  for (std::string& problem : read.problems) problem = what + " '" + path + "', " + problem;
  return read;
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
