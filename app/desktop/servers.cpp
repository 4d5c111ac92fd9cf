// SPDX-License-Identifier: GPL-3.0-or-later
#include "servers.hpp"

#include <QCoreApplication>
#include <QDir>
#include <QRegularExpression>
#include <QStandardPaths>

#include "formatting.hpp"
#include "settings.hpp"
#include "tilescope/io/json_fields.hpp"
#include "tilescope/remote/server_list.hpp"

namespace tilescope::desktop {
namespace {

const std::string kServersKey = "servers";
const std::string kIsolateKey = "isolateCuda";
const std::string kIdleKey = "serverIdleMinutes";

}  // namespace

ServerSettings loadServerSettings() {
  ServerSettings loaded;
  const QString file =
      QStringLiteral("the settings file %1, ").arg(QDir::toNativeSeparators(settingsPath()));
  remote::ConfiguredServers configured =
      remote::serversFromSettings(rememberedSetting(kServersKey));
  for (const std::string& problem : configured.problems)
    loaded.problems << file + QString::fromStdString(problem);
  for (std::size_t i = 0; i < configured.servers.size(); ++i) {
    // A hand-edited entry that the dialog would refuse is left out rather than half-used.
    if (const auto why = serverProblem(configured.servers[i], loaded.servers))
      loaded.problems << file + QStringLiteral("server '%1': %2; that server is left out")
                                    .arg(text(configured.servers[i].name), *why);
    else
      loaded.servers.push_back(std::move(configured.servers[i]));
  }
  const nlohmann::json isolate = rememberedSetting(kIsolateKey);
  if (!isolate.is_null() && !isolate.is_boolean())
    loaded.problems << file + QStringLiteral("%1: %2 is not true or false; using false")
                                  .arg(QString::fromStdString(kIsolateKey),
                                       QString::fromStdString(io::shownValue(isolate)));
  loaded.isolateCuda = isolate.is_boolean() && isolate.get<bool>();
  const nlohmann::json idle = rememberedSetting(kIdleKey);
  if (idle.is_number_integer() && idle.get<std::int64_t>() >= 0 &&
      idle.get<std::int64_t>() <= ServerSettings::kLongestIdleMinutes)
    loaded.idleMinutes = idle.get<int>();
  else if (!idle.is_null())
    loaded.problems << file + QStringLiteral(
                                  "%1: %2 is not a number of minutes from 0 to %3; "
                                  "using %4")
                                  .arg(QString::fromStdString(kIdleKey),
                                       QString::fromStdString(io::shownValue(idle)))
                                  .arg(ServerSettings::kLongestIdleMinutes)
                                  .arg(loaded.idleMinutes);
  return loaded;
}

void saveServerSettings(const ServerSettings& saved) {
  nlohmann::json servers = nlohmann::json::array();
  for (const remote::ServerAddress& server : saved.servers)
    servers.push_back(
        {{"name", server.name}, {"command", server.command}, {"backend", server.backend}});
  rememberSetting(kServersKey, std::move(servers));
  rememberSetting(kIsolateKey, saved.isolateCuda);
  rememberSetting(kIdleKey, saved.idleMinutes);
}

std::vector<remote::ServerAddress> remoteBackends(const ServerSettings& settings) {
  std::vector<remote::ServerAddress> backends = settings.servers;
  for (remote::ServerAddress& server : backends)
    server.idleClose = std::chrono::minutes(settings.idleMinutes);
  if (settings.isolateCuda) backends.push_back({"", localServerCommand().toStdString(), "cuda"});
  return backends;
}

QString sshCommand(const QString& host) {
  return QStringLiteral("ssh %1 tilescope-bench --serve").arg(host);
}

QString slurmCommand(const QString& host) {
  return QStringLiteral("ssh %1 srun --gres=gpu:1 tilescope-bench --serve").arg(host);
}

QString benchProgram() {
  const QString here = QCoreApplication::applicationDirPath();
  QString bench = QStandardPaths::findExecutable(QStringLiteral("tilescope-bench"),
                                                 {here, here + QStringLiteral("/../bench")});
  if (bench.isEmpty()) bench = QStandardPaths::findExecutable(QStringLiteral("tilescope-bench"));
  if (bench.isEmpty()) bench = QStringLiteral("tilescope-bench");
  return bench;
}

QString localServerCommand() {
  QString bench = benchProgram();
  // Single quotes keep spaces in the path; a quote inside is closed, escaped and reopened.
  bench.replace(QStringLiteral("'"), QStringLiteral("'\\''"));
  return QStringLiteral("'%1' --serve").arg(bench);
}

std::optional<QString> serverProblem(const remote::ServerAddress& server,
                                     const std::vector<remote::ServerAddress>& others) {
  static const QRegularExpression kName(QStringLiteral("^[A-Za-z0-9._-]+$"));
  const QString name = text(server.name);
  if (name.isEmpty()) return QCoreApplication::translate("servers", "Give the server a name");
  if (!kName.match(name).hasMatch())
    return QCoreApplication::translate(
               "servers", "The name '%1' may hold only letters, digits, '.', '_' and '-'")
        .arg(name);
  for (const remote::ServerAddress& other : others) {
    if (other.name == server.name)
      return QCoreApplication::translate("servers", "There is already a server named '%1'")
          .arg(name);
  }
  if (QString::fromStdString(server.command).trimmed().isEmpty())
    return QCoreApplication::translate("servers", "Give the command that starts the server");
  if (server.backend != "cuda" && server.backend != "cpu")
    return QCoreApplication::translate("servers", "The backend is cpu or cuda");
  return std::nullopt;
}

}  // namespace tilescope::desktop
