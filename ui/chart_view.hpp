// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One chart: a QCustomPlot with zoom and pan, a hover tooltip with each point's exact values,
// a legend that lists every entry (below the plot, or beside it), category labels that wrap, turn
// or shorten to fit and stay distinct (the full text on hover), numeric tick labels thinned until
// they stand apart (with SI suffixes: 5k, 10k, 1M), labels placed clear of points and lines, a
// hint in place of a chart that would mean nothing, sharp rendering on high-DPI screens, text
// sized for a desk or for a lecture hall (presenting), and colours taken from the palette so it
// reads in every theme.
#include <qcustomplot.h>
#include <QColor>
#include <QHash>
#include <QPointer>
#include <QStringList>
#include <optional>
#include <vector>

#include "series_style.hpp"

namespace tilescope::ui {

// One legend entry: a kernel (or another group of series) with the names of its series.
struct LegendEntry {
  QString label;
  QStringList members;
  SeriesStyle style;
  bool bar = false;       // drawn as a filled box rather than a line with its marker
  bool lineOnly = false;  // drawn as a line without a marker (the roofline's roofs)
};

// A place a label may take: a point in plot coordinates, the side of the text it anchors, a shift
// of that many label heights up (negative) or down, and the text it shows there.
struct LabelPlace {
  QPointF coords;
  Qt::Alignment alignment = Qt::AlignCenter;
  double shiftHeights = 0;
  QString text = {};  // the label's text there (its lines broken otherwise); empty: as set
};

class ChartView : public QCustomPlot {
  Q_OBJECT

 public:
  explicit ChartView(const QString& title, QWidget* parent = nullptr);
  ~ChartView() override;

  // Removes every plottable, item and tooltip; the axes keep their setup and show again.
  void reset();

  // Text sized for a desk (docked, exported as shown) or for a room: presenting, on a screen of
  // Presenter::fontScale `scale` (at 1280x720 tick labels of 20 px and a title of 29 px).
  void setPresenting(bool presenting, double scale = 1);
  bool presenting() const { return presenting_; }
  // Drawn to a file: the legend lists every entry, whatever room it takes.
  void setExporting(bool exporting);
  double presentingScale() const { return presentScale_; }
  // How much larger markers and lines are drawn than at a desk.
  double drawScale() const;
  // The pixel size of the text of tick labels (and axis labels, legend, labels in the plot) and
  // of the title, as set now.
  int tickPixels() const;
  int titlePixels() const;

  // The legend lists every entry: below the plot in as many columns as the width takes, or beside
  // it in a column when that leaves the plot more room; an entry shows its series (or its group
  // and their count), shortened to the room it has, or only its group when there is little room.
  // Its series are listed on hover. A docked chart (on screen, neither presenting nor exporting)
  // too short for every entry asks for the height they take (its minimum height; ChartPanel
  // holds it in a page that scrolls), the plot keeping its share. Empty hides it.
  void setLegendEntries(const std::vector<LegendEntry>& entries);
  const std::vector<LegendEntry>& legendEntries() const { return legendEntries_; }
  // Whether the legend stands beside the plot, as laid out last.
  bool legendBeside() const { return legendShown_.beside; }
  // One entry per group of `series` (in first-seen order), styled as its first member.
  static std::vector<LegendEntry> groupedLegend(const std::vector<SeriesId>& series,
                                                const std::vector<SeriesStyle>& styles);
  // The user's choice (the chart's context menu): a hidden legend stays hidden.
  void setLegendWanted(bool wanted);
  bool legendWanted() const { return legendWanted_; }

  // Category labels on the x axis at 1, 2, ...: the words every label shares are said once, in
  // the axis label (after `axisLabel`, e.g. "kernels at 512³"); what is left is made distinct and
  // shown horizontal and wrapped when it fits, else turned upright, else shortened (keeping what
  // differs), else every n-th one; a shortened or left-out label shows its full text on hover.
  // Labels of two lines whose first lines repeat over neighbouring bars ("naive tile=16" over
  // "256³", "512³" ...) name the group once, over its bars, and each bar by its second line.
  void setCategories(const QStringList& labels, const QString& axisLabel = {});
  const QStringList& categories() const { return categories_; }
  // The labels as drawn under their bars (before shortening), distinct.
  const QStringList& categoryTexts() const { return categoryTexts_; }

  // Labels placed at the first of their spots where they cover no other label, no point and no
  // line of the chart, else (the spots tried again) no label and no point; at every size the chart
  // is drawn at (screen and export). One with no such spot is hidden at that size, unless
  // `mustShow` (a roof's name): then it takes the free place nearest its first spot just above or
  // below that spot's height (clear of lines where one is, before it would lie over a line at a
  // spot of its own), else the free place of the plot nearest it.
  void keepClear(QCPItemText* label, std::vector<LabelPlace> spots, bool mustShow = false);
  // Labels placed where they ask to be, or one or two of their heights above or below.
  void keepApart(const std::vector<QCPItemText*>& labels);

  // The title as set; drawn broken after its dash and shortened to the chart's width, its full
  // text on hover.
  void setTitle(const QString& title);
  QString title() const;
  QString shownTitle() const;
  // Where the title's text is drawn, as laid out last.
  QRect titleRect() const;
  // Tooltip texts of `plottable`'s points, in data order.
  void setPointTips(QCPAbstractPlottable* plottable, const QStringList& tips);
  // A message in place of the chart (what to run to fill it): no axes, no grid, the words alone.
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
  // The styles of `series` in this chart's theme, drawn at its scale.
  std::vector<SeriesStyle> stylesOf(const std::vector<SeriesId>& series) const;
  // A plain style (bars of phases and autotune groups) in `color` at this chart's scale.
  SeriesStyle plainStyle(const QColor& color, bool overlaid = false, double lineWidth = 2) const;
  // The marker of a series in `style`, `size` pixels across.
  static QCPScatterStyle scatterOf(const SeriesStyle& style, double size = 7);
  // The line of a series in `style`, and the outline and fill of its bars.
  static QPen lineOf(const SeriesStyle& style);
  static QPen barOutline(const SeriesStyle& style);
  static QBrush barFill(const SeriesStyle& style);
  static void styleBars(QCPBars* bars, const SeriesStyle& style);
  // Makes an axis logarithmic with plain numbers as labels: powers of `base`, or 1-2-5 steps
  // for base 10, thinned until the labels stand apart.
  static void makeLogarithmic(QCPAxis* axis, double base);
  // Makes an axis linear with 1-2-5 steps, thinned until the labels stand apart.
  static void makeLinear(QCPAxis* axis);
  // A tick label: "0.5", "250", "1024", "5k", "10k", "1.5M" (SI suffixes where they are exact).
  static QString tickText(double value);

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
  // The least height of a chart (a docked one asks for more to list its legend).
  static constexpr int kLeastChartHeight = 220;
  void applyPalette();
  void applyText();
  void followScreen();
  QString tipAt(const QPointF& position) const;
  // After each layout (screen or export): legend, category and tick labels, axis labels and
  // title for the size just laid out, then again while they change the layout; then the labels
  // kept clear and the placeholder. The legend's part is in chart_legend.cpp, the ticks' in
  // chart_ticks.cpp, the categories' in chart_categories.cpp, the labels kept clear in
  // chart_labels.cpp.
  void fitToLayout();
  bool fitTitle();
  bool fitAxisLabels();
  bool fitTicks();
  void fitPlaceholder();
  // How the legend is shown: beside or below, full or compact entries, their widest text,
  // columns, and the size that takes.
  struct LegendShown {
    bool beside = false;
    bool compact = false;
    int mostTextWidth = 0, columns = 0, width = 0, height = 0;
    int oneRow = 0;          // the height of its first row, with its margins
    bool fits = true;        // within the room the plot leaves it
    bool shortened = false;  // its entries cut to columns narrower than they are
    bool operator==(const LegendShown&) const = default;
  };
  // `runsOn`: the legend may run on below the height (a docked chart grows for it).
  LegendShown legendFor(QSize size, bool runsOn = false) const;
  bool fitLegend();
  // Docked and too short for every entry, the chart asks for more height (its minimum).
  void askRoomForLegend();
  // The height the chart is seen at: a docked chart grown for its legend is seen at its page's.
  int seenHeight() const;
  // Where the legend stands: beside the plot, below it, or (hidden) out of the layout.
  enum class LegendPlace { Below, Beside, Nowhere };
  void placeLegend(LegendPlace place);
  bool fitCategories();
  void placeLabelsClear();
  // A y axis's title longer than its plot is tall, drawn beside the plot over the height the
  // chart has there (between the title and the legend below), as near the plot's middle as fits.
  void placeYTitle();
  // The y axis's label while placeYTitle() draws `title`: blank, yet as many lines as the title
  // takes there, to keep its room.
  QString besidePlotLabel(const QString& title) const;
  // The title's lines beside the plot: whole, on two lines, else shortened; and the room there.
  QString besidePlotText(const QString& title) const;
  double besidePlotTop() const;
  double besidePlotBottom() const;

  QCPTextElement* title_ = nullptr;
  QString fullTitle_;
  QCPLayoutGrid* body_ = nullptr;  // the plot, and the legend when it stands beside it
  std::vector<LegendEntry> legendEntries_;
  LegendShown legendShown_;
  // The height a docked chart asks for, worked out for its width, the height it is seen at and
  // its title's height; and the legend it grew for, if it grew.
  struct LegendRoom {
    int width = -1, seenHeight = -1, titleHeight = -1, height = 0;
    std::optional<LegendShown> grown;
  };
  LegendRoom legendRoom_;
  QCPItemText* placeholder_ = nullptr;
  QCPItemText* yTitle_ = nullptr;  // see placeYTitle()
  QString placeholderText_;        // unbroken: fitPlaceholder() breaks it to the chart's width
  QHash<QCPAbstractPlottable*, QStringList> tips_;
  bool screenFollowed_ = false;
  bool userMovedView_ = false;
  QPointF pressPosition_;
  bool legendWanted_ = true;
  bool fittingLayout_ = false;
  bool presenting_ = false;
  bool exporting_ = false;
  double presentScale_ = 1;
  QStringList categories_;     // full texts, for hover
  QStringList categoryTexts_;  // what is left after the shared words, distinct
  // Runs of bars that share a first line, named once over them (the top axis).
  struct Group {
    QString name;  // the first line in full
    QString text;  // less the words every group shares
    int first = 0, count = 0;
  };
  std::vector<Group> groups_;
  QString categoryAxisLabel_;
  // Each axis's label as set, and as shortened to its length last.
  QHash<QCPAxis*, QString> fullAxisLabels_, shownAxisLabels_;
  // The labels kept clear, each with its spots and its text as set.
  struct KeptClear {
    QPointer<QCPItemText> label;
    std::vector<LabelPlace> spots;
    QString text;
    bool mustShow = false;
  };
  std::vector<KeptClear> clear_;
};

}  // namespace tilescope::ui
