// SPDX-License-Identifier: GPL-3.0-or-later
// The run queue and its worker thread: runs complete, sweeps yield every point, cancel stops a
// sweep, failures are reported and do not stop the queue, and shutting down mid-run is clean.
#include <QtTest>

#include "run_controller.hpp"
#include "suite_helpers.hpp"
#include "tilescope/backend.hpp"
#include "tilescope/catalogue.hpp"
#include "tilescope/mapping.hpp"
#include "tilescope/user_kernel.hpp"
#include "ui_suite.hpp"

using namespace tilescope;
using namespace tilescope::desktop;

namespace {

using test::kWaitMs;

RunJob job(const std::string& kernel, Params params, std::int64_t size, int reps = 2,
           const std::string& backend = "cpu") {
  RunJob made;
  made.backend = backend;
  made.request.kernel = {kernel, std::move(params)};
  made.request.shape = {size, size, size};
  made.request.sampling.fixedReps = reps;
  return made;
}

// Waits until the controller has found its backends.
void waitForBackends(RunController& controller) {
  if (controller.backendsKnown()) return;
  QSignalSpy found(&controller, &RunController::backendsChanged);
  QVERIFY(found.wait(kWaitMs));
}

}  // namespace

class TestRunController : public QObject {
  Q_OBJECT

 private slots:
  void findsTheCpuBackend() {
    RunController controller;
    waitForBackends(controller);
    const BackendSummary* cpu = controller.backend("cpu");
    QVERIFY(cpu);
    QVERIFY(cpu->available());
    QVERIFY(!cpu->devices.empty());
    QVERIFY(!cpu->devices.front().name.empty());
  }

  void aRunCompletes() {
    RunController controller;
    QSignalSpy results(&controller, &RunController::resultReady);
    QSignalSpy finished(&controller, &RunController::queueFinished);
    QSignalSpy busy(&controller, &RunController::busyChanged);
    controller.enqueue({job("naive", {{"tile", 8}}, 48)});
    QVERIFY(controller.busy());
    QVERIFY(finished.wait(kWaitMs));
    QCOMPARE(results.size(), 1);
    const auto result = results.front().front().value<RunResult>();
    QCOMPARE(result.kernel.kernel, std::string("naive"));
    QCOMPARE(result.kernel.params.at("tile"), 8);
    QCOMPARE(result.shape, (Shape{48, 48, 48}));
    QCOMPARE(result.stats.reps, 2);
    QVERIFY(result.verified());
    const auto summary = finished.front().front().value<QueueSummary>();
    QCOMPARE(summary.completed, 1);
    QVERIFY(!summary.cancelled);
    QVERIFY(!controller.busy());
    QCOMPARE(busy.size(), 2);
  }

  void aSweepYieldsEveryPointWithProgress() {
    RunController controller;
    QSignalSpy results(&controller, &RunController::resultReady);
    QSignalSpy finished(&controller, &RunController::queueFinished);
    QSignalSpy progress(&controller, &RunController::progressChanged);
    std::vector<RunJob> sweep;
    for (int tile : {1, 2, 4, 8, 16}) sweep.push_back(job("shared-tiled", {{"tile", tile}}, 32));
    controller.enqueue(sweep);
    QVERIFY(finished.wait(kWaitMs));
    QCOMPARE(results.size(), 5);
    for (int i = 0; i < 5; ++i) {
      QCOMPARE(results[i].front().value<RunResult>().kernel.params.at("tile"), 1 << i);
    }
    QCOMPARE(finished.front().front().value<QueueSummary>().completed, 5);
    // Progress never runs backwards and names every run of the pass.
    double last = 0;
    int highestPosition = 0;
    for (const QList<QVariant>& arguments : progress) {
      const auto step = arguments.front().value<QueueProgress>();
      QVERIFY(step.fraction >= last - 1e-12);
      last = step.fraction;
      QCOMPARE(step.total, 5);
      highestPosition = std::max(highestPosition, step.position);
    }
    QCOMPARE(highestPosition, 5);
  }

  void cancelStopsASweep() {
    RunController controller;
    QSignalSpy results(&controller, &RunController::resultReady);
    QSignalSpy finished(&controller, &RunController::queueFinished);
    connect(&controller, &RunController::resultReady, &controller, [&] { controller.cancel(); });
    std::vector<RunJob> sweep;
    for (int tile = 1; tile <= 12; ++tile) {
      sweep.push_back(job("shared-tiled", {{"tile", tile}}, 32));
    }
    controller.enqueue(sweep);
    QVERIFY(finished.wait(kWaitMs));
    const auto summary = finished.front().front().value<QueueSummary>();
    QVERIFY(summary.cancelled);
    QCOMPARE(summary.completed, 1);
    QCOMPARE(results.size(), 1);
    QVERIFY(!controller.busy());
    // Nothing trickles in afterwards, and the queue takes new work.
    QVERIFY(!results.wait(300));
    controller.enqueue({job("naive", {}, 16)});
    QVERIFY(finished.wait(kWaitMs));
    QCOMPARE(results.size(), 2);
  }

  void cancelStopsTheRunInProgressBetweenLaunches() {
    RunController controller;
    QSignalSpy finished(&controller, &RunController::queueFinished);
    QSignalSpy results(&controller, &RunController::resultReady);
    QSignalSpy progress(&controller, &RunController::progressChanged);
    // Thousands of launches: far longer than the test waits unless cancel works.
    controller.enqueue({job("naive", {}, 128, 5000)});
    QTRY_VERIFY_WITH_TIMEOUT(
        !progress.isEmpty() &&
            progress.back().front().value<QueueProgress>().stage.contains(QStringLiteral("tim")),
        kWaitMs);
    QElapsedTimer clock;
    clock.start();
    controller.cancel();
    QVERIFY(finished.wait(kWaitMs));
    QVERIFY(clock.elapsed() < 10000);
    QVERIFY(finished.front().front().value<QueueSummary>().cancelled);
    QCOMPARE(results.size(), 0);
  }

  void failuresAreReportedAndTheQueueGoesOn() {
    RunController controller;
    waitForBackends(controller);
    QSignalSpy failed(&controller, &RunController::runFailed);
    QSignalSpy results(&controller, &RunController::resultReady);
    QSignalSpy finished(&controller, &RunController::queueFinished);
    controller.enqueue({job("naive", {}, 16), job("naive", {}, 16, 2, "no-such-backend"),
                        job("naive", {{"tile", 99}}, 16), job("naive", {}, 24)});
    QVERIFY(finished.wait(kWaitMs));
    QCOMPARE(results.size(), 2);
    QCOMPARE(failed.size(), 2);
    const auto unknown = failed[0].at(1).value<RunFailure>();
    QCOMPARE(unknown.kind, std::optional(ErrorKind::InvalidArgument));
    QVERIFY(unknown.message.contains(QStringLiteral("no-such-backend")));
    const auto refused = failed[1].at(1).value<RunFailure>();
    QCOMPARE(refused.kind, std::optional(ErrorKind::InvalidArgument));
    QVERIFY(refused.message.contains(QStringLiteral("99")));
    const auto summary = finished.front().front().value<QueueSummary>();
    QCOMPARE(summary.completed, 2);
    QCOMPARE(summary.failed, 2);
  }

  // A user kernel never runs in this process: on the CPU it runs and verifies in a child (a
  // local run server), what needs a GPU is refused with its line, and without a usable GPU the
  // CUDA backend says that running there needs one (the editor still compiles).
  void aUserKernelRunsInAChildOrSaysWhereItCanRun() {
    if (!makeCudaBackend()->unavailableReason()) QSKIP("a usable GPU is present (tst_gpu_app)");
    RunController controller;
    QSignalSpy failures(&controller, &RunController::runFailed);
    QSignalSpy results(&controller, &RunController::resultReady);
    QSignalSpy finished(&controller, &RunController::queueFinished);
    RunJob naive = job("user:naive", {}, 33), cluster = job("user:mine", {}, 32),
           onCuda = job("user:mine", {}, 32, 2, "cuda");
    naive.request.kernel.source = userKernelTemplate("naive")->source;
    cluster.request.kernel.source = onCuda.request.kernel.source =
        "TS_LAUNCH(1, 1, 1, 1, 0)\nTS_CLUSTER(2)\nTS_KERNEL {}\n";
    controller.enqueue({naive, cluster, onCuda});
    QVERIFY(finished.wait(kWaitMs));
    QCOMPARE(results.size(), 1);
    QVERIFY(results.at(0).at(0).value<RunResult>().verified());
    QCOMPARE(failures.size(), 2);
    const QString cpu = failures.at(0).at(1).value<RunFailure>().message;
    const QString cuda = failures.at(1).at(1).value<RunFailure>().message;
    QVERIFY2(cpu.contains(QStringLiteral("TS_CLUSTER needs an NVIDIA GPU")), qPrintable(cpu));
    QVERIFY2(
        cuda.startsWith(QStringLiteral("running a kernel of your own on a GPU needs a CUDA GPU: ")),
        qPrintable(cuda));
    QVERIFY2(cuda.contains(QStringLiteral("add a GPU server")), qPrintable(cuda));
  }

  // A trace job goes through the worker like a run: on the CPU it comes back from the child,
  // without a GPU the CUDA backend says the same as for a run, and the queue goes on.
  void aTraceRunsOnTheCpuOrSaysWhereItCanRun() {
    if (!makeCudaBackend()->unavailableReason()) QSKIP("a usable GPU is present (tst_gpu_app)");
    RunController controller;
    QSignalSpy failures(&controller, &RunController::runFailed);
    QSignalSpy traces(&controller, &RunController::traceReady);
    QSignalSpy finished(&controller, &RunController::queueFinished);
    const TraceRequest request{{"user:naive", {{"TILE", 8}}, userKernelTemplate("naive")->source},
                               {32, 24, 16},
                               0,
                               {1, 2}};
    controller.enqueue({RunJob::trace("cpu", request), RunJob::trace("cuda", request),
                        job("naive", {{"tile", 8}}, 32)});
    QVERIFY(finished.wait(kWaitMs));
    QCOMPARE(traces.size(), 1);
    const KernelTrace trace = traces.at(0).at(0).value<KernelTrace>();
    QCOMPARE(trace.tracedBlock.x, 1);
    QCOMPARE(trace.tracedBlock.y, 2);
    QCOMPARE(traceDifferences(Mapping(trace), Mapping({"naive", {{"tile", 8}}}, request.shape)),
             std::vector<std::string>{});
    QCOMPARE(failures.size(), 1);
    const RunJob failedJob = failures.at(0).at(0).value<RunJob>();
    QCOMPARE(describe(failedJob), QStringLiteral("tracing user:naive at 32×24×16 on cuda"));
    const QString cuda = failures.at(0).at(1).value<RunFailure>().message;
    QVERIFY2(
        cuda.startsWith(QStringLiteral("running a kernel of your own on a GPU needs a CUDA GPU: ")),
        qPrintable(cuda));
    QCOMPARE(finished.at(0).at(0).value<QueueSummary>().completed, 2);
  }

  void shutdownDuringARunIsClean() {
    auto controller = std::make_unique<RunController>();
    QSignalSpy progress(controller.get(), &RunController::progressChanged);
    controller->enqueue({job("naive", {}, 128, 5000), job("naive", {}, 128, 5000)});
    QTRY_VERIFY_WITH_TIMEOUT(progress.size() >= 2, kWaitMs);
    QElapsedTimer clock;
    clock.start();
    controller->shutdown();
    QVERIFY(!controller->workerRunning());
    QVERIFY(clock.elapsed() < 10000);
    // Nothing runs after a shutdown, and destroying it afterwards is harmless.
    controller->enqueue({job("naive", {}, 16)});
    QVERIFY(!controller->busy() || !controller->workerRunning());
    controller.reset();
  }

  void destroyingWithoutShutdownIsClean() {
    auto controller = std::make_unique<RunController>();
    QSignalSpy progress(controller.get(), &RunController::progressChanged);
    controller->enqueue({job("naive", {}, 128, 5000)});
    QTRY_VERIFY_WITH_TIMEOUT(progress.size() >= 2, kWaitMs);
    controller.reset();  // a "QThread: Destroyed while thread is still running" would abort
  }
};

TILESCOPE_UI_SUITE(TestRunController, Guiless)
#include "tst_run_controller.moc"
