// SPDX-License-Identifier: GPL-3.0-or-later
#include "chart_panel.hpp"

#include <QApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>

#include "chart_export.hpp"
#include "chart_view.hpp"
#include "presenter.hpp"
#include "result_analysis.hpp"
#include "roofline_chart.hpp"

namespace tilescope::ui {
namespace {

using desktop::ChartKind;

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
              "GFLOP/s against arithmetic intensity (FLOP per byte of global memory, traffic "
              "model) under the device's measured and datasheet ceilings"};
  }
  return {"", "", ""};
}

}  // namespace

QString ChartPanel::titleFor(ChartKind kind, const std::vector<RunResult>& results) {
  QString title = QString::fromLatin1(textOf(kind).title);
  if (!results.empty() && !desktop::mixesDevices(results)) {
    title += QStringLiteral(" \u2014 %1 (%2)")
                 .arg(QString::fromStdString(results.front().device),
                      QString::fromStdString(results.front().backend));
  }
  return title;
}

ChartPanel::ChartPanel(const desktop::ResultsModel* model, QWidget* parent)
    : QTabWidget(parent), model_(model), presenter_(new Presenter(this)) {
  setDocumentMode(true);
  for (ChartKind kind : desktop::kAllCharts) {
    // Each chart in a page of its own, which says where it went while it is presented.
    auto* page = new QWidget;
    auto* layout = new QVBoxLayout(page);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* note = new QLabel(tr("Presenting full screen: press Esc to come back."));
    note->setAlignment(Qt::AlignCenter);
    note->hide();
    layout->addWidget(note);
    // A docked chart too short for its legend grows taller than the page, which then scrolls.
    auto* scroll = new QScrollArea;
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidgetResizable(true);
    auto* view = new ChartView(QString::fromLatin1(textOf(kind).title));
    view->setObjectName(desktop::chartId(kind));
    scroll->setWidget(view);
    // The page is never smaller than the least chart (the docks are laid out with it).
    scroll->setMinimumSize(view->minimumSize());
    layout->addWidget(scroll, 1);
    charts_[std::size_t(kind)] = view;
    const int tab = addTab(page, tr(textOf(kind).tab));
    setTabToolTip(tab, tr(textOf(kind).tip));
    connect(view, &ChartView::skinChanged, this, &ChartPanel::scheduleRefresh);
  }
  // Present, and the window's help button beside it, at the right end of the tab row.
  auto* corner = new QWidget;
  cornerLayout_ = new QHBoxLayout(corner);
  cornerLayout_->setContentsMargins(0, 0, 4, 0);
  presentButton_ = new QToolButton;
  presentButton_->setObjectName(QStringLiteral("presentChartButton"));
  presentButton_->setText(tr("Present"));
  presentButton_->setCheckable(true);
  presentButton_->setAutoRaise(true);
  presentButton_->setToolTip(
      tr("This chart full screen with large text, for a lecture hall; the arrow keys go through "
         "the charts, Esc or F11 comes back"));
  connect(presentButton_, &QToolButton::toggled, this, &ChartPanel::setPresentationMode);
  cornerLayout_->addWidget(presentButton_);
  setCornerWidget(corner, Qt::TopRightCorner);
  connect(presenter_, &Presenter::endRequested, this, [this] { setPresentationMode(false); });
  connect(presenter_, &Presenter::resized, this, &ChartPanel::fitPresentation);
  connect(presenter_, &Presenter::keyPressed, this, [this](int key) {
    const int count = int(std::size(desktop::kAllCharts));
    if (key == Qt::Key_Right || key == Qt::Key_Down || key == Qt::Key_PageDown)
      presentChart(desktop::kAllCharts[(int(currentChart()) + 1) % count]);
    else if (key == Qt::Key_Left || key == Qt::Key_Up || key == Qt::Key_PageUp)
      presentChart(desktop::kAllCharts[(int(currentChart()) + count - 1) % count]);
  });
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
  // Short enough for one line under a docked plot; the tab's tooltip says whose bytes.
  roofline->xAxis->setLabel(tr("arithmetic intensity (FLOP/byte)"));
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
  connect(model_, &desktop::ResultsModel::ceilingsChanged, this, &ChartPanel::scheduleRefresh);
  connect(model_, &QAbstractItemModel::modelReset, this, [this] {
    for (ChartView* view : charts_) view->resetView();
    scheduleRefresh();
  });
  refresh();
}

ChartView* ChartPanel::chart(ChartKind kind) const {
  return charts_[std::size_t(kind)];
}

void ChartPanel::setHelpButton(QToolButton* button) {
  cornerLayout_->addWidget(button);
}

bool ChartPanel::chartHasFocus() const {
  QWidget* focus = QApplication::focusWidget();
  return std::any_of(charts_.begin(), charts_.end(),
                     [&](const ChartView* view) { return view == focus; });
}

bool ChartPanel::presentationMode() const {
  return presenter_->active();
}

QWidget* ChartPanel::presentationWindow() const {
  return presenter_->window();
}

QWidget* ChartPanel::takeChart(ChartKind kind) {
  ChartView* view = chart(kind);
  QWidget* page = widget(int(kind));
  auto* scroll = page->findChild<QScrollArea*>();
  scroll->takeWidget();
  scroll->hide();
  view->setParent(nullptr);
  page->findChild<QLabel*>()->show();
  return view;
}

void ChartPanel::putBack(QWidget* shown) {
  auto* view = qobject_cast<ChartView*>(shown);
  if (!view) return;
  const auto kind = desktop::chartFromId(view->objectName());
  QWidget* page = widget(int(kind.value_or(ChartKind::Time)));
  auto* scroll = page->findChild<QScrollArea*>();
  scroll->setWidget(view);
  scroll->show();
  page->findChild<QLabel*>()->hide();
  view->setPresenting(false);
  view->show();
}

void ChartPanel::setPresentationMode(bool on) {
  if (on == presentationMode()) return;
  if (on) {
    const ChartKind kind = currentChart();
    presenter_->begin(takeChart(kind), tr("TileScope presentation"));
    fitPresentation();
    chart(kind)->setFocus(Qt::OtherFocusReason);
  } else {
    putBack(presenter_->end());
    refresh();
  }
  const QSignalBlocker block(presentButton_);
  presentButton_->setChecked(on);
  emit presentationModeChanged(on);
}

void ChartPanel::presentChart(ChartKind kind) {
  if (!presentationMode()) {
    showChart(kind);
    return;
  }
  if (kind == currentChart()) return;
  QWidget* next = takeChart(kind);
  putBack(presenter_->swap(next));
  showChart(kind);
  fitPresentation();
  chart(kind)->setFocus(Qt::OtherFocusReason);
}

void ChartPanel::fitPresentation() {
  if (!presentationMode()) return;
  ChartView* view = chart(currentChart());
  view->setPresenting(true, Presenter::fontScale(presenter_->window()->size()));
  // Markers and lines grow with the text: the charts are drawn again.
  refresh();
}

ChartKind ChartPanel::currentChart() const {
  return desktop::kAllCharts[std::max(currentIndex(), 0)];
}

void ChartPanel::showChart(ChartKind kind) {
  setCurrentIndex(int(kind));
}

void ChartPanel::scheduleRefresh() {
  if (!refreshTimer_.isActive()) refreshTimer_.start();
}

void ChartPanel::addOverlay(const QString& label, std::vector<RunResult> results,
                            std::vector<DeviceCeilings> ceilings) {
  removeOverlay(label);
  overlays_.push_back({label, std::move(results), std::move(ceilings)});
  scheduleRefresh();
}

void ChartPanel::removeOverlay(const QString& label) {
  std::erase_if(overlays_, [&](const Overlay& overlay) { return overlay.label == label; });
  scheduleRefresh();
}

void ChartPanel::clearOverlays() {
  overlays_.clear();
  scheduleRefresh();
}

QStringList ChartPanel::overlays() const {
  QStringList labels;
  for (const Overlay& overlay : overlays_) labels << overlay.label;
  return labels;
}

void ChartPanel::gatherDrawn() {
  drawn_ = model_->results();
  drawnOverlay_.assign(drawn_.size(), QString());
  for (const Overlay& overlay : overlays_) {
    drawn_.insert(drawn_.end(), overlay.results.begin(), overlay.results.end());
    drawnOverlay_.insert(drawnOverlay_.end(), overlay.results.size(), overlay.label);
  }
}

std::vector<DeviceCeilings> ChartPanel::drawnCeilings() const {
  std::vector<DeviceCeilings> ceilings = model_->ceilings();
  for (const Overlay& overlay : overlays_) {
    for (const DeviceCeilings& device : overlay.ceilings) {
      const bool known = std::any_of(ceilings.begin(), ceilings.end(), [&](const auto& kept) {
        return kept.backend == device.backend && kept.device == device.device;
      });
      if (!known) ceilings.push_back(device);
    }
  }
  return ceilings;
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

bool ChartPanel::asExported(ChartKind kind, QSize size, bool largeText,
                            const std::function<bool(ChartView*)>& draw) {
  ChartView* view = chart(kind);
  const bool presenting = view->presenting();
  const double presentingScale = view->presentingScale();
  if (largeText) view->setPresenting(true, Presenter::fontScale(size));
  refresh();
  if (kind == ChartKind::Roofline) buildRooflineIfStale();
  // A file stands alone: its legend lists every entry.
  view->setExporting(true);
  const bool drawn = draw(view);
  view->setExporting(false);
  if (largeText) {
    // Back to the text it had (a presented chart keeps its own).
    view->setPresenting(presenting, presentingScale);
    refresh();
  }
  view->replot(QCustomPlot::rpQueuedReplot);
  return drawn;
}

bool ChartPanel::exportChart(ChartKind kind, const QString& path, QSize size, QString* error,
                             double scale, bool largeText) {
  return asExported(kind, size, largeText, [&](ChartView* view) {
    return exportPlot(view, view->title(), path, size, error, scale);
  });
}
void ChartPanel::buildRooflineIfStale() {
  if (!rooflineStale_) return;
  rooflineStale_ = false;
  ChartView* view = chart(ChartKind::Roofline);
  view->reset();
  view->setTitle(titleFor(ChartKind::Roofline, model_->results()));
  drawRoofline(view, drawn_, drawnCeilings(), intensities_, drawnOverlay_);
}

}  // namespace tilescope::ui
