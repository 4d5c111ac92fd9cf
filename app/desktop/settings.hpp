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

}  // namespace tilescope::app
