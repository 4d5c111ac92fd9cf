#pragma once
// One chart: a QCustomPlot with zoom and pan, a hover tooltip with each point's exact values,
// a centred hint while it has no data, sharp rendering on high-DPI screens, and colours taken
// from the palette so it reads in dark and light themes.
#include <qcustomplot.h>
#include <QColor>
#include <QHash>
#include <QStringList>

namespace tilescope::ui {

class ChartView : public QCustomPlot {
  static constexpr int kLegendColumns = 2;

  Q_OBJECT

 public:
  explicit ChartView(const QString& title, QWidget* parent = nullptr);

  // Removes every plottable, item and tooltip; the axes keep their setup.
  void reset();
  // Shows (or hides) the legend below the plot with room for every entry; call it once the
  // chart's plottables are in place.
  void showLegend(bool visible);
  void setTitle(const QString& title);
  QString title() const;
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
  // Forgets the user's zoom and pan and fits (double-click does the same).
  void resetView();
  // The i-th series colour, chosen for the current palette.
  QColor seriesColor(int index) const;
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

 private:
  void applyPalette();
  void followScreen();
  QString tipAt(const QPointF& position) const;

  QCPTextElement* title_ = nullptr;
  QCPItemText* placeholder_ = nullptr;
  QHash<QCPAbstractPlottable*, QStringList> tips_;
  bool screenFollowed_ = false;
  bool userMovedView_ = false;
  QPointF pressPosition_;
};

}  // namespace tilescope::ui
