// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The run queue as the window tells it: what it queues and cancels, the results it records in
// the model (with the facts of their devices), and the texts for its progress, its failures and
// its end. The window shows those texts; the RunController does the running.
#include <QMap>
#include <QObject>
#include <vector>

#include "choices.hpp"
#include "results_model.hpp"
#include "run_controller.hpp"

namespace tilescope::desktop {

class QueueController : public QObject {
  Q_OBJECT

 public:
  QueueController(RunController& runs, ResultsModel& model, QObject* parent = nullptr);

  // Appends to the queue; it starts when idle.
  void enqueue(const std::vector<RunJob>& jobs);
  // Queues the user's kernel with the choices' backend, device, size, measurement and sweep
  // (planUserJobs); false, with why as a problem, when it cannot run.
  bool runUserKernel(const Choices& choices, const UserKernelSource& kernel);
  // Drops the waiting runs; the one in progress stops after its launch.
  void cancel();

  // "12 s", "3 min 4 s", "1 h 2 min".
  static QString formatDuration(double seconds);

 signals:
  // While busy: "Run 2 of 5: naive 512³ — verifying", the fraction in thousandths, the time left.
  void progressShown(const QString& text, int permille, const QString& timeLeft);
  void status(const QString& message, int timeoutMs);
  void problem(const QString& message);
  // A problem told before is over (a lost server is back): its notice can go.
  void problemSolved(const QString& message);

 private:
  void onBackendsChanged();
  void onProgress(const QueueProgress& progress);
  void onResult(const RunResult& result);
  void onRunFailed(const RunJob& job, const RunFailure& failure);
  void onQueueFinished(const QueueSummary& summary);
  void onServerLost(const QString& server, const QString& why, int waiting);
  void onServerBack(const QString& server, int waiting);

  RunController& runs_;
  ResultsModel& model_;
  // The last run's counters against the model (or why it has none), said when the queue ends.
  QString countersNote_;
  // Per lost server, the notice that said so.
  QMap<QString, QString> lostNotices_;
};

}  // namespace tilescope::desktop
