// SPDX-License-Identifier: GPL-3.0-or-later
#include "chart_view.hpp"

#include <QContextMenuEvent>
#include <QMenu>
#include <QToolTip>
#include <QWindow>
#include <cmath>

#include "chart_legend.hpp"
#include "chart_text.hpp"

namespace tilescope::ui {
namespace {

// How close (in pixels) the pointer must be to a point for its tooltip.
constexpr double kHoverRadius = 12.0;
// Text at a desk: never smaller than this many pixels. Presenting: these sizes on a 1000x600
// screen (Presenter::fontScale 1), scaled with the screen (20 and 29 px at 1280x720).
constexpr int kSmallestText = 12;
constexpr double kPresentingTick = 17, kPresentingTitle = 24;
constexpr double kDeskTitleFactor = 1.2, kPlaceholderFactor = 1.25;
// Markers and lines grow this much faster than the screen when presenting.
constexpr double kPresentingDrawFactor = 1.25;
// An axis's title takes at most this many lines.
constexpr int kMostAxisTitleLines = 2;
// A docked chart shorter than this sets a title that would wrap at the ticks' size first.
constexpr int kTallTitleHeight = 440;
// Layout passes after a layout, while the labels still change it.
constexpr int kMostFitPasses = 6;

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
  setMinimumSize(320, kLeastChartHeight);
  // A click gives the chart the focus, so F11 presents it.
  setFocusPolicy(Qt::ClickFocus);

  plotLayout()->insertRow(0);
  fullTitle_ = title;
  title_ = new QCPTextElement(this, title, font());
  plotLayout()->addElement(0, 0, title_);
  // The plot sits in a grid of its own, with the legend beside it when it stands there.
  QCPAxisRect* plot = axisRect();
  plotLayout()->take(plot);
  body_ = new QCPLayoutGrid;
  plotLayout()->addElement(1, 0, body_);
  body_->addElement(0, 0, plot);
  body_->setColumnSpacing(8);

  // The legend lists every entry, below the plot (a row of as many columns as the width takes)
  // or beside it (fitLegend): it never covers data.
  delete legend;
  legend = new FullWidthLegend;
  placeLegend(LegendPlace::Below);
  legend->setLayer(QStringLiteral("legend"));
  legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  legend->setWrap(2);
  legend->setVisible(false);
  placeLegend(LegendPlace::Nowhere);
  legend->setColumnSpacing(12);
  legend->setMargins(QMargins(6, 3, 6, 3));
  // The legend holds one entry per group (setLegendEntries), not one per plottable.
  setAutoAddPlottableToLegend(false);

  for (QCPAxis* axis : axisRect()->axes()) axis->setPadding(6);
  for (QCPAxis* axis : {xAxis, yAxis}) makeLinear(axis);
  // The top axis names groups of bars (setCategories): no line, no ticks, the bottom axis's range.
  // (QCustomPlot draws tick labels only with ticks: they are there, of no length.)
  xAxis2->setTickLabels(true);
  xAxis2->setTickLength(0, 0);
  xAxis2->setSubTicks(false);
  xAxis2->grid()->setVisible(false);
  connect(xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), xAxis2,
          qOverload<const QCPRange&>(&QCPAxis::setRange));
  connect(this, &QCustomPlot::afterLayout, this, &ChartView::fitToLayout);
  applyPalette();
  applyText();
}

ChartView::~ChartView() {
  // A hidden legend is out of the layout, which deletes only what it holds.
  if (!legend->layout()) delete legend;
}

QCPScatterStyle ChartView::scatterOf(const SeriesStyle& style, double size) {
  // A light fill, so the crosses and pluses inside a marker stay visible.
  QColor fill = style.color;
  fill.setAlphaF(0.45);
  return markerStyle(style.marker, QPen(style.color, 1.5 * style.scale),
                     style.overlaid ? QBrush(Qt::NoBrush) : QBrush(fill), size * style.scale);
}

QPen ChartView::lineOf(const SeriesStyle& style) {
  return QPen(style.color, style.lineWidth * style.scale,
              style.overlaid ? Qt::DashLine : Qt::SolidLine);
}

QPen ChartView::barOutline(const SeriesStyle& style) {
  return style.overlaid ? QPen(style.color, 1.5 * style.scale, Qt::DashLine)
                        : QPen(style.color.darker(130), style.scale);
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

void ChartView::setPresenting(bool presenting, double scale) {
  presenting_ = presenting;
  presentScale_ = presenting ? scale : 1;
  // Full screen, the chart takes the screen's height; docked again, it asks for its legend's.
  if (presenting) setMinimumHeight(kLeastChartHeight);
  applyText();
  legendShown_ = {};
  legendRoom_ = {};
  replot(QCustomPlot::rpQueuedReplot);
}

void ChartView::setExporting(bool exporting) {
  exporting_ = exporting;
  legendShown_ = {};
  legendRoom_ = {};
}

double ChartView::drawScale() const {
  return presenting_ ? std::max(1.0, presentScale_ * kPresentingDrawFactor) : 1.0;
}

int ChartView::tickPixels() const {
  if (presenting_) return int(std::ceil(kPresentingTick * presentScale_));
  return std::max(kSmallestText, QFontInfo(font()).pixelSize());
}

int ChartView::titlePixels() const {
  if (presenting_) return int(std::ceil(kPresentingTitle * presentScale_));
  return int(std::ceil(tickPixels() * kDeskTitleFactor));
}

void ChartView::applyText() {
  QFont text = font();
  text.setPixelSize(tickPixels());
  QFont titleFont = font();
  titleFont.setBold(true);
  titleFont.setPixelSize(titlePixels());
  title_->setFont(titleFont);
  for (QCPAxis* axis : axisRect()->axes()) {
    axis->setTickLabelFont(text);
    axis->setLabelFont(text);
    axis->setTickLabelPadding(int(std::lround(5 * drawScale())));
  }
  for (QCPAxis* axis : {xAxis, yAxis}) axis->setTickLengthIn(int(std::lround(5 * drawScale())));
  legend->setFont(text);
  const int icon = int(std::lround(text.pixelSize() * 0.9));
  legend->setIconSize(icon * 2, icon);
  legend->setRowSpacing(int(std::lround(2 * drawScale())));
  for (int i = 0; i < itemCount(); ++i) {
    auto* label = qobject_cast<QCPItemText*>(item(i));
    if (!label) continue;
    QFont font = text;
    if (label == placeholder_)
      font.setPixelSize(int(std::lround(text.pixelSize() * kPlaceholderFactor)));
    label->setFont(font);
  }
}

void ChartView::reset() {
  clearPlottables();
  clearItems();
  tips_.clear();
  clear_.clear();
  placeholder_ = nullptr;
  yTitle_ = nullptr;
  groups_.clear();
  xAxis2->setVisible(false);
  if (!categories_.isEmpty()) {
    categories_.clear();
    categoryTexts_.clear();
    makeLinear(xAxis);
    xAxis->setTickLabelRotation(0);
  }
  setLegendEntries({});
  for (QCPAxis* axis : {xAxis, yAxis}) {
    axis->setVisible(true);
    axis->grid()->setVisible(true);
    axis->setTickLabels(true);
  }
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
  return metrics.boundingRect(title_->rect(), Qt::AlignCenter, title_->text());
}

void ChartView::setPointTips(QCPAbstractPlottable* plottable, const QStringList& tips) {
  tips_.insert(plottable, tips);
}

void ChartView::showPlaceholder(const QString& text) {
  // The words alone: axes and grid without data would say nothing.
  for (QCPAxis* axis : {xAxis, yAxis}) {
    axis->setVisible(false);
    axis->grid()->setVisible(false);
  }
  placeholderText_ = text;
  placeholder_ = new QCPItemText(this);
  placeholder_->position->setType(QCPItemPosition::ptAxisRectRatio);
  placeholder_->position->setCoords(0.5, 0.5);
  placeholder_->setPositionAlignment(Qt::AlignCenter);
  placeholder_->setTextAlignment(Qt::AlignCenter);
  placeholder_->setText(text);
  placeholder_->setPadding(QMargins(8, 8, 8, 8));
  placeholder_->setClipToAxisRect(false);
  QColor color = palette().color(QPalette::Text);
  color.setAlphaF(0.75);
  placeholder_->setColor(color);
  applyText();
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

std::vector<SeriesStyle> ChartView::stylesOf(const std::vector<SeriesId>& series) const {
  std::vector<SeriesStyle> styles = seriesStyles(series, contrast());
  for (SeriesStyle& style : styles) style.scale = drawScale();
  return styles;
}

SeriesStyle ChartView::plainStyle(const QColor& color, bool overlaid, double lineWidth) const {
  SeriesStyle style;
  style.color = color;
  style.lineWidth = lineWidth;
  style.overlaid = overlaid;
  style.scale = drawScale();
  return style;
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
  xAxis2->setBasePen(Qt::NoPen);
  xAxis2->setTickPen(Qt::NoPen);
  legend->setBrush(base);
  // No frame: the legend stands in its own row or column, and a frame would run along the chart's
  // edge.
  legend->setBorderPen(Qt::NoPen);
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
  // Moved into a presentation window and back, the chart may sit in another window now.
  screenFollowed_ = false;
  followScreen();
  replot(QCustomPlot::rpQueuedReplot);
}

void ChartView::changeEvent(QEvent* event) {
  QCustomPlot::changeEvent(event);
  if (event->type() == QEvent::PaletteChange) {
    applyPalette();
    emit skinChanged();
    replot(QCustomPlot::rpQueuedReplot);
  } else if (event->type() == QEvent::FontChange) {
    legendRoom_ = {};
    applyText();
    replot(QCustomPlot::rpQueuedReplot);
  }
}

void ChartView::fitToLayout() {
  if (fittingLayout_) return;
  fittingLayout_ = true;
  applyText();
  for (int pass = 0; pass < kMostFitPasses; ++pass) {
    bool changed = fitTitle();
    changed |= fitLegend();
    changed |= fitCategories();
    changed |= fitAxisLabels();
    changed |= fitTicks();
    if (!changed) break;
    updateLayout();
  }
  placeLabelsClear();
  placeYTitle();
  fitPlaceholder();
  askRoomForLegend();
  fittingLayout_ = false;
}

void ChartView::fitPlaceholder() {
  if (!placeholder_) return;
  // Broken into lines that stay inside the chart.
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
        lines.push_back(metrics.elidedText(word, Qt::ElideRight, width));
    }
  }
  placeholder_->setText(lines.join(QLatin1Char('\n')));
}

bool ChartView::fitTitle() {
  const int width = viewport().width() - plotLayout()->margins().left() -
                    plotLayout()->margins().right() - title_->margins().left() -
                    title_->margins().right();
  // A line too wide breaks after its dash ("Throughput against size — NVIDIA H200 (cuda)"), then
  // between words: a title reads in full. Only a single word wider than the chart is shortened.
  const auto linesAt = [&](const QFont& font) {
    const QFontMetrics metrics(font);
    QStringList lines;
    for (const QString& line : fullTitle_.split(QLatin1Char('\n'))) {
      const qsizetype dash = line.indexOf(QStringLiteral(" \u2014 "));
      QStringList parts{line};
      if (metrics.horizontalAdvance(line) > width && dash > 0)
        parts = QStringList{line.left(dash), line.mid(dash + 3)};
      for (const QString& part : parts) {
        const QString broken = metrics.horizontalAdvance(part) > width
                                   ? wrapped(part, metrics, std::max(width, 1))
                                   : part;
        lines << (broken.isEmpty() ? metrics.elidedText(part, Qt::ElideRight, std::max(width, 0))
                                   : broken)
                     .split(QLatin1Char('\n'));
      }
    }
    return lines;
  };
  QFont font = title_->font();
  font.setPixelSize(titlePixels());
  QStringList lines = linesAt(font);
  // On a short docked chart, a title that would take more lines than it has is set at the
  // ticks' size first: the plot keeps its height.
  if (!presenting_ && seenHeight() < kTallTitleHeight &&
      lines.size() > fullTitle_.count(QLatin1Char('\n')) + 1) {
    QFont smaller = font;
    smaller.setPixelSize(tickPixels());
    if (const QStringList fewer = linesAt(smaller); fewer.size() < lines.size()) {
      font = smaller;
      lines = fewer;
    }
  }
  const QString shown = lines.join(QLatin1Char('\n'));
  if (shown == title_->text() && font == title_->font()) return false;
  title_->setFont(font);
  title_->setText(shown);
  return true;
}

bool ChartView::fitAxisLabels() {
  bool changed = false;
  for (QCPAxis* axis : {xAxis, yAxis}) {
    if (axis->label() != shownAxisLabels_.value(axis)) fullAxisLabels_[axis] = axis->label();
    const int length =
        axis->orientation() == Qt::Horizontal ? axisRect()->width() : axisRect()->height();
    // Too long for the plot's side: on two lines, and shortened only where even they are not
    // enough.
    const QFontMetrics metrics(axis->labelFont());
    const QString& full = fullAxisLabels_.value(axis);
    QString shown = full;
    if (metrics.horizontalAdvance(full) > length) {
      const QString broken = wrapped(full, metrics, std::max(length, 1));
      if (!broken.isEmpty() && broken.count(QLatin1Char('\n')) < kMostAxisTitleLines)
        shown = broken;
      else if (axis == yAxis)
        shown = besidePlotLabel(full);  // keeps the title's room; placeYTitle() draws it
      else
        shown = metrics.elidedText(full, Qt::ElideRight, std::max(length, 0));
    }
    shownAxisLabels_[axis] = shown;
    if (shown == axis->label()) continue;
    axis->setLabel(shown);
    changed = true;
  }
  return changed;
}

QString ChartView::tipAt(const QPointF& position) const {
  if (legend->visible() && legend->outerRect().contains(position.toPoint())) {
    for (int i = 0; i < legend->itemCount(); ++i) {
      QCPAbstractLegendItem* item = legend->item(i);
      if (!item || !item->outerRect().contains(position.toPoint())) continue;
      if (const auto* entry = dynamic_cast<const EntryLegendItem*>(item)) return entry->tip();
    }
    return {};
  }
  if (title_->text() != fullTitle_ && title_->outerRect().contains(position.toPoint()))
    return fullTitle_.toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>"));
  if (!groups_.empty() && position.y() < axisRect()->top() &&
      position.y() > title_->outerRect().bottom() && position.x() >= axisRect()->left() &&
      position.x() <= axisRect()->right()) {
    const int index = int(std::lround(xAxis->pixelToCoord(position.x()))) - 1;
    for (const Group& group : groups_)
      if (index >= group.first && index < group.first + group.count)
        return group.name.toHtmlEscaped();
  }
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
  // The wheel zooms over the plot and its axes; elsewhere (over a legend that runs below the
  // page) it scrolls the page.
  if (!axisRect()->outerRect().contains(event->position().toPoint())) {
    event->ignore();
    return;
  }
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
