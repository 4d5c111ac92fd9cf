// SPDX-License-Identifier: GPL-3.0-or-later
#include "servers.hpp"

#include <QCoreApplication>
#include <QRegularExpression>
#include <QStandardPaths>

#include "settings.hpp"

namespace tilescope::desktop {
namespace {

const std::string kServersKey = "servers";
const std::string kIsolateKey = "isolateCuda";
const std::string kIdleKey = "serverIdleMinutes";

QString text(const std::string& value) {
  return QString::fromStdString(value);
}

}  // namespace

ServerSettings loadServerSettings() {
  ServerSettings loaded;
  const nlohmann::json servers = rememberedSetting(kServersKey);
  for (const nlohmann::json& entry : servers.is_array() ? servers : nlohmann::json::array()) {
    if (!entry.is_object()) continue;
    const remote::ServerAddress server{entry.value("name", std::string()),
                                       entry.value("command", std::string()),
                                       entry.value("backend", std::string("cuda"))};
    // A hand-edited entry that the dialog would refuse is left out rather than half-used.
    if (!serverProblem(server, loaded.servers)) loaded.servers.push_back(server);
  }
  const nlohmann::json isolate = rememberedSetting(kIsolateKey);
  loaded.isolateCuda = isolate.is_boolean() && isolate.get<bool>();
  const nlohmann::json idle = rememberedSetting(kIdleKey);
  if (idle.is_number_integer() && idle.get<std::int64_t>() >= 0 &&
      idle.get<std::int64_t>() <= 24 * 60)
    loaded.idleMinutes = idle.get<int>();
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

QString localServerCommand() {
  const QString here = QCoreApplication::applicationDirPath();
  QString bench = QStandardPaths::findExecutable(QStringLiteral("tilescope-bench"),
                                                 {here, here + QStringLiteral("/../bench")});
  if (bench.isEmpty()) bench = QStandardPaths::findExecutable(QStringLiteral("tilescope-bench"));
  if (bench.isEmpty()) bench = QStringLiteral("tilescope-bench");
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
