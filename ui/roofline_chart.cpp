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
constexpr double kIntensityMargin = 16.0;

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

// How many places along its line a roof's or slope's label may take (ChartView::keepClear tries
// them in turn, clear of the points and the other lines).
constexpr int kLabelPlaces = 12;

// The share of the y axis left above the highest roof, for its label (a label row on a plot of
// 100 px, docked at 853x480).
constexpr double kRoomAboveRoofs = 0.2;

// Roofs closer than this factor (FP16 and BF16) would overprint their labels: they share one.
constexpr double kSharedLabelRatio = 1.05;

// A roof's rate in three digits, for its label: "989 TFLOP/s", "51.1 TFLOP/s", "40.0 GFLOP/s".
QString roofRate(double gflops, bool withUnit = true) {
  const double value = gflops >= 1000 ? gflops / 1000 : gflops;
  const QString digits = QString::number(value, 'f', value >= 100 ? 0 : value >= 10 ? 1 : 2);
  if (!withUnit) return digits;
  return digits + (gflops >= 1000 ? QObject::tr(" TFLOP/s") : QObject::tr(" GFLOP/s"));
}

// The label of roofs that share one, short enough to sit by its line: "FP16/BF16 tensor 989
// TFLOP/s" when they are equal, "FP16/BF16 tensor 762/795 TFLOP/s" otherwise.
QString roofLabel(const std::vector<std::pair<QString, double>>& roofs) {
  QStringList names;
  for (const auto& [name, gflops] : roofs) names << name;
  // "FP16 tensor" and "BF16 tensor": the word they end with said once.
  const QString last = names.front().section(QLatin1Char(' '), -1);
  const bool sameLast =
      names.size() > 1 && names.front().contains(QLatin1Char(' ')) &&
      std::all_of(names.begin(), names.end(), [&](const QString& name) {
        return name.contains(QLatin1Char(' ')) && name.section(QLatin1Char(' '), -1) == last;
      });
  if (sameLast)
    for (QString& name : names) name = name.section(QLatin1Char(' '), 0, -2);
  QString label = names.join(QLatin1Char('/')) + (sameLast ? QLatin1Char(' ') + last : QString());
  const bool equal = std::all_of(roofs.begin(), roofs.end(),
                                 [&](const auto& roof) { return roof.second == roofs[0].second; });
  const bool oneUnit = std::all_of(roofs.begin(), roofs.end(), [&](const auto& roof) {
    return (roof.second >= 1000) == (roofs[0].second >= 1000);
  });
  QStringList rates;
  for (const auto& [name, gflops] : roofs) rates << roofRate(gflops, !oneUnit);
  if (equal)
    label += QLatin1Char(' ') + roofRate(roofs[0].second);
  else
    label += QLatin1Char(' ') + rates.join(QLatin1Char('/')) +
             (oneUnit ? QLatin1Char(' ') + roofRate(roofs[0].second).section(QLatin1Char(' '), 1)
                      : QString());
  return label;
}

// Draws the bandwidth slope from `xLow` up to the highest roof's ridge point, then each roof from
// its ridge point to `xHigh`. Each is labelled near its line where no point or other line is
// (ChartView::keepClear): a roof's label right-aligned at places from the right end towards its
// ridge, a measured roof's below its line first, a datasheet roof's above (the two, measured a
// little under the datasheet, rarely meet); the slope's above it, from just before the ridge down.
void drawDeviceRoofline(ChartView* view, const Roofline& line, double xLow, double xHigh,
                        const QString& devicePrefix, const Roofline* partner) {
  // A device measured and on the datasheet: the measured lines' labels give the datasheet's
  // figures too ("of 66.9 TFLOP/s"), and the datasheet's lines go unlabelled where the measured
  // ones say them (half as many labels to place among lines a few pixels apart).
  const auto partnerRate = [&](const QString& name) -> std::optional<double> {
    if (!partner) return std::nullopt;
    for (const auto& [roof, gflops] : partner->roofs)
      if (roof == name) return gflops;
    return std::nullopt;
  };
  QColor color = view->palette().color(QPalette::Text);
  if (!line.measured) color.setAlphaF(0.6);
  const QPen pen(color, (line.measured ? 2.0 : 1.5) * view->drawScale(),
                 line.measured ? Qt::SolidLine : Qt::DashLine);
  const double topRidge = line.ridge(line.highest());
  addLine(view, xLow, xLow * line.bandwidthGBs, topRidge, line.highest(), pen);
  // Places from `from` to `to` (log-spaced, both ends included).
  const auto along = [](double from, double to) {
    std::vector<double> places;
    for (int i = 0; i < kLabelPlaces; ++i)
      places.push_back(from * std::pow(to / from, double(i) / (kLabelPlaces - 1)));
    return places;
  };
  // Above the slope (over the datasheet's, where it runs higher beside it), then below.
  const double slopeAbove = partner && line.measured
                                ? std::max(line.bandwidthGBs, partner->bandwidthGBs)
                                : line.bandwidthGBs;
  std::vector<LabelPlace> slopeSpots;
  for (bool above : {true, false}) {
    for (double x : along(topRidge / 1.3, std::max(xLow * 1.5, topRidge / 1000))) {
      slopeSpots.push_back(
          {{x, x * (above ? slopeAbove : line.bandwidthGBs)},
           above ? Qt::AlignRight | Qt::AlignBottom : Qt::AlignLeft | Qt::AlignTop});
    }
  }
  // "memory 4.21 of 4.80 TB/s": measured, of the datasheet's.
  QString slopeText =
      QObject::tr("%1memory %2").arg(devicePrefix, formatBandwidth(line.bandwidthGBs));
  if (partner && line.measured) {
    const QString measured = formatBandwidth(line.bandwidthGBs);
    const QString sheet = formatBandwidth(partner->bandwidthGBs);
    const QString unit = measured.section(QLatin1Char(' '), 1);
    slopeText = unit == sheet.section(QLatin1Char(' '), 1)
                    ? QObject::tr("%1memory %2 of %3")
                          .arg(devicePrefix, measured.section(QLatin1Char(' '), 0, 0), sheet)
                    : QObject::tr("%1memory %2 of %3").arg(devicePrefix, measured, sheet);
  }
  QCPItemText* slope = partner && !line.measured
                           ? nullptr
                           : addLabel(view, topRidge, line.highest(),
                                      Qt::AlignRight | Qt::AlignBottom, slopeText, color);
  std::vector<std::vector<std::pair<QString, double>>> labelGroups;
  for (const auto& roof : line.roofs) {
    addLine(view, line.ridge(roof.second), roof.second, xHigh, roof.second, pen);
    if (!labelGroups.empty() &&
        roof.second <= labelGroups.back().front().second * kSharedLabelRatio)
      labelGroups.back().push_back(roof);
    else
      labelGroups.push_back({roof});
  }
  // From the highest roof down: its label takes the room above the roofs, the lower ones find
  // theirs below and beside.
  std::reverse(labelGroups.begin(), labelGroups.end());
  for (const auto& group : labelGroups) {
    const double low = group.front().second, high = group.back().second;
    std::vector<LabelPlace> spots;
    const Qt::Alignment below = Qt::AlignRight | Qt::AlignTop;
    const Qt::Alignment over = Qt::AlignRight | Qt::AlignBottom;
    for (bool first : {true, false}) {
      const bool under = line.measured == first;
      // Ending at places from the right end leftwards, then starting at places from the ridge.
      for (double x : along(xHigh, line.ridge(high) * 2))
        spots.push_back({{x, under ? low : high}, under ? below : over});
      for (double x : along(line.ridge(high) * 1.1, xHigh / 2)) {
        spots.push_back(
            {{x, under ? low : high}, Qt::AlignLeft | (under ? Qt::AlignTop : Qt::AlignBottom)});
      }
    }
    // The datasheet's figures of the group's roofs, where the partner has them all.
    QStringList sheet;
    bool sheetHasAll = partner != nullptr;
    double sheetHighest = 0;
    for (const auto& [name, gflops] : group) {
      const std::optional<double> rate = partnerRate(name);
      sheetHasAll = sheetHasAll && rate;
      if (rate) sheetHighest = std::max(sheetHighest, *rate);
      if (rate && !sheet.contains(roofRate(*rate))) sheet << roofRate(*rate);
    }
    if (!line.measured && sheetHasAll) continue;  // the measured roof's label says it
    // "FP32 51.1 of 66.9 TFLOP/s": measured, of the datasheet's.
    QString text = QObject::tr("%1%2").arg(devicePrefix, roofLabel(group));
    if (line.measured && sheetHasAll) {
      const QString unit = text.section(QLatin1Char(' '), -1);
      const bool sameUnit = std::all_of(sheet.begin(), sheet.end(), [&](const QString& rate) {
        return rate.section(QLatin1Char(' '), -1) == unit;
      });
      QStringList rates;
      for (const QString& rate : sheet)
        rates << (sameUnit ? rate.section(QLatin1Char(' '), 0, 0) : rate);
      text = sameUnit ? QObject::tr("%1 of %2 %3")
                            .arg(text.section(QLatin1Char(' '), 0, -2),
                                 rates.join(QLatin1Char('/')), unit)
                      : QObject::tr("%1 of %2").arg(text, rates.join(QLatin1Char('/')));
    }
    // A label that gives the datasheet's figure too may sit over the datasheet's line, higher.
    if (line.measured && sheetHasAll && sheetHighest > high) {
      for (double x : along(xHigh, partner->ridge(sheetHighest) * 2))
        spots.push_back({{x, sheetHighest}, over});
    }
    // Then on two lines, by the right end, where one line finds no room.
    const qsizetype of = text.indexOf(QLatin1String(" of "));
    const qsizetype cut = of > 0 ? of : text.lastIndexOf(QLatin1Char(' '), text.size() - 9);
    if (cut > 0) {
      const QString twoLines = text.left(cut) + QLatin1Char('\n') + text.mid(cut + 1);
      for (bool first : {true, false}) {
        const bool under = line.measured == first;
        for (double x : along(xHigh, line.ridge(high) * 2))
          spots.push_back({{x, under ? low : high}, under ? below : over, 0, twoLines});
      }
    }
    // On a small plot, the measured figures alone on two lines ("FP8 tensor" over "1540
    // TFLOP/s"): the dashed roofs and the points' tips give the datasheet's.
    if (line.measured && sheetHasAll) {
      const QString measuredOnly = QObject::tr("%1%2").arg(devicePrefix, roofLabel(group));
      const qsizetype space = measuredOnly.lastIndexOf(QLatin1Char(' '), -1);
      const qsizetype before = measuredOnly.lastIndexOf(QLatin1Char(' '), space - 1);
      if (before > 0)
        spots.push_back(
            {{xHigh, low},
             below,
             0,
             measuredOnly.left(before) + QLatin1Char('\n') + measuredOnly.mid(before + 1)});
    }
    QCPItemText* label = addLabel(view, xHigh, low, below, text, color);
    label->setTextAlignment(Qt::AlignRight);
    view->keepClear(label, std::move(spots), true);
  }
  // The slope's label after the roofs': they are fewer places to put.
  if (slope) view->keepClear(slope, std::move(slopeSpots), true);
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
  for (const Roofline& line : lines) {
    const QString prefix =
        severalDevices ? QString::fromStdString(line.device) + QStringLiteral(": ") : QString();
    // The same device's other roofline, measured or from the datasheet.
    const auto partner = std::find_if(lines.begin(), lines.end(), [&](const Roofline& other) {
      return other.measured != line.measured && other.device == line.device &&
             other.backend == line.backend;
    });
    drawDeviceRoofline(view, line, xLow, xHigh, prefix,
                       partner == lines.end() ? nullptr : &*partner);
  }

  const std::vector<SeriesStyle> styles = view->stylesOf(order);
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
  // What the roofs' lines mean: solid measured, dashed from the datasheet.
  for (bool measured : {true, false}) {
    if (std::none_of(lines.begin(), lines.end(),
                     [&](const Roofline& line) { return line.measured == measured; }))
      continue;
    QColor color = view->palette().color(QPalette::Text);
    if (!measured) color.setAlphaF(0.6);
    const QString what =
        measured ? QObject::tr("roofs as measured") : QObject::tr("roofs from the datasheet");
    // Short where the legend is short of room.
    const QString brief = measured ? QObject::tr("measured") : QObject::tr("datasheet");
    LegendEntry entry{brief, {what}, view->plainStyle(color, !measured, measured ? 2.0 : 1.5)};
    entry.lineOnly = true;
    legend.push_back(entry);
  }
  if (anyCounted) {
    const SeriesStyle hollow = view->plainStyle(view->palette().color(QPalette::Text), true, 1);
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
    hint->setText(lines.empty() ? QObject::tr("No ceilings measured yet:\nRun > Measure Ceilings "
                                              "(Ctrl+M) draws the device's roofs")
                                : QObject::tr("No ceilings measured yet (dashed: the datasheet):\n"
                                              "Run > Measure Ceilings (Ctrl+M)"));
    QColor color = view->palette().color(QPalette::Text);
    color.setAlphaF(0.7);
    hint->setColor(color);
    // In a corner clear of the points and lines: top left, top right, bottom right, bottom left.
    view->keepClear(hint, {{{0.02, 0.03}, Qt::AlignLeft | Qt::AlignTop},
                           {{0.98, 0.03}, Qt::AlignRight | Qt::AlignTop},
                           {{0.98, 0.97}, Qt::AlignRight | Qt::AlignBottom},
                           {{0.02, 0.97}, Qt::AlignLeft | Qt::AlignBottom}});
  }
  if (view->autoFit() && !lines.empty()) {
    // Room above the highest roof for its label: it sits at least kRoomAboveRoofs of the axis's
    // (logarithmic) height below the top.
    double top = 0;
    for (const Roofline& line : lines) top = std::max(top, line.highest());
    const QCPRange range = view->yAxis->range();
    const double upper =
        std::exp((std::log(top) - kRoomAboveRoofs * std::log(range.lower)) / (1 - kRoomAboveRoofs));
    if (upper > range.upper) view->yAxis->setRangeUpper(upper);
  }
}

}  // namespace tilescope::ui
