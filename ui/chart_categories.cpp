// SPDX-License-Identifier: GPL-3.0-or-later
// Category labels on a chart's x axis: the words they share said once, the rest made distinct,
// then wrapped, turned upright or shortened to the room between bars; groups of bars named once
// over them.
#include <QRegularExpression>
#include <cmath>

#include "chart_text.hpp"
#include "chart_view.hpp"

namespace tilescope::ui {
namespace {

// An upright category label takes at most this share of the chart's height (a fifth: the plot
// keeps its share of a short page, and the legend names the series in full).
constexpr double kUprightLabelShare = 0.2;

// The words of each text; those every text holds (each once), moved out; when that would leave a
// text empty, none are.
QStringList takeSharedWords(std::vector<QStringList>& words) {
  QStringList shared;
  if (words.size() < 2) return shared;
  for (const QString& word : words.front()) {
    if (shared.contains(word)) continue;
    if (std::all_of(words.begin(), words.end(),
                    [&](const QStringList& others) { return others.contains(word); }))
      shared << word;
  }
  std::vector<QStringList> rest = words;
  for (QStringList& own : rest)
    for (const QString& word : shared) own.removeOne(word);
  if (std::any_of(rest.begin(), rest.end(), [](const QStringList& own) { return own.isEmpty(); }))
    return {};
  words = rest;
  return shared;
}

// The texts, each repeated one numbered ("#2"), so no two read alike.
QStringList numberedDistinct(const std::vector<QStringList>& words) {
  QStringList texts;
  QHash<QString, int> seen;
  for (const QStringList& own : words) {
    QString text = own.join(QLatin1Char(' '));
    if (const int count = seen[text]++; count > 0) text += QStringLiteral(" #%1").arg(count + 1);
    texts << text;
  }
  return texts;
}

}  // namespace

void ChartView::setCategories(const QStringList& labels, const QString& axisLabel) {
  categories_ = labels;
  groups_.clear();
  static const QRegularExpression kSeparators(QStringLiteral("[\\s,]+"));
  // Labels of two lines ("naive tile=16" over "512³") whose first lines repeat from bar to bar
  // are grouped: the first line once over its bars (the top axis), the second under each bar.
  const bool twoLines = std::all_of(labels.begin(), labels.end(), [](const QString& label) {
    return label.count(QLatin1Char('\n')) == 1;
  });
  if (twoLines) {
    for (int i = 0; i < labels.size(); ++i) {
      const QString group = labels[i].section(QLatin1Char('\n'), 0, 0);
      if (!groups_.empty() && groups_.back().name == group)
        ++groups_.back().count;
      else
        groups_.push_back({group, {}, i, 1});
    }
    if (groups_.size() * 2 > std::size_t(labels.size())) groups_.clear();  // mostly alone
  }
  std::vector<QStringList> words;
  QStringList shared;
  if (!groups_.empty()) {
    // The words every group holds are said once, in the axis label; each bar says what is its
    // own within its group.
    std::vector<QStringList> groupWords;
    for (const Group& group : groups_)
      groupWords.push_back(group.name.split(kSeparators, Qt::SkipEmptyParts));
    shared = takeSharedWords(groupWords);
    const QStringList names = numberedDistinct(groupWords);
    for (std::size_t g = 0; g < groups_.size(); ++g) groups_[g].text = names[int(g)];
    categoryTexts_.clear();
    for (const Group& group : groups_) {
      std::vector<QStringList> own;
      for (int i = group.first; i < group.first + group.count; ++i)
        own.push_back(
            labels[i].section(QLatin1Char('\n'), 1).split(kSeparators, Qt::SkipEmptyParts));
      categoryTexts_ << numberedDistinct(own);
    }
  } else {
    // The words every label holds are said once, in the axis label; each label keeps the rest.
    for (const QString& label : labels)
      words.push_back(label.split(kSeparators, Qt::SkipEmptyParts));
    shared = takeSharedWords(words);
    categoryTexts_ = numberedDistinct(words);
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
  // The groups' names on the top axis, over the middle of their bars.
  xAxis2->setVisible(!groups_.empty());
  xAxis2->setTicker(QSharedPointer<QCPAxisTickerText>::create());
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
    const int longest = std::max(40, int(seenHeight() * kUprightLabelShare));
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
  bool changed = false;
  if (ticker->ticks() != ticks || xAxis->tickLabelRotation() != rotation) {
    ticker->setTicks(ticks);
    xAxis->setTickLabelRotation(rotation);
    changed = true;
  }
  // The groups' names over their bars, each shortened to its bars' width (none where that is
  // less than a few letters).
  if (auto groupTicker = xAxis2->ticker().dynamicCast<QCPAxisTickerText>(); !groups_.empty()) {
    const QFontMetrics groupMetrics(xAxis2->tickLabelFont());
    QMap<double, QString> names;
    for (const Group& group : groups_) {
      const int room = int(group.count * spacing) - kLabelGap;
      // On up to three lines where one is too short ("naive" over "tile=16"), else the kernel's
      // name whole (broken at its hyphens) over the rest shortened ("warptile" over "BM=64,…"),
      // else all shortened.
      QString name;
      if (room >= groupMetrics.averageCharWidth() * 4) {
        name = wrapped(group.text, groupMetrics, room);
        if (name.isEmpty() || name.count(QLatin1Char('\n')) > 2) {
          const QString first =
              wrapped(group.text.section(QLatin1Char(' '), 0, 0), groupMetrics, room);
          const QString rest = groupMetrics.elidedText(group.text.section(QLatin1Char(' '), 1),
                                                       Qt::ElideRight, room);
          name = !first.isEmpty() && first.count(QLatin1Char('\n')) < 2 && rest.size() > 1
                     ? first + QLatin1Char('\n') + rest
                     : groupMetrics.elidedText(group.text, Qt::ElideRight, room);
        }
      }
      names.insert(group.first + 1 + (group.count - 1) / 2.0, name);
    }
    if (groupTicker && groupTicker->ticks() != names) {
      groupTicker->setTicks(names);
      changed = true;
    }
  }
  return changed;
}

}  // namespace tilescope::ui
