// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One chart: a QCustomPlot with zoom and pan, a hover tooltip with each point's exact values,
// a legend of one entry per kernel (its variants on hover), category labels that wrap, turn or
// shorten to fit (the full text on hover), labels kept apart, a hint in place of a chart that
// would mean nothing, sharp rendering on high-DPI screens, and colours taken from the palette so
// it reads in every theme.
#include <qcustomplot.h>
#include <QColor>
#include <QHash>
#include <QPointer>
#include <QStringList>
#include <vector>

#include "series_style.hpp"

namespace tilescope::ui {

// One legend entry: a kernel (or another group of series) with the names of its series.
struct LegendEntry {
  QString label;
  QStringList members;
  SeriesStyle style;
  bool bar = false;  // drawn as a filled box rather than a line with its marker
};

class ChartView : public QCustomPlot {
  Q_OBJECT

 public:
  explicit ChartView(const QString& title, QWidget* parent = nullptr);

  // Removes every plottable, item and tooltip; the axes keep their setup.
  void reset();
  // The legend below the plot: one entry each, in as many columns as the width takes, so it
  // asks for few rows however many series a group holds. Where the entries would take more than
  // a share of the chart's height they show only their group (the kernel), then the rows that
  // fit end in "+ n more", listed on hover: the plot keeps its room. Empty hides it.
  void setLegendEntries(const std::vector<LegendEntry>& entries);
  const std::vector<LegendEntry>& legendEntries() const { return legendEntries_; }
  // One entry per group of `series` (in first-seen order), styled as its first member.
  static std::vector<LegendEntry> groupedLegend(const std::vector<SeriesId>& series,
                                                const std::vector<SeriesStyle>& styles);
  // The user's choice (the chart's context menu): a hidden legend stays hidden.
  void setLegendWanted(bool wanted);
  bool legendWanted() const { return legendWanted_; }
  // Category labels on the x axis at 1, 2, ...: horizontal and wrapped when they fit, else
  // turned upright, else shortened; a shortened label shows its full text on hover.
  void setCategories(const QStringList& labels);
  const QStringList& categories() const { return categories_; }
  // Labels placed where they are asked for, moved up or down as little as needed so that no two
  // overlap, at every size the chart is drawn at (screen and export). One that would have to
  // move more than two of its heights (so far it would name the wrong line) or leave the plot is
  // hidden at that size.
  void keepApart(const std::vector<QCPItemText*>& labels);
  // The title as set; drawn shortened to the chart's width, its full text on hover.
  void setTitle(const QString& title);
  QString title() const;
  QString shownTitle() const;
  // Where the title's text is drawn, as laid out last.
  QRect titleRect() const;
  // Tooltip texts of `plottable`'s points, in data order.
  void setPointTips(QCPAbstractPlottable* plottable, const QStringList& tips);
  // A hint drawn in the middle of the chart, e.g. what to run to fill it.
  void showPlaceholder(const QString& text);
  bool hasPlaceholder() const { return placeholder_ != nullptr; }
  // Axes fitted to the data with a margin (multiplicative on logarithmic axes).
  void fitToData();
  // Fits unless the user has zoomed or panned since the last reset, so new points arriving
  // during a sweep do not snatch the view away. True when it fitted.
  bool autoFit();
  bool userMovedView() const { return userMovedView_; }
  // Forgets the user's zoom and pan and fits (double-click does the same).
  void resetView();
  // What the chart draws on, for the series palette.
  Contrast contrast() const;
  // The i-th colour of series that are not kernels (phases, autotune groups).
  QColor plainColor(int index) const;
  // The marker of a series in `style`, `size` pixels across.
  static QCPScatterStyle scatterOf(const SeriesStyle& style, double size = 7);
  // The line of a series in `style`, and the outline and fill of its bars.
  static QPen lineOf(const SeriesStyle& style);
  static QPen barOutline(const SeriesStyle& style);
  static QBrush barFill(const SeriesStyle& style);
  static void styleBars(QCPBars* bars, const SeriesStyle& style);
  // Makes an axis logarithmic with plain numbers as labels: powers of `base`, or 1-2-5 steps
  // for base 10.
  static void makeLogarithmic(QCPAxis* axis, double base);

 signals:
  // The palette changed: whoever filled the chart should fill it again with the new colours.
  void skinChanged();

 protected:
  void showEvent(QShowEvent* event) override;
  void changeEvent(QEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void leaveEvent(QEvent* event) override;
  void contextMenuEvent(QContextMenuEvent* event) override;

 private:
  void applyPalette();
  void followScreen();
  QString tipAt(const QPointF& position) const;
  // After each layout (screen or export): legend columns, category labels and kept-apart labels
  // for the size just laid out; lays out again when the legend or the axis labels changed size.
  void fitToLayout();
  bool fitTitle();
  void fitPlaceholder();
  // How the legend is shown: full or compact entries, their widest text, columns, how many
  // entries (the rest behind "+ n more") and the height that takes.
  struct LegendShown {
    bool compact = false;
    int mostTextWidth = 0, columns = 0, entries = 0, height = 0;
    bool operator==(const LegendShown&) const = default;
  };
  LegendShown legendFor(int width, int mostHeight) const;
  bool fitLegend();
  bool fitCategories();
  void placeLabelsApart();

  QCPTextElement* title_ = nullptr;
  QString fullTitle_;
  std::vector<LegendEntry> legendEntries_;
  LegendShown legendShown_;
  QCPItemText* placeholder_ = nullptr;
  QString placeholderText_;  // unbroken: fitPlaceholder() breaks it to the plot's width
  QHash<QCPAbstractPlottable*, QStringList> tips_;
  bool screenFollowed_ = false;
  bool userMovedView_ = false;
  QPointF pressPosition_;
  bool legendWanted_ = true;
  bool fittingLayout_ = false;
  QStringList categories_;
  // The labels kept apart, each with the position it asks for (plot coordinates).
  std::vector<std::pair<QPointer<QCPItemText>, QPointF>> apart_;
};

}  // namespace tilescope::ui
