// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Fitting a chart's label texts into the room they have: wrapped onto lines, or shortened while
// they stay distinct.
#include <QFontMetrics>
#include <QStringList>

namespace tilescope::ui {

// Room left between two labels along an axis, in pixels.
inline constexpr int kLabelGap = 6;

// "naive tile=16 512³" as lines no wider than `width`, breaking at spaces and after hyphens
// ("shared-" over "tiled"); empty when a piece is wider or it needs more than four lines.
QString wrapped(const QString& label, const QFontMetrics& metrics, int width);

// The texts shortened to `width`, still distinct where they were: cut at the end, else in the
// middle, else at the start (what differs may be anywhere).
QStringList elidedDistinct(const QStringList& texts, const QFontMetrics& metrics, int width);

}  // namespace tilescope::ui
