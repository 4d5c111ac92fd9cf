// SPDX-License-Identifier: GPL-3.0-or-later
// The memory-access view's words: the line above a panel, the request's figures under the memory
// rows, the bank strip's caption and the whole launch's traffic under it all.
#include "access_banks.hpp"
#include "access_view.hpp"
#include "tilescope/counter_model.hpp"
#include "tilescope/user_kernel.hpp"

namespace tilescope::ui {

namespace {

QString accessSummary(const AccessTotals& totals) {
  return QStringLiteral("%1 sectors/request, %2 used")
      .arg(totals.sectorsPerRequest(), 0, 'f', 1)
      .arg(percentText(totals.efficiency()));
}

QString statsText(const AccessPicture& picture) {
  const RequestTraffic& t = picture.traffic;
  if (t.activeLanes == 0) return QStringLiteral("every lane is idle: this warp makes no request");
  const auto ideal = (t.bytesUsed + kSectorBytes - 1) / kSectorBytes;
  return QStringLiteral(
             "%1 active lane%2 · %3 sector%4 in %5 line%6 · %7 of %8 bytes used · "
             "efficiency %9 (the same bytes side by side would need %10 sector%11)")
      .arg(t.activeLanes)
      .arg(QLatin1String(t.activeLanes == 1 ? "" : "s") +
           (picture.width > 1
                ? QStringLiteral(" × %1 bytes (a %2 of %3 elements each)")
                      .arg(laneBytes(picture))
                      .arg(QString::fromStdString(vectorName(picture.width, picture.elementBytes)))
                      .arg(picture.width)
            : picture.elementBytes != kWordBytes
                ? QStringLiteral(" × %1 bytes").arg(picture.elementBytes)
                : QString()))
      .arg(t.sectors)
      .arg(t.sectors == 1 ? "" : "s")
      .arg(t.lines)
      .arg(t.lines == 1 ? "" : "s")
      .arg(t.bytesUsed)
      .arg(t.bytesFetched())
      .arg(percentText(t.efficiency()))
      .arg(ideal)
      .arg(ideal == 1 ? "" : "s");
}

QString bankText(const AccessView::Panel& panel) {
  const BankTraffic& t = panel.banks->traffic;
  const Mapping& m = *panel.mapping;
  const DiagramSelection& s = panel.selection;
  const QString phases =
      t.width > 1 ? QStringLiteral(", %1 bytes per lane served %2 lanes at a time: %3 phase%4 need")
                        .arg(t.width * kWordBytes)
                        .arg(lanesPerPhase(t.width))
                        .arg(t.phases)
                        .arg(t.phases == 1 ? "" : "s")
                  : QStringLiteral(":");
  // A traced kernel's words are those it touched in the selected k-step, as its code laid the
  // tile out; the formulas' are the same at every k-step, with the pad chosen here.
  const QString layout = m.trace() ? QStringLiteral(
                                         " in k-step %1 (traced; words from the tile's "
                                         "start)")
                                         .arg(s.step)
                                   : QStringLiteral(" with pad %1").arg(s.pad);
  const QString outcome =
      QStringLiteral("%1 %2 pass%3, %4 conflict%5%6")
          .arg(phases)
          .arg(t.wavefronts)
          .arg(t.wavefronts == 1 ? "" : "es")
          .arg(t.conflicts())
          .arg(t.conflicts() == 1 ? "" : "s")
          .arg(!t.broadcast    ? QString()
               : s.sharedWrite ? QStringLiteral(" (lanes writing one word: one write lands)")
                               : QStringLiteral(" (lanes reading one word share it: a broadcast)"));
  if (s.sharedWrite) {
    const int writes = m.sharedWriteSlots(panel.bankOperand);
    // The copy engine has no warps: its chunks are drawn as the producer warpgroup's vectors.
    const bool byTma = m.pipeline() && m.pipeline()->fill == StageFill::Tma;
    return QStringLiteral("Shared memory: warp %1 writes %2's tile%3%4%5%6")
        .arg(s.warp)
        .arg(operandName(panel.bankOperand))
        .arg(writes > 1
                 ? QStringLiteral(" (write %1 of %2 per k-step)").arg(panel.bankSlot).arg(writes)
                 : QString())
        .arg(byTma ? QStringLiteral(" (TMA: the copy engine's 16-byte chunks, drawn as the "
                                    "producer warpgroup's)")
                   : QString())
        .arg(layout)
        .arg(outcome);
  }
  const int reads = m.sharedReadSlots(panel.bankOperand);
  const int stride = sharedReadStride(m);
  const QString per =
      stride > 1 ? QStringLiteral("%1-deep chunk of k").arg(stride) : QStringLiteral("inner index");
  const QString read =
      reads > 1 ? QStringLiteral(" (read %1 of %2 per %3)").arg(panel.bankSlot).arg(reads).arg(per)
                : QString();
  // The tensor cores read fragments for a whole mma.sync; the SIMT kernels a value per index.
  const QString how =
      QStringLiteral("%1s").arg(operandName(panel.bankOperand)) +
      (readsWithLdmatrix(m) ? QStringLiteral(" with ldmatrix.x4, each lane naming a 16-byte row of "
                                             "an 8×8 matrix")
       : stride > 1         ? QStringLiteral(" as fragment words, one per lane")
                            : QString());
  const QString at = stride > 1 ? QStringLiteral("for the %1 at k = %2..%3")
                                      .arg(QString::fromStdString(mmaShape(m)))
                                      .arg(s.innerK)
                                      .arg(s.innerK + stride - 1)
                                : QStringLiteral("at inner k = %1").arg(s.innerK);
  return QStringLiteral("Shared memory: warp %1 reads %2%3 %4%5%6")
      .arg(s.warp)
      .arg(how)
      .arg(read)
      .arg(at)
      .arg(layout)
      .arg(outcome);
}

// The latest counted run of the panel's kernel, figure by figure beside the model.
QString countedText(const AccessView::Panel& panel) {
  if (!panel.counted) return {};
  QStringList figures;
  for (const CounterComparison& c : compareWithModel(*panel.counted)) {
    figures << QStringLiteral("%1 %2 %3 (model %4)")
                   .arg(QString::fromStdString(c.what))
                   .arg(c.measured, 0, 'g', 3)
                   .arg(QString::fromStdString(c.unit))
                   .arg(c.model, 0, 'g', 3);
  }
  return QStringLiteral(" Counted on %1: %2.")
      .arg(QString::fromStdString(panel.counted->device), figures.join(QStringLiteral(" · ")));
}

// A load's totals, and where a cluster multicasts the operand, that its tiles count once.
QString loadSummary(const AccessView::Panel& panel, Access access) {
  const QString summary = accessSummary(panel.traffic->totals(access));
  const int blocks = panel.mapping->multicastBlocks(operandOf(access));
  if (blocks == 1) return summary;
  return summary + QStringLiteral(
                       ", each tile fetched once per cluster of %1 blocks (TMA "
                       "multicast into every block's shared memory)")
                       .arg(blocks);
}

QString footerText(const AccessView::Panel& panel) {
  if (!panel.traffic) return {};
  const KernelTraffic& t = *panel.traffic;
  const KernelTrace* trace = panel.mapping->trace();
  const QString counted = trace
                              ? QStringLiteral(" (block (%1,%2)'s traced requests, once per block)")
                                    .arg(trace->tracedBlock.x)
                                    .arg(trace->tracedBlock.y)
                          : t.exact ? QString()
                                    : QStringLiteral(" (sampled)");
  return QStringLiteral(
             "Whole launch, no cache reuse%1: A loads %2 · B loads %3 · C stores %4. "
             "Global traffic %5 against %6 compulsory: %7 FLOP per byte (at best %8).")
             .arg(counted)
             .arg(loadSummary(panel, Access::LoadA), loadSummary(panel, Access::LoadB),
                  accessSummary(t.totals(Access::StoreC)), bytesText(t.globalBytes),
                  bytesText(t.compulsoryBytes))
             .arg(t.arithmeticIntensity(), 0, 'g', 3)
             .arg(t.compulsoryIntensity(), 0, 'g', 3) +
         countedText(panel);
}

QString headerText(const AccessView::Panel& panel) {
  const DiagramSelection& s = panel.selection;
  const Mapping& m = *panel.mapping;
  QString label = QString::fromStdString(m.config().kernel);
  // The parameters spaced, so that a narrow view wraps their list rather than cut it.
  if (const std::string params = formatParams(m.config()); !params.empty())
    label += QStringLiteral(" (%1)").arg(
        QString::fromStdString(params).replace(QLatin1Char(','), QStringLiteral(", ")));
  if (m.element() != ElementType::F32)
    label += QStringLiteral(" in %1").arg(QLatin1String(toString(m.element())));
  // A trace knows the accesses of the block it recorded, no other.
  const KernelTrace* trace = m.trace();
  if (trace && (s.block.x != trace->tracedBlock.x || s.block.y != trace->tracedBlock.y))
    label += QStringLiteral(" (only block (%1,%2)'s accesses were traced)")
                 .arg(trace->tracedBlock.x)
                 .arg(trace->tracedBlock.y);
  return QStringLiteral("%1: warp %2 of block (%3,%4) · %5 · %6 · instruction %7 of %8")
      .arg(label)
      .arg(s.warp)
      .arg(s.block.x)
      .arg(s.block.y)
      .arg(QLatin1String(toString(s.access)))
      .arg(s.access == Access::StoreC ? QStringLiteral("after the last k-step")
                                      : QString::fromStdString(kStepText(m, s.step)))
      .arg(s.instr)
      .arg(m.instructionsPerStep(s.access));
}

}  // namespace

QString AccessView::footer(const Panel& panel) {
  return footerText(panel);
}

QString AccessView::bankCaption(const Panel& panel) {
  return panel.banks ? bankText(panel) : QString();
}

QString AccessView::header(const Panel& panel) {
  return headerText(panel);
}

QString AccessView::stats(const AccessPicture& picture) {
  return statsText(picture);
}

}  // namespace tilescope::ui
