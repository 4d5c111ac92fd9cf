// SPDX-License-Identifier: GPL-3.0-or-later
#include "chart_kind.hpp"

namespace tilescope::desktop {

QString chartId(ChartKind kind) {
  switch (kind) {
    case ChartKind::Time:
      return QStringLiteral("time");
    case ChartKind::Rate:
      return QStringLiteral("gflops");
    case ChartKind::TileSweep:
      return QStringLiteral("tile");
    case ChartKind::Phases:
      return QStringLiteral("phases");
    case ChartKind::Library:
      return QStringLiteral("library");
    case ChartKind::Landscape:
      return QStringLiteral("autotune");
    case ChartKind::Roofline:
      return QStringLiteral("roofline");
  }
  return {};
}

std::optional<ChartKind> chartFromId(const QString& id) {
  for (ChartKind kind : kAllCharts) {
    if (chartId(kind) == id) return kind;
  }
  return std::nullopt;
}

QStringList chartIds() {
  QStringList ids;
  for (ChartKind kind : kAllCharts) ids << chartId(kind);
  return ids;
}

std::optional<ChartKind> chartForSweep(SweepKind sweep) {
  switch (sweep) {
    case SweepKind::Tile:
      return ChartKind::TileSweep;
    case SweepKind::Size:
    case SweepKind::Kernel:
      return ChartKind::Rate;
    case SweepKind::Single:
      break;
  }
  return std::nullopt;
}

}  // namespace tilescope::desktop
