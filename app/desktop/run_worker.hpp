// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The worker object that lives on the one long-lived worker thread. It creates and owns every
// backend, so all device state (a CUDA context, buffers, handles, the run servers' processes)
// stays on that thread; it is deleted there too, when the thread finishes.
#include <QElapsedTimer>
#include <QObject>
#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "run_job.hpp"
#include "tilescope/remote/remote_backend.hpp"

namespace tilescope::desktop {

class RunWorker : public QObject {
  Q_OBJECT

 public:
  // `cancel` is owned by the controller and outlives the worker thread.
  explicit RunWorker(const std::atomic<bool>* cancel);
  ~RunWorker() override;

 public slots:
  // Creates every backend and reports what each one offers: the local ones, then the run
  // servers' (remote::RemoteBackend), which connect here. An unnamed server replaces the local
  // backend it stands for (the CUDA backend isolated in a child process).
  void probe(const std::vector<tilescope::remote::ServerAddress>& servers);
  // Replaces the run servers' backends with these and reports again.
  void setServers(const std::vector<tilescope::remote::ServerAddress>& servers);
  void execute(quint64 ticket, const tilescope::desktop::RunJob& job);

 signals:
  void backendsProbed(const std::vector<tilescope::desktop::BackendSummary>& backends);
  void progress(quint64 ticket, double fraction, const QString& stage);
  void finished(quint64 ticket, const tilescope::RunResult& result);
  void ceilingsMeasured(quint64 ticket, const tilescope::DeviceCeilings& ceilings);
  void traced(quint64 ticket, const tilescope::KernelTrace& trace);
  void checked(quint64 ticket, const tilescope::exercise::SubmissionReport& report);
  void failed(quint64 ticket, const tilescope::desktop::RunFailure& failure);

 private:
  Backend& backendFor(const std::string& id);
  // A user kernel never runs in the window's process: where `id` is the in-process CUDA backend
  // it runs in a child server of its own (started on first use, restarted after a fault or a
  // kernel that would not stop). Throws Error(Unavailable) saying that running needs a GPU.
  Backend& userKernelBackendFor(const std::string& id);
  RunResult runOn(Backend& backend, quint64 ticket, const RunJob& job);
  DeviceCeilings measureOn(Backend& backend, quint64 ticket, const RunJob& job);
  // A submission is checked where the user's kernels run: on the CPU and a local GPU in the
  // child server, so a submission that crashes ends that check alone.
  exercise::SubmissionReport checkOn(Backend& backend, quint64 ticket, const RunJob& job);
  // Forwards the backend's progress for `ticket`, a few times a second at most.
  ProgressFn progressFor(quint64 ticket);
  // With `connectServers` false, the run servers' backends read "connecting" instead of being
  // asked (which starts their servers).
  std::vector<BackendSummary> summaries(bool connectServers = true) const;

  const std::atomic<bool>* cancel_;
  std::map<std::string, std::unique_ptr<Backend>> backends_;
  std::vector<std::string> order_;      // the backend ids as the picker lists them
  std::vector<std::string> serverIds_;  // those of run servers
  // Backends that failed to come up, or lost their device: the reason replaces the backend.
  std::map<std::string, std::string> lostReasons_;
  // Per local backend ("cpu", "cuda"), the child process user kernels run in.
  std::map<std::string, std::unique_ptr<remote::RemoteBackend>> userKernelServers_;
  QElapsedTimer sinceProgress_;
};

}  // namespace tilescope::desktop
