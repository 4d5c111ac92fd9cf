// SPDX-License-Identifier: GPL-3.0-or-later
#include "timeline_view.hpp"

#include <QFontMetricsF>
#include <QPainter>
#include <algorithm>
#include <cmath>

#include "diagram_model.hpp"

namespace tilescope::ui {

namespace {

constexpr double kMinColumn = 118;     // narrowest a column is drawn (at text scale 1), in pixels
constexpr double kMinChip = 46;        // narrowest an action's chip is drawn (at text scale 1)
constexpr double kMaxRow = 80;         // tallest a stage's row is drawn on a plain screen
constexpr double kRoleRowShare = 1.6;  // a role's row against a stage's: its chips hold text
constexpr double kWaitWeight = 0.7;    // a wait's share of its column against another action's

bool overlapping(const Mapping& m) {
  const std::optional<Pipeline> p = m.pipeline();
  return p && p->overlaps();
}

// The catalogue's kernels whose default configuration overlaps copies with products.
QStringList pipelinedKernels() {
  QStringList ids;
  for (const KernelInfo& info : catalogue()) {
    if (!info.hasMapping) continue;
    const std::optional<Pipeline> p =
        pipelineOf(threadMapOf(resolve({info.id, {}}), info.types.front()));
    if (p && p->overlaps()) ids << QString::fromStdString(info.id);
  }
  return ids;
}

QString fillName(StageFill fill) {
  return QLatin1String(stageFillName(fill));
}

QString productName(StageProduct product) {
  return QLatin1String(stageProductName(product));
}

// "warps 0–3", "warp 0"
QString warpRange(int first, int count) {
  return count == 1 ? QStringLiteral("warp %1").arg(first)
                    : QStringLiteral("warps %1–%2").arg(first).arg(first + count - 1);
}

// The role's name, fullest first.
QStringList roleWordings(const Mapping& m, const Pipeline& p, PipelineRole role) {
  const int warps = m.warpsPerBlock();
  switch (role) {
    case PipelineRole::EveryWarp:
      return {QStringLiteral("every warp (%1)").arg(warps), QStringLiteral("all warps"),
              QStringLiteral("warps")};
    case PipelineRole::Producer:
      return {QStringLiteral("producer (%1)").arg(warpRange(0, p.producerWarps)),
              QStringLiteral("producer"), QStringLiteral("prod.")};
    case PipelineRole::Consumer:
      return {
          QStringLiteral("consumers (%1)").arg(warpRange(p.producerWarps, warps - p.producerWarps)),
          QStringLiteral("consumers"), QStringLiteral("cons.")};
  }
  return {};
}

QStringList stageWordings(int stage) {
  return {QStringLiteral("stage %1").arg(stage), QStringLiteral("s%1").arg(stage)};
}

QStringList columnWordings(std::int64_t iteration, std::int64_t steps) {
  if (iteration < 0)
    return {QStringLiteral("before the loop"), QStringLiteral("before"), QStringLiteral("pre")};
  if (iteration >= steps)
    return {QStringLiteral("after the loop"), QStringLiteral("after"), QStringLiteral("post")};
  return {QStringLiteral("k-step %1").arg(iteration), QStringLiteral("k%1").arg(iteration),
          QString::number(iteration)};
}

// What one action does, fullest wording first (drawn in its chip where one fits).
QStringList actionWordings(const Pipeline& p, const PipelineStep& a, std::int64_t step) {
  const int stage = p.stageOf(std::max<std::int64_t>(step, 0));
  const QString k = QString::number(step), s = QString::number(stage);
  switch (a.action) {
    case PipelineAction::WaitCopies:
      return {QStringLiteral("cp.async.wait_group %1").arg(a.pending),
              QStringLiteral("wait_group %1").arg(a.pending),
              QStringLiteral("wait %1").arg(a.pending)};
    case PipelineAction::Barrier:
      return {QStringLiteral("__syncthreads()"), QStringLiteral("barrier"), QStringLiteral("sync")};
    case PipelineAction::Copy:
      return {QStringLiteral("%1 k-step %2 → stage %3").arg(fillName(p.fill), k, s),
              QStringLiteral("%1 k%2").arg(fillName(p.fill), k), QStringLiteral("k%1").arg(k)};
    case PipelineAction::LoadRegisters:
      return {QStringLiteral("load k-step %1 → registers").arg(k),
              QStringLiteral("load k%1").arg(k), QStringLiteral("k%1").arg(k)};
    case PipelineAction::StoreRegisters:
      return {QStringLiteral("store → stage %1").arg(s), QStringLiteral("store s%1").arg(s),
              QStringLiteral("s%1").arg(s)};
    case PipelineAction::Multiply:
      return {QStringLiteral("%1 on k-step %2").arg(productName(p.product), k),
              QStringLiteral("%1 k%2").arg(productName(p.product), k),
              QStringLiteral("×k%1").arg(k)};
    case PipelineAction::WaitMma:
      return {QStringLiteral("wgmma.wait_group %1").arg(a.pending),
              QStringLiteral("wait_group %1").arg(a.pending),
              QStringLiteral("wait %1").arg(a.pending)};
    case PipelineAction::WaitFull:
      return {QStringLiteral("wait full[%1]").arg(s), QStringLiteral("wait full"),
              QStringLiteral("wait")};
    case PipelineAction::WaitEmpty:
      return {QStringLiteral("wait empty[%1]").arg(s), QStringLiteral("wait empty"),
              QStringLiteral("wait")};
    case PipelineAction::Release:
      return {QStringLiteral("arrive empty[%1]").arg(s), QStringLiteral("free s%1").arg(s),
              QStringLiteral("free")};
  }
  return {};
}

// The action in a sentence, for hover text and the loop's recipe: `step` names its k-step ("7",
// or "s+2" in the recipe) and `stage` that k-step's stage ("stage 1", or "its stage").
QString actionSentence(const Pipeline& p, const PipelineStep& a, const QString& step,
                       const QString& stage, const QString& batchStep) {
  switch (a.action) {
    case PipelineAction::WaitCopies:
      return QStringLiteral(
                 "cp.async.wait_group %1: each thread waits until its copies of k-step %2 have "
                 "landed (at most %1 newer %3 still on their way)")
          .arg(a.pending)
          .arg(step)
          .arg(a.pending == 1 ? QStringLiteral("group") : QStringLiteral("groups"));
    case PipelineAction::Barrier:
      return QStringLiteral(
          "__syncthreads(): every warp waits for all the others, so every thread's copies are "
          "visible and no warp still reads the stage about to be refilled");
    case PipelineAction::Copy:
      return p.fill == StageFill::Tma
                 ? QStringLiteral(
                       "one producer thread starts the TMA copies of k-step %1 into %2; its full "
                       "mbarrier completes when their bytes have landed")
                       .arg(step, stage)
                 : QStringLiteral(
                       "every thread starts its cp.async copies of k-step %1 into %2 (global to "
                       "shared, past the registers) and commits them as one group")
                       .arg(step, stage);
    case PipelineAction::LoadRegisters:
      return QStringLiteral(
                 "every thread loads its share of k-step %1 from global memory into registers")
          .arg(step);
    case PipelineAction::StoreRegisters:
      return QStringLiteral("every thread stores those registers into %1 (k-step %2)")
          .arg(stage, step);
    case PipelineAction::Multiply:
      return QStringLiteral("%1 on k-step %2 from %3%4")
          .arg(productName(p.product), step, stage,
               p.product == StageProduct::Wgmma
                   ? QStringLiteral(" (asynchronous: the batch runs on while the warps go ahead)")
                   : QString());
    case PipelineAction::WaitMma:
      return a.pending == 0
                 ? QStringLiteral("wgmma.wait_group 0: wait for the last batch to finish")
                 : QStringLiteral(
                       "wgmma.wait_group %1: wait until at most %1 batch is running, so the one "
                       "of k-step %2 is done with its stage")
                       .arg(a.pending)
                       .arg(batchStep);
    case PipelineAction::WaitFull:
      return QStringLiteral(
                 "mbarrier wait on the full barrier of %1: the consumers wait for "
                 "k-step %2 to land")
          .arg(stage, step);
    case PipelineAction::WaitEmpty:
      return QStringLiteral(
                 "mbarrier wait on the empty barrier of %1: the producer waits until the "
                 "consumers have freed the stage k-step %2 will fill")
          .arg(stage, step);
    case PipelineAction::Release:
      return QStringLiteral(
                 "mbarrier arrive on the empty barrier of %1: the consumers are done with "
                 "k-step %2; the producer may refill the stage")
          .arg(stage, step);
  }
  return {};
}

// The sentence for an action of `iteration`, with its absolute k-step and stage.
QString actionSentenceAt(const Pipeline& p, const PipelineStep& a, std::int64_t iteration) {
  const std::int64_t step = iteration < 0 ? a.stepOffset : iteration + a.stepOffset;
  return actionSentence(p, a, QString::number(step),
                        QStringLiteral("stage %1").arg(p.stageOf(std::max<std::int64_t>(step, 0))),
                        QString::number(step - a.pending));
}

// "s", "s+2", "s−1": a k-step relative to the one the iteration multiplies.
QString relativeStep(int offset) {
  if (offset == 0) return QStringLiteral("s");
  return offset > 0 ? QStringLiteral("s+%1").arg(offset) : QStringLiteral("s−%1").arg(-offset);
}

// One iteration of each role's loop in words.
QString loopRecipe(const Mapping& m, const Pipeline& p) {
  QString recipe;
  for (const PipelineRole role : pipelineRoles(p)) {
    if (!recipe.isEmpty()) recipe += QLatin1Char('\n');
    recipe += QStringLiteral("In k-step s, %1:").arg(roleWordings(m, p, role).front());
    int n = 0;
    for (const PipelineStep& a : pipelineLoop(p, role))
      recipe += QStringLiteral("\n%1. ").arg(++n) +
                actionSentence(p, a, relativeStep(a.stepOffset), QStringLiteral("its stage"),
                               relativeStep(a.stepOffset - a.pending));
  }
  return recipe;
}

QBrush fillingBrush(const DiagramTheme& theme) {
  return QBrush(theme.accent, Qt::Dense6Pattern);
}

QColor mmaReadingColor(const DiagramTheme& theme) {
  return blend(theme.done, theme.background, 0.35);
}

QColor waitColor(const DiagramTheme& theme) {
  return theme.idle;
}

QStringList stageWordingsOf(const Pipeline& p, StageState state) {
  const QString k = QString::number(state.step);
  switch (state.use) {
    case StageUse::Free:
      return {QStringLiteral("free")};
    case StageUse::Filling:
      return {QStringLiteral("← k-step %1 (%2)").arg(k, fillName(p.fill)),
              QStringLiteral("← k-step %1").arg(k), QStringLiteral("← k%1").arg(k), k};
    case StageUse::Multiplying:
      return {QStringLiteral("× k-step %1 (%2)").arg(k, productName(p.product)),
              QStringLiteral("× k-step %1").arg(k), QStringLiteral("× k%1").arg(k), k};
    case StageUse::MmaReading:
      return {QStringLiteral("k-step %1: %2 still reading").arg(k, productName(p.product)),
              QStringLiteral("k%1 still read").arg(k), QStringLiteral("(k%1)").arg(k), k};
  }
  return {};
}

// Draws the first wording that fits whole in `rect`; returns whether one did.
bool drawFirstFitting(QPainter& painter, LabelLayout& labels, const QRectF& rect,
                      const QStringList& wordings) {
  return std::ranges::any_of(
      wordings, [&](const QString& text) { return drawFittedText(painter, labels, rect, text); });
}

// In a narrow chip: a fuller wording upright reads better than the shortest one across.
bool drawChipText(QPainter& painter, LabelLayout& labels, const QRectF& rect,
                  const QStringList& wordings) {
  if (wordings.isEmpty()) return false;
  if (drawFirstFitting(painter, labels, rect, wordings.mid(0, wordings.size() - 1))) return true;
  return std::ranges::any_of(wordings, [&](const QString& text) {
    return drawUniformLabel(painter, labels, rect, text, text);
  });
}

double weightOf(const std::vector<PipelineStep>& actions) {
  double total = 0;
  for (const PipelineStep& a : actions) total += a.isWait() ? kWaitWeight : 1.0;
  return total;
}

// The chips of a role's actions across one cell, waits narrower.
std::vector<QRectF> chipRects(const std::vector<PipelineStep>& actions, const QRectF& cell) {
  const double total = weightOf(actions);
  std::vector<QRectF> rects;
  double x = cell.left();
  for (const PipelineStep& a : actions) {
    const double width = cell.width() * (a.isWait() ? kWaitWeight : 1.0) / total;
    rects.emplace_back(x, cell.top(), width, cell.height());
    x += width;
  }
  return rects;
}

// The absolute k-step an action of `iteration` concerns.
std::int64_t actionStep(const PipelineStep& a, std::int64_t iteration) {
  return iteration < 0 ? a.stepOffset : iteration + a.stepOffset;
}

}  // namespace

std::vector<std::int64_t> timelineIterations(const Pipeline& pipeline, std::int64_t steps) {
  std::vector<std::int64_t> iterations;
  for (std::int64_t i = -1; i < steps; ++i) iterations.push_back(i);
  const std::vector<PipelineRole> roles = pipelineRoles(pipeline);
  if (std::ranges::any_of(
          roles, [&](PipelineRole role) { return !pipelineEpilogue(pipeline, role).empty(); }))
    iterations.push_back(steps);
  return iterations;
}

std::vector<PipelineStep> timelineActions(const Pipeline& pipeline, PipelineRole role,
                                          std::int64_t iteration, std::int64_t steps) {
  if (iteration < 0) return pipelinePrologue(pipeline, role, steps);
  if (iteration >= steps) return pipelineEpilogue(pipeline, role);
  std::vector<PipelineStep> actions;
  for (const PipelineStep& a : pipelineLoop(pipeline, role)) {
    const std::int64_t step = iteration + a.stepOffset;
    // Near the ends of the loop there is nothing more to copy, or nothing yet to free.
    const bool exists = step >= 0 && step < steps;
    const bool concernsAStep =
        a.action == PipelineAction::Copy || a.action == PipelineAction::LoadRegisters ||
        a.action == PipelineAction::StoreRegisters || a.action == PipelineAction::WaitEmpty ||
        a.action == PipelineAction::Release;
    if (concernsAStep && !exists) continue;
    // A copy starts in the iteration the Pipeline says: a producer has filled every stage before
    // the loop, and refills the first only once its consumers free it.
    const bool startsACopy = a.action == PipelineAction::Copy ||
                             a.action == PipelineAction::LoadRegisters ||
                             a.action == PipelineAction::WaitEmpty;
    if (startsACopy && pipeline.copyStart(step) != iteration) continue;
    actions.push_back(a);
  }
  return actions;
}

TimelineView::TimelineView(DiagramDocument* document, QWidget* parent)
    : DiagramView(document, parent) {}

std::optional<DiagramView::EmptyState> TimelineView::emptyState() const {
  const Mapping* m = document()->mapping();
  if (!m || overlapping(*m)) return std::nullopt;
  const QString kernel = QString::fromStdString(m->config().kernel);
  const QString what =
      m->pipeline()
          ? QStringLiteral(
                "%1 copies each k-step's tiles into its one shared stage, waits at a barrier, "
                "multiplies them and waits again: nothing overlaps.")
                .arg(kernel)
      : m->regionA({0, 0}, 0).shared
          ? QStringLiteral(
                "%1 stages one k-step at a time and waits at barriers between copy and product: "
                "nothing overlaps.")
                .arg(kernel)
          : QStringLiteral("%1 reads A and B straight from global memory: there are no stages.")
                .arg(kernel);
  return EmptyState{QStringLiteral("No pipeline to draw"),
                    what +
                        QStringLiteral(" The timeline shows the kernels that copy later "
                                       "k-steps while they multiply this one: ") +
                        pipelinedKernels().join(QStringLiteral(", ")) + QLatin1Char('.')};
}

TimelineView::Layout TimelineView::layout(const QRectF& area, const DiagramTheme& theme) const {
  const Mapping& m = *document()->mapping();
  const Pipeline p = *m.pipeline();
  const std::int64_t steps = m.kSteps();
  const std::vector<PipelineRole> roles = pipelineRoles(p);
  Layout l;
  const QFontMetricsF bold(theme.font(9, true));
  l.labelHeight = bold.height() + 4 * theme.fontScale;
  double widest = 0;
  for (const PipelineRole role : roles)
    widest = std::max(widest, bold.horizontalAdvance(roleWordings(m, p, role).front()));
  widest = std::max(widest, bold.horizontalAdvance(stageWordings(p.stages - 1).front()));
  const double gap = 8 * theme.fontScale;
  l.headerWidth = std::min(widest + 2, 0.24 * area.width());

  const std::vector<std::int64_t> iterations = timelineIterations(p, steps);
  const double gridLeft = area.left() + l.headerWidth + gap;
  const double gridWidth = area.right() - gridLeft;
  // Wide enough for the busiest role's chips; yet two columns where they fit at all, since the
  // overlap shows only from one k-step to the next (the narrow chips then keep their words for
  // the hover text).
  double chips = 0;
  for (const PipelineRole role : roles) chips = std::max(chips, weightOf(pipelineLoop(p, role)));
  const double minColumn = std::max(kMinColumn, kMinChip * chips) * theme.fontScale;
  const auto fitting =
      std::max(std::int64_t(gridWidth / minColumn),
               std::min<std::int64_t>(2, std::int64_t(gridWidth / (kMinColumn * theme.fontScale))));
  const auto total = std::int64_t(iterations.size());
  const std::int64_t count = std::clamp<std::int64_t>(fitting, 1, total);
  // The selected k-step's column in the middle of those shown, where the ends allow.
  const std::int64_t selected = document()->selection().step + 1;  // its index in `iterations`
  const std::int64_t first = std::clamp<std::int64_t>(selected - (count - 1) / 2, 0, total - count);
  l.hiddenBefore = first;
  l.hiddenAfter = total - first - count;

  // Rows: the roles, a gap, the stages; what is left below holds notes and the loop in words.
  const double rowCount = kRoleRowShare * double(roles.size()) + p.stages;
  const double roleGap = 0.5 * l.labelHeight;
  const double notes = l.labelHeight;
  const double room = area.height() - l.labelHeight - roleGap - notes;
  const double rowHeight = std::clamp(room / rowCount, 1.0, largestCell(kMaxRow, area, theme));
  const double top = area.top() + l.labelHeight;
  double y = top;
  for (const PipelineRole role : roles) {
    l.rows.push_back({role, -1, QRectF(gridLeft, y, gridWidth, kRoleRowShare * rowHeight)});
    y += kRoleRowShare * rowHeight;
  }
  y += roleGap;
  for (int stage = 0; stage < p.stages; ++stage) {
    l.rows.push_back({std::nullopt, stage, QRectF(gridLeft, y, gridWidth, rowHeight)});
    y += rowHeight;
  }
  l.grid = QRectF(gridLeft, top, gridWidth, y - top);
  const double columnWidth = gridWidth / double(count);
  for (std::int64_t c = 0; c < count; ++c)
    l.columns.push_back({iterations[std::size_t(first + c)],
                         QRectF(gridLeft + double(c) * columnWidth, top, columnWidth, y - top)});
  return l;
}

QString TimelineView::caption() const {
  const Mapping& m = *document()->mapping();
  const Pipeline p = *m.pipeline();
  const QString who = p.warpSpecialised()
                          ? QStringLiteral(
                                "a producer (%1) fills them with %2 and the consumers multiply, "
                                "handing each stage over with full and empty mbarriers")
                                .arg(warpRange(0, p.producerWarps), fillName(p.fill))
                      : p.fill == StageFill::Registers
                          ? QStringLiteral(
                                "every warp loads the next k-step into registers while it "
                                "multiplies this one, then stores it into the other stage; one "
                                "barrier per k-step")
                          : QStringLiteral(
                                "every warp fills them with %1 and multiplies; one barrier per "
                                "k-step")
                                .arg(fillName(p.fill));
  QString overlap =
      QStringLiteral("while k-step s is multiplied (%1), ").arg(productName(p.product));
  overlap += p.ahead() == 1 ? QStringLiteral("k-step s+1 is on its way")
                            : QStringLiteral("k-steps s+1..s+%1 are on their way").arg(p.ahead());
  if (p.mmaInFlight > 0)
    overlap += QStringLiteral(" and the %1 batch of k-step s−%2 still reads its stage")
                   .arg(productName(p.product))
                   .arg(p.mmaInFlight);
  return QStringLiteral("%1 stages: %2; %3. %4 k-steps in all.")
      .arg(p.stages)
      .arg(who, overlap)
      .arg(m.kSteps());
}

std::vector<DiagramView::LegendEntry> TimelineView::legend(const DiagramTheme& theme) const {
  const Pipeline p = *document()->mapping()->pipeline();
  std::vector<LegendEntry> entries{
      {fillingBrush(theme), QStringLiteral("being filled (%1)").arg(fillName(p.fill))},
      {theme.accentFill, QStringLiteral("being multiplied (%1)").arg(productName(p.product))}};
  if (p.mmaInFlight > 0)
    entries.push_back({mmaReadingColor(theme), QStringLiteral("read by an MMA batch in flight")});
  entries.push_back({theme.pending, QStringLiteral("free")});
  entries.push_back({waitColor(theme), QStringLiteral("warps wait")});
  return entries;
}

void TimelineView::paintDiagram(QPainter& painter, const QRectF& area, const DiagramTheme& theme,
                                LabelLayout& labels) {
  const Mapping& m = *document()->mapping();
  const Pipeline p = *m.pipeline();
  const std::int64_t steps = m.kSteps();
  const Layout l = layout(area, theme);
  const QFont cellFont = theme.font(8.5);

  for (const Column& column : l.columns) {
    for (const Row& row : l.rows) {
      const QRectF cell =
          QRectF(column.rect.left(), row.rect.top(), column.rect.width(), row.rect.height())
              .adjusted(1, 1, -1, -1);
      painter.setFont(cellFont);
      if (row.role) {
        const std::vector<PipelineStep> actions =
            timelineActions(p, *row.role, column.iteration, steps);
        painter.fillRect(cell, theme.background);
        const std::vector<QRectF> chips = chipRects(actions, cell);
        for (std::size_t a = 0; a < actions.size(); ++a) {
          const PipelineStep& action = actions[a];
          const QRectF chip = chips[a].adjusted(1, 2, -1, -2);
          const bool moves = action.action == PipelineAction::Copy ||
                             action.action == PipelineAction::LoadRegisters ||
                             action.action == PipelineAction::StoreRegisters;
          if (action.isWait())
            painter.fillRect(chip, waitColor(theme));
          else if (moves)
            painter.fillRect(chip, fillingBrush(theme));
          else if (action.action == PipelineAction::Multiply)
            painter.fillRect(chip, theme.accentFill);
          else
            painter.fillRect(chip, theme.pending);
          painter.setPen(QPen(theme.outline, 0));
          painter.drawRect(chip);
          painter.setPen(theme.text);
          drawChipText(painter, labels, chip,
                       actionWordings(p, action, actionStep(action, column.iteration)));
        }
        continue;
      }
      const StageState state = p.stageDuring(row.stage, column.iteration, steps);
      switch (state.use) {
        case StageUse::Free:
          painter.fillRect(cell, theme.pending);
          break;
        case StageUse::Filling:
          painter.fillRect(cell, theme.pending);
          painter.fillRect(cell, fillingBrush(theme));
          break;
        case StageUse::Multiplying:
          painter.fillRect(cell, theme.background);
          painter.fillRect(cell, theme.accentFill);
          break;
        case StageUse::MmaReading:
          painter.fillRect(cell, mmaReadingColor(theme));
          break;
      }
      painter.setPen(QPen(theme.outline, 0));
      painter.drawRect(cell);
      painter.setPen(state.use == StageUse::Free ? theme.muted : theme.text);
      // Text on the hatching sits on a plain patch, so it stays readable.
      const QStringList wordings = stageWordingsOf(p, state);
      if (state.use == StageUse::Filling) {
        const QFontMetricsF metrics(cellFont);
        for (const QString& text : wordings) {
          const QSizeF size(metrics.horizontalAdvance(text) + 6, metrics.height());
          if (size.width() > cell.width() - 2 || size.height() > cell.height()) continue;
          const QRectF patch(cell.center() - QPointF(size.width() / 2, size.height() / 2), size);
          painter.fillRect(patch, theme.pending);
          drawFittedText(painter, labels, patch.adjusted(-1, 0, 1, 0), text);
          break;
        }
      } else {
        drawFirstFitting(painter, labels, cell, wordings);
      }
    }
  }
  // The selected k-step.
  const DiagramSelection& sel = document()->selection();
  for (const Column& column : l.columns)
    if (column.iteration == sel.step) {
      painter.setPen(QPen(theme.accent, 2.5));
      painter.setBrush(Qt::NoBrush);
      painter.drawRect(column.rect.adjusted(0, -1, 0, 1));
    }

  for (const Row& row : l.rows) labels.reserveFigure(row.rect);
  const QFont bold = theme.font(9, true), plain = theme.font(9), small = theme.font(8.5);
  // Column heads above the grid, row heads left of it.
  for (const Column& column : l.columns)
    labels.place(columnWordings(column.iteration, steps),
                 column.iteration == sel.step ? bold : plain, theme.text,
                 {{QRectF(column.rect.left(), area.top(), column.rect.width(), l.labelHeight),
                   Qt::AlignHCenter | Qt::AlignVCenter}});
  for (const Row& row : l.rows) {
    const QRectF head(area.left(), row.rect.top(), l.headerWidth, row.rect.height());
    labels.place(row.role ? roleWordings(m, p, *row.role) : stageWordings(row.stage), bold,
                 theme.text, {{head, Qt::AlignRight | Qt::AlignVCenter}});
  }
  // Columns left out on either side, under the grid.
  const QRectF under(l.grid.left(), l.grid.bottom() + 2, l.grid.width(), l.labelHeight);
  if (l.hiddenBefore > 0)
    labels.place({QStringLiteral("◀ %1 earlier").arg(l.hiddenBefore),
                  QStringLiteral("◀ %1").arg(l.hiddenBefore)},
                 small, theme.muted, {{under, Qt::AlignLeft | Qt::AlignVCenter}});
  if (l.hiddenAfter > 0)
    labels.place({QStringLiteral("%1 later ▶").arg(l.hiddenAfter),
                  QStringLiteral("%1 ▶").arg(l.hiddenAfter)},
                 small, theme.muted, {{under, Qt::AlignRight | Qt::AlignVCenter}});
  // The loop in words, where the view has room below.
  const QRectF below(area.left(), under.bottom() + 4 * theme.fontScale, area.width(),
                     area.bottom() - under.bottom() - 4 * theme.fontScale);
  if (below.height() >= 3 * QFontMetricsF(plain).height()) {
    const QString recipe = loopRecipe(m, p);
    labels.place({recipe}, plain, theme.text, {{below, Qt::AlignLeft | Qt::AlignTop}}, true, false);
  }
}

QString TimelineView::hoverText(const QRectF& area, QPointF pos) const {
  const Mapping& m = *document()->mapping();
  const Pipeline p = *m.pipeline();
  const std::int64_t steps = m.kSteps();
  const Layout l = layout(area, widgetTheme());
  const auto column = std::ranges::find_if(l.columns, [&](const Column& c) {
    return c.rect.left() <= pos.x() && pos.x() < c.rect.right();
  });
  const auto row = std::ranges::find_if(
      l.rows, [&](const Row& r) { return r.rect.top() <= pos.y() && pos.y() < r.rect.bottom(); });
  if (column == l.columns.end() || row == l.rows.end()) return {};
  const QString when = columnWordings(column->iteration, steps).front();
  if (row->role) {
    const std::vector<PipelineStep> actions =
        timelineActions(p, *row->role, column->iteration, steps);
    const QRectF cell(column->rect.left(), row->rect.top(), column->rect.width(),
                      row->rect.height());
    const std::vector<QRectF> chips = chipRects(actions, cell);
    for (std::size_t a = 0; a < actions.size(); ++a)
      if (chips[a].contains(pos))
        return QStringLiteral("%1, %2: %3")
            .arg(when, roleWordings(m, p, *row->role).front(),
                 actionSentenceAt(p, actions[a], column->iteration));
    return QStringLiteral("%1, %2: nothing to do")
        .arg(when, roleWordings(m, p, *row->role).front());
  }
  const StageState state = p.stageDuring(row->stage, column->iteration, steps);
  const QString stage = QStringLiteral("stage %1, %2: ").arg(row->stage).arg(when);
  if (state.use == StageUse::Free) return stage + QStringLiteral("free");
  const Range k = kStepValues(m, state.step);
  const QString values =
      QStringLiteral("k-step %1 (k = %2..%3)").arg(state.step).arg(k.begin).arg(k.end() - 1);
  switch (state.use) {
    case StageUse::Filling:
      return stage + QStringLiteral("%1 being filled by %2").arg(values, fillName(p.fill));
    case StageUse::Multiplying:
      return stage + QStringLiteral("%1 being multiplied (%2)").arg(values, productName(p.product));
    case StageUse::MmaReading:
      return stage + QStringLiteral("%1 still read by its %2 batch in flight: not yet free")
                         .arg(values, productName(p.product));
    case StageUse::Free:
      break;
  }
  return {};
}

void TimelineView::clickAt(const QRectF& area, QPointF pos) {
  const Layout l = layout(area, widgetTheme());
  for (const Column& column : l.columns)
    if (column.rect.contains(pos)) {
      DiagramSelection selection = document()->selection();
      // Before and after the loop select the first and the last k-step.
      selection.step =
          std::clamp<std::int64_t>(column.iteration, 0, document()->mapping()->kSteps() - 1);
      document()->setSelection(selection);
    }
}

}  // namespace tilescope::ui
