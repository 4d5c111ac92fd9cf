// SPDX-License-Identifier: GPL-3.0-or-later
#include "chart_view.hpp"

#include <QContextMenuEvent>
#include <QMenu>
#include <QToolTip>
#include <QWindow>
#include <cmath>

#include "chart_legend.hpp"

namespace tilescope::ui {
namespace {

// How close (in pixels) the pointer must be to a point for its tooltip.
constexpr double kHoverRadius = 12.0;
// Room left between two category labels, and the most lines a wrapped one may take.
constexpr int kLabelGap = 6;
constexpr int kMostLabelLines = 4;
// An upright category label takes at most this share of the chart's height.
constexpr double kUprightLabelShare = 0.25;
// The legend takes at most this share of the chart's height (and at least one row), so the plot
// keeps its room on a small or docked chart; entries past it are listed on hover.
constexpr double kMostLegendShare = 0.22;
// A label kept apart moves at most this many of its heights from where it asks to be.
constexpr int kMostLabelShift = 2;

// "naive tile=16\n512³" as lines no wider than `width`, breaking at spaces; empty when a word
// is wider or it needs more than kMostLabelLines lines.
QString wrapped(const QString& label, const QFontMetrics& metrics, int width) {
  QStringList lines;
  for (const QString& part : label.split(QLatin1Char('\n'))) {
    QString line;
    for (const QString& word : part.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
      if (metrics.horizontalAdvance(word) > width) return {};
      const QString longer = line.isEmpty() ? word : line + QLatin1Char(' ') + word;
      if (metrics.horizontalAdvance(longer) <= width) {
        line = longer;
      } else {
        lines << line;
        line = word;
      }
    }
    lines << line;
  }
  return lines.size() <= kMostLabelLines ? lines.join(QLatin1Char('\n')) : QString();
}

// Logarithmic ticks at 1, 2 and 5 times each power of ten (every integer multiple when the range
// is under a decade, only the powers when it spans many), so every log axis has readable labels.
class DecadeTicker : public QCPAxisTickerLog {
 protected:
  QVector<double> createTickVector(double tickStep, const QCPRange& range) override {
    if (range.lower <= 0 || range.upper <= range.lower) {
      return QCPAxisTickerLog::createTickVector(tickStep, range);
    }
    const int first = int(std::floor(std::log10(range.lower)));
    const int last = int(std::ceil(std::log10(range.upper)));
    const auto ticksWith = [&](std::initializer_list<double> mantissas) {
      QVector<double> ticks;
      for (int exponent = first; exponent <= last; ++exponent) {
        for (double mantissa : mantissas) {
          const double tick = mantissa * std::pow(10.0, exponent);
          if (tick >= range.lower && tick <= range.upper) ticks << tick;
        }
      }
      return ticks;
    };
    constexpr int kFewest = 4, kMost = 14;
    QVector<double> ticks = ticksWith({1, 2, 5});
    if (ticks.size() < kFewest) ticks = ticksWith({1, 2, 3, 4, 5, 6, 7, 8, 9});
    if (ticks.size() > kMost) ticks = ticksWith({1});
    return ticks;
  }
};

// Widens [lower, upper] by `margin` of its extent (or by a factor on a logarithmic axis), and
// gives a single value some room.
QCPRange padded(QCPRange range, bool logarithmic, double margin) {
  if (logarithmic) {
    const double factor = range.lower == range.upper
                              ? 2.0
                              : std::max(1.2, std::pow(range.upper / range.lower, margin));
    return {range.lower / factor, range.upper * factor};
  }
  const double extent = range.upper - range.lower;
  const double pad = extent > 0 ? extent * margin : std::max(std::abs(range.upper) * 0.1, 1.0);
  return {range.lower - pad, range.upper + pad};
}

}  // namespace

ChartView::ChartView(const QString& title, QWidget* parent) : QCustomPlot(parent) {
  setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  setMouseTracking(true);
  setMinimumSize(320, 220);

  QFont titleFont = font();
  titleFont.setBold(true);
  titleFont.setPointSizeF(titleFont.pointSizeF() * 1.15);
  plotLayout()->insertRow(0);
  fullTitle_ = title;
  title_ = new QCPTextElement(this, title, titleFont);
  plotLayout()->addElement(0, 0, title_);

  // The legend sits below the plot, so it never covers data and long entries (the ladder's
  // parameter lists) never squeeze the plot or clip the title; entries fill rows of as many
  // columns as the width takes (fitLegend).
  delete legend;
  legend = new FullWidthLegend;
  plotLayout()->addElement(2, 0, legend);
  legend->setLayer(QStringLiteral("legend"));
  plotLayout()->setRowStretchFactor(2, 0.001);
  legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  legend->setWrap(2);
  legend->setVisible(false);
  legend->setIconSize(22, 12);
  legend->setColumnSpacing(12);
  // The legend holds one entry per group (setLegendEntries), not one per plottable.
  setAutoAddPlottableToLegend(false);

  for (QCPAxis* axis : axisRect()->axes()) axis->setPadding(6);
  connect(this, &QCustomPlot::afterLayout, this, &ChartView::fitToLayout);
  applyPalette();
}

QCPScatterStyle ChartView::scatterOf(const SeriesStyle& style, double size) {
  // A light fill, so the crosses and pluses inside a marker stay visible.
  QColor fill = style.color;
  fill.setAlphaF(0.45);
  return QCPScatterStyle(style.shape, QPen(style.color, 1.5),
                         style.overlaid ? QBrush(Qt::NoBrush) : QBrush(fill), size);
}

QPen ChartView::lineOf(const SeriesStyle& style) {
  return QPen(style.color, style.lineWidth, style.overlaid ? Qt::DashLine : Qt::SolidLine);
}

QPen ChartView::barOutline(const SeriesStyle& style) {
  return style.overlaid ? QPen(style.color, 1.5, Qt::DashLine) : QPen(style.color.darker(130));
}

QBrush ChartView::barFill(const SeriesStyle& style) {
  QColor fill = style.color;
  if (style.overlaid) fill.setAlphaF(0.3);
  return fill;
}

void ChartView::styleBars(QCPBars* bars, const SeriesStyle& style) {
  bars->setPen(barOutline(style));
  bars->setBrush(barFill(style));
}

void ChartView::setLegendEntries(const std::vector<LegendEntry>& entries) {
  legendEntries_ = entries;
  legendShown_ = {};
  legend->clearItems();
  for (const LegendEntry& entry : entries) legend->addItem(new EntryLegendItem(legend, entry));
  legend->setVisible(legendWanted_ && !entries.empty());
  legend->setMinimumSize(0, 0);
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
  // A hidden legend keeps no room (the layout still counts an invisible element's minimum);
  // shown again, fitLegend asks for its rows.
  legend->setMinimumSize(0, 0);
  replot(QCustomPlot::rpQueuedReplot);
}

void ChartView::setCategories(const QStringList& labels) {
  categories_ = labels;
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  for (int i = 0; i < labels.size(); ++i) ticker->addTick(i + 1, labels[i]);
  xAxis->setTicker(ticker);
  xAxis->setTickLabelRotation(0);
}

void ChartView::keepApart(const std::vector<QCPItemText*>& labels) {
  for (QCPItemText* label : labels) apart_.emplace_back(label, label->position->coords());
}

void ChartView::reset() {
  clearPlottables();
  clearItems();
  tips_.clear();
  apart_.clear();
  placeholder_ = nullptr;
  if (!categories_.isEmpty()) {
    categories_.clear();
    xAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    xAxis->setTickLabelRotation(0);
  }
  setLegendEntries({});
  for (QCPAxis* axis : {xAxis, yAxis}) axis->setTickLabels(true);
}

void ChartView::setTitle(const QString& title) {
  fullTitle_ = title;
  title_->setText(title);
}

QString ChartView::title() const {
  return fullTitle_;
}

QString ChartView::shownTitle() const {
  return title_->text();
}

QRect ChartView::titleRect() const {
  const QFontMetrics metrics(title_->font());
  const QRect text = metrics.boundingRect(title_->rect(), Qt::AlignCenter, title_->text());
  return text;
}

void ChartView::setPointTips(QCPAbstractPlottable* plottable, const QStringList& tips) {
  tips_.insert(plottable, tips);
}

void ChartView::showPlaceholder(const QString& text) {
  // Numbers on empty axes would suggest a scale that means nothing yet.
  for (QCPAxis* axis : {xAxis, yAxis}) axis->setTickLabels(false);
  placeholder_ = new QCPItemText(this);
  placeholder_->setPositionAlignment(Qt::AlignCenter);
  placeholder_->position->setType(QCPItemPosition::ptAxisRectRatio);
  placeholder_->position->setCoords(0.5, 0.5);
  placeholderText_ = text;
  placeholder_->setText(text);
  placeholder_->setTextAlignment(Qt::AlignCenter);
  placeholder_->setClipToAxisRect(false);
  QColor color = palette().color(QPalette::Text);
  color.setAlphaF(0.6);
  placeholder_->setColor(color);
}

void ChartView::resetView() {
  userMovedView_ = false;
  fitToData();
}

bool ChartView::autoFit() {
  if (userMovedView_) return false;
  fitToData();
  return true;
}

void ChartView::fitToData() {
  for (QCPAxis* axis : {xAxis, yAxis}) {
    const bool logarithmic = axis->scaleType() == QCPAxis::stLogarithmic;
    const QCP::SignDomain domain = logarithmic ? QCP::sdPositive : QCP::sdBoth;
    bool any = false;
    QCPRange bounds;
    for (int i = 0; i < plottableCount(); ++i) {
      QCPAbstractPlottable* item = plottable(i);
      bool found = false;
      const QCPRange range = axis == item->keyAxis() ? item->getKeyRange(found, domain)
                                                     : item->getValueRange(found, domain);
      if (!found) continue;
      bounds =
          any ? QCPRange(std::min(bounds.lower, range.lower), std::max(bounds.upper, range.upper))
              : range;
      any = true;
    }
    if (any) axis->setRange(padded(bounds, logarithmic, 0.06));
  }
}

Contrast ChartView::contrast() const {
  return contrastOf(palette());
}

QColor ChartView::plainColor(int index) const {
  return plainSeriesColor(index, contrast());
}

void ChartView::makeLogarithmic(QCPAxis* axis, double base) {
  axis->setScaleType(QCPAxis::stLogarithmic);
  auto ticker = base == 10 ? QSharedPointer<DecadeTicker>::create().staticCast<QCPAxisTickerLog>()
                           : QSharedPointer<QCPAxisTickerLog>::create();
  ticker->setLogBase(base);
  ticker->setSubTickCount(0);
  axis->setTicker(ticker);
  axis->setNumberFormat(QStringLiteral("g"));
  axis->setNumberPrecision(6);
}

void ChartView::applyPalette() {
  const QPalette colors = palette();
  const QColor base = colors.color(QPalette::Base);
  const QColor text = colors.color(QPalette::Text);
  QColor grid = text;
  grid.setAlphaF(0.18);
  QColor subGrid = text;
  subGrid.setAlphaF(0.07);
  setBackground(base);
  axisRect()->setBackground(base);
  for (QCPAxis* axis : axisRect()->axes()) {
    axis->setBasePen(QPen(text));
    axis->setTickPen(QPen(text));
    axis->setSubTickPen(QPen(text));
    axis->setTickLabelColor(text);
    axis->setLabelColor(text);
    axis->grid()->setPen(QPen(grid, 1, Qt::SolidLine));
    axis->grid()->setSubGridPen(QPen(subGrid, 1, Qt::DotLine));
    axis->grid()->setSubGridVisible(true);
    axis->grid()->setZeroLinePen(Qt::NoPen);
  }
  legend->setBrush(base);
  legend->setBorderPen(QPen(colors.color(QPalette::Mid)));
  legend->setTextColor(text);
  title_->setTextColor(text);
}

void ChartView::followScreen() {
  setBufferDevicePixelRatio(devicePixelRatioF());
  QWindow* window = this->window()->windowHandle();
  if (screenFollowed_ || !window) return;
  screenFollowed_ = true;
  // QCustomPlot 2.1 keeps the ratio it had at creation; a move to another screen must reset it.
  connect(window, &QWindow::screenChanged, this, [this] {
    setBufferDevicePixelRatio(devicePixelRatioF());
    replot(QCustomPlot::rpQueuedReplot);
  });
}

void ChartView::showEvent(QShowEvent* event) {
  QCustomPlot::showEvent(event);
  followScreen();
  replot(QCustomPlot::rpQueuedReplot);
}

void ChartView::changeEvent(QEvent* event) {
  QCustomPlot::changeEvent(event);
  if (event->type() == QEvent::PaletteChange) {
    applyPalette();
    emit skinChanged();
    replot(QCustomPlot::rpQueuedReplot);
  }
}

void ChartView::fitToLayout() {
  if (fittingLayout_) return;
  fittingLayout_ = true;
  const bool titleChanged = fitTitle();
  const bool legendChanged = fitLegend();
  const bool labelsChanged = fitCategories();
  if (titleChanged || legendChanged || labelsChanged) updateLayout();
  placeLabelsApart();
  fitPlaceholder();
  fittingLayout_ = false;
}

void ChartView::fitPlaceholder() {
  if (!placeholder_) return;
  // Broken into lines that stay inside the plot, clear of the axis labels of a narrow chart.
  const int width = std::max(axisRect()->width() - 2 * placeholder_->padding().left() - 8, 1);
  const QFontMetrics metrics(placeholder_->font());
  QStringList lines;
  for (const QString& paragraph : placeholderText_.split(QLatin1Char('\n'))) {
    const qsizetype first = lines.size();
    for (const QString& word : paragraph.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
      const QString joined = lines.size() == first ? word : lines.back() + QLatin1Char(' ') + word;
      if (lines.size() > first && metrics.horizontalAdvance(joined) <= width)
        lines.back() = joined;
      else
        lines.push_back(word);
    }
  }
  placeholder_->setText(lines.join(QLatin1Char('\n')));
}

bool ChartView::fitTitle() {
  const int width = viewport().width() - plotLayout()->margins().left() -
                    plotLayout()->margins().right() - title_->margins().left() -
                    title_->margins().right();
  const QFontMetrics metrics(title_->font());
  QStringList lines = fullTitle_.split(QLatin1Char('\n'));
  for (QString& line : lines) line = metrics.elidedText(line, Qt::ElideRight, std::max(width, 0));
  const QString shown = lines.join(QLatin1Char('\n'));
  if (shown == title_->text()) return false;
  title_->setText(shown);
  return true;
}

ChartView::LegendShown ChartView::legendFor(int width, int mostHeight) const {
  const QFont font = legend->font();
  const int spacing = legend->columnSpacing();
  const int margins = legend->margins().left() + legend->margins().right();
  const int count = int(legendEntries_.size());
  // The room of an entry's text: the width less its icon, padding and the margins of its cell.
  EntryLegendItem probe(legend, {});
  probe.setFont(font);
  const int frame = legend->iconSize().width() + legend->iconTextPadding() +
                    probe.margins().left() + probe.margins().right();
  const int mostText = std::max(width - margins - frame, 1);
  LegendShown shown;
  for (bool compact : {false, true}) {
    int widest = 0, rowHeight = 0;
    for (const LegendEntry& entry : legendEntries_) {
      EntryLegendItem item(legend, entry);
      item.setFont(font);
      item.setCompact(compact);
      item.setMostTextWidth(mostText);
      const QSize hint = item.minimumOuterSizeHint();
      widest = std::max(widest, hint.width());
      rowHeight = std::max(rowHeight, hint.height());
    }
    const int columns =
        std::clamp((width - margins + spacing) / std::max(1, widest + spacing), 1, count);
    const int rows = (count + columns - 1) / columns;
    const auto heightOf = [&](int rowCount) {
      return rowCount * rowHeight + (rowCount - 1) * legend->rowSpacing() +
             legend->margins().top() + legend->margins().bottom();
    };
    shown = {compact, mostText, columns, count, heightOf(rows)};
    if (shown.height <= mostHeight) return shown;
    if (!compact) continue;
    // Compact and still too tall: the rows that fit, their last cell saying what is left out.
    const int rowsThatFit =
        std::max(1, (mostHeight - heightOf(1)) / (rowHeight + legend->rowSpacing()) + 1);
    shown.entries = rowsThatFit * columns - 1;
    shown.height = heightOf(rowsThatFit);
  }
  return shown;
}

bool ChartView::fitLegend() {
  if (!legend->visible() || legendEntries_.empty()) return false;
  const int width =
      viewport().width() - plotLayout()->margins().left() - plotLayout()->margins().right();
  const int mostHeight = int(viewport().height() * kMostLegendShare);
  const LegendShown shown = legendFor(width, mostHeight);
  if (shown == legendShown_) return false;
  legendShown_ = shown;
  legend->clearItems();
  const int count = int(legendEntries_.size());
  for (int i = 0; i < std::min(shown.entries, count); ++i) {
    auto* item = new EntryLegendItem(legend, legendEntries_[std::size_t(i)]);
    item->setCompact(shown.compact);
    item->setMostTextWidth(shown.mostTextWidth);
    legend->addItem(item);
  }
  if (shown.entries < count) {
    QStringList leftOut;
    for (int i = std::max(shown.entries, 0); i < count; ++i)
      leftOut << legendEntries_[std::size_t(i)].label;
    legend->addItem(new MoreLegendItem(legend, leftOut));
  }
  legend->setWrap(shown.columns);
  legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
  // The layout would give a wrapped legend less height than its rows need: ask for all of them.
  legend->setMinimumSize(0, shown.height);
  return true;
}

bool ChartView::fitCategories() {
  if (categories_.isEmpty()) return false;
  const QFontMetrics metrics(xAxis->tickLabelFont());
  const double spacing = std::abs(xAxis->coordToPixel(2) - xAxis->coordToPixel(1));
  const int width = int(spacing) - kLabelGap;
  QStringList shown;
  double rotation = 0;
  // Level, wrapped at spaces where needed.
  for (const QString& label : categories_) {
    const QString lines = wrapped(label, metrics, width);
    if (lines.isEmpty()) break;
    shown << lines;
  }
  if (shown.size() != categories_.size()) {
    // Upright on one line, shortened past a share of the height, every n-th one when even one
    // line is too thick for the spacing.
    shown.clear();
    rotation = -90;
    const int longest = std::max(40, int(viewport().height() * kUprightLabelShare));
    const int every = std::max(1, int(std::ceil((metrics.height() + kLabelGap) / spacing)));
    for (int i = 0; i < categories_.size(); ++i) {
      QString line = categories_[i];
      line.replace(QLatin1Char('\n'), QStringLiteral(" \u00b7 "));
      shown << (i % every == 0 ? metrics.elidedText(line, Qt::ElideRight, longest) : QString());
    }
  }
  auto ticker = xAxis->ticker().dynamicCast<QCPAxisTickerText>();
  if (!ticker) return false;
  QMap<double, QString> ticks;
  for (int i = 0; i < shown.size(); ++i) ticks.insert(i + 1, shown[i]);
  if (ticker->ticks() == ticks && xAxis->tickLabelRotation() == rotation) return false;
  ticker->setTicks(ticks);
  xAxis->setTickLabelRotation(rotation);
  return true;
}

void ChartView::placeLabelsApart() {
  const QRectF area = axisRect()->rect();
  std::vector<QRectF> placed;
  for (auto& [label, wanted] : apart_) {
    if (!label) continue;
    label->position->setCoords(wanted);
    label->setVisible(true);
    const QRectF rect =
        QRectF(label->topLeft->pixelPosition(), label->bottomRight->pixelPosition()).normalized();
    // The asked-for place, else one label height further down, up, two down, two up, staying in
    // the plot. Further away it would name the wrong line: it is left out (a larger chart has
    // room for it).
    bool shown = false;
    for (int attempt = 0; attempt < 2 * kMostLabelShift + 1 && !shown; ++attempt) {
      const double offset = ((attempt + 1) / 2) * rect.height() * (attempt % 2 ? 1 : -1);
      const QRectF moved = rect.translated(0, offset);
      const bool free = std::none_of(placed.begin(), placed.end(),
                                     [&](const QRectF& other) { return other.intersects(moved); });
      if (free && area.contains(moved)) {
        label->position->setPixelPosition(label->position->pixelPosition() + QPointF(0, offset));
        placed.push_back(moved);
        shown = true;
      }
    }
    label->setVisible(shown);
  }
}

QString ChartView::tipAt(const QPointF& position) const {
  if (legend->visible() && legend->outerRect().contains(position.toPoint())) {
    for (int i = 0; i < legend->itemCount(); ++i) {
      QCPAbstractLegendItem* item = legend->item(i);
      if (!item || !item->outerRect().contains(position.toPoint())) continue;
      if (const auto* entry = dynamic_cast<const EntryLegendItem*>(item)) return entry->tip();
      if (const auto* more = dynamic_cast<const MoreLegendItem*>(item)) return more->tip();
    }
    return {};
  }
  if (title_->text() != fullTitle_ && title_->outerRect().contains(position.toPoint()))
    return fullTitle_.toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>"));
  if (!categories_.isEmpty() && position.y() > axisRect()->bottom() &&
      position.x() >= axisRect()->left() && position.x() <= axisRect()->right()) {
    const int index = int(std::lround(xAxis->pixelToCoord(position.x()))) - 1;
    if (index >= 0 && index < categories_.size()) {
      return categories_[index].toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>"));
    }
  }
  QString best;
  double bestDistance = kHoverRadius;
  for (auto it = tips_.constBegin(); it != tips_.constEnd(); ++it) {
    QVariant details;
    const double distance = it.key()->selectTest(position, false, &details);
    if (distance < 0 || distance > kHoverRadius) continue;
    const QCPDataSelection hit = details.value<QCPDataSelection>();
    if (hit.isEmpty()) continue;
    const int index = hit.dataRange().begin();
    if (index < 0 || index >= it.value().size()) continue;
    double pointDistance = distance;
    if (!qobject_cast<QCPBars*>(it.key())) {
      // A graph reports the distance to its line; the tooltip belongs to the point itself.
      const QCPPlottableInterface1D* data = it.key()->interface1D();
      const QPointF point =
          it.key()->coordsToPixels(data->dataMainKey(index), data->dataMainValue(index));
      pointDistance = QLineF(point, position).length();
    }
    if (pointDistance <= bestDistance) {
      bestDistance = pointDistance;
      best = it.value().at(index);
    }
  }
  return best;
}

void ChartView::mouseMoveEvent(QMouseEvent* event) {
  QCustomPlot::mouseMoveEvent(event);
  const QString tip = event->buttons() == Qt::NoButton ? tipAt(event->position()) : QString();
  if (tip.isEmpty()) {
    QToolTip::hideText();
  } else {
    QToolTip::showText(event->globalPosition().toPoint(), tip, this);
  }
}

void ChartView::mouseDoubleClickEvent(QMouseEvent* event) {
  QCustomPlot::mouseDoubleClickEvent(event);
  resetView();
  replot(QCustomPlot::rpQueuedReplot);
}

void ChartView::mouseReleaseEvent(QMouseEvent* event) {
  // A drag moved the view; a plain click did not.
  if (event->button() == Qt::LeftButton &&
      (event->position() - pressPosition_).manhattanLength() > 3) {
    userMovedView_ = true;
  }
  QCustomPlot::mouseReleaseEvent(event);
}

void ChartView::mousePressEvent(QMouseEvent* event) {
  pressPosition_ = event->position();
  QCustomPlot::mousePressEvent(event);
}

void ChartView::wheelEvent(QWheelEvent* event) {
  userMovedView_ = true;
  QCustomPlot::wheelEvent(event);
}

void ChartView::contextMenuEvent(QContextMenuEvent* event) {
  QMenu menu(this);
  QAction* show = menu.addAction(tr("Show &Legend"));
  show->setCheckable(true);
  show->setChecked(legendWanted_);
  show->setStatusTip(tr("Show or hide this chart's legend (hover an entry for its series)"));
  connect(show, &QAction::toggled, this, &ChartView::setLegendWanted);
  menu.addAction(tr("&Reset View"), this, [this] {
    resetView();
    replot(QCustomPlot::rpQueuedReplot);
  });
  menu.exec(event->globalPos());
}

void ChartView::leaveEvent(QEvent* event) {
  QCustomPlot::leaveEvent(event);
  QToolTip::hideText();
}

}  // namespace tilescope::ui
