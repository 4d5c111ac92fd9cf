// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the app remembers between starts: one JSON object in settingsPath(), read through
// io::readFile and written whole through io::writeFile at every change (a temporary file beside
// it, flushed, then renamed), so a crash or a full disk never leaves it half-written and a
// device, a FIFO or a read-only file at its path is never replaced. The organisation and
// application names are set in main before anything reads it.
#include <QString>
#include <QStringList>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "choices.hpp"

namespace tilescope::desktop {

inline constexpr int kMaxRecentFiles = 8;

// <config>/<organisation>/<application>.json, e.g. ~/.config/TileScope/TileScope.json.
QString settingsPath();

// The value remembered under `key`, null when there is none or the file cannot be read (then
// loadLastChoices names the problem and the app starts from its defaults). A regular file that
// cannot be read (not JSON, over 1 MiB, not an object, unreadable) is first renamed aside to
// PATH.unreadable-YYYYMMDD-HHMMSS, so no write replaces it; when it cannot be renamed, nothing
// is written until it is repaired or removed.
nlohmann::json rememberedSetting(const std::string& key);
// Remembers `value` under `key` (null forgets it) and keeps every other key. When the file cannot
// be written, the returned problem names it, the reason and what to do; it is also printed as a
// warning, so no failure is silent.
std::optional<QString> rememberSetting(const std::string& key, nlohmann::json value);

// The last choices, each one that cannot be used replaced by its default; `notices` (when given)
// gets one line per replaced choice naming the settings file and the key, and one for a settings
// file that cannot be read.
Choices loadLastChoices(QStringList* notices = nullptr);
// Where this process set an unreadable settings file aside, once: the first window to ask shows
// it (the read that moved it may have happened before any window existed).
std::optional<QString> takeSetAsideNotice();
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

}  // namespace tilescope::desktop
