// SPDX-License-Identifier: GPL-3.0-or-later
// "All GPUs": a sweep's runs spread over every device of a run server, one run per device at a
// time, take about half the time on two devices, and come back in the order asked; a cancel stops
// both devices; without it every run stays on the chosen device. The server is
// two_device_server.py: the CPU backend listed as two devices, each run answered after a delay,
// the first run of sixRuns() after twice that, so that the runs after it end before it.
#include <QtTest>
#include <algorithm>
#include <set>

#include "autotune_run.hpp"
#include "choices.hpp"
#include "run_controller.hpp"
#include "suite_helpers.hpp"
#include "ui_suite.hpp"

using namespace tilescope;
using namespace tilescope::desktop;

namespace {

using test::kWaitMs;
const std::string kId = "cpu@two";

constexpr int kSlowM = 16;  // the first of sixRuns()

remote::ServerAddress twoDevices(double delaySeconds) {
  const QString command =
      QStringLiteral("exec python3 '%1' '%2' %3 %4")
          .arg(QStringLiteral(TILESCOPE_TWO_DEVICE_SERVER), QStringLiteral(TILESCOPE_BENCH))
          .arg(delaySeconds)
          .arg(kSlowM);
  return {"two", command.toStdString(), "cpu"};
}

// Six runs of distinct sizes, so their order shows; `anyDevice` as "All GPUs" plans them.
std::vector<RunJob> sixRuns(bool anyDevice, int device = 0) {
  std::vector<RunJob> jobs;
  for (int i = 0; i < 6; ++i) {
    RunJob job;
    job.backend = kId;
    job.request.kernel = {"naive", {{"tile", 8}}};
    job.request.shape = {kSlowM + 8 * i, 16, 16};
    job.request.sampling.fixedReps = 2;
    job.request.device = device;
    job.anyDevice = anyDevice;
    jobs.push_back(job);
  }
  return jobs;
}

// Starts the server and waits until it lists its two devices.
bool ready(RunController& controller) {
  if (!QTest::qWaitFor([&] { return controller.backendsKnown() && controller.backend(kId); },
                       kWaitMs))
    return false;
  controller.connectServer(kId);
  return QTest::qWaitFor(
      [&] {
        const BackendSummary* summary = controller.backend(kId);
        return summary->available() && summary->devices.size() == 2;
      },
      kWaitMs);
}

struct Ran {
  qint64 ms = 0;
  std::vector<RunResult> results;
  int failures = 0;
};

Ran runAll(RunController& controller, const std::vector<RunJob>& jobs) {
  QSignalSpy results(&controller, &RunController::resultReady);
  QSignalSpy failures(&controller, &RunController::runFailed);
  QSignalSpy finished(&controller, &RunController::queueFinished);
  QElapsedTimer clock;
  clock.start();
  controller.enqueue(jobs);
  Ran ran;
  if (!finished.wait(kWaitMs)) return ran;
  ran.ms = clock.elapsed();
  for (const QList<QVariant>& result : results)
    ran.results.push_back(result.front().value<RunResult>());
  ran.failures = int(failures.size());
  return ran;
}

}  // namespace

class TestSpread : public QObject {
  Q_OBJECT

 private slots:
  void allGpusIsKeptInTheChoicesAndMarksOnlySweeps() {
    Choices choices;
    QVERIFY(!choices.allDevices);
    choices.allDevices = true;
    QVERIFY(choicesFromJson(toJson(choices)).allDevices);
    QCOMPARE(toJson(choices)["all_devices"], nlohmann::json(true));
    // A file written before the choice existed reads as off.
    nlohmann::json old = toJson(choices);
    old.erase("all_devices");
    QVERIFY(!choicesFromJson(old).allDevices);
    old["all_devices"] = "yes";  // mistyped: the default
    QVERIFY(!choicesFromJson(old).allDevices);

    choices.sweep = SweepKind::Size;
    for (const RunJob& job : planJobs(choices, sweepAxes(choices))) QVERIFY(job.anyDevice);
    choices.allDevices = false;
    for (const RunJob& job : planJobs(choices, sweepAxes(choices))) QVERIFY(!job.anyDevice);
    choices.allDevices = true;
    choices.sweep = SweepKind::Single;
    const std::vector<RunJob> single = planJobs(choices, sweepAxes(choices));
    QCOMPARE(single.size(), std::size_t(1));
    QVERIFY(!single.front().anyDevice);  // a single run stays on the chosen device
  }

  void twoDevicesTakeHalfTheTimeAndKeepTheOrderAsked() {
    constexpr double kDelay = 0.6;
    const std::vector<RunJob> asked = sixRuns(true);
    RunController controller(nullptr, {twoDevices(kDelay)});
    QVERIFY(ready(controller));
    // Without All GPUs: every run on the chosen device, one at a time.
    const Ran alone = runAll(controller, sixRuns(false, 1));
    QCOMPARE(alone.results.size(), std::size_t(6));
    for (const RunResult& result : alone.results)
      QCOMPARE(result.device, std::string("Fake GPU 1"));
    QVERIFY2(alone.ms >= 7 * kDelay * 1000, qPrintable(QString::number(alone.ms)));
    // The first spread runs start a server process per device; the timed ones below find them.
    QCOMPARE(runAll(controller, {asked[1], asked[2]}).results.size(), std::size_t(2));

    QSignalSpy progress(&controller, &RunController::progressChanged);
    const Ran spread = runAll(controller, asked);
    QCOMPARE(spread.failures, 0);
    QCOMPARE(spread.results.size(), asked.size());
    std::set<std::string> devices;
    for (std::size_t i = 0; i < asked.size(); ++i) {
      QCOMPARE(spread.results[i].shape, asked[i].request.shape);
      devices.insert(spread.results[i].device);
    }
    QCOMPARE(devices, (std::set<std::string>{"Fake GPU 0", "Fake GPU 1"}));
    // One run per device at a time: three rounds at least, and about half the time of one device
    // (seven delays on one device, four on two).
    QVERIFY2(spread.ms >= 3 * kDelay * 1000, qPrintable(QString::number(spread.ms)));
    QVERIFY2(
        spread.ms < 0.7 * alone.ms,
        qPrintable(
            QStringLiteral("%1 ms on two devices, %2 ms on one").arg(spread.ms).arg(alone.ms)));
    qInfo("6 runs of %.1f s: %lld ms on one device, %lld ms on two", kDelay,
          static_cast<long long>(alone.ms), static_cast<long long>(spread.ms));
    // The progress named both devices at work.
    const bool bothShown = std::any_of(progress.begin(), progress.end(), [](const auto& args) {
      const QStringList lines = args.front().template value<QueueProgress>().onDevices;
      return lines.size() == 2 && lines.join(QString()).contains(QStringLiteral("device 0")) &&
             lines.join(QString()).contains(QStringLiteral("device 1"));
    });
    QVERIFY(bothShown);
  }

  void anAutotuneSpreadOverBothDevicesCollectsEveryConfigurationInOrder() {
    RunController controller(nullptr, {twoDevices(0.1)});
    QVERIFY(ready(controller));
    Choices choices;
    choices.backend = kId;
    choices.kernel = "naive";
    choices.shape = {32, 32, 32};
    choices.fixedReps = 2;
    choices.allDevices = true;
    AutotuneRun autotune(choices, "Fake GPU 0");
    QVERIFY(autotune.jobs().size() >= 2);
    for (const RunJob& job : autotune.jobs()) QVERIFY(job.anyDevice);
    const Ran ran = runAll(controller, autotune.jobs());
    QCOMPARE(ran.failures, 0);
    std::set<std::string> devices;
    for (std::size_t i = 0; i < ran.results.size(); ++i) {
      QVERIFY(autotune.collect(ran.results[i]));
      QCOMPARE(ran.results[i].kernel.params, autotune.jobs()[i].request.kernel.params);
      devices.insert(ran.results[i].device);
    }
    QVERIFY(autotune.complete());
    QCOMPARE(devices.size(), std::size_t(2));
    QVERIFY(autotune.best().has_value());
  }

  void cancelStopsBothDevices() {
    constexpr double kDelay = 1.5;
    RunController controller(nullptr, {twoDevices(kDelay)});
    QVERIFY(ready(controller));
    QSignalSpy results(&controller, &RunController::resultReady);
    QSignalSpy failures(&controller, &RunController::runFailed);
    QSignalSpy finished(&controller, &RunController::queueFinished);
    QSignalSpy progress(&controller, &RunController::progressChanged);
    controller.enqueue(sixRuns(true));
    QVERIFY(QTest::qWaitFor(
        [&] {
          return !progress.isEmpty() &&
                 progress.back().front().value<QueueProgress>().onDevices.size() == 2;
        },
        kWaitMs));
    QElapsedTimer clock;
    clock.start();
    controller.cancel();
    QVERIFY(finished.wait(kWaitMs));
    QVERIFY(finished.front().front().value<QueueSummary>().cancelled);
    // The two runs in progress end (at most a delay each, at once); the four waiting never run.
    QVERIFY2(clock.elapsed() < kDelay * 1000 + 2000, qPrintable(QString::number(clock.elapsed())));
    QVERIFY2(results.size() + failures.size() <= 2,
             qPrintable(QString::number(results.size() + failures.size())));
    QVERIFY(!controller.busy());
    QVERIFY(!results.wait(int(kDelay * 1000) + 500));
  }
};

TILESCOPE_UI_SUITE(TestSpread, Guiless)
#include "tst_spread.moc"
