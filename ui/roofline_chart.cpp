// SPDX-License-Identifier: GPL-3.0-or-later
#include "roofline_chart.hpp"

#include <QHash>
#include <algorithm>
#include <cmath>

#include "chart_view.hpp"
#include "formatting.hpp"

namespace tilescope::ui {
namespace {

// How opaque the background behind a roofline label is.
constexpr double kLabelVeil = 0.75;
// How far the x axis reaches past the lowest and highest intensity drawn, as a factor: room for
// the bandwidth slope to show its slope and the roofs to run on past their ridge points.
constexpr double kIntensityMargin = 8.0;

bool usable(double value) {
  return std::isfinite(value) && value > 0;
}

QString formatCompute(double gflops) {
  if (gflops >= 1000) return QObject::tr("%1 TFLOP/s").arg(gflops / 1000, 0, 'f', 1);
  return QObject::tr("%1 GFLOP/s").arg(desktop::formatRate(gflops));
}

QString formatBandwidth(double gbs) {
  if (gbs >= 1000) return QObject::tr("%1 TB/s").arg(gbs / 1000, 0, 'f', 2);
  return QObject::tr("%1 GB/s").arg(gbs, 0, 'f', 1);
}

// One device's roofline as drawn: a bandwidth slope under its compute roofs.
struct Roofline {
  std::string backend, device;
  bool measured = false;  // drawn solid when measured, dashed from the datasheet
  double bandwidthGBs = 0;
  std::vector<std::pair<QString, double>> roofs;  // name, GFLOP/s; ascending
  double highest() const { return roofs.back().second; }
  double ridge(double gflops) const { return gflops / bandwidthGBs; }
};

void addRoof(Roofline& line, const std::string& name, double gflops) {
  if (usable(gflops)) line.roofs.emplace_back(QString::fromStdString(name), gflops);
}

std::vector<Roofline> rooflinesOf(const std::vector<DeviceCeilings>& ceilings,
                                  const std::vector<RunResult>& results) {
  std::vector<Roofline> lines;
  const auto keep = [&](Roofline line) {
    if (!usable(line.bandwidthGBs) || line.roofs.empty()) return;
    std::sort(line.roofs.begin(), line.roofs.end(),
              [](const auto& a, const auto& b) { return a.second < b.second; });
    lines.push_back(std::move(line));
  };
  for (const DeviceCeilings& device : ceilings) {
    Roofline measured{device.backend, device.device, true, device.bandwidth.measured, {}};
    Roofline datasheet{
        device.backend, device.device, false, device.bandwidth.datasheet.value_or(0), {}};
    for (const Ceiling& ceiling : device.compute) {
      addRoof(measured, ceiling.name, ceiling.measured);
      if (ceiling.datasheet) addRoof(datasheet, ceiling.name, *ceiling.datasheet);
    }
    keep(std::move(measured));
    keep(std::move(datasheet));
  }
  // The devices of the results not measured yet: their datasheet roofs, where the table has them.
  for (const RunResult& result : results) {
    const bool drawn = std::any_of(lines.begin(), lines.end(), [&](const Roofline& line) {
      return line.backend == result.backend && line.device == result.device;
    });
    const std::optional<DatasheetCeilings> sheet = datasheetFor(result.device);
    if (drawn || !sheet) continue;
    Roofline datasheet{result.backend, result.device, false, sheet->bandwidthGBs, {}};
    for (const auto& [name, gflops] : sheet->compute) addRoof(datasheet, name, gflops);
    keep(std::move(datasheet));
  }
  return lines;
}

// The roof a result is held to: the compute ceiling of its element type (FP32, or the tensor
// cores' rate) under the bandwidth, from its device's measured ceilings, else the datasheet's.
struct ResultRoof {
  std::string name;
  double peakGflops = 0, bandwidthGBs = 0;
  bool measured = false;
};

std::optional<ResultRoof> roofOf(const RunResult& result,
                                 const std::vector<DeviceCeilings>& ceilings) {
  const std::string name = computeCeilingFor(result.element);
  if (const DeviceCeilings* device = desktop::ceilingsOf(ceilings, result)) {
    for (const Ceiling& ceiling : device->compute) {
      if (ceiling.name == name && usable(ceiling.measured) && usable(device->bandwidth.measured))
        return ResultRoof{name, ceiling.measured, device->bandwidth.measured, true};
    }
  }
  if (const std::optional<DatasheetCeilings> sheet = datasheetFor(result.device)) {
    for (const auto& [sheetName, gflops] : sheet->compute)
      if (sheetName == name) return ResultRoof{name, gflops, sheet->bandwidthGBs, false};
  }
  return std::nullopt;
}

QString pointTip(const RunResult& result, const Intensity& intensity,
                 const std::vector<DeviceCeilings>& ceilings) {
  QString tip = desktop::describeResult(result);
  const QString flopsPerByte = QString::number(intensity.flopsPerByte, 'g', 3);
  if (intensity.compulsory) {
    tip += QObject::tr(
               "<br>arithmetic intensity <b>%1 FLOP/byte</b>: the compulsory traffic (A and B "
               "read once, C written once), since the library's tiling is not known")
               .arg(flopsPerByte);
  } else {
    tip += QObject::tr(
               "<br>arithmetic intensity <b>%1 FLOP/byte</b> (traffic model: every global-memory "
               "sector the warps fetch, no cache reuse; a tile a cluster multicasts counts once)")
               .arg(flopsPerByte);
  }
  if (const std::optional<ResultRoof> roof = roofOf(result, ceilings)) {
    const double attainable =
        attainableGflops(intensity.flopsPerByte, roof->peakGflops, roof->bandwidthGBs);
    tip += QObject::tr("<br><b>%1 %</b> of the attainable %2 (%3 %4 roofline)")
               .arg(100 * result.gflops / attainable, 0, 'f', 1)
               .arg(formatCompute(attainable),
                    roof->measured ? QObject::tr("measured") : QObject::tr("datasheet"),
                    QString::fromStdString(roof->name));
    if (result.gflops > attainable && !intensity.compulsory) {
      tip += QObject::tr(
          "<br>Above the roofline: the L1 and L2 caches serve part of the traffic the model "
          "counts, so the kernel moves fewer bytes from memory than its intensity says");
    }
  }
  return tip;
}

QCPGraph* addLine(ChartView* view, double x0, double y0, double x1, double y1, const QPen& pen) {
  QCPGraph* graph = view->addGraph();
  graph->setData({x0, x1}, {y0, y1}, true);
  graph->setPen(pen);
  graph->setSelectable(QCP::stNone);
  graph->removeFromLegend();
  return graph;
}

// FLOPs over the DRAM bytes the GPU counted: where the run sits once caches are counted in.
std::optional<double> measuredIntensity(const RunResult& result) {
  if (!result.counters) return std::nullopt;
  const double bytes = result.counters->dramReadBytes + result.counters->dramWriteBytes;
  if (bytes <= 0) return std::nullopt;
  return result.shape.flops() / bytes;
}

// Each counted run of a series again at its measured intensity, hollow, joined to its modelled
// point by a dotted line. Returns whether any was drawn.
bool drawMeasuredIntensities(ChartView* view, const QString& name, const SeriesStyle& style,
                             const std::vector<std::pair<double, std::size_t>>& points,
                             const std::vector<RunResult>& results) {
  struct Counted {
    double intensity, gflops;
    QString tip;
  };
  std::vector<Counted> counted;
  const QPen link(style.color, 1, Qt::DotLine);
  for (const auto& [modelled, index] : points) {
    const std::optional<double> intensity = measuredIntensity(results[index]);
    if (!intensity || !usable(*intensity)) continue;
    const double gflops = results[index].gflops;
    addLine(view, modelled, gflops, *intensity, gflops, link);
    counted.push_back({*intensity, gflops,
                       QObject::tr("%1: %2 FLOP per DRAM byte counted (the model, without "
                                   "caches: %3)")
                           .arg(name)
                           .arg(*intensity, 0, 'g', 3)
                           .arg(modelled, 0, 'g', 3)});
  }
  if (counted.empty()) return false;
  // The graph keeps its points in x order; the tips follow the same order.
  std::stable_sort(counted.begin(), counted.end(),
                   [](const Counted& a, const Counted& b) { return a.intensity < b.intensity; });
  QCPGraph* graph = view->addGraph();
  graph->setName(name + QObject::tr(" (counted)"));
  graph->setLineStyle(QCPGraph::lsNone);
  SeriesStyle hollow = style;
  hollow.overlaid = true;
  graph->setScatterStyle(ChartView::scatterOf(hollow, 9));
  graph->setPen(QPen(style.color));
  graph->removeFromLegend();
  QStringList tips;
  for (const Counted& point : counted) {
    graph->addData(point.intensity, point.gflops);
    tips << point.tip;
  }
  view->setPointTips(graph, tips);
  return true;
}

QCPItemText* addLabel(ChartView* view, double x, double y, Qt::Alignment alignment,
                      const QString& text, const QColor& color) {
  auto* label = new QCPItemText(view);
  label->position->setCoords(x, y);
  label->setPositionAlignment(alignment);
  label->setText(text);
  label->setColor(color);
  label->setPadding(QMargins(4, 0, 4, 2));
  // On a small chart a label may have to sit over a roof, the slope or points: a veil of the
  // chart's background keeps it readable and what it covers still faintly seen.
  QColor veil = view->palette().color(QPalette::Base);
  veil.setAlphaF(kLabelVeil);
  label->setBrush(veil);
  return label;
}

// How far left of its top ridge point a slope's label sits, as a factor: near the ridge the slope
// is clear of the chart's left edge, and the label reads above it, in the unreachable region.
constexpr double kSlopeLabelBeforeRidge = 1.5;
// Roofs closer than this factor (FP16 and BF16) would overprint their labels: they share one.
constexpr double kSharedLabelRatio = 1.05;

// The label of roofs that share one: "FP16 tensor / BF16 tensor 989.4 TFLOP/s" when they are
// equal, "FP16 tensor 760.1 TFLOP/s / BF16 tensor 771.0 TFLOP/s" otherwise.
QString roofLabel(const std::vector<std::pair<QString, double>>& roofs) {
  const bool equal = std::all_of(roofs.begin(), roofs.end(),
                                 [&](const auto& roof) { return roof.second == roofs[0].second; });
  QStringList parts;
  for (const auto& [name, gflops] : roofs)
    parts << (equal ? name : name + QLatin1Char(' ') + formatCompute(gflops));
  QString label = parts.join(QStringLiteral(" / "));
  if (equal) label += QLatin1Char(' ') + formatCompute(roofs[0].second);
  return label;
}

// Draws the bandwidth slope from `xLow` up to the highest roof's ridge point, then each roof from
// its ridge point to `xHigh`, labelled at its right end: a measured roof below its line, a
// datasheet roof above it, so the two (measured a little under the datasheet) rarely meet; the
// chart moves those that would overprint (ChartView::keepApart). Returns the labels.
std::vector<QCPItemText*> drawDeviceRoofline(ChartView* view, const Roofline& line, double xLow,
                                             double xHigh, const QString& devicePrefix) {
  std::vector<QCPItemText*> labels;
  QColor color = view->palette().color(QPalette::Text);
  if (!line.measured) color.setAlphaF(0.6);
  const QPen pen(color, line.measured ? 2.0 : 1.5, line.measured ? Qt::SolidLine : Qt::DashLine);
  const QString source = line.measured ? QObject::tr("measured") : QObject::tr("datasheet");
  const double topRidge = line.ridge(line.highest());
  addLine(view, xLow, xLow * line.bandwidthGBs, topRidge, line.highest(), pen);
  const double labelX = std::max(xLow, topRidge / kSlopeLabelBeforeRidge);
  labels.push_back(addLabel(
      view, labelX, labelX * line.bandwidthGBs, Qt::AlignRight | Qt::AlignBottom,
      QObject::tr("%1memory %2 (%3)").arg(devicePrefix, formatBandwidth(line.bandwidthGBs), source),
      color));
  std::vector<std::vector<std::pair<QString, double>>> labelGroups;
  for (const auto& roof : line.roofs) {
    addLine(view, line.ridge(roof.second), roof.second, xHigh, roof.second, pen);
    if (!labelGroups.empty() &&
        roof.second <= labelGroups.back().front().second * kSharedLabelRatio)
      labelGroups.back().push_back(roof);
    else
      labelGroups.push_back({roof});
  }
  for (const auto& group : labelGroups) {
    // Below the lowest line of a measured group, above the highest of a datasheet one.
    const double height = line.measured ? group.front().second : group.back().second;
    labels.push_back(addLabel(
        view, xHigh, height, Qt::AlignRight | (line.measured ? Qt::AlignTop : Qt::AlignBottom),
        QObject::tr("%1%2 (%3)").arg(devicePrefix, roofLabel(group), source), color));
  }
  return labels;
}

}  // namespace

void drawRoofline(ChartView* view, const std::vector<RunResult>& results,
                  const std::vector<DeviceCeilings>& ceilings, desktop::IntensityCache& intensities,
                  const std::vector<QString>& overlays) {
  const auto overlayOf = [&](std::size_t i) {
    return i < overlays.size() ? overlays[i] : QString();
  };
  // The points, one series per kernel and element type (and device, when the session's results
  // mix devices; an overlay's label names its own), ordered by intensity as the graph stores
  // them, so the tips line up with the points.
  std::vector<RunResult> own;
  for (std::size_t i = 0; i < results.size(); ++i)
    if (overlayOf(i).isEmpty()) own.push_back(results[i]);
  const bool mixed = desktop::mixesDevices(own);
  std::vector<SeriesId> order;
  QHash<QString, std::vector<std::pair<double, std::size_t>>> series;
  QHash<QString, bool> compulsory;
  std::vector<double> intensitiesDrawn;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const std::optional<Intensity> intensity = intensities.of(results[i]);
    // A logarithmic axis has no place for a zero rate or intensity.
    if (!intensity || !usable(intensity->flopsPerByte) || !usable(results[i].gflops)) continue;
    RunResult kernelOnly = results[i];
    kernelOnly.kernel.params.clear();
    const QString overlay = overlayOf(i);
    const SeriesId id = seriesOf(kernelOnly, mixed && overlay.isEmpty(), overlay);
    const QString& name = id.name;
    if (!series.contains(name)) order.push_back(id);
    series[name].emplace_back(intensity->flopsPerByte, i);
    compulsory[name] = intensity->compulsory;
    intensitiesDrawn.push_back(intensity->flopsPerByte);
    if (const std::optional<double> measured = measuredIntensity(results[i]))
      intensitiesDrawn.push_back(*measured);
  }

  const std::vector<Roofline> lines = rooflinesOf(ceilings, results);
  const bool anyMeasured =
      std::any_of(lines.begin(), lines.end(), [](const Roofline& line) { return line.measured; });
  if (order.empty() && lines.empty()) {
    view->showPlaceholder(
        QObject::tr("Run > Measure Ceilings (Ctrl+M) draws the device's roofs;\neach result "
                    "appears as a point at its arithmetic intensity"));
    return;
  }

  std::vector<double> extent = intensitiesDrawn;
  for (const Roofline& line : lines)
    for (const auto& [name, gflops] : line.roofs) extent.push_back(line.ridge(gflops));
  const auto [lowest, highest] = std::minmax_element(extent.begin(), extent.end());
  const double xLow = *lowest / kIntensityMargin, xHigh = *highest * kIntensityMargin;

  const bool severalDevices = std::any_of(lines.begin(), lines.end(), [&](const Roofline& line) {
    return line.device != lines.front().device || line.backend != lines.front().backend;
  });
  std::vector<QCPItemText*> labels;
  for (const Roofline& line : lines) {
    const QString prefix =
        severalDevices ? QString::fromStdString(line.device) + QStringLiteral(": ") : QString();
    const std::vector<QCPItemText*> drawn = drawDeviceRoofline(view, line, xLow, xHigh, prefix);
    labels.insert(labels.end(), drawn.begin(), drawn.end());
  }
  view->keepApart(labels);

  const std::vector<SeriesStyle> styles = seriesStyles(order, view->contrast());
  bool anyCounted = false;
  for (std::size_t s = 0; s < order.size(); ++s) {
    const QString& name = order[s].name;
    std::vector<std::pair<double, std::size_t>>& points = series[name];
    std::stable_sort(points.begin(), points.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    QCPGraph* graph = view->addGraph();
    graph->setName(name);
    graph->setLineStyle(QCPGraph::lsNone);
    graph->setScatterStyle(ChartView::scatterOf(styles[s], 9));
    graph->setPen(QPen(styles[s].color));
    QStringList tips;
    for (const auto& [flopsPerByte, index] : points) {
      graph->addData(flopsPerByte, results[index].gflops);
      tips << pointTip(results[index], {flopsPerByte, compulsory[name]}, ceilings);
    }
    view->setPointTips(graph, tips);
    if (drawMeasuredIntensities(view, name, styles[s], points, results)) anyCounted = true;
  }
  std::vector<LegendEntry> legend = ChartView::groupedLegend(order, styles);
  if (anyCounted) {
    SeriesStyle hollow{view->palette().color(QPalette::Text), QCPScatterStyle::ssCircle, 1, true};
    const QString what = QObject::tr("hollow: at the DRAM bytes counted");
    legend.push_back({what, {what}, hollow});
  }
  view->setLegendEntries(legend);

  if (!anyMeasured) {
    auto* hint = new QCPItemText(view);
    hint->position->setType(QCPItemPosition::ptAxisRectRatio);
    hint->position->setCoords(0.02, 0.03);
    hint->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    hint->setTextAlignment(Qt::AlignLeft);
    hint->setText(lines.empty() ? QObject::tr("No ceilings measured yet: Run > Measure Ceilings "
                                              "(Ctrl+M) draws the device's roofs")
                                : QObject::tr("No ceilings measured yet (dashed: the datasheet): "
                                              "Run > Measure Ceilings (Ctrl+M)"));
    QColor color = view->palette().color(QPalette::Text);
    color.setAlphaF(0.7);
    hint->setColor(color);
    view->keepApart({hint});
  }
  view->autoFit();
}

}  // namespace tilescope::ui
