// SPDX-License-Identifier: GPL-3.0-or-later
#include "trace_controller.hpp"

#include "session.hpp"

namespace tilescope::desktop {

TraceController::TraceController(RunController& runs, QObject* parent)
    : QObject(parent), runs_(runs) {
  connect(&runs_, &RunController::traceReady, this, &TraceController::onTraced);
  connect(&runs_, &RunController::queueFinished, this, [this] {
    if (const std::optional<Dim2> pending = std::exchange(pendingRetrace_, std::nullopt))
      emit reselect(*pending);
  });
}

bool TraceController::open(const QString& path, QString* error) {
  std::optional<KernelTrace> trace = loadTrace(path, error);
  if (!trace || !show(*trace, error)) return false;
  emit status(tr("Opened %1: %2 traced on %3")
                  .arg(path, QString::fromStdString(trace->kernel.kernel),
                       QString::fromStdString(trace->device)),
              5000);
  reportFindings(*trace);
  return true;
}

bool TraceController::show(const KernelTrace& trace, QString* error) {
  if (!drawer_) {
    if (error) *error = tr("the thread-mapping diagrams are not part of this build of TileScope");
    return false;
  }
  if (!drawer_(trace, error)) return false;
  emit drawn(trace);
  return true;
}

void TraceController::reportFindings(const KernelTrace& trace) {
  const SanitizerReport& report = trace.sanitizer;
  if (report.clean() || report.findings.empty()) return;
  const int more = report.total - 1;
  emit problem(
      tr("The sanitizer found %1 in %2%3: the Kernel Editor marks the line, and the memory-access "
         "view draws that thread's warp up to where the launch stopped")
          .arg(QString::fromStdString(report.findings.front().summary()),
               QString::fromStdString(trace.kernel.kernel),
               more > 0 ? tr(", and %n more", nullptr, more) : QString()));
}

void TraceController::onTraced(const KernelTrace& trace) {
  QString error;
  if (!show(trace, &error)) {
    emit problem(tr("The trace of %1 cannot be drawn: %2")
                     .arg(QString::fromStdString(trace.kernel.kernel), error));
    return;
  }
  if (!trace.sanitizer.clean()) {
    reportFindings(trace);
    return;
  }
  emit status(
      tr("Traced %1 on %2: the diagrams draw what it did")
          .arg(QString::fromStdString(trace.kernel.kernel), QString::fromStdString(trace.device)),
      8000);
}

bool TraceController::traceUserKernel(const UserKernelSource& kernel, const Choices& choices,
                                      const KernelTrace* drawn, Dim2 selected) {
  TraceRequest request;
  try {
    const std::vector<RunJob> jobs = planUserJobs(choices, kernel);
    request.kernel = jobs.front().request.kernel;
    request.shape = jobs.front().request.shape;
    request.device = jobs.front().request.device;
    request.element = jobs.front().request.element;
  } catch (const Error& error) {
    emit problem(tr("Cannot trace %1: %2")
                     .arg(QString::fromStdString(kernel.name), QString::fromUtf8(error.what())));
    return false;
  }
  if (const auto why = traceRefusal(request)) {
    emit problem(tr("Cannot trace %1: %2")
                     .arg(QString::fromStdString(kernel.name), QString::fromStdString(*why)));
    return false;
  }
  if (drawn && drawn->kernel.kernel == request.kernel.kernel) request.block = selected;
  runs_.enqueue({RunJob::trace(choices.backend, request)});
  return true;
}

void TraceController::retrace(const KernelTrace* drawn, Dim2 selected, const Choices& choices) {
  // A trace file may come without its source: there is nothing to launch then.
  if (!drawn || !drawn->kernel.source ||
      (selected.x == drawn->tracedBlock.x && selected.y == drawn->tracedBlock.y))
    return;
  if (runs_.busy()) {
    // A trace arriving selects its own block: this one is selected again when the queue ends.
    pendingRetrace_ = selected;
    return;
  }
  if (lastRetrace_ && lastRetrace_->first == drawn->kernel &&
      lastRetrace_->second.x == selected.x && lastRetrace_->second.y == selected.y)
    return;
  lastRetrace_ = std::pair(drawn->kernel, selected);
  const TraceRequest request{drawn->kernel, drawn->shape, choices.device, selected, drawn->element};
  if (const auto why = traceRefusal(request)) {
    emit problem(tr("Cannot trace block (%1,%2): %3")
                     .arg(selected.x)
                     .arg(selected.y)
                     .arg(QString::fromStdString(*why)));
    return;
  }
  runs_.enqueue({RunJob::trace(choices.backend, request)});
  emit status(tr("Tracing block (%1,%2) of %3 on %4")
                  .arg(selected.x)
                  .arg(selected.y)
                  .arg(QString::fromStdString(drawn->kernel.kernel),
                       QString::fromStdString(choices.backend)),
              0);
}

}  // namespace tilescope::desktop
