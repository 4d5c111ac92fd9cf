#include "file_io.hpp"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <QTemporaryFile>
#include <cstdio>

namespace tilescope::app {
namespace {

QString describeFailure(const QString& path, const QString& reason) {
  return QStringLiteral("Could not write %1: %2").arg(QDir::toNativeSeparators(path), reason);
}

}  // namespace

bool writeFileAtomically(const QString& path, const QByteArray& bytes, QString* error) {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)) {
    if (error) *error = describeFailure(path, file.errorString());
    return false;
  }
  if (file.write(bytes) != bytes.size() || !file.commit()) {
    if (error) *error = describeFailure(path, file.errorString());
    file.cancelWriting();
    return false;
  }
  return true;
}

bool replaceFileAtomically(const QString& path, const std::function<bool(const QString&)>& write,
                           QString* error) {
  const QFileInfo target(path);
  // The temporary file keeps the target's suffix: some writers pick the format from it.
  QTemporaryFile temporary(target.absolutePath() + QStringLiteral("/.") +
                           target.completeBaseName() + QStringLiteral("-XXXXXX.") +
                           target.suffix());
  if (!temporary.open()) {
    if (error) *error = describeFailure(path, temporary.errorString());
    return false;
  }
  temporary.close();
  if (!write(temporary.fileName())) {
    if (error) *error = describeFailure(path, QStringLiteral("the exporter reported a failure"));
    return false;
  }
  // rename(2) replaces the target in one step, unlike QFile::rename.
  if (std::rename(QFile::encodeName(temporary.fileName()).constData(),
                  QFile::encodeName(target.absoluteFilePath()).constData()) != 0) {
    if (error) *error = describeFailure(path, QStringLiteral("the file could not be replaced"));
    return false;
  }
  temporary.setAutoRemove(false);
  // QTemporaryFile creates files readable only by their owner; an export is an ordinary file.
  QFile::setPermissions(path,
                        QFile::ReadOwner | QFile::WriteOwner | QFile::ReadGroup | QFile::ReadOther);
  return true;
}

bool readWholeFile(const QString& path, QByteArray* bytes, QString* error) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) {
    if (error) {
      *error = QStringLiteral("Could not read %1: %2")
                   .arg(QDir::toNativeSeparators(path), file.errorString());
    }
    return false;
  }
  *bytes = file.readAll();
  return true;
}

}  // namespace tilescope::app
