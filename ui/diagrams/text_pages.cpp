// SPDX-License-Identifier: GPL-3.0-or-later
#include "text_pages.hpp"

#include <QFontMetricsF>
#include <QRectF>

namespace tilescope::ui {

QStringList textPages(const QString& text, const QFont& font, QSizeF size) {
  const QFontMetricsF metrics(font);
  auto fits = [&](const QString& page) {
    const QRectF needed = metrics.boundingRect(QRectF(0, 0, size.width(), 1e6),
                                               Qt::AlignLeft | Qt::TextWordWrap, page);
    return needed.width() <= size.width() + 0.5 && needed.height() <= size.height() + 0.5;
  };
  QStringList pages;
  QString page;
  // Appends `piece` to the page when the page still fits with it.
  auto add = [&](const QString& piece, QChar joiner) {
    const QString longer = page.isEmpty() ? piece : page + joiner + piece;
    if (!fits(longer)) return false;
    page = longer;
    return true;
  };
  auto turn = [&] {
    if (!page.isEmpty()) pages << page;
    page.clear();
  };
  for (const QString& paragraph : text.split(QLatin1Char('\n'))) {
    if (add(paragraph, QLatin1Char('\n'))) continue;
    turn();
    if (add(paragraph, QLatin1Char('\n'))) continue;
    // Longer than a page: word by word (a word wider than the page takes one of its own).
    for (const QString& word : paragraph.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
      if (add(word, QLatin1Char(' '))) continue;
      turn();
      page = word;
    }
  }
  turn();
  return pages;
}

}  // namespace tilescope::ui
