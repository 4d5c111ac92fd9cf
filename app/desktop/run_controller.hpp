// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The run queue on the window's side. It owns the workers, one per lane: the local backends
// share one lane (so their timings never overlap), each run server has a lane of its own. Jobs
// keep their order within a lane; a lane takes its next job when it is free, so a server that is
// slow to start or lost delays no local run. Runs that may take any device (RunJob::anyDevice)
// of a backend with several go to its device lanes, one per device, each with a backend (or a
// server connection) of its own; their results are delivered in the order they were queued. The
// controller tracks progress and the time left, turns a cancel into "stop after this launch", and
// holds a lost server's runs until it is back.
#include <QElapsedTimer>
#include <QObject>
#include <QThread>
#include <QTimer>
#include <atomic>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>

#include "run_job.hpp"
#include "tilescope/remote/remote_backend.hpp"

namespace tilescope::desktop {

class RunWorker;

struct QueueProgress {
  int position = 0;         // 1-based number of the (first) run in progress
  int total = 0;            // runs in this pass of the queue: finished, current and waiting
  double fraction = 0;      // of the whole pass, in [0, 1]
  QString current;          // describe() of the run in progress
  QString stage;            // what the backend says it is doing
  double secondsLeft = -1;  // negative while there is nothing to estimate from
  int alsoRunning = 0;      // runs in progress on other lanes at the same time
  // With runs spread over devices: "cuda@gpu1 device 1: naive tile=8 at 512³ on ... (timing 3/10)",
  // one line per device lane with a run in progress.
  QStringList onDevices;
  // "gpu1: 28 runs wait for the server (connecting again in 8 s)", one line per lost server.
  QStringList waiting;
};

struct QueueSummary {
  int completed = 0, failed = 0;
  bool cancelled = false;
  double seconds = 0;
};

class RunController : public QObject {
  Q_OBJECT

 public:
  // `servers`: the run servers whose backends join the local ones (desktop::remoteBackends). A
  // named server starts when connectServer() asks for it or a run needs it.
  explicit RunController(QObject* parent = nullptr,
                         std::vector<remote::ServerAddress> servers = {});
  // Shuts down: a run in progress is cancelled and waited for.
  ~RunController() override;

  // Appends to the queue and starts it when idle.
  void enqueue(const std::vector<RunJob>& jobs);
  // Replaces the run servers: a server whose address is unchanged keeps its lane and its
  // connection; a removed one's waiting runs fail and its run in progress is cancelled.
  // backendsChanged follows.
  void setServers(const std::vector<remote::ServerAddress>& servers);
  // Starts the run server of backend `id` (a dormant one; others are left as they are).
  void connectServer(const std::string& id);
  // Drops the waiting runs (also those waiting for a lost server); the ones in progress stop when
  // their current launch ends.
  void cancel();
  // Cancels, stops the worker threads and waits for them. Idempotent; nothing runs afterwards.
  void shutdown();

  bool busy() const;
  // False once shutdown() has stopped the worker threads.
  bool workerRunning() const;
  bool backendsKnown() const { return backendsKnown_; }
  const std::vector<BackendSummary>& backends() const { return backends_; }
  const BackendSummary* backend(const std::string& id) const;

 signals:
  void backendsChanged();
  void busyChanged(bool busy);
  void progressChanged(const tilescope::desktop::QueueProgress& progress);
  void resultReady(const tilescope::RunResult& result);
  void ceilingsReady(const tilescope::DeviceCeilings& ceilings);
  void traceReady(const tilescope::KernelTrace& trace);
  void checkReady(const tilescope::exercise::SubmissionReport& report);
  void runFailed(const tilescope::desktop::RunJob& job,
                 const tilescope::desktop::RunFailure& failure);
  // A run server's connection was lost: `waiting` runs wait for it (the one it interrupted
  // included); serverBack follows when it answers again, unless the runs are cancelled.
  void serverLost(const QString& server, const QString& why, int waiting);
  void serverBack(const QString& server, int waiting);
  void queueFinished(const tilescope::desktop::QueueSummary& summary);

 private:
  struct Lane;

  // `start`: false for a device lane, which addDeviceLane starts as such.
  Lane& addLane(const std::optional<remote::ServerAddress>& server, bool start = true);
  void removeLane(Lane& lane);
  void removeLaterLane(Lane& lane);
  // The lane of one device of `backend`: a connection of its own to the run server `server`
  // (also an unnamed one, the isolated local backend), or a local backend of its own.
  Lane& addDeviceLane(const std::string& backend, int device,
                      const std::optional<remote::ServerAddress>& server);
  // Adds the device lanes `job` needs, or clears its anyDevice where its backend has one device.
  void prepareSpread(RunJob& job);
  bool hasDeviceLanes(const std::string& backend) const;
  // Whether `lane` takes `job` when free.
  bool takes(const Lane& lane, const RunJob& job) const;
  const Lane& laneFor(const RunJob& job) const;
  Lane* laneOf(const std::string& serverId);
  // Emits a job's result (or failure) through `emitIt`: at once, or for a spread run once the
  // runs queued before it are delivered.
  void deliver(const RunJob& job, std::function<void()> emitIt);
  // A spread run that ends without a result or failure to show (cancelled).
  void forget(const RunJob& job);
  void flushHeld();
  void onBackendsProbed(Lane& lane, const std::vector<BackendSummary>& backends);
  void onProgress(Lane& lane, quint64 ticket, double fraction, const QString& stage);
  // Ends `lane`'s job `ticket`: the result is emitted by `emitIt` (nothing for a failure).
  void onEnded(Lane& lane, quint64 ticket, std::function<void()> emitIt);
  void onFailed(Lane& lane, quint64 ticket, const RunFailure& failure);
  void onReconnectTried(Lane& lane, bool back, const QString& why);
  void waitForServer(Lane& lane, const QString& why);
  void tryAgainLater(Lane& lane);
  // Fails every waiting job of `lane` with `why`.
  void failWaiting(Lane& lane, const QString& why);
  int waitingOn(const Lane& lane) const;
  void startPass();
  // Gives every free lane its next job; ends the pass when nothing is left.
  void dispatch();
  void endPass();
  QueueProgress progressOf() const;

  std::vector<std::unique_ptr<Lane>> lanes_;      // the local lane first, then the servers'
  std::vector<remote::ServerAddress> isolating_;  // unnamed: the local lane's child servers
  bool shutDown_ = false;
  bool backendsKnown_ = false;
  bool passOpen_ = false;
  std::vector<BackendSummary> backends_;

  std::deque<RunJob> pending_;
  quint64 nextTicket_ = 0;
  std::uint64_t nextHeldOrder_ = 0;
  std::deque<std::uint64_t> heldOrder_;                  // spread runs not delivered yet
  std::map<std::uint64_t, std::function<void()>> held_;  // their ended results, by order
  std::map<std::string, int> knownDevices_;  // per backend, how many devices it last listed
  QueueSummary pass_;                        // counts of the current pass of the queue
  double doneWeight_ = 0;    // estimated cost of the runs already ended in this pass
  QElapsedTimer passClock_;  // since this pass began
};

}  // namespace tilescope::desktop

Q_DECLARE_METATYPE(tilescope::desktop::QueueProgress)
Q_DECLARE_METATYPE(tilescope::desktop::QueueSummary)
