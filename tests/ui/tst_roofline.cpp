// SPDX-License-Identifier: GPL-3.0-or-later
// The roofline chart with and without ceilings, its point tips, the datasheet roofs of devices
// that were not measured, and the ceilings measured through the window and kept in its session.
#include <QtTest>

#include <QImage>
#include <QToolTip>

#include "chart_panel.hpp"
#include "chart_view.hpp"
#include "control_panel.hpp"
#include "main_window.hpp"
#include "suite_helpers.hpp"
#include "test_results.hpp"
#include "ui_suite.hpp"

using namespace tilescope;
using namespace tilescope::desktop;
using tilescope::ui::ChartPanel;
using tilescope::ui::ChartView;
using tilescope::ui::MainWindow;

namespace {

using test::kWaitMs;

std::vector<RunResult> someResults() {
  std::vector<RunResult> results;
  for (std::int64_t size : {64, 128, 256}) {
    results.push_back(test::madeUpResult("naive", {{"tile", 16}}, size, 0.001 * size));
    results.push_back(test::madeUpResult("library", {}, size, 0.0002 * size));
  }
  for (int tile : {1, 2, 4}) {
    results.push_back(test::madeUpResult("shared-tiled", {{"tile", tile}}, 128, 2.0 / tile));
  }
  return results;
}

// The ceilings of test::madeUpResult's device: 40 GFLOP/s under 10 GB/s (ridge at 4 FLOP/byte).
DeviceCeilings testCpuCeilings() {
  return {"cpu",
          "Test CPU",
          {{kFp32Ceiling, kComputeUnit, 40.0, std::nullopt, "test"}},
          {kBandwidthCeiling, kBandwidthUnit, 10.0, std::nullopt, "test"}};
}

// The result points: the roofs are plain lines, the points have no line between them.
std::vector<QCPGraph*> pointGraphs(ChartView* view) {
  std::vector<QCPGraph*> graphs;
  for (int i = 0; i < view->graphCount(); ++i) {
    if (view->graph(i)->lineStyle() == QCPGraph::lsNone) graphs.push_back(view->graph(i));
  }
  return graphs;
}

int pointCount(ChartView* view) {
  int count = 0;
  for (QCPGraph* graph : pointGraphs(view)) count += graph->dataCount();
  return count;
}

QStringList itemTexts(ChartView* view) {
  QStringList texts;
  for (int i = 0; i < view->itemCount(); ++i) {
    // A label with no room on one line takes two: read as one.
    if (auto* text = qobject_cast<QCPItemText*>(view->item(i)))
      texts << text->text().replace(QLatin1Char('\n'), QLatin1Char(' '));
  }
  return texts;
}

using test::legendSays;

QCPGraph* graphNamed(ChartView* view, const QString& name) {
  for (QCPGraph* graph : pointGraphs(view)) {
    if (graph->name() == name) return graph;
  }
  return nullptr;
}

}  // namespace

class TestRoofline : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;

  // Shows the panel and its roofline, which is built only while shown; nullptr when the window
  // never appears.
  static ChartView* showRoofline(ChartPanel& panel) {
    panel.resize(1000, 700);
    panel.show();
    if (!QTest::qWaitForWindowExposed(&panel)) return nullptr;
    panel.showChart(ChartKind::Roofline);
    panel.refresh();
    ChartView* view = panel.chart(ChartKind::Roofline);
    view->replot();
    return view;
  }

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("TileScopeTests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_roofline"));
  }

  void withoutCeilingsThePointsShowAndAHintSaysWhatToRun() {
    ResultsModel model;
    model.setResults(someResults());
    ChartPanel panel(&model);
    panel.showChart(ChartKind::Roofline);
    panel.refresh();
    ChartView* view = panel.chart(ChartKind::Roofline);
    QCOMPARE(view->xAxis->scaleType(), QCPAxis::stLogarithmic);
    QCOMPARE(view->yAxis->scaleType(), QCPAxis::stLogarithmic);
    // One series per kernel, every result a point, and no roof (a CPU has no datasheet).
    QCOMPARE(int(pointGraphs(view).size()), 3);
    QCOMPARE(view->graphCount(), 3);
    QCOMPARE(pointCount(view), int(model.results().size()));
    QVERIFY(!view->hasPlaceholder());
    const QStringList texts = itemTexts(view);
    QCOMPARE(texts.size(), 1);
    QVERIFY2(texts.front().contains(QStringLiteral("Measure Ceilings")), qPrintable(texts.front()));

    // Each point at its kernel's intensity from the traffic model; the library at the
    // compulsory one.
    QCPGraph* library = graphNamed(view, QStringLiteral("library"));
    QVERIFY(library);
    QCOMPARE(library->dataCount(), 3);
    QCOMPARE(library->data()->at(0)->key, compulsoryIntensity({64, 64, 64}));
    QCOMPARE(library->data()->at(2)->value, model.results()[5].gflops);
    QCPGraph* shared = graphNamed(view, QStringLiteral("shared-tiled"));
    QVERIFY(shared);
    const Intensity tile4 = arithmeticIntensity({"shared-tiled", {{"tile", 4}}}, {128, 128, 128});
    QCOMPARE(shared->data()->at(2)->key, tile4.flopsPerByte);
    QCOMPARE(shared->data()->at(2)->value, model.results()[8].gflops);
  }

  // The traffic model takes milliseconds per configuration: a session of many results must not
  // stall the window while the roofline is not on show.
  void theRooflineIsBuiltOnlyWhenShownOrExported() {
    ResultsModel model;
    model.setResults(someResults());
    ChartPanel panel(&model);
    panel.showChart(ChartKind::Time);
    panel.refresh();
    ChartView* view = panel.chart(ChartKind::Roofline);
    QCOMPARE(view->graphCount(), 0);
    panel.showChart(ChartKind::Roofline);
    QCOMPARE(pointCount(view), int(model.results().size()));

    ChartPanel other(&model);
    other.showChart(ChartKind::Time);
    QString error;
    const QString path = dir_.filePath(QStringLiteral("roofline.png"));
    QVERIFY2(other.exportChart(ChartKind::Roofline, path, QSize(800, 500), &error),
             qPrintable(error));
    QCOMPARE(pointCount(other.chart(ChartKind::Roofline)), int(model.results().size()));
    QVERIFY(!QImage(path).isNull());
  }

  // 16-bit operands move half the bytes: the library in bf16 sits at its own compulsory
  // intensity, and its tip holds it to the BF16 tensor roof.
  void aSixteenBitResultIsPlacedAndHeldToItsTensorRoof() {
    RunResult bf16 = test::madeUpResult("library", {}, 1024, 0.01);
    bf16.backend = "cuda";
    bf16.device = "NVIDIA H200";
    bf16.element = ElementType::BF16;
    ResultsModel model;
    model.setResults({bf16});
    ChartPanel panel(&model);
    ChartView* view = showRoofline(panel);
    QVERIFY(view);
    // A series per kernel and element type.
    QCPGraph* library = graphNamed(view, QStringLiteral("library bf16"));
    QVERIFY(library);
    QCOMPARE(library->data()->at(0)->key,
             compulsoryIntensity({1024, 1024, 1024}, ElementType::BF16));
    QTest::mouseMove(
        view, library->coordsToPixels(library->data()->at(0)->key, library->data()->at(0)->value)
                  .toPoint());
    QTRY_VERIFY(QToolTip::isVisible());
    QVERIFY2(QToolTip::text().contains(QStringLiteral("datasheet BF16 tensor roofline")),
             qPrintable(QToolTip::text()));
  }

  void noResultsAndNoCeilingsShowAPlaceholder() {
    ResultsModel model;
    ChartPanel panel(&model);
    panel.showChart(ChartKind::Roofline);
    panel.refresh();
    ChartView* view = panel.chart(ChartKind::Roofline);
    QVERIFY(view->hasPlaceholder());
    QCOMPARE(view->graphCount(), 0);
  }

  void measuredCeilingsDrawTheSlopeAndTheRoof() {
    ResultsModel model;
    model.setResults(someResults());
    ChartPanel panel(&model);
    panel.showChart(ChartKind::Roofline);
    panel.show();
    model.setCeilings({testCpuCeilings()});
    ChartView* view = panel.chart(ChartKind::Roofline);
    // The change arrives through the throttled refresh: the slope and the FP32 roof.
    QTRY_COMPARE(view->graphCount(), 3 + 2);
    QCOMPARE(pointCount(view), int(model.results().size()));
    QCPGraph* slope = nullptr;
    QCPGraph* roof = nullptr;
    for (int i = 0; i < view->graphCount(); ++i) {
      QCPGraph* graph = view->graph(i);
      if (graph->lineStyle() == QCPGraph::lsNone) continue;
      QCOMPARE(graph->pen().style(), Qt::SolidLine);  // measured
      QCOMPARE(graph->dataCount(), 2);
      (graph->data()->at(0)->value == graph->data()->at(1)->value ? roof : slope) = graph;
    }
    QVERIFY(slope && roof);
    // The slope climbs at 10 GB/s to the ridge point, 40 / 10 FLOP/byte; the roof runs on at 40.
    QCOMPARE(slope->data()->at(1)->key, 4.0);
    QCOMPARE(slope->data()->at(1)->value, 40.0);
    QCOMPARE(slope->data()->at(0)->value, slope->data()->at(0)->key * 10.0);
    QCOMPARE(roof->data()->at(0)->key, 4.0);
    QCOMPARE(roof->data()->at(1)->value, 40.0);
    const QString labels = itemTexts(view).join(QLatin1Char('|'));
    QVERIFY2(labels.contains(QStringLiteral("FP32 40.0 GFLOP/s")), qPrintable(labels));
    QVERIFY2(labels.contains(QStringLiteral("memory 10.0 GB/s")), qPrintable(labels));
    // The legend says what a solid roof is.
    QVERIFY(legendSays(view, QStringLiteral("roofs as measured")));
    QVERIFY(!legendSays(view, QStringLiteral("roofs from the datasheet")));
    QVERIFY2(!labels.contains(QStringLiteral("Measure Ceilings")), qPrintable(labels));
  }

  void closeRoofsShareOneLabel() {
    DeviceCeilings ceilings = testCpuCeilings();
    ceilings.compute.push_back({kFp16Ceiling, kComputeUnit, 700.0, std::nullopt, "test"});
    ceilings.compute.push_back({kBf16Ceiling, kComputeUnit, 720.0, std::nullopt, "test"});
    ResultsModel model;
    model.setCeilings({ceilings});
    ChartPanel panel(&model);
    panel.showChart(ChartKind::Roofline);
    panel.refresh();
    ChartView* view = panel.chart(ChartKind::Roofline);
    QCOMPARE(view->graphCount(), 1 + 3);  // the slope and every roof
    const QStringList labels = itemTexts(view);
    // The slope, FP32, and FP16 with BF16 (3 % apart), with no hint: the ceilings are measured.
    QCOMPARE(labels.size(), 3);
    QVERIFY2(labels.contains(QStringLiteral("FP16/BF16 tensor 700/720 GFLOP/s")),
             qPrintable(labels.join(QLatin1Char('|'))));
  }

  void aPointTipGivesTheIntensityAndTheShareOfTheRoof() {
    ResultsModel model;
    model.setResults(someResults());
    model.setCeilings({testCpuCeilings()});
    ChartPanel panel(&model);
    ChartView* view = showRoofline(panel);
    QVERIFY(view);
    QCPGraph* library = graphNamed(view, QStringLiteral("library"));
    QVERIFY(library);
    // The library at 256^3: far right of the ridge, so its roof is the 40 GFLOP/s peak.
    const RunResult& result = model.results()[5];
    const QPointF point =
        library->coordsToPixels(library->data()->at(2)->key, library->data()->at(2)->value);
    QTest::mouseMove(view, point.toPoint());
    QTRY_VERIFY(QToolTip::isVisible());
    const QString tip = QToolTip::text();
    QVERIFY2(tip.contains(QStringLiteral("compulsory")), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("256\u00b3")), qPrintable(tip));
    const QString share = QStringLiteral("%1 %").arg(100 * result.gflops / 40.0, 0, 'f', 1);
    QVERIFY2(tip.contains(share), qPrintable(tip + " / expected " + share));
  }

  // A run with counters appears twice: at the model's intensity and, hollow, at FLOPs over the
  // DRAM bytes counted, a dotted line between them, and the legend says what hollow means.
  void aCountedRunIsAlsoDrawnAtItsMeasuredIntensity() {
    ResultsModel model;
    std::vector<RunResult> results = someResults();
    RunResult& counted = results[8];  // shared-tiled, tile 4, 128^3
    counted.counters = HardwareCounters{};
    counted.counters->dramReadBytes = 3 * 128 * 128 * 4;  // the operands once: the compulsory
    counted.counters->source = "CUPTI range profiler (test)";
    model.setResults(results);
    model.setCeilings({testCpuCeilings()});
    ChartPanel panel(&model);
    ChartView* view = showRoofline(panel);
    QVERIFY(view);
    QCPGraph* measured = graphNamed(view, QStringLiteral("shared-tiled (counted)"));
    QVERIFY(measured);
    QCOMPARE(measured->dataCount(), 1);
    const double intensity = counted.shape.flops() / (3 * 128 * 128 * 4.0);
    QCOMPARE(measured->data()->at(0)->key, intensity);
    QCOMPARE(measured->data()->at(0)->value, counted.gflops);
    QCOMPARE(pointCount(view), int(results.size()) + 1);
    // The link: a dotted line from the modelled intensity to the counted one, at the same rate.
    const Intensity modelled = arithmeticIntensity(counted.kernel, counted.shape);
    bool linked = false;
    for (int i = 0; i < view->graphCount(); ++i) {
      QCPGraph* graph = view->graph(i);
      if (graph->pen().style() != Qt::DotLine || graph->dataCount() != 2) continue;
      linked = graph->data()->at(0)->key == std::min(modelled.flopsPerByte, intensity) &&
               graph->data()->at(1)->key == std::max(modelled.flopsPerByte, intensity) &&
               graph->data()->at(0)->value == counted.gflops;
    }
    QVERIFY(linked);
    const std::vector<ui::LegendEntry>& legend = view->legendEntries();
    QVERIFY(std::any_of(legend.begin(), legend.end(), [](const ui::LegendEntry& entry) {
      return entry.label == QStringLiteral("hollow: at the DRAM bytes counted") &&
             entry.style.overlaid;
    }));
    // Without counters, no such entry.
    model.setResults(someResults());
    panel.refresh();
    QVERIFY(!graphNamed(view, QStringLiteral("shared-tiled (counted)")));
    QCOMPARE(int(view->legendEntries().size()), 3 + 1);  // three kernels, the measured roofs
  }

  void anUnmeasuredGpuGetsItsDatasheetRoofsDashed() {
    RunResult gpu = test::madeUpResult("shared-tiled", {{"tile", 16}}, 1024, 0.5);
    gpu.backend = "cuda";
    gpu.device = "NVIDIA H200";
    ResultsModel model;
    model.setResults({gpu});
    ChartPanel panel(&model);
    panel.showChart(ChartKind::Roofline);
    panel.refresh();
    ChartView* view = panel.chart(ChartKind::Roofline);
    QCOMPARE(pointCount(view), 1);
    // The points, the slope and five roofs: FP32, TF32, FP16 and BF16 (equal on the datasheet,
    // so they share a label) and FP8.
    QCOMPARE(view->graphCount(), 1 + 1 + 5);
    for (int i = 0; i < view->graphCount(); ++i) {
      if (view->graph(i)->lineStyle() != QCPGraph::lsNone)
        QCOMPARE(view->graph(i)->pen().style(), Qt::DashLine);
    }
    const QString labels = itemTexts(view).join(QLatin1Char('|'));
    QVERIFY2(labels.contains(QStringLiteral("FP16/BF16 tensor 989 TFLOP/s")), qPrintable(labels));
    QVERIFY2(labels.contains(QStringLiteral("FP8 tensor 1979 TFLOP/s")), qPrintable(labels));
    QCOMPARE(itemTexts(view).size(), 1 + 4 + 1);  // the slope, four roof labels, the hint
    QVERIFY2(labels.contains(QStringLiteral("memory 4.80 TB/s")), qPrintable(labels));
    QVERIFY(legendSays(view, QStringLiteral("roofs from the datasheet")));
    QVERIFY2(labels.contains(QStringLiteral("Measure Ceilings")), qPrintable(labels));
  }

  // Measured on the worker thread through the queue, kept in the session, and back after a
  // save and an open.
  void theWindowMeasuresCeilingsAndItsSessionKeepsThem() {
    const QString path = dir_.filePath(QStringLiteral("roofline-session.json"));
    DeviceCeilings measured;
    {
      MainWindow window;
      window.setRemembersSettings(false);
      QTRY_VERIFY_WITH_TIMEOUT(window.controller()->backendsKnown(), kWaitMs);
      Choices choices = window.controls()->choices();
      choices.backend = "cpu";
      window.controls()->setChoices(choices);
      QSignalSpy ready(window.controller(), &RunController::ceilingsReady);
      QVERIFY(window.measureCeilings());
      QCOMPARE(window.charts()->currentChart(), ChartKind::Roofline);
      QVERIFY(ready.wait(kWaitMs));
      QCOMPARE(window.results()->ceilings().size(), std::size_t(1));
      measured = window.results()->ceilings().front();
      QCOMPARE(measured.backend, std::string("cpu"));
      QVERIFY(measured.compute.front().measured > 0);
      QVERIFY(measured.bandwidth.measured > 0);
      QVERIFY(window.isWindowModified());
      QString error;
      QVERIFY2(window.sessions()->save(path, &error), qPrintable(error));
    }
    MainWindow reopened;
    reopened.setRemembersSettings(false);
    QString error;
    QVERIFY2(reopened.sessions()->open(path, &error), qPrintable(error));
    QCOMPARE(reopened.results()->ceilings().size(), std::size_t(1));
    QCOMPARE(reopened.results()->ceilings().front(), measured);
    reopened.charts()->showChart(ChartKind::Roofline);
    QVERIFY(legendSays(reopened.charts()->chart(ChartKind::Roofline),
                       QStringLiteral("roofs as measured")));
  }
};

TILESCOPE_UI_SUITE(TestRoofline, Gui)
#include "tst_roofline.moc"
