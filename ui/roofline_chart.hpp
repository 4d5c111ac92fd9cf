#pragma once
// The roofline chart: GFLOP/s against arithmetic intensity on log-log axes, each device's
// bandwidth slope and compute roofs (measured solid, datasheet dashed), and every result as a
// point at its intensity from the traffic model.
#include <QString>
#include <functional>
#include <vector>

#include "result_analysis.hpp"

namespace tilescope::ui {

class ChartView;

// Rebuilds `view` (already reset, axes logarithmic) from the results and the measured ceilings.
// Devices the results come from that have no measured ceilings still get their datasheet roofs
// when the datasheet table knows them. `colorOf(series)` gives each kernel's series the colour
// index it keeps.
void drawRoofline(ChartView* view, const std::vector<RunResult>& results,
                  const std::vector<DeviceCeilings>& ceilings, app::IntensityCache& intensities,
                  const std::function<int(const QString& series)>& colorOf);

}  // namespace tilescope::ui
