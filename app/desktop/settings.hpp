#pragma once
// What the app remembers between starts, in QSettings (organisation and application names are
// set in main before anything reads them).
#include <QStringList>

#include "choices.hpp"

namespace tilescope::app {

inline constexpr int kMaxRecentFiles = 8;

Choices loadLastChoices();
void saveLastChoices(const Choices& choices);

// Most recent first, without duplicates, at most kMaxRecentFiles.
QStringList recentFiles();
void addRecentFile(const QString& path);
void removeRecentFile(const QString& path);

// The folders file dialogs start in, one per kind of file.
enum class Folder { Sessions, Exports };
// The folder last used for `kind` while it still exists; else Documents, else home (a dialog
// must never start in a folder that is gone).
QString lastFolder(Folder kind);
// Remembers the folder that holds `file`.
void rememberFolder(Folder kind, const QString& file);

}  // namespace tilescope::app
