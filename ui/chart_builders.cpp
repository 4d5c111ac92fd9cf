// SPDX-License-Identifier: GPL-3.0-or-later
// How each chart but the roofline is drawn from the results: against size (lines, or bars of the
// kernels compared at one size), the tile sweep, the phases and the autotune landscape.
#include <QMap>
#include <algorithm>
#include <set>

#include "chart_panel.hpp"
#include "chart_view.hpp"
#include "formatting.hpp"
#include "result_analysis.hpp"
#include "tilescope/plan/autotune.hpp"

namespace tilescope::ui {
namespace {

using desktop::ChartKind;

// A chart's series in first-seen order, each with its points (x -> result index).
struct ChartSeries {
  SeriesId id;
  QMap<double, std::size_t> points;
};

class SeriesList {
 public:
  void add(const SeriesId& id, double x, std::size_t result) {
    auto found = index_.constFind(id.name);
    if (found == index_.constEnd()) {
      found = index_.insert(id.name, series_.size());
      series_.push_back({id, {}});
    }
    series_[*found].points[x] = result;
  }
  std::vector<ChartSeries>& series() { return series_; }
  std::vector<SeriesId> ids() const {
    std::vector<SeriesId> ids;
    for (const ChartSeries& one : series_) ids.push_back(one.id);
    return ids;
  }

 private:
  std::vector<ChartSeries> series_;
  QHash<QString, std::size_t> index_;
};

void styleLine(QCPGraph* graph, const SeriesStyle& style) {
  graph->setPen(ChartView::lineOf(style));
  graph->setLineStyle(QCPGraph::lsLine);
  graph->setScatterStyle(ChartView::scatterOf(style));
}

bool allSquare(const std::vector<RunResult>& results) {
  return std::all_of(results.begin(), results.end(), [](const RunResult& result) {
    return result.shape.m == result.shape.n && result.shape.n == result.shape.k;
  });
}

}  // namespace

void ChartPanel::buildAgainstSize(ChartKind kind) {
  ChartView* view = chart(kind);
  view->reset();
  const std::vector<RunResult>& results = drawn_;
  const bool mixed = desktop::mixesDevices(model_->results());
  // Per series, the latest result at each size (a rerun replaces the earlier point).
  SeriesList list;
  std::set<double> sizes;
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (kind == ChartKind::Library && (results[i].kernel.kernel == desktop::kLibraryKernel ||
                                       !desktop::percentOfLibrary(results, i))) {
      continue;
    }
    const double size = desktop::nominalSize(results[i].shape);
    list.add(seriesOf(results[i], mixed, drawnOverlay_[i]), size, i);
    sizes.insert(size);
  }
  view->setTitle(titleFor(kind, model_->results()));
  const bool comparison = sizes.size() == 1;
  // Sizes on a logarithmic axis, or the kernels compared at one size as bars: on a linear axis
  // from zero, where a bar's height is its value.
  if (comparison) {
    ChartView::makeLinear(view->xAxis);
    ChartView::makeLinear(view->yAxis);
  } else {
    ChartView::makeLogarithmic(view->xAxis, 2);
    if (kind != ChartKind::Library) ChartView::makeLogarithmic(view->yAxis, 10);
    view->xAxis->setLabel(allSquare(results) ? tr("size N (M = N = K)")
                                             : tr("size (cube root of M\u00b7N\u00b7K)"));
  }
  if (list.series().empty()) {
    view->showPlaceholder(kind == ChartKind::Library
                              ? tr("Run the library kernel at the same sizes\nas the others to "
                                   "compare them with it")
                              : tr("Press Run (Ctrl+R): each finished run adds a point"));
    return;
  }
  const std::vector<SeriesStyle> styles = view->stylesOf(list.ids());
  const auto valueOf = [&](std::size_t index, QString* tip) {
    const RunResult& result = results[index];
    *tip = desktop::describeResult(result);
    if (kind == ChartKind::Rate) return result.gflops;
    if (kind == ChartKind::Library) {
      const double percent = *desktop::percentOfLibrary(results, index);
      *tip += tr("<br><b>%1 %</b> of the library's speed").arg(percent, 0, 'f', 1);
      return percent;
    }
    return result.stats.medianMs;
  };
  double highest = 0;
  if (comparison) {
    QStringList labels;
    for (std::size_t s = 0; s < list.series().size(); ++s) {
      const ChartSeries& series = list.series()[s];
      QString tip;
      const double value = valueOf(series.points.first(), &tip);
      auto* bars = new QCPBars(view->xAxis, view->yAxis);
      bars->setName(series.id.name);
      ChartView::styleBars(bars, styles[s]);
      bars->setWidth(0.7);
      bars->addData(double(s + 1), value);
      view->setPointTips(bars, {tip});
      labels << series.id.name;
      highest = std::max(highest, value);
    }
    view->setCategories(
        labels, tr("kernels at %1")
                    .arg(desktop::formatShape(results[list.series()[0].points.first()].shape)));
    std::vector<LegendEntry> legend = ChartView::groupedLegend(list.ids(), styles);
    for (LegendEntry& entry : legend) entry.bar = true;
    view->setLegendEntries(legend);
  } else {
    for (std::size_t s = 0; s < list.series().size(); ++s) {
      const ChartSeries& series = list.series()[s];
      QCPGraph* graph = view->addGraph();
      graph->setName(series.id.name);
      styleLine(graph, styles[s]);
      QStringList tips;
      for (auto point = series.points.cbegin(); point != series.points.cend(); ++point) {
        QString tip;
        const double value = valueOf(point.value(), &tip);
        highest = std::max(highest, value);
        graph->addData(point.key(), value);
        tips << tip;
      }
      view->setPointTips(graph, tips);
    }
    view->setLegendEntries(ChartView::groupedLegend(list.ids(), styles));
  }
  if (kind == ChartKind::Library) {
    auto* reference = new QCPItemStraightLine(view);
    reference->point1->setCoords(1, 100);
    reference->point2->setCoords(2, 100);
    reference->setPen(QPen(view->palette().color(QPalette::Text), 1, Qt::DashLine));
    if (view->autoFit()) view->yAxis->setRange(0, std::max(110.0, highest * 1.1));
  } else {
    view->autoFit();
  }
  if (comparison && !view->userMovedView()) {
    view->xAxis->setRange(0.3, double(list.series().size()) + 0.7);
    view->yAxis->setRange(0, view->yAxis->range().upper);
  }
}

void ChartPanel::buildTileSweep() {
  ChartView* view = chart(ChartKind::TileSweep);
  view->reset();
  const std::vector<RunResult>& results = drawn_;
  const bool mixed = desktop::mixesDevices(model_->results());
  // One series per kernel (and its other parameters) at one size, its points the tiles.
  SeriesList list;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const RunResult& result = results[i];
    const auto tile = result.kernel.params.find("tile");
    if (tile == result.kernel.params.end()) continue;
    RunResult withoutTile = result;
    withoutTile.kernel.params.erase("tile");
    SeriesId id = seriesOf(withoutTile, mixed, drawnOverlay_[i]);
    id.name += QStringLiteral(" at ") + desktop::formatShape(result.shape);
    list.add(id, tile->second, i);
  }
  // A kernel run at one tile is no sweep: it would draw a lone point on a made-up tile axis.
  std::vector<ChartSeries> sweeps;
  std::vector<RunResult> swept;
  for (const ChartSeries& series : list.series()) {
    if (series.points.size() < 2) continue;
    sweeps.push_back(series);
    if (series.id.overlaid) continue;
    for (std::size_t index : series.points) swept.push_back(results[index]);
  }
  view->setTitle(titleFor(ChartKind::TileSweep, swept));
  if (sweeps.empty()) {
    view->showPlaceholder(
        tr("No tile sweep in these results.\nChoose a kernel with a tile (shared-tiled, "
           "register-tiled, ...),\nSweep: Tile sweep, then Run: every valid tile is measured, "
           "as in seed 004's tables"));
    return;
  }
  std::vector<SeriesId> ids;
  for (const ChartSeries& series : sweeps) ids.push_back(series.id);
  const std::vector<SeriesStyle> styles = view->stylesOf(ids);
  for (std::size_t s = 0; s < sweeps.size(); ++s) {
    QCPGraph* graph = view->addGraph();
    graph->setName(sweeps[s].id.name);
    styleLine(graph, styles[s]);
    QStringList tips;
    for (auto point = sweeps[s].points.cbegin(); point != sweeps[s].points.cend(); ++point) {
      graph->addData(point.key(), results[point.value()].stats.medianMs);
      tips << desktop::describeResult(results[point.value()]);
    }
    view->setPointTips(graph, tips);
  }
  view->setLegendEntries(ChartView::groupedLegend(ids, styles));
  view->autoFit();
}

void ChartPanel::buildPhases() {
  ChartView* view = chart(ChartKind::Phases);
  view->reset();
  // The session's runs with copy and kernel times, then each overlay's, marked with its label.
  std::vector<std::size_t> phased;
  std::vector<RunResult> own;
  QStringList overlayLabels;
  for (std::size_t i = 0; i < drawn_.size(); ++i) {
    if (!drawn_[i].phases) continue;
    phased.push_back(i);
    if (drawnOverlay_[i].isEmpty())
      own.push_back(drawn_[i]);
    else if (!overlayLabels.contains(drawnOverlay_[i]))
      overlayLabels << drawnOverlay_[i];
  }
  view->setTitle(titleFor(ChartKind::Phases, own));
  if (phased.empty()) {
    view->showPlaceholder(
        tr("No copy and kernel times in these results.\nThe CUDA backend times them apart "
           "in every run;\nthe CPU backend has no host-to-device copies"));
    return;
  }
  const struct {
    const char* name;
    double Phases::*field;
  } parts[] = {{"host to device", &Phases::h2dMs},
               {"kernel", &Phases::kernelMs},
               {"device to host", &Phases::d2hMs}};
  const bool mixed = desktop::mixesDevices(own);
  QStringList labels;
  for (std::size_t i : phased) {
    labels << seriesOf(drawn_[i], mixed, drawnOverlay_[i]).name + QLatin1Char('\n') +
                  desktop::formatShape(drawn_[i].shape);
  }
  std::vector<LegendEntry> legend;
  // The session's parts stacked in solid bars, the overlays' in hollow ones.
  for (bool overlaid : {false, true}) {
    if (overlaid ? overlayLabels.isEmpty() : own.empty()) continue;
    QCPBars* below = nullptr;
    for (std::size_t part = 0; part < std::size(parts); ++part) {
      auto* bars = new QCPBars(view->xAxis, view->yAxis);
      QString name = tr(parts[part].name);
      if (overlaid) name += QStringLiteral(" \u00b7 ") + overlayLabels.join(QStringLiteral(", "));
      bars->setName(name);
      const SeriesStyle style = view->plainStyle(view->plainColor(int(part)), overlaid);
      ChartView::styleBars(bars, style);
      bars->setWidth(0.6);
      if (below) bars->moveAbove(below);
      below = bars;
      QStringList tips;
      for (std::size_t column = 0; column < phased.size(); ++column) {
        const RunResult& result = drawn_[phased[column]];
        if (drawnOverlay_[phased[column]].isEmpty() == overlaid) continue;
        const double ms = (*result.phases).*parts[part].field;
        bars->addData(double(column + 1), ms);
        tips << tr("<b>%1: %2 ms</b><br>").arg(name, desktop::formatMs(ms)) +
                    desktop::describeResult(result);
      }
      view->setPointTips(bars, tips);
      legend.push_back({name, {name}, style, true});
    }
  }
  view->setCategories(labels);
  view->setLegendEntries(legend);
  if (view->autoFit()) {
    view->xAxis->setRange(0.3, double(phased.size()) + 0.7);
    view->yAxis->setRange(0, view->yAxis->range().upper);
  }
}

void ChartPanel::buildLandscape() {
  ChartView* view = chart(ChartKind::Landscape);
  view->reset();
  // The session's landscape first, then each overlay's configurations of the same kernel, type
  // and shape (on its own device); without a session landscape, an overlay's own. Each one
  // fastest first; a lone configuration is no landscape.
  struct Landscape {
    QString overlay;  // empty: the session's
    std::vector<RunResult> results;
  };
  std::vector<Landscape> landscapes;
  if (std::vector<RunResult> own = desktop::landscapeOf(model_->results()); own.size() >= 2)
    landscapes.push_back({QString(), std::move(own)});
  for (const Overlay& overlay : overlays_) {
    std::vector<RunResult> candidates;
    if (landscapes.empty()) {
      candidates = overlay.results;
    } else {
      const RunResult& ground = landscapes.front().results.front();
      std::copy_if(overlay.results.begin(), overlay.results.end(), std::back_inserter(candidates),
                   [&](const RunResult& result) {
                     return result.kernel.kernel == ground.kernel.kernel &&
                            result.element == ground.element && result.shape == ground.shape;
                   });
    }
    std::vector<RunResult> theirs = desktop::landscapeOf(candidates);
    if (theirs.size() >= 2 || (!landscapes.empty() && !theirs.empty()))
      landscapes.push_back({overlay.label, std::move(theirs)});
  }
  if (landscapes.empty()) {
    view->setTitle(titleFor(ChartKind::Landscape, {}));
    view->xAxis->setLabel(QString());
    view->showPlaceholder(
        tr("No autotune in these results.\nPress Autotune (Ctrl+T): every valid configuration "
           "of the chosen\nkernel is measured at the chosen size, fastest first"));
    return;
  }
  // One category per configuration, in the first landscape's order, then the others' own.
  QStringList labels;
  for (const Landscape& landscape : landscapes) {
    for (const RunResult& result : landscape.results) {
      const QString params = QString::fromStdString(formatParams(result.kernel));
      if (!labels.contains(params)) labels << params;
    }
  }
  const RunResult& sample = landscapes.front().results.front();
  view->setTitle(
      titleFor(ChartKind::Landscape, landscapes.front().results) +
      QStringLiteral("\n%1 at %2, %3 configurations")
          .arg(QString::fromStdString(sample.kernel.kernel), desktop::formatShape(sample.shape))
          .arg(labels.size()));
  // The best verified configuration stands out; failed verification is greyed, never hidden.
  // Each landscape takes its share of a configuration's slot, an overlay's bars hollow.
  enum Group { Best, Verified, Unverified };
  const QColor colors[] = {view->plainColor(1), view->plainColor(0),
                           view->palette().color(QPalette::Disabled, QPalette::Text)};
  const char* names[] = {"fastest verified", "verified", "not verified"};
  const double width = 0.8 / double(landscapes.size());
  std::vector<LegendEntry> legend;
  for (std::size_t source = 0; source < landscapes.size(); ++source) {
    const Landscape& landscape = landscapes[source];
    const double offset = (double(source) - double(landscapes.size() - 1) / 2) * width;
    const std::optional<RunResult> best = plan::fastestVerified(landscape.results);
    std::array<QCPBars*, 3> bars{};
    std::array<QStringList, 3> tips;
    for (const RunResult& result : landscape.results) {
      const Group group = best && result.kernel == best->kernel ? Best
                          : result.verified()                   ? Verified
                                                                : Unverified;
      if (!bars[group]) {
        bars[group] = new QCPBars(view->xAxis, view->yAxis);
        QString name = tr(names[group]);
        if (!landscape.overlay.isEmpty()) name += QStringLiteral(" \u00b7 ") + landscape.overlay;
        bars[group]->setName(name);
        ChartView::styleBars(bars[group],
                             view->plainStyle(colors[group], !landscape.overlay.isEmpty()));
        bars[group]->setWidth(width * 0.9);
      }
      const int category = labels.indexOf(QString::fromStdString(formatParams(result.kernel)));
      bars[group]->addData(double(category + 1) + offset, result.gflops);
      tips[group] << desktop::describeResult(result);
    }
    for (std::size_t group = 0; group < bars.size(); ++group) {
      if (!bars[group]) continue;
      view->setPointTips(bars[group], tips[group]);
      legend.push_back({bars[group]->name(),
                        {bars[group]->name()},
                        view->plainStyle(colors[group], !landscape.overlay.isEmpty()),
                        true});
    }
  }
  view->setCategories(labels, tr("configurations, fastest first"));
  view->setLegendEntries(legend);
  if (view->autoFit()) {
    view->xAxis->setRange(0.3, double(labels.size()) + 0.7);
    view->yAxis->setRange(0, view->yAxis->range().upper);
  }
}

}  // namespace tilescope::ui
