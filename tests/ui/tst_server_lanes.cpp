// SPDX-License-Identifier: GPL-3.0-or-later
// Run servers on lanes of their own: a server starts only when chosen or needed and closes when
// idle; one that never answers delays no local run and is cancelled at once; a server lost
// mid-sweep holds its runs (shown as waiting) while local runs go on, and the sweep goes on with
// every result when it is back, or is dropped by Cancel; one that cannot be reached fails its runs
// with its reason.
#include <QtTest>
#include <csignal>

#include "choices.hpp"
#include "run_controller.hpp"
#include "suite_helpers.hpp"
#include "ui_suite.hpp"

using namespace tilescope;
using namespace tilescope::desktop;

namespace {

using test::kWaitMs;
const std::string kId = "cpu@test";

QString bench() {
  return QStringLiteral("'%1'").arg(QStringLiteral(TILESCOPE_BENCH));
}

RunJob job(const std::string& backend, std::int64_t size, int reps) {
  RunJob made;
  made.backend = backend;
  made.request.kernel = {"naive", {{"tile", 8}}};
  made.request.shape = {size, size, size};
  made.request.sampling.fixedReps = reps;
  return made;
}

// A run of about a second on the CPU: long enough to lose its server in the middle.
RunJob longRun() {
  return job(kId, 512, 100);
}

// A server in `dir` that starts only while the file "gate" exists, writes a line to "starts" and
// the pid of the server process to "pid".
struct GatedServer {
  explicit GatedServer(const QTemporaryDir& dir) : dir_(dir) { open(); }

  remote::ServerAddress address(std::chrono::milliseconds idleClose = {}) const {
    const QString command = QStringLiteral(
                                "[ -e '%1' ] || { echo 'the host is down' >&2; exit 3; }; "
                                "echo started >> '%2'; echo $$ > '%3'; exec %4 --serve")
                                .arg(path("gate"), path("starts"), path("pid"), bench());
    remote::ServerAddress made{"test", command.toStdString(), "cpu"};
    made.idleClose = idleClose;
    return made;
  }
  void open() const {
    QFile gate(path("gate"));
    QVERIFY(gate.open(QIODevice::WriteOnly));
  }
  void close() const { QFile::remove(path("gate")); }
  int starts() const {
    QFile file(path("starts"));
    return file.open(QIODevice::ReadOnly) ? int(file.readAll().count("started")) : 0;
  }
  pid_t pid() const {
    QFile file(path("pid"));
    return file.open(QIODevice::ReadOnly) ? pid_t(file.readAll().trimmed().toLongLong()) : 0;
  }
  // Ends the server as a host going down would; the gate closes first when `andClose`.
  void kill(bool andClose) const {
    if (andClose) close();
    QVERIFY(pid() > 0);
    QCOMPARE(::kill(pid(), SIGKILL), 0);
  }

 private:
  QString path(const char* name) const { return dir_.filePath(QString::fromLatin1(name)); }
  const QTemporaryDir& dir_;
};

const BackendSummary* summaryOf(RunController& controller) {
  return controller.backend(kId);
}

// Waits for the first progress of the run in progress on the server.
bool serverRunStarted(RunController& controller) {
  return QTest::qWaitFor(
      [&] {
        const BackendSummary* summary = summaryOf(controller);
        return summary && summary->available() && controller.busy();
      },
      kWaitMs);
}

}  // namespace

class TestServerLanes : public QObject {
  Q_OBJECT

 private slots:
  void aServerStartsWhenChosenAndClosesWhenIdle() {
    QTemporaryDir dir;
    GatedServer server(dir);
    RunController controller(nullptr, {server.address(std::chrono::milliseconds(1500))});
    QVERIFY(QTest::qWaitFor([&] { return controller.backendsKnown() && summaryOf(controller); },
                            kWaitMs));
    QVERIFY(summaryOf(controller)->dormant);
    QVERIFY(controller.backend("cpu")->available());
    // A local run neither starts nor waits for the server.
    QSignalSpy finished(&controller, &RunController::queueFinished);
    controller.enqueue({job("cpu", 16, 2)});
    QVERIFY(finished.wait(kWaitMs));
    QCOMPARE(server.starts(), 0);

    controller.connectServer(kId);
    QVERIFY(QTest::qWaitFor([&] { return summaryOf(controller)->available(); }, kWaitMs));
    QCOMPARE(server.starts(), 1);
    QVERIFY(!summaryOf(controller)->devices.empty());
    const pid_t first = server.pid();
    // Idle past 1.5 s: closed, the process gone, dormant again.
    QVERIFY(QTest::qWaitFor([&] { return summaryOf(controller)->dormant; }, kWaitMs));
    QVERIFY(QTest::qWaitFor([&] { return ::kill(first, 0) != 0; }, kWaitMs));
    // A run starts it again.
    QSignalSpy results(&controller, &RunController::resultReady);
    controller.enqueue({job(kId, 16, 2)});
    QVERIFY(finished.wait(kWaitMs));
    QCOMPARE(results.size(), 1);
    QCOMPARE(server.starts(), 2);
  }

  void aServerThatNeverAnswersDelaysNoLocalRunAndCancelStopsIt() {
    QTemporaryDir dir;
    const QString started = dir.filePath(QStringLiteral("started"));
    RunController controller(
        nullptr,
        {{"test", QStringLiteral("touch '%1'; sleep 600").arg(started).toStdString(), "cpu"}});
    QVERIFY(QTest::qWaitFor([&] { return controller.backendsKnown(); }, kWaitMs));
    QSignalSpy results(&controller, &RunController::resultReady);
    QSignalSpy finished(&controller, &RunController::queueFinished);
    QElapsedTimer clock;
    clock.start();
    controller.enqueue({job(kId, 16, 2), job("cpu", 16, 2)});
    QVERIFY(results.wait(kWaitMs));
    QCOMPARE(results.front().front().value<RunResult>().backend, std::string("cpu"));
    QVERIFY2(clock.elapsed() < 10000, qPrintable(QString::number(clock.elapsed())));
    QVERIFY(QTest::qWaitFor([&] { return QFile::exists(started); }, kWaitMs));
    QVERIFY(summaryOf(controller)->connecting);
    QVERIFY(controller.busy());
    clock.restart();
    controller.cancel();
    QVERIFY(finished.wait(kWaitMs));
    QVERIFY(finished.front().front().value<QueueSummary>().cancelled);
    QVERIFY2(clock.elapsed() < 5000, qPrintable(QString::number(clock.elapsed())));
    QVERIFY(QTest::qWaitFor([&] { return summaryOf(controller)->dormant; }, kWaitMs));
  }

  void aServerKilledMidRunIsWaitedForAndTheSweepKeepsEveryResult() {
    QTemporaryDir dir;
    GatedServer server(dir);
    RunController controller(nullptr, {server.address()});
    QSignalSpy results(&controller, &RunController::resultReady);
    QSignalSpy failures(&controller, &RunController::runFailed);
    QSignalSpy finished(&controller, &RunController::queueFinished);
    QSignalSpy lost(&controller, &RunController::serverLost);
    QSignalSpy back(&controller, &RunController::serverBack);
    QSignalSpy progress(&controller, &RunController::progressChanged);
    controller.enqueue({job(kId, 16, 2), longRun(), job(kId, 24, 2)});
    QVERIFY(results.wait(kWaitMs));
    QVERIFY(serverRunStarted(controller));
    server.kill(false);
    QVERIFY(lost.wait(kWaitMs));
    const QString why = lost.front().at(1).toString();
    QVERIFY2(why.contains(QStringLiteral("the connection was lost")), qPrintable(why));
    QVERIFY2(why.contains(QStringLiteral("killed by signal 9")), qPrintable(why));
    // The interrupted run and the one after it wait.
    QCOMPARE(lost.front().at(2).toInt(), 2);
    QVERIFY(back.wait(kWaitMs));
    QVERIFY(finished.wait(kWaitMs));
    QCOMPARE(failures.size(), 0);
    QCOMPARE(results.size(), 3);
    QCOMPARE(results.at(1).front().value<RunResult>().shape, longRun().request.shape);
    QCOMPARE(finished.front().front().value<QueueSummary>().completed, 3);
    QCOMPARE(server.starts(), 2);
    const bool toldWaiting = std::any_of(progress.begin(), progress.end(), [](const auto& args) {
      const auto step = args.front().template value<QueueProgress>();
      return !step.waiting.isEmpty() && step.waiting.front().contains(QStringLiteral(
                                            "test: holding 2 runs until the server is back"));
    });
    QVERIFY(toldWaiting);
  }

  void aLostServerHoldsItsRunsWhileLocalRunsGoOnUntilItIsBack() {
    QTemporaryDir dir;
    GatedServer server(dir);
    RunController controller(nullptr, {server.address()});
    QSignalSpy results(&controller, &RunController::resultReady);
    QSignalSpy failures(&controller, &RunController::runFailed);
    QSignalSpy finished(&controller, &RunController::queueFinished);
    QSignalSpy lost(&controller, &RunController::serverLost);
    QSignalSpy back(&controller, &RunController::serverBack);
    controller.enqueue({longRun(), job(kId, 16, 2), job(kId, 24, 2)});
    QVERIFY(serverRunStarted(controller));
    server.kill(true);
    QVERIFY(lost.wait(kWaitMs));
    QCOMPARE(lost.front().at(2).toInt(), 3);
    // The host is down: the lane waits, the summary says why, a local run goes on meanwhile.
    const BackendSummary* summary = summaryOf(controller);
    QVERIFY(!summary->available());
    QVERIFY2(summary->unavailableReason->find("connection was lost") != std::string::npos,
             summary->unavailableReason->c_str());
    // The window keeps it chosen meanwhile.
    Choices chosen;
    chosen.backend = kId;
    QVERIFY(readyChoices(chosen, controller.backends()).isEmpty());
    QCOMPARE(chosen.backend, kId);
    controller.enqueue({job("cpu", 16, 2)});
    QVERIFY(results.wait(kWaitMs));
    QCOMPARE(results.back().front().value<RunResult>().backend, std::string("cpu"));
    QVERIFY(controller.busy());
    QVERIFY(finished.isEmpty());
    QVERIFY(back.isEmpty());
    server.open();
    QVERIFY(back.wait(kWaitMs));
    QVERIFY(finished.wait(kWaitMs));
    QCOMPARE(failures.size(), 0);
    QCOMPARE(results.size(), 4);
    QCOMPARE(finished.front().front().value<QueueSummary>().completed, 4);
    QVERIFY(summaryOf(controller)->available());
  }

  void cancelDropsTheRunsWaitingForALostServer() {
    QTemporaryDir dir;
    GatedServer server(dir);
    RunController controller(nullptr, {server.address()});
    QSignalSpy results(&controller, &RunController::resultReady);
    QSignalSpy finished(&controller, &RunController::queueFinished);
    QSignalSpy lost(&controller, &RunController::serverLost);
    controller.enqueue({longRun(), job(kId, 16, 2)});
    QVERIFY(serverRunStarted(controller));
    server.kill(true);
    QVERIFY(lost.wait(kWaitMs));
    // Nothing runs: the pass ends at once.
    controller.cancel();
    QCOMPARE(finished.size(), 1);
    QVERIFY(finished.front().front().value<QueueSummary>().cancelled);
    QVERIFY(!controller.busy());
    server.open();
    QVERIFY(!results.wait(2500));  // nothing runs after the server is back
  }

  void aServerThatCannotBeReachedFailsItsRunsWithItsReason() {
    QTemporaryDir dir;
    GatedServer server(dir);
    server.close();
    RunController controller(nullptr, {server.address()});
    QSignalSpy results(&controller, &RunController::resultReady);
    QSignalSpy failures(&controller, &RunController::runFailed);
    QSignalSpy finished(&controller, &RunController::queueFinished);
    controller.enqueue({job(kId, 16, 2), job(kId, 24, 2), job("cpu", 16, 2)});
    QVERIFY(finished.wait(kWaitMs));
    QCOMPARE(results.size(), 1);
    QCOMPARE(failures.size(), 2);
    for (const QList<QVariant>& failure : failures) {
      const QString message = failure.at(1).value<RunFailure>().message;
      QVERIFY2(message.contains(QStringLiteral("status 3")), qPrintable(message));
      QVERIFY2(message.contains(QStringLiteral("the host is down")), qPrintable(message));
    }
    QCOMPARE(finished.front().front().value<QueueSummary>().failed, 2);
    // It reads as not connected, and a later run tries again.
    QVERIFY(summaryOf(controller)->dormant);
    QVERIFY(summaryOf(controller)->unavailableReason->find("could not connect") !=
            std::string::npos);
    server.open();
    controller.enqueue({job(kId, 16, 2)});
    QVERIFY(finished.wait(kWaitMs));
    QCOMPARE(results.size(), 2);
  }
};

TILESCOPE_UI_SUITE(TestServerLanes, Guiless)
#include "tst_server_lanes.moc"
