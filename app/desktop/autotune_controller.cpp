// SPDX-License-Identifier: GPL-3.0-or-later
#include "autotune_controller.hpp"

#include "formatting.hpp"

namespace tilescope::desktop {

AutotuneController::AutotuneController(RunController& runs, std::string tunedStore, QObject* parent)
    : QObject(parent), runs_(runs), tunedStore_(std::move(tunedStore)) {
  connect(&runs_, &RunController::resultReady, this, [this](const RunResult& result) {
    if (run_) run_->collect(result);
  });
  connect(&runs_, &RunController::queueFinished, this, [this](const QueueSummary& summary) {
    if (run_) finish(summary);
  });
}

bool AutotuneController::start(const Choices& choices, const std::string& device,
                               const std::optional<UserKernelSource>& userKernel,
                               QString* problem) {
  const auto refuse = [&](const QString& message) {
    emit this->problem(message);
    if (problem) *problem = message;
    return false;
  };
  if (run_) return refuse(tr("An autotune is already queued: cancel it or wait for it to end"));
  const BackendSummary* summary = runs_.backend(choices.backend);
  if (!summary || !summary->available() || device.empty())
    return refuse(tr("Autotune needs an available backend and device"));
  if (const auto why = summary->elementRefusal(userKernel ? userElementFor(choices, *userKernel)
                                                          : choices.element))
    return refuse(tr("Cannot autotune: %1").arg(QString::fromStdString(*why)));
  try {
    // The remembered parameters are read first, so a damaged file is reported before the runs.
    [[maybe_unused]] const plan::TunedStore remembered(tunedStore_);
    // The backends live on the worker thread: plan with the catalogue's refusals; whatever the
    // backend still refuses fails that run alone, as in a sweep.
    run_.emplace(choices, device, userKernel);
  } catch (const Error& error) {
    return refuse(tr("Cannot autotune: %1").arg(QString::fromStdString(error.what())));
  }
  emit started();
  emit status(tr("Autotuning %1: %2 configurations (%3 refused)")
                  .arg(QString::fromStdString(run_->kernel()))
                  .arg(run_->jobs().size())
                  .arg(run_->refused().size()),
              0);
  runs_.enqueue(run_->jobs());
  return true;
}

void AutotuneController::finish(const QueueSummary& summary) {
  const AutotuneRun run = std::move(*run_);
  run_.reset();
  const QString kernel = QString::fromStdString(run.kernel());
  // A cancelled landscape is partial; failed runs (already shown) just drop out of it.
  if (summary.cancelled) {
    emit status(tr("Autotune of %1 stopped after %2 of %3 configurations; nothing remembered.")
                    .arg(kernel)
                    .arg(run.results().size())
                    .arg(run.jobs().size()),
                0);
    return;
  }
  std::optional<plan::TunedEntry> entry;
  try {
    plan::TunedStore store(tunedStore_);
    entry = run.remember(store);
  } catch (const Error& error) {
    emit problem(tr("The autotune's best parameters could not be remembered: %1")
                     .arg(QString::fromStdString(error.what())));
    return;
  }
  if (!entry) {
    emit problem(tr("Autotune of %1: no configuration passed verification, so nothing was "
                    "remembered")
                     .arg(kernel));
    return;
  }
  emit tuned(*entry);
  emit status(
      tr("Autotune of %1: fastest verified %2 at %3 GFLOP/s of %4 configurations; remembered "
         "for %5")
          .arg(kernel, QString::fromStdString(formatParams({entry->kernel, entry->params})),
               formatRate(entry->gflops))
          .arg(run.results().size())
          .arg(QString::fromStdString(entry->device)),
      0);
}

}  // namespace tilescope::desktop
