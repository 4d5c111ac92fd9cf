// SPDX-License-Identifier: GPL-3.0-or-later
// The results table: the kernel resource columns sort numerically, stay empty where a backend
// measured none, go into copied text with the rest, and local memory use is marked.
#include <QtTest>

#include "results_view.hpp"
#include "test_results.hpp"
#include "ui_suite.hpp"

using namespace tilescope;
using namespace tilescope::desktop;

namespace {

RunResult gpuResult(const std::string& kernel, int registers, std::int64_t localBytes,
                    double occupancy) {
  RunResult result = test::madeUpResult(kernel, {}, 1024, 2.0);
  result.backend = "cuda";
  result.device = "NVIDIA H100";
  result.resources = KernelResources{registers, 8192, localBytes, 256, 4, occupancy};
  return result;
}

}  // namespace

class TestResultsView : public QObject {
  Q_OBJECT

  ResultsModel model_;

  // The cells of one column, top to bottom as the view shows them.
  static QStringList column(const ui::ResultsView& view, int column) {
    QStringList cells;
    for (int row = 0; row < view.model()->rowCount(); ++row)
      cells << view.model()->index(row, column).data().toString();
    return cells;
  }

 private slots:
  void init() {
    model_.setResults({gpuResult("warptile", 128, 0, 0.5), test::madeUpResult("naive", {}, 64, 1.0),
                       gpuResult("naive", 40, 32, 1.0)});
  }

  void resourceColumnsSortNumericallyWithTheEmptyOnesFirst() {
    ui::ResultsView view(&model_);
    view.sortByColumn(ResultsModel::Registers, Qt::AscendingOrder);
    // As text "128" would sort before "40".
    QCOMPARE(column(view, ResultsModel::Registers), (QStringList{"", "40", "128"}));
    view.sortByColumn(ResultsModel::Occupancy, Qt::DescendingOrder);
    QCOMPARE(column(view, ResultsModel::Occupancy), (QStringList{"100.0", "50.0", ""}));
    QCOMPARE(column(view, ResultsModel::LocalBytes), (QStringList{"32", "0", ""}));
  }

  // Counter columns appear once a run has counters; each cell's tooltip sets it beside the model.
  void counterColumnsShowTheMeasuredFigureAndTheModel() {
    ui::ResultsView view(&model_);
    QVERIFY(view.isColumnHidden(ResultsModel::LoadSectors));
    QVERIFY(!view.selectionAsText().contains(QStringLiteral("Load sectors/req")));

    RunResult counted = test::madeUpResult("row-per-thread", {}, 64, 1.0);
    counted.backend = "cuda";
    counted.counters = HardwareCounters{};
    counted.counters->globalLoadRequests = 8192;
    counted.counters->globalLoadSectors = 8192 * 16.5;
    counted.counters->dramReadBytes = 2.5e6;
    counted.counters->achievedOccupancy = 0.5;
    counted.counters->source = "CUPTI range profiler (GH100)";
    RunResult refused = test::madeUpResult("naive", {}, 64, 1.0);
    refused.countersUnavailable = "the CPU backend has no hardware counters";
    model_.append(counted);
    model_.append(refused);
    QVERIFY(!view.isColumnHidden(ResultsModel::LoadSectors));
    const int row = model_.rowCount() - 2;
    const auto cell = [&](int r, int column, int role = Qt::DisplayRole) {
      return model_.index(r, column).data(role).toString();
    };
    QCOMPARE(cell(row, ResultsModel::LoadSectors), QStringLiteral("16.50"));
    QCOMPARE(cell(row, ResultsModel::DramMB), QStringLiteral("2.5"));
    QCOMPARE(cell(row, ResultsModel::AchievedOccupancy), QStringLiteral("50.0"));
    QCOMPARE(cell(row, ResultsModel::SharedWavefronts), QString());  // no shared loads counted
    QVERIFY2(cell(row, ResultsModel::LoadSectors, Qt::ToolTipRole)
                 .startsWith(QStringLiteral("model: 16.5 sectors per request, measured: 16.5")),
             qPrintable(cell(row, ResultsModel::LoadSectors, Qt::ToolTipRole)));
    QCOMPARE(cell(row + 1, ResultsModel::LoadSectors), QString());
    QCOMPARE(cell(row + 1, ResultsModel::LoadSectors, Qt::ToolTipRole),
             QStringLiteral("the CPU backend has no hardware counters"));
    QVERIFY(view.selectionAsText().contains(QStringLiteral("\tLoad sectors/req\t")));
  }

  void copiedTextHasTheResourceColumns() {
    ui::ResultsView view(&model_);
    const QStringList lines = view.selectionAsText().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 4);
    QVERIFY2(lines[0].endsWith(QStringLiteral(
                 "\tRegisters\tShared B\tLocal B\tThreads/block\tBlocks/SM\tOccupancy %")),
             qPrintable(lines[0]));
    QVERIFY2(lines[1].endsWith(QStringLiteral("\t128\t8192\t0\t256\t4\t50.0")),
             qPrintable(lines[1]));
    QVERIFY2(lines[2].endsWith(QStringLiteral("\t\t\t\t\t\t")), qPrintable(lines[2]));
    QCOMPARE(lines[0].count(QLatin1Char('\t')), lines[2].count(QLatin1Char('\t')));
  }

  void localMemoryUseIsMarked() {
    ui::ResultsView view(&model_);
    const auto foreground = [&](int row) {
      return view.model()->index(row, ResultsModel::LocalBytes).data(Qt::ForegroundRole);
    };
    QVERIFY(!foreground(0).isValid());  // no local memory
    QVERIFY(!foreground(1).isValid());  // not measured
    QCOMPARE(foreground(2).value<QBrush>().color(), QColor(0xd0, 0x30, 0x30));
  }
};

TILESCOPE_UI_SUITE(TestResultsView, Gui)
#include "tst_results_view.moc"
