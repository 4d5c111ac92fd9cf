// SPDX-License-Identifier: GPL-3.0-or-later
// The app's remote backend: the run queue driving a `tilescope-bench --serve` child on the CPU
// backend (a sweep, Cancel mid-sweep, a slow server whose progress keeps coming while the window's
// event loop runs), and fake servers (small shell commands) that print garbage, exit at once,
// speak another protocol version or are not found, each with a clear message. A server lost
// mid-sweep, one that never answers, and starting and closing servers: tst_server_lanes.
#include <QtTest>

#include "run_controller.hpp"
#include "servers.hpp"
#include "settings.hpp"
#include "suite_helpers.hpp"
#include "ui_suite.hpp"

using namespace tilescope;
using namespace tilescope::desktop;

namespace {

using test::kWaitMs;

QString bench() {
  return QStringLiteral("'%1'").arg(QStringLiteral(TILESCOPE_BENCH));
}

// A server named "test" on the CPU backend, started by `command`.
std::vector<remote::ServerAddress> server(const QString& command) {
  return {{"test", command.toStdString(), "cpu"}};
}

const std::string kId = "cpu@test";

RunJob job(const std::string& kernel, Params params, std::int64_t size, int reps) {
  RunJob made;
  made.backend = kId;
  made.request.kernel = {kernel, std::move(params)};
  made.request.shape = {size, size, size};
  made.request.sampling.fixedReps = reps;
  return made;
}

// The server's backend once it was asked to start and the worker has tried.
const BackendSummary* connected(RunController& controller) {
  controller.connectServer(kId);
  const auto tried = [&] {
    const BackendSummary* summary = controller.backend(kId);
    return summary && !summary->connecting &&
           (summary->available() ||
            summary->unavailableReason->find("not connected") == std::string::npos);
  };
  if (!QTest::qWaitFor(tried, kWaitMs)) return nullptr;
  return controller.backend(kId);
}

QString reasonOf(RunController& controller) {
  const BackendSummary* summary = connected(controller);
  if (!summary || summary->available()) return QString();
  return QString::fromStdString(*summary->unavailableReason);
}

}  // namespace

class TestRemoteBackend : public QObject {
  Q_OBJECT

 private slots:
  void aSweepRunsOnTheServerAndResultsSayWhere() {
    RunController controller(nullptr, server(bench() + " --serve"));
    const BackendSummary* summary = connected(controller);
    QVERIFY(summary);
    QVERIFY2(summary->available(), summary->unavailableReason.value_or("").c_str());
    QVERIFY(!summary->devices.empty());
    QCOMPARE(summary->devices.front().facts.back().first, std::string("server"));
    // The server's own limits come with it: the CPU backend multiplies fp32 only.
    QVERIFY(summary->elementRefusal(ElementType::F16).has_value());
    // The local backends are still there.
    QVERIFY(controller.backend("cpu"));

    QSignalSpy results(&controller, &RunController::resultReady);
    QSignalSpy finished(&controller, &RunController::queueFinished);
    QSignalSpy progress(&controller, &RunController::progressChanged);
    std::vector<RunJob> sweep;
    for (int tile : {2, 4, 8}) sweep.push_back(job("shared-tiled", {{"tile", tile}}, 32, 2));
    controller.enqueue(sweep);
    QVERIFY(finished.wait(kWaitMs));
    QCOMPARE(results.size(), 3);
    for (int i = 0; i < 3; ++i) {
      const auto result = results.at(i).front().value<RunResult>();
      QCOMPARE(result.backend, kId);
      QCOMPARE(result.device, summary->devices.front().name);
      QCOMPARE(result.kernel.params.at("tile"), 2 << i);
      QVERIFY(result.verified());
    }
    QCOMPARE(finished.front().front().value<QueueSummary>().completed, 3);
    QVERIFY(progress.size() >= 3);
  }

  void cancelStopsASweepOnTheServer() {
    RunController controller(nullptr, server(bench() + " --serve"));
    QVERIFY(connected(controller));
    QSignalSpy results(&controller, &RunController::resultReady);
    QSignalSpy finished(&controller, &RunController::queueFinished);
    std::vector<RunJob> sweep = {job("shared-tiled", {{"tile", 8}}, 32, 2)};
    for (int i = 0; i < 4; ++i) sweep.push_back(job("naive", {{"tile", 8}}, 256, 100000));
    controller.enqueue(sweep);
    QVERIFY(results.wait(kWaitMs));
    // The long run is in progress on the server now.
    QSignalSpy progress(&controller, &RunController::progressChanged);
    QVERIFY(progress.wait(kWaitMs));
    controller.cancel();
    QVERIFY(finished.wait(kWaitMs));
    const auto summary = finished.front().front().value<QueueSummary>();
    QVERIFY(summary.cancelled);
    QCOMPARE(results.size(), 1);
    // The server stays up for the next run.
    controller.enqueue({job("naive", {{"tile", 4}}, 16, 2)});
    QVERIFY(finished.wait(kWaitMs));
    QCOMPARE(results.size(), 2);
  }

  void aSlowServerKeepsSendingProgressWhileTheWindowRuns() {
    RunController controller(nullptr,
                             server(QStringLiteral("sleep 1; exec %1 --serve").arg(bench())));
    // The event loop turns while the server starts and runs: a timer here keeps firing.
    QElapsedTimer sinceTick;
    qint64 longestGapMs = 0;
    QTimer ticker;
    ticker.setInterval(20);
    connect(&ticker, &QTimer::timeout, this,
            [&] { longestGapMs = std::max(longestGapMs, sinceTick.restart()); });
    sinceTick.start();
    ticker.start();
    QVERIFY(connected(controller));
    QSignalSpy progress(&controller, &RunController::progressChanged);
    QSignalSpy finished(&controller, &RunController::queueFinished);
    // Long enough (about a second even on an idle machine) for the 50 ms progress throttle to
    // let several lines through.
    controller.enqueue({job("naive", {{"tile", 8}}, 512, 120)});
    QVERIFY(finished.wait(kWaitMs));
    ticker.stop();
    QVERIFY2(progress.size() >= 5, qPrintable(QString::number(progress.size())));
    QVERIFY2(longestGapMs < 1000, qPrintable(QString::number(longestGapMs)));
    QCOMPARE(finished.front().front().value<QueueSummary>().completed, 1);
  }

  void aStickyFaultFailsTheRunAndTheNextRunStartsANewServer() {
    // A fake server that greets, then answers the first run (echoing its id) with a sticky
    // fault; each start leaves a line in a file.
    QTemporaryDir dir;
    const QString starts = dir.filePath(QStringLiteral("starts"));
    const QString fake =
        QStringLiteral(
            "echo started >> '%1'; read hello; echo '{\"reply\":\"hello\",\"id\":0,"
            "\"protocol\":1,\"program\":\"fake\",\"backends\":[{\"id\":\"cpu\","
            "\"available\":true,\"devices\":[{\"format_version\":1,\"index\":0,"
            "\"name\":\"Fake GPU\",\"facts\":[]}]}]}'; read run; "
            "id=$(echo \"$run\" | sed 's/.*\"id\":\\([0-9]*\\).*/\\1/'); "
            "echo '{\"reply\":\"error\",\"id\":'$id',\"kind\":\"device-lost\",\"message\":\"an "
            "illegal memory access was "
            "encountered\",\"restart\":true}'; cat >/dev/null")
            .arg(starts);
    RunController controller(nullptr, server(fake));
    QVERIFY(connected(controller) && connected(controller)->available());
    QSignalSpy failures(&controller, &RunController::runFailed);
    QSignalSpy finished(&controller, &RunController::queueFinished);
    controller.enqueue({job("naive", {{"tile", 4}}, 16, 2)});
    QVERIFY(finished.wait(kWaitMs));
    QCOMPARE(failures.size(), 1);
    const QString message = failures.front().at(1).value<RunFailure>().message;
    QVERIFY2(message.contains(QStringLiteral("illegal memory access")), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("restarted for the next run")), qPrintable(message));
    // The backend is not given up: the next run starts a new server, which faults again.
    controller.enqueue({job("naive", {{"tile", 4}}, 16, 2)});
    QVERIFY(finished.wait(kWaitMs));
    QCOMPARE(failures.size(), 2);
    QFile file(starts);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll().count("started"), 2);
  }

  void aServerThatPrintsGarbageIsNamedWithWhatItWrote() {
    RunController controller(
        nullptr, server(QStringLiteral("echo 'Welcome to gpu1, last login: Mon'; cat >/dev/null")));
    const QString reason = reasonOf(controller);
    QVERIFY2(reason.contains(QStringLiteral("does not speak the TileScope protocol")),
             qPrintable(reason));
    QVERIFY2(reason.contains(QStringLiteral("Welcome to gpu1")), qPrintable(reason));
    // A run asked for anyway fails with the same message, and the queue goes on.
    QSignalSpy failures(&controller, &RunController::runFailed);
    QSignalSpy finished(&controller, &RunController::queueFinished);
    controller.enqueue({job("naive", {{"tile", 4}}, 16, 2)});
    QVERIFY(finished.wait(kWaitMs));
    QCOMPARE(failures.size(), 1);
    QVERIFY(failures.front().at(1).value<RunFailure>().message.contains(QStringLiteral("gpu1")));
  }

  // Through ssh (here a fake one: a script named ssh), its status 255 is read with its message.
  void aServerThatExitsAtOnceIsReportedWithItsStderr() {
    QTemporaryDir dir;
    const QString ssh = dir.filePath(QStringLiteral("ssh"));
    QFile script(ssh);
    QVERIFY(script.open(QIODevice::WriteOnly));
    script.write("#!/bin/sh\necho 'user@gpu1: Permission denied (publickey).' >&2\nexit 255\n");
    script.close();
    QVERIFY(script.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
    RunController controller(nullptr,
                             server(ssh + QStringLiteral(" gpu1 tilescope-bench --serve")));
    const QString reason = reasonOf(controller);
    QVERIFY2(reason.contains(QStringLiteral("status 255")), qPrintable(reason));
    QVERIFY2(reason.contains(QStringLiteral("ssh could not log in")), qPrintable(reason));
    QVERIFY2(reason.contains(QStringLiteral("Permission denied (publickey).")), qPrintable(reason));
  }

  void aCommandThatIsNotFoundSaysSo() {
    RunController controller(nullptr, server(QStringLiteral("no-such-tilescope-bench --serve")));
    const QString reason = reasonOf(controller);
    QVERIFY2(reason.contains(QStringLiteral("status 127")), qPrintable(reason));
    QVERIFY2(reason.contains(QStringLiteral("no-such-tilescope-bench")), qPrintable(reason));
  }

  void aServerWithAnotherProtocolVersionIsRefused() {
    RunController controller(
        nullptr, server(QStringLiteral(
                     "read request; echo '{\"reply\":\"hello\",\"id\":0,\"protocol\":99,"
                     "\"program\":\"tilescope-bench 9.9.0\",\"backends\":[]}'; cat >/dev/null")));
    const QString reason = reasonOf(controller);
    QVERIFY2(reason.contains(QStringLiteral("protocol version 99")), qPrintable(reason));
    QVERIFY2(reason.contains(QStringLiteral("tilescope-bench 9.9.0")), qPrintable(reason));
  }

  void theServersAreKeptInTheSettings() {
    QCoreApplication::setOrganizationName(QStringLiteral("TileScopeTests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_remote_backend"));
    QFile::remove(settingsPath());
    ServerSettings settings;
    settings.servers = {{"gpu1", sshCommand(QStringLiteral("gpu1")).toStdString(), "cuda"},
                        {"cluster", slurmCommand(QStringLiteral("login1")).toStdString(), "cuda"}};
    settings.isolateCuda = true;
    settings.idleMinutes = 25;
    saveServerSettings(settings);
    const ServerSettings loaded = loadServerSettings();
    // Each named server is closed after the idle time set.
    QCOMPARE(loaded.idleMinutes, 25);
    QCOMPARE(remoteBackends(loaded).front().idleClose, std::chrono::milliseconds(25 * 60000));
    QCOMPARE(loaded.servers.size(), std::size_t(2));
    QCOMPARE(loaded.servers[1].command,
             std::string("ssh login1 srun --gres=gpu:1 tilescope-bench --serve"));
    QVERIFY(loaded.isolateCuda);
    // The isolated CUDA backend is an unnamed local server standing in for "cuda".
    const std::vector<remote::ServerAddress> backends = remoteBackends(loaded);
    QCOMPARE(backends.size(), std::size_t(3));
    QCOMPARE(remote::backendIdOf(backends.back()), std::string("cuda"));
    QVERIFY(QString::fromStdString(backends.back().command).endsWith(QStringLiteral("--serve")));
    QVERIFY(serverProblem({"gpu 1", "ssh x", "cuda"}, {}).has_value());
    QVERIFY(serverProblem({"gpu1", "ssh x", "cuda"}, loaded.servers).has_value());
    QVERIFY(serverProblem({"gpu2", "", "cuda"}, {}).has_value());
    QVERIFY(!serverProblem({"gpu2", "ssh gpu2 tilescope-bench --serve", "cuda"}, {}).has_value());
    QFile::remove(settingsPath());
  }
};

TILESCOPE_UI_SUITE(TestRemoteBackend, Guiless)
#include "tst_remote_backend.moc"
