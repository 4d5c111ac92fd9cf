// SPDX-License-Identifier: GPL-3.0-or-later
#include "run_worker.hpp"

#include <algorithm>
#include <new>

#include "result_analysis.hpp"
#include "servers.hpp"

namespace tilescope::desktop {
namespace {

// Progress arrives once per repetition; a few updates a second keep the window responsive
// without flooding its event queue on tiny problems.
constexpr qint64 kProgressIntervalMs = 50;

}  // namespace

RunWorker::RunWorker(const std::atomic<bool>* cancel) : cancel_(cancel) {}

RunWorker::~RunWorker() = default;

void RunWorker::probe(const std::vector<remote::ServerAddress>& servers) {
  const auto replaced = [&](const std::string& id) {
    return std::any_of(servers.begin(), servers.end(), [&](const remote::ServerAddress& s) {
      return remote::backendIdOf(s) == id;
    });
  };
  for (const std::string& id : backendIds()) {
    if (replaced(id)) continue;  // runs in a child server instead
    order_.push_back(id);
    try {
      backends_[id] = makeBackend(id);
    } catch (const Error& error) {
      lostReasons_[id] = error.what();
    }
  }
  setServers(servers);
}

void RunWorker::setServers(const std::vector<remote::ServerAddress>& servers) {
  for (const std::string& id : serverIds_) {
    backends_.erase(id);
    lostReasons_.erase(id);
    order_.erase(std::find(order_.begin(), order_.end(), id));
  }
  serverIds_.clear();
  for (const remote::ServerAddress& server : servers) {
    const std::string id = remote::backendIdOf(server);
    if (backends_.count(id)) continue;  // an in-process backend of that id was kept
    backends_[id] = std::make_unique<remote::RemoteBackend>(server);
    serverIds_.push_back(id);
    order_.push_back(id);
  }
  // The local backends are ready now; a server may take a while to answer.
  if (!serverIds_.empty()) emit backendsProbed(summaries(false));
  emit backendsProbed(summaries());
}

void RunWorker::serve(const remote::ServerAddress& server) {
  const std::string id = remote::backendIdOf(server);
  auto backend = std::make_unique<remote::RemoteBackend>(server, cancel_);
  served_ = backend.get();
  backends_[id] = std::move(backend);
  serverIds_ = {id};
  order_ = {id};
  if (server.idleClose.count() > 0) {
    idleClose_ = new QTimer(this);
    idleClose_->setSingleShot(true);
    idleClose_->setInterval(int(server.idleClose.count()));
    connect(idleClose_, &QTimer::timeout, this, [this] {
      served_->close();
      emit backendsProbed(summaries());
    });
  }
  emit backendsProbed(summaries());
}

void RunWorker::own(const std::string& id) {
  order_ = {id};
  try {
    backends_[id] = makeBackend(id);
  } catch (const Error& error) {
    lostReasons_[id] = error.what();
  }
}

bool RunWorker::connectServed() {
  if (served_->isConnected()) return true;
  BackendSummary connecting;
  connecting.id = served_->id();
  connecting.unavailableReason = "connecting to the server\u2026";
  connecting.connecting = true;
  emit backendsProbed({connecting});
  const std::optional<std::string> reason = served_->unavailableReason();  // connects
  if (served_->isConnected()) {
    connectFailure_.reset();
    if (idleClose_) idleClose_->start();
  } else if (cancel_->load()) {
    connectFailure_.reset();  // stopped: dormant again
  } else {
    connectFailure_ = reason;
  }
  emit backendsProbed(summaries());
  return served_->isConnected();
}

void RunWorker::connectServer() {
  if (served_) connectServed();
}

void RunWorker::reconnect() {
  if (!served_) return;
  const bool back = connectServed();
  emit reconnectTried(back,
                      back ? QString() : QString::fromStdString(connectFailure_.value_or("")));
}

BackendSummary RunWorker::notRunning(const std::string& id) const {
  BackendSummary summary;
  summary.id = id;
  // Not running is dormant: a lost server stays chosen while its lane connects again, and after a
  // cancel the next run starts it.
  summary.dormant = true;
  if (const auto& lost = served_->lostConnection()) {
    summary.unavailableReason = *lost;
  } else if (connectFailure_) {
    summary.unavailableReason = "could not connect: " + *connectFailure_ +
                                " (choose the backend again, or run, to try again)";
  } else {
    summary.unavailableReason =
        "not connected: the server starts when chosen or when a run needs it";
  }
  return summary;
}

ServerTrouble RunWorker::troubleAfter(const Error& error) const {
  if (!served_ || error.kind() != ErrorKind::Unavailable) return ServerTrouble::None;
  if (served_->lostConnection()) return ServerTrouble::Lost;
  return served_->isConnected() ? ServerTrouble::None : ServerTrouble::Unreachable;
}

std::vector<BackendSummary> RunWorker::summaries(bool connectServers) const {
  std::vector<BackendSummary> list;
  for (const std::string& id : order_) {
    BackendSummary summary;
    summary.id = id;
    const bool server = std::find(serverIds_.begin(), serverIds_.end(), id) != serverIds_.end();
    if (const auto lost = lostReasons_.find(id); lost != lostReasons_.end()) {
      summary.unavailableReason = lost->second;
    } else if (served_ && !served_->isConnected()) {
      summary = notRunning(id);
    } else if (server && !connectServers) {
      summary.unavailableReason = "connecting to the server\u2026";
      summary.connecting = true;
    } else if (const auto found = backends_.find(id); found != backends_.end()) {
      const Backend& backend = *found->second;
      summary.unavailableReason = backend.unavailableReason();
      if (summary.available()) {
        summary.devices = backend.devices();
        // The library reference multiplies every type, so what is refused for it on a tiny
        // problem is the backend's own limit.
        for (const ElementType element : kElementTypes)
          if (auto why = backend.refusal({kLibraryKernel, {}}, {1, 1, 1}, element))
            summary.elementRefusals[element] = *why;
      }
    }
    list.push_back(summary);
  }
  return list;
}

Backend& RunWorker::backendFor(const std::string& id) {
  if (const auto lost = lostReasons_.find(id); lost != lostReasons_.end()) {
    throw Error(ErrorKind::Unavailable, "backend " + id + ": " + lost->second);
  }
  const auto found = backends_.find(id);
  if (found == backends_.end()) {
    throw Error(ErrorKind::InvalidArgument, "unknown backend '" + id + "'");
  }
  if (const auto reason = found->second->unavailableReason()) {
    throw Error(ErrorKind::Unavailable, "backend " + id + " is unavailable: " + *reason);
  }
  return *found->second;
}

Backend& RunWorker::userKernelBackendFor(const std::string& id) {
  // A user kernel runs in a child process, a local run server of the same backend: a crash, a
  // fault or a kernel that never ends fails that run alone. A run server is a child already.
  try {
    backendFor(id);
  } catch (const Error& error) {
    if (error.kind() != ErrorKind::Unavailable || id != "cuda") throw;
    throw Error(ErrorKind::Unavailable,
                std::string("running a kernel of your own on a GPU needs a CUDA GPU: ") +
                    error.what() +
                    ". The editor still compiles it here, and the cpu backend runs its SIMT "
                    "kernels; to run it on a GPU, add a GPU server (Backend > GPU Server...)");
  }
  if (std::find(serverIds_.begin(), serverIds_.end(), id) != serverIds_.end())
    return backendFor(id);
  std::unique_ptr<remote::RemoteBackend>& child = userKernelServers_[id];
  if (!child)
    child = std::make_unique<remote::RemoteBackend>(
        remote::ServerAddress{"", localServerCommand().toStdString(), id});
  return *child;
}

void RunWorker::execute(quint64 ticket, const RunJob& job) {
  if (idleClose_) idleClose_->stop();
  try {
    if (served_ && !connectServed() && cancel_->load())
      throw Error(ErrorKind::Cancelled, "stopped while connecting to the server");
    if (served_ && !served_->isConnected())
      throw Error(ErrorKind::Unavailable,
                  "server " + served_->address().name +
                      " could not be reached: " + connectFailure_.value_or("no reason given"));
    Backend& backend =
        job.request.kernel.source ? userKernelBackendFor(job.backend) : backendFor(job.backend);
    if (job.kind == JobKind::Ceilings) {
      emit ceilingsMeasured(ticket, measureOn(backend, ticket, job));
    } else if (job.kind == JobKind::Trace) {
      const TraceRequest request{job.request.kernel, job.request.shape, job.request.device,
                                 job.traceBlock, job.request.element};
      emit traced(ticket, backend.trace(request, progressFor(ticket), cancel_));
    } else if (job.kind == JobKind::Check) {
      emit checked(ticket, checkOn(backend, ticket, job));
    } else {
      emit finished(ticket, runOn(backend, ticket, job));
    }
  } catch (const Error& error) {
    if (error.kind() == ErrorKind::DeviceLost) {
      // A sticky fault: every later call on this backend would fail until the process restarts.
      lostReasons_[job.backend] =
          std::string("the device was lost (") + error.what() + "); restart TileScope to use it";
      backends_.erase(job.backend);
      emit backendsProbed(summaries());
    }
    const ServerTrouble trouble = troubleAfter(error);
    // A lost server reads as such in the picker until it is back.
    if (trouble == ServerTrouble::Lost) emit backendsProbed(summaries());
    emit failed(ticket, RunFailure{error.kind(), QString::fromStdString(error.what()), trouble});
  } catch (const std::bad_alloc&) {
    emit failed(ticket, RunFailure{ErrorKind::OutOfMemory,
                                   QStringLiteral("host memory would not hold this problem")});
  } catch (const std::exception& error) {
    emit failed(ticket, RunFailure{std::nullopt, QString::fromUtf8(error.what())});
  }
  if (idleClose_ && served_->isConnected()) idleClose_->start();
}

ProgressFn RunWorker::progressFor(quint64 ticket) {
  sinceProgress_.start();
  emit progress(ticket, 0.0, QStringLiteral("starting"));
  return [this, ticket](double fraction, const std::string& stage) {
    if (sinceProgress_.elapsed() < kProgressIntervalMs) return;
    sinceProgress_.restart();
    emit progress(ticket, fraction, QString::fromStdString(stage));
  };
}

RunResult RunWorker::runOn(Backend& backend, quint64 ticket, const RunJob& job) {
  // The backend checks the request once (its result names every parameter).
  return backend.run(job.request, progressFor(ticket), cancel_);
}

DeviceCeilings RunWorker::measureOn(Backend& backend, quint64 ticket, const RunJob& job) {
  return backend.measureCeilings(job.request.device, progressFor(ticket), cancel_);
}

exercise::SubmissionReport RunWorker::checkOn(Backend& backend, quint64 ticket, const RunJob& job) {
  exercise::CheckOptions options;
  options.kernelName = job.exercise->id;
  options.device = job.request.device;
  return exercise::checkSubmission(*job.exercise, job.request.kernel.source.value_or(""), backend,
                                   options, progressFor(ticket), cancel_);
}

}  // namespace tilescope::desktop
