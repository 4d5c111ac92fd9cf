#include "run_job.hpp"

#include "formatting.hpp"
#include "tilescope/catalogue.hpp"

namespace tilescope::app {

QString describe(const RunJob& job) {
  const KernelConfig& kernel = job.request.kernel;
  const std::string params = formatParams(kernel);
  QString text = QString::fromStdString(kernel.kernel);
  if (!params.empty()) text += ' ' + QString::fromStdString(params);
  return text + QStringLiteral(" at %1 on %2")
                    .arg(formatShape(job.request.shape), QString::fromStdString(job.backend));
}

void registerMetaTypes() {
  qRegisterMetaType<tilescope::RunResult>();
  qRegisterMetaType<RunJob>();
  qRegisterMetaType<RunFailure>();
  qRegisterMetaType<std::vector<BackendSummary>>();
}

}  // namespace tilescope::app
