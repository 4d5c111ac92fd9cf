#include "settings.hpp"

#include <QDir>
#include <QFileInfo>
#include <QSettings>
#include <QStandardPaths>

namespace tilescope::app {
namespace {

const QString kChoicesKey = QStringLiteral("choices/last");
const QString kRecentKey = QStringLiteral("files/recent");

QString folderKey(Folder kind) {
  return kind == Folder::Sessions ? QStringLiteral("files/sessionDir")
                                  : QStringLiteral("files/exportDir");
}

void storeRecent(QStringList files) {
  while (files.size() > kMaxRecentFiles) files.removeLast();
  QSettings().setValue(kRecentKey, files);
}

}  // namespace

Choices loadLastChoices() {
  // Stored as the same JSON a session holds, so both read and write one format.
  const QByteArray text = QSettings().value(kChoicesKey).toByteArray();
  return choicesFromJson(nlohmann::json::parse(text.toStdString(), nullptr, false));
}

void saveLastChoices(const Choices& choices) {
  QSettings().setValue(kChoicesKey, QByteArray::fromStdString(toJson(choices).dump()));
}

QStringList recentFiles() {
  return QSettings().value(kRecentKey).toStringList();
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
      QSettings().value(folderKey(kind)).toString(),
      QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation), QDir::homePath()};
  for (const QString& folder : candidates) {
    if (!folder.isEmpty() && QFileInfo(folder).isDir()) return folder;
  }
  return QDir::currentPath();
}

void rememberFolder(Folder kind, const QString& file) {
  QSettings().setValue(folderKey(kind), QFileInfo(file).absolutePath());
}

}  // namespace tilescope::app
