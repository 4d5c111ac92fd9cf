// SPDX-License-Identifier: GPL-3.0-or-later
// Charts with many series: one palette for every chart, legends one entry per kernel that list
// every entry, category labels that never overlap, roofline labels kept apart, exports that clip
// nothing, a message in place of every chart that would mean nothing, and the themes.
#include <QtTest>

#include <QApplication>
#include <QComboBox>
#include <QMenu>
#include <QScrollArea>
#include <QScrollBar>
#include <QSet>
#include <QSpinBox>
#include <QToolTip>

#include "chart_export_dialog.hpp"
#include "chart_legend.hpp"
#include "chart_panel.hpp"
#include "chart_view.hpp"
#include "main_window.hpp"
#include "series_style.hpp"
#include "session.hpp"
#include "settings.hpp"
#include "test_results.hpp"
#include "theme.hpp"
#include "ui_suite.hpp"

using namespace tilescope;
using namespace tilescope::desktop;
using tilescope::ui::ChartPanel;
using tilescope::ui::ChartView;

namespace {

// A tile sweep of shared-tiled over every tile 1..32 at `size`.
std::vector<RunResult> tileSweep(std::int64_t size) {
  std::vector<RunResult> results;
  for (int tile = 1; tile <= 32; ++tile)
    results.push_back(test::madeUpResult("shared-tiled", {{"tile", tile}}, size, 1.0 + tile % 7));
  return results;
}

// Forty runs of the ladder with their copy and kernel times, as a GPU session holds them.
std::vector<RunResult> fortyPhasedRuns() {
  const char* kernels[] = {"naive", "shared-tiled", "register-tiled", "library"};
  std::vector<RunResult> results;
  for (int i = 0; i < 40; ++i) {
    RunResult result = test::madeUpResult(kernels[i % 4], {}, 128 << (i % 5), 1.0 + i);
    result.phases = Phases{0.5, 1.0 + i, 0.25};
    results.push_back(result);
  }
  return results;
}

// The pointer resting on `point` of `view` (a move event, as the window system sends it).
void hover(QWidget* view, QPoint point) {
  QMouseEvent move(QEvent::MouseMove, point, view->mapToGlobal(point), Qt::NoButton, Qt::NoButton,
                   Qt::NoModifier);
  QApplication::sendEvent(view, &move);
}

QString sessionPath(const char* name) {
  return QStringLiteral(TILESCOPE_SESSIONS_DIR "/%1.json").arg(QLatin1String(name));
}

// A shipped session's results (and, `withCeilings`, its ceilings) in `model`; false when it
// will not load.
bool loadShipped(ResultsModel& model, const char* name, bool withCeilings = false) {
  QString error;
  const std::optional<Session> session = loadSession(sessionPath(name), &error);
  if (!session) {
    qWarning("%s", qPrintable(error));
    return false;
  }
  model.setResults(session->results);
  if (withCeilings) model.setCeilings(session->ceilings);
  return true;
}

// Where QCustomPlot draws a category label: centred under its tick, turned with the axis.
QRectF labelRect(ChartView* view, double key, const QString& text) {
  const QFontMetrics metrics(view->xAxis->tickLabelFont());
  QSizeF size = metrics.boundingRect(QRect(), Qt::TextDontClip | Qt::AlignCenter, text).size();
  if (std::abs(view->xAxis->tickLabelRotation()) > 45) size.transpose();
  const double x = view->xAxis->coordToPixel(key);
  return {x - size.width() / 2, double(view->axisRect()->bottom()), size.width(), size.height()};
}

// Every pair of category labels drawn apart; a shortened label's full text is its tooltip.
void checkCategoryLabels(ChartView* view) {
  const auto ticker = view->xAxis->ticker().dynamicCast<QCPAxisTickerText>();
  QVERIFY(ticker);
  const QMap<double, QString> ticks = ticker->ticks();
  QCOMPARE(ticks.size(), view->categories().size());
  std::vector<QRectF> drawn;
  for (auto tick = ticks.cbegin(); tick != ticks.cend(); ++tick) {
    if (tick.value().isEmpty()) continue;
    const QRectF rect = labelRect(view, tick.key(), tick.value());
    for (const QRectF& other : drawn)
      QVERIFY2(!rect.intersects(other),
               qPrintable(QStringLiteral("label %1 overlaps").arg(tick.key())));
    drawn.push_back(rect);
    const QString full = view->categories().at(int(tick.key()) - 1);
    QString plain = tick.value();
    plain.replace(QLatin1Char('\n'), QLatin1Char(' '));
    QString fullPlain = full;
    fullPlain.replace(QLatin1Char('\n'), QLatin1Char(' '));
    if (plain == fullPlain) continue;
    // Shortened: hovering the label shows the full text.
    const QPoint under(int(view->xAxis->coordToPixel(tick.key())), view->axisRect()->bottom() + 8);
    hover(view, under);
    QTRY_VERIFY(QToolTip::isVisible());
    QCOMPARE(QToolTip::text(), full.toHtmlEscaped().replace(QLatin1Char('\n'), "<br>"));
  }
  QVERIFY(!drawn.empty());
}

// The rectangles of the chart's text items (the roofline's labels), as laid out last.
std::vector<std::pair<QString, QRectF>> textRects(ChartView* view) {
  std::vector<std::pair<QString, QRectF>> rects;
  for (int i = 0; i < view->itemCount(); ++i) {
    auto* text = qobject_cast<QCPItemText*>(view->item(i));
    if (!text || text->text().isEmpty() || !text->visible()) continue;
    rects.emplace_back(
        text->text(),
        QRectF(text->topLeft->pixelPosition(), text->bottomRight->pixelPosition()).normalized());
  }
  return rects;
}

}  // namespace

class TestCharts : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;

  static void showPanel(ChartPanel& panel, QSize size) {
    panel.resize(size);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
  }

  // The panel shown at `size` on the chart of `kind`, built and laid out.
  static ChartView* showChart(ChartPanel& panel, ChartKind kind, QSize size) {
    showPanel(panel, size);
    panel.showChart(kind);
    panel.refresh();
    ChartView* view = panel.chart(kind);
    view->replot();
    return view;
  }

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("TileScopeTests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_charts"));
    QVERIFY(dir_.isValid());
  }

  void noTwoSeriesShareColourAndMarker() {
    // 24 series: every kernel of the catalogue, the rest variants of a few of them.
    std::vector<ui::SeriesId> series;
    for (const KernelInfo& info : catalogue())
      series.push_back({QString::fromStdString(info.id), QString::fromStdString(info.id), info.id});
    for (int tile : {1, 2, 4, 8, 16}) {
      for (const char* kernel : {"shared-tiled", "naive"}) {
        const QString name = QStringLiteral("%1 tile=%2").arg(kernel).arg(tile);
        series.push_back({name, QString::fromLatin1(kernel), kernel});
      }
    }
    QVERIFY(series.size() >= 24);
    // And one kernel swept over 32 tiles.
    std::vector<ui::SeriesId> sweep;
    for (int tile = 1; tile <= 32; ++tile)
      sweep.push_back(
          {QStringLiteral("shared-tiled tile=%1").arg(tile), "shared-tiled", "shared-tiled"});
    for (const auto& chart : {series, sweep}) {
      for (ui::Contrast contrast : {ui::Contrast::Light, ui::Contrast::Dark, ui::Contrast::High}) {
        const std::vector<ui::SeriesStyle> styles = ui::seriesStyles(chart, contrast);
        QCOMPARE(styles.size(), chart.size());
        QSet<QPair<QRgb, int>> seen;
        for (const ui::SeriesStyle& style : styles) seen.insert({style.color.rgb(), style.marker});
        QCOMPARE(seen.size(), int(chart.size()));
      }
    }
    // Every kernel of the catalogue has its own colour: tensor-mma is not naive, tensor-wgmma not
    // shared-tiled.
    const std::vector<ui::SeriesStyle> kernels = ui::seriesStyles(
        {series.begin(), series.begin() + catalogue().size()}, ui::Contrast::Light);
    QSet<QRgb> colours;
    for (const ui::SeriesStyle& style : kernels) colours.insert(style.color.rgb());
    QCOMPARE(colours.size(), int(catalogue().size()));
  }

  void aKernelKeepsItsColourInEveryChartAndSession() {
    // Session one: shared-tiled alone; session two: other kernels first.
    ResultsModel alone;
    alone.setResults({test::madeUpResult("shared-tiled", {{"tile", 16}}, 128, 1.0),
                      test::madeUpResult("shared-tiled", {{"tile", 16}}, 256, 4.0)});
    ResultsModel crowded;
    std::vector<RunResult> results;
    for (const char* kernel : {"naive", "library", "register-tiled", "shared-tiled"}) {
      for (std::int64_t size : {128, 256})
        results.push_back(test::madeUpResult(
            kernel, kernel == std::string("library") ? Params{} : Params{{"tile", 16}}, size, 1.0));
    }
    crowded.setResults(results);
    ChartPanel first(&alone), second(&crowded);
    first.refresh();
    second.refresh();
    const auto colourOf = [](ChartView* view, const QString& name) {
      for (int i = 0; i < view->graphCount(); ++i)
        if (view->graph(i)->name() == name) return view->graph(i)->pen().color();
      return QColor();
    };
    const QColor time = colourOf(first.chart(ChartKind::Time), "shared-tiled tile=16");
    QVERIFY(time.isValid());
    QCOMPARE(colourOf(second.chart(ChartKind::Time), "shared-tiled tile=16"), time);
    QCOMPARE(colourOf(second.chart(ChartKind::Rate), "shared-tiled tile=16"), time);
    QVERIFY(colourOf(second.chart(ChartKind::Time), "naive tile=16") != time);
    // The roofline's point of the kernel too.
    second.showChart(ChartKind::Roofline);
    second.refresh();
    QCOMPARE(colourOf(second.chart(ChartKind::Roofline), "shared-tiled"), time);
  }

  void aTileSweepsLegendStaysSmall() {
    for (bool twoSizes : {false, true}) {
      ResultsModel model;
      std::vector<RunResult> results = tileSweep(512);
      if (twoSizes) {
        for (RunResult& result : tileSweep(1024)) results.push_back(result);
      }
      model.setResults(results);
      ChartPanel panel(&model);
      ChartView* rate = showChart(panel, ChartKind::Rate, {900, 600});
      // One entry for the kernel, its 32 series on hover.
      QCOMPARE(rate->legend->itemCount(), 1);
      QVERIFY(rate->legend->visible());
      QVERIFY2(rate->legend->outerRect().height() < rate->height() / 8,
               qPrintable(QString::number(rate->legend->outerRect().height())));
      QVERIFY(rate->axisRect()->height() > rate->height() / 2);
      QVERIFY(rate->axisRect()->width() > rate->width() * 3 / 4);
      hover(rate, rate->legend->item(0)->outerRect().center());
      QTRY_VERIFY(QToolTip::isVisible());
      QVERIFY2(QToolTip::text().contains("shared-tiled tile=32"), qPrintable(QToolTip::text()));
      // Hidden from the context menu, the legend stays hidden as the chart is rebuilt, and the
      // plot takes its room.
      const int plotHeight = rate->axisRect()->height();
      rate->setLegendWanted(false);
      rate->replot();
      QVERIFY(!rate->legend->visible());
      QVERIFY(rate->axisRect()->height() > plotHeight);
      panel.refresh();
      rate->replot();
      QVERIFY(!rate->legend->visible());
      rate->setLegendWanted(true);
      rate->replot();
      QVERIFY(rate->legend->visible());
      QCOMPARE(rate->axisRect()->height(), plotHeight);
    }
  }

  void smallChartsKeepTheirTitleAndPlot_data() {
    QTest::addColumn<QString>("session");
    QTest::addColumn<QSize>("size");
    // The window's first-run size on a 1280x720 screen, the chart docked in it (about 330 x 390,
    // as drawn), the smallest dock, and a desk screen.
    for (const char* session : {"h200-ladder", "h200-roofline"}) {
      for (QSize size : {QSize(1178, 660), QSize(330, 390), QSize(460, 400), QSize(1800, 900)}) {
        const QString name = QString::fromLatin1(session);
        QTest::newRow(
            qPrintable(QStringLiteral("%1 %2x%3").arg(name).arg(size.width()).arg(size.height())))
            << name << size;
      }
    }
  }

  void smallChartsKeepTheirTitleAndPlot() {
    QFETCH(QString, session);
    QFETCH(QSize, size);
    ResultsModel model;
    QVERIFY(loadShipped(model, qPrintable(session), true));
    ChartPanel panel(&model);
    for (ChartKind kind : {ChartKind::Time, ChartKind::Rate, ChartKind::Library,
                           ChartKind::Roofline, ChartKind::Phases}) {
      ChartView* view = showChart(panel, kind, size);
      const QString id = QStringLiteral("%1 %2").arg(chartId(kind), session);
      // The title fits the chart's width, broken onto lines where it must be (shortened only
      // where one word is wider than the chart); the full text stays the chart's title and shows
      // on hover.
      QVERIFY2(view->title().contains(QStringLiteral("NVIDIA H200")), qPrintable(id));
      QVERIFY2(QRect(QPoint(0, 0), view->size()).contains(view->titleRect()),
               qPrintable(id + ": " + view->shownTitle()));
      if (view->shownTitle() != view->title()) {
        // Broken after its dash or between words, or shortened.
        QString broken = view->shownTitle(), whole = view->title();
        broken.replace(QLatin1Char('\n'), QLatin1Char(' '));
        whole.replace(QStringLiteral(" \u2014 "), QStringLiteral(" "));
        QVERIFY2(
            broken.simplified() == whole.simplified() || view->shownTitle().contains(QChar(0x2026)),
            qPrintable(view->shownTitle()));
        hover(view, view->titleRect().center());
        QTRY_VERIFY(QToolTip::isVisible());
        QCOMPARE(QToolTip::text(), view->title().toHtmlEscaped());
      }
      // The legend lies inside the chart and leaves the plot most of the height (listing every
      // entry, it may take a third of a small chart).
      if (view->legend->visible()) {
        QVERIFY2(QRect(QPoint(0, 0), view->size()).contains(view->legend->outerRect()),
                 qPrintable(id));
        QVERIFY2(view->legend->outerRect().height() <= view->height() / 3,
                 qPrintable(id + QStringLiteral(": legend %1 of %2")
                                     .arg(view->legend->outerRect().height())
                                     .arg(view->height())));
        for (int i = 0; i < view->legend->itemCount(); ++i) {
          if (QCPAbstractLegendItem* item = view->legend->item(i))
            QVERIFY2(view->legend->outerRect().contains(item->outerRect()), qPrintable(id));
        }
      }
      QVERIFY2(view->axisRect()->height() >= view->height() * 0.45,
               qPrintable(id + QStringLiteral(": plot %1 of %2")
                                   .arg(view->axisRect()->height())
                                   .arg(view->height())));
      QVERIFY2(view->axisRect()->width() >= view->width() * 0.6, qPrintable(id));
    }
  }

  void aCrowdedLegendListsEveryEntry() {
    // 40 kernels' worth of groups. Docked, on a wide chart and in an export of any size, every
    // group has its entry, inside the chart, none over another, each text distinct. Docked too
    // short for them, the chart grows taller than its page, which scrolls: the plot stays in view,
    // the wheel over the legend scrolls the page and over the plot zooms.
    ResultsModel model;
    std::vector<RunResult> results;
    for (int i = 0; i < 40; ++i) {
      for (std::int64_t size : {256, 512})
        results.push_back(test::madeUpResult(catalogue()[std::size_t(i) % catalogue().size()].id,
                                             {{"tile", 1 + i}}, size, 1.0 + i));
    }
    model.setResults(results);
    ChartPanel panel(&model);
    const auto check = [&](ChartView* rate, QSize size) {
      const QString where = QStringLiteral("%1x%2").arg(size.width()).arg(size.height());
      QVERIFY(rate->legend->visible());
      QVERIFY2(QRect(QPoint(0, 0), size).contains(rate->legend->outerRect()), qPrintable(where));
      std::vector<QRect> cells;
      QStringList texts;
      for (int i = 0; i < rate->legend->itemCount(); ++i) {
        QCPAbstractLegendItem* cell = rate->legend->item(i);
        if (!cell) continue;
        QVERIFY2(rate->legend->outerRect().contains(cell->outerRect()), qPrintable(where));
        for (const QRect& other : cells) QVERIFY(!other.intersects(cell->outerRect()));
        cells.push_back(cell->outerRect());
        auto* item = dynamic_cast<ui::EntryLegendItem*>(cell);
        QVERIFY(item);
        QVERIFY2(!texts.contains(item->shownText()), qPrintable(item->shownText()));
        texts << item->shownText();
      }
      QCOMPARE(int(texts.size()), int(catalogue().size()));
    };
    ChartView* rate = showChart(panel, ChartKind::Rate, {330, 270});
    auto* page = qobject_cast<QScrollArea*>(rate->parentWidget()->parentWidget());
    QVERIFY(page);
    // Grown, laid out at its new size, the page's scroll bar shown.
    QTRY_VERIFY(rate->height() > page->viewport()->height() &&
                rate->height() == rate->minimumHeight() &&
                rate->viewport().height() == rate->height());
    rate->replot();
    check(rate, rate->size());
    QVERIFY(rate->axisRect()->height() >= page->viewport()->height() * 0.3);
    QVERIFY2(rate->axisRect()->outerRect().bottom() <= page->viewport()->height(),
             qPrintable(QStringLiteral("plot to %1 of %2")
                            .arg(rate->axisRect()->outerRect().bottom())
                            .arg(page->viewport()->height())));
    // The last entry's series show on hover.
    auto* last =
        dynamic_cast<ui::EntryLegendItem*>(rate->legend->item(rate->legend->itemCount() - 1));
    QVERIFY(last);
    hover(rate, last->outerRect().center());
    QTRY_VERIFY(QToolTip::isVisible());
    QVERIFY2(QToolTip::text().contains(last->entry().members.back().toHtmlEscaped()),
             qPrintable(QToolTip::text()));
    // The wheel over the legend is left to the page, which scrolls (Qt passes an ignored wheel
    // event on to the parent; one a test sends is not passed on, so the test passes it on); over
    // the plot it zooms.
    const auto wheel = [&](QPoint at) {
      QWheelEvent event(at, rate->mapToGlobal(at), {}, {0, -120}, Qt::NoButton, Qt::NoModifier,
                        Qt::NoScrollPhase, false);
      QApplication::sendEvent(rate, &event);
      if (event.isAccepted()) return true;
      const QPoint there = rate->mapTo(page->viewport(), at);
      QWheelEvent passed(there, page->viewport()->mapToGlobal(there), {}, {0, -120}, Qt::NoButton,
                         Qt::NoModifier, Qt::NoScrollPhase, false);
      QApplication::sendEvent(page->viewport(), &passed);
      return false;
    };
    const QCPRange range = rate->xAxis->range();
    QCOMPARE(page->verticalScrollBar()->value(), 0);
    QVERIFY(!wheel(rate->legend->outerRect().center()));
    QVERIFY(page->verticalScrollBar()->value() > 0);
    QCOMPARE(rate->xAxis->range(), range);
    QVERIFY(!rate->userMovedView());
    QVERIFY(wheel(rate->axisRect()->rect().center()));
    QVERIFY(rate->xAxis->range() != range);
    QVERIFY(rate->userMovedView());
    // Wide enough, the chart fills its page.
    rate = showChart(panel, ChartKind::Rate, {1800, 900});
    QTRY_COMPARE(rate->height(), page->viewport()->height());
    check(rate, rate->size());
    QVERIFY(rate->legend->outerRect().height() <= rate->height() / 4);
    QVERIFY(rate->axisRect()->height() >= rate->height() / 2);
    // Exported at a small size, the file lists them all.
    const QString path = dir_.filePath(QStringLiteral("crowded.png"));
    QString error;
    QVERIFY2(panel.exportChart(ChartKind::Rate, path, {640, 400}, &error), qPrintable(error));
    check(rate, {640, 400});
  }

  void kernelsAtOneSizeAreComparedAsBars() {
    ResultsModel model;
    std::vector<RunResult> results;
    for (const char* kernel : {"naive", "shared-tiled", "register-tiled"})
      results.push_back(test::madeUpResult(kernel, {{"tile", 8}}, 512, 2.0));
    results.push_back(test::madeUpResult("library", {}, 512, 0.5));
    model.setResults(results);
    ChartPanel panel(&model);
    ChartView* rate = showChart(panel, ChartKind::Rate, {900, 600});
    QCOMPARE(rate->graphCount(), 0);
    QCOMPARE(rate->plottableCount(), 4);
    auto* library = qobject_cast<QCPBars*>(rate->plottable(3));
    QVERIFY(library);
    QCOMPARE(library->name(), QStringLiteral("library"));
    QCOMPARE(library->data()->at(0)->key, 4.0);
    QCOMPARE(library->data()->at(0)->value, results[3].gflops);
    QCOMPARE(rate->categories().at(3), QStringLiteral("library"));
    checkCategoryLabels(rate);
  }

  void fortyRunsPhasesLabelsDoNotOverlap() {
    ResultsModel model;
    model.setResults(fortyPhasedRuns());
    ChartPanel panel(&model);
    for (QSize size : {QSize(1600, 800), QSize(900, 600), QSize(500, 400)}) {
      ChartView* phases = showChart(panel, ChartKind::Phases, size);
      QCOMPARE(phases->categories().size(), 40);
      checkCategoryLabels(phases);
      // The plot keeps most of the height.
      QVERIFY(phases->axisRect()->height() > phases->height() / 3);
    }
  }

  // A second session laid over the charts joins the phases as runs of its own and the autotune
  // landscape as bars beside the session's configurations, hollow and marked with its label.
  void phasesNameEachKernelOverItsRuns() {
    // The ladder's phases named some kernels "warptile …" and "prefetche…" over their runs,
    // presented at 1280x720 and docked on a 1920x1080 screen. Each group names its kernel whole
    // (broken at a hyphen where it must), the parameters after it shortened. (Docked at 1280x720
    // a group of five bars is narrower than "vectorized": it is shortened.)
    ResultsModel model;
    QVERIFY(loadShipped(model, "h200-ladder"));
    ChartPanel panel(&model);
    for (const bool presenting : {false, true}) {
      ChartView* phases = showChart(panel, ChartKind::Phases, {1290, 792});
      if (presenting) {
        panel.setPresentationMode(true);
        panel.presentationWindow()->setWindowState(Qt::WindowNoState);
        panel.presentationWindow()->resize(1280, 720);
        QTRY_COMPARE(phases->size(), QSize(1280, 720));
        phases->replot();
      }
      const auto groups = phases->xAxis2->ticker().dynamicCast<QCPAxisTickerText>();
      QVERIFY(groups);
      QVERIFY(groups->ticks().size() >= 8);
      for (const QString& name : groups->ticks()) {
        QString plain = name;
        plain.replace(QStringLiteral("-\n"), QStringLiteral("-"));
        plain.replace(QLatin1Char('\n'), QLatin1Char(' '));
        const QString kernel = plain.section(QLatin1Char(' '), 0, 0);
        QVERIFY2(findKernel(kernel.toStdString()),
                 qPrintable(QStringLiteral("'%1' (%2)")
                                .arg(plain, presenting ? QStringLiteral("presenting")
                                                       : QStringLiteral("docked"))));
      }
      panel.setPresentationMode(false);
    }
  }

  void phasesAndAutotuneDrawTheOverlay() {
    const auto onTheH200 = [](RunResult result) {
      result.backend = "cuda";
      result.device = "NVIDIA H200";
      result.phases = Phases{0.5, result.stats.medianMs, 0.25};
      return result;
    };
    ResultsModel model;
    std::vector<RunResult> own;
    for (int tile : {1, 2, 4, 8})
      own.push_back(test::madeUpResult("register-tiled", {{"tile", tile}}, 512, 10.0 / tile));
    model.setResults(own);
    std::vector<RunResult> sample;
    for (int tile : {2, 4, 16})
      sample.push_back(onTheH200(test::madeUpResult("register-tiled", {{"tile", tile}}, 512, 0.1)));
    ChartPanel panel(&model);
    panel.addOverlay(QStringLiteral("H200 sample"), sample);
    panel.refresh();

    // Phases: the CPU runs have none; the sample's three runs stand there, hollow and marked.
    ChartView* phases = panel.chart(ChartKind::Phases);
    QVERIFY(!phases->hasPlaceholder());
    QCOMPARE(phases->categories().size(), 3);
    for (const QString& label : phases->categories())
      QVERIFY2(label.contains(QStringLiteral("\u00b7 H200 sample")), qPrintable(label));
    QCOMPARE(phases->plottableCount(), 3);
    for (int i = 0; i < phases->plottableCount(); ++i) {
      auto* bars = qobject_cast<QCPBars*>(phases->plottable(i));
      QVERIFY(bars);
      QCOMPARE(bars->pen().style(), Qt::DashLine);
      QVERIFY(bars->name().endsWith(QStringLiteral("H200 sample")));
      QCOMPARE(bars->dataCount(), 3);
    }
    // With runs of its own too, the session's come first, solid.
    std::vector<RunResult> phased = own;
    for (RunResult& result : phased) result.phases = Phases{0.1, result.stats.medianMs, 0.1};
    model.setResults(phased);
    panel.refresh();
    QCOMPARE(phases->categories().size(), 7);
    QVERIFY(!phases->categories().front().contains(QStringLiteral("H200 sample")));
    QVERIFY(phases->categories().back().contains(QStringLiteral("H200 sample")));
    QCOMPARE(phases->plottableCount(), 6);
    int solid = 0, dashed = 0;
    for (int i = 0; i < phases->plottableCount(); ++i) {
      auto* bars = qobject_cast<QCPBars*>(phases->plottable(i));
      (bars->pen().style() == Qt::DashLine ? dashed : solid) += bars->dataCount();
    }
    QCOMPARE(solid, 4 * 3);
    QCOMPARE(dashed, 3 * 3);
    model.setResults(own);
    panel.refresh();

    // Autotune: the session's four configurations, the sample's three beside them (tile=16,
    // which the session lacks, gets a category of its own), each bar under its configuration.
    ChartView* landscape = panel.chart(ChartKind::Landscape);
    QVERIFY(!landscape->hasPlaceholder());
    QCOMPARE(landscape->categories().size(), 5);
    QCOMPARE(landscape->categories().back(), QStringLiteral("tile=16"));
    int overlaid = 0, mine = 0;
    for (int i = 0; i < landscape->plottableCount(); ++i) {
      auto* bars = qobject_cast<QCPBars*>(landscape->plottable(i));
      QVERIFY(bars);
      const bool fromSample = bars->name().endsWith(QStringLiteral("\u00b7 H200 sample"));
      QCOMPARE(bars->pen().style(), fromSample ? Qt::DashLine : Qt::SolidLine);
      for (auto point = bars->data()->constBegin(); point != bars->data()->constEnd(); ++point) {
        const QString config = landscape->categories().at(int(std::lround(point->key)) - 1);
        const std::vector<RunResult>& from = fromSample ? sample : own;
        const auto result = std::find_if(from.begin(), from.end(), [&](const RunResult& r) {
          return QString::fromStdString(formatParams(r.kernel)) == config;
        });
        QVERIFY2(result != from.end(), qPrintable(config));
        QCOMPARE(point->value, result->gflops);
        // Side by side, never on top of each other.
        QVERIFY(std::abs(point->key - std::lround(point->key)) > 0.1);
        ++(fromSample ? overlaid : mine);
      }
    }
    QCOMPARE(mine, 4);
    QCOMPARE(overlaid, 3);
    // A session without a landscape shows the overlay's own.
    model.setResults({});
    panel.refresh();
    QVERIFY(!landscape->hasPlaceholder());
    QCOMPARE(landscape->categories().size(), 3);
    QVERIFY(landscape->title().contains(QStringLiteral("NVIDIA H200")));
    panel.removeOverlay(QStringLiteral("H200 sample"));
    panel.refresh();
    QVERIFY(landscape->hasPlaceholder());
    QVERIFY(phases->hasPlaceholder());
  }

  void rooflineLabelsDoNotOverlap() {
    ResultsModel model;
    QVERIFY(loadShipped(model, "h200-roofline", true));
    ChartPanel panel(&model);
    for (QSize size : {QSize(1400, 900), QSize(900, 600), QSize(640, 480), QSize(480, 320)}) {
      ChartView* roofline = showChart(panel, ChartKind::Roofline, size);
      const auto rects = textRects(roofline);
      QVERIFY(rects.size() >= (size.width() < 600 ? 2u : 4u));
      for (std::size_t i = 0; i < rects.size(); ++i) {
        for (std::size_t j = i + 1; j < rects.size(); ++j) {
          QVERIFY2(!rects[i].second.intersects(rects[j].second),
                   qPrintable(rects[i].first + " / " + rects[j].first));
        }
      }
      // Every series in its own colour and marker.
      QSet<QPair<QRgb, QString>> styles;
      int points = 0;
      for (int i = 0; i < roofline->graphCount(); ++i) {
        QCPGraph* graph = roofline->graph(i);
        if (graph->lineStyle() != QCPGraph::lsNone) continue;
        const QCPScatterStyle marker = graph->scatterStyle();
        QString shape = QString::number(marker.shape());
        for (int e = 0; e < marker.customPath().elementCount(); ++e)
          shape += QStringLiteral(" %1,%2")
                       .arg(marker.customPath().elementAt(e).x)
                       .arg(marker.customPath().elementAt(e).y);
        styles.insert({graph->pen().color().rgb(), shape});
        ++points;
      }
      QCOMPARE(styles.size(), points);
    }
  }

  // Labels too crowded to sit near their place are left out at that size, never moved so far
  // that they name the wrong line; a larger chart shows them all.
  void labelsKeptApartStayNearTheirPlace() {
    ChartView view(QStringLiteral("labels"));
    view.xAxis->setRange(0, 10);
    view.yAxis->setRange(0, 10);
    std::vector<QCPItemText*> labels;
    for (int i = 0; i < 8; ++i) {
      auto* label = new QCPItemText(&view);
      label->position->setCoords(5, 3 + 0.4 * i);
      label->setText(QStringLiteral("roof %1 TFLOP/s (datasheet)").arg(i));
      labels.push_back(label);
    }
    view.keepApart(labels);
    for (QSize size : {QSize(400, 260), QSize(900, 700)}) {
      view.resize(size);
      view.show();
      QVERIFY(QTest::qWaitForWindowExposed(&view));
      view.replot();
      std::vector<QRectF> shown;
      for (int i = 0; i < int(labels.size()); ++i) {
        QCPItemText* label = labels[std::size_t(i)];
        if (!label->visible()) continue;
        const QRectF rect(label->topLeft->pixelPosition(), label->bottomRight->pixelPosition());
        for (const QRectF& other : shown) QVERIFY(!rect.normalized().intersects(other));
        shown.push_back(rect.normalized());
        QVERIFY(QRectF(view.axisRect()->rect()).contains(rect.normalized()));
        const double wanted = view.yAxis->coordToPixel(3 + 0.4 * i);
        QVERIFY2(std::abs(label->position->pixelPosition().y() - wanted) <=
                     2.5 * rect.normalized().height(),
                 qPrintable(label->text()));
      }
      QVERIFY(!shown.empty());
      if (size.height() < 300)
        QVERIFY(shown.size() < labels.size());
      else
        QCOMPARE(shown.size(), labels.size());
    }
  }

  void exportsClipNothing() {
    ResultsModel model;
    QVERIFY(loadShipped(model, "h200-roofline", true));
    ChartPanel panel(&model);
    showPanel(panel, {700, 500});
    for (ChartKind kind : {ChartKind::Roofline, ChartKind::Rate, ChartKind::Phases}) {
      for (QSize size : {QSize(1200, 800), QSize(800, 500)}) {
        const QString path = dir_.filePath(QStringLiteral("%1.png").arg(chartId(kind)));
        QString error;
        QVERIFY2(panel.exportChart(kind, path, size, &error), qPrintable(error));
        QCOMPARE(QImage(path).size(), size);
        // The layout of the export stays until the next replot: every legend entry lies inside
        // the legend, and the legend inside the image.
        ChartView* view = panel.chart(kind);
        const QRect image(QPoint(0, 0), size);
        QVERIFY(view->legend->visible());
        QVERIFY2(image.contains(view->legend->outerRect()), qPrintable(chartId(kind)));
        for (int i = 0; i < view->legend->itemCount(); ++i) {
          if (!view->legend->item(i)) continue;  // an empty cell of the grid
          const QRect entry = view->legend->item(i)->outerRect();
          QVERIFY2(view->legend->outerRect().contains(entry),
                   qPrintable(QStringLiteral("%1: entry %2").arg(chartId(kind)).arg(i)));
        }
        QVERIFY(image.contains(view->axisRect()->outerRect()));
      }
    }
  }

  void everyTabSaysWhatWouldFillIt_data() {
    QTest::addColumn<int>("kind");
    QTest::addColumn<QSize>("size");
    // A desk screen's chart and one docked on a 1280x720 projector, whose hint must break lines.
    for (ChartKind kind : kAllCharts) {
      for (QSize size : {QSize(900, 600), QSize(330, 390)}) {
        QTest::newRow(qPrintable(
            QStringLiteral("%1 %2x%3").arg(chartId(kind)).arg(size.width()).arg(size.height())))
            << int(kind) << size;
      }
    }
  }

  void everyTabSaysWhatWouldFillIt() {
    QFETCH(int, kind);
    QFETCH(QSize, size);
    ResultsModel model;
    ChartPanel panel(&model);
    ChartView* view = showChart(panel, ChartKind(kind), size);
    QVERIFY(view->hasPlaceholder());
    QCOMPARE(view->plottableCount(), 0);
    QVERIFY(!view->legend->visible());
    // The message alone: no axes, no grid.
    for (QCPAxis* axis : {view->xAxis, view->yAxis}) {
      QVERIFY(!axis->visible());
      QVERIFY(!axis->grid()->visible());
    }
    QCOMPARE(view->itemCount(), 1);
    for (int i = 0; i < view->itemCount(); ++i) {
      auto* hint = qobject_cast<QCPItemText*>(view->item(i));
      QVERIFY(hint);
      QVERIFY(QFontInfo(hint->font()).pixelSize() >= 12);
      const QRectF rect(hint->topLeft->pixelPosition(), hint->bottomRight->pixelPosition());
      QVERIFY2(QRectF(view->rect()).contains(rect),
               qPrintable(QStringLiteral("%1: %2 in %3")
                              .arg(hint->text())
                              .arg(QString(QDebug::toString(rect)))
                              .arg(QString(QDebug::toString(view->axisRect()->rect())))));
    }
  }

  void sessionsWithoutASweepDrawNoSweepOrLandscape() {
    // The ladder session: fixed tiles, no tile sweep; its latest kernel was run at one
    // configuration only.
    ResultsModel model;
    QVERIFY(loadShipped(model, "h200-ladder"));
    ChartPanel panel(&model);
    panel.refresh();
    ChartView* tiles = panel.chart(ChartKind::TileSweep);
    QVERIFY(tiles->hasPlaceholder());
    QCOMPARE(tiles->plottableCount(), 0);
    ChartView* landscape = panel.chart(ChartKind::Landscape);
    QVERIFY(landscape->hasPlaceholder());
    QCOMPARE(landscape->plottableCount(), 0);
    // A real tile sweep fills the first, a two-configuration autotune the second.
    model.setResults(tileSweep(256));
    panel.refresh();
    QVERIFY(!tiles->hasPlaceholder());
    QCOMPARE(tiles->graphCount(), 1);
    QCOMPARE(tiles->graph(0)->dataCount(), 32);
    QVERIFY(!landscape->hasPlaceholder());
    QCOMPARE(landscape->categories().size(), 32);
  }

  // Presentation: the chart on show alone, full screen, with text for the back row; the arrow
  // keys go through the charts, Esc, F11 or closing the window come back, the charts in their tabs.
  void aChartPresentsFullScreen() {
    ResultsModel model;
    std::vector<RunResult> results = tileSweep(256);
    for (const char* kernel : {"naive", "register-tiled", "library"})
      for (std::int64_t size : {256, 512, 1024})
        results.push_back(test::madeUpResult(
            kernel, kernel == std::string("library") ? Params{} : Params{{"tile", 8}}, size, 2.0));
    model.setResults(results);
    ChartPanel panel(&model);
    showPanel(panel, {900, 600});
    panel.showChart(ChartKind::Rate);
    ChartView* rate = panel.chart(ChartKind::Rate);
    const int deskTicks = rate->tickPixels();
    QVERIFY(deskTicks >= 12);
    QSignalSpy changes(&panel, &ChartPanel::presentationModeChanged);
    panel.setPresentationMode(true);
    QVERIFY(panel.presentationMode());
    QWidget* screen = panel.presentationWindow();
    QVERIFY(screen);
    QCOMPARE(rate->window(), screen);
    screen->setWindowState(Qt::WindowNoState);
    screen->resize(1280, 720);
    QTRY_COMPARE(rate->size(), QSize(1280, 720));
    QVERIFY(rate->presenting());
    QVERIFY2(rate->tickPixels() >= 20, qPrintable(QString::number(rate->tickPixels())));
    QVERIFY2(rate->titlePixels() >= 28, qPrintable(QString::number(rate->titlePixels())));
    QCOMPARE(rate->xAxis->tickLabelFont().pixelSize(), rate->tickPixels());
    // Its markers and lines grow too.
    QVERIFY(rate->graph(0)->pen().widthF() > 2);
    // The next chart takes the screen; the one before goes back to its tab, as on a desk.
    QTest::keyClick(rate, Qt::Key_Right);
    QCOMPARE(panel.currentChart(), ChartKind::TileSweep);
    ChartView* tiles = panel.chart(ChartKind::TileSweep);
    QCOMPARE(tiles->window(), screen);
    QVERIFY(tiles->presenting());
    QCOMPARE(rate->window(), panel.window());
    QVERIFY(!rate->presenting());
    QCOMPARE(rate->tickPixels(), deskTicks);
    QTest::keyClick(tiles, Qt::Key_PageUp);
    QCOMPARE(panel.currentChart(), ChartKind::Rate);
    QCOMPARE(rate->window(), screen);
    QTest::keyClick(rate, Qt::Key_Escape);
    QVERIFY(!panel.presentationMode());
    QCOMPARE(rate->window(), panel.window());
    QVERIFY(!rate->presenting());
    QCOMPARE(changes.count(), 2);
    // F11, and closing the window, end it too.
    panel.setPresentationMode(true);
    QTest::keyClick(rate, Qt::Key_F11);
    QVERIFY(!panel.presentationMode());
    panel.setPresentationMode(true);
    panel.presentationWindow()->close();
    QTRY_VERIFY(!panel.presentationMode());
    QCOMPARE(rate->window(), panel.window());
  }

  // In the window, F11 presents the chart clicked last; the diagrams otherwise.
  void f11PresentsTheChartClicked() {
    ui::MainWindow window;
    window.setRemembersSettings(false);
    window.show();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    ChartView* time = window.charts()->chart(ChartKind::Time);
    window.charts()->showChart(ChartKind::Time);
    QTest::mouseClick(time, Qt::LeftButton, {}, time->rect().center());
    QTRY_VERIFY(time->hasFocus());
    QTest::keyClick(&window, Qt::Key_F11);
    QVERIFY(window.charts()->presentationMode());
    QCOMPARE(time->window(), window.charts()->presentationWindow());
    QTest::keyClick(time, Qt::Key_F11);
    QVERIFY(!window.charts()->presentationMode());
    const QList<QAction*> actions = window.findChildren<QAction*>();
    const auto present =
        std::ranges::find(actions, QStringLiteral("&Presentation Mode"), &QAction::text);
    QVERIFY(present != actions.end());
    QVERIFY(!(*present)->isChecked());
  }

  // Export Chart's size, scale and text: remembered, and what the file holds.
  void exportsTakeASizeAScaleAndLargeText() {
    ui::ChartExportDialog dialog({700, 450}, true);
    ui::ChartExportOptions options{{1280, 720}, 2, true};
    dialog.setOptions(options);
    QCOMPARE(dialog.options().size, QSize(1280, 720));
    QCOMPARE(dialog.options().scale, 2.0);
    QVERIFY(dialog.options().largeText);
    QCOMPARE(dialog.options().pixels(), QSize(2560, 1440));
    // A preset fills the size; a typed size is "Other size".
    auto* preset = dialog.findChild<QComboBox*>(QStringLiteral("exportPreset"));
    auto* width = dialog.findChild<QSpinBox*>(QStringLiteral("exportWidth"));
    QVERIFY(preset && width);
    QCOMPARE(preset->currentData().toSize(), QSize(1280, 720));
    preset->setCurrentIndex(0);  // as shown on screen
    QCOMPARE(dialog.options().size, QSize(700, 450));
    width->setValue(1000);
    QCOMPARE(preset->currentIndex(), preset->count() - 1);
    // A vector file has no pixels to scale.
    ui::ChartExportDialog vector({700, 450}, false);
    vector.setOptions(options);
    QCOMPARE(vector.options().scale, 1.0);
    // Remembered in the settings file.
    ui::ChartExportDialog::remember(options);
    QCOMPARE(ui::ChartExportDialog::remembered().size, QSize(1280, 720));
    QCOMPARE(ui::ChartExportDialog::remembered().scale, 2.0);
    QVERIFY(ui::ChartExportDialog::remembered().largeText);
    desktop::rememberSetting("chartExport", nullptr);
    QVERIFY(!ui::ChartExportDialog::remembered().largeText);

    ResultsModel model;
    QVERIFY(loadShipped(model, "h200-ladder"));
    ChartPanel panel(&model);
    showPanel(panel, {700, 500});
    const QString path = dir_.filePath(QStringLiteral("scaled.png"));
    QString error;
    QVERIFY2(panel.exportChart(ChartKind::Rate, path, {640, 360}, &error, 2.0, true),
             qPrintable(error));
    QCOMPARE(QImage(path).size(), QSize(1280, 720));
    // The chart on screen keeps its desk text.
    ChartView* rate = panel.chart(ChartKind::Rate);
    QVERIFY(!rate->presenting());
    QVERIFY(rate->tickPixels() < 20);
  }

  void themesReskinEveryChart() {
    ResultsModel model;
    model.setResults(tileSweep(256));
    ChartPanel panel(&model);
    showPanel(panel, {900, 600});
    panel.refresh();
    ChartView* tiles = panel.chart(ChartKind::TileSweep);
    const auto expectedColour = [&] {
      return ui::seriesStyles({{"", "", "shared-tiled"}}, tiles->contrast()).front().color;
    };
    for (ui::Theme theme :
         {ui::Theme::Dark, ui::Theme::HighContrast, ui::Theme::Light, ui::Theme::System}) {
      ui::applyTheme(theme);
      QCOMPARE(ui::currentTheme(), theme);
      const QColor base = QApplication::palette().color(QPalette::Base);
      const QColor text = QApplication::palette().color(QPalette::Text);
      QTRY_COMPARE(tiles->axisRect()->backgroundBrush().color(), base);
      QCOMPARE(tiles->xAxis->tickLabelColor(), text);
      // Text reads on the background, and the series are rebuilt in the theme's colours.
      QVERIFY(std::abs(base.lightness() - text.lightness()) > 120);
      QTRY_COMPARE(tiles->graph(0)->pen().color(), expectedColour());
      // 3:1 against the background (WCAG's figure for graphics; tst_palette checks every kernel).
      const QColor series = tiles->graph(0)->pen().color();
      const auto luminance = [](const QColor& colour) {
        const auto linear = [](double c) {
          return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
        };
        return 0.2126 * linear(colour.redF()) + 0.7152 * linear(colour.greenF()) +
               0.0722 * linear(colour.blueF());
      };
      const double lighter = std::max(luminance(series), luminance(base));
      const double darker = std::min(luminance(series), luminance(base));
      QVERIFY2((lighter + 0.05) / (darker + 0.05) >= 3, qPrintable(ui::themeId(theme)));
    }
    QCOMPARE(ui::contrastOf(QApplication::palette()), ui::Contrast::Light);
    ui::applyTheme(ui::Theme::HighContrast);
    QTRY_COMPARE(tiles->contrast(), ui::Contrast::High);
    QTRY_COMPARE(tiles->graph(0)->pen().widthF(), 3.0);
    ui::applyTheme(ui::Theme::System);

    // View > Theme: one checkable action per theme; choosing one applies and remembers it.
    std::unique_ptr<QMenu> menu(ui::createThemeMenu(nullptr));
    QCOMPARE(menu->actions().size(), int(std::size(ui::kAllThemes)));
    auto* dark = menu->findChild<QAction*>(QStringLiteral("theme-dark"));
    QVERIFY(dark);
    dark->trigger();
    QCOMPARE(ui::currentTheme(), ui::Theme::Dark);
    QCOMPARE(ui::savedTheme(), ui::Theme::Dark);
    QTRY_COMPARE(tiles->contrast(), ui::Contrast::Dark);
    emit menu->aboutToShow();
    QVERIFY(dark->isChecked());
    ui::applyTheme(ui::Theme::System);
    emit menu->aboutToShow();
    QVERIFY(!dark->isChecked());
    QVERIFY(menu->findChild<QAction*>(QStringLiteral("theme-system"))->isChecked());

    // Kept in the settings file.
    ui::saveTheme(ui::Theme::Dark);
    QCOMPARE(ui::savedTheme(), ui::Theme::Dark);
    desktop::rememberSetting("theme", "no-such-theme");
    QCOMPARE(ui::savedTheme(), ui::Theme::System);
    desktop::rememberSetting("theme", nullptr);
  }
};

TILESCOPE_UI_SUITE(TestCharts, Gui)
#include "tst_charts.moc"
