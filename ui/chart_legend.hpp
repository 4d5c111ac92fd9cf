// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The legend's cells: an entry drawn from its series' style (its series listed on hover), and a
// legend as wide as the chart below it, or as wide as its entries beside it.
#include <qcustomplot.h>

#include "chart_view.hpp"

namespace tilescope::ui {

// The most series names a legend entry's tooltip lists.
inline constexpr int kMostMembersListed = 40;

// A legend entry drawn from its style: a line with the marker, or a filled box for bars. Its text
// is the entry's series (or its group and count), or only the group when the legend is compact,
// shortened to the width it is given.
class EntryLegendItem : public QCPAbstractLegendItem {
 public:
  EntryLegendItem(QCPLegend* legend, LegendEntry entry)
      : QCPAbstractLegendItem(legend), entry_(std::move(entry)) {}

  const LegendEntry& entry() const { return entry_; }

  void setCompact(bool compact) { compact_ = compact; }
  // The widest its text may be drawn; 0: as wide as it is.
  void setMostTextWidth(int width) { mostTextWidth_ = width; }
  // The text as shortened by the legend (distinct from the other entries'); empty: its own.
  void setShownText(const QString& text) { shownText_ = text; }

  QString text() const {
    if (compact_) return entry_.label;
    if (entry_.members.size() == 1) return entry_.members.front();
    return QObject::tr("%1 (%2 series)").arg(entry_.label).arg(entry_.members.size());
  }

  QString shownText() const {
    if (!shownText_.isEmpty()) return shownText_;
    if (mostTextWidth_ <= 0) return text();
    return QFontMetrics(mFont).elidedText(text(), Qt::ElideRight, mostTextWidth_);
  }

  // The group's series, one paragraph that the tooltip wraps.
  QString tip() const {
    QStringList names = entry_.members.mid(0, kMostMembersListed);
    if (entry_.members.size() > kMostMembersListed) {
      names << QObject::tr("\u2026 and %1 more").arg(entry_.members.size() - kMostMembersListed);
    }
    return QObject::tr("<b>%1</b>: %2 series<br>%3")
        .arg(entry_.label.toHtmlEscaped())
        .arg(entry_.members.size())
        .arg(names.join(QStringLiteral(", ")).toHtmlEscaped());
  }

 protected:
  void draw(QCPPainter* painter) override {
    const QSize icon = mParentLegend->iconSize();
    painter->setFont(mFont);
    painter->setPen(QPen(mTextColor));
    const QString shown = shownText();
    const QRect textRect =
        painter->fontMetrics().boundingRect(0, 0, 0, icon.height(), Qt::TextDontClip, shown);
    const int height = std::max(textRect.height(), icon.height());
    painter->drawText(mRect.x() + icon.width() + mParentLegend->iconTextPadding(), mRect.y(),
                      textRect.width(), height, Qt::TextDontClip, shown);
    const QRect iconRect(QPoint(mRect.x(), mRect.y() + (height - icon.height()) / 2), icon);
    painter->save();
    painter->setClipRect(iconRect, Qt::IntersectClip);
    if (entry_.bar) {
      painter->setPen(ChartView::barOutline(entry_.style));
      painter->setBrush(ChartView::barFill(entry_.style));
      painter->drawRect(iconRect.adjusted(1, 1, -1, -1));
    } else {
      painter->setPen(ChartView::lineOf(entry_.style));
      const double middle = iconRect.center().y() + 0.5;
      painter->drawLine(QLineF(iconRect.left(), middle, iconRect.right() + 1, middle));
      if (!entry_.lineOnly) {
        ChartView::scatterOf(entry_.style)
            .drawShape(painter, QPointF(iconRect.center()) + QPointF(0.5, 0.5));
      }
    }
    painter->restore();
  }

 public:
  QSize minimumOuterSizeHint() const override {
    const QSize icon = mParentLegend->iconSize();
    const QRect textRect =
        QFontMetrics(mFont).boundingRect(0, 0, 0, icon.height(), Qt::TextDontClip, shownText());
    return {icon.width() + mParentLegend->iconTextPadding() + textRect.width() + mMargins.left() +
                mMargins.right(),
            std::max(textRect.height(), icon.height()) + mMargins.top() + mMargins.bottom()};
  }

 private:
  LegendEntry entry_;
  bool compact_ = false;
  int mostTextWidth_ = 0;
  QString shownText_;
};

// A layout column is no wider than the narrowest maximum of its elements, and a legend's is the
// width of its entries (none when it is empty): the legend below the plot would squeeze the plot
// into a strip. This one may be as wide as the chart below it; its height stays what its rows ask.
// Beside the plot it keeps the size it is given.
class FullWidthLegend : public QCPLegend {
 public:
  void setBeside(bool beside) { beside_ = beside; }
  QSize maximumOuterSizeHint() const override {
    if (beside_) return QCPLegend::maximumOuterSizeHint();
    return {QWIDGETSIZE_MAX, QCPLegend::maximumOuterSizeHint().height()};
  }

 private:
  bool beside_ = false;
};

}  // namespace tilescope::ui
