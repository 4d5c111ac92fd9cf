#include "settings.hpp"

#include <QDir>
#include <QFileInfo>
#include <QSettings>

namespace tilescope::app {
namespace {

const QString kChoicesKey = QStringLiteral("choices/last");
const QString kRecentKey = QStringLiteral("files/recent");

void storeRecent(QStringList files) {
  while (files.size() > kMaxRecentFiles) files.removeLast();
  QSettings().setValue(kRecentKey, files);
}

}  // namespace

Choices loadLastChoices(QStringList* notices) {
  // Stored as the same JSON a session holds, so both read and write one format.
  const QSettings settings;
  const QByteArray text = settings.value(kChoicesKey).toByteArray();
  Choices choices = choicesFromJson(nlohmann::json::parse(text.toStdString(), nullptr, false));
  for (const std::string& repaired : repairChoices(choices)) {
    if (notices) {
      *notices << QStringLiteral("the settings file %1, key %2, %3")
                      .arg(QDir::toNativeSeparators(settings.fileName()), kChoicesKey,
                           QString::fromStdString(repaired));
    }
  }
  return choices;
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

}  // namespace tilescope::app
