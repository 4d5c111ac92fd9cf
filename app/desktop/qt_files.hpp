// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The app's files go through the one writer and reader (tilescope/io/file_io.hpp); these take Qt's
// types and report a failure as a message instead of an exception.
#include <QByteArray>
#include <QString>
#include <functional>
#include <string>

namespace tilescope::desktop {

// `path` in the file system's encoding, for the readers and writers that take a std::string.
std::string localPath(const QString& path);

// Writes `bytes` to `path` (see io::FileWriter). On failure returns false and sets `error` to a
// one-line message naming the file, the reason and what to do; the old file, if any, is
// untouched.
bool writeFileAtomically(const QString& path, const QByteArray& bytes, QString* error);

// For writers that only take a file name (QCustomPlot's save functions): `write` gets a
// temporary name beside `path`, and only when it returns true and wrote something is that file
// flushed and renamed over `path`. `writer` names the writer in the message when it fails.
bool replaceFileAtomically(const QString& path, const std::function<bool(const QString&)>& write,
                           const QString& writer, QString* error);

// Reads a whole regular file of at most `maxBytes` (see io::readFile), or a Qt resource; on
// failure returns false and sets `error`.
bool readWholeFile(const QString& path, std::size_t maxBytes, QByteArray* bytes, QString* error);

}  // namespace tilescope::desktop
