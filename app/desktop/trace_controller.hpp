// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Traces: a kernel as the GPU ran it, drawn in the diagrams. Opens trace files, queues traced
// launches of the Kernel Editor's kernel, and where the diagrams draw a trace and another block
// is selected, traces that block. The window lends it the diagrams (the drawer).
#include <QObject>
#include <functional>
#include <optional>
#include <utility>

#include "choices.hpp"
#include "run_controller.hpp"

namespace tilescope::desktop {

class TraceController : public QObject {
  Q_OBJECT

 public:
  // Draws a trace in the diagrams; false with why in `error` (no diagrams, an inconsistent trace).
  using Drawer = std::function<bool(const KernelTrace& trace, QString* error)>;

  explicit TraceController(RunController& runs, QObject* parent = nullptr);
  void setDrawer(Drawer drawer) { drawer_ = std::move(drawer); }

  // Draws a trace file (tilescope-bench --trace); false (and why) for a file that is no trace,
  // or one the diagrams cannot draw.
  bool open(const QString& path, QString* error);
  // Draws `trace` (drawn() follows); false (and why) where it cannot be drawn.
  bool show(const KernelTrace& trace, QString* error);
  // Queues a traced launch of the user's kernel at the choices' backend, device, size and
  // parameters. The block traced is `selected` where the diagrams draw a trace of this kernel
  // (`drawn`), else (0,0). False (with the reason as a problem) when it cannot be traced.
  bool traceUserKernel(const UserKernelSource& kernel, const Choices& choices,
                       const KernelTrace* drawn, Dim2 selected);
  // Where the diagrams draw `drawn` and `selected` is another block: traces that block (the
  // trace's source, size and parameters) on the choices' backend and device, now or when the
  // queue ends (reselect()); says why not on a backend that cannot trace. A block whose trace
  // failed is not asked for again until another is selected.
  void retrace(const KernelTrace* drawn, Dim2 selected, const Choices& choices);

 signals:
  // The queue has ended: select `block` again, so that it is traced.
  void reselect(tilescope::Dim2 block);
  // The diagrams draw `trace` now, a launch's or a file's: the Kernel Editor marks what its
  // sanitizer found, or clears what an earlier trace's found.
  void drawn(const tilescope::KernelTrace& trace);
  void status(const QString& message, int timeoutMs);
  void problem(const QString& message);

 private:
  void onTraced(const KernelTrace& trace);
  // Says what the sanitizer found in `trace` as a problem; nothing for a clean trace.
  void reportFindings(const KernelTrace& trace);

  RunController& runs_;
  Drawer drawer_;
  // The kernel and block retrace() last queued.
  std::optional<std::pair<KernelConfig, Dim2>> lastRetrace_;
  // The block selected while the queue was busy, traced when it ends.
  std::optional<Dim2> pendingRetrace_;
};

}  // namespace tilescope::desktop
