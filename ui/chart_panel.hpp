// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The charts, one tab each, drawn from the results model. Changes to the model only mark the
// charts stale; a short timer rebuilds and replots them, so a sweep's points arrive live without
// a replot per point.
#include <QHBoxLayout>
#include <QHash>
#include <QTabWidget>
#include <QTimer>
#include <QToolButton>
#include <array>
#include <functional>

#include "chart_kind.hpp"
#include "result_analysis.hpp"
#include "results_model.hpp"

namespace tilescope::ui {

class ChartView;
class Presenter;

class ChartPanel : public QTabWidget {
  Q_OBJECT

 public:
  explicit ChartPanel(const desktop::ResultsModel* model, QWidget* parent = nullptr);

  ChartView* chart(desktop::ChartKind kind) const;
  desktop::ChartKind currentChart() const;
  void showChart(desktop::ChartKind kind);
  // Rebuilds every chart from the model at once (normally the throttle timer does it).
  void refresh();
  // Writes one chart, up to date, to `path` at `size`; see exportPlot. Its legend lists every
  // entry. `scale`: image pixels per layout pixel (PNG, JPEG); `largeText`: text and markers as
  // when presenting on a screen of `size`.
  bool exportChart(desktop::ChartKind kind, const QString& path, QSize size, QString* error,
                   double scale = 1, bool largeText = false);
  // Lays `kind` out for a file of `size` (its legend listing every entry, large text if asked),
  // runs `draw` on it (exportChart writes the file; a test records what it draws), then lays it
  // out as shown again. What `draw` returns.
  bool asExported(desktop::ChartKind kind, QSize size, bool largeText,
                  const std::function<bool(ChartView*)>& draw);
  void resetView();

  // Presentation mode: the chart on show alone in a full-screen window, its text sized for a
  // lecture hall (tick labels of 20 px at 1280x720); the arrow keys and Page Up/Down go through the
  // charts, Esc or F11 comes back (Presenter, shared with the diagrams).
  void setPresentationMode(bool on);
  bool presentationMode() const;
  QWidget* presentationWindow() const;
  // Whether a chart has the keyboard focus (it was clicked last): F11 presents it.
  bool chartHasFocus() const;
  // Shows `kind`: in presentation mode, in the full-screen window.
  void presentChart(desktop::ChartKind kind);
  // Puts the window's ? button at the right end of the tab row, beside Present.
  void setHelpButton(QToolButton* button);

  // Second sessions laid over the charts, read-only: their results join every chart as dashed or
  // hollow series marked with `label` ("H200 sample"): phases as runs of their own, the autotune
  // landscape as bars beside the session's configurations. The roofline adds the roofs of their
  // devices: the overlay's measured `ceilings` where it holds them, else the datasheet's.
  // Adding a label again replaces that overlay.
  void addOverlay(const QString& label, std::vector<RunResult> results,
                  std::vector<DeviceCeilings> ceilings = {});
  void removeOverlay(const QString& label);
  void clearOverlays();
  QStringList overlays() const;

 signals:
  // Also emitted when the presentation ends with Esc, F11 or closing its window.
  void presentationModeChanged(bool on);

 private:
  // Takes a chart out of its page (which then says where it went), and puts one back.
  QWidget* takeChart(desktop::ChartKind kind);
  void putBack(QWidget* chart);
  void fitPresentation();
  void scheduleRefresh();
  // The chart's title, with the device when every result comes from one.
  static QString titleFor(desktop::ChartKind kind, const std::vector<RunResult>& results);
  // Each chart drawn again from drawn_ (chart_builders.cpp; the roofline: roofline_chart.cpp).
  void buildAgainstSize(desktop::ChartKind kind);
  void buildTileSweep();
  void buildPhases();
  void buildLandscape();
  void buildRooflineIfStale();
  // The live results followed by every overlay's, and each one's overlay label (empty: live).
  void gatherDrawn();
  // The session's measured ceilings, then each overlay's for the devices the session has not
  // measured.
  std::vector<DeviceCeilings> drawnCeilings() const;

  struct Overlay {
    QString label;
    std::vector<RunResult> results;
    std::vector<DeviceCeilings> ceilings;
  };

  const desktop::ResultsModel* model_;
  std::vector<Overlay> overlays_;
  std::vector<RunResult> drawn_;
  std::vector<QString> drawnOverlay_;
  std::array<ChartView*, std::size(desktop::kAllCharts)> charts_{};
  QTimer refreshTimer_;
  // The roofline's x positions: the traffic model takes milliseconds per configuration, so the
  // roofline is built only while it is shown (or exported), and stale otherwise.
  desktop::IntensityCache intensities_;
  bool rooflineStale_ = true;
  Presenter* presenter_;
  QToolButton* presentButton_ = nullptr;
  QHBoxLayout* cornerLayout_ = nullptr;
};

}  // namespace tilescope::ui
