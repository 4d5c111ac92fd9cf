// SPDX-License-Identifier: GPL-3.0-or-later
#include "series_style.hpp"

#include <QCollator>
#include <QHash>
#include <QPainterPath>
#include <algorithm>
#include <cmath>
#include <numeric>

#include "result_analysis.hpp"
#include "tilescope/catalogue.hpp"

namespace tilescope::ui {
namespace {

// Markers, each readable at 7-9 px, one per catalogue kernel in catalogue order (the library,
// last, a diamond: on the roofline it sits at the compulsory intensity), then spare ones for
// variants. Shapes QCustomPlot lacks are paths in a 6-unit box around the point.
enum class CustomShape { Pentagon, Hexagon, Right, Left, Hourglass, BowTie };
struct Marker {
  QCPScatterStyle::ScatterShape shape;
  CustomShape custom = CustomShape::Pentagon;  // for ssCustom
};
constexpr Marker kMarkers[] = {{QCPScatterStyle::ssCircle},
                               {QCPScatterStyle::ssSquare},
                               {QCPScatterStyle::ssTriangle},
                               {QCPScatterStyle::ssTriangleInverted},
                               {QCPScatterStyle::ssCustom, CustomShape::Pentagon},
                               {QCPScatterStyle::ssCrossSquare},
                               {QCPScatterStyle::ssPlusCircle},
                               {QCPScatterStyle::ssStar},
                               {QCPScatterStyle::ssCustom, CustomShape::Hexagon},
                               {QCPScatterStyle::ssCross},
                               {QCPScatterStyle::ssPlus},
                               {QCPScatterStyle::ssCrossCircle},
                               {QCPScatterStyle::ssPlusSquare},
                               {QCPScatterStyle::ssCustom, CustomShape::Right},
                               {QCPScatterStyle::ssCustom, CustomShape::Left},
                               {QCPScatterStyle::ssCustom, CustomShape::Hourglass},
                               {QCPScatterStyle::ssDisc},
                               {QCPScatterStyle::ssPeace},
                               {QCPScatterStyle::ssDiamond},
                               {QCPScatterStyle::ssCustom, CustomShape::BowTie}};
constexpr int kMarkerCount = int(std::size(kMarkers));

QPainterPath customPath(CustomShape custom) {
  QPainterPath path;
  const auto polygon = [&](std::initializer_list<QPointF> points) {
    path.addPolygon(QPolygonF(QList<QPointF>(points)));
    path.closeSubpath();
  };
  const auto regular = [&](int corners, double turn) {
    QPolygonF points;
    for (int i = 0; i < corners; ++i) {
      const double angle = turn + 2 * M_PI * i / corners;
      points << QPointF(3.3 * std::cos(angle), 3.3 * std::sin(angle));
    }
    path.addPolygon(points);
    path.closeSubpath();
  };
  switch (custom) {
    case CustomShape::Pentagon:
      regular(5, -M_PI / 2);
      break;
    case CustomShape::Hexagon:
      regular(6, 0);
      break;
    case CustomShape::Right:
      polygon({{-2.6, -3}, {3.2, 0}, {-2.6, 3}});
      break;
    case CustomShape::Left:
      polygon({{2.6, -3}, {-3.2, 0}, {2.6, 3}});
      break;
    case CustomShape::Hourglass:
      polygon({{-3, -3}, {3, -3}, {-3, 3}, {3, 3}});
      break;
    case CustomShape::BowTie:
      polygon({{-3, -3}, {3, 3}, {3, -3}, {-3, 3}});
      break;
  }
  return path;
}

// Lightness steps of a hue's shades: the kernel's own colour first, then darker and lighter.
constexpr int kShadeSteps[] = {0, -40, 40, -70, 70, -95, 95};

// The kernel's place in the catalogue, whose registrations give each kernel its hue (the
// library, last, a neutral grey; with the diamond marker at its place); kernels this build does
// not know (a user kernel, a session from another build) come after it, at a place their id picks.
int kernelIndex(const std::string& kernel) {
  const std::vector<KernelInfo>& kernels = catalogue();
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    if (kernels[i].id == kernel) return int(i);
  }
  return int(kernels.size()) + int(qHash(QString::fromStdString(kernel)) % kernels.size());
}

// The hue of the catalogue kernel at `index` (modulo the catalogue's size).
QColor catalogueHue(int index, Contrast contrast) {
  const std::vector<KernelInfo>& kernels = catalogue();
  const KernelInfo::Hue& hue = kernels[std::size_t(index) % kernels.size()].hue;
  return QColor(QString::fromStdString(contrast == Contrast::Light ? hue.light : hue.dark));
}

QColor shaded(const QColor& hue, int shade) {
  if (shade == 0) return hue;
  const int step = kShadeSteps[shade % int(std::size(kShadeSteps))];
  return QColor::fromHsl(hue.hslHue(), hue.hslSaturation(),
                         std::clamp(hue.lightness() + step, 25, 235));
}

}  // namespace

int markerCount() {
  return kMarkerCount;
}

QCPScatterStyle markerStyle(int index, const QPen& pen, const QBrush& brush, double size) {
  const Marker& marker = kMarkers[((index % kMarkerCount) + kMarkerCount) % kMarkerCount];
  if (marker.shape != QCPScatterStyle::ssCustom)
    return QCPScatterStyle(marker.shape, pen, brush, size);
  // QCustomPlot scales a path by size / 6, pen included: a cosmetic pen keeps its width.
  QPen cosmetic = pen;
  cosmetic.setCosmetic(true);
  return QCPScatterStyle(customPath(marker.custom), cosmetic, brush, size);
}

Contrast contrastOf(const QPalette& palette) {
  const QColor base = palette.color(QPalette::Base);
  const QColor text = palette.color(QPalette::Text);
  if (base.lightness() < 16 && text.lightness() > 240) return Contrast::High;
  return base.lightness() < 128 ? Contrast::Dark : Contrast::Light;
}

SeriesId seriesOf(const RunResult& result, bool withDevice, const QString& overlay) {
  const bool overlaid = !overlay.isEmpty();
  QString group = QString::fromStdString(result.kernel.kernel);
  if (overlaid) {
    group += QStringLiteral(" \u00b7 ") + overlay;
  } else if (withDevice) {
    group +=
        QStringLiteral(" (%1: %2)")
            .arg(QString::fromStdString(result.backend), QString::fromStdString(result.device));
  }
  const std::string name =
      desktop::seriesName(result, withDevice && !overlaid, overlay.toStdString());
  return {QString::fromStdString(name), group, result.kernel.kernel, overlaid};
}

std::vector<SeriesStyle> seriesStyles(const std::vector<SeriesId>& series, Contrast contrast) {
  // Each kernel's variants in name order, so the same set of series gets the same styles in
  // every chart and session, whatever order the runs came in.
  QCollator collator;
  collator.setNumericMode(true);
  std::vector<std::size_t> order(series.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return collator.compare(series[a].name, series[b].name) < 0;
  });
  QHash<QString, int> variantsSoFar;
  std::vector<int> variant(series.size());
  for (std::size_t i : order)
    variant[i] = variantsSoFar[QString::fromStdString(series[i].kernel)]++;

  const int hueCount = int(catalogue().size());
  std::vector<SeriesStyle> styles;
  for (std::size_t i = 0; i < series.size(); ++i) {
    const int kernel = kernelIndex(series[i].kernel);
    // Kernels past the hue list share hues with earlier ones, in shades no earlier kernel uses:
    // same colour then means same kernel, and within a kernel the marker differs.
    constexpr int hueRounds = 2;  // shade 0: a catalogue kernel; 1: a kernel it does not know
    const int shade = kernel / hueCount + hueRounds * (variant[i] / kMarkerCount);
    SeriesStyle style;
    style.color = shaded(catalogueHue(kernel, contrast), shade);
    style.marker = (kernel + variant[i]) % kMarkerCount;
    style.lineWidth = contrast == Contrast::High ? 3 : 2;
    style.overlaid = series[i].overlaid;
    styles.push_back(style);
  }
  return styles;
}

QColor plainSeriesColor(int index, Contrast contrast) {
  // Kernels' hues far apart (register-tiled's blue, naive's orange, tensor-wgmma's violet ...),
  // so that a run's copies and kernel, or autotune's groups, read apart.
  constexpr int kPlain[] = {6, 2, 14, 4, 13, 9, 11, 8};
  return catalogueHue(kPlain[index % int(std::size(kPlain))], contrast);
}

}  // namespace tilescope::ui
