// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The sample sessions shipped inside TileScope (measured on real GPUs). They open read-only: a
// sample is teaching material, and saving over it would lose the measurement it documents.
#include <QString>
#include <QStringList>
#include <optional>

#include "session.hpp"

namespace tilescope::desktop {

// The samples' resource paths (":/sessions/h200-ladder.json", ...), sorted by name.
QStringList shippedSamples();

// The resource path of the sample called `fileName` ("h200-ladder.json"); empty when there is none.
QString shippedSample(const QString& fileName);

// True for a sample's resource path, and for a file holding a sample's exact bytes under its
// name (the copy in the source tree or in an installed share folder), wherever it lies.
bool isShippedSample(const QString& path);

// A session from a file (loadSession), or a sample from inside the app by its resource path: the
// file reader reads regular files on disk only. On failure returns nullopt with the reason in
// `error`.
std::optional<Session> loadSessionOrSample(const QString& path, QString* error);

}  // namespace tilescope::desktop
