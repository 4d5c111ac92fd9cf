// SPDX-License-Identifier: GPL-3.0-or-later
#include "chart_view.hpp"

#include <QContextMenuEvent>
#include <QMenu>
#include <QRegularExpression>
#include <QToolTip>
#include <QWindow>
#include <cmath>
#include <limits>
#include <set>

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
// Text at a desk: never smaller than this many pixels. Presenting: these sizes on a 1000x600
// screen (Presenter::fontScale 1), scaled with the screen (20 and 29 px at 1280x720).
constexpr int kSmallestText = 12;
constexpr double kPresentingTick = 17, kPresentingTitle = 24;
constexpr double kDeskTitleFactor = 1.2, kPlaceholderFactor = 1.25;
// Markers and lines grow this much faster than the screen when presenting.
constexpr double kPresentingDrawFactor = 1.25;
// A chart at least this tall breaks a long title in two rather than shorten it.
constexpr int kTallTitleHeight = 440;
// Layout passes after a layout, while the labels still change it.
constexpr int kMostFitPasses = 6;

// "naive tile=16 512³" as lines no wider than `width`, breaking at spaces; empty when a word
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

bool allDistinct(const QStringList& texts) {
  QSet<QString> seen;
  for (const QString& text : texts) {
    if (text.isEmpty()) continue;
    if (seen.contains(text)) return false;
    seen.insert(text);
  }
  return true;
}

// The texts shortened to `width`, still distinct where they were: cut at the end, else in the
// middle, else at the start (what differs may be anywhere).
QStringList elidedDistinct(const QStringList& texts, const QFontMetrics& metrics, int width) {
  QStringList shown;
  for (Qt::TextElideMode mode : {Qt::ElideRight, Qt::ElideMiddle, Qt::ElideLeft}) {
    shown.clear();
    for (const QString& text : texts) shown << metrics.elidedText(text, mode, width);
    if (allDistinct(shown)) return shown;
  }
  return shown;
}

// Ticks a chart thins until their labels stand apart: candidates(range, level) offers sparser
// ticks as the level rises (none past the sparsest); the chart fixes the ones it drew.
class SpacedTicker {
 public:
  virtual ~SpacedTicker() = default;
  virtual QVector<double> candidates(const QCPRange& range, int level) const = 0;
  void setFixed(std::optional<QVector<double>> ticks) { fixed_ = std::move(ticks); }
  const std::optional<QVector<double>>& fixed() const { return fixed_; }

 protected:
  QVector<double> ticksIn(const QCPRange& range) const {
    if (!fixed_) return candidates(range, 0);
    QVector<double> ticks;
    for (double tick : *fixed_)
      if (range.contains(tick)) ticks << tick;
    return ticks;
  }

 private:
  std::optional<QVector<double>> fixed_;
};

// Linear ticks at 1, 2 or 5 times a power of ten, at most ten to a range at level 0.
class LinearTicker : public QCPAxisTicker, public SpacedTicker {
 public:
  QVector<double> candidates(const QCPRange& range, int level) const override {
    const double span = range.size();
    if (!(span > 0) || !std::isfinite(span)) return {};
    constexpr double kMantissas[] = {1, 2, 5};
    const double first = std::floor(std::log10(span / 10));
    const auto stepOf = [&](int index) {
      return kMantissas[index % 3] * std::pow(10.0, first + index / 3);
    };
    int index = 0;
    while (stepOf(index) < span / 10) ++index;
    const double step = stepOf(index + level);
    // Past one tick the sparser levels add nothing.
    if (level > 0 && stepOf(index + level - 1) > span) return {};
    QVector<double> ticks;
    for (double k = std::ceil(range.lower / step); k * step <= range.upper + step * 1e-9; ++k) {
      const double tick = k * step;
      ticks << (std::abs(tick) < step * 1e-9 ? 0.0 : tick);
    }
    return ticks;
  }

 protected:
  int getSubTickCount(double) override { return 0; }
  QVector<double> createTickVector(double, const QCPRange& range) override {
    return ticksIn(range);
  }
  QString getTickLabel(double tick, const QLocale&, QChar, int) override {
    return ChartView::tickText(tick);
  }
};

// Logarithmic ticks. Base 10: 1..9, then 1-2-5, 1-3, the powers, every second power and so on;
// level 0 is 1-2-5, or 1..9 when the range holds fewer than four of those, or the powers when it
// holds more than fourteen. Base 2: every power, every second, fourth ...
class LogTicker : public QCPAxisTicker, public SpacedTicker {
 public:
  explicit LogTicker(double base) : base_(base) {}

  QVector<double> candidates(const QCPRange& range, int level) const override {
    if (!(range.lower > 0) || !(range.upper > range.lower) || !std::isfinite(range.upper))
      return {};
    if (base_ != 10) return powers(range, level);
    static const std::vector<std::vector<double>> kMantissas = {
        {1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 2, 5}, {1, 3}, {1}};
    constexpr int kFewest = 4, kMost = 14;
    int start = 1;
    if (withMantissas(range, kMantissas[1]).size() < kFewest)
      start = 0;
    else if (withMantissas(range, kMantissas[1]).size() > kMost)
      start = 3;
    const int chosen = start + level;
    if (chosen < 3) return withMantissas(range, kMantissas[std::size_t(chosen)]);
    return powers(range, chosen - 3);
  }

 protected:
  int getSubTickCount(double) override { return 0; }
  QVector<double> createTickVector(double, const QCPRange& range) override {
    return ticksIn(range);
  }
  QString getTickLabel(double tick, const QLocale&, QChar, int) override {
    return ChartView::tickText(tick);
  }

 private:
  QVector<double> withMantissas(const QCPRange& range, const std::vector<double>& mantissas) const {
    QVector<double> ticks;
    const int first = int(std::floor(std::log10(range.lower)));
    const int last = int(std::ceil(std::log10(range.upper)));
    for (int exponent = first; exponent <= last; ++exponent) {
      for (double mantissa : mantissas) {
        const double tick = mantissa * std::pow(10.0, exponent);
        if (tick >= range.lower * (1 - 1e-12) && tick <= range.upper * (1 + 1e-12)) ticks << tick;
      }
    }
    return ticks;
  }

  // Every `stride`-th power, stride 1, 2, 4, 8 ... for level 0, 1, 2 ...; base 2 starts at the
  // smallest stride that gives at most fourteen.
  QVector<double> powers(const QCPRange& range, int level) const {
    const double logBase = std::log(base_);
    const int first = int(std::ceil(std::log(range.lower) / logBase - 1e-9));
    const int last = int(std::floor(std::log(range.upper) / logBase + 1e-9));
    if (last < first) return level == 0 ? QVector<double>{} : QVector<double>{};
    int stride = 1;
    if (base_ != 10)
      while ((last - first) / stride + 1 > 14) stride *= 2;
    for (int i = 0; i < level; ++i) {
      if ((last - first) / stride < 1) return {};  // one tick already
      stride *= 2;
    }
    QVector<double> ticks;
    // Aligned to multiples of the stride, so a sparser level keeps the same powers.
    const int aligned = int(std::ceil(double(first) / stride)) * stride;
    for (int exponent = aligned; exponent <= last; exponent += stride)
      ticks << std::pow(base_, exponent);
    if (ticks.isEmpty()) ticks << std::pow(base_, first);
    return ticks;
  }

  double base_;
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

QRectF rectOf(const QCPItemText* label) {
  return QRectF(label->topLeft->pixelPosition(), label->bottomRight->pixelPosition()).normalized();
}

// Whether the segment crosses or lies in `rect`.
bool crosses(const QLineF& segment, const QRectF& rect) {
  if (rect.contains(segment.p1()) || rect.contains(segment.p2())) return true;
  const QLineF edges[] = {{rect.topLeft(), rect.topRight()},
                          {rect.topRight(), rect.bottomRight()},
                          {rect.bottomRight(), rect.bottomLeft()},
                          {rect.bottomLeft(), rect.topLeft()}};
  for (const QLineF& edge : edges)
    if (segment.intersects(edge, nullptr) == QLineF::BoundedIntersection) return true;
  return false;
}

}  // namespace

ChartView::ChartView(const QString& title, QWidget* parent) : QCustomPlot(parent) {
  setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  setMouseTracking(true);
  setMinimumSize(320, 220);
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
  connect(this, &QCustomPlot::afterLayout, this, &ChartView::fitToLayout);
  applyPalette();
  applyText();
}

ChartView::~ChartView() {
  // A hidden legend is out of the layout, which deletes only what it holds.
  if (!legend->layout()) delete legend;
}

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

QString ChartView::tickText(double value) {
  if (value == 0) return QStringLiteral("0");
  const double size = std::abs(value);
  static constexpr struct {
    double scale;
    char suffix;
  } kPrefixes[] = {{1e12, 'T'}, {1e9, 'G'}, {1e6, 'M'}, {1e3, 'k'}};
  for (const auto& prefix : kPrefixes) {
    if (size < prefix.scale) continue;
    const QString mantissa = QString::number(value / prefix.scale, 'g', 3);
    // Only where it is exact: 1024 stays 1024, not 1.02k.
    if (std::abs(mantissa.toDouble() * prefix.scale - value) <= size * 1e-9)
      return mantissa + QLatin1Char(prefix.suffix);
    break;
  }
  if (size >= 1 && size < 1e9 && value == std::round(value))
    return QString::number(qint64(std::llround(value)));
  return QString::number(value, 'g', 3);
}

void ChartView::setPresenting(bool presenting, double scale) {
  presenting_ = presenting;
  presentScale_ = presenting ? scale : 1;
  applyText();
  legendShown_ = {};
  replot(QCustomPlot::rpQueuedReplot);
}

void ChartView::setExporting(bool exporting) {
  exporting_ = exporting;
  legendShown_ = {};
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
    axis->setTickLengthIn(int(std::lround(5 * drawScale())));
  }
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

void ChartView::setLegendEntries(const std::vector<LegendEntry>& entries) {
  legendEntries_ = entries;
  legendShown_ = {};
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
  // A hidden legend keeps no room (the layout still counts an invisible element's minimum);
  // shown again, fitLegend asks for its rows.
  legend->setMinimumSize(0, 0);
  if (!legend->visible()) placeLegend(LegendPlace::Nowhere);
  replot(QCustomPlot::rpQueuedReplot);
}

void ChartView::setCategories(const QStringList& labels, const QString& axisLabel) {
  categories_ = labels;
  // The words every label holds are said once, in the axis label; each label keeps the rest.
  static const QRegularExpression kSeparators(QStringLiteral("[\\s,]+"));
  std::vector<QStringList> words;
  for (const QString& label : labels) words.push_back(label.split(kSeparators, Qt::SkipEmptyParts));
  QStringList shared;
  if (labels.size() >= 2) {
    for (const QString& word : words.front()) {
      if (shared.contains(word)) continue;
      if (std::all_of(words.begin(), words.end(),
                      [&](const QStringList& others) { return others.contains(word); }))
        shared << word;
    }
  }
  std::vector<QStringList> rest = words;
  for (QStringList& own : rest)
    for (const QString& word : shared) own.removeOne(word);
  if (std::any_of(rest.begin(), rest.end(), [](const QStringList& own) { return own.isEmpty(); })) {
    shared.clear();
    rest = words;
  }
  categoryTexts_.clear();
  QHash<QString, int> seen;
  for (const QStringList& own : rest) {
    QString text = own.join(QLatin1Char(' '));
    // The same run twice: numbered, so no two bars read alike.
    if (const int count = seen[text]++; count > 0) text += QStringLiteral(" #%1").arg(count + 1);
    categoryTexts_ << text;
  }
  QStringList axis;
  if (!axisLabel.isEmpty()) axis << axisLabel;
  if (!shared.isEmpty()) axis << tr("every bar: %1").arg(shared.join(QLatin1Char(' ')));
  categoryAxisLabel_ = axis.join(QStringLiteral("; "));
  xAxis->setLabel(categoryAxisLabel_);
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  for (int i = 0; i < categoryTexts_.size(); ++i) ticker->addTick(i + 1, categoryTexts_[i]);
  xAxis->setTicker(ticker);
  xAxis->setTickLabelRotation(0);
}

void ChartView::keepClear(QCPItemText* label, std::vector<LabelPlace> spots) {
  clear_.emplace_back(label, std::move(spots));
}

void ChartView::keepApart(const std::vector<QCPItemText*>& labels) {
  for (QCPItemText* label : labels) {
    std::vector<LabelPlace> spots;
    for (double shift : {0.0, 1.0, -1.0, 2.0, -2.0})
      spots.push_back({label->position->coords(), label->positionAlignment(), shift});
    keepClear(label, std::move(spots));
  }
}

void ChartView::reset() {
  clearPlottables();
  clearItems();
  tips_.clear();
  clear_.clear();
  placeholder_ = nullptr;
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

void ChartView::makeLogarithmic(QCPAxis* axis, double base) {
  axis->setScaleType(QCPAxis::stLogarithmic);
  axis->setTicker(QSharedPointer<LogTicker>::create(base));
}

void ChartView::makeLinear(QCPAxis* axis) {
  axis->setScaleType(QCPAxis::stLinear);
  axis->setTicker(QSharedPointer<LinearTicker>::create());
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
  fitPlaceholder();
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
  const QFontMetrics metrics(title_->font());
  // A line too wide breaks after its dash ("Throughput against size — NVIDIA H200 (cuda)") where
  // the chart is tall enough to give it a line, then what is still too wide is shortened.
  const bool roomy = viewport().height() >= kTallTitleHeight;
  QStringList lines;
  for (const QString& line : fullTitle_.split(QLatin1Char('\n'))) {
    const qsizetype dash = line.indexOf(QStringLiteral(" \u2014 "));
    if (roomy && metrics.horizontalAdvance(line) > width && dash > 0) {
      lines << line.left(dash) << line.mid(dash + 3);
    } else {
      lines << line;
    }
  }
  for (QString& line : lines) line = metrics.elidedText(line, Qt::ElideRight, std::max(width, 0));
  const QString shown = lines.join(QLatin1Char('\n'));
  if (shown == title_->text()) return false;
  title_->setText(shown);
  return true;
}

bool ChartView::fitAxisLabels() {
  bool changed = false;
  for (QCPAxis* axis : {xAxis, yAxis}) {
    if (axis->label() != shownAxisLabels_.value(axis)) fullAxisLabels_[axis] = axis->label();
    const int length =
        axis->orientation() == Qt::Horizontal ? axisRect()->width() : axisRect()->height();
    const QString shown =
        QFontMetrics(axis->labelFont())
            .elidedText(fullAxisLabels_.value(axis), Qt::ElideRight, std::max(length, 0));
    shownAxisLabels_[axis] = shown;
    if (shown == axis->label()) continue;
    axis->setLabel(shown);
    changed = true;
  }
  return changed;
}

bool ChartView::fitTicks() {
  bool changed = false;
  const QRect inner = axisRect()->rect();
  const QRect outer = axisRect()->outerRect();
  for (QCPAxis* axis : {xAxis, yAxis}) {
    auto* ticker = dynamic_cast<SpacedTicker*>(axis->ticker().data());
    if (!ticker || !axis->visible() || !axis->tickLabels()) continue;
    const QFontMetrics metrics(axis->tickLabelFont());
    const bool horizontal = axis->orientation() == Qt::Horizontal;
    const double gap =
        horizontal ? std::max(kLabelGap, metrics.height() / 2) : std::max(2, metrics.height() / 4);
    // Where the labels may reach along the axis: the x axis's not under the y axis's labels (they
    // stand left of the plot), the y axis's not above the plot's room.
    const double low = horizontal ? inner.left() - yAxis->tickLabelPadding() -
                                        std::max(0, yAxis->tickLengthOut()) + 1
                                  : outer.top();
    const double high = horizontal ? outer.right() : outer.bottom();
    const QCPRange range = axis->range();
    std::optional<QVector<double>> chosen;
    QVector<double> sparsest;
    for (int level = 0; level < 16; ++level) {
      const QVector<double> ticks = ticker->candidates(range, level);
      if (ticks.isEmpty() && level > 0) break;
      std::vector<std::pair<double, double>> spans;  // along the axis, ascending
      QVector<double> kept;
      for (double tick : ticks) {
        if (!range.contains(tick)) continue;
        const double at = axis->coordToPixel(tick);
        const double extent =
            horizontal ? metrics.horizontalAdvance(tickText(tick)) : metrics.height();
        const double from = at - extent / 2, to = at + extent / 2;
        if (from < low || to > high) continue;  // an end label that would leave its room
        spans.emplace_back(from, to);
        kept << tick;
      }
      std::sort(spans.begin(), spans.end());
      bool apart = true;
      for (std::size_t i = 1; i < spans.size() && apart; ++i)
        apart = spans[i].first - spans[i - 1].second >= gap;
      if (!kept.isEmpty()) sparsest = kept;
      if (apart) {
        chosen = kept;
        break;
      }
    }
    // Not even the sparsest stand apart (a very short axis): the middle one alone.
    if (!chosen)
      chosen =
          sparsest.isEmpty() ? QVector<double>{} : QVector<double>{sparsest[sparsest.size() / 2]};
    if (ticker->fixed() == chosen) continue;
    ticker->setFixed(chosen);
    changed = true;
  }
  return changed;
}

ChartView::LegendShown ChartView::legendFor(QSize size) const {
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
    return LegendShown{false, compact, mostText, columns, width, heightOf(rows, rowHeight), count};
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
    return LegendShown{true, compact, mostText, columns, across, heightOf(rows, rowHeight), count};
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
    shown = LegendShown{false, true, mostText, columns, width, heightOf(rows, rowHeight), count};
  }
  // An export or a presentation lists every entry, however much of the height that takes.
  if (presenting_ || exporting_ || shown.height <= most) return shown;
  // Docked and too small: the rows that fit, their last cell saying what is left out.
  int rowHeight = 0, widest = 0;
  measure(true, shown.mostTextWidth, &widest, &rowHeight);
  const int rowsThatFit = std::max(
      1, (most - verticalMargins + legend->rowSpacing()) / (rowHeight + legend->rowSpacing()));
  shown.entries = std::max(0, rowsThatFit * shown.columns - 1);
  shown.height = heightOf(rowsThatFit, rowHeight);
  return shown;
}

bool ChartView::fitLegend() {
  if (!legend->visible() || legendEntries_.empty()) return false;
  const LegendShown shown = legendFor(viewport().size());
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
  QStringList leftOut;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (int(i) < shown.entries) {
      items[i]->setShownText(distinct[int(i)]);
      legend->addItem(items[i]);
    } else {
      leftOut << legendEntries_[i].label;
      delete items[i];
    }
  }
  if (!leftOut.isEmpty()) legend->addItem(new MoreLegendItem(legend, leftOut));
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

bool ChartView::fitCategories() {
  if (categories_.isEmpty()) return false;
  const QFontMetrics metrics(xAxis->tickLabelFont());
  const double spacing = std::abs(xAxis->coordToPixel(2) - xAxis->coordToPixel(1));
  const int width = int(spacing) - kLabelGap;
  QStringList shown;
  double rotation = 0;
  // Level, wrapped at spaces where needed.
  for (const QString& label : categoryTexts_) {
    const QString lines = wrapped(label, metrics, width);
    if (lines.isEmpty()) break;
    shown << lines;
  }
  if (shown.size() != categoryTexts_.size()) {
    // Upright on one line, shortened past a share of the height (still distinct), every n-th one
    // when even one line is too thick for the spacing.
    rotation = -90;
    const int longest = std::max(40, int(viewport().height() * kUprightLabelShare));
    const int every = std::max(1, int(std::ceil((metrics.height() + kLabelGap / 2) / spacing)));
    QStringList kept;
    for (int i = 0; i < categoryTexts_.size(); i += every) kept << categoryTexts_[i];
    const QStringList shortened = elidedDistinct(kept, metrics, longest);
    shown.clear();
    for (int i = 0; i < categoryTexts_.size(); ++i)
      shown << (i % every == 0 ? shortened[i / every] : QString());
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

void ChartView::placeLabelsClear() {
  if (clear_.empty()) return;
  const QRectF area = axisRect()->rect();
  // What a label must not cover: the points of every graph, and its lines.
  std::vector<QRectF> points;
  std::vector<QLineF> lines;
  for (int g = 0; g < graphCount(); ++g) {
    QCPGraph* graph = this->graph(g);
    if (!graph->visible()) continue;
    const double marker = graph->scatterStyle().isNone() ? 0 : graph->scatterStyle().size() + 2;
    QPointF previous;
    bool first = true;
    for (auto point = graph->data()->constBegin(); point != graph->data()->constEnd(); ++point) {
      const QPointF at = graph->coordsToPixels(point->key, point->value);
      if (!std::isfinite(at.x()) || !std::isfinite(at.y())) continue;
      if (marker > 0) points.emplace_back(at.x() - marker / 2, at.y() - marker / 2, marker, marker);
      if (!first && graph->lineStyle() != QCPGraph::lsNone) lines.emplace_back(previous, at);
      previous = at;
      first = false;
    }
  }
  std::vector<QRectF> placed;
  for (auto& [label, spots] : clear_) {
    if (!label) continue;
    bool shown = false;
    // First clear of lines too; else over a line (the label's veil keeps it readable).
    for (bool strict : {true, false}) {
      for (const LabelPlace& spot : spots) {
        label->setPositionAlignment(spot.alignment);
        label->position->setCoords(spot.coords);
        QRectF rect = rectOf(label);
        if (spot.shiftHeights != 0) {
          const double offset = spot.shiftHeights * rect.height();
          label->position->setPixelPosition(label->position->pixelPosition() + QPointF(0, offset));
          rect.translate(0, offset);
        }
        if (!area.contains(rect)) continue;
        const auto covers = [&](const QRectF& other) { return other.intersects(rect); };
        if (std::any_of(placed.begin(), placed.end(), covers)) continue;
        if (std::any_of(points.begin(), points.end(), covers)) continue;
        if (strict && std::any_of(lines.begin(), lines.end(),
                                  [&](const QLineF& line) { return crosses(line, rect); }))
          continue;
        placed.push_back(rect);
        shown = true;
        break;
      }
      if (shown) break;
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
