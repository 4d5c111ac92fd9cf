// SPDX-License-Identifier: GPL-3.0-or-later
// A chart's numeric axes: linear and logarithmic tickers whose ticks the chart thins until their
// labels stand apart, and tick labels with SI suffixes.
#include <cmath>

#include "chart_text.hpp"
#include "chart_view.hpp"

namespace tilescope::ui {
namespace {

// Ticks a chart thins until their labels stand apart: candidates(range, level) offers sparser
// ticks as the level rises (none past the sparsest); the chart fixes the ones it drew.
// Labels with SI suffixes (ChartView::tickText), no sub-ticks.
class SpacedTicker : public QCPAxisTicker {
 public:
  virtual QVector<double> candidates(const QCPRange& range, int level) const = 0;
  void setFixed(std::optional<QVector<double>> ticks) { fixed_ = std::move(ticks); }
  const std::optional<QVector<double>>& fixed() const { return fixed_; }

 protected:
  int getSubTickCount(double) override { return 0; }
  QVector<double> createTickVector(double, const QCPRange& range) override {
    if (!fixed_) return candidates(range, 0);
    QVector<double> ticks;
    for (double tick : *fixed_)
      if (range.contains(tick)) ticks << tick;
    return ticks;
  }
  QString getTickLabel(double tick, const QLocale&, QChar, int) override {
    return ChartView::tickText(tick);
  }

 private:
  std::optional<QVector<double>> fixed_;
};

// Linear ticks at 1, 2 or 5 times a power of ten, at most ten to a range at level 0.
class LinearTicker : public SpacedTicker {
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
};

// Logarithmic ticks. Base 10: 1..9, then 1-2-5, 1-3, the powers, every second power and so on;
// level 0 is 1-2-5, or 1..9 when the range holds fewer than four of those, or the powers when it
// holds more than fourteen. Base 2: every power, every second, fourth ...
class LogTicker : public SpacedTicker {
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

}  // namespace

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

void ChartView::makeLogarithmic(QCPAxis* axis, double base) {
  axis->setScaleType(QCPAxis::stLogarithmic);
  axis->setTicker(QSharedPointer<LogTicker>::create(base));
}

void ChartView::makeLinear(QCPAxis* axis) {
  axis->setScaleType(QCPAxis::stLinear);
  axis->setTicker(QSharedPointer<LinearTicker>::create());
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

}  // namespace tilescope::ui
