// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The plain value types that cross between the window thread and the worker thread as queued
// signal arguments.
#include <QMetaType>
#include <QString>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tilescope/backend.hpp"
#include "tilescope/error.hpp"
#include "tilescope/exercise/check.hpp"
#include "tilescope/user_kernel.hpp"

namespace tilescope::desktop {

enum class JobKind {
  Run,       // request: time and verify one kernel configuration
  Ceilings,  // measure the roofline ceilings of request.device (the rest of request is unused)
  Trace,     // a traced launch of request's user kernel, recording block traceBlock's loads
  Check,     // request's user kernel checked as a submission of `exercise` (exercise/check.hpp)
};

// One queued job: which backend runs which request, or measures which device's ceilings.
struct RunJob {
  std::string backend;
  RunRequest request;
  JobKind kind = JobKind::Run;
  Dim2 traceBlock{0, 0};
  std::optional<exercise::Exercise> exercise = std::nullopt;  // a Check's
  // A run of a sweep or an autotune with "All GPUs": it may run on any device of its backend
  // (RunController sets request.device to the one that takes it).
  bool anyDevice = false;
  // Set by RunController for such a run: results of these are delivered in this order.
  std::uint64_t heldOrder = 0;

  static RunJob ceilings(const std::string& backend, int device);
  static RunJob trace(const std::string& backend, const TraceRequest& request);
  // Checks `source` (the kernel named by the exercise's id) on `device` of `backend`.
  static RunJob check(const std::string& backend, int device, const exercise::Exercise& exercise,
                      const std::string& source);
};

// What the worker learned about one backend when it created it.
struct BackendSummary {
  std::string id;
  std::optional<std::string> unavailableReason;  // nullopt when usable
  std::vector<DeviceInfo> devices;
  // The backend's own reason for each element type it multiplies with no kernel at all (the CPU
  // backend: every type but fp32), so the window can say why before it queues such a run.
  std::map<ElementType, std::string> elementRefusals;
  bool connecting = false;  // a run server being started: another summary follows
  // A run server not started yet: it starts when chosen (RunController::connectServer) or when
  // a run needs it, and goes back to this after being idle for its address's idleClose.
  bool dormant = false;
  bool available() const { return !unavailableReason.has_value(); }
  std::optional<std::string> elementRefusal(ElementType element) const;
};

// How a failed run's run server stands: fine (the run's own failure), its connection lost while
// it ran (the runs left wait for it), or it could not be reached at all.
enum class ServerTrouble { None, Lost, Unreachable };

// Why a run did not produce a result. `kind` is empty for an unexpected exception.
struct RunFailure {
  std::optional<ErrorKind> kind;
  QString message;
  ServerTrouble server = ServerTrouble::None;
  bool cancelled() const { return kind == ErrorKind::Cancelled; }
};

// "shared-tiled tile=16 at 512³ on cpu", "library fp16 at 512³ on cuda", "ceilings of cuda
// device 0": one line naming a job in progress and in notices.
QString describe(const RunJob& job);

// Registers the types above (and RunResult, DeviceCeilings, KernelTrace, SubmissionReport) for
// queued connections; call once
// before threads.
void registerMetaTypes();

}  // namespace tilescope::desktop

Q_DECLARE_METATYPE(tilescope::RunResult)
Q_DECLARE_METATYPE(tilescope::DeviceCeilings)
Q_DECLARE_METATYPE(tilescope::KernelTrace)
Q_DECLARE_METATYPE(tilescope::exercise::SubmissionReport)
Q_DECLARE_METATYPE(tilescope::desktop::RunJob)
Q_DECLARE_METATYPE(tilescope::desktop::RunFailure)
Q_DECLARE_METATYPE(std::vector<tilescope::desktop::BackendSummary>)
