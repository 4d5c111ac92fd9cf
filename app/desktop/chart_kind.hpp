// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The charts the app draws, with the ids the command line uses for them.
#include <QString>
#include <QStringList>
#include <optional>

#include "choices.hpp"

namespace tilescope::desktop {

enum class ChartKind {
  Time,       // median time against size
  Rate,       // GFLOP/s against size
  TileSweep,  // time against tile size (seed 004's tables)
  Phases,     // H2D / kernel / D2H stacked bars
  Library,    // percent of the library reference against size
  Landscape,  // GFLOP/s of every configuration of one kernel at one size (autotune)
  Roofline,   // GFLOP/s against arithmetic intensity under the device's measured ceilings
};

inline constexpr ChartKind kAllCharts[] = {
    ChartKind::Time,    ChartKind::Rate,      ChartKind::TileSweep, ChartKind::Phases,
    ChartKind::Library, ChartKind::Landscape, ChartKind::Roofline};

// "time", "gflops", "tile", "phases", "library", "autotune", "roofline".
QString chartId(ChartKind kind);
std::optional<ChartKind> chartFromId(const QString& id);
QStringList chartIds();
// The chart that shows a sweep of this kind; none for a single run.
std::optional<ChartKind> chartForSweep(SweepKind sweep);

}  // namespace tilescope::desktop
