// SPDX-License-Identifier: GPL-3.0-or-later
#include "run_controller.hpp"

#include <algorithm>

#include "run_worker.hpp"

namespace tilescope::desktop {
namespace {

// The estimate of the time left weighs each run by its work plus a fixed overhead (warm-up,
// verification, allocation), so a size sweep's large runs count for more than its small ones.
constexpr double kOverheadFlops = 2.0 * 128 * 128 * 128;
// A ceilings measurement or an exercise's check takes a few seconds, about as long as a 4096^3
// run.
constexpr double kSecondsLongFlops = 2.0 * 4096 * 4096 * 4096;

double weightOf(const RunJob& job) {
  if (job.kind == JobKind::Ceilings || job.kind == JobKind::Check) return kSecondsLongFlops;
  return job.request.shape.flops() + kOverheadFlops;
}

// Below this much elapsed time the rate is mostly noise.
constexpr double kMinSecondsForEstimate = 0.25;

}  // namespace

RunController::RunController(QObject* parent, std::vector<remote::ServerAddress> servers)
    : QObject(parent) {
  registerMetaTypes();
  qRegisterMetaType<QueueProgress>();
  qRegisterMetaType<QueueSummary>();
  worker_ = new RunWorker(&cancel_);
  worker_->moveToThread(&thread_);
  thread_.setObjectName(QStringLiteral("tilescope-worker"));
  connect(&thread_, &QThread::finished, worker_, &QObject::deleteLater);
  connect(worker_, &RunWorker::backendsProbed, this, &RunController::onBackendsProbed);
  connect(worker_, &RunWorker::progress, this, &RunController::onProgress);
  connect(worker_, &RunWorker::finished, this, &RunController::onFinished);
  connect(worker_, &RunWorker::ceilingsMeasured, this, &RunController::onCeilingsMeasured);
  connect(worker_, &RunWorker::traced, this, &RunController::onTraced);
  connect(worker_, &RunWorker::checked, this, &RunController::onChecked);
  connect(worker_, &RunWorker::failed, this, &RunController::onFailed);
  thread_.start();
  QMetaObject::invokeMethod(
      worker_, [worker = worker_, servers = std::move(servers)] { worker->probe(servers); },
      Qt::QueuedConnection);
}

void RunController::setServers(const std::vector<remote::ServerAddress>& servers) {
  if (shutDown_) return;
  QMetaObject::invokeMethod(
      worker_, [worker = worker_, servers] { worker->setServers(servers); }, Qt::QueuedConnection);
}

RunController::~RunController() {
  shutdown();
}

const BackendSummary* RunController::backend(const std::string& id) const {
  for (const BackendSummary& summary : backends_) {
    if (summary.id == id) return &summary;
  }
  return nullptr;
}

void RunController::enqueue(const std::vector<RunJob>& jobs) {
  if (shutDown_ || jobs.empty()) return;
  pending_.insert(pending_.end(), jobs.begin(), jobs.end());
  if (!busy()) {
    startPass();
    emit busyChanged(true);
  } else {
    emit progressChanged(progressOf(0, QString()));
  }
}

void RunController::cancel() {
  pending_.clear();
  if (busy()) cancel_ = true;
}

void RunController::shutdown() {
  if (shutDown_) return;
  shutDown_ = true;
  cancel();
  thread_.quit();
  thread_.wait();
}

void RunController::onBackendsProbed(const std::vector<BackendSummary>& backends) {
  backends_ = backends;
  backendsKnown_ = true;
  emit backendsChanged();
}

void RunController::startPass() {
  pass_ = {};
  doneWeight_ = 0;
  passClock_.start();
  dispatchNext();
}

void RunController::dispatchNext() {
  cancel_ = false;
  current_ = pending_.front();
  pending_.pop_front();
  ++ticket_;
  emit progressChanged(progressOf(0, QStringLiteral("queued")));
  const quint64 ticket = ticket_;
  const RunJob job = *current_;
  QMetaObject::invokeMethod(
      worker_, [worker = worker_, ticket, job] { worker->execute(ticket, job); },
      Qt::QueuedConnection);
}

QueueProgress RunController::progressOf(double currentFraction, const QString& stage) const {
  QueueProgress progress;
  const int ended = pass_.completed + pass_.failed;
  progress.total = ended + int(pending_.size()) + (current_ ? 1 : 0);
  progress.position = ended + (current_ ? 1 : 0);
  progress.stage = stage;
  double currentWeight = 0, pendingWeight = 0;
  if (current_) {
    progress.current = describe(*current_);
    currentWeight = weightOf(*current_);
  }
  for (const RunJob& job : pending_) pendingWeight += weightOf(job);
  const double doneWeight = doneWeight_ + currentWeight * currentFraction;
  const double totalWeight = doneWeight_ + currentWeight + pendingWeight;
  progress.fraction = totalWeight > 0 ? doneWeight / totalWeight : 0;
  const double elapsed = passClock_.isValid() ? passClock_.elapsed() / 1000.0 : 0;
  if (doneWeight > 0 && elapsed >= kMinSecondsForEstimate) {
    progress.secondsLeft = elapsed * (totalWeight - doneWeight) / doneWeight;
  }
  return progress;
}

void RunController::onProgress(quint64 ticket, double fraction, const QString& stage) {
  if (shutDown_ || ticket != ticket_ || !current_) return;
  emit progressChanged(progressOf(std::clamp(fraction, 0.0, 1.0), stage));
}

void RunController::onFinished(quint64 ticket, const RunResult& result) {
  if (shutDown_ || ticket != ticket_ || !current_) return;
  ++pass_.completed;
  emit resultReady(result);
  endCurrent();
}

void RunController::onCeilingsMeasured(quint64 ticket, const DeviceCeilings& ceilings) {
  if (shutDown_ || ticket != ticket_ || !current_) return;
  ++pass_.completed;
  emit ceilingsReady(ceilings);
  endCurrent();
}

void RunController::onTraced(quint64 ticket, const KernelTrace& trace) {
  if (shutDown_ || ticket != ticket_ || !current_) return;
  ++pass_.completed;
  emit traceReady(trace);
  endCurrent();
}

void RunController::onChecked(quint64 ticket, const exercise::SubmissionReport& report) {
  if (shutDown_ || ticket != ticket_ || !current_) return;
  ++pass_.completed;
  emit checkReady(report);
  endCurrent();
}

void RunController::onFailed(quint64 ticket, const RunFailure& failure) {
  if (shutDown_ || ticket != ticket_ || !current_) return;
  if (failure.cancelled()) {
    pass_.cancelled = true;
  } else {
    ++pass_.failed;
    emit runFailed(*current_, failure);
  }
  endCurrent();
}

void RunController::endCurrent() {
  doneWeight_ += weightOf(*current_);
  current_.reset();
  // A cancel that came after the last launch of a run still ends the pass.
  pass_.cancelled = pass_.cancelled || cancel_;
  if (!pending_.empty() && !pass_.cancelled) {
    dispatchNext();
    return;
  }
  pass_.seconds = passClock_.elapsed() / 1000.0;
  const QueueSummary summary = pass_;
  cancel_ = false;
  if (!pending_.empty()) {
    // Runs queued after a cancel start a pass of their own.
    emit queueFinished(summary);
    startPass();
    return;
  }
  emit progressChanged(progressOf(0, QString()));
  emit busyChanged(false);
  emit queueFinished(summary);
}

}  // namespace tilescope::desktop
