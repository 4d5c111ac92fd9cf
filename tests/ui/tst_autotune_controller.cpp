// SPDX-License-Identifier: GPL-3.0-or-later
// The autotune controller without a window, on the CPU backend: it measures every valid
// configuration once, picks the fastest verified one, remembers it in the tuned store it was
// given and says so; it refuses a second autotune while one is queued and a backend without a
// device; a damaged store is reported before anything runs.
#include <QtTest>

#include "autotune_controller.hpp"
#include "run_controller.hpp"
#include "suite_helpers.hpp"
#include "tilescope/plan/tuned_store.hpp"
#include "ui_suite.hpp"

using namespace tilescope;
using namespace tilescope::desktop;

namespace {

using test::kWaitMs;
constexpr int kSize = 32;

Choices tinyAutotune() {
  Choices choices;
  choices.kernel = "blocktile-1d";
  choices.shape = {kSize, kSize, kSize};
  choices.fixedReps = 1;
  return choices;
}

std::string cpuDevice(const RunController& runs) {
  return runs.backend("cpu")->devices.front().name;
}

void waitForBackends(RunController& runs) {
  if (runs.backendsKnown()) return;
  QSignalSpy found(&runs, &RunController::backendsChanged);
  QVERIFY(found.wait(kWaitMs));
}

}  // namespace

class TestAutotuneController : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;

 private slots:
  void initTestCase() { QVERIFY(dir_.isValid()); }

  void picksTheFastestMeasuredConfiguration() {
    RunController runs;
    waitForBackends(runs);
    const std::string store = dir_.filePath(QStringLiteral("tuned.json")).toStdString();
    AutotuneController autotune(runs, store);
    QSignalSpy measured(&runs, &RunController::resultReady);
    QSignalSpy finished(&runs, &RunController::queueFinished);
    QSignalSpy tuned(&autotune, &AutotuneController::tuned);
    QSignalSpy status(&autotune, &AutotuneController::status);
    QVERIFY(autotune.start(tinyAutotune(), cpuDevice(runs)));
    const std::size_t planned = autotune.current()->jobs().size();
    QVERIFY(planned > 1);
    QVERIFY(status.front().front().toString().startsWith(
        QStringLiteral("Autotuning blocktile-1d: %1 configurations").arg(planned)));

    QString problem;
    QVERIFY(!autotune.start(tinyAutotune(), cpuDevice(runs), std::nullopt, &problem));
    QVERIFY2(problem.startsWith(QStringLiteral("An autotune is already queued")),
             qPrintable(problem));

    QVERIFY(finished.wait(kWaitMs));
    QCOMPARE(autotune.current(), nullptr);
    QCOMPARE(std::size_t(measured.size()), planned);
    // The fastest verified of what was measured, found here by hand.
    RunResult fastest;
    for (const QList<QVariant>& signal : measured) {
      const auto result = signal.front().value<RunResult>();
      if (result.verified() && result.gflops > fastest.gflops) fastest = result;
    }
    QVERIFY(fastest.gflops > 0);
    QCOMPARE(tuned.size(), 1);
    const auto entry = tuned.front().front().value<plan::TunedEntry>();
    QCOMPARE(entry.params, fastest.kernel.params);
    QCOMPARE(entry.gflops, fastest.gflops);
    QCOMPARE(entry.device, cpuDevice(runs));
    const std::optional<plan::TunedEntry> remembered = plan::TunedStore(store).find(
        "cpu", cpuDevice(runs), "blocktile-1d", ElementType::F32, {kSize, kSize, kSize});
    QVERIFY(remembered);
    QCOMPARE(remembered->params, fastest.kernel.params);
    QVERIFY2(status.back().front().toString().startsWith(
                 QStringLiteral("Autotune of blocktile-1d: fastest verified ")),
             qPrintable(status.back().front().toString()));
  }

  void refusesWithoutADeviceOrWithADamagedStore() {
    RunController runs;
    waitForBackends(runs);
    const QString damaged = dir_.filePath(QStringLiteral("damaged.json"));
    QFile file(damaged);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("{ not json");
    file.close();
    AutotuneController autotune(runs, damaged.toStdString());
    QSignalSpy problems(&autotune, &AutotuneController::problem);
    QSignalSpy busy(&runs, &RunController::busyChanged);
    QString problem;
    QVERIFY(!autotune.start(tinyAutotune(), "", std::nullopt, &problem));
    QCOMPARE(problem, QStringLiteral("Autotune needs an available backend and device"));
    QVERIFY(!autotune.start(tinyAutotune(), cpuDevice(runs), std::nullopt, &problem));
    QVERIFY2(problem.startsWith(QStringLiteral("Cannot autotune: ")) &&
                 problem.contains(QStringLiteral("damaged.json")),
             qPrintable(problem));
    QCOMPARE(problems.size(), 2);
    QCOMPARE(autotune.current(), nullptr);
    QCOMPARE(busy.size(), 0);  // nothing was queued
  }
};

TILESCOPE_UI_SUITE(TestAutotuneController, Guiless)
#include "tst_autotune_controller.moc"
