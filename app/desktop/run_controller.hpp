// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The run queue on the window's side: it owns the worker thread, hands the worker one job at a
// time, tracks progress and the time left, and turns a cancel into "stop after this launch".
#include <QElapsedTimer>
#include <QObject>
#include <QThread>
#include <atomic>
#include <deque>
#include <optional>

#include "run_job.hpp"
#include "tilescope/remote/remote_backend.hpp"

namespace tilescope::desktop {

class RunWorker;

struct QueueProgress {
  int position = 0;         // 1-based number of the run in progress
  int total = 0;            // runs in this pass of the queue: finished, current and waiting
  double fraction = 0;      // of the whole pass, in [0, 1]
  QString current;          // describe() of the run in progress
  QString stage;            // what the backend says it is doing
  double secondsLeft = -1;  // negative while there is nothing to estimate from
};

struct QueueSummary {
  int completed = 0, failed = 0;
  bool cancelled = false;
  double seconds = 0;
};

class RunController : public QObject {
  Q_OBJECT

 public:
  // `servers`: the run servers whose backends join the local ones (desktop::remoteBackends).
  explicit RunController(QObject* parent = nullptr,
                         std::vector<remote::ServerAddress> servers = {});
  // Shuts down: a run in progress is cancelled and waited for.
  ~RunController() override;

  // Appends to the queue and starts it when idle.
  void enqueue(const std::vector<RunJob>& jobs);
  // Replaces the run servers' backends (after the run in progress); backendsChanged follows.
  void setServers(const std::vector<remote::ServerAddress>& servers);
  // Drops the waiting runs; the one in progress stops when its current launch ends.
  void cancel();
  // Cancels, stops the worker thread and waits for it. Idempotent; nothing runs afterwards.
  void shutdown();

  bool busy() const { return current_.has_value(); }
  // False once shutdown() has stopped the worker thread.
  bool workerRunning() const { return thread_.isRunning(); }
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
  void queueFinished(const tilescope::desktop::QueueSummary& summary);

 private:
  void onBackendsProbed(const std::vector<BackendSummary>& backends);
  void onProgress(quint64 ticket, double fraction, const QString& stage);
  void onFinished(quint64 ticket, const RunResult& result);
  void onCeilingsMeasured(quint64 ticket, const DeviceCeilings& ceilings);
  void onTraced(quint64 ticket, const KernelTrace& trace);
  void onChecked(quint64 ticket, const exercise::SubmissionReport& report);
  void onFailed(quint64 ticket, const RunFailure& failure);
  void endCurrent();
  void startPass();
  void dispatchNext();
  QueueProgress progressOf(double currentFraction, const QString& stage) const;

  QThread thread_;
  RunWorker* worker_ = nullptr;  // lives on thread_; deleted there when it finishes
  std::atomic<bool> cancel_{false};
  bool shutDown_ = false;
  bool backendsKnown_ = false;
  std::vector<BackendSummary> backends_;

  std::deque<RunJob> pending_;
  std::optional<RunJob> current_;
  quint64 ticket_ = 0;
  QueueSummary pass_;        // counts of the current pass of the queue
  double doneWeight_ = 0;    // estimated cost of the runs already ended in this pass
  QElapsedTimer passClock_;  // since this pass began
};

}  // namespace tilescope::desktop

Q_DECLARE_METATYPE(tilescope::desktop::QueueProgress)
Q_DECLARE_METATYPE(tilescope::desktop::QueueSummary)
