// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The charts, one tab each, drawn from the results model. Changes to the model only mark the
// charts stale; a short timer rebuilds and replots them, so a sweep's points arrive live without
// a replot per point.
#include <QHash>
#include <QTabWidget>
#include <QTimer>
#include <array>

#include "chart_kind.hpp"
#include "result_analysis.hpp"
#include "results_model.hpp"

namespace tilescope::ui {

class ChartView;

class ChartPanel : public QTabWidget {
  Q_OBJECT

 public:
  explicit ChartPanel(const desktop::ResultsModel* model, QWidget* parent = nullptr);

  ChartView* chart(desktop::ChartKind kind) const;
  desktop::ChartKind currentChart() const;
  void showChart(desktop::ChartKind kind);
  // Rebuilds every chart from the model at once (normally the throttle timer does it).
  void refresh();
  // Writes one chart, up to date, to `path` at `size`; see exportPlot.
  bool exportChart(desktop::ChartKind kind, const QString& path, QSize size, QString* error);
  void resetView();

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

 private:
  void scheduleRefresh();
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
};

}  // namespace tilescope::ui
