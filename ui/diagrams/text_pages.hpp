// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Long text cut into pages that each fit a box when drawn word-wrapped: whole paragraphs where
// they fit, else as many words as fit. For a view that shows its words part by part rather than
// shrink them below what the room can read.
#include <QFont>
#include <QSizeF>
#include <QStringList>

namespace tilescope::ui {

// Pages of `text` (paragraphs separated by '\n') that each fit `size` in `font`, wrapped at
// word boundaries (Qt::TextWordWrap); together they hold every word of it, in order.
QStringList textPages(const QString& text, const QFont& font, QSizeF size);

}  // namespace tilescope::ui
