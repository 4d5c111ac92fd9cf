#include "chart_view.hpp"

#include <QToolTip>
#include <QWindow>
#include <cmath>

namespace tilescope::ui {
namespace {

// Series colours after Okabe and Ito (distinguishable with colour-blindness), a deeper set for
// light backgrounds and a lighter one for dark backgrounds.
const QColor kLightSeries[] = {"#0072b2", "#d55e00", "#009e73", "#cc79a7",
                               "#b08000", "#3b9ad9", "#7f3c8d", "#505050"};
const QColor kDarkSeries[] = {"#56b4e9", "#ff9a52", "#35d0a5", "#eba2d0",
                              "#f0c43c", "#9cc3ff", "#c9a2ff", "#d0d0d0"};

// How close (in pixels) the pointer must be to a point for its tooltip.
constexpr double kHoverRadius = 12.0;

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

bool isDarkPalette(const QPalette& palette) {
  return palette.color(QPalette::Base).lightness() < 128;
}

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
  title_ = new QCPTextElement(this, title, titleFont);
  plotLayout()->addElement(0, 0, title_);

  // The legend sits below the plot, so it never covers data and long entries (the ladder's
  // parameter lists) never squeeze the plot or clip the title; entries fill kLegendColumns.
  plotLayout()->addElement(2, 0, legend);
  plotLayout()->setRowStretchFactor(2, 0.001);
  legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  legend->setWrap(kLegendColumns);
  legend->setVisible(true);
  legend->setIconSize(22, 12);

  for (QCPAxis* axis : axisRect()->axes()) axis->setPadding(6);
  applyPalette();
}

void ChartView::showLegend(bool visible) {
  legend->setVisible(visible);
  if (!visible || legend->itemCount() == 0) return;
  // The layout would give a wrapped legend less height than its rows need: ask for all of them.
  const int rows = (legend->itemCount() + kLegendColumns - 1) / kLegendColumns;
  const int rowHeight = legend->item(0)->minimumOuterSizeHint().height();
  legend->setMinimumSize(0, rows * (rowHeight + legend->rowSpacing()) + rowHeight / 2);
}

void ChartView::reset() {
  clearPlottables();
  clearItems();
  tips_.clear();
  placeholder_ = nullptr;
  for (QCPAxis* axis : {xAxis, yAxis}) axis->setTickLabels(true);
}

void ChartView::setTitle(const QString& title) {
  title_->setText(title);
}

QString ChartView::title() const {
  return title_->text();
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

QColor ChartView::seriesColor(int index) const {
  const QColor* colors = isDarkPalette(palette()) ? kDarkSeries : kLightSeries;
  return colors[index % int(std::size(kLightSeries))];
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

QString ChartView::tipAt(const QPointF& position) const {
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

void ChartView::leaveEvent(QEvent* event) {
  QCustomPlot::leaveEvent(event);
  QToolTip::hideText();
}

}  // namespace tilescope::ui
