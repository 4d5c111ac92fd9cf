// SPDX-License-Identifier: GPL-3.0-or-later
// The views as widgets, offscreen: hover text and clicks land on the element under the
// mouse, every kernel draws a non-blank picture, the closed library says why it has none.
#include <QtTest>

#include <QImage>
#include <QPainter>
#include <QSet>
#include <memory>
#include <set>

#include "access_view.hpp"
#include "block_view.hpp"
#include "diagram_model.hpp"
#include "kstep_view.hpp"
#include "matrix_view.hpp"
#include "tilescope/report/report.hpp"
#include "tilescope/user_kernel.hpp"
#include "timeline_view.hpp"

using namespace tilescope;
using namespace tilescope::ui;

namespace {

QPointF centre(const AxisScale& x, const AxisScale& y, std::int64_t row, std::int64_t col) {
  return {x.at(double(col) + 0.5), y.at(double(row) + 0.5)};
}

// Every hover text over the view, on a grid `step` pixels apart.
QSet<QString> hoverTexts(DiagramView& view, int step) {
  QSet<QString> texts;
  for (int y = 0; y < view.height(); y += step)
    for (int x = 0; x < view.width(); x += step) texts.insert(view.hoverTextAt(QPointF(x, y)));
  return texts;
}

int distinctColours(const QImage& image) {
  std::set<QRgb> colours;
  for (int y = 0; y < image.height(); y += 3)
    for (int x = 0; x < image.width(); x += 3) colours.insert(image.pixel(x, y));
  return int(colours.size());
}

// The distinct colours of view `kind` of `document` drawn at 900 x 600 on black: few means blank.
int renderedColours(DiagramKind kind, DiagramDocument& document) {
  QImage image(900, 600, QImage::Format_ARGB32_Premultiplied);
  image.fill(Qt::black);
  const std::unique_ptr<DiagramView> view(makeDiagramView(kind, &document));
  QPainter painter(&image);
  view->render(painter, QRectF(image.rect()), DiagramTheme::light());
  painter.end();
  return distinctColours(image);
}

}  // namespace

class TestDiagramViews : public QObject {
  Q_OBJECT

 private slots:
  void matrixHoverAndClickFollowOwnership();
  void matrixZoomKeepsThePointUnderTheMouse();
  void kstepHoverCountsSummedProducts();
  void kstepClickOnAPanelJumpsToItsStep();
  void blockClickSelectsTheWarp();
  void rowPerThreadBlockShowsAWindowThatMoves();
  void blockHoverNamesOwnerAndLoader();
  void accessViewDrawsAComparisonBeside();
  void accessViewSetsACountedRunBesideTheModel();
  void accessViewFooterCountsAMulticastTileOncePerCluster();
  void blockHoverNamesTheFloat4CopyOfALadderThread();
  void accessViewShowsTheSelectedReadSlot();
  void accessViewShowsTheLaddersStagingWrites();
  void accessViewDrawsTmaStagesAsTheProducersChunks();
  void kstepPipelineShowsItsTilesInFlight();
  void kstepTensorTmaTilesComeByTma();
  void accessViewHoverNamesTwoByteElements();
  void timelineDrawsEachStageOfThePipeline();
  void timelineActionsOfAWarpSpecialisedPipeline();
  void timelineShowsTheSelectedStepAndClicksSelect();
  void timelineWithoutAPipelineSaysWhatWouldFillIt();
  void everyKernelDrawsEveryView();
  void aTraceFromTheGpuIsDrawnBesideItsCatalogueKernel();
  void aTracedTransposedTileShowsItsBankConflictsAndPaddingRemovesThem();
  void aTracedTensorCoreKernelDrawsItsFragmentReads();
  void closedLibraryExplainsItself();
  void viewsFollowThePalette();
};

void TestDiagramViews::matrixHoverAndClickFollowOwnership() {
  DiagramDocument document;
  document.setConfiguration({"shared-tiled", {{"tile", 4}}}, {11, 9, 6});
  MatrixView view(&document);
  view.resize(700, 500);
  const Mapping& m = *document.mapping();
  const QRectF area = view.diagramArea(QRectF(view.rect()), view.widgetTheme());
  const MatrixView::Layout l = view.layout(area, view.widgetTheme());
  for (const auto& [i, j] : {std::pair{0, 0}, {10, 8}, {5, 4}, {7, 2}}) {
    const QPointF at = centre(l.cols, l.rows, i, j);
    QCOMPARE(view.hoverTextAt(at), QString::fromStdString(ownerText(m, i, j)));
    QTest::mouseClick(&view, Qt::LeftButton, {}, at.toPoint());
    const Dim2 owner = m.owner(i, j).block;
    QCOMPARE(document.selection().block.x, owner.x);
    QCOMPARE(document.selection().block.y, owner.y);
  }
  QVERIFY(view.hoverTextAt(centre(l.k, l.rows, 3, 5)).startsWith(QStringLiteral("A[3][5]")));
  QVERIFY(view.hoverTextAt(centre(l.cols, l.kDown, 5, 2)).startsWith(QStringLiteral("B[5][2]")));
  // Row 11 lies in the last block row's padding.
  QVERIFY(view.hoverTextAt(centre(l.cols, l.rows, 11, 0)).startsWith(QStringLiteral("padding")));
}

void TestDiagramViews::matrixZoomKeepsThePointUnderTheMouse() {
  DiagramDocument document;
  document.setConfiguration({"naive", {{"tile", 1}}}, {8192, 8192, 8192});
  MatrixView view(&document);
  view.resize(800, 600);
  const QRectF area = view.diagramArea(QRectF(view.rect()), view.widgetTheme());
  const MatrixView::Layout before = view.layout(area, view.widgetTheme());
  const QPointF at = centre(before.cols, before.rows, 4000, 3000);
  const QString text = view.hoverTextAt(at);
  QWheelEvent wheel(at, view.mapToGlobal(at), {}, {0, 120 * 8}, Qt::NoButton, {}, Qt::NoScrollPhase,
                    false);
  QApplication::sendEvent(&view, &wheel);
  const MatrixView::Layout after = view.layout(area, view.widgetTheme());
  QVERIFY(after.cols.pixelsPerUnit > before.cols.pixelsPerUnit * 5);
  QCOMPARE(view.hoverTextAt(at), text);
}

void TestDiagramViews::kstepHoverCountsSummedProducts() {
  DiagramDocument document;
  document.setConfiguration({"shared-tiled", {{"tile", 8}}}, {20, 20, 20});
  DiagramSelection selection = document.selection();
  selection.block = {1, 1};
  selection.step = 1;
  document.setSelection(selection);
  KStepView view(&document);
  view.resize(900, 600);
  const QRectF area = view.diagramArea(QRectF(view.rect()), view.widgetTheme());
  const KStepView::Layout l = view.layout(area, view.widgetTheme());
  QVERIFY(l.sharedA && l.sharedB);
  const QString tile = view.hoverTextAt(centre(l.cols, l.rows, 9, 10));
  QVERIFY2(tile.startsWith(QString::fromStdString(ownerText(*document.mapping(), 9, 10))),
           qPrintable(tile));
  QVERIFY2(tile.endsWith(QStringLiteral("16 of 20 products are summed")), qPrintable(tile));
  // k = 10 is in this step and staged by thread (2,1) (A[b.y*8 + y][s*8 + x]).
  const QString staged = view.hoverTextAt(centre(l.stagedK, l.rows, 9, 10));
  QVERIFY2(staged.contains(QStringLiteral("A[9][10]")) &&
               staged.contains(QStringLiteral("thread (2,1)")),
           qPrintable(staged));
}

void TestDiagramViews::kstepClickOnAPanelJumpsToItsStep() {
  DiagramDocument document;
  document.setConfiguration({"shared-a", {{"tile", 4}}}, {16, 16, 30});  // 8 k-steps of 4
  KStepView view(&document);
  view.resize(900, 600);
  const QRectF area = view.diagramArea(QRectF(view.rect()), view.widgetTheme());
  const KStepView::Layout l = view.layout(area, view.widgetTheme());
  QTest::mouseClick(&view, Qt::LeftButton, {}, centre(l.panelK, l.rows, 1, 21).toPoint());
  QCOMPARE(document.selection().step, std::int64_t(5));
  QTest::mouseClick(&view, Qt::LeftButton, {}, centre(l.cols, l.panelKDown, 2, 2).toPoint());
  QCOMPARE(document.selection().step, std::int64_t(0));
}

void TestDiagramViews::blockClickSelectsTheWarp() {
  DiagramDocument document;
  document.setConfiguration({"naive", {{"tile", 16}}}, {32, 32, 8});
  BlockView view(&document);
  view.resize(800, 600);
  const DiagramTheme theme = view.widgetTheme();
  const BlockView::Layout l = view.layout(view.diagramArea(QRectF(view.rect()), theme), theme);
  // Thread (3,9) of a 16 x 16 block is linear 147: warp 4.
  QTest::mouseClick(&view, Qt::LeftButton, {}, centre(l.cols, l.rows, 9, 3).toPoint());
  QCOMPARE(document.selection().warp, 4);
}

void TestDiagramViews::rowPerThreadBlockShowsAWindowThatMoves() {
  DiagramDocument document;
  document.setConfiguration({"row-per-thread", {{"tile", 32}}}, {64, 4096, 8});
  BlockView view(&document);
  view.resize(900, 600);
  const DiagramTheme theme = view.widgetTheme();
  const QRectF area = view.diagramArea(QRectF(view.rect()), theme);
  const BlockView::Layout before = view.layout(area, theme);
  QVERIFY(before.windowed);
  QCOMPARE(before.rowWindow.count, std::int64_t(32));  // the block's 32 rows, all shown
  QVERIFY(before.colWindow.count < 4096);
  QCOMPARE(before.colWindow.begin, std::int64_t(0));
  QVERIFY(before.rows.pixelsPerUnit >= 10);  // readable, not a sliver
  // Draw once so the view knows its window, then scroll along it.
  QImage image(900, 600, QImage::Format_ARGB32_Premultiplied);
  QPainter painter(&image);
  view.render(painter, QRectF(image.rect()), theme);
  painter.end();
  QWheelEvent wheel(area.center(), view.mapToGlobal(area.center()), {}, {0, -120}, Qt::NoButton, {},
                    Qt::NoScrollPhase, false);
  QApplication::sendEvent(&view, &wheel);
  const BlockView::Layout after = view.layout(area, theme);
  QCOMPARE(after.colWindow.begin, std::max<std::int64_t>(before.colWindow.count / 4, 1));
  const std::int64_t j = after.colWindow.begin;
  QCOMPARE(view.hoverTextAt(centre(after.cols, after.rows, 5, j)),
           QString::fromStdString(ownerText(*document.mapping(), 5, j)));
}

void TestDiagramViews::blockHoverNamesOwnerAndLoader() {
  DiagramDocument document;
  document.setConfiguration({"shared-a", {{"tile", 4}}}, {10, 10, 10});
  DiagramSelection selection = document.selection();
  selection.block = {2, 2};
  selection.step = 2;
  document.setSelection(selection);
  BlockView view(&document);
  view.resize(800, 600);
  const DiagramTheme theme = view.widgetTheme();
  const BlockView::Layout l = view.layout(view.diagramArea(QRectF(view.rect()), theme), theme);
  QCOMPARE(view.hoverTextAt(centre(l.cols, l.rows, 9, 8)),
           QString::fromStdString(ownerText(*document.mapping(), 9, 8)));
  QVERIFY(view.hoverTextAt(centre(l.cols, l.rows, 10, 8)).startsWith(QStringLiteral("padding")));
  // Step 2 stages A[8..11][8..11]; A[9][9] is loaded by thread (1,1): warp 0, lane 5.
  const QString loader = view.hoverTextAt(centre(l.stagedK, l.rows, 9, 9));
  QVERIFY2(loader.contains(QStringLiteral("thread (1,1), warp 0, lane 5")), qPrintable(loader));
  // shared-a does not stage B: the B strip says so.
  const QString b = view.hoverTextAt(centre(l.cols, l.stagedKDown, 9, 9));
  QVERIFY2(b.contains(QStringLiteral("not staged")), qPrintable(b));
}

void TestDiagramViews::accessViewDrawsAComparisonBeside() {
  DiagramDocument document;
  document.setConfiguration({"row-per-thread", {{"tile", 32}}}, {64, 64, 64});
  AccessView view(&document);
  QCOMPARE(view.panels().size(), std::size_t(1));
  DiagramSelection selection = document.selection();
  selection.compareKernel = QStringLiteral("naive");
  selection.access = Access::LoadB;
  document.setSelection(selection);
  const std::vector<AccessView::Panel> panels = view.panels();
  QCOMPARE(panels.size(), std::size_t(2));
  QCOMPARE(panels[1].mapping->config().kernel, std::string("naive"));
  QCOMPARE(panels[1].mapping->config().params.at("tile"), 32);  // the user's tile, kept
  QCOMPARE(panels[0].picture.traffic.sectors, 1);  // row-per-thread: one B element, broadcast
  QCOMPARE(panels[1].picture.traffic.sectors, 4);  // naive: 32 consecutive floats of B
  QVERIFY(panels[0].traffic && panels[1].traffic);
  QVERIFY(!panels[0].banks.has_value());
}

// The latest run of the drawn configuration with counters: its figures join the model's in the
// footer; a run of another shape or kernel is not this picture's.
void TestDiagramViews::accessViewSetsACountedRunBesideTheModel() {
  DiagramDocument document;
  document.setConfiguration({"row-per-thread", {}}, {64, 64, 64});
  AccessView view(&document);
  QVERIFY(!view.panels()[0].counted);
  QVERIFY(!AccessView::footer(view.panels()[0]).contains(QStringLiteral("Counted")));

  RunResult counted;
  counted.backend = "cuda";
  counted.device = "NVIDIA H200";
  counted.kernel = document.mapping()->config();
  counted.shape = {64, 64, 64};
  counted.counters = HardwareCounters{};
  counted.counters->globalLoadRequests = 8192;
  counted.counters->globalLoadSectors = 8192 * 16.5;
  RunResult otherShape = counted;
  otherShape.shape = {128, 128, 128};
  RunResult uncounted = counted;
  uncounted.counters.reset();
  document.setCountedRuns({counted, otherShape, uncounted});
  const std::vector<AccessView::Panel> panels = view.panels();
  QVERIFY(panels[0].counted);
  QCOMPARE(panels[0].counted->shape, (Shape{64, 64, 64}));
  const QString footer = AccessView::footer(panels[0]);
  QVERIFY2(footer.contains(QStringLiteral(
               "Counted on NVIDIA H200: global loads 16.5 sectors per request (model 16.5)")),
           qPrintable(footer));

  document.setConfiguration({"naive", {}}, {64, 64, 64});
  QVERIFY(!view.panels()[0].counted);
}

// vectorized, K = 64: A[1][10] of the staged tile comes with thread 6's float4 A[1][8..11]; its
// C tile names thread 37 (rows 8..15, columns 20..23 of the block).
// tensor-persistent's 2 x 1 clusters fetch each B tile once: the footer says so and counts it so;
// tensor-tma's blocks each fetch their own.
void TestDiagramViews::accessViewFooterCountsAMulticastTileOncePerCluster() {
  DiagramDocument document;
  document.setConfiguration({"tensor-persistent", {{"cluster", 2}}}, {512, 512, 128},
                            ElementType::BF16);
  AccessView view(&document);
  const QString persistent = AccessView::footer(view.panels()[0]);
  QVERIFY2(persistent.contains(QStringLiteral(
               "B loads 16.0 sectors/request, 100% used, each tile fetched once per cluster of "
               "2 blocks")),
           qPrintable(persistent));
  const KernelTraffic* traffic = document.traffic();
  QVERIFY(traffic);
  // 4 x 2 tiles of 64 x 256 bf16 per k-step, 2 k-steps: 4 clusters fetch 1024 sectors each.
  QCOMPARE(traffic->totals(Access::LoadB).sectors, 4.0 * 2 * 1024);

  document.setConfiguration({"tensor-tma", {}}, {512, 512, 128}, ElementType::BF16);
  const QString tma = AccessView::footer(view.panels()[0]);
  QVERIFY2(!tma.contains(QStringLiteral("cluster")), qPrintable(tma));
}

void TestDiagramViews::blockHoverNamesTheFloat4CopyOfALadderThread() {
  DiagramDocument document;
  document.setConfiguration({"vectorized", {}}, {64, 128, 64});
  BlockView view(&document);
  view.resize(1000, 700);
  const DiagramTheme theme = view.widgetTheme();
  const BlockView::Layout l = view.layout(view.diagramArea(QRectF(view.rect()), theme), theme);
  const QString staged = view.hoverTextAt(centre(l.stagedK, l.rows, 1, 10));
  QVERIFY2(staged.endsWith(QStringLiteral("loaded by thread 6, warp 0, lane 6: a float4 of "
                                          "A[1][8..11]")),
           qPrintable(staged));
  QCOMPARE(view.hoverTextAt(centre(l.cols, l.rows, 9, 21)),
           QStringLiteral("C[9][21]: block (0,0), thread 37, warp 1, lane 5; k-steps 0..3"));
}

// The bank strip follows the read slot, clamped to the operand's own reads: warptile reads its
// two B pieces 32 columns apart.
void TestDiagramViews::accessViewShowsTheSelectedReadSlot() {
  DiagramDocument document;
  document.setConfiguration({"warptile", {}}, {256, 256, 64});
  AccessView view(&document);
  DiagramSelection selection = document.selection();
  selection.access = Access::LoadB;
  selection.innerK = 3;
  selection.readSlot = 1;
  document.setSelection(selection);
  std::vector<AccessView::Panel> panels = view.panels();
  QCOMPARE(panels[0].picture.width, 4);
  QVERIFY(panels[0].banks.has_value());
  QCOMPARE(panels[0].bankOperand, Operand::B);
  QCOMPARE(panels[0].bankSlot, 1);
  QCOMPARE(panels[0].banks->word[0], 3 * 128 + 32);
  selection.readSlot = 7;  // past the reads of both operands: clamped
  document.setSelection(selection);
  QCOMPARE(document.selection().readSlot, 1);
}

// tensor-tma: the copy engine's 16-byte chunks of A, drawn as warp 0's vectors of the producer,
// land swizzled: four passes for 32 lanes of 16 bytes, no conflict.
void TestDiagramViews::accessViewDrawsTmaStagesAsTheProducersChunks() {
  DiagramDocument document;
  document.setConfiguration({"tensor-tma", {}}, {256, 256, 128}, ElementType::BF16);
  AccessView view(&document);
  DiagramSelection selection = document.selection();
  selection.sharedWrite = true;
  selection.warp = 0;
  document.setSelection(selection);
  const AccessView::Panel panel = view.panels()[0];
  QVERIFY(panel.banks.has_value());
  QCOMPARE(panel.banks->traffic.wavefronts, 4);
  QCOMPARE(panel.banks->traffic.conflicts(), 0);
  QVERIFY2(AccessView::bankCaption(panel).contains(QStringLiteral("TMA: the copy engine's")),
           qPrintable(AccessView::bankCaption(panel)));
}

// vectorized stores A transposed, one element at a time, into rows of 64 + 4 words: a warp's
// lanes with k 0 and 8 meet in one bank, two passes; its B copies land as float4s, one pass.
void TestDiagramViews::accessViewShowsTheLaddersStagingWrites() {
  DiagramDocument document;
  document.setConfiguration({"vectorized", {}}, {256, 256, 64});
  AccessView view(&document);
  DiagramSelection selection = document.selection();
  selection.sharedWrite = true;
  selection.readSlot = 3;
  document.setSelection(selection);
  QVERIFY(document.selection().sharedWrite);
  QCOMPARE(document.selection().readSlot, 3);  // four stores of A a thread
  AccessView::Panel panel = view.panels()[0];
  QVERIFY(panel.banks.has_value());
  QCOMPARE(panel.bankOperand, Operand::A);
  QCOMPARE(panel.banks->traffic.wavefronts, 2);
  QVERIFY2(AccessView::bankCaption(panel).contains(QStringLiteral("writes A's tile")),
           qPrintable(AccessView::bankCaption(panel)));
  selection.access = Access::LoadB;
  selection.readSlot = 1;
  document.setSelection(selection);
  panel = view.panels()[0];
  QCOMPARE(panel.bankOperand, Operand::B);
  QCOMPARE(panel.banks->width, 4);
  QCOMPARE(panel.banks->traffic.conflicts(), 0);
  QVERIFY(renderedColours(DiagramKind::Access, document) > 8);
}

// pipelined, 3 stages of BK = 32: while step 0 is multiplied, steps 1 and 2 are on their way.
void TestDiagramViews::kstepPipelineShowsItsTilesInFlight() {
  DiagramDocument document;
  document.setConfiguration({"pipelined", {{"stages", 3}}}, {128, 256, 256});
  KStepView view(&document);
  view.resize(1000, 700);
  const DiagramTheme theme = view.widgetTheme();
  const KStepView::Layout l = view.layout(view.diagramArea(QRectF(view.rect()), theme), theme);
  const QString flying = view.hoverTextAt(centre(l.panelK, l.rows, 3, 70));
  QVERIFY2(flying.startsWith(QStringLiteral("A[3][70]: used in k-step 2 (on its way")),
           qPrintable(flying));
  const QString later = view.hoverTextAt(centre(l.panelK, l.rows, 3, 100));
  QVERIFY2(later.startsWith(QStringLiteral("A[3][100]: used in k-step 3 (to come)")),
           qPrintable(later));
  DiagramSelection selection = document.selection();
  selection.step = 6;  // the last step but one: only step 7 is left to fetch
  document.setSelection(selection);
  const QString last = view.hoverTextAt(centre(l.panelK, l.rows, 3, 7 * 32 + 1));
  QVERIFY2(last.contains(QStringLiteral("k-step 7 (on its way")), qPrintable(last));
}

// tensor-tma: the tiles in flight come through the copy engine, not the threads' cp.async.
void TestDiagramViews::kstepTensorTmaTilesComeByTma() {
  DiagramDocument document;
  document.setConfiguration({"tensor-tma", {}}, {256, 256, 512}, ElementType::BF16);
  KStepView view(&document);
  view.resize(1000, 700);
  const DiagramTheme theme = view.widgetTheme();
  const KStepView::Layout l = view.layout(view.diagramArea(QRectF(view.rect()), theme), theme);
  const QString flying = view.hoverTextAt(centre(l.panelK, l.rows, 3, 70));
  QVERIFY2(flying.startsWith(QStringLiteral("A[3][70]: used in k-step 1 (on its way to shared "
                                            "memory: TMA)")),
           qPrintable(flying));
}

// tensor-mma in fp16, K = 64: lane 6 copies the 16-byte vector A[1][16..23]; a 4-byte word of
// memory holds two elements; the bank strip shows the first chunk of k, as ldmatrix reads it.
void TestDiagramViews::accessViewHoverNamesTwoByteElements() {
  DiagramDocument document;
  document.setConfiguration({"tensor-mma", {}}, {256, 256, 64}, ElementType::F16);
  AccessView view(&document);
  view.resize(1200, 800);
  const QSet<QString> texts = hoverTexts(view, 3);
  QVERIFY(texts.contains(QStringLiteral(
      "lane 6: thread 6 → A[1][16..23], a 16-byte vector: bytes 160..175, sector 5, line 1")));
  QVERIFY(texts.contains(
      QStringLiteral("A[1][16], A[1][17] (bytes 160..163, sector 5): read by lane 6")));
  QVERIFY(
      texts.contains(QStringLiteral("A[1][32], A[1][33] (bytes 192..195, sector 6): not fetched")));
  DiagramSelection selection = document.selection();
  selection.innerK = 7;  // inside the first chunk: its read is the one at k = 0
  document.setSelection(selection);
  QCOMPARE(document.selection().innerK, 0);
  const std::vector<AccessView::Panel> panels = view.panels();
  QVERIFY(panels[0].banks.has_value());
  QCOMPARE(panels[0].banks->traffic.activeLanes, 32);
  QCOMPARE(panels[0].banks->traffic.conflicts(), 0);
}

void TestDiagramViews::timelineDrawsEachStageOfThePipeline() {
  // Every kernel whose pipeline overlaps, with each of its stage counts: one row per role and per
  // stage, consecutive columns from before the loop, each stage cell saying what the Pipeline
  // says it holds, each role cell the actions of that iteration.
  int kernels = 0;
  for (const KernelInfo& info : catalogue()) {
    if (!info.hasMapping) continue;
    for (const KernelConfig& config : validConfigurations(info)) {
      DiagramDocument document;
      document.setConfiguration(config, {256, 256, 1000});
      // Enough k-steps for a steady state past the first stages (tensor-fp8's are 128 deep).
      if (const auto stages = document.mapping()->pipeline();
          stages && document.mapping()->kSteps() < 2 * stages->stages + 2)
        document.setConfiguration(
            config, {256, 256, document.mapping()->kDepth() * (2 * stages->stages + 2)});
      const Mapping& m = *document.mapping();
      const std::optional<Pipeline> p = m.pipeline();
      if (!p || !p->overlaps()) continue;
      ++kernels;
      TimelineView view(&document);
      view.resize(1400, 700);
      QVERIFY(!view.emptyState());
      const QRectF area = view.diagramArea(QRectF(view.rect()), view.widgetTheme());
      const TimelineView::Layout l = view.layout(area, view.widgetTheme());
      const std::vector<PipelineRole> roles = pipelineRoles(*p);
      QCOMPARE(l.rows.size(), roles.size() + std::size_t(p->stages));
      for (std::size_t r = 0; r < roles.size(); ++r) QCOMPARE(*l.rows[r].role, roles[r]);
      for (int stage = 0; stage < p->stages; ++stage)
        QCOMPARE(l.rows[roles.size() + std::size_t(stage)].stage, stage);
      const std::vector<std::int64_t> iterations = timelineIterations(*p, m.kSteps());
      QCOMPARE(std::int64_t(l.columns.size()) + l.hiddenBefore + l.hiddenAfter,
               std::int64_t(iterations.size()));
      QCOMPARE(l.hiddenBefore, 0);  // k-step 0 is selected: the loop's start is on show
      QCOMPARE(l.columns.front().iteration, -1);
      QVERIFY(l.columns.size() >= 3);
      for (std::size_t c = 1; c < l.columns.size(); ++c)
        QCOMPARE(l.columns[c].iteration, l.columns[c - 1].iteration + 1);
      for (const TimelineView::Column& column : l.columns)
        for (const TimelineView::Row& row : l.rows) {
          const QPointF at(column.rect.center().x(), row.rect.center().y());
          const QString hover = view.hoverTextAt(at);
          if (row.role) continue;
          const StageState state = p->stageDuring(row.stage, column.iteration, m.kSteps());
          if (state.use == StageUse::Free) {
            QVERIFY2(hover.endsWith(QStringLiteral(": free")), qPrintable(hover));
            continue;
          }
          const QString holds =
              QStringLiteral("k-step %1 (k = %2..").arg(state.step).arg(state.step * m.kDepth());
          QVERIFY2(hover.contains(holds), qPrintable(hover + QStringLiteral(" / ") + holds));
          const char* verb = state.use == StageUse::Filling       ? "being filled"
                             : state.use == StageUse::Multiplying ? "being multiplied"
                                                                  : "still read";
          QVERIFY2(hover.contains(QLatin1String(verb)), qPrintable(hover));
        }
      // A k-step in the loop's steady state: each role's cell holds its whole loop in order,
      // each chip explaining its own action.
      const std::int64_t steady = p->stages + 1;
      DiagramSelection selection = document.selection();
      selection.step = steady;
      document.setSelection(selection);
      const TimelineView::Layout at = view.layout(area, view.widgetTheme());
      const auto first = std::ranges::find_if(
          at.columns, [&](const TimelineView::Column& c) { return c.iteration == steady; });
      QVERIFY(first != at.columns.end());
      const TimelineView::Row& role = at.rows.front();
      const std::vector<PipelineStep> actions = timelineActions(*p, *role.role, steady, m.kSteps());
      QCOMPARE(actions.size(), pipelineLoop(*p, *role.role).size());
      QSet<QString> chipTexts;
      const double y = role.rect.center().y();
      for (double x = first->rect.left() + 1; x < first->rect.right() - 1; x += 2)
        chipTexts.insert(view.hoverTextAt(QPointF(x, y)));
      QCOMPARE(chipTexts.size(), int(actions.size()));
      QVERIFY(std::ranges::any_of(chipTexts, [](const QString& text) {
        return text.contains(QStringLiteral("wait")) || text.contains(QStringLiteral("__sync"));
      }));
    }
  }
  QVERIFY(kernels >= 4);  // pipelined's stage counts, prefetched, tensor-mma, tensor-wgmma
}

void TestDiagramViews::timelineActionsOfAWarpSpecialisedPipeline() {
  // tensor-tma's shape: a producer warpgroup's TMA copies, two consumer warpgroups, mbarriers,
  // one wgmma batch in flight. The producer fills the four stages before the loop; it refills
  // stage 0 (k-step 4) only in k-step 2, once the consumers have freed k-step 0.
  const Pipeline p{4, StageFill::Tma, StageHandover::Mbarrier, StageProduct::Wgmma, 1, 4};
  using enum PipelineAction;
  auto actions = [&](PipelineRole role, std::int64_t iteration) {
    std::vector<PipelineAction> list;
    for (const PipelineStep& a : timelineActions(p, role, iteration, 10)) list.push_back(a.action);
    return list;
  };
  QCOMPARE(actions(PipelineRole::Producer, -1), (std::vector{Copy, Copy, Copy, Copy}));
  QVERIFY(actions(PipelineRole::Producer, 0).empty());
  QVERIFY(actions(PipelineRole::Producer, 1).empty());
  QCOMPARE(actions(PipelineRole::Producer, 2), (std::vector{WaitEmpty, Copy}));
  QCOMPARE(p.stageDuring(0, 2, 10).step, std::int64_t(4));
  QVERIFY(actions(PipelineRole::Producer, 8).empty());  // k-step 10 does not exist
  // The consumers free nothing in k-step 0 (no batch before it), then the stage of s - 1.
  QCOMPARE(actions(PipelineRole::Consumer, 0), (std::vector{WaitFull, Multiply, WaitMma}));
  QCOMPARE(actions(PipelineRole::Consumer, 1), (std::vector{WaitFull, Multiply, WaitMma, Release}));
  QCOMPARE(actions(PipelineRole::Consumer, 10), (std::vector{WaitMma}));  // the drain
  const std::vector<std::int64_t> iterations = timelineIterations(p, 10);
  QCOMPARE(iterations.front(), std::int64_t(-1));
  QCOMPARE(iterations.back(), std::int64_t(10));
}

void TestDiagramViews::timelineShowsTheSelectedStepAndClicksSelect() {
  DiagramDocument document;
  document.setConfiguration({"pipelined", {{"stages", 3}}}, {256, 256, 1024});
  const Mapping& m = *document.mapping();
  TimelineView view(&document);
  view.resize(460, 420);  // a narrow dock: a few columns only
  DiagramSelection selection = document.selection();
  selection.step = 20;
  document.setSelection(selection);
  const QRectF area = view.diagramArea(QRectF(view.rect()), view.widgetTheme());
  TimelineView::Layout l = view.layout(area, view.widgetTheme());
  QVERIFY(l.columns.size() < std::size_t(m.kSteps()));
  QVERIFY(l.hiddenBefore > 0 && l.hiddenAfter > 0);
  const auto selected = std::ranges::find_if(
      l.columns, [](const TimelineView::Column& c) { return c.iteration == 20; });
  QVERIFY(selected != l.columns.end());
  // Clicking the next column selects k-step 21, and the window follows.
  const auto next = selected + 1;
  QVERIFY(next != l.columns.end());
  QTest::mouseClick(&view, Qt::LeftButton, {}, next->rect.center().toPoint());
  QCOMPARE(document.selection().step, std::int64_t(21));
  l = view.layout(area, view.widgetTheme());
  QVERIFY(std::ranges::any_of(l.columns,
                              [](const TimelineView::Column& c) { return c.iteration == 21; }));
}

void TestDiagramViews::timelineWithoutAPipelineSaysWhatWouldFillIt() {
  for (const KernelConfig& config :
       {KernelConfig{"warptile", {}}, KernelConfig{"shared-tiled", {{"tile", 8}}},
        KernelConfig{"naive", {{"tile", 8}}}}) {
    DiagramDocument document;
    document.setConfiguration(config, {64, 64, 64});
    TimelineView view(&document);
    view.resize(900, 600);
    const std::optional<DiagramView::EmptyState> empty = view.emptyState();
    QVERIFY2(empty, config.kernel.c_str());
    for (const char* kernel : {"pipelined", "prefetched", "tensor-mma", "tensor-wgmma"})
      QVERIFY2(empty->remedy.contains(QLatin1String(kernel)), qPrintable(empty->remedy));
    QVERIFY(empty->remedy.startsWith(QString::fromStdString(config.kernel)));
    QVERIFY(view.hoverTextAt(QPointF(450, 300)).isEmpty());
    QImage image(900, 600, QImage::Format_ARGB32_Premultiplied);
    QPainter painter(&image);
    view.render(painter, QRectF(image.rect()), DiagramTheme::light());
    painter.end();
    const auto& labels = view.lastLayout().labels();
    QVERIFY(view.lastLayout().figures().empty());  // no grid that would mislead
    for (const QString& text : {empty->reason, empty->remedy})
      QVERIFY2(std::ranges::any_of(labels, [&](const PlacedLabel& l) { return l.text == text; }),
               qPrintable(text));
  }
}

void TestDiagramViews::everyKernelDrawsEveryView() {
  for (const KernelInfo& info : catalogue()) {
    if (!info.hasMapping) continue;
    std::vector<KernelConfig> configs{{info.id, {}}};
    if (info.params.size() > 1) configs.push_back(validConfigurations(info).back());
    for (const KernelConfig& config : configs) {
      for (const Shape& shape : {Shape{37, 29, 13}, Shape{257, 129, 65}}) {
        DiagramDocument document;
        document.setConfiguration(config, shape);
        QVERIFY(document.mapping());
        for (const DiagramKind kind : kDiagramKinds) {
          QVERIFY2(renderedColours(kind, document) > 8,
                   qPrintable(QStringLiteral("%1 %2 %3")
                                  .arg(QString::fromStdString(formatParams(config)),
                                       QString::fromStdString(info.id), diagramKindName(kind))));
        }
      }
    }
  }
}

namespace {

KernelTrace recordedTrace(const char* name) {
  QFile file(QStringLiteral(TILESCOPE_TRACES_DIR "/%1-trace.json").arg(QLatin1String(name)));
  if (!file.open(QIODevice::ReadOnly)) qFatal("cannot read the trace %s", name);
  return report::traceDocumentFromJson(nlohmann::json::parse(file.readAll().toStdString()));
}

}  // namespace

// The traces docs/traces holds were recorded on an H200 by tilescope-bench --trace: the naive
// template's draws naive's pictures exactly; the swapped one is drawn beside naive, its first
// comment's kernel, with the traffic a swapped mapping costs.
void TestDiagramViews::aTraceFromTheGpuIsDrawnBesideItsCatalogueKernel() {
  const Mapping naive({"naive", {{"tile", 16}}}, {64, 64, 64});
  QCOMPARE(traceDifferences(Mapping(recordedTrace("naive")), naive), std::vector<std::string>{});
  QVERIFY(!traceDifferences(Mapping(recordedTrace("naive_swapped")), naive).empty());

  DiagramDocument document;
  document.setTrace(recordedTrace("naive_swapped"));
  QVERIFY(document.mapping());
  QCOMPARE(document.configurationLabel(),
           QStringLiteral("user:naive_swapped (TILE=16), traced on NVIDIA H200"));
  QCOMPARE(document.selection().block.x, 1);
  QCOMPARE(document.selection().block.y, 1);
  QCOMPARE(document.selection().compareKernel, QStringLiteral("naive"));

  AccessView access(&document);
  const std::vector<AccessView::Panel> panels = access.panels();
  QCOMPARE(panels.size(), std::size_t(2));
  QCOMPARE(panels[1].mapping->config().params.at("tile"), 16);
  QCOMPARE(panels[0].picture.traffic.sectors, 16);  // 16 rows of A, a sector each
  QCOMPARE(panels[1].picture.traffic.sectors, 2);   // naive: two rows of A, broadcast
  QVERIFY(AccessView::footer(panels[0]).contains(
      QStringLiteral("block (1,1)'s traced requests, once per block")));
  // The whole launch as 16 times the traced block: its B loads take half naive's sectors.
  const double swappedB = panels[0].traffic->totals(Access::LoadB).sectors;
  const double naiveB = panels[1].traffic->totals(Access::LoadB).sectors;
  QCOMPARE(swappedB / naiveB, 0.5);  // 2 columns of B per warp: 1 sector, naive's 16 floats 2

  for (const DiagramKind kind : kDiagramKinds)
    QVERIFY2(renderedColours(kind, document) > 8, qPrintable(diagramKindName(kind)));
  // A trace of a template as the Kernel Editor gives it (its kernel named in the second comment
  // line) is drawn beside that kernel too.
  KernelTrace fromTemplate = recordedTrace("naive");
  fromTemplate.kernel.source = userKernelTemplate("naive")->source;
  DiagramDocument templateDocument;
  templateDocument.setTrace(fromTemplate);
  QCOMPARE(templateDocument.selection().compareKernel, QStringLiteral("naive"));
  // Another block's accesses were not traced: the access view says so.
  DiagramSelection selection = document.selection();
  selection.block = {0, 0};
  document.setSelection(selection);
  QVERIFY(AccessView::header(access.panels()[0])
              .contains(QStringLiteral("only block (1,1)'s accesses were traced")));
}

// shared-tiled with A stored transposed, traced on an H200 at TILE = 32 with PAD = 0 and 1: the
// bank strip draws the write a warp made, a column of the tile, in one bank (31 conflicts)
// unpadded and over all 32 banks padded, beside shared-tiled's row, which meets 32 banks.
void TestDiagramViews::aTracedTransposedTileShowsItsBankConflictsAndPaddingRemovesThem() {
  for (const auto& [name, conflicts] :
       {std::pair("shared_tiled_transposed", 31), std::pair("shared_tiled_transposed_padded", 0)}) {
    DiagramDocument document;
    document.setTrace(recordedTrace(name));
    QVERIFY(document.mapping());
    QCOMPARE(document.selection().compareKernel, QStringLiteral("shared-tiled"));
    DiagramSelection selection = document.selection();
    selection.sharedWrite = true;
    selection.warp = 5;
    selection.step = 1;
    selection.pad = 3;  // a traced tile lies as its code laid it out: no pad is added
    document.setSelection(selection);
    QVERIFY(document.selection().sharedWrite);
    QCOMPARE(document.selection().pad, 0);

    AccessView access(&document);
    const std::vector<AccessView::Panel> panels = access.panels();
    QCOMPARE(panels.size(), std::size_t(2));
    QVERIFY(panels[0].banks && panels[1].banks);
    QCOMPARE(panels[0].bankOperand, Operand::A);
    QCOMPARE(panels[0].banks->traffic.conflicts(), conflicts);
    QCOMPARE(panels[1].banks->traffic.conflicts(), 0);  // the catalogue's tile, a row
    QVERIFY2(AccessView::bankCaption(panels[0]).contains(
                 QStringLiteral("warp 5 writes A's tile in k-step 1 (traced; words from the "
                                "tile's start): %1 pass")
                     .arg(conflicts + 1)),
             qPrintable(AccessView::bankCaption(panels[0])));
    // The read of a column is one word for the whole warp.
    selection.sharedWrite = false;
    selection.innerK = 7;
    document.setSelection(selection);
    const AccessView::Panel read = access.panels()[0];
    QVERIFY(read.banks);
    QCOMPARE(read.banks->traffic.wavefronts, 1);
    QVERIFY(read.banks->traffic.broadcast);
    for (const DiagramKind kind : kDiagramKinds)
      QVERIFY2(renderedColours(kind, document) > 8, qPrintable(diagramKindName(kind)));
  }
}

// The tensor-mma template in fp16, traced on an H200 at 256^3: its trace is tensor-mma's
// Mapping, ldmatrix reads once per 16 values of k included, and the access view draws a warp's
// ldmatrix of A beside the catalogue kernel's: 4 wavefronts, its rows padded onto all banks.
void TestDiagramViews::aTracedTensorCoreKernelDrawsItsFragmentReads() {
  const KernelTrace trace = recordedTrace("tensor_mma_fp16");
  QCOMPARE(trace.element, ElementType::F16);
  const Mapping tensor(resolve({"tensor-mma", {}}), {256, 256, 256}, ElementType::F16);
  QCOMPARE(traceDifferences(Mapping(trace), tensor), std::vector<std::string>{});

  DiagramDocument document;
  document.setTrace(trace);
  QVERIFY(document.mapping());
  QCOMPARE(document.selection().compareKernel, QStringLiteral("tensor-mma"));
  QCOMPARE(sharedReadStride(*document.mapping()), 16);
  QVERIFY(readsWithLdmatrix(*document.mapping()));
  DiagramSelection selection = document.selection();
  selection.warp = 3;
  selection.step = 2;
  selection.innerK = 21;  // moves down to 16, the second mma's first index
  document.setSelection(selection);
  QCOMPARE(document.selection().innerK, 16);

  AccessView access(&document);
  const std::vector<AccessView::Panel> panels = access.panels();
  QCOMPARE(panels.size(), std::size_t(2));
  QVERIFY(panels[0].banks && panels[1].banks);
  QCOMPARE(panels[1].mapping->element(), ElementType::F16);
  QCOMPARE(panels[0].banks->traffic.wavefronts, 4);
  QCOMPARE(panels[1].banks->traffic.wavefronts, 4);
  QVERIFY2(AccessView::bankCaption(panels[0]).contains(QStringLiteral("with ldmatrix.x4")),
           qPrintable(AccessView::bankCaption(panels[0])));
  // The 16-byte copies of A: 8 fp16 elements a lane, one request of 512 bytes.
  QCOMPARE(panels[0].picture.traffic.sectors, panels[1].picture.traffic.sectors);
  // Their stores into the stage, which the trace compared above too (two a thread and k-step):
  // rows of 80 bytes put a quarter warp's last vector on its first's banks, two passes a phase.
  QCOMPARE(tensor.sharedWriteSlots(Operand::A), 2);
  QCOMPARE(Mapping(trace).sharedWriteSlots(Operand::A), 2);
  selection = document.selection();
  selection.sharedWrite = true;
  document.setSelection(selection);
  const std::vector<AccessView::Panel> writes = access.panels();
  QVERIFY(writes[0].banks && writes[1].banks);
  QCOMPARE(writes[0].banks->traffic.wavefronts, 8);
  QCOMPARE(writes[1].banks->traffic.wavefronts, 8);
  for (const DiagramKind kind : kDiagramKinds)
    QVERIFY2(renderedColours(kind, document) > 8, qPrintable(diagramKindName(kind)));
}

void TestDiagramViews::closedLibraryExplainsItself() {
  DiagramDocument document;
  document.setConfiguration({"library", {}}, {64, 64, 64});
  QVERIFY(!document.mapping());
  QCOMPARE(document.unavailableReason(), QStringLiteral("mapping not visible: a closed library"));
  MatrixView view(&document);
  view.resize(600, 400);
  QVERIFY(view.hoverTextAt(QPointF(300, 200)).isEmpty());
  QImage image(600, 400, QImage::Format_ARGB32_Premultiplied);
  QPainter painter(&image);
  view.render(painter, QRectF(image.rect()), DiagramTheme::light());
  painter.end();
  QVERIFY(distinctColours(image) > 2);  // the message is drawn, not a blank
}

void TestDiagramViews::viewsFollowThePalette() {
  // Light, dark and high contrast (the palettes View > Theme sets): the view's background is the
  // palette's base and its words are in the palette's text colour.
  DiagramDocument document;
  document.setConfiguration({"shared-tiled", {{"tile", 8}}}, {64, 64, 64});
  for (const DiagramKind kind : kDiagramKinds) {
    const std::unique_ptr<DiagramView> view(makeDiagramView(kind, &document));
    view->resize(700, 500);
    for (const auto& [base, text] : {std::pair{QColor(Qt::white), QColor(Qt::black)},
                                     {QColor(30, 31, 34), QColor(230, 230, 230)},
                                     {QColor(Qt::black), QColor(Qt::yellow)}}) {
      QPalette palette = view->palette();
      palette.setColor(QPalette::Window, base);
      palette.setColor(QPalette::Base, base);
      palette.setColor(QPalette::Text, text);
      view->setPalette(palette);
      const QImage image = view->grab().toImage();
      QCOMPARE(image.pixelColor(2, 2), base);
      int textPixels = 0;
      for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) textPixels += image.pixelColor(x, y) == text;
      QVERIFY2(textPixels > 100,
               qPrintable(diagramKindName(kind) + QStringLiteral(" ") + text.name()));
    }
  }
}

QTEST_MAIN(TestDiagramViews)
#include "tst_diagram_views.moc"
