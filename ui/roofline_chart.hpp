// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The roofline chart: GFLOP/s against arithmetic intensity on log-log axes, each device's
// bandwidth slope and compute roofs (measured solid, datasheet dashed), and every result as a
// point at its intensity from the traffic model.
#include <QString>
#include <vector>

#include "result_analysis.hpp"

namespace tilescope::ui {

class ChartView;

// Rebuilds `view` (already reset, axes logarithmic) from the results and the measured ceilings.
// Devices the results come from that have no measured ceilings still get their datasheet roofs
// when the datasheet table knows them. The labels of roofs and slopes never overlap.
// `overlays` gives each result's overlay label (a second session laid over the charts); a result
// without one belongs to the session itself.
void drawRoofline(ChartView* view, const std::vector<RunResult>& results,
                  const std::vector<DeviceCeilings>& ceilings, desktop::IntensityCache& intensities,
                  const std::vector<QString>& overlays = {});

}  // namespace tilescope::ui
