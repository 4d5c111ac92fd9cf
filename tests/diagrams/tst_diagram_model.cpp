// What the diagram views draw (diagram_model) against tilescope::Mapping, for every kernel with
// a mapping at odd sizes: block tiles, per-thread outputs, loaders, lanes over memory, banks.
#include <QtTest>

#include "diagram_model.hpp"

using namespace tilescope;
using namespace tilescope::ui;

Q_DECLARE_METATYPE(tilescope::KernelConfig)
Q_DECLARE_METATYPE(tilescope::Shape)

namespace {

// Every kernel with a mapping, at a few tiles each (where the kernel takes one), on odd shapes.
void addEveryMappedKernel() {
  QTest::addColumn<KernelConfig>("config");
  QTest::addColumn<Shape>("shape");
  const Shape shapes[] = {{37, 29, 13}, {50, 45, 20}, {1, 1, 1}, {33, 65, 7}};
  for (const KernelInfo& info : catalogue()) {
    if (!info.hasMapping) continue;
    std::vector<Params> params{{}};
    if (const ParamSpec* tile = info.param("tile")) {
      params.clear();
      for (const int value : {1, 2, 7, 8, 16, 32})
        if (std::ranges::find(tile->allowed, value) != tile->allowed.end())
          params.push_back({{"tile", value}});
    }
    for (const Params& p : params)
      for (const Shape& shape : shapes)
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
  void stagedLoadersMatchWarpAccesses_data() { addEveryMappedKernel(); }
  void stagedLoadersMatchWarpAccesses();
  void tileBandsStopAtTheLimit();
  void ownerSamplesFollowTheMapping();
  void solidBoxOnlyForFullRectangles();
  void accessPictureCountsHandComputedSectors();
  void bankPictureComparesPadding();
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

// Each staged element has one loader, no thread loads twice, and the loader's lane in the
// warp's global load of that step reads exactly that element (or is idle in the padding).
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
        std::vector<int> loads(std::size_t(m.threadsPerBlock()), 0);
        for (const StagedElement& element : staged) {
          QVERIFY(element.loader.has_value());
          const ThreadRef& t = *element.loader;
          ++loads[std::size_t(t.warp * kWarpSize + t.lane)];
          const WarpAccess warp = m.warpAccess(block, t.warp, access, step, 0);
          const std::int64_t expected =
              element.padding ? -1
                              : element.cell.row * operandCols(shape, operand) + element.cell.col;
          QCOMPARE(warp.element[std::size_t(t.lane)], expected);
        }
        QVERIFY(std::ranges::all_of(loads, [](int count) { return count <= 1; }));
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

void TestDiagramModel::solidBoxOnlyForFullRectangles() {
  const Mapping tiled({"register-tiled", {{"tile", 4}}}, {64, 64, 8});
  const auto box = solidBox(tiled.outputs({0, 0}, {1, 2}));
  QVERIFY(box.has_value());
  QCOMPARE(box->rows.begin, std::int64_t(8));
  QCOMPARE(box->rows.count, std::int64_t(4));
  QCOMPARE(box->cols.begin, std::int64_t(4));
  QCOMPARE(box->cols.count, std::int64_t(4));
  // Row-per-thread strides over columns: its outputs are scattered, not a box.
  const Mapping rows({"row-per-thread", {{"tile", 4}}}, {8, 16, 8});
  QVERIFY(!solidBox(rows.outputs({0, 0}, {1, 1})).has_value());
  QVERIFY(!solidBox({}).has_value());
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

void TestDiagramModel::ownerTextNamesBlockThreadWarpLaneAndSteps() {
  // Naive tile 16: C[20][17] is thread (1,4) of block (1,1), linear 65: warp 2, lane 1.
  const Mapping m({"naive", {{"tile", 16}}}, {37, 29, 13});
  QCOMPARE(QString::fromStdString(ownerText(m, 20, 17)),
           QStringLiteral("C[20][17]: block (1,1), thread (1,4), warp 2, lane 1; k-steps 0..12"));
  const Mapping tiled({"shared-tiled", {{"tile", 8}}}, {37, 29, 13});
  QCOMPARE(QString::fromStdString(ownerText(tiled, 0, 0)),
           QStringLiteral("C[0][0]: block (0,0), thread (0,0), warp 0, lane 0; k-steps 0..1"));
}

QTEST_APPLESS_MAIN(TestDiagramModel)
#include "tst_diagram_model.moc"
