// SPDX-License-Identifier: GPL-3.0-or-later
// The Mapping of every kernel that has one, for every valid configuration and odd sizes: each
// element of C has exactly one owner, the k-steps partition K, every staged element has exactly
// one loader, and warp accesses match hand-computed examples.
#include <gtest/gtest.h>

#include <algorithm>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "tilescope/error.hpp"
#include "tilescope/families.hpp"
#include "tilescope/mapping.hpp"
#include "tilescope/traffic.hpp"

namespace tilescope {
namespace {

// Every mapped kernel with every configuration the catalogue accepts: each tile of a seed kernel,
// each valid combination of a ladder kernel's parameters (each one compiled for the GPU).
std::vector<KernelConfig> mappedConfigs() {
  std::vector<KernelConfig> configs;
  for (const KernelInfo& info : catalogue()) {
    if (!info.hasMapping) continue;
    for (const KernelConfig& config : validConfigurations(info)) configs.push_back(config);
  }
  return configs;
}

// The seeds that read A and B straight from global memory, and the one that stages A alone:
// every other kernel stages both.
const std::vector<std::string> kStageNothing = {"serial", "row-per-thread", "naive",
                                                "register-tiled"};
const std::string kStagesAOnly = "shared-a";

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

      const std::string& kernel = config.kernel;
      const bool stagesA = std::ranges::find(kStageNothing, kernel) == kStageNothing.end();
      const bool stagesB = stagesA && kernel != kStagesAOnly;
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

// Which thread loads each element of one staged region: every element must be staged by exactly
// one thread of the block (over all its copies and the elements of its vector copies), every
// staging thread must stage as many elements as the others (and the rest none), and loaderOfA/B
// must name that thread.
void expectOneLoaderPerElement(const Mapping& mapping, Dim2 block, std::int64_t step,
                               Operand operand) {
  const StepRegion region =
      operand == Operand::A ? mapping.regionA(block, step) : mapping.regionB(block, step);
  std::map<std::pair<std::int64_t, std::int64_t>, int> stager;  // element -> linear thread
  const std::size_t perThread =
      mapping.stagedBy(operand, block, mapping.threadOfLinear(0), step).size();
  const int staging = mapping.stagingThreads(operand);
  ASSERT_GT(staging, 0);
  ASSERT_LE(staging, mapping.threadsPerBlock());
  for (int linear = 0; linear < mapping.threadsPerBlock(); ++linear) {
    const std::vector<Cell> cells =
        mapping.stagedBy(operand, block, mapping.threadOfLinear(linear), step);
    EXPECT_EQ(cells.size(), linear < staging ? perThread : 0u)
        << "thread " << linear << " stages a different share";
    for (const Cell& cell : cells) {
      ASSERT_TRUE(contains(region.rows, {cell.row, 1}) && contains(region.cols, {cell.col, 1}))
          << "thread " << linear << " stages " << cell.row << "," << cell.col
          << " outside the region";
      EXPECT_TRUE(stager.emplace(std::pair{cell.row, cell.col}, linear).second)
          << "element " << cell.row << "," << cell.col << " is staged twice";
    }
  }
  EXPECT_EQ(std::int64_t(stager.size()), region.rows.count * region.cols.count);
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
      const int staging = stager[std::pair{r, c}];
      EXPECT_EQ(loader->x + loader->y * mapping.block().x, staging)
          << "loader of " << r << "," << c;
    }
  }
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

// ---- The ladder: layouts, vector copies and the warp grid, against hand-computed words ----

Params ladderParams(std::initializer_list<std::pair<const std::string, int>> values) {
  return Params(values);
}

TEST(Mapping, BlockTile2DSharedReadsConflictAsTheGlobalLayoutDictates) {
  // 16 x 16 threads of 8 x 8 outputs; warp 0 is thread rows 0 and 1, thread columns 0..15.
  const Mapping mapping(
      {"blocktile-2d", ladderParams({{"BM", 128}, {"BN", 128}, {"BK", 8}, {"TM", 8}, {"TN", 8}})},
      {256, 256, 256});
  EXPECT_EQ(mapping.sharedReadSlots(Operand::A), 8);
  EXPECT_EQ(mapping.sharedReadSlots(Operand::B), 8);
  const WarpSharedAccess a = *mapping.warpSharedRead(Operand::A, 0, 3, 0, 0);
  const WarpSharedAccess b = *mapping.warpSharedRead(Operand::B, 0, 3, 0, 0);
  EXPECT_EQ(a.width, 1);
  for (int lane = 0; lane < kWarpSize; ++lane) {
    // A[m][k] at word m * BK + k: thread row 1 starts 8 rows = 64 words on, the same bank.
    EXPECT_EQ(a.word[lane], lane < 16 ? 3 : 64 + 3) << lane;
    // B[k][n] at word k * BN + n: lanes 8 words apart, four of them per bank.
    EXPECT_EQ(b.word[lane], 3 * 128 + lane % 16 * 8) << lane;
  }
  EXPECT_FALSE(mapping.warpSharedRead(Operand::A, 0, 8, 0, 0).has_value()) << "kk past BK";
  EXPECT_FALSE(mapping.warpSharedRead(Operand::A, 0, 0, 0, 8).has_value()) << "slot past TM";
}

TEST(Mapping, VectorizedReadsTransposedPaddedAAsFloat4s) {
  const Mapping mapping(
      {"vectorized", ladderParams({{"BM", 128}, {"BN", 128}, {"BK", 8}, {"TM", 8}, {"TN", 8}})},
      {256, 256, 256});
  EXPECT_EQ(mapping.sharedReadSlots(Operand::A), 2);  // TM = 8 values as two float4s
  const WarpSharedAccess a = *mapping.warpSharedRead(Operand::A, 0, 3, 0, 1);
  EXPECT_EQ(a.width, 4);
  // A^T[k][m] at word k * (BM + 4) + m: slot 1 is rows 4..7 of the thread's 8.
  for (int lane = 0; lane < kWarpSize; ++lane)
    EXPECT_EQ(a.word[lane], 3 * 132 + (lane < 16 ? 0 : 8) + 4) << lane;
  // The what-if padding widens rows further.
  EXPECT_EQ(mapping.warpSharedRead(Operand::A, 0, 3, 1, 0)->word[0], 3 * 133);
  EXPECT_EQ(mapping.sharedBytesPerBlock(), 4 * (8 * 132 + 8 * 128));
}

TEST(Mapping, VectorizedCopiesAreFloat4sOnlyWhereRowsAreAligned) {
  const KernelConfig config{
      "vectorized", ladderParams({{"BM", 128}, {"BN", 128}, {"BK", 8}, {"TM", 8}, {"TN", 8}})};
  // 256 threads copy the 128 x 8 A tile as 256 float4s: lane l takes row l / 2, columns
  // (l % 2) * 4 .. + 3.
  const Mapping aligned(config, {256, 256, 64});
  EXPECT_EQ(aligned.instructionsPerStep(Access::LoadA), 1);
  const WarpAccess vector = aligned.warpAccess({0, 0}, 0, Access::LoadA, 1, 0);
  EXPECT_EQ(vector.width, 4);
  for (int lane = 0; lane < kWarpSize; ++lane)
    EXPECT_EQ(vector.element[lane], lane / 2 * 64 + 8 + lane % 2 * 4) << lane;
  EXPECT_EQ(aligned.instructionsPerStep(Access::StoreC), 64 / 4);
  EXPECT_EQ(aligned.warpAccess({0, 0}, 0, Access::StoreC, 0, 0).width, 4);

  // K = 63: rows of A are not 16-byte aligned, so each vector takes four scalar loads.
  const Mapping ragged(config, {256, 255, 63});
  EXPECT_EQ(ragged.instructionsPerStep(Access::LoadA), 4);
  const WarpAccess scalar = ragged.warpAccess({0, 0}, 0, Access::LoadA, 1, 2);
  EXPECT_EQ(scalar.width, 1);
  for (int lane = 0; lane < kWarpSize; ++lane)
    EXPECT_EQ(scalar.element[lane], lane / 2 * 63 + 8 + lane % 2 * 4 + 2) << lane;
  EXPECT_EQ(ragged.instructionsPerStep(Access::StoreC), 64);  // N = 255: scalar stores
}

// prefetched copies without bounds checks where its map says the tiles divide the matrices: there
// every float4 copy of every block and k-step lies inside A and B, and elsewhere some do not.
TEST(Mapping, WhereTheTilesDivideEveryCopyLiesInside) {
  const maps::Prefetched map = maps::Prefetched::fromValues({128, 128, 8, 32, 64, 4, 4});
  const int last = map.copyWidth() - 1;  // a copy's last element, after its first
  const auto everyCopyInside = [&](std::int64_t m, std::int64_t n, std::int64_t k) {
    const std::int64_t steps = (k + map.bk - 1) / map.bk;
    for (int by = 0; by < (m + map.bm - 1) / map.bm; ++by)
      for (int bx = 0; bx < (n + map.bn - 1) / map.bn; ++bx)
        for (int t = 0; t < map.threads(); ++t)
          for (std::int64_t s = 0; s < std::max<std::int64_t>(steps, 1); ++s) {
            for (int i = 0; i < map.aCopy().copiesPerThread(); ++i) {
              const Cell a = map.aLoad({bx, by}, {t, 0}, s, i);
              if (a.row >= m || a.col + last >= k) return false;
            }
            for (int i = 0; i < map.bCopy().copiesPerThread(); ++i) {
              const Cell b = map.bLoad({bx, by}, {t, 0}, s, i);
              if (b.row >= k || b.col + last >= n) return false;
            }
          }
    return true;
  };
  for (const auto& [m, n, k] : std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t>>{
           {128, 128, 8}, {256, 384, 24}, {384, 256, 40}}) {
    EXPECT_TRUE(map.tilesDivide(m, n, k)) << m << " x " << n << " x " << k;
    EXPECT_TRUE(everyCopyInside(m, n, k)) << m << " x " << n << " x " << k;
  }
  for (const auto& [m, n, k] : std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t>>{
           {124, 128, 8}, {128, 132, 8}, {256, 256, 20}, {128, 128, 0}}) {
    EXPECT_FALSE(map.tilesDivide(m, n, k)) << m << " x " << n << " x " << k;
    EXPECT_FALSE(everyCopyInside(m, n, k)) << m << " x " << n << " x " << k;
  }
}

TEST(Mapping, WarptileLanesFormAFourByEightGridAndReadWholeSharedRows) {
  // 2 x 2 warps of 64 x 64; lanes 4 x 8 of 8 x 4 pieces, repeated 2 x 2 times.
  const Mapping mapping(
      {"warptile",
       ladderParams(
           {{"BM", 128}, {"BN", 128}, {"BK", 16}, {"WM", 64}, {"WN", 64}, {"TM", 8}, {"TN", 4}})},
      {256, 256, 256});
  EXPECT_EQ(mapping.threadsPerBlock(), 128);
  EXPECT_EQ(mapping.rowsPerThread(), 16);
  EXPECT_EQ(mapping.colsPerThread(), 8);
  EXPECT_EQ(mapping.owner(0, 4).thread.x, 1);    // lane column 1
  EXPECT_EQ(mapping.owner(8, 0).thread.x, 8);    // lane row 1
  EXPECT_EQ(mapping.owner(32, 36).thread.x, 1);  // the second sub-iteration, down and across
  EXPECT_EQ(mapping.owner(0, 64).thread.x, 32);  // warp 1
  EXPECT_EQ(mapping.owner(64, 0).thread.x, 64);  // warp 2
  EXPECT_EQ(mapping.owner(200, 130).block.x, 1);
  EXPECT_EQ(mapping.owner(200, 130).block.y, 1);

  EXPECT_EQ(mapping.sharedReadSlots(Operand::B), 2);
  for (int warp : {0, 1}) {
    const WarpSharedAccess b = *mapping.warpSharedRead(Operand::B, warp, 5, 0, 0);
    EXPECT_EQ(b.width, 4);
    // Lanes 0..7 read eight float4s that tile one 128-byte row: every bank once.
    std::set<int> banks;
    for (int lane = 0; lane < 8; ++lane)
      for (int w = 0; w < b.width; ++w) banks.insert((b.word[lane] + w) % 32);
    EXPECT_EQ(banks.size(), 32u) << "warp " << warp;
    for (int lane = 0; lane < kWarpSize; ++lane)
      EXPECT_EQ(b.word[lane], 5 * 128 + warp * 64 + lane % 8 * 4) << lane;
  }
  const WarpSharedAccess a = *mapping.warpSharedRead(Operand::A, 0, 5, 0, 2);
  for (int lane = 0; lane < kWarpSize; ++lane)  // slot 2: rows 32.. of the second sub-tile
    EXPECT_EQ(a.word[lane], 5 * 132 + 32 + lane / 8 * 8) << lane;
}

// vectorized stores its register tile as float4s; warptile, pipelined and prefetched one float at
// a time even where C's rows are aligned (a float4 store's four consecutive registers cost them
// registers: warptile its second block per SM, prefetched spills).
TEST(Mapping, OnlyVectorizedStoresFloat4sOfC) {
  const Shape aligned{256, 256, 64};
  const Mapping vectorized({"vectorized", {}}, aligned);
  const int vectorizedOutputs = vectorized.rowsPerThread() * vectorized.colsPerThread();
  EXPECT_EQ(vectorized.warpAccess({0, 0}, 0, Access::StoreC, 0, 0).width, 4);
  EXPECT_EQ(vectorized.instructionsPerStep(Access::StoreC), vectorizedOutputs / 4);
  for (const char* kernel : {"warptile", "pipelined", "prefetched"}) {
    const Mapping scalar({kernel, {}}, aligned);
    EXPECT_EQ(scalar.instructionsPerStep(Access::StoreC),
              scalar.rowsPerThread() * scalar.colsPerThread())
        << kernel;
    // Each of a warp's store instructions writes one float a lane.
    EXPECT_EQ(scalar.warpAccess({0, 0}, 0, Access::StoreC, 0, 0).width, 1) << kernel;
  }
}

TEST(Mapping, PipelinedKeepsEveryStageInSharedMemory) {
  const Params params = ladderParams({{"BM", 128},
                                      {"BN", 128},
                                      {"BK", 16},
                                      {"WM", 64},
                                      {"WN", 64},
                                      {"TM", 8},
                                      {"TN", 4},
                                      {"stages", 3}});
  const Mapping mapping({"pipelined", params}, {256, 256, 256});
  EXPECT_EQ(mapping.sharedBytesPerBlock(), 3 * 4 * (16 * 132 + 16 * 128));
  // cp.async cannot transpose 16 bytes: A goes one element per copy, B as float4s.
  EXPECT_EQ(mapping.instructionsPerStep(Access::LoadA), 128 * 16 / 128);
  EXPECT_EQ(mapping.warpAccess({0, 0}, 0, Access::LoadA, 0, 0).width, 1);
  EXPECT_EQ(mapping.instructionsPerStep(Access::LoadB), 16 * 128 / 4 / 128);
  EXPECT_EQ(mapping.warpAccess({0, 0}, 0, Access::LoadB, 0, 0).width, 4);
}

// tensor-mma's outputs follow the PTX ISA's accumulator layout: in each 16 x 8 accumulator of a
// warp tile, lane 4g + q holds rows g and g + 8 and columns 2q and 2q + 1.
TEST(Mapping, TensorCoreLanesHoldTheMmaAccumulatorLayout) {
  const Params params = {{"BM", 128}, {"BN", 128}, {"BK", 32},
                         {"WM", 64},  {"WN", 32},  {"stages", 3}};
  const Mapping mapping({"tensor-mma", params}, {256, 256, 256}, ElementType::F16);
  ASSERT_EQ(mapping.threadsPerBlock(), 8 * 32);  // (128/64) x (128/32) warps
  EXPECT_EQ(mapping.rowsPerThread(), 2 * 4);     // 4 accumulator rows of 16, two rows each
  EXPECT_EQ(mapping.colsPerThread(), 2 * 4);     // 4 accumulator columns of 8, two columns each
  for (int lane = 0; lane < kWarpSize; ++lane) {
    const int g = lane / 4, q = lane % 4;
    // Warp 5 is warp-tile row 1 (rows 64..127), column 1 (columns 32..63); accumulator (2, 3).
    const std::int64_t row = 64 + 2 * 16, col = 32 + 3 * 8;
    for (const auto& [di, dj] :
         {std::pair{g, 2 * q}, {g, 2 * q + 1}, {g + 8, 2 * q}, {g + 8, 2 * q + 1}}) {
      const ThreadRef owner = mapping.owner(row + di, col + dj);
      EXPECT_EQ(owner.warp, 5);
      EXPECT_EQ(owner.lane, lane);
    }
  }
}

TEST(Mapping, TensorCoreCopiesSixteenBytesOfTheElementType) {
  const Params params = {{"BM", 128}, {"BN", 256}, {"BK", 32},
                         {"WM", 64},  {"WN", 64},  {"stages", 3}};
  const Shape shape{256, 256, 256};
  const Mapping half({"tensor-mma", params}, shape, ElementType::F16);
  const Mapping tf32({"tensor-mma", params}, shape, ElementType::TF32);
  const WarpAccess a16 = half.warpAccess({0, 0}, 0, Access::LoadA, 0, 0);
  EXPECT_EQ(a16.width, 8);  // eight fp16 values
  EXPECT_EQ(a16.elementBytes, 2);
  EXPECT_EQ(tf32.warpAccess({0, 0}, 0, Access::LoadA, 0, 0).width, 4);  // four tf32 values
  // 128 x 32 of A over 256 threads: two 16-byte copies each in fp16, four in tf32.
  EXPECT_EQ(half.instructionsPerStep(Access::LoadA), 2);
  EXPECT_EQ(tf32.instructionsPerStep(Access::LoadA), 4);
  // Pitches: fp16 rows of 32 x 2 + 16 bytes for A, 256 x 2 + 16 for B; tf32 pads B by 32.
  EXPECT_EQ(half.sharedBytesPerBlock(), 3 * (128 * 80 + 32 * 528));
  EXPECT_EQ(tf32.sharedBytesPerBlock(), 3 * (128 * 144 + 32 * 1056));
  // K not a multiple of 8: fp16 rows are no longer 16-byte aligned, so A goes element by element.
  const Mapping ragged({"tensor-mma", params}, {256, 256, 100}, ElementType::F16);
  EXPECT_EQ(ragged.warpAccess({0, 0}, 0, Access::LoadA, 0, 0).width, 1);
  EXPECT_EQ(ragged.warpAccess({0, 0}, 0, Access::LoadB, 0, 0).width, 8);
  // C goes out as float2 pairs.
  EXPECT_EQ(half.warpAccess({0, 0}, 0, Access::StoreC, 0, 0).width, 2);
}

// tensor-wgmma: warp w of warpgroup v holds rows 64v + 16w + g and + 8 of the block tile, and in
// every 8-column chunk columns 2q and 2q + 1, as wgmma's m64nNk16 accumulator layout says.
TEST(Mapping, WgmmaLanesHoldTheWarpgroupAccumulatorLayout) {
  const Mapping mapping({"tensor-wgmma", {{"BN", 256}}}, {512, 512, 512}, ElementType::BF16);
  ASSERT_EQ(mapping.threadsPerBlock(), 2 * 128);
  EXPECT_EQ(mapping.colsPerThread(), 256 / 4);
  for (int lane = 0; lane < kWarpSize; ++lane) {
    const int g = lane / 4, q = lane % 4;
    const std::int64_t row = 64 + 2 * 16 + g, col = 8 * 21 + 2 * q;  // warpgroup 1, warp 2
    for (const auto& [di, dj] : {std::pair{0, 0}, {0, 1}, {8, 0}, {8, 1}}) {
      const ThreadRef owner = mapping.owner(row + di, col + dj);
      EXPECT_EQ(owner.warp, 4 + 2);
      EXPECT_EQ(owner.lane, lane);
    }
  }
}

// The 128-byte swizzle permutes the 16-byte chunks of each row inside its 1024-byte atom: every
// element of a stage has its own bytes, and a chunk never leaves its row.
TEST(Mapping, WgmmaStagesAreSwizzledPermutations) {
  for (const KernelConfig& config : validConfigurations(kernelInfo("tensor-wgmma"))) {
    const auto map = std::get<maps::Wgmma>(threadMapOf(resolve(config), ElementType::F16));
    std::vector<int> aBytes, bBytes;
    for (int m = 0; m < map.bm; ++m)
      for (int k = 0; k < map.bk; ++k) {
        const int at = map.aByte(m, k);
        EXPECT_EQ(at / 128, m) << formatParams(config);  // row m stays row m
        aBytes.push_back(at);
      }
    for (int k = 0; k < map.bk; ++k)
      for (int n = 0; n < map.bn; ++n) bBytes.push_back(map.bByte(k, n));
    for (auto* bytes : {&aBytes, &bBytes}) {
      std::sort(bytes->begin(), bytes->end());
      EXPECT_EQ(std::adjacent_find(bytes->begin(), bytes->end()), bytes->end());
      EXPECT_EQ(bytes->front(), 0);
      EXPECT_EQ(bytes->back(), int(bytes->size()) * 2 - 2);  // 2-byte elements, packed
    }
    // Row 1 of an atom has its chunks 0 and 1 swapped.
    EXPECT_EQ(map.aByte(1, 0), 128 + 16);
    EXPECT_EQ(map.aByte(1, 8), 128);
  }
}

// tensor-tma: warpgroup 0 produces and owns no output; consumer c (warpgroup c + 1) holds rows
// 64c + 16w + g and + 8 in the wgmma accumulator layout, over all BN columns.
TEST(Mapping, TmaConsumersHoldTheAccumulatorsAndTheProducerOnlyCopies) {
  const Mapping mapping({"tensor-tma", {{"BN", 256}}}, {512, 512, 512}, ElementType::BF16);
  ASSERT_EQ(mapping.threadsPerBlock(), 3 * 128);
  EXPECT_EQ(mapping.colsPerThread(), 256 / 4);
  for (int lane = 0; lane < kWarpSize; ++lane) {
    const int g = lane / 4, q = lane % 4;
    const std::int64_t row = 64 + 3 * 16 + g, col = 8 * 30 + 2 * q;  // consumer 1, warp 3
    for (const auto& [di, dj] : {std::pair{0, 0}, {0, 1}, {8, 0}, {8, 1}}) {
      const ThreadRef owner = mapping.owner(row + di, col + dj);
      EXPECT_EQ(owner.warp, 8 + 3);
      EXPECT_EQ(owner.lane, lane);
    }
  }
  EXPECT_EQ(mapping.blockRows({1, 2}).begin, 2 * 128);
  EXPECT_EQ(mapping.blockRows({1, 2}).count, 128);
  EXPECT_EQ(mapping.blockCols({1, 2}).begin, 256);
  EXPECT_EQ(mapping.blockCols({1, 2}).count, 256);
  EXPECT_EQ(mapping.firstOutputThread(), 128);
  EXPECT_EQ(Mapping({"tensor-wgmma", {}}, {512, 512, 512}).firstOutputThread(), 0);
  EXPECT_EQ(mapping.stagingThreads(Operand::A), 128);
  EXPECT_EQ(mapping.stagingThreads(Operand::B), 128);
  for (int linear = 0; linear < mapping.threadsPerBlock(); ++linear) {
    const Dim2 thread = mapping.threadOfLinear(linear);
    EXPECT_EQ(mapping.outputs({0, 0}, thread).empty(), linear < 128) << "thread " << linear;
    EXPECT_EQ(mapping.stagedBy(Operand::B, {0, 0}, thread, 0).empty(), linear >= 128)
        << "thread " << linear;
  }
  // The producer's warps load, as 16-byte vectors covering whole 128-byte rows, and store
  // nothing; the consumers' warps store and load nothing.
  const WarpAccess a = mapping.warpAccess({0, 0}, 1, Access::LoadA, 2, 0);
  EXPECT_EQ(a.width, 8);
  EXPECT_EQ(a.activeLanes(), 32);
  for (int lane = 0; lane < kWarpSize; ++lane)
    EXPECT_EQ(a.element[lane], (4 + lane / 8) * 512 + 2 * 64 + lane % 8 * 8) << "lane " << lane;
  EXPECT_EQ(mapping.warpAccess({0, 0}, 1, Access::StoreC, 0, 0).activeLanes(), 0);
  EXPECT_EQ(mapping.warpAccess({0, 0}, 4, Access::LoadB, 0, 0).activeLanes(), 0);
  EXPECT_EQ(mapping.warpAccess({0, 0}, 4, Access::StoreC, 0, 0).activeLanes(), 32);
}

// The stages are what TMA writes with the 128-byte swizzle: A one box of 128-byte rows, B one box
// (slab) of 64 k rows per 64 columns; every element has its own bytes.
TEST(Mapping, TmaStagesAreSwizzledBoxes) {
  for (const KernelConfig& config : validConfigurations(kernelInfo("tensor-tma"))) {
    SCOPED_TRACE(formatParams(config));
    const auto map = std::get<maps::Tma>(threadMapOf(resolve(config), ElementType::BF16));
    std::vector<int> aBytes, bBytes;
    for (int m = 0; m < map.bm; ++m)
      for (int k = 0; k < map.bk; ++k) {
        EXPECT_EQ(map.aByte(m, k) / 128, m);
        aBytes.push_back(map.aByte(m, k));
      }
    for (int k = 0; k < map.bk; ++k)
      for (int n = 0; n < map.bn; ++n) {
        EXPECT_EQ(map.bByte(k, n) / 128, n / 64 * 64 + k);  // row k of slab n / 64
        bBytes.push_back(map.bByte(k, n));
      }
    for (auto* bytes : {&aBytes, &bBytes}) {
      std::sort(bytes->begin(), bytes->end());
      EXPECT_EQ(std::adjacent_find(bytes->begin(), bytes->end()), bytes->end());
      EXPECT_EQ(bytes->front(), 0);
      EXPECT_EQ(bytes->back(), int(bytes->size()) * 2 - 2);
    }
    EXPECT_EQ(map.bByte(1, 0), 128 + 16);  // row 1 of an atom: chunks 0 and 1 swapped
    EXPECT_EQ(map.bByte(0, 64), 64 * 128);
    EXPECT_EQ(map.stageBytes() % 1024, 0);  // every stage and slab starts an atom
    EXPECT_LE(map.sharedBytes(), 227 * 1024);
    EXPECT_EQ(map.pipeline().stageOf(map.stages + 1), 1);
    EXPECT_EQ(map.pipeline().producerWarps, 4);
    EXPECT_EQ(map.buffers(), map.stages);
    EXPECT_TRUE(map.isProducer(127));
    EXPECT_FALSE(map.isProducer(128));
  }
}

TEST(Mapping, TmaRefusesStagesPastSharedMemory) {
  const auto why = refusal({"tensor-tma", {{"BN", 256}, {"stages", 5}}});
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("227 KiB"), std::string::npos) << *why;
  EXPECT_FALSE(refusal({"tensor-tma", {{"BN", 128}, {"stages", 6}}}).has_value());
}

// tensor-tf32 computes each tile transposed: a consumer thread's sums run down two columns of C
// (neighbouring rows, one thread), and the words of B its warp reads into registers for every
// 8-deep k-chunk fall in 32 different banks of the swizzled stage, for every consumer warp and
// register. The producer warps read nothing, and A is read by the instructions alone.
TEST(Mapping, TensorTf32ThreadsOwnColumnsAndReadBWithoutConflicts) {
  const Mapping m({"tensor-tf32", {}}, {1024, 1024, 1024}, ElementType::TF32);
  EXPECT_EQ(m.rowsPerThread() * m.colsPerThread(), 128);
  for (const auto& [i, j] : {std::pair{0, 0}, {6, 37}, {250, 127}, {128, 64}}) {
    const ThreadRef upper = m.owner(i, j), lower = m.owner(i + 1, j);
    EXPECT_EQ(upper.thread.x, lower.thread.x) << i << ", " << j;
    EXPECT_GE(upper.thread.x, 128) << "the producer warpgroup owns no output";
  }
  EXPECT_EQ(m.sharedReadSlots(Operand::A), 0);
  ASSERT_EQ(m.sharedReadSlots(Operand::B), 4);
  EXPECT_EQ(m.readsEveryK(Operand::B), 8);
  for (int warp = 0; warp < m.warpsPerBlock(); ++warp)
    for (int slot = 0; slot < 4; ++slot)
      for (int kk = 0; kk < m.kDepth(); kk += 8) {
        const auto read = m.warpSharedRead(Operand::B, warp, kk, 0, slot);
        if (warp < 4) {
          EXPECT_FALSE(read.has_value()) << "producer warp " << warp;
          continue;
        }
        ASSERT_TRUE(read.has_value()) << "warp " << warp;
        std::set<int> banks;
        for (const int word : read->word) banks.insert(word % 32);
        EXPECT_EQ(banks.size(), 32u) << "warp " << warp << ", register " << slot << ", k " << kk;
      }
}

// tensor-tf32's consumers store C four columns at a time after exchanging their sums: each
// 32-byte sector of a row of C (8 columns) is owned by four lanes of one warp, two columns each,
// four apart, so one store instruction writes the whole sector (split between two warps, every
// sector took two partial writes; H200, 2026-11-28: 3.7 M sectors written at 4096^3, not 2.1 M).
TEST(Mapping, TensorTf32OwnsEachSectorOfCInOneWarp) {
  const Mapping m({"tensor-tf32", {}}, {512, 256, 64}, ElementType::TF32);
  for (int i : {0, 1, 6, 129, 255})
    for (int j = 0; j < 128; j += 8) {
      std::map<int, std::vector<int>> columnsOf;
      for (int c = j; c < j + 8; ++c) columnsOf[m.owner(i, c).thread.x].push_back(c);
      ASSERT_EQ(columnsOf.size(), 4u) << i << ", " << j;
      const int warp = columnsOf.begin()->first / 32;
      for (const auto& [thread, columns] : columnsOf) {
        EXPECT_EQ(thread / 32, warp) << "row " << i << ", columns " << j << "..";
        ASSERT_EQ(columns.size(), 2u);
        EXPECT_EQ(columns[1] - columns[0], 4) << "thread " << thread;
      }
    }
}

// tensor-fp8 stores B K-major: its producer copies each B tile as n rows of 128 k values, 16
// bytes a vector along k, every element once; a warp's copy reads four whole 128-byte rows of
// B^T (element (k, n) at n K + k). Its outputs are tensor-persistent's.
TEST(Mapping, Fp8CopiesBAlongKAndOwnsLikePersistent) {
  const Shape shape{512, 768, 512};
  const Mapping fp8({"tensor-fp8", {}}, shape, ElementType::E4M3);
  const Mapping bf16({"tensor-persistent", {}}, shape, ElementType::BF16);
  EXPECT_TRUE(fp8.copiesBAlongK());
  EXPECT_FALSE(bf16.copiesBAlongK());
  const Dim2 block{1, 1};
  const std::int64_t step = 2;
  std::map<std::pair<std::int64_t, std::int64_t>, int> copied;
  for (int t = 0; t < fp8.stagingThreads(Operand::B); ++t) {
    const std::vector<Cell> cells = fp8.stagedBy(Operand::B, block, {t, 0}, step);
    ASSERT_FALSE(cells.empty()) << t;
    for (std::size_t e = 0; e < cells.size(); ++e) {
      ++copied[{cells[e].row, cells[e].col}];
      if (e % 16 != 0) {  // a vector: consecutive k at one n
        EXPECT_EQ(cells[e].row, cells[e - 1].row + 1);
        EXPECT_EQ(cells[e].col, cells[e - 1].col);
      }
    }
  }
  EXPECT_EQ(copied.size(), std::size_t(128 * 256));
  for (const auto& [cell, times] : copied) {
    EXPECT_EQ(times, 1);
    EXPECT_GE(cell.first, step * 128);
    EXPECT_LT(cell.first, (step + 1) * 128);
    EXPECT_GE(cell.second, 256);
    EXPECT_LT(cell.second, 512);
  }
  const WarpAccess load = fp8.warpAccess(block, 0, Access::LoadB, step, 0);
  EXPECT_EQ(load.width, 16);
  EXPECT_EQ(load.elementBytes, 1);
  const RequestTraffic traffic = requestTraffic(load);
  EXPECT_EQ(traffic.activeLanes, 32);
  EXPECT_EQ(traffic.bytesUsed, 512);
  EXPECT_EQ(traffic.lines, 4);
  EXPECT_EQ(traffic.sectors, 16);
  // Lane 0 starts row n = 256 of B^T at k = 256.
  EXPECT_EQ(load.element[0], 256 * shape.k + 256);
  for (std::int64_t i = 0; i < shape.m; i += 37)
    for (std::int64_t j = 0; j < shape.n; j += 23) {
      const ThreadRef a = fp8.owner(i, j), b = bf16.owner(i, j);
      EXPECT_EQ(a.block.x, b.block.x);
      EXPECT_EQ(a.block.y, b.block.y);
      EXPECT_EQ(a.warp, b.warp);
      EXPECT_EQ(a.lane, b.lane);
    }
}

// tensor-persistent's blocks are tensor-tma's tiles: the same owners, copies and stages.
TEST(Mapping, PersistentTilesAreTensorTmasBlocks) {
  for (const Shape& shape : {Shape{512, 768, 256}, Shape{130, 300, 70}}) {
    const Mapping tma({"tensor-tma", {{"BN", 128}, {"stages", 4}}}, shape, ElementType::F16);
    const Mapping persistent({"tensor-persistent", {{"BN", 128}, {"stages", 4}, {"cluster", 2}}},
                             shape, ElementType::F16);
    EXPECT_EQ(persistent.grid().x, tma.grid().x);
    EXPECT_EQ(persistent.grid().y, tma.grid().y);
    EXPECT_EQ(persistent.threadsPerBlock(), tma.threadsPerBlock());
    EXPECT_EQ(persistent.sharedBytesPerBlock(), tma.sharedBytesPerBlock());
    EXPECT_EQ(persistent.pipeline()->stages, tma.pipeline()->stages);
    for (std::int64_t i = 0; i < shape.m; i += 7)
      for (std::int64_t j = 0; j < shape.n; j += 5) {
        const ThreadRef a = persistent.owner(i, j), b = tma.owner(i, j);
        EXPECT_EQ(a.block.x, b.block.x);
        EXPECT_EQ(a.block.y, b.block.y);
        EXPECT_EQ(a.warp, b.warp);
        EXPECT_EQ(a.lane, b.lane);
      }
    const std::vector<Cell> staged = persistent.stagedBy(Operand::B, {1, 1}, {5, 0}, 2),
                            stagedByTma = tma.stagedBy(Operand::B, {1, 1}, {5, 0}, 2);
    ASSERT_EQ(staged.size(), stagedByTma.size());
    for (std::size_t e = 0; e < staged.size(); ++e) {
      EXPECT_EQ(staged[e].row, stagedByTma[e].row);
      EXPECT_EQ(staged[e].col, stagedByTma[e].col);
    }
  }
}

// A tile wholly inside C is stored (storeTileQuads, tensor-persistent and tensor-fp8) from each
// lane's first column pair, the later pairs at offsets the first consumer thread's columns give:
// in every consumer lane the pairs lie at those same distances, and the odd lanes, which start at
// their second pair, find them again from there.
template <typename Map>
void expectColumnPairsAtTheFirstConsumersDistances() {
  for (const Map& map : maps::validConfigs<Map>()) {
    const int first = map.firstOutputThread();
    const auto distance = [&](int t, int c) { return map.colInBlock(t, c) - map.colInBlock(t, 0); };
    const int columns = int(map.colsPerThread());
    for (int t = first; t < map.threads(); ++t)
      for (int c = 0; c < columns; c += 2) {
        EXPECT_EQ(distance(t, c), distance(first, c)) << "BN " << map.bn << ", thread " << t;
        if (c + 2 < columns) {
          EXPECT_EQ(distance(t, c + 2) - distance(t, 2), distance(first, c))
              << "BN " << map.bn << ", thread " << t;
        }
      }
  }
}

TEST(Mapping, PersistentLanesHoldTheirColumnPairsAtTheSameDistances) {
  expectColumnPairsAtTheFirstConsumersDistances<maps::Persistent>();
  expectColumnPairsAtTheFirstConsumersDistances<maps::PersistentFp8>();
}

// The launch: one block per resident slot at most, in whole clusters, never more than the units
// of work, and no more clusters than work them in as many rounds; every other kernel launches
// grid() without clusters.
TEST(Mapping, PersistentLaunchIsOneBlockPerResidentSlotInWholeClusters) {
  const KernelConfig pairs{"tensor-persistent", {{"BN", 256}, {"cluster", 2}}};
  const Mapping big(pairs, {4096, 4096, 4096}, ElementType::BF16);
  EXPECT_TRUE(big.persistent());
  EXPECT_EQ(big.grid().x, 16);
  EXPECT_EQ(big.grid().y, 32);
  // 256 units of 2 tiles: the 66 clusters of an H100's or H200's 132 SMs (unless the GPU says
  // otherwise) take 4 rounds, and so do 64 clusters, 4 units each.
  EXPECT_EQ(big.launchGrid().x, 128);
  EXPECT_EQ(big.launchGrid().y, 1);
  EXPECT_EQ(big.cluster().x, 2);
  EXPECT_EQ(big.cluster().y, 1);
  EXPECT_EQ(big.rounds(), 4);
  for (std::int64_t cta = 0; cta < 128; ++cta) EXPECT_TRUE(big.blockAt(cta, 3).has_value());
  // The GPU's own count of resident blocks, rounded down to whole clusters: 115 blocks hold 57
  // clusters, which take 5 rounds, as do 52 (256 = 4 x 52 + 48).
  const Mapping fewer(pairs, {4096, 4096, 4096}, ElementType::BF16, 115);
  EXPECT_EQ(fewer.launchGrid().x, 104);
  EXPECT_EQ(fewer.rounds(), 5);
  // Units that fill the resident clusters' rounds exactly: all of them are launched.
  EXPECT_EQ(Mapping(pairs, {128 * 66, 256, 64}, ElementType::BF16).launchGrid().x, 66);
  EXPECT_EQ(Mapping(pairs, {128 * 264, 256, 64}, ElementType::BF16).launchGrid().x, 132);
  // Fewer units than clusters: one cluster per unit, a unit of 3 tile rows reaching past M.
  const Mapping small(pairs, {300, 300, 64}, ElementType::BF16);
  EXPECT_EQ(small.launchGrid().x, 2 * 2 * 2);
  EXPECT_EQ(small.rounds(), 1);
  EXPECT_FALSE(small.blockAt(3, 0).has_value()) << "tile row 3 lies past M = 300";
  EXPECT_EQ(small.blockAt(2, 0)->y, 2);
  const Mapping single({"tensor-persistent", {{"cluster", 1}}}, {128, 256, 64}, ElementType::BF16);
  EXPECT_EQ(single.launchGrid().x, 1);
  EXPECT_EQ(single.cluster().x, 1);
  const Mapping tma({"tensor-tma", {}}, {1000, 1000, 64}, ElementType::BF16);
  EXPECT_FALSE(tma.persistent());
  EXPECT_EQ(tma.launchGrid().x, tma.grid().x);
  EXPECT_EQ(tma.launchGrid().y, tma.grid().y);
  EXPECT_EQ(tma.cluster().x, 1);
  EXPECT_EQ(tma.launchedBlockOf({2, 3}), 2 + 3 * tma.grid().x);
  EXPECT_EQ(tma.rounds(), 1);
}

// The tile order covers every tile exactly once, blockAt() and launchedBlockOf()/roundOf() are
// inverses, the two blocks of a cluster take vertically adjacent tiles of the same columns in
// the same round, and each round's tiles fill bands of `group` tile rows column by column.
// tensor-tf32 walks the same order with its own tile (and group 8 by default, 16 allowed).
TEST(Mapping, PersistentTileOrderCoversEveryTileOnce) {
  std::vector<std::pair<KernelConfig, ElementType>> configs;
  for (const KernelConfig& config : validConfigurations(kernelInfo("tensor-persistent")))
    configs.emplace_back(config, ElementType::BF16);
  for (const KernelConfig& config : validConfigurations(kernelInfo("tensor-tf32")))
    configs.emplace_back(config, ElementType::TF32);
  for (const auto& [config, element] : configs) {
    for (const Shape& shape : {Shape{1, 1, 1}, Shape{4096, 4096, 64}, Shape{8192, 8192, 64},
                               Shape{1000, 3000, 64}, Shape{3000, 1000, 64}, Shape{129, 257, 8}}) {
      for (const int resident : {0, 132, 114, 7}) {
        SCOPED_TRACE(describe(config, shape) + " resident " + std::to_string(resident));
        const Mapping mapping(config, shape, element, resident);
        const std::int64_t launched = mapping.launchGrid().x;
        const int cluster = mapping.cluster().x;
        EXPECT_EQ(launched % cluster, 0);
        EXPECT_LE(launched, resident > 0 ? resident : 132);
        std::vector<int> seen(std::size_t(mapping.blockCount()), 0);
        for (std::int64_t cta = 0; cta < launched; ++cta)
          for (std::int64_t round = 0; round < mapping.rounds() + 1; ++round) {
            const std::optional<Dim2> tile = mapping.blockAt(cta, round);
            if (!tile) continue;
            ASSERT_LT(tile->x, mapping.grid().x);
            ASSERT_LT(tile->y, mapping.grid().y);
            ++seen[std::size_t(tile->x + std::int64_t(tile->y) * mapping.grid().x)];
            EXPECT_EQ(mapping.launchedBlockOf(*tile), cta);
            EXPECT_EQ(mapping.roundOf(*tile), round);
            EXPECT_LT(round, mapping.rounds());
            // The partner of a cluster works on the tile beside it along M, same columns.
            if (cluster == 2 && cta % 2 == 0) {
              if (const auto partner = mapping.blockAt(cta + 1, round)) {
                EXPECT_EQ(partner->x, tile->x);
                EXPECT_EQ(partner->y, tile->y + 1);
              }
            }
          }
        for (std::size_t t = 0; t < seen.size(); ++t) ASSERT_EQ(seen[t], 1) << "tile " << t;
      }
    }
  }
  // Grouped order, cluster 1, group 8, 16 x 16 tiles: 128 blocks, which take the two rounds 132
  // would. Round 0 walks band 0 (tile rows 0-7) column by column: block 0 tile (0, 0), block 7
  // (0, 7), block 8 (1, 0), ...; round 1 walks band 1 (tile rows 8-15).
  const Mapping grouped({"tensor-persistent", {{"BN", 256}, {"cluster", 1}, {"group", 8}}},
                        {2048, 4096, 64}, ElementType::BF16);
  ASSERT_EQ(grouped.launchGrid().x, 128);
  const auto tileOf = [&](int cta, int round) {
    const std::optional<Dim2> tile = grouped.blockAt(cta, round);
    return tile ? std::pair{tile->x, tile->y} : std::pair{-1, -1};
  };
  EXPECT_EQ(tileOf(7, 0), std::pair(0, 7));
  EXPECT_EQ(tileOf(8, 0), std::pair(1, 0));
  EXPECT_EQ(tileOf(0, 1), std::pair(0, 8));    // unit 128: band 1 starts after 8 x 16 tiles
  EXPECT_EQ(tileOf(12, 1), std::pair(1, 12));  // unit 140: band 1, column 1, row 4
  EXPECT_EQ(tileOf(128, 0), std::pair(-1, -1));
}

TEST(Mapping, TensorCoreRefusesFp32AndTheSimtKernelsRefuseFp16) {
  try {
    const Mapping mapping({"tensor-mma", {}}, {64, 64, 64}, ElementType::F32);
    FAIL() << "tensor-mma has no fp32 mapping";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument);
    EXPECT_NE(std::string(error.what()).find("fp32"), std::string::npos) << error.what();
  }
  EXPECT_THROW(Mapping({"warptile", {}}, {64, 64, 64}, ElementType::BF16), Error);
  // Without a type a kernel takes its first one.
  EXPECT_EQ(Mapping({"tensor-mma", {}}, {64, 64, 64}).element(), ElementType::F16);
  EXPECT_EQ(Mapping({"naive", {}}, {64, 64, 64}).element(), ElementType::F32);
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
