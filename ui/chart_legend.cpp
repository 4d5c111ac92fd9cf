// SPDX-License-Identifier: GPL-3.0-or-later
// The chart's legend: which entries it lists, where it stands (below the plot or beside it) and
// how its entries are laid out in the room it has.
#include "chart_legend.hpp"

#include "chart_text.hpp"

namespace tilescope::ui {
namespace {

// The legend below the plot takes at most this share of the chart's height; past it, beside the
// plot at most this share of the width; past that, below again, up to the last share.
constexpr double kLegendBelowShare = 0.25;
constexpr double kLegendBesideShare = 0.32;
constexpr double kMostLegendBelowShare = 0.4;
// The plot keeps at least this much of the chart's height from the legend, and an entry at least
// this many letters.
constexpr int kLeastPlotHeight = 60;
constexpr double kLeastPlotShare = 0.3;
constexpr int kLeastLegendLetters = 6;
// A docked page shorter than this (the charts docked at 150 % on a 1280x720 screen) keeps its
// height for the plot: a legend of more rows than one taking more than this share runs on below
// the page.
constexpr int kShortPage = 320;
constexpr double kLegendShortPageShare = 0.1;

}  // namespace

void ChartView::placeLegend(LegendPlace place) {
  QCPLayout* now = legend->layout();
  const LegendPlace current = !now           ? LegendPlace::Nowhere
                              : now == body_ ? LegendPlace::Beside
                                             : LegendPlace::Below;
  if (current == place) return;
  if (now) {
    now->take(legend);
    now->simplify();
  }
  if (place == LegendPlace::Beside) {
    body_->addElement(0, 1, legend);
    body_->setColumnStretchFactor(0, 1);
    body_->setColumnStretchFactor(1, 0.001);
  } else if (place == LegendPlace::Below) {
    plotLayout()->addElement(2, 0, legend);
    plotLayout()->setRowStretchFactor(2, 0.001);
  }
  static_cast<FullWidthLegend*>(legend)->setBeside(place == LegendPlace::Beside);
}

void ChartView::setLegendEntries(const std::vector<LegendEntry>& entries) {
  legendEntries_ = entries;
  legendShown_ = {};
  legendRoom_ = {};
  legend->clearItems();
  for (const LegendEntry& entry : entries) legend->addItem(new EntryLegendItem(legend, entry));
  legend->setVisible(legendWanted_ && !entries.empty());
  legend->setMinimumSize(0, 0);
  // A hidden legend takes no room; fitLegend places a shown one.
  if (!legend->visible()) placeLegend(LegendPlace::Nowhere);
}

std::vector<LegendEntry> ChartView::groupedLegend(const std::vector<SeriesId>& series,
                                                  const std::vector<SeriesStyle>& styles) {
  std::vector<LegendEntry> entries;
  QHash<QString, std::size_t> entryOf;
  for (std::size_t i = 0; i < series.size(); ++i) {
    const auto found = entryOf.constFind(series[i].group);
    if (found != entryOf.constEnd()) {
      entries[*found].members << series[i].name;
      continue;
    }
    entryOf.insert(series[i].group, entries.size());
    entries.push_back({series[i].group, {series[i].name}, styles[i], false});
  }
  return entries;
}

void ChartView::setLegendWanted(bool wanted) {
  legendWanted_ = wanted;
  legend->setVisible(wanted && !legendEntries_.empty());
  legendShown_ = {};
  legendRoom_ = {};
  // A hidden legend keeps no room (the layout still counts an invisible element's minimum);
  // shown again, fitLegend asks for its rows.
  legend->setMinimumSize(0, 0);
  if (!legend->visible()) placeLegend(LegendPlace::Nowhere);
  replot(QCustomPlot::rpQueuedReplot);
}

ChartView::LegendShown ChartView::legendFor(QSize size, bool runsOn) const {
  const QFont font = legend->font();
  const int spacing = legend->columnSpacing();
  const int margins = legend->margins().left() + legend->margins().right();
  const int verticalMargins = legend->margins().top() + legend->margins().bottom();
  const int count = int(legendEntries_.size());
  const int width = size.width() - plotLayout()->margins().left() - plotLayout()->margins().right();
  const int height = size.height();
  // The room of an entry's text: its cell less its icon, padding and margins.
  EntryLegendItem probe(legend, {});
  probe.setFont(font);
  const int frame = legend->iconSize().width() + legend->iconTextPadding() +
                    probe.margins().left() + probe.margins().right();
  // The widest entry as it would be drawn whole, and the height of a row.
  const auto measure = [&](bool compact, int mostText, int* widest, int* rowHeight) {
    *widest = 0;
    *rowHeight = 0;
    for (const LegendEntry& entry : legendEntries_) {
      EntryLegendItem item(legend, entry);
      item.setFont(font);
      item.setCompact(compact);
      item.setMostTextWidth(mostText);
      const QSize hint = item.minimumOuterSizeHint();
      *widest = std::max(*widest, hint.width());
      *rowHeight = std::max(*rowHeight, hint.height());
    }
  };
  const auto heightOf = [&](int rows, int rowHeight) {
    return rows * rowHeight + (rows - 1) * legend->rowSpacing() + verticalMargins;
  };
  const auto below = [&](bool compact) {
    const int mostText = std::max(width - margins - frame, 1);
    int widest = 0, rowHeight = 0;
    measure(compact, mostText, &widest, &rowHeight);
    const int columns =
        std::clamp((width - margins + spacing) / std::max(1, widest + spacing), 1, count);
    const int rows = (count + columns - 1) / columns;
    return LegendShown{false,
                       compact,
                       mostText,
                       columns,
                       width,
                       heightOf(rows, rowHeight),
                       heightOf(1, rowHeight)};
  };
  // Beside: one column (or more, as the height asks) no wider than a share of the chart, as tall
  // as the chart below its title.
  const auto beside = [&](bool compact) -> std::optional<LegendShown> {
    const int room = int(width * kLegendBesideShare);
    int widest = 0, rowHeight = 0;
    // Beside only where every entry shows whole.
    measure(compact, 0, &widest, &rowHeight);
    const int mostText = widest - frame;
    const int titleHeight = title_->outerRect().height();
    const int tall =
        height - titleHeight - plotLayout()->margins().top() - plotLayout()->margins().bottom() - 4;
    const int rowsFit = std::max(1, (tall - verticalMargins + legend->rowSpacing()) /
                                        std::max(1, rowHeight + legend->rowSpacing()));
    const int columns = (count + rowsFit - 1) / rowsFit;
    const int rows = (count + columns - 1) / columns;
    const int across = columns * widest + (columns - 1) * spacing + margins;
    if (across > room || heightOf(rows, rowHeight) > tall) return std::nullopt;
    return LegendShown{true,
                       compact,
                       mostText,
                       columns,
                       across,
                       heightOf(rows, rowHeight),
                       heightOf(1, rowHeight)};
  };
  // The most height the legend may take and leave the title, the axes and a plot.
  const int titleHeight = title_->outerRect().height();
  const int plotRoom = std::max(kLeastPlotHeight, int(height * kLeastPlotShare));
  const int room = height - titleHeight - 2 * plotLayout()->rowSpacing() -
                   axisRect()->margins().top() - axisRect()->margins().bottom() - plotRoom;
  const int most = std::min(int(height * kMostLegendBelowShare), room);
  for (bool compact : {false, true}) {
    const LegendShown shown = below(compact);
    if (shown.height <= std::min(int(height * kLegendBelowShare), most)) return shown;
  }
  for (bool compact : {false, true})
    if (const std::optional<LegendShown> shown = beside(compact)) return *shown;
  // Running on below the chart's height, compact entries show whole.
  if (runsOn) {
    LegendShown shown = below(true);
    shown.fits = shown.height <= most;
    return shown;
  }
  // Compact entries in more columns, each shortened to its column (kept distinct), until they
  // fit; no narrower than a few letters.
  const int fewestLetters = QFontMetrics(font).averageCharWidth() * kLeastLegendLetters;
  LegendShown shown = below(true);
  for (int columns = shown.columns + 1; columns <= count && shown.height > most; ++columns) {
    const int mostText = (width - margins - (columns - 1) * spacing) / columns - frame;
    if (mostText < fewestLetters) break;
    int widest = 0, rowHeight = 0;
    measure(true, mostText, &widest, &rowHeight);
    const int rows = (count + columns - 1) / columns;
    shown = LegendShown{
        false, true, mostText, columns, width, heightOf(rows, rowHeight), heightOf(1, rowHeight),
        true,  true};
  }
  // Past that, an export or a presentation lists every entry however much of the height that
  // takes; a docked chart asks for more height (askRoomForLegend).
  shown.fits = shown.height <= most;
  return shown;
}

void ChartView::askRoomForLegend() {
  // A presentation or an export has the room it has.
  if (presenting_ || exporting_) return;
  // The height the chart is seen at: its parent's (ChartPanel's scroll area, which may be a
  // little shorter than the least chart), else its own.
  const int seen = parentWidget() && parentWidget()->height() > 0
                       ? parentWidget()->height()
                       : std::max(height(), kLeastChartHeight);
  const int titleHeight = title_->outerRect().height();
  const bool listed = legend->visible() && !legendEntries_.empty();
  if (listed && (legendRoom_.width != width() || legendRoom_.seenHeight != seen ||
                 legendRoom_.titleHeight != titleHeight)) {
    legendRoom_ = {width(), seen, titleHeight, kLeastChartHeight, std::nullopt};
    // Too short for every entry, or for every entry whole, or a short page whose legend of
    // several rows would take the plot's height: as tall as the plot and its axes keeping the
    // page but for the legend's first row, the rest of the legend (its entries whole) going on
    // below.
    const LegendShown atSeen = legendFor({width(), seen});
    const bool crowds = seen < kShortPage && atSeen.height > atSeen.oneRow &&
                        atSeen.height > seen * kLegendShortPageShare;
    if (!atSeen.fits || atSeen.shortened || crowds) {
      const LegendShown shown = legendFor({width(), seen}, true);
      legendRoom_.grown = shown;
      // A title wrapped onto more lines than it has takes them from the plot's three quarters.
      const int wrappedLines = std::max(
          int(title_->text().count(QLatin1Char('\n')) - fullTitle_.count(QLatin1Char('\n'))), 0);
      legendRoom_.height =
          std::max(seen, seen + shown.height - shown.oneRow +
                             wrappedLines * QFontMetrics(title_->font()).lineSpacing());
    }
  }
  const int least = listed ? legendRoom_.height : kLeastChartHeight;
  if (minimumHeight() != least) setMinimumHeight(least);
}

int ChartView::seenHeight() const {
  const bool grown = !presenting_ && !exporting_ && legendRoom_.grown;
  return grown ? std::min(legendRoom_.seenHeight, viewport().height()) : viewport().height();
}

bool ChartView::fitLegend() {
  if (!legend->visible() || legendEntries_.empty()) return false;
  // A docked chart grown for its legend keeps the legend it grew for.
  const bool grown = !presenting_ && !exporting_ && legendRoom_.grown;
  const LegendShown shown = grown ? *legendRoom_.grown : legendFor(viewport().size());
  if (shown == legendShown_) return false;
  legendShown_ = shown;
  legend->clearItems();
  // Every entry, each text distinct (a shortened one keeps what differs).
  QStringList texts;
  std::vector<EntryLegendItem*> items;
  for (const LegendEntry& entry : legendEntries_) {
    auto* item = new EntryLegendItem(legend, entry);
    item->setFont(legend->font());
    item->setCompact(shown.compact);
    item->setMostTextWidth(shown.mostTextWidth);
    texts << item->text();
    items.push_back(item);
  }
  const QStringList distinct =
      elidedDistinct(texts, QFontMetrics(legend->font()), shown.mostTextWidth);
  for (std::size_t i = 0; i < items.size(); ++i) {
    items[i]->setShownText(distinct[int(i)]);
    legend->addItem(items[i]);
  }
  legend->setWrap(shown.columns);
  legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
  placeLegend(shown.beside ? LegendPlace::Beside : LegendPlace::Below);
  // The layout would give a wrapped legend less room than its rows need: ask for all of it (the
  // sizes counted the legend's margins: set its outer rectangle).
  legend->setSizeConstraintRect(QCPLayoutElement::scrOuterRect);
  legend->setMinimumSize(shown.beside ? shown.width : 0, shown.height);
  legend->setMaximumSize(shown.beside ? shown.width : QWIDGETSIZE_MAX,
                         shown.beside ? shown.height : QWIDGETSIZE_MAX);
  return true;
}

}  // namespace tilescope::ui
