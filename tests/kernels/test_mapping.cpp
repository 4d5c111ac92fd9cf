// The Mapping of every kernel that has one, for every valid tile and odd sizes: each element of C
// has exactly one owner, the k-steps partition K, every staged element has exactly one loader,
// and warp accesses match hand-computed examples.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tilescope/error.hpp"
#include "tilescope/mapping.hpp"

namespace tilescope {
namespace {

// Every mapped kernel with every valid tile (or its single configuration when it has none).
std::vector<KernelConfig> mappedConfigs() {
  std::vector<KernelConfig> configs;
  for (const KernelInfo& info : catalogue()) {
    if (!info.hasMapping) continue;
    if (const ParamSpec* tile = info.param("tile")) {
      for (int value : tile->allowed) configs.push_back({info.id, {{"tile", value}}});
    } else {
      configs.push_back({info.id, {}});
    }
  }
  return configs;
}

std::string describe(const KernelConfig& config, const Shape& shape) {
  return config.kernel + " " + formatParams(config) + " at " + std::to_string(shape.m) + "x" +
         std::to_string(shape.n) + "x" + std::to_string(shape.k);
}

const std::vector<Shape> kOddShapes = {{1, 1, 1}, {7, 33, 5}, {33, 7, 65}, {45, 19, 3}};

template <typename Fn>
void forEachBlockAndThread(const Mapping& mapping, Fn&& fn) {
  for (int by = 0; by < mapping.grid().y; ++by)
    for (int bx = 0; bx < mapping.grid().x; ++bx)
      for (int linear = 0; linear < mapping.threadsPerBlock(); ++linear)
        fn(Dim2{bx, by}, mapping.threadOfLinear(linear), linear);
}

bool contains(Range outer, Range inner) {
  return inner.begin >= outer.begin && inner.end() <= outer.end();
}

TEST(Mapping, EveryElementOfCHasExactlyOneOwner) {
  for (const KernelConfig& config : mappedConfigs()) {
    for (const Shape& shape : kOddShapes) {
      SCOPED_TRACE(describe(config, shape));
      const Mapping mapping(config, shape);
      std::vector<int> writers(std::size_t(shape.m * shape.n), 0);
      forEachBlockAndThread(mapping, [&](Dim2 block, Dim2 thread, int linear) {
        const std::vector<Cell> cells = mapping.outputs(block, thread);
        EXPECT_LE(std::int64_t(cells.size()), mapping.rowsPerThread() * mapping.colsPerThread());
        for (const Cell& cell : cells) {
          ASSERT_GE(cell.row, 0);
          ASSERT_LT(cell.row, shape.m);
          ASSERT_GE(cell.col, 0);
          ASSERT_LT(cell.col, shape.n);
          ++writers[std::size_t(cell.row * shape.n + cell.col)];
          const ThreadRef owner = mapping.owner(cell.row, cell.col);
          EXPECT_EQ(owner.block.x, block.x);
          EXPECT_EQ(owner.block.y, block.y);
          EXPECT_EQ(owner.thread.x, thread.x);
          EXPECT_EQ(owner.thread.y, thread.y);
          EXPECT_EQ(owner.warp, linear / kWarpSize);
          EXPECT_EQ(owner.lane, linear % kWarpSize);
        }
      });
      for (std::size_t e = 0; e < writers.size(); ++e)
        ASSERT_EQ(writers[e], 1) << "C element " << e / shape.n << "," << e % shape.n;
    }
  }
}

TEST(Mapping, KStepsPartitionTheKRangeAndRegionsStayInTheirBlock) {
  for (const KernelConfig& config : mappedConfigs()) {
    for (const Shape& shape : kOddShapes) {
      SCOPED_TRACE(describe(config, shape));
      const Mapping mapping(config, shape);
      ASSERT_GE(mapping.kSteps(), 1);
      // Consecutive, non-overlapping steps from 0 whose union covers [0, K) and no more steps.
      std::int64_t next = 0;
      for (std::int64_t s = 0; s < mapping.kSteps(); ++s) {
        const Range k = mapping.kRange(s);
        EXPECT_EQ(k.begin, next);
        EXPECT_EQ(k.count, mapping.kDepth());
        EXPECT_LT(k.begin, shape.k) << "a step past K stages nothing";
        next = k.end();
      }
      EXPECT_GE(next, shape.k);

      const bool stagesA = config.kernel == "shared-a" || config.kernel == "shared-tiled";
      const bool stagesB = config.kernel == "shared-tiled";
      for (int by = 0; by < mapping.grid().y; ++by) {
        for (int bx = 0; bx < mapping.grid().x; ++bx) {
          const Dim2 block{bx, by};
          const Range rows = mapping.blockRows(block), cols = mapping.blockCols(block);
          for (std::int64_t s = 0; s < mapping.kSteps(); ++s) {
            const StepRegion a = mapping.regionA(block, s), b = mapping.regionB(block, s);
            EXPECT_TRUE(contains(rows, a.rows));
            EXPECT_TRUE(contains(cols, b.cols));
            EXPECT_EQ(a.cols.begin, mapping.kRange(s).begin);
            EXPECT_EQ(a.cols.count, mapping.kRange(s).count);
            EXPECT_EQ(b.rows.begin, mapping.kRange(s).begin);
            EXPECT_EQ(b.rows.count, mapping.kRange(s).count);
            EXPECT_EQ(a.shared, stagesA);
            EXPECT_EQ(b.shared, stagesB);
          }
          // The regions hold every row and column the block's threads write.
          const StepRegion a = mapping.regionA(block, 0), b = mapping.regionB(block, 0);
          for (int linear = 0; linear < mapping.threadsPerBlock(); ++linear) {
            for (const Cell& cell : mapping.outputs(block, mapping.threadOfLinear(linear))) {
              EXPECT_TRUE(contains(a.rows, {cell.row, 1}));
              EXPECT_TRUE(contains(b.cols, {cell.col, 1}));
            }
          }
        }
      }
    }
  }
}

// Which thread loads each element of one staged region; every element must have one, inside the
// block, no thread may load two, and the loader must agree with thread_map.hpp's load formula.
void expectOneLoaderPerElement(const Mapping& mapping, Dim2 block, std::int64_t step,
                               Operand operand) {
  const StepRegion region =
      operand == Operand::A ? mapping.regionA(block, step) : mapping.regionB(block, step);
  const int tile = mapping.config().params.at("tile");
  const maps::SharedTiled formulas{{{tile}}};
  std::set<std::pair<int, int>> loaders;
  for (std::int64_t r = region.rows.begin; r < region.rows.end(); ++r) {
    for (std::int64_t c = region.cols.begin; c < region.cols.end(); ++c) {
      const std::optional<Dim2> loader = operand == Operand::A
                                             ? mapping.loaderOfA(block, step, r, c)
                                             : mapping.loaderOfB(block, step, r, c);
      ASSERT_TRUE(loader.has_value()) << "no loader for " << r << "," << c;
      ASSERT_GE(loader->x, 0);
      ASSERT_LT(loader->x, mapping.block().x);
      ASSERT_GE(loader->y, 0);
      ASSERT_LT(loader->y, mapping.block().y);
      EXPECT_TRUE(loaders.insert({loader->x, loader->y}).second)
          << "thread " << loader->x << "," << loader->y << " loads two elements";
      const Cell loaded = operand == Operand::A ? formulas.aLoad(block, *loader, step)
                                                : formulas.bLoad(block, *loader, step);
      EXPECT_EQ(loaded.row, r);
      EXPECT_EQ(loaded.col, c);
    }
  }
  // A staged tile is T x T and so is the block: every thread loads exactly one element.
  EXPECT_EQ(std::int64_t(loaders.size()), region.rows.count * region.cols.count);
  EXPECT_EQ(int(loaders.size()), mapping.threadsPerBlock());
}

TEST(Mapping, EveryStagedElementHasExactlyOneLoader) {
  const Shape shape{33, 19, 40};
  for (const KernelConfig& config : mappedConfigs()) {
    SCOPED_TRACE(describe(config, shape));
    const Mapping mapping(config, shape);
    for (int by = 0; by < mapping.grid().y; ++by) {
      for (int bx = 0; bx < mapping.grid().x; ++bx) {
        const Dim2 block{bx, by};
        for (std::int64_t s = 0; s < mapping.kSteps(); ++s) {
          const StepRegion a = mapping.regionA(block, s), b = mapping.regionB(block, s);
          if (a.shared) {
            expectOneLoaderPerElement(mapping, block, s, Operand::A);
            // Outside the staged region nobody loads.
            EXPECT_FALSE(mapping.loaderOfA(block, s, a.rows.end(), a.cols.begin).has_value());
          } else {
            EXPECT_FALSE(mapping.loaderOfA(block, s, a.rows.begin, a.cols.begin).has_value());
          }
          if (b.shared) {
            expectOneLoaderPerElement(mapping, block, s, Operand::B);
            EXPECT_FALSE(mapping.loaderOfB(block, s, b.rows.begin, b.cols.end()).has_value());
          } else {
            EXPECT_FALSE(mapping.loaderOfB(block, s, b.rows.begin, b.cols.begin).has_value());
          }
        }
      }
    }
  }
}

TEST(Mapping, RowPerThreadWarpReadsThirtyTwoRowsOfA) {
  const Shape shape{64, 64, 64};
  const Mapping mapping({"row-per-thread", {{"tile", 32}}}, shape);
  const WarpAccess access = mapping.warpAccess({1, 0}, 0, Access::LoadA, 5, 0);
  EXPECT_EQ(access.operand, Operand::A);
  EXPECT_EQ(access.activeLanes(), 32);
  std::set<std::int64_t> rows;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    // Lane l is thread (l, 0) of block 1: row 32 + l, column k = 5.
    EXPECT_EQ(access.element[lane], (32 + lane) * shape.k + 5);
    rows.insert(access.element[lane] / shape.k);
  }
  EXPECT_EQ(rows.size(), 32u);
}

TEST(Mapping, NaiveWarpReadsThirtyTwoConsecutiveElementsOfB) {
  const Shape shape{64, 64, 64};
  const Mapping mapping({"naive", {{"tile", 32}}}, shape);
  const WarpAccess access = mapping.warpAccess({1, 0}, 0, Access::LoadB, 5, 0);
  EXPECT_EQ(access.operand, Operand::B);
  for (int lane = 0; lane < kWarpSize; ++lane)
    EXPECT_EQ(access.element[lane], 5 * shape.n + 32 + lane);  // B[5][32 + lane]

  // And one broadcast element of A: row 0 (thread y = 0), column 5.
  const WarpAccess a = mapping.warpAccess({1, 0}, 0, Access::LoadA, 5, 0);
  for (int lane = 0; lane < kWarpSize; ++lane) EXPECT_EQ(a.element[lane], 5);
}

TEST(Mapping, LanesBeyondTheBlockOrTheMatrixAreIdle) {
  // A 7 x 7 block has 49 threads: warp 1 holds threads 32..48 in lanes 0..16.
  const Mapping small({"naive", {{"tile", 7}}}, {64, 64, 64});
  EXPECT_EQ(small.warpsPerBlock(), 2);
  const WarpAccess tail = small.warpAccess({0, 0}, 1, Access::StoreC, 0, 0);
  EXPECT_EQ(tail.activeLanes(), 17);
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (lane >= 17) {
      EXPECT_EQ(tail.element[lane], -1) << "lane " << lane;
    } else {
      const Dim2 t = small.threadOfLinear(32 + lane);
      EXPECT_EQ(tail.element[lane], std::int64_t(t.y) * 64 + t.x) << "lane " << lane;
    }
  }

  // N = 20: lanes 20..31 of a 32-wide row fall past the matrix.
  const Mapping narrow({"naive", {{"tile", 32}}}, {40, 20, 8});
  const WarpAccess edge = narrow.warpAccess({0, 0}, 0, Access::LoadB, 3, 0);
  EXPECT_EQ(edge.activeLanes(), 20);
  for (int lane = 0; lane < kWarpSize; ++lane)
    EXPECT_EQ(edge.element[lane], lane < 20 ? 3 * 20 + lane : -1) << "lane " << lane;
}

TEST(Mapping, LibraryHasNoVisibleMapping) {
  try {
    const Mapping mapping({"library", {}}, {8, 8, 8});
    FAIL() << "the library reference should have no mapping";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::Unsupported);
  }
}

TEST(Mapping, RefusesInvalidConfigurations) {
  try {
    const Mapping mapping({"shared-tiled", {{"tile", 40}}}, {8, 8, 8});
    FAIL() << "tile 40 should be refused";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument);
  }
}

}  // namespace
}  // namespace tilescope
