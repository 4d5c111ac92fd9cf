// SPDX-License-Identifier: GPL-3.0-or-later
#include "ceilings_controller.hpp"

#include "formatting.hpp"

namespace tilescope::desktop {

CeilingsController::CeilingsController(RunController& runs, ResultsModel& model, QObject* parent)
    : QObject(parent), runs_(runs), model_(model) {
  connect(&runs_, &RunController::ceilingsReady, this, &CeilingsController::onCeilings);
}

bool CeilingsController::measure(const Choices& choices, const std::string& deviceName,
                                 QString* problem) {
  const BackendSummary* summary = runs_.backend(choices.backend);
  if (!summary || !summary->available() || deviceName.empty()) {
    const QString message = tr("Measuring ceilings needs an available backend and device");
    emit this->problem(message);
    if (problem) *problem = message;
    return false;
  }
  emit started();
  emit status(tr("Measuring the ceilings of %1 (%2)")
                  .arg(QString::fromStdString(deviceName), QString::fromStdString(choices.backend)),
              0);
  runs_.enqueue({RunJob::ceilings(choices.backend, choices.device)});
  return true;
}

void CeilingsController::onCeilings(const DeviceCeilings& ceilings) {
  std::vector<DeviceCeilings> known = model_.ceilings();
  rememberCeilings(known, ceilings);
  model_.setCeilings(std::move(known));
  QStringList figures;
  for (const Ceiling& ceiling : ceilings.compute) {
    figures << tr("%1 %2 GFLOP/s")
                   .arg(QString::fromStdString(ceiling.name), formatRate(ceiling.measured));
  }
  figures << tr("memory %1 GB/s").arg(ceilings.bandwidth.measured, 0, 'f', 1);
  emit status(tr("Ceilings of %1: %2")
                  .arg(QString::fromStdString(ceilings.device), figures.join(QStringLiteral(", "))),
              0);
}

}  // namespace tilescope::desktop
