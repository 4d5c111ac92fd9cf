// SPDX-License-Identifier: GPL-3.0-or-later
#include "run_job.hpp"

#include "formatting.hpp"
#include "tilescope/catalogue.hpp"

namespace tilescope::desktop {

RunJob RunJob::ceilings(const std::string& backend, int device) {
  RunJob job;
  job.backend = backend;
  job.kind = JobKind::Ceilings;
  job.request.device = device;
  return job;
}

std::optional<std::string> BackendSummary::elementRefusal(ElementType element) const {
  const auto found = elementRefusals.find(element);
  if (found == elementRefusals.end()) return std::nullopt;
  return found->second;
}

RunJob RunJob::trace(const std::string& backend, const TraceRequest& request) {
  RunJob job;
  job.backend = backend;
  job.kind = JobKind::Trace;
  job.request.kernel = request.kernel;
  job.request.shape = request.shape;
  job.request.device = request.device;
  job.request.element = request.element;
  job.traceBlock = request.block;
  return job;
}

RunJob RunJob::check(const std::string& backend, int device, const exercise::Exercise& exercise,
                     const std::string& source) {
  RunJob job;
  job.backend = backend;
  job.kind = JobKind::Check;
  job.request.kernel = {userKernelId(exercise.id), exercise.params, source};
  job.request.device = device;
  job.exercise = exercise;
  return job;
}

QString describe(const RunJob& job) {
  if (job.kind == JobKind::Check) {
    return QStringLiteral("checking %1 on %2")
        .arg(QString::fromStdString(job.exercise ? job.exercise->id : job.request.kernel.kernel),
             QString::fromStdString(job.backend));
  }
  if (job.kind == JobKind::Trace) {
    return QStringLiteral("tracing %1 at %2 on %3")
        .arg(QString::fromStdString(job.request.kernel.kernel), formatShape(job.request.shape),
             QString::fromStdString(job.backend));
  }
  if (job.kind == JobKind::Ceilings) {
    return QStringLiteral("ceilings of %1 device %2")
        .arg(QString::fromStdString(job.backend))
        .arg(job.request.device);
  }
  const KernelConfig& kernel = job.request.kernel;
  const std::string params = formatParams(kernel);
  QString text = QString::fromStdString(kernel.kernel);
  if (job.request.element != ElementType::F32)
    text += ' ' + QString::fromLatin1(toString(job.request.element));
  if (!params.empty()) text += ' ' + QString::fromStdString(params);
  return text + QStringLiteral(" at %1 on %2")
                    .arg(formatShape(job.request.shape), QString::fromStdString(job.backend));
}

void registerMetaTypes() {
  qRegisterMetaType<tilescope::RunResult>();
  qRegisterMetaType<tilescope::DeviceCeilings>();
  qRegisterMetaType<tilescope::KernelTrace>();
  qRegisterMetaType<tilescope::exercise::SubmissionReport>();
  qRegisterMetaType<RunJob>();
  qRegisterMetaType<RunFailure>();
  qRegisterMetaType<std::vector<BackendSummary>>();
}

}  // namespace tilescope::desktop
