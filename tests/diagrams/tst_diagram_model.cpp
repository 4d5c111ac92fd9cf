// SPDX-License-Identifier: GPL-3.0-or-later
// What the diagram views draw (diagram_model) against tilescope::Mapping, for every kernel with
// a mapping at odd sizes: block tiles, per-thread outputs, loaders, lanes over memory, banks.
#include <QtTest>

#include <set>

#include "diagram_document.hpp"
#include "diagram_model.hpp"

using namespace tilescope;
using namespace tilescope::ui;

Q_DECLARE_METATYPE(tilescope::KernelConfig)
Q_DECLARE_METATYPE(tilescope::Shape)

namespace {

// tensor-mma with a 128 x 256 block tile of 64 x 64 warp tiles and 3 stages (not its default).
const Params kWideMmaParams = {{"BM", 128}, {"BN", 256}, {"BK", 32},
                               {"WM", 64},  {"WN", 64},  {"stages", 3}};
const KernelConfig kWideMma{"tensor-mma", kWideMmaParams};
Params withStages(int stages) {
  Params params = kWideMmaParams;
  params["stages"] = stages;
  return params;
}

// Every kernel with a mapping, on odd shapes: the seed kernels at a few tiles each, the ladder
// kernels (several parameters) at their defaults and at the first and last configurations the
// catalogue accepts (the smallest and the largest tiles), also on a shape of several blocks.
void addEveryMappedKernel() {
  QTest::addColumn<KernelConfig>("config");
  QTest::addColumn<Shape>("shape");
  const std::vector<Shape> seedShapes{{37, 29, 13}, {50, 45, 20}, {1, 1, 1}, {33, 65, 7}};
  const std::vector<Shape> ladderShapes{{37, 29, 13}, {257, 129, 65}, {1, 1, 1}, {33, 65, 7}};
  for (const KernelInfo& info : catalogue()) {
    if (!info.hasMapping) continue;
    std::vector<Params> params{{}};
    if (const ParamSpec* tile = info.param("tile")) {
      params.clear();
      for (const int value : {1, 2, 7, 8, 16, 32})
        if (std::ranges::find(tile->allowed, value) != tile->allowed.end())
          params.push_back({{"tile", value}});
    } else if (!info.params.empty()) {
      const std::vector<KernelConfig> valid = validConfigurations(info);
      params = {{}, valid.front().params, valid.back().params};
    }
    const bool ladder = info.params.size() > 1;
    for (const Params& p : params)
      for (const Shape& shape : ladder ? ladderShapes : seedShapes)
        QTest::addRow("%s %s %lldx%lldx%lld", info.id.c_str(), formatParams({info.id, p}).c_str(),
                      static_cast<long long>(shape.m), static_cast<long long>(shape.n),
                      static_cast<long long>(shape.k))
            << KernelConfig{info.id, p} << shape;
  }
}

bool sameRef(const ThreadRef& a, const ThreadRef& b) {
  return a.block.x == b.block.x && a.block.y == b.block.y && a.thread.x == b.thread.x &&
         a.thread.y == b.thread.y && a.warp == b.warp && a.lane == b.lane;
}

bool contains(Range range, std::int64_t value) {
  return value >= range.begin && value < range.end();
}

}  // namespace

class TestDiagramModel : public QObject {
  Q_OBJECT

 private slots:
  void matrixTilesMatchOwnership_data() { addEveryMappedKernel(); }
  void matrixTilesMatchOwnership();
  void blockOutputsMatchOwnership_data() { addEveryMappedKernel(); }
  void blockOutputsMatchOwnership();
  void outputPiecesCoverEachThreadsOutputs_data() { addEveryMappedKernel(); }
  void outputPiecesCoverEachThreadsOutputs();
  void warpTilesHoldTheirLanesOutputs_data() { addEveryMappedKernel(); }
  void warpTilesHoldTheirLanesOutputs();
  void stagedLoadersMatchWarpAccesses_data() { addEveryMappedKernel(); }
  void stagedLoadersMatchWarpAccesses();
  void tileBandsStopAtTheLimit();
  void ownerSamplesFollowTheMapping();
  void outputPiecesOfRegisterTilesAndStrides();
  void warptileWarpsRepeatTheirLaneGrid();
  void accessPictureCountsHandComputedSectors();
  void accessPictureDrawsFloat4LanesWhole();
  void bankPictureComparesPadding();
  void bankPictureReadsEverySlot();
  void loaderTextNamesTheLoadInstruction();
  void tensorCoreFp16MovesTwoByteElements();
  void tensorCoreLdmatrixReadsAreConflictFree();
  void tensorCoreReadsOncePerChunk();
  void tensorCoreRowsArePadded();
  void tensorTmaProducerOwnsNoPieces();
  void ownerTextNamesBlockThreadWarpLaneAndSteps();
};

// The matrix view draws one rectangle per block; each C element must lie in exactly one, and
// that one must be the block the Mapping says computes it.
void TestDiagramModel::matrixTilesMatchOwnership() {
  QFETCH(KernelConfig, config);
  QFETCH(Shape, shape);
  const Mapping m(config, shape);
  const TileBands bands = tileBands(m, {0, shape.m}, {0, shape.n}, 1 << 20, 1 << 20);
  QVERIFY(bands.complete);
  const std::vector<BlockTile> tiles = blockTiles(m, bands);
  QCOMPARE(std::int64_t(tiles.size()), m.blockCount());
  for (std::int64_t i = 0; i < shape.m; ++i) {
    for (std::int64_t j = 0; j < shape.n; ++j) {
      int covering = 0;
      for (const BlockTile& tile : tiles) {
        if (!contains(tile.rows, i) || !contains(tile.cols, j)) continue;
        ++covering;
        const Dim2 owner = m.owner(i, j).block;
        if (tile.block.x != owner.x || tile.block.y != owner.y)
          QFAIL(qPrintable(QStringLiteral("C[%1][%2] drawn in block (%3,%4), owned by (%5,%6)")
                               .arg(i)
                               .arg(j)
                               .arg(tile.block.x)
                               .arg(tile.block.y)
                               .arg(owner.x)
                               .arg(owner.y)));
      }
      QCOMPARE(covering, 1);
    }
  }
}

// The block view colours each element by the thread whose outputs() hold it; over all blocks
// that must be every element of C once, each by its owner.
void TestDiagramModel::blockOutputsMatchOwnership() {
  QFETCH(KernelConfig, config);
  QFETCH(Shape, shape);
  const Mapping m(config, shape);
  std::vector<int> drawn(std::size_t(shape.m * shape.n), 0);
  for (int by = 0; by < m.grid().y; ++by) {
    for (int bx = 0; bx < m.grid().x; ++bx) {
      const Dim2 block{bx, by};
      const auto threads = blockOutputs(m, block, 1 << 22);
      QVERIFY(threads.has_value());
      QCOMPARE(int(threads->size()), m.threadsPerBlock());
      for (const ThreadOutputs& thread : *threads) {
        for (const Cell& cell : thread.cells) {
          QVERIFY(cell.row < shape.m && cell.col < shape.n);
          QVERIFY(contains(m.blockRows(block), cell.row) && contains(m.blockCols(block), cell.col));
          QVERIFY2(sameRef(thread.thread, m.owner(cell.row, cell.col)),
                   qPrintable(QStringLiteral("C[%1][%2]").arg(cell.row).arg(cell.col)));
          ++drawn[std::size_t(cell.row * shape.n + cell.col)];
        }
      }
    }
  }
  QVERIFY(std::ranges::all_of(drawn, [](int count) { return count == 1; }));
}

// A thread's pieces, clipped to C, are exactly its outputs, each once; the pieces of all the
// block's threads never overlap (their padded parts included).
void TestDiagramModel::outputPiecesCoverEachThreadsOutputs() {
  QFETCH(KernelConfig, config);
  QFETCH(Shape, shape);
  const Mapping m(config, shape);
  const Dim2 last{m.grid().x - 1, m.grid().y - 1};
  for (const Dim2 block : {Dim2{0, 0}, last}) {
    const auto threads = blockOutputs(m, block, 1 << 22);
    QVERIFY(threads.has_value());
    const Range rows = m.blockRows(block), cols = m.blockCols(block);
    std::vector<int> covered(std::size_t(rows.count * cols.count), 0);
    for (const ThreadOutputs& thread : *threads) {
      std::set<std::pair<std::int64_t, std::int64_t>> inPieces;
      for (const CellBox& piece : thread.pieces) {
        for (std::int64_t i = piece.rows.begin; i < piece.rows.end(); ++i) {
          for (std::int64_t j = piece.cols.begin; j < piece.cols.end(); ++j) {
            QVERIFY(contains(rows, i) && contains(cols, j));
            ++covered[std::size_t((i - rows.begin) * cols.count + j - cols.begin)];
            if (i < shape.m && j < shape.n) inPieces.insert({i, j});
          }
        }
      }
      std::set<std::pair<std::int64_t, std::int64_t>> outputs;
      for (const Cell& cell : thread.cells) outputs.insert({cell.row, cell.col});
      QCOMPARE(inPieces, outputs);
    }
    QVERIFY(std::ranges::all_of(covered, [](int count) { return count == 1; }));
  }
}

// Where the views draw a warp's tile (or a sub-iteration of it), the Mapping's owner of every
// element inside is a lane of that warp, and every one of its lanes' outputs lies inside.
void TestDiagramModel::warpTilesHoldTheirLanesOutputs() {
  QFETCH(KernelConfig, config);
  QFETCH(Shape, shape);
  const Mapping m(config, shape);
  const auto threads = blockOutputs(m, {0, 0}, 1 << 22);
  QVERIFY(threads.has_value());
  const std::vector<WarpTile> warps = warpTiles(*threads);
  QCOMPARE(int(warps.size()), m.warpsPerBlock());
  for (const WarpTile& warp : warps) {
    if (!warp.box) continue;
    for (std::int64_t i = warp.box->rows.begin; i < std::min(warp.box->rows.end(), shape.m); ++i)
      for (std::int64_t j = warp.box->cols.begin; j < std::min(warp.box->cols.end(), shape.n); ++j)
        QCOMPARE(m.owner(i, j).warp, warp.warp);
    for (const ThreadOutputs& thread : *threads)
      if (thread.thread.warp == warp.warp)
        for (const Cell& cell : thread.cells)
          QVERIFY(contains(warp.box->rows, cell.row) && contains(warp.box->cols, cell.col));
    // Sub-iteration p holds piece p of every lane.
    for (std::size_t p = 0; p < warp.subTiles.size(); ++p)
      for (const ThreadOutputs& thread : *threads)
        if (thread.thread.warp == warp.warp) {
          const CellBox& piece = thread.pieces[p];
          QVERIFY(contains(warp.subTiles[p].rows, piece.rows.begin) &&
                  contains(warp.subTiles[p].rows, piece.rows.end() - 1) &&
                  contains(warp.subTiles[p].cols, piece.cols.begin) &&
                  contains(warp.subTiles[p].cols, piece.cols.end() - 1));
        }
  }
}

// Every staged element has the loader Mapping::loaderOfA/B names and one of that thread's load
// instructions of the step, and in that warp-wide instruction the loader's lane touches it
// (a float4 lane four elements from its address), or is idle where the element is padding.
// Every thread loads as many elements as Mapping::stagedBy lists for it.
void TestDiagramModel::stagedLoadersMatchWarpAccesses() {
  QFETCH(KernelConfig, config);
  QFETCH(Shape, shape);
  const Mapping m(config, shape);
  const Dim2 last{m.grid().x - 1, m.grid().y - 1};
  for (const Dim2 block : {Dim2{0, 0}, last}) {
    for (const std::int64_t step : {std::int64_t(0), m.kSteps() - 1}) {
      for (const auto& [operand, access] :
           {std::pair{Operand::A, Access::LoadA}, std::pair{Operand::B, Access::LoadB}}) {
        const StepRegion region =
            operand == Operand::A ? m.regionA(block, step) : m.regionB(block, step);
        const std::vector<StagedElement> staged = stagedElements(m, block, step, operand);
        if (!region.shared) {
          QVERIFY(staged.empty());
          continue;
        }
        QCOMPARE(std::int64_t(staged.size()), region.rows.count * region.cols.count);
        std::vector<std::size_t> loads(std::size_t(m.threadsPerBlock()), 0);
        for (const StagedElement& element : staged) {
          QVERIFY(element.loader.has_value());
          const ThreadRef& t = *element.loader;
          const std::optional<Dim2> loader =
              operand == Operand::A ? m.loaderOfA(block, step, element.cell.row, element.cell.col)
                                    : m.loaderOfB(block, step, element.cell.row, element.cell.col);
          QVERIFY(loader && loader->x == t.thread.x && loader->y == t.thread.y);
          QVERIFY(element.instr >= 0 && element.instr < m.instructionsPerStep(access));
          ++loads[std::size_t(t.warp * kWarpSize + t.lane)];
          const WarpAccess warp = m.warpAccess(block, t.warp, access, step, element.instr);
          const std::int64_t first = warp.element[std::size_t(t.lane)];
          if (element.padding && first >= 0) {
            // Only a 16-byte FP8 vector along k reaches past K from inside the operand (the copy
            // engine fills the rest with zeros); elsewhere a lane past the edge is idle.
            const Cell from = m.elementCell(operand, first);
            const bool alongK = operand == Operand::A || m.copiesBAlongK();
            QVERIFY(isFp8(m.element()) && alongK);
            if (operand == Operand::A)
              QVERIFY(from.row == element.cell.row && element.cell.col < from.col + warp.width);
            else
              QVERIFY(from.col == element.cell.col && element.cell.row < from.row + warp.width);
          } else if (element.padding) {
            QCOMPARE(first, std::int64_t(-1));
          } else {
            const std::int64_t at = m.elementIndex(operand, element.cell);
            QVERIFY2(first >= 0 && at >= first && at < first + warp.width,
                     qPrintable(QStringLiteral("%1[%2][%3]: lane %4 of instruction %5")
                                    .arg(operandName(operand))
                                    .arg(element.cell.row)
                                    .arg(element.cell.col)
                                    .arg(t.lane)
                                    .arg(element.instr)));
          }
          const std::optional<StagedElement> single =
              stagedElementAt(m, block, step, operand, element.cell);
          QVERIFY(single && single->instr == element.instr && single->padding == element.padding);
        }
        for (int linear = 0; linear < m.threadsPerBlock(); ++linear)
          QCOMPARE(loads[std::size_t(linear)],
                   m.stagedBy(operand, block, m.threadOfLinear(linear), step).size());
      }
    }
  }
}

void TestDiagramModel::tileBandsStopAtTheLimit() {
  const Mapping m({"naive", {{"tile", 1}}}, {8192, 8192, 8192});
  const TileBands bands = tileBands(m, {0, 8192}, {0, 8192}, 100, 100);
  QVERIFY(!bands.complete);
  QVERIFY(bands.rows.size() <= 100 && bands.cols.size() <= 100);
  // A window inside the matrix yields just the bands it meets.
  const TileBands window = tileBands(m, {10, 3}, {20, 5}, 100, 100);
  QVERIFY(window.complete);
  QCOMPARE(window.rows.size(), std::size_t(3));
  QCOMPARE(window.cols.size(), std::size_t(5));
  QCOMPARE(window.rows.front().begin, std::int64_t(10));
}

void TestDiagramModel::ownerSamplesFollowTheMapping() {
  const Mapping m({"register-tiled", {{"tile", 4}}}, {100, 90, 10});
  const Range rows = m.blockRows({1, 1}), cols = m.blockCols({1, 1});  // 64..127, reaching past
  const int width = 16, height = 16;
  const auto samples = ownerSamples(m, rows, cols, width, height);
  QCOMPARE(int(samples.size()), width * height);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const std::int64_t i = rows.begin + std::int64_t((y + 0.5) * double(rows.count) / height);
      const std::int64_t j = cols.begin + std::int64_t((x + 0.5) * double(cols.count) / width);
      const auto& sample = samples[std::size_t(y * width + x)];
      if (i >= 100 || j >= 90) {
        QVERIFY(!sample.has_value());
      } else {
        QVERIFY(sample.has_value());
        QVERIFY(sameRef(*sample, m.owner(i, j)));
      }
    }
  }
}

void TestDiagramModel::outputPiecesOfRegisterTilesAndStrides() {
  const Mapping tiled({"register-tiled", {{"tile", 4}}}, {64, 64, 8});
  const std::vector<CellBox> box = outputPieces(tiled, {0, 0}, {1, 2});
  QCOMPARE(box.size(), std::size_t(1));
  QCOMPARE(box[0].rows.begin, std::int64_t(8));
  QCOMPARE(box[0].rows.count, std::int64_t(4));
  QCOMPARE(box[0].cols.begin, std::int64_t(4));
  QCOMPARE(box[0].cols.count, std::int64_t(4));
  // Row-per-thread strides over columns: one single element per column it visits.
  const Mapping rows({"row-per-thread", {{"tile", 4}}}, {8, 16, 8});
  const std::vector<CellBox> strided = outputPieces(rows, {0, 0}, {1, 1});
  QCOMPARE(strided.size(), std::size_t(4));
  for (std::size_t c = 0; c < strided.size(); ++c) {
    QCOMPARE(strided[c].rows.begin, std::int64_t(1));
    QCOMPARE(strided[c].cols.begin, std::int64_t(1 + 4 * c));
    QCOMPARE(strided[c].cols.count * strided[c].rows.count, std::int64_t(1));
  }
}

// tensor-tma: warpgroup 0 only copies, so its threads own no pieces; thread 128 (consumer 0's
// lane 0) owns rows 0 and 8 and the column pairs 8c, 8c + 1 of the 256: 2 x 32 pieces of 1 x 2.
void TestDiagramModel::tensorTmaProducerOwnsNoPieces() {
  const Mapping m({"tensor-tma", {}}, {512, 512, 512});
  QCOMPARE(m.firstOutputThread(), 128);
  QVERIFY(outputPieces(m, {0, 0}, {0, 0}).empty());
  QVERIFY(outputPieces(m, {0, 0}, {127, 0}).empty());
  const std::vector<CellBox> pieces = outputPieces(m, {0, 0}, {128, 0});
  QCOMPARE(pieces.size(), std::size_t(2 * 32));
  QCOMPARE(pieces.back().rows.begin, std::int64_t(8));
  QCOMPARE(pieces.back().cols.begin, std::int64_t(248));
  QCOMPARE(pieces.back().cols.count, std::int64_t(2));
}

// warptile (BM = BN = 128, WM = 32, WN = 64, TM = 8, TN = 4): 8 warps in 4 rows of 2; a warp's
// 4 x 8 lanes cover a 32 x 32 sub-tile and repeat once across, so thread 37 (warp 1, lane 5)
// owns two 8 x 4 pieces, 32 columns apart.
void TestDiagramModel::warptileWarpsRepeatTheirLaneGrid() {
  const Mapping m({"warptile", {}}, {256, 256, 64});
  QCOMPARE(formatParams(m.config()), std::string("BM=128,BN=128,BK=16,WM=32,WN=64,TM=8,TN=4"));
  const std::vector<CellBox> pieces = outputPieces(m, {1, 0}, {37, 0});
  QCOMPARE(pieces.size(), std::size_t(2));
  for (std::size_t p = 0; p < 2; ++p) {
    QCOMPARE(pieces[p].rows.begin, std::int64_t(0));
    QCOMPARE(pieces[p].rows.count, std::int64_t(8));
    QCOMPARE(pieces[p].cols.begin, std::int64_t(128 + 64 + 5 * 4 + 32 * p));
    QCOMPARE(pieces[p].cols.count, std::int64_t(4));
  }
  const std::vector<WarpTile> warps = warpTiles(*blockOutputs(m, {1, 0}, 1 << 20));
  QCOMPARE(warps.size(), std::size_t(8));
  const WarpTile& warp5 = warps[5];  // row 2, column 1 of the warp grid
  QVERIFY(warp5.box.has_value());
  QCOMPARE(warp5.box->rows.begin, std::int64_t(64));
  QCOMPARE(warp5.box->rows.count, std::int64_t(32));
  QCOMPARE(warp5.box->cols.begin, std::int64_t(128 + 64));
  QCOMPARE(warp5.box->cols.count, std::int64_t(64));
  QCOMPARE(warp5.subTiles.size(), std::size_t(2));
  QCOMPARE(warp5.subTiles[1].cols.begin, std::int64_t(128 + 96));
  QCOMPARE(warp5.subTiles[1].cols.count, std::int64_t(32));
  QCOMPARE(warp5.subTiles[1].rows.count, std::int64_t(32));
  // blocktile-2d: one piece per thread, so no sub-iterations; a warp is one row of threads.
  const Mapping tiled({"blocktile-2d", {}}, {64, 128, 8});
  const std::vector<WarpTile> rows = warpTiles(*blockOutputs(tiled, {0, 0}, 1 << 20));
  QVERIFY(rows[3].box.has_value());
  QCOMPARE(rows[3].box->rows.begin, std::int64_t(24));
  QCOMPARE(rows[3].box->rows.count, std::int64_t(8));
  QCOMPARE(rows[3].box->cols.count, std::int64_t(128));
  QVERIFY(rows[3].subTiles.empty());
}

void TestDiagramModel::accessPictureCountsHandComputedSectors() {
  // Row-per-thread, tile 32: lanes 0..31 read column 0 of rows 0..31 of A: 32 sectors and lines.
  const Mapping rows({"row-per-thread", {{"tile", 32}}}, {64, 64, 64});
  const AccessPicture a = accessPicture(rows, {0, 0}, 0, Access::LoadA, 0, 0);
  QCOMPARE(a.traffic.sectors, 32);
  QCOMPARE(a.lines.size(), std::size_t(32));
  for (const LaneAddress& lane : a.lanes) {
    QVERIFY(lane.cell.has_value());
    QCOMPARE(lane.cell->row, std::int64_t(lane.lane));
    QCOMPARE(lane.cell->col, std::int64_t(0));
    QCOMPARE(lane.byte, std::int64_t(lane.lane) * 64 * 4);
  }
  // Naive, tile 32, B load: 32 consecutive columns of one row: 4 sectors of a single line.
  const Mapping naive({"naive", {{"tile", 32}}}, {64, 64, 64});
  const AccessPicture b = accessPicture(naive, {1, 0}, 0, Access::LoadB, 0, 0);
  QCOMPARE(b.traffic.sectors, 4);
  QCOMPARE(b.lines, std::vector<std::int64_t>{1});
  QCOMPARE(b.lanes[5].cell->col, std::int64_t(37));
  QCOMPARE(b.lanes[5].sector, std::int64_t(4));
  // Edge lanes past N are idle and drawn grey.
  const Mapping edge({"naive", {{"tile", 32}}}, {64, 40, 64});
  const AccessPicture idle = accessPicture(edge, {1, 0}, 0, Access::LoadB, 0, 0);
  QCOMPARE(idle.traffic.activeLanes, 8);
  QVERIFY(!idle.lanes[8].cell.has_value());
}

// vectorized, K = 64: lane l loads the float4 A[l / 4][(l % 4) * 4 ..]: all 16 bytes of every
// lane used; rows of A are 256 bytes apart, so every other line is touched.
void TestDiagramModel::accessPictureDrawsFloat4LanesWhole() {
  const Mapping m({"vectorized", {}}, {64, 128, 64});
  const AccessPicture a = accessPicture(m, {0, 0}, 0, Access::LoadA, 0, 0);
  QCOMPARE(a.width, 4);
  QCOMPARE(a.lanes[6].cell->row, std::int64_t(1));
  QCOMPARE(a.lanes[6].cell->col, std::int64_t(8));
  QCOMPARE(a.lanes[6].byte, std::int64_t((64 + 8) * 4));
  QCOMPARE(a.traffic.bytesUsed, std::int64_t(512));
  QCOMPARE(a.traffic.sectors, 16);
  QCOMPARE(a.lines, (std::vector<std::int64_t>{0, 2, 4, 6, 8, 10, 12, 14}));
}

void TestDiagramModel::bankPictureComparesPadding() {
  const Mapping tiled({"shared-tiled", {{"tile", 31}}}, {62, 62, 62});
  const auto unpadded = bankPicture(tiled, Operand::A, 0, 4, 0);
  const auto padded = bankPicture(tiled, Operand::A, 0, 4, 1);
  QVERIFY(unpadded && padded);
  QCOMPARE(unpadded->traffic.conflicts(), 0);
  QCOMPARE(padded->traffic.conflicts(), 1);
  QCOMPARE(padded->word[31], 32 + 4);  // lane 31 is tile row 1 of a 32-word-wide padded row
  QVERIFY(!bankPicture(Mapping({"naive", {}}, {8, 8, 8}), Operand::A, 0, 0, 0).has_value());
  QVERIFY(!bankPicture(Mapping({"shared-a", {}}, {8, 8, 8}), Operand::B, 0, 0, 0).has_value());
}

// warptile reads TM = 8 values of A as two float4s per inner index (slot 1 is rows 4..7) and
// the 8 values of its two B pieces as two float4s 32 columns apart; past the last slot: none.
void TestDiagramModel::bankPictureReadsEverySlot() {
  const Mapping m({"warptile", {}}, {256, 256, 64});
  QCOMPARE(m.sharedReadSlots(Operand::B), 2);
  const auto first = bankPicture(m, Operand::B, 0, 3, 0, 0);
  const auto second = bankPicture(m, Operand::B, 0, 3, 0, 1);
  QVERIFY(first && second);
  QCOMPARE(first->width, 4);
  QCOMPARE(second->word[5] - first->word[5], 32);
  QCOMPARE(second->traffic.phases, 4);
  QCOMPARE(second->traffic.conflicts(), 0);
  const auto a = bankPicture(m, Operand::A, 0, 3, 0, 1);
  QVERIFY(a.has_value());
  QCOMPARE(a->word[8] - bankPicture(m, Operand::A, 0, 3, 0, 0)->word[8], 4);
  QVERIFY(!bankPicture(m, Operand::A, 0, 3, 0, 2).has_value());
}

// vectorized, K = 64: thread 6 copies the float4 A[1][8..11] in its only load of the step;
// blocktile-2d copies one element per load, twice a step.
void TestDiagramModel::loaderTextNamesTheLoadInstruction() {
  const Mapping vector({"vectorized", {}}, {64, 128, 64});
  const auto element = stagedElementAt(vector, {0, 0}, 0, Operand::A, {1, 10});
  QVERIFY(element.has_value());
  QCOMPARE(QString::fromStdString(loaderText(vector, {0, 0}, 0, Operand::A, *element)),
           QStringLiteral("loaded by thread 6, warp 0, lane 6: a float4 of A[1][8..11]"));
  const Mapping scalar({"blocktile-2d", {}}, {64, 128, 16});
  const auto second = stagedElementAt(scalar, {0, 0}, 1, Operand::A, {32, 9});
  QVERIFY(second.has_value());
  QCOMPARE(QString::fromStdString(loaderText(scalar, {0, 0}, 1, Operand::A, *second)),
           QStringLiteral("loaded by thread 1, warp 0, lane 1 with its load instruction 1 of 2"));
}

// tensor-mma in fp16 with BM x BN x BK = 128 x 256 x 32 (256 threads), K = 64: a
// 16-byte copy is 8 elements, so the 4 threads of a tile row cover its 32 values; warp 0 takes
// rows 0..7, each 64 bytes of a 128-byte row of A: 16 sectors in 8 lines, every byte used.
void TestDiagramModel::tensorCoreFp16MovesTwoByteElements() {
  const Mapping m(kWideMma, {256, 256, 64}, ElementType::F16);
  const AccessPicture a = accessPicture(m, {0, 0}, 0, Access::LoadA, 0, 0);
  QCOMPARE(a.width, 8);
  QCOMPARE(a.elementBytes, 2);
  QCOMPARE(a.lanes[6].cell->row, std::int64_t(1));
  QCOMPARE(a.lanes[6].cell->col, std::int64_t(16));
  QCOMPARE(a.lanes[6].byte, std::int64_t((64 + 16) * 2));
  QCOMPARE(a.lanes[6].sector, std::int64_t(5));
  QCOMPARE(a.lanes[6].line, std::int64_t(1));
  QCOMPARE(a.traffic.bytesUsed, std::int64_t(32 * 16));
  QCOMPARE(a.traffic.sectors, 16);
  QCOMPARE(a.lines, (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  const auto element = stagedElementAt(m, {0, 0}, 0, Operand::A, {1, 20});
  QVERIFY(element.has_value());
  QCOMPARE(QString::fromStdString(loaderText(m, {0, 0}, 0, Operand::A, *element)),
           QStringLiteral("loaded by thread 6, warp 0, lane 6 with its load instruction 0 of 2: a "
                          "16-byte vector of A[1][16..23]"));
  // C stays fp32: the accumulator pairs go out as float2s.
  const AccessPicture c = accessPicture(m, {0, 0}, 0, Access::StoreC, 0, 0);
  QCOMPARE(c.elementBytes, 4);
  QCOMPARE(c.width, 2);
  // tf32 operands are 4 bytes: the same copy holds 4 of them, 8 threads to a tile row.
  const Mapping tf32(kWideMma, {256, 256, 64}, ElementType::TF32);
  const AccessPicture wide = accessPicture(tf32, {0, 0}, 0, Access::LoadA, 0, 0);
  QCOMPARE(wide.width, 4);
  QCOMPARE(wide.elementBytes, 4);
  QCOMPARE(wide.lanes[6].cell->col, std::int64_t(24));
  QCOMPARE(wide.lanes[6].byte, std::int64_t(24 * 4));
}

// ldmatrix.x4: each lane names one 16-byte row of an 8 x 8 matrix, served 8 lanes at a time;
// the 16-byte padding of every tile row puts the 8 rows of a phase on all 32 banks, for A and B.
void TestDiagramModel::tensorCoreLdmatrixReadsAreConflictFree() {
  for (const ElementType type : {ElementType::F16, ElementType::BF16}) {
    const Mapping m(kWideMma, {256, 256, 64}, type);
    QVERIFY(readsWithLdmatrix(m));
    QCOMPARE(QString::fromStdString(mmaShape(m)), QStringLiteral("m16n8k16"));
    for (const Operand operand : {Operand::A, Operand::B}) {
      QCOMPARE(m.sharedReadSlots(operand), 4);  // WM / 16 rows of A, WN / 16 column pairs of B
      for (int slot = 0; slot < 4; ++slot) {
        const auto read = bankPicture(m, operand, 3, 16, 0, slot);
        QVERIFY(read.has_value());
        QCOMPARE(read->width, 4);
        QCOMPARE(read->traffic.activeLanes, 32);
        QCOMPARE(read->traffic.phases, 4);
        QCOMPARE(read->traffic.conflicts(), 0);
        for (int bank = 0; bank < kSharedBanks; ++bank)
          QCOMPARE(read->traffic.wordsPerBank[std::size_t(bank)], 4);
      }
    }
    // Four words more per row (a pitch of 24 words) puts rows r and r + 4 of a phase on the same
    // banks: every phase takes two passes.
    QCOMPARE(bankPicture(m, Operand::A, 0, 0, 4)->traffic.conflicts(), 4);
  }
  const Mapping tf32(kWideMma, {256, 256, 64}, ElementType::TF32);
  QVERIFY(!readsWithLdmatrix(tf32));
  QCOMPARE(QString::fromStdString(mmaShape(tf32)), QStringLiteral("m16n8k8"));
  const auto word = bankPicture(tf32, Operand::B, 0, 8, 0, 1);
  QVERIFY(word.has_value());
  QCOMPARE(word->width, 1);
  QCOMPARE(word->traffic.conflicts(), 0);
}

// A fragment read serves a whole mma.sync: only the first k of each chunk reads; the diagrams'
// selection steps chunk by chunk.
void TestDiagramModel::tensorCoreReadsOncePerChunk() {
  const Mapping fp16(kWideMma, {256, 256, 64}, ElementType::F16);
  const Mapping tf32(kWideMma, {256, 256, 64}, ElementType::TF32);
  QCOMPARE(sharedReadStride(fp16), 16);
  QCOMPARE(sharedReadStride(tf32), 8);
  QCOMPARE(sharedReadStride(Mapping({"warptile", {}}, {256, 256, 64})), 1);
  QCOMPARE(bankPicture(fp16, Operand::A, 0, 5, 0)->traffic.activeLanes, 0);
  QCOMPARE(bankPicture(tf32, Operand::A, 0, 8, 0)->traffic.activeLanes, 32);
  DiagramSelection selection;
  selection.innerK = 21;
  QCOMPARE(clampSelection(fp16, selection).innerK, 16);
  QCOMPARE(clampSelection(tf32, selection).innerK, 16);
  selection.innerK = 13;
  QCOMPARE(clampSelection(fp16, selection).innerK, 0);
  QCOMPARE(clampSelection(tf32, selection).innerK, 8);
}

// Rows of the staged tiles grow by 16 bytes (4 words), tf32's B rows by 32 (8 words); stages
// buffers of them are in flight.
void TestDiagramModel::tensorCoreRowsArePadded() {
  const Mapping fp16(KernelConfig{"tensor-mma", withStages(4)}, {256, 256, 64}, ElementType::F16);
  QCOMPARE(stagedLayout(fp16, Operand::A).pad, 4);
  QCOMPARE(stagedLayout(fp16, Operand::B).pad, 4);
  QVERIFY(!stagedLayout(fp16, Operand::A).transposed);
  QCOMPARE(pipelineStages(fp16), 4);
  const Mapping tf32(kWideMma, {256, 256, 64}, ElementType::TF32);
  QCOMPARE(stagedLayout(tf32, Operand::A).pad, 4);
  QCOMPARE(stagedLayout(tf32, Operand::B).pad, 8);
  QCOMPARE(pipelineStages(tf32), 3);
}

void TestDiagramModel::ownerTextNamesBlockThreadWarpLaneAndSteps() {
  // Naive tile 16: C[20][17] is thread (1,4) of block (1,1), linear 65: warp 2, lane 1.
  const Mapping m({"naive", {{"tile", 16}}}, {37, 29, 13});
  QCOMPARE(QString::fromStdString(ownerText(m, 20, 17)),
           QStringLiteral("C[20][17]: block (1,1), thread (1,4), warp 2, lane 1; k-steps 0..12"));
  const Mapping tiled({"shared-tiled", {{"tile", 8}}}, {37, 29, 13});
  QCOMPARE(QString::fromStdString(ownerText(tiled, 0, 0)),
           QStringLiteral("C[0][0]: block (0,0), thread (0,0), warp 0, lane 0; k-steps 0..1"));
  // A ladder block is 1-D: blocktile-2d's thread 37 owns rows 8..15, columns 20..23.
  const Mapping ladder({"blocktile-2d", {}}, {37, 29, 13});
  QCOMPARE(QString::fromStdString(ownerText(ladder, 9, 21)),
           QStringLiteral("C[9][21]: block (0,0), thread 37, warp 1, lane 5; k-steps 0..1"));
}

QTEST_APPLESS_MAIN(TestDiagramModel)
#include "tst_diagram_model.moc"
