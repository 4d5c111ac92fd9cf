// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Run > Autotune: queues every valid configuration of the chosen kernel at the chosen size (or
// the Kernel Editor's kernel over its TS_PARAM values), collects what they measure, and when the
// queue ends remembers the fastest verified one for the device in the tuned store.
#include <QObject>
#include <optional>
#include <string>

#include "autotune_run.hpp"
#include "run_controller.hpp"

namespace tilescope::desktop {

class AutotuneController : public QObject {
  Q_OBJECT

 public:
  // `tunedStore`: the file the fastest configurations are remembered in (tilescope-bench's).
  AutotuneController(RunController& runs, std::string tunedStore, QObject* parent = nullptr);

  // Queues the autotune of `choices` on `device` (its name; empty when there is none). When it
  // cannot start, says why (problem() and `problem`) and returns false.
  bool start(const Choices& choices, const std::string& device,
             const std::optional<UserKernelSource>& userKernel = std::nullopt,
             QString* problem = nullptr);
  // The autotune queued or running, if any.
  const AutotuneRun* current() const { return run_ ? &*run_ : nullptr; }

 signals:
  // Queued: the landscape is the chart to show.
  void started();
  // The fastest verified configuration, remembered: the controls take its parameters.
  void tuned(const tilescope::plan::TunedEntry& entry);
  void status(const QString& message, int timeoutMs);
  void problem(const QString& message);

 private:
  void finish(const QueueSummary& summary);

  RunController& runs_;
  std::string tunedStore_;
  std::optional<AutotuneRun> run_;
};

}  // namespace tilescope::desktop
