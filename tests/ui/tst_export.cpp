// SPDX-License-Identifier: GPL-3.0-or-later
// The charts drawn from results, their hover tooltips, and every export format.
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <QtTest>

#include <QImage>
#include <QToolTip>
#include <QXmlStreamReader>

#include "chart_panel.hpp"
#include "chart_view.hpp"
#include "test_results.hpp"
#include "ui_suite.hpp"

using namespace tilescope;
using namespace tilescope::desktop;
using tilescope::ui::ChartPanel;
using tilescope::ui::ChartView;

namespace {

const QSize kExportSize(900, 600);

std::vector<RunResult> sweepResults() {
  std::vector<RunResult> results;
  // A size sweep of two kernels, the library reference, and a tile sweep.
  for (std::int64_t size : {64, 128, 256}) {
    results.push_back(test::madeUpResult("naive", {{"tile", 16}}, size, 0.001 * size));
    results.push_back(test::madeUpResult("library", {}, size, 0.0002 * size));
  }
  for (int tile : {1, 2, 4, 8}) {
    results.push_back(test::madeUpResult("register-tiled", {{"tile", tile}}, 128, 4.0 / tile));
  }
  return results;
}

QByteArray head(const QString& path, int bytes) {
  QFile file(path);
  return file.open(QIODevice::ReadOnly) ? file.read(bytes) : QByteArray();
}

}  // namespace

class TestExport : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;

 private slots:
  void chartsShowOneSeriesPerKernelAndParameters() {
    ResultsModel model;
    model.setResults(sweepResults());
    ChartPanel panel(&model);
    panel.refresh();
    ChartView* time = panel.chart(ChartKind::Time);
    // naive tile=16, library, and one series per register tile (one size each).
    QCOMPARE(time->graphCount(), 6);
    QCOMPARE(time->graph(0)->name(), QString("naive tile=16"));
    QCOMPARE(time->graph(0)->dataCount(), 3);
    QCOMPARE(time->graph(0)->data()->at(2)->key, 256.0);
    QCOMPARE(time->graph(0)->data()->at(2)->value, 0.256);
    QCOMPARE(time->xAxis->scaleType(), QCPAxis::stLogarithmic);
    QCOMPARE(time->yAxis->scaleType(), QCPAxis::stLogarithmic);
    QCOMPARE(panel.chart(ChartKind::Rate)->graph(0)->data()->at(0)->value,
             model.results()[0].gflops);

    ChartView* tiles = panel.chart(ChartKind::TileSweep);
    // The tile sweep: register-tiled at 128; naive ran at one tile per size, which is no sweep.
    QCOMPARE(tiles->graphCount(), 1);
    QCOMPARE(tiles->graph(0)->name(), QString::fromUtf8("register-tiled at 128\u00b3"));
    QCOMPARE(tiles->graph(0)->dataCount(), 4);
    QCOMPARE(tiles->graph(0)->data()->at(3)->key, 8.0);

    // Every kernel but the library itself, where a library run of the same shape exists.
    ChartView* library = panel.chart(ChartKind::Library);
    QCOMPARE(library->graphCount(), 5);
    QCOMPARE(library->graph(0)->dataCount(), 3);
    QCOMPARE(library->graph(0)->data()->at(0)->value, 20.0);
    QCOMPARE(library->graph(4)->data()->at(0)->value, 100.0 * 0.0256 / 0.5);
  }

  void phasesShowOnlyWhereMeasured() {
    ResultsModel model;
    model.setResults(sweepResults());
    ChartPanel panel(&model);
    panel.refresh();
    ChartView* phases = panel.chart(ChartKind::Phases);
    QCOMPARE(phases->plottableCount(), 0);
    QVERIFY(phases->hasPlaceholder());
    RunResult gpu = test::madeUpResult("shared-tiled", {{"tile", 16}}, 512, 2.0);
    gpu.phases = Phases{0.5, 2.0, 0.25};
    model.append(gpu);
    panel.refresh();
    QCOMPARE(phases->plottableCount(), 3);
    QVERIFY(!phases->hasPlaceholder());
    auto* kernelBars = qobject_cast<QCPBars*>(phases->plottable(1));
    QVERIFY(kernelBars);
    QCOMPARE(kernelBars->dataCount(), 1);
    QCOMPARE(kernelBars->data()->at(0)->value, 2.0);
    QCOMPARE(kernelBars->barBelow(), qobject_cast<QCPBars*>(phases->plottable(0)));
  }

  void newPointsArriveThrottled() {
    ResultsModel model;
    ChartPanel panel(&model);
    panel.show();
    ChartView* time = panel.chart(ChartKind::Time);
    QCOMPARE(time->graphCount(), 0);
    QVERIFY(time->hasPlaceholder());
    for (RunResult& result : sweepResults()) model.append(result);
    // Ten appends, one rebuild after the throttle interval.
    QCOMPARE(time->graphCount(), 0);
    QTRY_COMPARE(time->graphCount(), 6);
  }

  void hoverShowsExactValues() {
    ResultsModel model;
    model.setResults(sweepResults());
    ChartPanel panel(&model);
    panel.resize(900, 600);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.refresh();
    ChartView* time = panel.chart(ChartKind::Time);
    time->replot();
    const QCPGraph* naive = time->graph(0);
    const QPointF point = naive->coordsToPixels(128.0, naive->data()->at(1)->value);
    QTest::mouseMove(time, point.toPoint());
    QTRY_VERIFY(QToolTip::isVisible());
    QVERIFY2(QToolTip::text().contains(QStringLiteral("128\u00b3")), qPrintable(QToolTip::text()));
    QVERIFY(QToolTip::text().contains(QStringLiteral("0.128")));
    QVERIFY(QToolTip::text().contains(QStringLiteral("GFLOP/s")));
    // Far from every point: no tooltip.
    QTest::mouseMove(time, QPoint(5, 5));
    QTRY_VERIFY(!QToolTip::isVisible());
  }

  void everyFormatGivesAValidFile_data() {
    QTest::addColumn<int>("chart");
    QTest::addColumn<QString>("suffix");
    for (ChartKind kind : kAllCharts) {
      for (const char* suffix : {"png", "jpg", "pdf", "svg"}) {
        QTest::addRow("%s.%s", qPrintable(chartId(kind)), suffix) << int(kind) << suffix;
      }
    }
  }

  void everyFormatGivesAValidFile() {
    QFETCH(int, chart);
    QFETCH(QString, suffix);
    ResultsModel model;
    model.setResults(sweepResults());
    ChartPanel panel(&model);
    const QString path = dir_.filePath(QStringLiteral("chart.") + suffix);
    QFile::remove(path);
    QString error;
    QVERIFY2(panel.exportChart(ChartKind(chart), path, kExportSize, &error), qPrintable(error));
    if (suffix == QLatin1String("png") || suffix == QLatin1String("jpg")) {
      const QImage image(path);
      QVERIFY(!image.isNull());
      QCOMPARE(image.size(), kExportSize);
      // Not a blank page: the chart drew lines and text in several colours.
      QSet<QRgb> colours;
      for (int y = 0; y < image.height(); y += 7) {
        for (int x = 0; x < image.width(); x += 7) colours.insert(image.pixel(x, y));
      }
      QVERIFY(colours.size() > 3);
    } else if (suffix == QLatin1String("pdf")) {
      QCOMPARE(head(path, 5), QByteArray("%PDF-"));
      QVERIFY(QFileInfo(path).size() > 1000);
    } else {
      QFile file(path);
      QVERIFY(file.open(QIODevice::ReadOnly));
      QXmlStreamReader xml(&file);
      bool sawSvg = false;
      int elements = 0;
      while (!xml.atEnd()) {
        if (xml.readNext() == QXmlStreamReader::StartElement) {
          ++elements;
          sawSvg = sawSvg || xml.name() == QLatin1String("svg");
        }
      }
      QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
      QVERIFY(sawSvg);
      QVERIFY(elements > 20);
    }
    // No temporary file is left beside it.
    QCOMPARE(QDir(dir_.path()).entryList(QDir::Files | QDir::Hidden).filter(".chart").size(), 0);
  }

  void failedExportsSayWhyAndKeepTheOldFile() {
    ResultsModel model;
    model.setResults(sweepResults());
    ChartPanel panel(&model);
    QString error;
    QVERIFY(!panel.exportChart(ChartKind::Time, dir_.filePath("missing/dir/chart.png"), kExportSize,
                               &error));
    QVERIFY2(error.contains(QStringLiteral("missing/dir")), qPrintable(error));
    error.clear();
    QVERIFY(!panel.exportChart(ChartKind::Time, dir_.filePath("missing/dir/chart.svg"), kExportSize,
                               &error));
    QVERIFY(!error.isEmpty());
    const QString gif = dir_.filePath("chart.gif");
    QVERIFY(!panel.exportChart(ChartKind::Time, gif, kExportSize, &error));
    QVERIFY(error.contains(QStringLiteral(".png")));
    QVERIFY(!QFile::exists(gif));
  }

  // Issue #12: every format through the one writer: a read-only file is refused (the chart
  // export replaced one), a device node is never replaced, and no temporary is left.
  void chartExportsRefuseReadOnlyFilesAndDevices_data() {
    QTest::addColumn<QString>("suffix");
    for (const char* suffix : {"png", "jpg", "pdf", "svg"}) QTest::newRow(suffix) << suffix;
  }

  void chartExportsRefuseReadOnlyFilesAndDevices() {
    QFETCH(QString, suffix);
    ResultsModel model;
    model.setResults(sweepResults());
    ChartPanel panel(&model);
    QTemporaryDir dir;
    const QString kept = dir.filePath(QStringLiteral("kept.") + suffix);
    QFile file(kept);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("old");
    file.close();
    QVERIFY(QFile::setPermissions(kept, QFile::ReadOwner | QFile::ReadGroup | QFile::ReadOther));
    QString error;
    QVERIFY(!panel.exportChart(ChartKind::Time, kept, kExportSize, &error));
    QVERIFY2(error.contains(QStringLiteral("the file is read-only")), qPrintable(error));
    QCOMPARE(head(kept, 10), QByteArray("old"));

    const QString node = dir.filePath(QStringLiteral("device.") + suffix);
    if (::mknod(QFile::encodeName(node).constData(), S_IFCHR | 0666, makedev(1, 3)) == 0) {
      QVERIFY(!panel.exportChart(ChartKind::Time, node, kExportSize, &error));
      QVERIFY2(error.contains(QStringLiteral("it is a character device")), qPrintable(error));
      QVERIFY(QFileInfo(node).exists() && !QFileInfo(node).isFile());
    }
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::System | QDir::Hidden).size(),
             QFileInfo::exists(node) ? 2 : 1);
  }

  // A too-long name and a full disk say why instead of "the exporter reported a failure".
  void chartExportFailuresNameTheReason() {
    ResultsModel model;
    model.setResults(sweepResults());
    ChartPanel panel(&model);
    QString error;
    QVERIFY(!panel.exportChart(ChartKind::Time,
                               dir_.filePath(QString(300, QLatin1Char('n')) + ".png"), kExportSize,
                               &error));
    QVERIFY2(error.contains(QStringLiteral("File name too long")), qPrintable(error));

    QTemporaryDir full;
    if (::mount("tmpfs", QFile::encodeName(full.path()).constData(), "tmpfs", 0, "size=4k") != 0)
      QSKIP("cannot mount a small tmpfs here");
    const QString png = full.filePath(QStringLiteral("chart.png"));
    const bool wrote = panel.exportChart(ChartKind::Time, png, kExportSize, &error);
    ::umount2(QFile::encodeName(full.path()).constData(), MNT_DETACH);
    QVERIFY(!wrote);
    QVERIFY2(error.contains(QStringLiteral("No space left on device")), qPrintable(error));
  }

  void darkPaletteReskinsTheCharts() {
    ResultsModel model;
    model.setResults(sweepResults());
    ChartPanel panel(&model);
    panel.refresh();
    ChartView* time = panel.chart(ChartKind::Time);
    QPalette dark = panel.palette();
    dark.setColor(QPalette::Base, QColor(0x20, 0x20, 0x20));
    dark.setColor(QPalette::Window, QColor(0x30, 0x30, 0x30));
    dark.setColor(QPalette::Text, QColor(0xee, 0xee, 0xee));
    panel.setPalette(dark);
    QCOMPARE(time->xAxis->tickLabelColor(), QColor(0xee, 0xee, 0xee));
    QCOMPARE(time->axisRect()->backgroundBrush().color(), QColor(0x20, 0x20, 0x20));
    // The series are rebuilt in the colours meant for a dark background.
    QCOMPARE(time->contrast(), ui::Contrast::Dark);
    const QColor naive = ui::seriesStyles({{"", "", "naive"}}, ui::Contrast::Dark).front().color;
    QTRY_COMPARE(time->graph(0)->pen().color(), naive);
    QVERIFY(naive.lightness() > 110);
  }
};

TILESCOPE_UI_SUITE(TestExport, Gui)
#include "tst_export.moc"
