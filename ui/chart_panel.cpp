#include "chart_panel.hpp"

#include <QMap>
#include <QSet>
#include <algorithm>

#include "chart_export.hpp"
#include "chart_view.hpp"
#include "formatting.hpp"
#include "plan/autotune.hpp"
#include "result_analysis.hpp"
#include "roofline_chart.hpp"

namespace tilescope::ui {
namespace {

using app::ChartKind;

// Long enough to gather the points of a fast sweep into one replot, short enough to feel live.
constexpr int kRefreshIntervalMs = 200;

struct ChartText {
  const char* tab;
  const char* title;
  const char* tip;
};

ChartText textOf(ChartKind kind) {
  switch (kind) {
    case ChartKind::Time:
      return {"Time", "Median time against size",
              "Median time of one multiplication against the matrix size (log scales)"};
    case ChartKind::Rate:
      return {"GFLOP/s", "Throughput against size",
              "Useful work per second, 2MNK / median time, against the matrix size"};
    case ChartKind::TileSweep:
      return {"Tile sweep", "Median time against tile size",
              "Every measured tile of each kernel and size, as in seed 004's tables"};
    case ChartKind::Phases:
      return {"Phases", "Copy and kernel time per run",
              "Host-to-device copy, kernel and device-to-host copy, stacked (GPU backends)"};
    case ChartKind::Library:
      return {"vs library", "Percent of the library reference",
              "How close each kernel comes to OpenBLAS / cuBLAS on the same problem"};
    case ChartKind::Landscape:
      return {"Autotune", "Autotune landscape",
              "GFLOP/s of every configuration of the latest kernel and size, fastest first"};
    case ChartKind::Roofline:
      return {"Roofline", "Roofline",
              "GFLOP/s against arithmetic intensity (traffic model) under the device's measured "
              "and datasheet ceilings"};
  }
  return {"", "", ""};
}

QString seriesOf(const RunResult& result, bool mixed) {
  return QString::fromStdString(app::seriesName(result, mixed));
}

void styleLine(QCPGraph* graph, const QColor& color) {
  graph->setPen(QPen(color, 2));
  graph->setLineStyle(QCPGraph::lsLine);
  graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(color, 1.5), color, 7));
}

// An overlay's series is dashed with hollow markers: measured elsewhere, read-only.
void markOverlay(QCPGraph* graph) {
  QPen pen = graph->pen();
  pen.setStyle(Qt::DashLine);
  graph->setPen(pen);
  QCPScatterStyle scatter = graph->scatterStyle();
  scatter.setBrush(Qt::NoBrush);
  graph->setScatterStyle(scatter);
}

bool allSquare(const std::vector<RunResult>& results) {
  return std::all_of(results.begin(), results.end(), [](const RunResult& result) {
    return result.shape.m == result.shape.n && result.shape.n == result.shape.k;
  });
}

// The title, with the device when every result comes from one.
QString titleFor(ChartKind kind, const std::vector<RunResult>& results) {
  QString title = QString::fromLatin1(textOf(kind).title);
  if (!results.empty() && !app::mixesDevices(results)) {
    title += QStringLiteral(" \u2014 %1 (%2)")
                 .arg(QString::fromStdString(results.front().device),
                      QString::fromStdString(results.front().backend));
  }
  return title;
}

}  // namespace

ChartPanel::ChartPanel(const app::ResultsModel* model, QWidget* parent)
    : QTabWidget(parent), model_(model) {
  setDocumentMode(true);
  for (ChartKind kind : app::kAllCharts) {
    auto* view = new ChartView(QString::fromLatin1(textOf(kind).title), this);
    view->setObjectName(app::chartId(kind));
    charts_[std::size_t(kind)] = view;
    const int tab = addTab(view, tr(textOf(kind).tab));
    setTabToolTip(tab, tr(textOf(kind).tip));
    connect(view, &ChartView::skinChanged, this, &ChartPanel::scheduleRefresh);
  }
  chart(ChartKind::Time)->yAxis->setLabel(tr("median time (ms)"));
  chart(ChartKind::Rate)->yAxis->setLabel(tr("GFLOP/s"));
  chart(ChartKind::Library)->yAxis->setLabel(tr("% of the library's speed"));
  for (ChartKind kind : {ChartKind::Time, ChartKind::Rate, ChartKind::Library}) {
    ChartView::makeLogarithmic(chart(kind)->xAxis, 2);
    if (kind != ChartKind::Library) ChartView::makeLogarithmic(chart(kind)->yAxis, 10);
  }
  ChartView* tiles = chart(ChartKind::TileSweep);
  ChartView::makeLogarithmic(tiles->xAxis, 2);
  ChartView::makeLogarithmic(tiles->yAxis, 10);
  tiles->xAxis->setLabel(tr("tile size T"));
  tiles->yAxis->setLabel(tr("median time (ms)"));
  chart(ChartKind::Phases)->yAxis->setLabel(tr("time per repetition (ms)"));
  chart(ChartKind::Landscape)->yAxis->setLabel(tr("GFLOP/s"));
  ChartView* roofline = chart(ChartKind::Roofline);
  ChartView::makeLogarithmic(roofline->xAxis, 10);
  ChartView::makeLogarithmic(roofline->yAxis, 10);
  roofline->xAxis->setLabel(tr("arithmetic intensity (FLOP per byte of global memory)"));
  roofline->yAxis->setLabel(tr("GFLOP/s"));

  connect(this, &QTabWidget::currentChanged, this, [this] {
    if (currentChart() != ChartKind::Roofline || !rooflineStale_) return;
    buildRooflineIfStale();
    chart(ChartKind::Roofline)->replot(QCustomPlot::rpQueuedReplot);
  });
  refreshTimer_.setSingleShot(true);
  refreshTimer_.setInterval(kRefreshIntervalMs);
  connect(&refreshTimer_, &QTimer::timeout, this, &ChartPanel::refresh);
  connect(model_, &QAbstractItemModel::rowsInserted, this, &ChartPanel::scheduleRefresh);
  connect(model_, &QAbstractItemModel::dataChanged, this, &ChartPanel::scheduleRefresh);
  connect(model_, &app::ResultsModel::ceilingsChanged, this, &ChartPanel::scheduleRefresh);
  connect(model_, &QAbstractItemModel::modelReset, this, [this] {
    for (QHash<QString, int>& colors : seriesColors_) colors.clear();
    for (ChartView* view : charts_) view->resetView();
    scheduleRefresh();
  });
  refresh();
}

ChartView* ChartPanel::chart(ChartKind kind) const {
  return charts_[std::size_t(kind)];
}

ChartKind ChartPanel::currentChart() const {
  return app::kAllCharts[std::max(currentIndex(), 0)];
}

void ChartPanel::showChart(ChartKind kind) {
  setCurrentIndex(int(kind));
}

void ChartPanel::scheduleRefresh() {
  if (!refreshTimer_.isActive()) refreshTimer_.start();
}

int ChartPanel::colorIndex(ChartKind kind, const QString& series) {
  QHash<QString, int>& colors = seriesColors_[std::size_t(kind)];
  const auto found = colors.constFind(series);
  if (found != colors.constEnd()) return *found;
  const int index = int(colors.size());
  colors.insert(series, index);
  return index;
}

void ChartPanel::addOverlay(const QString& label, std::vector<RunResult> results) {
  removeOverlay(label);
  overlays_.emplace_back(label, std::move(results));
  scheduleRefresh();
}

void ChartPanel::removeOverlay(const QString& label) {
  std::erase_if(overlays_, [&](const auto& overlay) { return overlay.first == label; });
  scheduleRefresh();
}

void ChartPanel::clearOverlays() {
  overlays_.clear();
  scheduleRefresh();
}

QStringList ChartPanel::overlays() const {
  QStringList labels;
  for (const auto& overlay : overlays_) labels << overlay.first;
  return labels;
}

void ChartPanel::gatherDrawn() {
  drawn_ = model_->results();
  drawnOverlay_.assign(drawn_.size(), QString());
  for (const auto& [label, results] : overlays_) {
    drawn_.insert(drawn_.end(), results.begin(), results.end());
    drawnOverlay_.insert(drawnOverlay_.end(), results.size(), label);
  }
}

QString ChartPanel::drawnSeries(std::size_t drawnIndex, bool mixed) const {
  const QString& overlay = drawnOverlay_[drawnIndex];
  // An overlay's label already names its device.
  return QString::fromStdString(
      app::seriesName(drawn_[drawnIndex], mixed && overlay.isEmpty(), overlay.toStdString()));
}

void ChartPanel::refresh() {
  refreshTimer_.stop();
  gatherDrawn();
  buildAgainstSize(ChartKind::Time);
  buildAgainstSize(ChartKind::Rate);
  buildAgainstSize(ChartKind::Library);
  buildTileSweep();
  buildPhases();
  buildLandscape();
  rooflineStale_ = true;
  if (currentChart() == ChartKind::Roofline) buildRooflineIfStale();
  for (ChartView* view : charts_) view->replot(QCustomPlot::rpQueuedReplot);
}

void ChartPanel::resetView() {
  for (ChartView* view : charts_) {
    view->resetView();
    view->replot(QCustomPlot::rpQueuedReplot);
  }
}

bool ChartPanel::exportChart(ChartKind kind, const QString& path, QSize size, QString* error) {
  refresh();
  if (kind == ChartKind::Roofline) buildRooflineIfStale();
  return exportPlot(chart(kind), chart(kind)->title(), path, size, error);
}

void ChartPanel::buildAgainstSize(ChartKind kind) {
  ChartView* view = chart(kind);
  view->reset();
  const std::vector<RunResult>& results = drawn_;
  const bool mixed = app::mixesDevices(model_->results());
  // Per series, the latest result at each size (a rerun replaces the earlier point).
  QStringList order;
  QSet<QString> overlaid;
  QHash<QString, QMap<double, std::size_t>> series;
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (kind == ChartKind::Library &&
        (results[i].kernel.kernel == app::kLibraryKernel || !app::percentOfLibrary(results, i))) {
      continue;
    }
    const QString name = drawnSeries(i, mixed);
    if (!series.contains(name)) order << name;
    if (!drawnOverlay_[i].isEmpty()) overlaid.insert(name);
    series[name][app::nominalSize(results[i].shape)] = i;
  }
  double highest = 0;
  for (const QString& name : order) {
    QCPGraph* graph = view->addGraph();
    graph->setName(name);
    styleLine(graph, view->seriesColor(colorIndex(kind, name)));
    if (overlaid.contains(name)) markOverlay(graph);
    QStringList tips;
    for (auto point = series[name].cbegin(); point != series[name].cend(); ++point) {
      const RunResult& result = results[point.value()];
      double value = result.stats.medianMs;
      QString tip = app::describeResult(result);
      if (kind == ChartKind::Rate) value = result.gflops;
      if (kind == ChartKind::Library) {
        value = *app::percentOfLibrary(results, point.value());
        tip += tr("<br><b>%1 %</b> of the library's speed").arg(value, 0, 'f', 1);
      }
      highest = std::max(highest, value);
      graph->addData(point.key(), value);
      tips << tip;
    }
    view->setPointTips(graph, tips);
  }
  view->setTitle(titleFor(kind, model_->results()));
  view->xAxis->setLabel(allSquare(results) ? tr("size N (M = N = K)")
                                           : tr("size (cube root of M\u00b7N\u00b7K)"));
  view->showLegend(!order.isEmpty());
  if (order.isEmpty()) {
    view->showPlaceholder(kind == ChartKind::Library
                              ? tr("Run the library kernel at the same sizes\nas the others to "
                                   "compare them with it")
                              : tr("Press Run (Ctrl+R): each finished run adds a point"));
    return;
  }
  if (kind == ChartKind::Library) {
    auto* reference = new QCPItemStraightLine(view);
    reference->point1->setCoords(1, 100);
    reference->point2->setCoords(2, 100);
    reference->setPen(QPen(view->palette().color(QPalette::Text), 1, Qt::DashLine));
    if (view->autoFit()) view->yAxis->setRange(0, std::max(110.0, highest * 1.1));
    return;
  }
  view->autoFit();
}

void ChartPanel::buildTileSweep() {
  ChartView* view = chart(ChartKind::TileSweep);
  view->reset();
  const std::vector<RunResult>& results = drawn_;
  const bool mixed = app::mixesDevices(model_->results());
  QStringList order;
  QSet<QString> overlaid;
  QHash<QString, QMap<int, std::size_t>> series;
  std::vector<RunResult> swept;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const RunResult& result = results[i];
    const auto tile = result.kernel.params.find("tile");
    if (tile == result.kernel.params.end()) continue;
    // One series per kernel (and its other parameters) at one size.
    RunResult withoutTile = result;
    withoutTile.kernel.params.erase("tile");
    const QString& overlay = drawnOverlay_[i];
    const QString name = QString::fromStdString(app::seriesName(
                             withoutTile, mixed && overlay.isEmpty(), overlay.toStdString())) +
                         QStringLiteral(" at ") + app::formatShape(result.shape);
    if (!series.contains(name)) order << name;
    if (!overlay.isEmpty()) overlaid.insert(name);
    series[name][tile->second] = i;
    if (overlay.isEmpty()) swept.push_back(result);
  }
  for (const QString& name : order) {
    QCPGraph* graph = view->addGraph();
    graph->setName(name);
    styleLine(graph, view->seriesColor(colorIndex(ChartKind::TileSweep, name)));
    if (overlaid.contains(name)) markOverlay(graph);
    QStringList tips;
    for (auto point = series[name].cbegin(); point != series[name].cend(); ++point) {
      graph->addData(point.key(), results[point.value()].stats.medianMs);
      tips << app::describeResult(results[point.value()]);
    }
    view->setPointTips(graph, tips);
  }
  view->setTitle(titleFor(ChartKind::TileSweep, swept));
  view->showLegend(!order.isEmpty());
  if (order.isEmpty()) {
    view->showPlaceholder(
        tr("Choose a tiled kernel and the Tile sweep, then Run:\nevery valid tile is measured, "
           "as in seed 004's tables"));
    return;
  }
  view->autoFit();
}

void ChartPanel::buildPhases() {
  ChartView* view = chart(ChartKind::Phases);
  view->reset();
  const std::vector<RunResult>& results = model_->results();
  std::vector<RunResult> phased;
  std::copy_if(results.begin(), results.end(), std::back_inserter(phased),
               [](const RunResult& result) { return result.phases.has_value(); });
  view->setTitle(titleFor(ChartKind::Phases, phased));
  view->showLegend(!phased.empty());
  if (phased.empty()) {
    view->xAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    view->showPlaceholder(
        tr("Copies and kernel are timed apart on the CUDA backend;\nthe CPU backend has no "
           "host-to-device copies"));
    return;
  }
  const struct {
    const char* name;
    double Phases::*field;
  } parts[] = {{"host to device", &Phases::h2dMs},
               {"kernel", &Phases::kernelMs},
               {"device to host", &Phases::d2hMs}};
  auto labels = QSharedPointer<QCPAxisTickerText>::create();
  QCPBars* below = nullptr;
  for (std::size_t part = 0; part < std::size(parts); ++part) {
    auto* bars = new QCPBars(view->xAxis, view->yAxis);
    bars->setName(tr(parts[part].name));
    const QColor color = view->seriesColor(int(part));
    bars->setPen(QPen(color.darker(130)));
    bars->setBrush(color);
    bars->setWidth(0.6);
    if (below) bars->moveAbove(below);
    below = bars;
    QStringList tips;
    for (std::size_t i = 0; i < phased.size(); ++i) {
      const double ms = (*phased[i].phases).*parts[part].field;
      bars->addData(double(i + 1), ms);
      tips << tr("<b>%1: %2 ms</b><br>").arg(tr(parts[part].name), app::formatMs(ms)) +
                  app::describeResult(phased[i]);
      if (part == 0) {
        labels->addTick(double(i + 1), seriesOf(phased[i], false) + QLatin1Char('\n') +
                                           app::formatShape(phased[i].shape));
      }
    }
    view->setPointTips(bars, tips);
  }
  view->xAxis->setTicker(labels);
  view->xAxis->setTickLabelRotation(phased.size() > 6 ? 30 : 0);
  if (view->autoFit()) {
    view->xAxis->setRange(0.3, double(phased.size()) + 0.7);
    view->yAxis->setRange(0, view->yAxis->range().upper);
  }
}

void ChartPanel::buildLandscape() {
  ChartView* view = chart(ChartKind::Landscape);
  view->reset();
  const std::vector<RunResult> landscape = app::landscapeOf(model_->results());
  view->showLegend(!landscape.empty());
  if (landscape.empty()) {
    view->setTitle(titleFor(ChartKind::Landscape, landscape));
    view->xAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    view->showPlaceholder(
        tr("Press Autotune (Ctrl+T): every valid configuration of the chosen\n"
           "kernel is measured at the chosen size, fastest first"));
    return;
  }
  const RunResult& sample = landscape.front();
  view->setTitle(
      titleFor(ChartKind::Landscape, landscape) +
      QStringLiteral("\n%1 at %2, %3 configurations")
          .arg(QString::fromStdString(sample.kernel.kernel), app::formatShape(sample.shape))
          .arg(landscape.size()));
  const std::optional<RunResult> best = plan::fastestVerified(landscape);
  // The best verified configuration stands out; failed verification is greyed, never hidden.
  enum Group { Best, Verified, Unverified };
  const QColor colors[] = {view->seriesColor(1), view->seriesColor(0),
                           view->palette().color(QPalette::Disabled, QPalette::Text)};
  const char* names[] = {"fastest verified", "verified", "not verified"};
  std::array<QCPBars*, 3> bars{};
  std::array<QStringList, 3> tips;
  auto labels = QSharedPointer<QCPAxisTickerText>::create();
  // Parameter labels only while they fit under the bars.
  const bool labelled = landscape.size() <= 24;
  for (std::size_t rank = 0; rank < landscape.size(); ++rank) {
    const RunResult& result = landscape[rank];
    const Group group = best && result.kernel == best->kernel ? Best
                        : result.verified()                   ? Verified
                                                              : Unverified;
    if (!bars[group]) {
      bars[group] = new QCPBars(view->xAxis, view->yAxis);
      bars[group]->setName(tr(names[group]));
      bars[group]->setPen(QPen(colors[group].darker(130)));
      bars[group]->setBrush(colors[group]);
      bars[group]->setWidth(0.7);
    }
    bars[group]->addData(double(rank + 1), result.gflops);
    tips[group] << app::describeResult(result);
    const QString params = QString::fromStdString(formatParams(result.kernel));
    labels->addTick(double(rank + 1), labelled ? params : QString::number(rank + 1));
  }
  for (std::size_t group = 0; group < bars.size(); ++group) {
    if (bars[group]) view->setPointTips(bars[group], tips[group]);
  }
  if (labelled) {
    view->xAxis->setTicker(labels);
    view->xAxis->setTickLabelRotation(landscape.size() > 6 ? -90 : 0);
    view->xAxis->setLabel(QString());
  } else {
    view->xAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    view->xAxis->setTickLabelRotation(0);
    view->xAxis->setLabel(tr("rank (hover a bar for its parameters)"));
  }
  if (view->autoFit()) {
    view->xAxis->setRange(0.3, double(landscape.size()) + 0.7);
    view->yAxis->setRange(0, view->yAxis->range().upper);
  }
}

void ChartPanel::buildRooflineIfStale() {
  if (!rooflineStale_) return;
  rooflineStale_ = false;
  ChartView* view = chart(ChartKind::Roofline);
  view->reset();
  const std::vector<RunResult>& results = model_->results();
  view->setTitle(titleFor(ChartKind::Roofline, results));
  drawRoofline(view, results, model_->ceilings(), intensities_,
               [this](const QString& series) { return colorIndex(ChartKind::Roofline, series); });
}

}  // namespace tilescope::ui
