// SPDX-License-Identifier: GPL-3.0-or-later
// The charts' layout, checked on what they really draw: every chart kind (and the kernels compared
// at one size as bars), docked in the window and presented full screen, on screens of 853x480 (a
// 1280x720 projector at 150 %), 1280x720, 1920x1080 and 3840x2160, and exported at every size the
// Export Chart dialog offers (the slides and pages, and as shown docked on each screen), with text
// as at a desk and as large as presenting, with 1, 12 and 45 series. Each chart is drawn through a
// paint device that records every piece of text the painter is given (where, how large, turned
// how), whichever part of QCustomPlot or of the chart drew it, so no label escapes the check: no
// two pieces of text overlap, none leaves the chart, none is smaller than 12 px (20 px presenting
// on a 1280x720 screen or larger, where the title is 28 px or more), the legend draws every entry
// and no other (a docked chart too short for them grows, its page scrolls, its plot stays in
// view), the title and the axes' titles read in full (none shortened with "…"), a chart with data
// draws tick labels on both axes, and an empty one says why in words.
#include <QtTest>

#include <QApplication>
#include <QComboBox>
#include <QPaintEngine>
#include <QScrollArea>
#include <QTextItem>
#include <algorithm>
#include <map>

#include "chart_export_dialog.hpp"
#include "chart_legend.hpp"
#include "chart_panel.hpp"
#include "chart_view.hpp"
#include "main_window.hpp"
#include "presenter.hpp"
#include "test_results.hpp"
#include "tilescope/catalogue.hpp"
#include "ui_suite.hpp"

using namespace tilescope;
using namespace tilescope::desktop;
using tilescope::ui::ChartPanel;
using tilescope::ui::ChartView;

namespace {

// The text the painter was given: the string, its box on the chart and its size in pixels.
struct DrawnText {
  QString text;
  QRectF box;
  double pixels = 0;
};

// A paint engine that draws nothing and keeps every text item: its baseline box (ascent and
// descent around the baseline, its advance wide) through the painter's transform.
class TextRecorder : public QPaintEngine {
 public:
  TextRecorder() : QPaintEngine(QPaintEngine::AllFeatures) {}
  bool begin(QPaintDevice*) override { return true; }
  bool end() override { return true; }
  Type type() const override { return QPaintEngine::User; }
  void updateState(const QPaintEngineState& state) override {
    if (state.state() & QPaintEngine::DirtyTransform) transform_ = state.transform();
  }
  void drawPixmap(const QRectF&, const QPixmap&, const QRectF&) override { ++pixmaps; }
  void drawImage(const QRectF&, const QImage&, const QRectF&, Qt::ImageConversionFlags) override {
    ++pixmaps;
  }
  void drawTiledPixmap(const QRectF&, const QPixmap&, const QPointF&) override {}
  void drawPath(const QPainterPath&) override {}
  void drawPolygon(const QPointF*, int, PolygonDrawMode) override {}
  void drawPolygon(const QPoint*, int, PolygonDrawMode) override {}
  void drawRects(const QRectF*, int) override {}
  void drawRects(const QRect*, int) override {}
  void drawLines(const QLineF*, int) override {}
  void drawLines(const QLine*, int) override {}
  void drawEllipse(const QRectF&) override {}
  void drawEllipse(const QRect&) override {}
  void drawPoints(const QPointF*, int) override {}
  void drawPoints(const QPoint*, int) override {}
  void drawTextItem(const QPointF& at, const QTextItem& item) override {
    const QString text = item.text().trimmed();
    if (text.isEmpty()) return;
    const QRectF box(at.x(), at.y() - item.ascent(), item.width(), item.ascent() + item.descent());
    const QFont font = item.font();
    const double size = font.pixelSize() > 0 ? font.pixelSize() : font.pointSizeF() * 96 / 72;
    const double scale = std::sqrt(std::abs(transform_.determinant()));
    texts.push_back({text, transform_.mapRect(box), size * scale});
  }

  std::vector<DrawnText> texts;
  int pixmaps = 0;

 private:
  QTransform transform_;
};

class RecordingDevice : public QPaintDevice {
 public:
  explicit RecordingDevice(QSize size) : size_(size) {}
  QPaintEngine* paintEngine() const override { return &engine_; }
  TextRecorder& recorder() const { return engine_; }

 protected:
  int metric(PaintDeviceMetric metric) const override {
    switch (metric) {
      case PdmWidth:
        return size_.width();
      case PdmHeight:
        return size_.height();
      case PdmWidthMM:
        return size_.width() * 254 / 960;
      case PdmHeightMM:
        return size_.height() * 254 / 960;
      case PdmDpiX:
      case PdmDpiY:
      case PdmPhysicalDpiX:
      case PdmPhysicalDpiY:
        return 96;
      case PdmDepth:
        return 32;
      case PdmNumColors:
        return INT_MAX;
      case PdmDevicePixelRatio:
        return 1;
      case PdmDevicePixelRatioScaled:
        return int(QPaintDevice::devicePixelRatioFScale());
    }
    return 0;
  }

 private:
  QSize size_;
  mutable TextRecorder engine_;
};

// Every piece of text `draw` draws onto a painter of `size`.
std::vector<DrawnText> recordedTexts(QSize size, const std::function<void(QCPPainter*)>& draw,
                                     int* pixmaps) {
  RecordingDevice device(size);
  QCPPainter painter;
  if (!painter.begin(&device)) return {};
  painter.setMode(QCPPainter::pmNoCaching);  // text as text, not cached pictures of it
  draw(&painter);
  painter.end();
  *pixmaps = device.recorder().pixmaps;
  return device.recorder().texts;
}

// Every piece of text `view` draws at its own size, as on screen.
std::vector<DrawnText> drawnTexts(ChartView* view, int* pixmaps) {
  return recordedTexts(
      view->size(),
      [&](QCPPainter* painter) { view->toPainter(painter, view->width(), view->height()); },
      pixmaps);
}

// Lets a docked chart take the height it asks for (its page's scroll area lays it out again).
void settle(ChartView* view) {
  for (int round = 0; round < 4; ++round) {
    const int asked = view->minimumHeight();
    view->replot();
    QCoreApplication::processEvents();
    if (view->minimumHeight() == asked && view->height() >= asked) return;
  }
}

QString describe(const QRectF& r) {
  return QStringLiteral("(%1,%2 %3x%4)")
      .arg(r.x(), 0, 'f', 1)
      .arg(r.y(), 0, 'f', 1)
      .arg(r.width(), 0, 'f', 1)
      .arg(r.height(), 0, 'f', 1);
}

// Overlap by more than rounding.
bool overlaps(const QRectF& a, const QRectF& b) {
  return a.adjusted(0.5, 0.5, -0.5, -0.5).intersects(b.adjusted(0.5, 0.5, -0.5, -0.5));
}

// What a chart shows: a chart kind with its data made for `count` series.
struct Chart {
  QString name;
  ChartKind kind;
  std::vector<RunResult> (*results)(int count);
};

// The configurations of the catalogue's kernels (the library aside), one kernel after the other
// so that a few series already span many kernels: each kernel's parameters in turn, each at its
// allowed values.
std::vector<KernelConfig> configurations() {
  std::vector<std::vector<KernelConfig>> perKernel;
  for (const KernelInfo& info : catalogue()) {
    if (info.id == kLibraryKernel) continue;
    std::vector<KernelConfig> own{{info.id, {}}};
    for (const ParamSpec& param : info.params) {
      for (int value : param.allowed) {
        if (value == param.defaultValue) continue;
        own.push_back({info.id, {{param.name, value}}});
        if (own.size() >= 6) break;
      }
    }
    perKernel.push_back(own);
  }
  std::vector<KernelConfig> all;
  for (std::size_t round = 0; all.size() < 200; ++round) {
    bool any = false;
    for (const auto& own : perKernel) {
      if (round >= own.size()) continue;
      all.push_back(own[round]);
      any = true;
    }
    if (!any) break;
  }
  return all;
}

// A result of `config` at `size` on an H200, at a rate that differs from series to series.
RunResult resultOf(const KernelConfig& config, std::int64_t size, int series) {
  const double gflops =
      40.0 * (1 + series % 17) * std::pow(1.6, series % 5) * std::min(1.0, double(size) / 2048);
  const double ms = 2.0 * double(size) * double(size) * double(size) / (gflops * 1e6);
  RunResult result = test::madeUpResult(config.kernel, config.params, size, ms);
  result.backend = "cuda";
  result.device = "NVIDIA H200";
  return result;
}

std::vector<RunResult> againstSize(int count) {
  std::vector<RunResult> results;
  const std::vector<KernelConfig> configs = configurations();
  for (int s = 0; s < count; ++s)
    for (std::int64_t size : {256, 512, 1024, 2048, 4096})
      results.push_back(resultOf(configs[std::size_t(s)], size, s));
  return results;
}

std::vector<RunResult> againstLibrary(int count) {
  std::vector<RunResult> results = againstSize(count);
  for (std::int64_t size : {256, 512, 1024, 2048, 4096})
    results.push_back(resultOf({kLibraryKernel, {}}, size, 3));
  return results;
}

std::vector<RunResult> atOneSize(int count) {
  std::vector<RunResult> results;
  const std::vector<KernelConfig> configs = configurations();
  for (int s = 0; s < count; ++s) results.push_back(resultOf(configs[std::size_t(s)], 2048, s));
  return results;
}

std::vector<RunResult> tileSweeps(int count) {
  std::vector<std::string> tiled;
  for (const KernelInfo& info : catalogue())
    if (info.param("tile")) tiled.push_back(info.id);
  std::vector<RunResult> results;
  for (int s = 0; s < count; ++s) {
    const std::string& kernel = tiled[std::size_t(s) % tiled.size()];
    const std::int64_t size = 128 * (1 + s / std::int64_t(tiled.size()));
    for (int tile : {1, 2, 4, 8, 16, 32})
      results.push_back(resultOf({kernel, {{"tile", tile}}}, size, s + tile));
  }
  return results;
}

std::vector<RunResult> phased(int count) {
  std::vector<RunResult> results = atOneSize(count);
  for (std::size_t i = 0; i < results.size(); ++i) {
    const double ms = results[i].stats.medianMs;
    results[i].phases = Phases{0.3 + 0.01 * double(i), ms, 0.2};
  }
  return results;
}

// Runs of a few kernels, each at several sizes, as a session holds them: the phases chart names
// each kernel once over its runs.
std::vector<RunResult> phasedOverSizes(int count) {
  std::vector<RunResult> results;
  const std::vector<KernelConfig> configs = configurations();
  const std::int64_t sizes[] = {256, 512, 1024, 2048, 4096};
  for (int i = 0; i < count; ++i) {
    RunResult result = resultOf(configs[std::size_t(i / 5)], sizes[i % 5], i / 5);
    result.phases = Phases{0.3 + 0.01 * double(i), result.stats.medianMs, 0.2};
    results.push_back(result);
  }
  return results;
}

std::vector<RunResult> autotuned(int count) {
  // Every configuration of one kernel at one size, as Autotune leaves them.
  std::vector<RunResult> results;
  const KernelInfo& info = kernelInfo("blocktile-2d");
  std::vector<Params> combos{{}};
  for (const ParamSpec& param : info.params) {
    std::vector<Params> longer;
    for (const Params& combo : combos)
      for (int value : param.allowed) {
        Params more = combo;
        more[param.name] = value;
        longer.push_back(more);
      }
    combos = longer;
    if (combos.size() >= 200) break;
  }
  for (int s = 0; s < count; ++s)
    results.push_back(resultOf({info.id, combos[std::size_t(s) % combos.size()]}, 1024, s));
  return results;
}

std::vector<RunResult> roofline(int count) {
  // Each kernel in each of its types on two GPUs: a series each.
  std::vector<RunResult> results;
  for (const char* device : {"NVIDIA H200", "NVIDIA H100 80GB HBM3"}) {
    for (const KernelInfo& info : catalogue()) {
      for (ElementType element : info.types) {
        if (int(results.size()) >= count) return results;
        RunResult result = resultOf({info.id, {}}, 2048, int(results.size()));
        result.device = device;
        result.element = element;
        results.push_back(result);
      }
    }
  }
  return results;
}

const Chart kCharts[] = {
    {QStringLiteral("time"), ChartKind::Time, againstSize},
    {QStringLiteral("gflops"), ChartKind::Rate, againstSize},
    {QStringLiteral("gflops at one size"), ChartKind::Rate, atOneSize},
    {QStringLiteral("tile"), ChartKind::TileSweep, tileSweeps},
    {QStringLiteral("phases"), ChartKind::Phases, phased},
    {QStringLiteral("phases over sizes"), ChartKind::Phases, phasedOverSizes},
    {QStringLiteral("library"), ChartKind::Library, againstLibrary},
    {QStringLiteral("autotune"), ChartKind::Landscape, autotuned},
    {QStringLiteral("roofline"), ChartKind::Roofline, roofline},
};

constexpr QSize kScreens[] = {{853, 480}, {1280, 720}, {1920, 1080}, {3840, 2160}};

// The least plot a reader needs: 64 px holds three of the y axis's 12-px tick labels with a
// label's height between them, so a bar's height or a line's rise reads against the axis; on a
// page of 320 px or more (docked at 1280x720) the plot is the chart's largest part, 40 % of the
// page, the title, the axes' words and the legend's first row sharing the rest.
constexpr int kLeastPlotPixels = 64, kTallPage = 320;
constexpr double kLeastPlotShare = 0.4;

// The H200's ceilings as measured (the shipped roofline session's figures, rounded).
DeviceCeilings h200Ceilings() {
  return {"cuda",
          "NVIDIA H200",
          {{kFp32Ceiling, kComputeUnit, 51100, 66900, "test"},
           {kTf32Ceiling, kComputeUnit, 370000, 494700, "test"},
           {kFp16Ceiling, kComputeUnit, 761700, 989400, "test"},
           {kBf16Ceiling, kComputeUnit, 794900, 989400, "test"}},
          {kBandwidthCeiling, kBandwidthUnit, 4210, 4800, "test"}};
}

// The H200's ceilings with every roof the roofline draws (FP8 too), measured under the datasheet.
DeviceCeilings h200EveryRoof() {
  DeviceCeilings ceilings = h200Ceilings();
  ceilings.compute.push_back({kFp8Ceiling, kComputeUnit, 1540000, 1978900, "test"});
  return ceilings;
}

// Where a roofline label may not lie: on a result's point, or (`lines`) across a line (its own
// roof or the slope it may touch, by 2 px), in pixels of `view`.
QString roofLabelCovers(ChartView* view, const QRectF& label, bool lines) {
  const QRectF inner = label.adjusted(2, 2, -2, -2);
  for (int g = 0; g < view->graphCount(); ++g) {
    QCPGraph* graph = view->graph(g);
    if (!graph->visible()) continue;
    const double marker = graph->scatterStyle().isNone() ? 0 : graph->scatterStyle().size() + 2;
    QPointF previous;
    bool first = true;
    for (auto point = graph->data()->constBegin(); point != graph->data()->constEnd(); ++point) {
      const QPointF at = graph->coordsToPixels(point->key, point->value);
      if (marker > 0 &&
          QRectF(at.x() - marker / 2, at.y() - marker / 2, marker, marker).intersects(label))
        return QStringLiteral("the point of %1").arg(graph->name());
      if (lines && !first && graph->lineStyle() != QCPGraph::lsNone) {
        const QLineF segment(previous, at);
        const QLineF edges[] = {{inner.topLeft(), inner.topRight()},
                                {inner.topRight(), inner.bottomRight()},
                                {inner.bottomRight(), inner.bottomLeft()},
                                {inner.bottomLeft(), inner.topLeft()}};
        const bool crosses =
            inner.contains(segment.p1()) || inner.contains(segment.p2()) ||
            std::ranges::any_of(edges, [&](const QLineF& edge) {
              return segment.intersects(edge, nullptr) == QLineF::BoundedIntersection;
            });
        if (crosses) return QStringLiteral("a line (%1)").arg(describe(QRectF(previous, at)));
      }
      previous = at;
      first = false;
    }
  }
  return {};
}

// The layout checks of one drawing: `drawn`, the texts of `view` drawn at `size`.
class LayoutCheck {
 public:
  LayoutCheck(QStringList* problems, QString where)
      : problems_(problems), where_(std::move(where)) {}

  void problem(const QString& what) { *problems_ << where_ + ": " + what; }

  // No picture of text, none under `smallest` px, none outside `size`, no two overlapping; the
  // largest at least `largestAtLeast` px (the title).
  void texts(const std::vector<DrawnText>& drawn, int pixmaps, QSize size, double smallest,
             double largestAtLeast) {
    if (pixmaps > 0) problem(QStringLiteral("%1 pictures (text drawn as pixels?)").arg(pixmaps));
    const QRectF inside = QRectF(QPointF(0, 0), QSizeF(size)).adjusted(-0.5, -0.5, 0.5, 0.5);
    double largest = 0;
    for (std::size_t a = 0; a < drawn.size(); ++a) {
      const DrawnText& text = drawn[a];
      largest = std::max(largest, text.pixels);
      if (text.pixels < smallest - 0.01)
        problem(QStringLiteral("'%1' is %2 px").arg(text.text).arg(text.pixels));
      if (!inside.contains(text.box))
        problem(QStringLiteral("'%1' %2 leaves the chart").arg(text.text, describe(text.box)));
      for (std::size_t b = a + 1; b < drawn.size(); ++b) {
        if (overlaps(text.box, drawn[b].box))
          problem(QStringLiteral("'%1' %2 overlaps '%3' %4")
                      .arg(text.text, describe(text.box), drawn[b].text, describe(drawn[b].box)));
      }
    }
    if (largest < largestAtLeast) problem(QStringLiteral("the title is %1 px").arg(largest));
  }

  // Every legend entry of `view` is a cell of its legend, drawn as the legend shortened it; each
  // cell is one of the chart's entries and lies in the chart; an empty chart draws no axes.
  void legendAndAxes(ChartView* view, const std::vector<DrawnText>& drawn, QSize size) {
    const auto shows = [&](const QString& text) {
      return std::ranges::any_of(drawn, [&](const DrawnText& d) { return d.text == text; });
    };
    if (view->hasPlaceholder()) {
      if (view->xAxis->visible() || view->yAxis->visible())
        problem(QStringLiteral("an empty chart draws its axes"));
      return;
    }
    QStringList listed;
    for (int i = 0; i < view->legend->itemCount(); ++i) {
      QCPAbstractLegendItem* cell = view->legend->item(i);
      if (!cell) continue;  // an empty cell of the last column
      const auto* item = dynamic_cast<const ui::EntryLegendItem*>(cell);
      if (!item) {
        problem(QStringLiteral("the legend holds a cell that is no entry"));
        continue;
      }
      listed << item->entry().label;
      if (!shows(item->shownText()))
        problem(QStringLiteral("the legend's '%1' is not drawn").arg(item->shownText()));
      if (!QRect(QPoint(0, 0), size).contains(cell->outerRect()))
        problem(QStringLiteral("the legend's '%1' lies outside the chart").arg(item->shownText()));
    }
    if (view->legendWanted()) {
      for (const ui::LegendEntry& entry : view->legendEntries()) {
        if (!listed.removeOne(entry.label))
          problem(QStringLiteral("the legend leaves out '%1'").arg(entry.label));
      }
      if (!listed.isEmpty())
        problem(QStringLiteral("the legend lists more: %1").arg(listed.join(QStringLiteral(", "))));
    }
    // The title and the axes' titles read in full: only a legend entry or a category's name (its
    // whole text in its tooltip) may be shortened.
    QStringList mayShorten;
    for (int i = 0; i < view->legend->itemCount(); ++i)
      if (const auto* item = dynamic_cast<const ui::EntryLegendItem*>(view->legend->item(i)))
        mayShorten << item->shownText();
    for (QCPAxis* axis : {view->xAxis, view->xAxis2}) {
      QVector<double> ticks;
      QVector<QString> labels;
      axis->ticker()->generate(axis->range(), QLocale(), 'g', 6, ticks, nullptr, &labels);
      for (const QString& label : labels) mayShorten << label.split(QLatin1Char('\n'));
    }
    for (const DrawnText& text : drawn)
      if (text.text.contains(QChar(0x2026)) && !mayShorten.contains(text.text))
        problem(QStringLiteral("'%1' is shortened").arg(text.text));
    // Both axes say where they are: at least two numbers or categories each.
    for (QCPAxis* axis : {view->xAxis, view->yAxis}) {
      QVector<double> ticks;
      QVector<QString> labels;
      axis->ticker()->generate(axis->range(), QLocale(), 'g', 6, ticks, nullptr, &labels);
      const auto shown = std::ranges::count_if(labels, [&](const QString& label) {
        return !label.isEmpty() && shows(label.section(QLatin1Char('\n'), 0, 0));
      });
      if (shown < (view->categories().size() == 1 && axis == view->xAxis ? 1 : 2))
        problem(QStringLiteral("the %1 axis shows %2 labels")
                    .arg(axis == view->xAxis ? QStringLiteral("x") : QStringLiteral("y"))
                    .arg(shown));
    }
  }

 private:
  QStringList* problems_;
  QString where_;
};

}  // namespace

class TestChartLayout : public QObject {
  Q_OBJECT

  // The chart panel's size in the window on each screen, docks as the window lays them out.
  std::map<int, QSize> docked_;

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    for (const QSize screen : kScreens) {
      ui::MainWindow window;
      window.setRemembersSettings(false);
      window.setWindowState(Qt::WindowNoState);
      window.fitDocksTo(screen);
      window.resize(screen);
      window.show();
      QCoreApplication::processEvents();
      docked_[screen.width()] = window.charts()->size();
      qInfo("%dx%d: the charts docked at %dx%d", screen.width(), screen.height(),
            window.charts()->width(), window.charts()->height());
    }
  }

  void everyChartFitsEverySizeAndCount();
  void everyExportFitsEverySizeAndCount();
  void everyRoofKeepsItsLabel();
};

void TestChartLayout::everyChartFitsEverySizeAndCount() {
  QElapsedTimer timer;
  timer.start();
  QStringList problems;
  int checked = 0, grown = 0;
  std::size_t texts = 0;
  double smallestPresenting = 1e9;
  for (const Chart& chart : kCharts) {
    for (int count : {1, 12, 45}) {
      ResultsModel model;
      model.setResults(chart.results(count));
      if (chart.kind == ChartKind::Roofline) model.setCeilings({h200Ceilings()});
      ChartPanel panel(&model);
      panel.showChart(chart.kind);
      for (bool presenting : {false, true}) {
        if (presenting) panel.setPresentationMode(true);
        for (const QSize screen : kScreens) {
          QWidget* window = presenting ? panel.presentationWindow() : &panel;
          window->setWindowState(Qt::WindowNoState);  // the offscreen screen is 1920x1080
          window->resize(presenting ? screen : docked_[screen.width()]);
          window->show();
          QCoreApplication::processEvents();
          panel.refresh();
          ChartView* view = panel.chart(chart.kind);
          if (!presenting) settle(view);
          int pixmaps = 0;
          const std::vector<DrawnText> drawn = drawnTexts(view, &pixmaps);
          ++checked;
          texts += drawn.size();
          LayoutCheck check(&problems, QStringLiteral("%1, %2 series, %3 %4x%5 (chart %6x%7)")
                                           .arg(chart.name)
                                           .arg(count)
                                           .arg(presenting ? QStringLiteral("presenting on")
                                                           : QStringLiteral("docked on"))
                                           .arg(screen.width())
                                           .arg(screen.height())
                                           .arg(view->width())
                                           .arg(view->height()));
          // Presenting on a projector or larger: 20 px text, a 28 px title.
          const bool lectureHall = presenting && screen.height() >= 720;
          check.texts(drawn, pixmaps, view->size(), lectureHall ? 20 : 12, lectureHall ? 28 : 0);
          if (presenting) {
            for (const DrawnText& text : drawn)
              smallestPresenting = std::min(smallestPresenting, text.pixels);
            if (view->size() != screen)
              check.problem(QStringLiteral("the chart does not fill the screen"));
          } else if (const auto* page = qobject_cast<QScrollArea*>(
                         view->parentWidget() ? view->parentWidget()->parentWidget() : nullptr)) {
            // Docked: a chart taller than its page scrolls below the plot, which stays in view.
            const int visible = page->viewport()->height();
            grown += view->height() > visible;
            if (view->axisRect()->outerRect().bottom() > visible)
              check.problem(QStringLiteral("the plot runs %1 px below the page (%2 px)")
                                .arg(view->axisRect()->outerRect().bottom() - visible)
                                .arg(visible));
            if (view->height() > visible && view->legend->outerRect().top() > visible)
              check.problem(QStringLiteral("the legend starts below the page"));
            // With a dozen kernels on a 1280x720 screen (at 100 % or 150 %), the plot keeps
            // its room: the legend and the words around once left it 30-40 px (issue #35).
            const int plot = view->axisRect()->rect().height();
            const int seen = std::min(view->height(), visible);
            if (count == 12 && screen.width() <= 1280 &&
                (plot < kLeastPlotPixels || (seen >= kTallPage && plot < kLeastPlotShare * seen)))
              check.problem(
                  QStringLiteral("the plot is %1 px of a %2 px page").arg(plot).arg(seen));
          } else {
            check.problem(QStringLiteral("the docked chart is not in a scroll area"));
          }
          check.legendAndAxes(view, drawn, view->size());
        }
        if (presenting) panel.setPresentationMode(false);
      }
    }
  }
  qInfo(
      "%d layouts checked in %lld ms, %zu texts; the smallest text presenting %.0f px; %d docked "
      "charts taller than their page",
      checked, timer.elapsed(), texts, smallestPresenting, grown);
  for (const QString& problem : problems.mid(0, 60)) qInfo("%s", qPrintable(problem));
  QVERIFY2(
      problems.isEmpty(),
      qPrintable(QStringLiteral("%1 problems in %2 layouts").arg(problems.size()).arg(checked)));
}

void TestChartLayout::everyExportFitsEverySizeAndCount() {
  // Every size the Export Chart dialog offers: as shown (the chart docked on each screen, grown
  // for its legend where it must), the slides and the pages; text as at a desk, and large where
  // the size is a screen's.
  QElapsedTimer timer;
  timer.start();
  std::vector<QSize> offered;
  {
    ui::ChartExportDialog dialog(QSize(640, 400), true);
    auto* presets = dialog.findChild<QComboBox*>(QStringLiteral("exportPreset"));
    QVERIFY(presets);
    for (int i = 1; i < presets->count(); ++i)
      if (const QSize size = presets->itemData(i).toSize(); !size.isEmpty())
        offered.push_back(size);
  }
  QVERIFY(offered.size() >= 3);
  QStringList problems;
  int checked = 0;
  for (const Chart& chart : kCharts) {
    for (int count : {1, 12, 45}) {
      ResultsModel model;
      model.setResults(chart.results(count));
      if (chart.kind == ChartKind::Roofline) model.setCeilings({h200Ceilings()});
      ChartPanel panel(&model);
      panel.showChart(chart.kind);
      std::vector<QSize> sizes = offered;
      for (const QSize screen : kScreens) {
        panel.resize(docked_[screen.width()]);
        panel.show();
        QCoreApplication::processEvents();
        panel.refresh();
        settle(panel.chart(chart.kind));
        sizes.push_back(panel.chart(chart.kind)->size().expandedTo({320, 320}));
      }
      for (const QSize size : sizes) {
        for (bool largeText : {false, true}) {
          // Large text as presenting on a screen of the size: on the screens presenting is
          // checked on (853x480 and larger).
          if (largeText && (size.width() < 853 || size.height() < 480)) continue;
          LayoutCheck check(&problems,
                            QStringLiteral("%1, %2 series, exported at %3x%4%5")
                                .arg(chart.name)
                                .arg(count)
                                .arg(size.width())
                                .arg(size.height())
                                .arg(largeText ? QStringLiteral(", large text") : QString()));
          // Large text on a slide of 1280x720 or more: as presenting on that screen.
          const bool slide = largeText && size.height() >= 720 && size.width() >= 1280;
          panel.asExported(chart.kind, size, largeText, [&](ChartView* view) {
            int pixmaps = 0;
            const std::vector<DrawnText> drawn = recordedTexts(
                size,
                [&](QCPPainter* painter) { view->toPainter(painter, size.width(), size.height()); },
                &pixmaps);
            check.texts(drawn, pixmaps, size, slide ? 20 : 12, slide ? 28 : 0);
            check.legendAndAxes(view, drawn, size);
            return true;
          });
          ++checked;
        }
      }
    }
  }
  qInfo("%d exports checked in %lld ms", checked, timer.elapsed());
  for (const QString& problem : problems.mid(0, 60)) qInfo("%s", qPrintable(problem));
  QVERIFY2(
      problems.isEmpty(),
      qPrintable(QStringLiteral("%1 problems in %2 exports").arg(problems.size()).arg(checked)));
}

void TestChartLayout::everyRoofKeepsItsLabel() {
  // Docked at 1280x720 the roofline left out the TF32 roof's label where it found no clear spot
  // (issue #35). With every roof (FP32, TF32, FP16, BF16, FP8) and a dozen series of points,
  // docked on three screens and presented on a projector: every roof is named by a label shown,
  // on no point, and no text overlaps another (the layout checks). Where the plot is 200 px tall
  // or more, no label lies across a line either; docked at 853x480 it is 100 px, its nine roofs
  // (measured and datasheet) within 27 px of it, and a label may lie veiled over a roof.
  const QStringList roofs{QStringLiteral("FP32"), QStringLiteral("TF32"), QStringLiteral("FP16"),
                          QStringLiteral("BF16"), QStringLiteral("FP8")};
  QStringList problems;
  ResultsModel model;
  model.setResults(roofline(12));
  model.setCeilings({h200EveryRoof()});
  ChartPanel panel(&model);
  panel.showChart(ChartKind::Roofline);
  struct Setting {
    QSize screen;
    bool presenting;
  };
  for (const Setting setting : {Setting{{853, 480}, false}, Setting{{1280, 720}, false},
                                Setting{{1920, 1080}, false}, Setting{{1280, 720}, true}}) {
    panel.setPresentationMode(setting.presenting);
    QWidget* window = setting.presenting ? panel.presentationWindow() : &panel;
    window->setWindowState(Qt::WindowNoState);
    window->resize(setting.presenting ? setting.screen : docked_[setting.screen.width()]);
    window->show();
    QCoreApplication::processEvents();
    panel.refresh();
    ChartView* view = panel.chart(ChartKind::Roofline);
    if (!setting.presenting) settle(view);
    int pixmaps = 0;
    const std::vector<DrawnText> drawn = drawnTexts(view, &pixmaps);
    LayoutCheck check(&problems, QStringLiteral("%1 %2x%3 (chart %4x%5)")
                                     .arg(setting.presenting ? QStringLiteral("presenting on")
                                                             : QStringLiteral("docked on"))
                                     .arg(setting.screen.width())
                                     .arg(setting.screen.height())
                                     .arg(view->width())
                                     .arg(view->height()));
    check.texts(drawn, pixmaps, view->size(), setting.presenting ? 20 : 12,
                setting.presenting ? 28 : 0);
    QStringList named;
    for (int i = 0; i < view->itemCount(); ++i) {
      auto* label = qobject_cast<QCPItemText*>(view->item(i));
      if (!label || !label->visible()) continue;
      const bool isRoof = std::ranges::any_of(
          roofs, [&](const QString& roof) { return label->text().contains(roof); });
      if (!isRoof) continue;
      for (const QString& roof : roofs)
        if (label->text().contains(roof)) named << roof;
      const QRectF rect =
          QRectF(label->topLeft->pixelPosition(), label->bottomRight->pixelPosition()).normalized();
      if (const QString covered = roofLabelCovers(view, rect, view->axisRect()->height() >= 200);
          !covered.isEmpty())
        check.problem(
            QStringLiteral("'%1' %2 covers %3").arg(label->text(), describe(rect), covered));
    }
    for (const QString& roof : roofs)
      if (!named.contains(roof))
        check.problem(QStringLiteral("no label names the %1 roof").arg(roof));
    if (setting.presenting) panel.setPresentationMode(false);
  }
  for (const QString& problem : problems) qInfo("%s", qPrintable(problem));
  QVERIFY2(problems.isEmpty(), qPrintable(QStringLiteral("%1 problems").arg(problems.size())));
}

TILESCOPE_UI_SUITE(TestChartLayout, Gui)
#include "tst_chart_layout.moc"
