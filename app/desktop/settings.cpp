// SPDX-License-Identifier: GPL-3.0-or-later
#include "settings.hpp"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <utility>

#include "tilescope/error.hpp"
#include "tilescope/io/file_io.hpp"
#include "tilescope/io/json_fields.hpp"

namespace tilescope::desktop {
namespace {

constexpr std::size_t kMaxSettingsBytes = std::size_t(1) << 20;
const std::string kChoicesKey = "choices";
const std::string kRecentKey = "recentFiles";

std::string folderKey(Folder kind) {
  return kind == Folder::Sessions ? "sessionFolder" : "exportFolder";
}

struct StoredSettings {
  nlohmann::json object = nlohmann::json::object();
  std::optional<QString> problem;  // why the file could not be read
  bool writable = true;            // false: writing would replace a file that was not set aside
};

// Where an unreadable settings file was moved, until a window takes it (takeSetAsideNotice).
std::mutex setAsideMutex;
std::optional<QString> setAsideNotice;

// `path` renamed to PATH.unreadable-YYYYMMDD-HHMMSS (with a number added when that is taken);
// the new name, or nullopt with errno's reason in `why`.
std::optional<QString> setAside(const QString& path, QString* why) {
  const QString stem = path + QStringLiteral(".unreadable-") +
                       QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss"));
  QString kept = stem;
  for (int n = 2; QFileInfo::exists(kept) || QFileInfo(kept).isSymLink(); ++n)
    kept = stem + QStringLiteral("-%1").arg(n);
  if (std::rename(QFile::encodeName(path).constData(), QFile::encodeName(kept).constData()) != 0) {
    *why = QString::fromLocal8Bit(std::strerror(errno));
    return std::nullopt;
  }
  return kept;
}

StoredSettings readSettings() {
  const QString path = settingsPath();
  const QString shownPath = QDir::toNativeSeparators(path);
  try {
    const std::optional<std::string> text = io::readFile(
        path.toStdString(), kMaxSettingsBytes, "the settings file", /*missingIsEmpty=*/true);
    if (!text) return {};
    nlohmann::json document = io::parseJson(*text, "it");
    if (!document.is_object())
      throw Error(ErrorKind::InvalidArgument,
                  "it is " + io::shownValue(document).substr(0, 40) + ", not a JSON object");
    return {std::move(document), std::nullopt};
  } catch (const Error& error) {
    QString reason = QString::fromStdString(error.what());
    // io's messages name the file already; a parse failure names only "it".
    if (!reason.contains(shownPath))
      reason = QStringLiteral("the settings file %1: %2").arg(shownPath, reason);
    // A FIFO or a device is left alone (the writer never replaces one); a regular file that cannot
    // be read (not JSON, too large, unreadable) is kept under another name before a new one is
    // written, so nothing the user configured is lost.
    if (!QFileInfo(path).isFile())
      return {nlohmann::json::object(), reason + QStringLiteral("; starting from the defaults")};
    QString why;
    if (const std::optional<QString> kept = setAside(path, &why)) {
      const QString notice =
          reason + QStringLiteral("; it was kept as %1 and the app starts from the defaults")
                       .arg(QDir::toNativeSeparators(*kept));
      qWarning("tilescope: %s", qPrintable(notice));
      const std::lock_guard lock(setAsideMutex);
      setAsideNotice = notice;
      return {nlohmann::json::object(), notice};
    }
    return {nlohmann::json::object(),
            reason + QStringLiteral("; it cannot be set aside (%1), so no setting is saved until "
                                    "it is repaired or removed; starting from the defaults")
                         .arg(why),
            /*writable=*/false};
  }
}

QString rememberedString(const std::string& key) {
  const nlohmann::json value = rememberedSetting(key);
  return value.is_string() ? QString::fromStdString(value.get<std::string>()) : QString();
}

void storeRecent(QStringList files) {
  while (files.size() > kMaxRecentFiles) files.removeLast();
  nlohmann::json list = nlohmann::json::array();
  for (const QString& file : files) list.push_back(file.toStdString());
  rememberSetting(kRecentKey, std::move(list));
}

}  // namespace

QString settingsPath() {
  return QStringLiteral("%1/%2/%3.json")
      .arg(QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation),
           QCoreApplication::organizationName(), QCoreApplication::applicationName());
}

nlohmann::json rememberedSetting(const std::string& key) {
  const StoredSettings stored = readSettings();
  const auto found = stored.object.find(key);
  return found == stored.object.end() ? nlohmann::json() : *found;
}

std::optional<QString> rememberSetting(const std::string& key, nlohmann::json value) {
  // Read afresh, so a second window's keys, and keys this version does not know, are kept; a
  // file that cannot be read has been set aside (readSettings) before this writes a new one.
  StoredSettings stored = readSettings();
  if (!stored.writable) {
    qWarning("tilescope: %s", qPrintable(*stored.problem));
    return stored.problem;
  }
  nlohmann::json settings = std::move(stored.object);
  if (value.is_null())
    settings.erase(key);
  else
    settings[key] = std::move(value);
  const QString path = settingsPath();
  try {
    QDir().mkpath(QFileInfo(path).absolutePath());
    io::writeFile(path.toStdString(), settings.dump(2) + "\n", "the settings file");
    return std::nullopt;
  } catch (const Error& error) {
    const QString problem = QString::fromStdString(error.what());
    qWarning("tilescope: %s", qPrintable(problem));
    return problem;
  }
}

Choices loadLastChoices(QStringList* notices) {
  const StoredSettings stored = readSettings();
  if (stored.problem && notices) *notices << *stored.problem;
  // Stored as the same JSON a session holds, so both read and write one format.
  const auto found = stored.object.find(kChoicesKey);
  Choices choices =
      choicesFromJson(found == stored.object.end() ? nlohmann::json::object() : *found);
  for (const std::string& repaired : repairChoices(choices)) {
    if (notices) {
      *notices << QStringLiteral("the settings file %1, key %2, %3")
                      .arg(QDir::toNativeSeparators(settingsPath()),
                           QString::fromStdString(kChoicesKey), QString::fromStdString(repaired));
    }
  }
  return choices;
}

std::optional<QString> takeSetAsideNotice() {
  const std::lock_guard lock(setAsideMutex);
  return std::exchange(setAsideNotice, std::nullopt);
}

void saveLastChoices(const Choices& choices) {
  rememberSetting(kChoicesKey, toJson(choices));
}

QStringList recentFiles() {
  const nlohmann::json stored = rememberedSetting(kRecentKey);
  QStringList files;
  if (!stored.is_array()) return files;
  for (const nlohmann::json& file : stored) {
    if (file.is_string()) files << QString::fromStdString(file.get<std::string>());
  }
  return files;
}

void addRecentFile(const QString& path) {
  const QString absolute = QFileInfo(path).absoluteFilePath();
  QStringList files = recentFiles();
  files.removeAll(absolute);
  files.prepend(absolute);
  storeRecent(files);
}

void removeRecentFile(const QString& path) {
  QStringList files = recentFiles();
  files.removeAll(QFileInfo(path).absoluteFilePath());
  storeRecent(files);
}

QString lastFolder(Folder kind) {
  const QStringList candidates = {
      rememberedString(folderKey(kind)),
      QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation), QDir::homePath()};
  for (const QString& folder : candidates) {
    if (!folder.isEmpty() && QFileInfo(folder).isDir()) return folder;
  }
  return QDir::currentPath();
}

void rememberFolder(Folder kind, const QString& file) {
  rememberSetting(folderKey(kind), QFileInfo(file).absolutePath().toStdString());
}

}  // namespace tilescope::desktop
