// SPDX-License-Identifier: GPL-3.0-or-later
#include "run_controller.hpp"

#include <algorithm>

#include "formatting.hpp"
#include "run_worker.hpp"
#include "tilescope/remote/reconnect.hpp"

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

struct RunController::Lane {
  std::optional<remote::ServerAddress> server;  // nullopt: a local lane
  std::string serverId;                         // the server's backend id ("cuda@gpu1")
  // A device lane's device: it takes the any-device runs of backend `serverId` (for a local one,
  // "cuda") and runs them on this device.
  std::optional<int> device;
  QThread thread;
  RunWorker* worker = nullptr;  // lives on `thread`; deleted there when it finishes
  QObject receiver;             // the context of the worker's signals: none arrive once it goes
  std::atomic<bool> cancel{false};
  std::vector<BackendSummary> summaries;
  bool probed = false;

  std::optional<RunJob> current;
  quint64 ticket = 0;
  double fraction = 0;
  QString stage;
  int retries = 0;       // how often the current job was made again after a lost connection
  int frontRetries = 0;  // the same for the lane's first waiting job

  bool waiting = false;  // for its lost server
  int attempt = 0;       // tries to connect again since the loss
  QTimer retryTimer;
  bool retiring = false;  // removed by setServers; goes when its job ends

  QString name() const {
    if (device) return RunController::tr("%1 device %2").arg(text(serverId)).arg(*device);
    return text(server ? server->name : std::string("local"));
  }
  // Whether `job` is for this lane's server (the local lane takes every other job), or for a
  // device lane, an any-device run of its backend.
  bool serves(const RunJob& job) const {
    if (device) return job.anyDevice && job.backend == serverId;
    return server && job.backend == serverId;
  }
};

RunController::RunController(QObject* parent, std::vector<remote::ServerAddress> servers)
    : QObject(parent) {
  registerMetaTypes();
  qRegisterMetaType<QueueProgress>();
  qRegisterMetaType<QueueSummary>();
  std::vector<remote::ServerAddress> named;
  for (const remote::ServerAddress& server : servers)
    (server.name.empty() ? isolating_ : named).push_back(server);
  addLane(std::nullopt);
  for (const remote::ServerAddress& server : named) addLane(server);
}

RunController::~RunController() {
  shutdown();
}

RunController::Lane& RunController::addLane(const std::optional<remote::ServerAddress>& server,
                                            bool start) {
  Lane& lane = *lanes_.emplace_back(std::make_unique<Lane>());
  lane.server = server;
  if (server) lane.serverId = remote::backendIdOf(*server);
  lane.worker = new RunWorker(&lane.cancel);
  lane.worker->moveToThread(&lane.thread);
  lane.thread.setObjectName(QStringLiteral("tilescope-%1").arg(lane.name()));
  connect(&lane.thread, &QThread::finished, lane.worker, &QObject::deleteLater);
  Lane* at = &lane;
  QObject* context = &lane.receiver;
  connect(lane.worker, &RunWorker::backendsProbed, context,
          [this, at](const std::vector<BackendSummary>& b) { onBackendsProbed(*at, b); });
  connect(lane.worker, &RunWorker::progress, context,
          [this, at](quint64 t, double f, const QString& s) { onProgress(*at, t, f, s); });
  connect(lane.worker, &RunWorker::finished, context, [this, at](quint64 t, const RunResult& r) {
    onEnded(*at, t, [this, r] { emit resultReady(r); });
  });
  connect(lane.worker, &RunWorker::ceilingsMeasured, context,
          [this, at](quint64 t, const DeviceCeilings& c) {
            onEnded(*at, t, [this, c] { emit ceilingsReady(c); });
          });
  connect(lane.worker, &RunWorker::traced, context, [this, at](quint64 t, const KernelTrace& k) {
    onEnded(*at, t, [this, k] { emit traceReady(k); });
  });
  connect(lane.worker, &RunWorker::checked, context,
          [this, at](quint64 t, const exercise::SubmissionReport& r) {
            onEnded(*at, t, [this, r] { emit checkReady(r); });
          });
  connect(lane.worker, &RunWorker::failed, context,
          [this, at](quint64 t, const RunFailure& f) { onFailed(*at, t, f); });
  connect(lane.worker, &RunWorker::reconnectTried, context,
          [this, at](bool back, const QString& why) { onReconnectTried(*at, back, why); });
  lane.retryTimer.setSingleShot(true);
  connect(&lane.retryTimer, &QTimer::timeout, context, [at] {
    QMetaObject::invokeMethod(at->worker, &RunWorker::reconnect, Qt::QueuedConnection);
  });
  lane.thread.start();
  if (!start) {
    // addDeviceLane starts it.
  } else if (server) {
    QMetaObject::invokeMethod(
        lane.worker, [worker = lane.worker, address = *server] { worker->serve(address); },
        Qt::QueuedConnection);
  } else {
    QMetaObject::invokeMethod(
        lane.worker, [worker = lane.worker, isolating = isolating_] { worker->probe(isolating); },
        Qt::QueuedConnection);
  }
  return lane;
}

void RunController::removeLaterLane(Lane& lane) {
  // Not from within the lane's own signal: its receiver goes with it.
  QMetaObject::invokeMethod(
      this, [this, at = &lane] { removeLane(*at); }, Qt::QueuedConnection);
}

void RunController::removeLane(Lane& lane) {
  lane.cancel = true;  // a server still starting stops waiting for its hello
  lane.thread.quit();
  lane.thread.wait();
  const auto found = std::find_if(lanes_.begin(), lanes_.end(),
                                  [&](const std::unique_ptr<Lane>& l) { return l.get() == &lane; });
  lanes_.erase(found);
}

RunController::Lane& RunController::addDeviceLane(
    const std::string& backend, int device, const std::optional<remote::ServerAddress>& server) {
  // Built as a server's lane, then made a device lane before its worker is asked anything.
  Lane& lane = addLane(server, /*serve=*/false);
  lane.serverId = backend;
  lane.device = device;
  if (server) {
    QMetaObject::invokeMethod(
        lane.worker, [worker = lane.worker, address = *server] { worker->serve(address); },
        Qt::QueuedConnection);
  } else {
    QMetaObject::invokeMethod(
        lane.worker, [worker = lane.worker, backend] { worker->own(backend); },
        Qt::QueuedConnection);
  }
  return lane;
}

void RunController::prepareSpread(RunJob& job) {
  if (!job.anyDevice) return;
  const auto known = knownDevices_.find(job.backend);
  const int devices = known == knownDevices_.end() ? 0 : known->second;
  if (devices < 2) {
    job.anyDevice = false;
    return;
  }
  job.heldOrder = ++nextHeldOrder_;
  heldOrder_.push_back(job.heldOrder);
  if (hasDeviceLanes(job.backend)) return;
  std::optional<remote::ServerAddress> server;
  if (const Lane* named = laneOf(job.backend)) server = named->server;
  for (const remote::ServerAddress& isolated : isolating_)
    if (remote::backendIdOf(isolated) == job.backend) server = isolated;
  for (int device = 0; device < devices; ++device) addDeviceLane(job.backend, device, server);
}

bool RunController::hasDeviceLanes(const std::string& backend) const {
  return std::any_of(lanes_.begin(), lanes_.end(), [&](const std::unique_ptr<Lane>& lane) {
    return lane->device && !lane->retiring && lane->serverId == backend;
  });
}

bool RunController::takes(const Lane& lane, const RunJob& job) const {
  if (lane.device) return lane.serves(job);
  if (job.anyDevice && hasDeviceLanes(job.backend)) return false;
  return &laneFor(job) == &lane;
}

const RunController::Lane& RunController::laneFor(const RunJob& job) const {
  for (const std::unique_ptr<Lane>& lane : lanes_)
    if (!lane->retiring && !lane->device && lane->serves(job)) return *lane;
  return *lanes_.front();
}

RunController::Lane* RunController::laneOf(const std::string& serverId) {
  for (const std::unique_ptr<Lane>& lane : lanes_)
    if (!lane->retiring && lane->server && !lane->device && lane->serverId == serverId)
      return lane.get();
  return nullptr;
}

void RunController::deliver(const RunJob& job, std::function<void()> emitIt) {
  if (!job.heldOrder) {
    emitIt();
    return;
  }
  held_[job.heldOrder] = std::move(emitIt);
  flushHeld();
}

void RunController::forget(const RunJob& job) {
  if (!job.heldOrder) return;
  heldOrder_.erase(std::remove(heldOrder_.begin(), heldOrder_.end(), job.heldOrder),
                   heldOrder_.end());
  flushHeld();
}

void RunController::flushHeld() {
  while (!heldOrder_.empty()) {
    const auto found = held_.find(heldOrder_.front());
    if (found == held_.end()) return;
    const std::function<void()> emitIt = std::move(found->second);
    held_.erase(found);
    heldOrder_.pop_front();
    emitIt();
  }
}

void RunController::setServers(const std::vector<remote::ServerAddress>& servers) {
  if (shutDown_) return;
  std::vector<remote::ServerAddress> isolating, named;
  for (const remote::ServerAddress& server : servers)
    (server.name.empty() ? isolating : named).push_back(server);
  if (isolating != isolating_) {
    // The local lane's child servers (the CUDA backend isolated from the window).
    isolating_ = isolating;
    QMetaObject::invokeMethod(
        lanes_.front()->worker,
        [worker = lanes_.front()->worker, isolating] { worker->setServers(isolating); },
        Qt::QueuedConnection);
  }
  // A server whose address changed, or that is gone, leaves its lane.
  for (const std::unique_ptr<Lane>& lane : lanes_) {
    const std::vector<remote::ServerAddress>& kept =
        lane->server && lane->server->name.empty() ? isolating : named;
    if (!lane->server || lane->retiring ||
        std::find(kept.begin(), kept.end(), *lane->server) != kept.end())
      continue;
    lane->retiring = true;
    lane->waiting = false;
    lane->retryTimer.stop();
    if (lane->current) lane->cancel = true;  // it goes when that job ends
  }
  for (const remote::ServerAddress& server : named)
    if (!laneOf(remote::backendIdOf(server))) addLane(server);
  // Runs for a server no lane takes any more fail; a changed server's go to its new lane.
  for (const std::unique_ptr<Lane>& lane : lanes_)
    if (lane->retiring && !laneOf(lane->serverId) && !hasDeviceLanes(lane->serverId))
      failWaiting(*lane, tr("not run: server %1 was removed").arg(lane->name()));
  // A changed server's any-device runs go to its new lane, on one device.
  for (RunJob& job : pending_)
    if (job.anyDevice && !hasDeviceLanes(job.backend)) job.anyDevice = false;
  for (auto lane = lanes_.begin(); lane != lanes_.end();) {
    if ((*lane)->retiring && !(*lane)->current) {
      (*lane)->cancel = true;
      (*lane)->thread.quit();
      (*lane)->thread.wait();
      lane = lanes_.erase(lane);
    } else {
      ++lane;
    }
  }
  onBackendsProbed(*lanes_.front(), lanes_.front()->summaries);
  dispatch();
}

void RunController::connectServer(const std::string& id) {
  Lane* lane = laneOf(id);
  if (!lane || lane->current || lane->waiting) return;
  QMetaObject::invokeMethod(lane->worker, &RunWorker::connectServer, Qt::QueuedConnection);
}

const BackendSummary* RunController::backend(const std::string& id) const {
  for (const BackendSummary& summary : backends_) {
    if (summary.id == id) return &summary;
  }
  return nullptr;
}

bool RunController::busy() const {
  return passOpen_;
}

bool RunController::workerRunning() const {
  return !lanes_.empty() && lanes_.front()->thread.isRunning();
}

void RunController::enqueue(const std::vector<RunJob>& jobs) {
  if (shutDown_ || jobs.empty()) return;
  for (RunJob job : jobs) {
    prepareSpread(job);
    pending_.push_back(std::move(job));
  }
  if (!passOpen_) {
    startPass();
    emit busyChanged(true);
  } else {
    dispatch();
  }
}

void RunController::cancel() {
  for (const RunJob& job : std::exchange(pending_, {})) forget(job);
  if (!passOpen_) return;
  pass_.cancelled = true;
  for (const std::unique_ptr<Lane>& lane : lanes_) {
    lane->waiting = false;
    lane->retryTimer.stop();
    lane->frontRetries = 0;
    if (lane->current) lane->cancel = true;
  }
  dispatch();
}

void RunController::shutdown() {
  if (shutDown_) return;
  cancel();
  shutDown_ = true;
  for (const std::unique_ptr<Lane>& lane : lanes_) {
    lane->cancel = true;  // also a server still starting
    lane->thread.quit();
  }
  for (const std::unique_ptr<Lane>& lane : lanes_) lane->thread.wait();
}

void RunController::onBackendsProbed(Lane& lane, const std::vector<BackendSummary>& backends) {
  if (shutDown_ || lane.device) return;  // a device lane's backend is listed by its own lane
  lane.summaries = backends;
  if (!lane.server && !backends.empty()) lane.probed = true;
  backends_.clear();
  for (const std::unique_ptr<Lane>& each : lanes_)
    if (!each->retiring)
      backends_.insert(backends_.end(), each->summaries.begin(), each->summaries.end());
  // A server closed when idle lists no devices: how many it had still counts for All GPUs.
  for (const BackendSummary& summary : backends_)
    if (summary.available()) knownDevices_[summary.id] = int(summary.devices.size());
  backendsKnown_ = lanes_.front()->probed;
  if (backendsKnown_) emit backendsChanged();
}

void RunController::startPass() {
  passOpen_ = true;
  pass_ = {};
  doneWeight_ = 0;
  passClock_.start();
  dispatch();
}

void RunController::dispatch() {
  if (!passOpen_ || shutDown_) return;
  if (!pass_.cancelled) {
    for (const std::unique_ptr<Lane>& lane : lanes_) {
      if (lane->current || lane->waiting || lane->retiring) continue;
      const auto next = std::find_if(pending_.begin(), pending_.end(),
                                     [&](const RunJob& job) { return takes(*lane, job); });
      if (next == pending_.end()) continue;
      lane->cancel = false;
      lane->current = *next;
      if (lane->device) lane->current->request.device = *lane->device;
      pending_.erase(next);
      lane->ticket = ++nextTicket_;
      lane->retries = std::exchange(lane->frontRetries, 0);
      lane->fraction = 0;
      lane->stage = tr("queued");
      QMetaObject::invokeMethod(
          lane->worker,
          [worker = lane->worker, ticket = lane->ticket, job = *lane->current] {
            worker->execute(ticket, job);
          },
          Qt::QueuedConnection);
    }
  }
  const bool running = std::any_of(lanes_.begin(), lanes_.end(),
                                   [](const std::unique_ptr<Lane>& lane) { return lane->current; });
  // Runs that wait for a lost server keep the pass open.
  if (running || (!pass_.cancelled && !pending_.empty())) {
    emit progressChanged(progressOf());
    return;
  }
  endPass();
}

void RunController::endPass() {
  // Every spread run was delivered or forgotten; what is held here would be a run lost track of.
  Q_ASSERT(held_.empty());
  pass_.seconds = passClock_.elapsed() / 1000.0;
  const QueueSummary summary = pass_;
  passOpen_ = false;
  if (!pending_.empty()) {
    // Runs queued after a cancel start a pass of their own.
    emit queueFinished(summary);
    startPass();
    return;
  }
  emit progressChanged(progressOf());
  emit busyChanged(false);
  emit queueFinished(summary);
}

QueueProgress RunController::progressOf() const {
  QueueProgress progress;
  const int ended = pass_.completed + pass_.failed;
  double doneWeight = doneWeight_, totalWeight = doneWeight_;
  const Lane* first = nullptr;
  int running = 0, others = 0;  // others: on lanes that are not device lanes
  for (const std::unique_ptr<Lane>& lane : lanes_) {
    if (lane->waiting) {
      const int left =
          lane->retryTimer.isActive() ? (lane->retryTimer.remainingTime() + 999) / 1000 : -1;
      const QString held = countedRuns(waitingOn(*lane));
      progress.waiting << (left < 0
                               ? tr("%1: holding %2 until the server is back (connecting\u2026)")
                                     .arg(lane->name(), held)
                               : tr("%1: holding %2 until the server is back (connecting again "
                                    "in %3 s)")
                                     .arg(lane->name(), held)
                                     .arg(left));
    }
    if (!lane->current) continue;
    if (lane->device) {
      progress.onDevices
          << tr("%1: %2 (%3)").arg(lane->name(), describe(*lane->current), lane->stage);
    } else {
      ++others;
    }
    ++running;
    if (!first) first = lane.get();
    doneWeight += weightOf(*lane->current) * lane->fraction;
    totalWeight += weightOf(*lane->current);
  }
  for (const RunJob& job : pending_) totalWeight += weightOf(job);
  progress.total = ended + int(pending_.size()) + running;
  progress.position = ended + (running > 0 ? 1 : 0);
  progress.alsoRunning = progress.onDevices.isEmpty() ? std::max(0, running - 1) : others;
  if (first) {
    progress.current = describe(*first->current);
    progress.stage = first->stage;
  }
  progress.fraction = totalWeight > 0 ? doneWeight / totalWeight : 0;
  const double elapsed = passClock_.isValid() ? passClock_.elapsed() / 1000.0 : 0;
  if (doneWeight > 0 && elapsed >= kMinSecondsForEstimate)
    progress.secondsLeft = elapsed * (totalWeight - doneWeight) / doneWeight;
  return progress;
}

void RunController::onProgress(Lane& lane, quint64 ticket, double fraction, const QString& stage) {
  if (shutDown_ || ticket != lane.ticket || !lane.current) return;
  lane.fraction = std::clamp(fraction, 0.0, 1.0);
  lane.stage = stage;
  emit progressChanged(progressOf());
}

void RunController::onEnded(Lane& lane, quint64 ticket, std::function<void()> emitIt) {
  if (shutDown_ || ticket != lane.ticket || !lane.current) return;
  ++pass_.completed;
  deliver(*lane.current, std::move(emitIt));
  doneWeight_ += weightOf(*lane.current);
  lane.current.reset();
  // A cancel that came after the last launch of a run still ends the pass.
  if (lane.cancel) pass_.cancelled = true;
  if (lane.retiring) removeLaterLane(lane);
  dispatch();
}

void RunController::onFailed(Lane& lane, quint64 ticket, const RunFailure& failure) {
  if (shutDown_ || ticket != lane.ticket || !lane.current) return;
  const RunJob job = *std::exchange(lane.current, std::nullopt);
  const bool lost =
      failure.server == ServerTrouble::Lost && lane.server && !lane.retiring && !pass_.cancelled;
  if (failure.cancelled()) {
    pass_.cancelled = true;
    forget(job);
  } else if (lost && lane.retries < remote::kRunRetriesAfterLoss) {
    // The run the loss interrupted is made again once the server is back.
    pending_.push_front(job);
    lane.frontRetries = lane.retries + 1;
  } else {
    ++pass_.failed;
    doneWeight_ += weightOf(job);
    RunFailure told = failure;
    if (lost)
      told.message += tr(" (the connection was lost again when the run was made once more)");
    deliver(job, [this, job, told] { emit runFailed(job, told); });
    if (failure.server == ServerTrouble::Unreachable && lane.server)
      failWaiting(lane, tr("not run: %1").arg(failure.message));
  }
  if (lost) waitForServer(lane, failure.message);
  if (lane.retiring) removeLaterLane(lane);
  dispatch();
}

void RunController::waitForServer(Lane& lane, const QString& why) {
  lane.waiting = true;
  lane.attempt = 0;
  emit serverLost(lane.name(), why, waitingOn(lane));
  tryAgainLater(lane);
}

void RunController::tryAgainLater(Lane& lane) {
  ++lane.attempt;
  lane.retryTimer.start(std::chrono::milliseconds(remote::reconnectDelay(lane.attempt)));
}

void RunController::onReconnectTried(Lane& lane, bool back, const QString&) {
  if (shutDown_ || !lane.waiting) return;  // cancelled meanwhile
  if (!back) {
    tryAgainLater(lane);
    emit progressChanged(progressOf());
    return;
  }
  lane.waiting = false;
  emit serverBack(lane.name(), waitingOn(lane));
  dispatch();
}

void RunController::failWaiting(Lane& lane, const QString& why) {
  for (auto job = pending_.begin(); job != pending_.end();) {
    if (!lane.serves(*job)) {
      ++job;
      continue;
    }
    const RunJob failedJob = *job;
    job = pending_.erase(job);
    ++pass_.failed;
    doneWeight_ += weightOf(failedJob);
    deliver(failedJob, [this, failedJob, why] {
      emit runFailed(failedJob,
                     RunFailure{ErrorKind::Unavailable, why, ServerTrouble::Unreachable});
    });
  }
  lane.frontRetries = 0;
}

int RunController::waitingOn(const Lane& lane) const {
  return int(std::count_if(pending_.begin(), pending_.end(),
                           [&](const RunJob& job) { return lane.serves(job); }));
}

}  // namespace tilescope::desktop
