#pragma once
// Writing files so that a failure never leaves a half-written file behind.
#include <QByteArray>
#include <QString>
#include <functional>

namespace tilescope::app {

// Writes `bytes` to `path` through QSaveFile. On failure returns false and sets `error` to a
// message naming the file and the reason; the old file, if any, is untouched.
bool writeFileAtomically(const QString& path, const QByteArray& bytes, QString* error);

// For writers that only take a file name (QCustomPlot's save functions): `write` gets a
// temporary name beside `path`, and only when it returns true does that file replace `path`.
bool replaceFileAtomically(const QString& path, const std::function<bool(const QString&)>& write,
                           QString* error);

// Reads a whole file; on failure returns false and sets `error`.
bool readWholeFile(const QString& path, QByteArray* bytes, QString* error);

}  // namespace tilescope::app
