// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Memory-access view: for one warp and one access (A load, B load, C store) at one step and one
// of its load instructions, the 32 lanes' addresses laid out over memory in 128-byte lines of
// four 32-byte sectors (a float4 lane covers four words), with sectors touched and efficiency;
// for shared-memory kernels the banks one shared read touches, phase by phase, and its
// conflicts; and the whole launch's traffic. A second kernel can be drawn beside for comparison.
#include <optional>

#include "diagram_model.hpp"
#include "diagram_view.hpp"

namespace tilescope::ui {

class AccessView : public DiagramView {
  Q_OBJECT

 public:
  explicit AccessView(DiagramDocument* document, QWidget* parent = nullptr);
  DiagramKind kind() const override { return DiagramKind::Access; }

  // Everything one panel shows, for the document's kernel or the comparison kernel.
  struct Panel {
    const Mapping* mapping = nullptr;
    DiagramSelection selection;  // clamped to this mapping
    AccessPicture picture;
    std::optional<BankPicture> banks;
    Operand bankOperand = Operand::A;
    int bankSlot = 0;  // the selection's read slot, clamped to that operand's reads
    const KernelTraffic* traffic = nullptr;
    const RunResult* counted = nullptr;  // the latest run of it with hardware counters
  };
  std::vector<Panel> panels() const;
  // The text under a panel: the whole launch's modelled traffic and, for a counted run, the
  // hardware's figures beside the model's.
  static QString footer(const Panel& panel);
  // The line above a panel: the kernel, warp, block, access, k-step and instruction drawn.
  static QString header(const Panel& panel);
  // The words over the bank strip: the shared access drawn and its passes; empty without one.
  static QString bankCaption(const Panel& panel);
  // The words under the memory rows: the request's lanes, sectors, lines and efficiency.
  static QString stats(const AccessPicture& picture);
  // Tall enough to draw every line the access touches in a row of its own, its name and its
  // lanes' numbers whole, with all the words around at full size.
  int heightFor(int width) const override;

 protected:
  QString caption() const override;
  std::vector<LegendEntry> legend(const DiagramTheme& theme) const override;
  void paintDiagram(QPainter& painter, const QRectF& area, const DiagramTheme& theme,
                    LabelLayout& labels) override;
  QString hoverText(const QRectF& area, QPointF pos) const override;

 private:
  struct MemoryRow {
    std::int64_t line = -1;    // -1 for a note: untouched lines between two rows, or the rest
    std::int64_t skipped = 0;  // untouched lines this note stands for
    std::int64_t hidden = 0;   // touched lines left out because the view is too short
    double top = 0, height = 0;
    double nameLeft = 0, wordsLeft = 0;  // of its column: the name's box and the first word
  };
  struct PanelLayout {
    QRectF header, lanes, stats, banks, footer;
    double wordsLeft = 0, wordWidth = 0, rowHeight = 0, bankBoxHeight = 0;
    // The memory rows, in one column or two side by side (their words narrower than the lanes').
    std::vector<MemoryRow> rows;
    double rowWordWidth = 0, nameWidth = 0;
    std::vector<int> phaseRows;  // bank rows drawn for each phase of the shared read
    double bankTextHeight = 0, bankIndexHeight = 0;
    QFont textFont;  // of the words around the figure: smaller where the panel is short
    QFont rowFont;   // of the rows' names and the numbers in the figure's cells
    double minRowHeight = 0;
    double wantedHeight = 0;  // what the panel needs for a roomy row for every line
  };
  // The names left of the figure's rows: the lanes, the lines of memory, the bank strip's.
  static std::vector<QString> rowNames(const Panel& panel);
  PanelLayout panelLayout(const QRectF& rect, const Panel& panel, const DiagramTheme& theme) const;
  std::vector<QRectF> panelRects(const QRectF& area, std::size_t count) const;
  void paintPanel(QPainter& painter, const QRectF& rect, const Panel& panel,
                  const DiagramTheme& theme, LabelLayout& labels);
  QString panelHover(const QRectF& rect, const Panel& panel, QPointF pos) const;
  const KernelTraffic* compareTraffic(const Mapping& compare) const;

  struct CompareTraffic {
    KernelConfig config;
    Shape shape;
    KernelTraffic traffic;
  };
  mutable std::optional<CompareTraffic> compareTraffic_;
};

}  // namespace tilescope::ui
