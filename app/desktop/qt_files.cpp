// SPDX-License-Identifier: GPL-3.0-or-later
#include "qt_files.hpp"

#include <QFile>

#include "tilescope/error.hpp"
#include "tilescope/io/file_io.hpp"

namespace tilescope::desktop {

std::string localPath(const QString& path) {
  return QFile::encodeName(path).toStdString();
}

namespace {

// The writer's and reader's messages start a sentence in the app.
QString sentence(const char* message) {
  QString text = QString::fromUtf8(message);
  if (!text.isEmpty()) text[0] = text[0].toUpper();
  return text;
}

}  // namespace

bool writeFileAtomically(const QString& path, const QByteArray& bytes, QString* error) {
  try {
    io::writeFile(localPath(path), std::string_view(bytes.constData(), std::size_t(bytes.size())),
                  "");
    return true;
  } catch (const Error& failure) {
    if (error) *error = sentence(failure.what());
    return false;
  }
}

bool replaceFileAtomically(const QString& path, const std::function<bool(const QString&)>& write,
                           const QString& writer, QString* error) {
  try {
    io::FileWriter file(localPath(path), "");
    file.commitWrittenBy(
        [&](const std::string& temporary) { return write(QFile::decodeName(temporary.c_str())); },
        writer.toStdString());
    return true;
  } catch (const Error& failure) {
    if (error) *error = sentence(failure.what());
    return false;
  }
}

bool readWholeFile(const QString& path, std::size_t maxBytes, QByteArray* bytes, QString* error) {
  // A Qt resource (":/sessions/...", the shipped samples) is compiled in: no file to check.
  if (path.startsWith(QLatin1Char(':'))) {
    QFile resource(path);
    if (!resource.open(QIODevice::ReadOnly) || std::size_t(resource.size()) > maxBytes) {
      if (error) *error = QStringLiteral("Cannot read %1: %2").arg(path, resource.errorString());
      return false;
    }
    *bytes = resource.readAll();
    return true;
  }
  try {
    const std::optional<std::string> content = io::readFile(localPath(path), maxBytes, "");
    *bytes = QByteArray::fromStdString(*content);
    return true;
  } catch (const Error& failure) {
    if (error) *error = sentence(failure.what());
    return false;
  }
}

}  // namespace tilescope::desktop
