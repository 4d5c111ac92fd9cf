// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Run > Measure Ceilings: queues a measurement of a device's roofline ceilings, and when they
// arrive puts them in the model in place of that device's earlier ones.
#include <QObject>

#include "results_model.hpp"
#include "run_controller.hpp"

namespace tilescope::desktop {

class CeilingsController : public QObject {
  Q_OBJECT

 public:
  CeilingsController(RunController& runs, ResultsModel& model, QObject* parent = nullptr);

  // Queues the measurement on the chosen backend and device (`deviceName` is its name, empty
  // when there is none); when it cannot start, says why (problem() and `problem`) and returns
  // false.
  bool measure(const Choices& choices, const std::string& deviceName, QString* problem = nullptr);

 signals:
  // Queued: the roofline is the chart to show.
  void started();
  void status(const QString& message, int timeoutMs);
  void problem(const QString& message);

 private:
  void onCeilings(const DeviceCeilings& ceilings);

  RunController& runs_;
  ResultsModel& model_;
};

}  // namespace tilescope::desktop
