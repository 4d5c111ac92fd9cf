// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The configuration the diagrams show and what the user picked inside them (block, step, warp,
// access). The views and the panel's controls share one document.
#include <QObject>
#include <QString>
#include <optional>

#include "tilescope/backend.hpp"
#include "tilescope/mapping.hpp"
#include "tilescope/traffic.hpp"
#include "tilescope/user_kernel.hpp"

namespace tilescope::ui {

enum class DiagramKind { Matrix, KStep, Block, Access, Timeline };
inline constexpr DiagramKind kDiagramKinds[] = {DiagramKind::Matrix, DiagramKind::KStep,
                                                DiagramKind::Block, DiagramKind::Access,
                                                DiagramKind::Timeline};
// "matrix", "kstep", "block", "access", "timeline": the names the CLI and exportDiagram take.
QString diagramKindName(DiagramKind kind);
std::optional<DiagramKind> diagramKindFromName(const QString& name);

struct DiagramSelection {
  Dim2 block{0, 0};
  std::int64_t step = 0;
  int warp = 0;
  Access access = Access::LoadA;
  std::int64_t instr = 0;    // which of the thread's instructions of that access in the step
  int innerK = 0;            // inner index of the shared-memory read the bank strip shows
  int readSlot = 0;          // which of a thread's shared reads at that index (register tiles),
                             // or of its writes in the k-step when sharedWrite
  bool sharedWrite = false;  // the bank strip shows a write that stages the tile, not a read
  int pad = 0;               // words added to each shared tile row in the bank strip
  QString compareKernel;     // the access view draws this kernel beside; empty for none
  bool operator==(const DiagramSelection& other) const;
};

// Every field moved into the range `mapping` allows (an unknown comparison kernel is dropped);
// the inner index of the bank strip moves down to one the warps read at (sharedReadStride).
DiagramSelection clampSelection(const Mapping& mapping, DiagramSelection selection);

class DiagramDocument : public QObject {
  Q_OBJECT

 public:
  explicit DiagramDocument(QObject* parent = nullptr);

  // Never throws: a refused configuration (or a type the kernel does not multiply) or a closed
  // library leaves mapping() null and says why in unavailableReason(). Without a type the
  // kernel's default (its first) is drawn.
  void setConfiguration(const KernelConfig& config, const Shape& shape,
                        std::optional<ElementType> element = std::nullopt);
  // A user kernel as a traced launch recorded it (Mapping(KernelTrace)): drawn until the next
  // setConfiguration. The selected block becomes the traced one, and the access view compares
  // it with the catalogue kernel its source's first comment names ("// naive ..."), if any.
  // Where the sanitizer found something in the traced block (a trace on the CPU), the warp of
  // its first finding there (sanitizerFinding()) is selected.
  // Never throws: an inconsistent trace leaves mapping() null and says why.
  void setTrace(const KernelTrace& trace);
  // The sanitizer's first finding in the traced block of the trace drawn; null where none.
  const SanitizerFinding* sanitizerFinding() const;
  const KernelConfig& config() const { return config_; }
  const Shape& shape() const { return shape_; }
  const Mapping* mapping() const { return mapping_ ? &*mapping_ : nullptr; }
  const QString& unavailableReason() const { return unavailable_; }
  // "naive (tile=16)", "tensor-mma (BM=128,...) in fp16": for titles; the type where it is not
  // fp32; ", traced on NVIDIA H200" for a trace.
  QString configurationLabel() const;

  const DiagramSelection& selection() const { return selection_; }
  // Clamps every field to what the mapping allows; emits selectionChanged when anything moved.
  void setSelection(DiagramSelection selection);

  // The whole launch's traffic, computed on first use after a configuration change.
  const KernelTraffic* traffic() const;
  // The kernel picked for comparison in the access view, on the same shape; null when none.
  const Mapping* compareMapping() const { return compare_ ? &*compare_ : nullptr; }

  double fontScale() const { return fontScale_; }
  void setFontScale(double scale);
  // Shown full screen to a room (presentation mode): words meant to be read are drawn larger.
  bool presenting() const { return presenting_; }
  void setPresenting(bool on);

  // Runs with hardware counters (the results table's); the access view sets the latest one of
  // the drawn configuration beside the model.
  void setCountedRuns(std::vector<RunResult> runs);
  // The latest counted run of `mapping`'s configuration, shape and type; null when none.
  const RunResult* countedRun(const Mapping& mapping) const;

 signals:
  void configurationChanged();
  void selectionChanged();
  void appearanceChanged();

 private:
  DiagramSelection clamped(const DiagramSelection& selection) const;
  void rebuildCompare();

  KernelConfig config_;
  Shape shape_;
  std::optional<Mapping> mapping_, compare_;
  QString unavailable_;
  DiagramSelection selection_;
  mutable std::optional<KernelTraffic> traffic_;
  double fontScale_ = 1.0;
  bool presenting_ = false;
  std::vector<RunResult> counted_;
};

}  // namespace tilescope::ui
