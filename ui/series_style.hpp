// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The one palette of every chart. A kernel keeps one colour and one marker in every chart and
// session (from its place in the catalogue), and no two kernels of the catalogue share either: the
// colours are far apart in CIEDE2000 in every theme, also as the common colour-vision deficiencies
// see them, and the markers carry what such eyes cannot tell (tst_palette measures both); its
// variants in one chart (element type, parameters, device) keep the kernel's hue and differ by
// marker, then by shade, so no two series of a chart share both colour and marker. Series names and
// legend groups are made here too, so whoever adds a kind of series (another session, another
// device) extends one place.
#include <qcustomplot.h>
#include <QColor>
#include <QPalette>
#include <QString>
#include <string>
#include <vector>

#include "tilescope/backend.hpp"

namespace tilescope::ui {

// What the charts draw on: light, dark, or the high-contrast theme (pure black and white).
enum class Contrast { Light, Dark, High };
Contrast contrastOf(const QPalette& palette);

// One series of a chart: its full name (tooltips, tests), the legend group it joins (its kernel,
// and its device when the chart mixes devices, or the overlay it comes from), the kernel that
// picks its colour, and whether a second session laid over the charts holds it.
struct SeriesId {
  QString name;
  QString group;
  std::string kernel;
  bool overlaid = false;
};

// The series `result` belongs to: kernel, element type (unless fp32) and parameters, as
// desktop::seriesName; `withDevice` adds the backend and device for charts that mix them; `overlay`
// names the session laid over the charts that holds the result ("H200 sample"; it names its
// device itself).
SeriesId seriesOf(const RunResult& result, bool withDevice, const QString& overlay = {});

struct SeriesStyle {
  QColor color;
  int marker = 0;  // markerStyle's index
  double lineWidth = 2;
  // An overlay's series: dashed, hollow markers and bars (measured elsewhere, read-only).
  bool overlaid = false;
  // How much larger its lines and markers are drawn (presenting).
  double scale = 1;
};

// How many markers there are: each catalogue kernel has its own.
int markerCount();
// Marker `index` (modulo markerCount()) drawn with `pen` and `brush`, `size` pixels across: the
// shapes QCustomPlot has, then pentagon, hexagon, triangles pointing right and left, an hourglass
// and a bow tie.
QCPScatterStyle markerStyle(int index, const QPen& pen, const QBrush& brush, double size);

// The styles of a chart's series, in the order given. A kernel's first variant (by name, numbers
// compared as numbers) gets the kernel's own colour and marker; the others step through the
// markers, then through shades of the kernel's hue. High contrast draws thicker lines.
std::vector<SeriesStyle> seriesStyles(const std::vector<SeriesId>& series, Contrast contrast);

// The i-th colour for series that are not kernels (the phases of a run, autotune groups).
QColor plainSeriesColor(int index, Contrast contrast);

}  // namespace tilescope::ui
