// SPDX-License-Identifier: GPL-3.0-or-later
#include "samples.hpp"

#include <QDir>
#include <QFile>
#include <QFileInfo>

namespace tilescope::desktop {
namespace {

const QString kSampleFolder = QStringLiteral(":/sessions");

QByteArray contents(const QString& path) {
  QFile file(path);
  return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

}  // namespace

QStringList shippedSamples() {
  QStringList samples;
  const QDir folder(kSampleFolder);
  for (const QString& name : folder.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name))
    samples << folder.filePath(name);
  return samples;
}

QString shippedSample(const QString& fileName) {
  const QString path = kSampleFolder + QLatin1Char('/') + fileName;
  return QFileInfo(path).isFile() ? path : QString();
}

bool isShippedSample(const QString& path) {
  if (path.startsWith(kSampleFolder + QLatin1Char('/'))) return QFileInfo(path).isFile();
  const QFileInfo file(path);
  const QString sample = shippedSample(file.fileName());
  if (sample.isEmpty() || !file.isFile() || file.size() != QFileInfo(sample).size()) return false;
  return contents(path) == contents(sample);
}

std::optional<Session> loadSessionOrSample(const QString& path, QString* error) {
  if (!path.startsWith(kSampleFolder + QLatin1Char('/'))) return loadSession(path, error);
  QFile sample(path);
  if (!sample.open(QIODevice::ReadOnly)) {
    if (error) *error = QStringLiteral("%1 is not a sample of this build").arg(path);
    return std::nullopt;
  }
  try {
    return sessionFromJson(nlohmann::json::parse(sample.readAll().toStdString()));
  } catch (const std::exception& broken) {
    // Every sample is tested to open; this is a build with a damaged one.
    if (error) *error = QStringLiteral("%1: %2").arg(path, QString::fromUtf8(broken.what()));
    return std::nullopt;
  }
}

}  // namespace tilescope::desktop
