// SPDX-License-Identifier: GPL-3.0-or-later
// The run queue's controller without a window, on the CPU backend: results land in the model
// with their device's facts, progress and the queue's end are told in words, failures and runs
// that cannot be planned are problems, and a cancel says what it does.
#include <QtTest>

#include "queue_controller.hpp"
#include "results_model.hpp"
#include "run_controller.hpp"
#include "suite_helpers.hpp"
#include "test_results.hpp"
#include "ui_suite.hpp"

using namespace tilescope;
using namespace tilescope::desktop;

namespace {

using test::kWaitMs;

RunJob job(const std::string& kernel, Params params, std::int64_t size) {
  RunJob made;
  made.backend = "cpu";
  made.request.kernel = {kernel, std::move(params)};
  made.request.shape = {size, size, size};
  made.request.sampling.fixedReps = 2;
  return made;
}

}  // namespace

class TestQueueController : public QObject {
  Q_OBJECT

 private slots:
  void durationsReadAsPeopleSayThem() {
    QCOMPARE(QueueController::formatDuration(4.4), QStringLiteral("4 s"));
    QCOMPARE(QueueController::formatDuration(184), QStringLiteral("3 min 4 s"));
    QCOMPARE(QueueController::formatDuration(3720), QStringLiteral("1 h 2 min"));
  }

  void resultsLandInTheModelAndTheEndIsTold() {
    ResultsModel model;
    RunController runs;
    QueueController queue(runs, model);
    QSignalSpy ready(&queue, &QueueController::status);
    QSignalSpy progress(&queue, &QueueController::progressShown);
    QSignalSpy finished(&runs, &RunController::queueFinished);
    if (!runs.backendsKnown()) QVERIFY(ready.wait(kWaitMs));
    QVERIFY2(ready.back().front().toString().startsWith(QStringLiteral("Ready. Backends: cpu")),
             qPrintable(ready.back().front().toString()));

    queue.enqueue({job("naive", {{"tile", 8}}, 48), job("naive", {{"tile", 4}}, 48)});
    QVERIFY(finished.wait(kWaitMs));
    QCOMPARE(model.rowCount(), 2);
    // The device each result was measured on is known to the model, for tooltips and sessions.
    QCOMPARE(model.devices().size(), std::size_t(1));
    QCOMPARE(model.devices().front().info.name, model.results().front().device);
    QVERIFY(!progress.isEmpty());
    QVERIFY2(progress.front().front().toString().startsWith(QStringLiteral("Run 1 of 2: ")),
             qPrintable(progress.front().front().toString()));
    const QString end = ready.back().front().toString();
    QVERIFY2(end.startsWith(QStringLiteral("Done: 2 runs in ")), qPrintable(end));
  }

  void failuresAndUnplannableRunsAreProblems() {
    ResultsModel model;
    RunController runs;
    QueueController queue(runs, model);
    QSignalSpy problems(&queue, &QueueController::problem);
    QSignalSpy finished(&runs, &RunController::queueFinished);
    RunJob elsewhere = job("naive", {}, 32);
    elsewhere.backend = "no-such-backend";
    queue.enqueue({elsewhere});
    QVERIFY(finished.wait(kWaitMs));
    QCOMPARE(problems.size(), 1);
    QVERIFY2(problems.front().front().toString().contains(QStringLiteral(" failed (")) &&
                 problems.front().front().toString().contains(QStringLiteral("no-such-backend")),
             qPrintable(problems.front().front().toString()));
    QCOMPARE(model.rowCount(), 0);

    Choices choices;
    choices.shape = {64, 64, 64};
    // A name that is no identifier cannot be planned.
    QVERIFY(!queue.runUserKernel(choices, {"my kernel",
                                           "TS_PARAM(TILE, 16, 8, 16)\n"
                                           "TS_LAUNCH(TILE, TILE, 1, 1, 0)\n"
                                           "TS_KERNEL {}\n"}));
    QCOMPARE(problems.size(), 2);
    QVERIFY2(
        problems.back().front().toString().startsWith(QStringLiteral("Cannot run my kernel: ")),
        qPrintable(problems.back().front().toString()));
  }

  // The last run's counters (or why it has none) are said when the queue ends, once.
  void theQueuesEndSaysWhatTheCountersSaw() {
    ResultsModel model;
    RunController runs;
    QueueController queue(runs, model);
    QSignalSpy status(&queue, &QueueController::status);
    RunResult counted = test::madeUpResult("naive", {}, 64, 2.0);
    counted.countersUnavailable = "no counters here";
    emit runs.resultReady(counted);
    emit runs.queueFinished({1, 0, false, 1.2});
    QCOMPARE(status.back().front().toString(),
             QStringLiteral("Done: 1 run in 1 s. naive: no counters here"));
    emit runs.queueFinished({0, 1, true, 61});
    QCOMPARE(status.back().front().toString(),
             QStringLiteral("Cancelled after 0 runs, 1 failed in 1 min 1 s."));
    // One run is "1 run" (issue #35).
    emit runs.queueFinished({1, 0, true, 3});
    QCOMPARE(status.back().front().toString(), QStringLiteral("Cancelled after 1 run in 3 s."));
  }

  void aCancelSaysWhatItDoes() {
    ResultsModel model;
    RunController runs;
    QueueController queue(runs, model);
    QSignalSpy status(&queue, &QueueController::status);
    QSignalSpy finished(&runs, &RunController::queueFinished);
    queue.cancel();  // idle: nothing to say
    QVERIFY(std::none_of(status.begin(), status.end(), [](const QList<QVariant>& signal) {
      return signal.front().toString().startsWith(QStringLiteral("Cancelling"));
    }));
    std::vector<RunJob> jobs;
    for (int i = 0; i < 20; ++i) jobs.push_back(job("naive", {{"tile", 8}}, 96));
    queue.enqueue(jobs);
    queue.cancel();
    QCOMPARE(status.back().front().toString(),
             QStringLiteral("Cancelling: the run in progress stops when its launch ends"));
    QVERIFY(finished.wait(kWaitMs));
    QVERIFY(finished.front().front().value<QueueSummary>().cancelled);
    QVERIFY(status.back().front().toString().startsWith(QStringLiteral("Cancelled after ")));
    QVERIFY(model.rowCount() < 20);
  }
};

TILESCOPE_UI_SUITE(TestQueueController, Guiless)
#include "tst_queue_controller.moc"
