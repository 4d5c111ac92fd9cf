// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A worker object lives on a long-lived thread of its own: one for the local backends, one per
// run server (RunController's lanes), so a server that is slow to answer or lost delays no local
// run. It creates and owns its backends, so all device state (a CUDA context, buffers, handles, a
// run server's process) stays on its thread; it is deleted there too, when the thread finishes.
#include <QElapsedTimer>
#include <QObject>
#include <QTimer>
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
  // Makes this the worker of one named run server, not started yet (dormant): it starts when
  // connectServer() is asked or a run needs it, and is closed after its idleClose without a job.
  void serve(const tilescope::remote::ServerAddress& server);
  // Makes this the worker of one device lane of local backend `id`, with a backend of its own
  // (its own CUDA streams and buffers; the device lock keeps timings on one GPU apart).
  void own(const std::string& id);
  // Starts and greets the server unless it runs, reporting "connecting" and then what it offers.
  void connectServer();
  // After a lost connection: tries to connect once; reconnectTried says how it went.
  void reconnect();
  void execute(quint64 ticket, const tilescope::desktop::RunJob& job);

 signals:
  void backendsProbed(const std::vector<tilescope::desktop::BackendSummary>& backends);
  void progress(quint64 ticket, double fraction, const QString& stage);
  void finished(quint64 ticket, const tilescope::RunResult& result);
  void ceilingsMeasured(quint64 ticket, const tilescope::DeviceCeilings& ceilings);
  void traced(quint64 ticket, const tilescope::KernelTrace& trace);
  void checked(quint64 ticket, const tilescope::exercise::SubmissionReport& report);
  void failed(quint64 ticket, const tilescope::desktop::RunFailure& failure);
  void reconnectTried(bool back, const QString& why);

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
  // asked (which starts their servers). A served server (serve()) is never started here.
  std::vector<BackendSummary> summaries(bool connectServers = true) const;
  // The served server's summary while it does not run: dormant, or why it is not.
  BackendSummary notRunning(const std::string& id) const;
  // Connects the served server, reporting "connecting" first; false, with the reason kept for
  // its summary, when it cannot.
  bool connectServed();
  // How the served server stands after a failed job.
  ServerTrouble troubleAfter(const Error& error) const;

  const std::atomic<bool>* cancel_;
  std::map<std::string, std::unique_ptr<Backend>> backends_;
  std::vector<std::string> order_;      // the backend ids as the picker lists them
  std::vector<std::string> serverIds_;  // those of run servers
  // Backends that failed to come up, or lost their device: the reason replaces the backend.
  std::map<std::string, std::string> lostReasons_;
  // Per local backend ("cpu", "cuda"), the child process user kernels run in.
  std::map<std::string, std::unique_ptr<remote::RemoteBackend>> userKernelServers_;
  QElapsedTimer sinceProgress_;
  // Set by serve(): the one run server this worker drives, and its idle timer.
  remote::RemoteBackend* served_ = nullptr;
  std::optional<std::string> connectFailure_;  // why the last start of it failed
  QTimer* idleClose_ = nullptr;
};

}  // namespace tilescope::desktop
