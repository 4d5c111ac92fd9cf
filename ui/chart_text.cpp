// SPDX-License-Identifier: GPL-3.0-or-later
#include "chart_text.hpp"

#include <QSet>

namespace tilescope::ui {
namespace {

// The most lines a wrapped label may take.
constexpr int kMostLabelLines = 4;

bool allDistinct(const QStringList& texts) {
  QSet<QString> seen;
  for (const QString& text : texts) {
    if (text.isEmpty()) continue;
    if (seen.contains(text)) return false;
    seen.insert(text);
  }
  return true;
}

}  // namespace

QString wrapped(const QString& label, const QFontMetrics& metrics, int width) {
  QStringList lines;
  for (const QString& part : label.split(QLatin1Char('\n'))) {
    QString line;
    for (const QString& word : part.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
      // The word's pieces, each but the last ending in its hyphen.
      QStringList pieces;
      qsizetype from = 0;
      for (qsizetype at = word.indexOf(QLatin1Char('-'), 1); at > 0 && at < word.size() - 1;
           at = word.indexOf(QLatin1Char('-'), at + 1)) {
        pieces << word.mid(from, at + 1 - from);
        from = at + 1;
      }
      pieces << word.mid(from);
      for (qsizetype p = 0; p < pieces.size(); ++p) {
        const QString& piece = pieces[p];
        if (metrics.horizontalAdvance(piece) > width) return {};
        const QString joiner = line.isEmpty() || p > 0 ? QString() : QStringLiteral(" ");
        const QString longer = line + joiner + piece;
        if (metrics.horizontalAdvance(longer) <= width) {
          line = longer;
        } else {
          lines << line;
          line = piece;
        }
      }
    }
    lines << line;
  }
  return lines.size() <= kMostLabelLines ? lines.join(QLatin1Char('\n')) : QString();
}

QStringList elidedDistinct(const QStringList& texts, const QFontMetrics& metrics, int width) {
  QStringList shown;
  for (Qt::TextElideMode mode : {Qt::ElideRight, Qt::ElideMiddle, Qt::ElideLeft}) {
    shown.clear();
    for (const QString& text : texts) shown << metrics.elidedText(text, mode, width);
    if (allDistinct(shown)) return shown;
  }
  return shown;
}

}  // namespace tilescope::ui
