// SPDX-License-Identifier: GPL-3.0-or-later
#include "queue_controller.hpp"

#include <utility>

#include "formatting.hpp"
#include "result_analysis.hpp"
#include "tilescope/counter_model.hpp"

namespace tilescope::desktop {

QueueController::QueueController(RunController& runs, ResultsModel& model, QObject* parent)
    : QObject(parent), runs_(runs), model_(model) {
  connect(&runs_, &RunController::backendsChanged, this, &QueueController::onBackendsChanged);
  connect(&runs_, &RunController::progressChanged, this, &QueueController::onProgress);
  connect(&runs_, &RunController::resultReady, this, &QueueController::onResult);
  connect(&runs_, &RunController::runFailed, this, &QueueController::onRunFailed);
  connect(&runs_, &RunController::queueFinished, this, &QueueController::onQueueFinished);
  connect(&runs_, &RunController::serverLost, this, &QueueController::onServerLost);
  connect(&runs_, &RunController::serverBack, this, &QueueController::onServerBack);
}

QString QueueController::formatDuration(double seconds) {
  const int whole = int(seconds + 0.5);
  if (whole < 60) return tr("%1 s").arg(whole);
  if (whole < 3600) return tr("%1 min %2 s").arg(whole / 60).arg(whole % 60);
  return tr("%1 h %2 min").arg(whole / 3600).arg(whole % 3600 / 60);
}

void QueueController::enqueue(const std::vector<RunJob>& jobs) {
  runs_.enqueue(jobs);
}

bool QueueController::runUserKernel(const Choices& choices, const UserKernelSource& kernel) {
  std::vector<RunJob> jobs;
  try {
    jobs = planUserJobs(choices, kernel);
  } catch (const Error& error) {
    emit problem(tr("Cannot run %1: %2")
                     .arg(QString::fromStdString(kernel.name), QString::fromUtf8(error.what())));
    return false;
  }
  runs_.enqueue(jobs);
  return true;
}

void QueueController::cancel() {
  if (!runs_.busy()) return;
  runs_.cancel();
  // Runs that only waited for a lost server end at once.
  if (runs_.busy())
    emit status(tr("Cancelling: the run in progress stops when its launch ends"), 0);
}

void QueueController::onBackendsChanged() {
  QStringList available;
  for (const BackendSummary& backend : runs_.backends()) {
    if (backend.available()) available << QString::fromStdString(backend.id);
  }
  emit status(tr("Ready. Backends: %1").arg(available.join(QStringLiteral(", "))), 5000);
}

void QueueController::onProgress(const QueueProgress& progress) {
  if (!runs_.busy()) return;
  QString text =
      progress.current.isEmpty()
          ? tr("Waiting")
          : tr("Run %1 of %2: %3").arg(progress.position).arg(progress.total).arg(progress.current);
  if (!progress.onDevices.isEmpty()) {
    // Spread over devices: each device's run in progress.
    text = tr("Run %1 of %2 on %3 devices: %4")
               .arg(progress.position)
               .arg(progress.total)
               .arg(progress.onDevices.size())
               .arg(progress.onDevices.join(QStringLiteral(" \u00b7 ")));
  } else if (!progress.stage.isEmpty()) {
    text += QStringLiteral(" \u2014 ") + progress.stage;
  }
  if (progress.alsoRunning > 0)
    text += tr(" (+%1 at once on other backends)").arg(progress.alsoRunning);
  for (const QString& waiting : progress.waiting) text += QStringLiteral(" \u00b7 ") + waiting;
  emit progressShown(text, int(progress.fraction * 1000),
                     progress.secondsLeft < 0
                         ? tr("estimating\u2026")
                         : tr("about %1 left").arg(formatDuration(progress.secondsLeft)));
}

void QueueController::onResult(const RunResult& result) {
  // Keep the facts of the device each result was measured on, for tooltips and sessions.
  std::vector<MeasuredDevice> devices = model_.devices();
  if (const BackendSummary* backend = runs_.backend(result.backend)) {
    std::vector<MeasuredDevice> measuredOn;
    for (const DeviceInfo& device : backend->devices) {
      if (device.name == result.device) measuredOn.push_back({result.backend, device});
    }
    mergeDevices(devices, measuredOn);
  }
  model_.setDevices(devices);
  model_.append(result);
  // What the counters say against the model, for the status line at the end of the queue; the
  // table's tooltips keep it per run.
  const QString counted = QString::fromStdString(seriesName(result, false));
  if (result.countersUnavailable)
    countersNote_ = tr("%1: %2").arg(counted, QString::fromStdString(*result.countersUnavailable));
  else if (const std::string parted = partingSummary(result); !parted.empty())
    countersNote_ =
        tr("%1, counted against the model: %2").arg(counted, QString::fromStdString(parted));
  if (!result.verified() && result.verification) {
    emit problem(tr("%1 at %2 did not verify: relative error %3")
                     .arg(counted, formatShape(result.shape))
                     .arg(result.verification->relError, 0, 'e', 2));
  }
}

void QueueController::onRunFailed(const RunJob& job, const RunFailure& failure) {
  const QString kind =
      failure.kind ? QString::fromLatin1(toString(*failure.kind)) : tr("unexpected error");
  emit problem(tr("%1 failed (%2): %3").arg(describe(job), kind, failure.message));
}

void QueueController::onQueueFinished(const QueueSummary& summary) {
  const QString runs = summary.completed == 1 ? tr("1 run") : tr("%1 runs").arg(summary.completed);
  QString text = summary.cancelled ? tr("Cancelled after %1").arg(runs) : tr("Done: %1").arg(runs);
  if (summary.failed > 0) text += tr(", %1 failed").arg(summary.failed);
  text += tr(" in %1.").arg(formatDuration(summary.seconds));
  if (!countersNote_.isEmpty()) text += QLatin1Char(' ') + std::exchange(countersNote_, {});
  emit status(text, 0);
}

void QueueController::onServerLost(const QString& server, const QString& why, int waiting) {
  // `why` names the server already ("server gpu1: the connection was lost: ...").
  QString said = why;
  if (!said.isEmpty()) said[0] = said[0].toUpper();
  const QString notice =
      tr("%1. Holding %2 until it is back (Cancel drops them).").arg(said, countedRuns(waiting));
  lostNotices_[server] = notice;
  emit problem(notice);
}

void QueueController::onServerBack(const QString& server, int waiting) {
  if (lostNotices_.contains(server)) emit problemSolved(lostNotices_.take(server));
  emit status(tr("Server %1 is back: going on with %2.").arg(server, countedRuns(waiting)), 10000);
}

}  // namespace tilescope::desktop
