// SPDX-License-Identifier: GPL-3.0-or-later
// The ceilings controller without a window: it refuses a backend without a device, and the
// ceilings that arrive replace that device's earlier ones in the model, told in one line.
#include <QtTest>

#include "ceilings_controller.hpp"
#include "results_model.hpp"
#include "run_controller.hpp"
#include "ui_suite.hpp"

using namespace tilescope;
using namespace tilescope::desktop;

namespace {

DeviceCeilings measured(double fp32, double bandwidth) {
  return {"cpu",
          "Test CPU",
          {{kFp32Ceiling, kComputeUnit, fp32, std::nullopt, "OpenBLAS sgemm"}},
          {kBandwidthCeiling, kBandwidthUnit, bandwidth, std::nullopt, "memcpy"}};
}

}  // namespace

class TestCeilingsController : public QObject {
  Q_OBJECT

 private slots:
  void refusesWithoutADevice() {
    ResultsModel model;
    RunController runs;
    CeilingsController ceilings(runs, model);
    QSignalSpy started(&ceilings, &CeilingsController::started);
    QSignalSpy problems(&ceilings, &CeilingsController::problem);
    QString problem;
    QVERIFY(!ceilings.measure(Choices{}, "", &problem));
    QCOMPARE(problem, QStringLiteral("Measuring ceilings needs an available backend and device"));
    QCOMPARE(problems.size(), 1);
    QCOMPARE(started.size(), 0);
    QVERIFY(!runs.busy());
  }

  void newCeilingsReplaceTheDevicesEarlierOnes() {
    ResultsModel model;
    RunController runs;
    CeilingsController ceilings(runs, model);
    QSignalSpy status(&ceilings, &CeilingsController::status);
    emit runs.ceilingsReady(measured(100, 20));
    emit runs.ceilingsReady(measured(205.5, 24.5));
    QCOMPARE(model.ceilings().size(), std::size_t(1));
    QCOMPARE(model.ceilings().front(), measured(205.5, 24.5));
    QCOMPARE(status.back().front().toString(),
             QStringLiteral("Ceilings of Test CPU: FP32 205.5 GFLOP/s, memory 24.5 GB/s"));
  }
};

TILESCOPE_UI_SUITE(TestCeilingsController, Guiless)
#include "tst_ceilings_controller.moc"
