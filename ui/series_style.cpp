#include "series_style.hpp"

#include <QCollator>
#include <QHash>
#include <algorithm>
#include <numeric>

#include "result_analysis.hpp"
#include "tilescope/catalogue.hpp"

namespace tilescope::ui {
namespace {

// One hue per catalogue kernel, in catalogue order (serial, row-per-thread, naive, shared-a,
// shared-tiled, register-tiled, blocktile-1d, blocktile-2d, vectorized, warptile, pipelined,
// prefetched, tensor-mma, tensor-wgmma, tensor-tma, tensor-persistent, tensor-tf32), neighbours far
// apart, the Okabe-Ito colours where they fit; the last one is the library's (kLibraryIndex).
// Deeper on light backgrounds, lighter on dark ones.
const QColor kLightHues[] = {"#8c564b", "#cc79a7", "#d55e00", "#b08000", "#009e73", "#0072b2",
                             "#7f3c8d", "#1b9aaa", "#e6007e", "#5a8f00", "#3d4fc4", "#999933",
                             "#a01a58", "#e69f00", "#6a9fd8", "#b2182b", "#00607a", "#303030"};
const QColor kDarkHues[] = {"#d2a58f", "#eba2d0", "#ff6f4a", "#f0d23c", "#35d0a5", "#56b4e9",
                            "#c9a2ff", "#4fe0e8", "#ff5fb8", "#a6d854", "#8c9eff", "#b0b070",
                            "#ff9e9e", "#ffa640", "#70b0b0", "#ff6b81", "#7fdbca", "#e0e0e0"};
constexpr int kHueCount = int(std::size(kLightHues));
static_assert(std::size(kDarkHues) == std::size(kLightHues));

// Markers, each readable at 7-9 px; a kernel's own marker is the one at its index (the library's
// diamond says, on the roofline, that it sits at the compulsory intensity).
constexpr QCPScatterStyle::ScatterShape kShapes[] = {QCPScatterStyle::ssCircle,
                                                     QCPScatterStyle::ssSquare,
                                                     QCPScatterStyle::ssTriangle,
                                                     QCPScatterStyle::ssDiamond,
                                                     QCPScatterStyle::ssTriangleInverted,
                                                     QCPScatterStyle::ssCrossSquare,
                                                     QCPScatterStyle::ssPlusCircle,
                                                     QCPScatterStyle::ssStar,
                                                     QCPScatterStyle::ssCross,
                                                     QCPScatterStyle::ssPlus,
                                                     QCPScatterStyle::ssCrossCircle,
                                                     QCPScatterStyle::ssPlusSquare,
                                                     QCPScatterStyle::ssDisc,
                                                     QCPScatterStyle::ssPeace};
constexpr int kShapeCount = int(std::size(kShapes));
// The library keeps the last hue (a neutral grey) and, with it, the diamond.
constexpr int kLibraryIndex = kHueCount - 1;
static_assert(kShapes[kLibraryIndex % kShapeCount] == QCPScatterStyle::ssDiamond);

// Lightness steps of a hue's shades: the kernel's own colour first, then darker and lighter.
constexpr int kShadeSteps[] = {0, -40, 40, -70, 70, -95, 95};

// The kernel's place in the catalogue; kernels this build does not know (a session from another
// build) come after it, at a place their id picks.
int kernelIndex(const std::string& kernel) {
  if (kernel == app::kLibraryKernel) return kLibraryIndex;
  const std::vector<KernelInfo>& kernels = catalogue();
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    if (kernels[i].id == kernel) return int(i);
  }
  return int(kernels.size()) + int(qHash(QString::fromStdString(kernel)) % kHueCount);
}

QColor shaded(const QColor& hue, int shade) {
  if (shade == 0) return hue;
  const int step = kShadeSteps[shade % int(std::size(kShadeSteps))];
  return QColor::fromHsl(hue.hslHue(), hue.hslSaturation(),
                         std::clamp(hue.lightness() + step, 25, 235));
}

}  // namespace

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
  const std::string name = app::seriesName(result, withDevice && !overlaid, overlay.toStdString());
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

  const QColor* hues = contrast == Contrast::Light ? kLightHues : kDarkHues;
  std::vector<SeriesStyle> styles;
  for (std::size_t i = 0; i < series.size(); ++i) {
    const int kernel = kernelIndex(series[i].kernel);
    // Kernels past the hue list share hues with earlier ones, in shades no earlier kernel uses:
    // same colour then means same kernel, and within a kernel the marker differs.
    const int hueRounds =
        (std::max(int(catalogue().size()), kHueCount) + 2 * kHueCount - 1) / kHueCount;
    const int shade = kernel / kHueCount + hueRounds * (variant[i] / kShapeCount);
    SeriesStyle style;
    style.color = shaded(hues[kernel % kHueCount], shade);
    style.shape = kShapes[(kernel + variant[i]) % kShapeCount];
    style.lineWidth = contrast == Contrast::High ? 3 : 2;
    style.overlaid = series[i].overlaid;
    styles.push_back(style);
  }
  return styles;
}

QColor plainSeriesColor(int index, Contrast contrast) {
  // The hues of the first kernels of the ladder, which read best together.
  constexpr int kPlain[] = {5, 2, 4, 1, 3, 6, 7, 9};
  const QColor* hues = contrast == Contrast::Light ? kLightHues : kDarkHues;
  return hues[kPlain[index % int(std::size(kPlain))]];
}

}  // namespace tilescope::ui
