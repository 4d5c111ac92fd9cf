// SPDX-License-Identifier: GPL-3.0-or-later
// A Mapping built from a trace (what the GPU recorded of a user kernel) against the catalogue
// Mapping it follows: a trace made from a Mapping draws the same pictures, a changed mapping is
// named where it differs, and a broken trace (one read from a file) is refused. The GPU test
// (tests/cuda/test_cuda_user.cpp) traces the real templates; this one needs no GPU.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "tilescope/error.hpp"
#include "tilescope/mapping.hpp"
#include "tilescope/traffic.hpp"
#include "tilescope/user_kernel.hpp"

namespace tilescope {
namespace {

// Where the staged tiles lie in the recorded block's shared memory: the words a trace records
// are addresses, which the Mapping makes relative to each tile's start.
constexpr int kTileAStart = 100, kTileBStart = 2000;

// What the tracer would record of a kernel that runs `model` exactly: the owners of C, and each
// thread's loads of `block` and shared-memory words in the Mapping's instruction order. A lane
// the Mapping leaves idle loads outside the matrix, in the same k-step (the accessors' zero),
// so its later loads keep their instruction, as the templates' loads past the edges do.
KernelTrace traceOf(const Mapping& model, Dim2 block) {
  KernelTrace trace;
  trace.kernel = {userKernelId("traced_" + model.config().kernel), model.config().params};
  trace.device = "test";
  trace.shape = model.shape();
  trace.element = model.element();
  trace.grid = model.grid();
  if (model.persistent()) trace.launchGrid = model.launchGrid();
  trace.cluster = model.cluster();
  trace.block = model.block();
  trace.kDepth = model.kDepth();
  trace.tracedBlock = block;
  trace.storeWidth = model.warpAccess(block, 0, Access::StoreC, 0, 0).width;
  const Shape& s = model.shape();
  for (std::int64_t i = 0; i < s.m; ++i)
    for (std::int64_t j = 0; j < s.n; ++j) {
      const ThreadRef owner = model.owner(i, j);
      trace.ownerBlock.push_back(owner.block.x + owner.block.y * model.grid().x);
      trace.ownerThread.push_back(owner.thread.x + owner.thread.y * model.block().x);
    }
  const int threads = model.threadsPerBlock();
  trace.loadsA.resize(std::size_t(threads));
  trace.loadsB.resize(std::size_t(threads));
  for (std::int64_t step = 0; step < model.kSteps(); ++step)
    for (const Access access : {Access::LoadA, Access::LoadB})
      for (std::int64_t instr = 0; instr < model.instructionsPerStep(access); ++instr)
        for (int warp = 0; warp < model.warpsPerBlock(); ++warp) {
          const WarpAccess loads = model.warpAccess(block, warp, access, step, instr);
          const std::int64_t k = step * model.kDepth();
          const TracedLoad outside = access == Access::LoadA ? TracedLoad{s.m, k, loads.width}
                                                             : TracedLoad{k, s.n, loads.width};
          for (int lane = 0; lane < kWarpSize; ++lane) {
            const int thread = warp * kWarpSize + lane;
            if (thread >= threads) continue;
            const std::int64_t element = loads.element[std::size_t(lane)];
            auto& list = access == Access::LoadA ? trace.loadsA : trace.loadsB;
            // The tracer records a load as its cell (k, n) of B, however B is stored.
            const Cell cell = model.elementCell(operandOf(access), element);
            list[std::size_t(thread)].push_back(
                element < 0 ? outside : TracedLoad{cell.row, cell.col, loads.width});
          }
        }
  for (const Operand operand : {Operand::A, Operand::B}) {
    const int reads = model.sharedReadSlots(operand), writes = model.sharedWriteSlots(operand);
    if (reads == 0 && writes == 0) continue;
    SharedTrace& tile = operand == Operand::A ? trace.sharedA : trace.sharedB;
    const int start = operand == Operand::A ? kTileAStart : kTileBStart;
    tile.reads.resize(std::size_t(threads));
    tile.writes.resize(std::size_t(threads));
    tile.readsEveryK = model.readsEveryK(operand);
    const auto record = [&](const std::optional<WarpSharedAccess>& access, int warp,
                            std::vector<std::vector<TracedWord>>& perThread) {
      for (int lane = 0; lane < kWarpSize; ++lane)
        if (access && access->word[std::size_t(lane)] >= 0)
          perThread[std::size_t(warp * kWarpSize + lane)].push_back(
              {start + access->word[std::size_t(lane)], access->width});
    };
    for (std::int64_t step = 0; step < model.kSteps(); ++step)
      for (int warp = 0; warp < model.warpsPerBlock(); ++warp) {
        for (int slot = 0; slot < writes; ++slot)
          record(model.warpSharedWrite(operand, warp, slot, 0, step), warp, tile.writes);
        for (int kk = 0; kk < model.kDepth(); ++kk)
          for (int slot = 0; slot < reads; ++slot)
            record(model.warpSharedRead(operand, warp, kk, 0, slot, step), warp, tile.reads);
      }
  }
  return trace;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines) text += line + "\n";
  return text;
}

struct Case {
  KernelConfig config;
  Shape shape;
  ElementType element = ElementType::F32;
};

class TracedMapping : public testing::TestWithParam<Case> {};

// The kernels the Kernel Editor has templates of, at sizes that are no tile multiple: traced
// from their Mapping, an interior and the last block draw the same pictures.
TEST_P(TracedMapping, ATraceOfTheMappingDrawsItsPictures) {
  const Mapping model(GetParam().config, GetParam().shape, GetParam().element);
  const Dim2 last{model.grid().x - 1, model.grid().y - 1};
  for (const Dim2 block : {Dim2{model.grid().x / 2, model.grid().y / 2}, last}) {
    SCOPED_TRACE("block (" + std::to_string(block.x) + "," + std::to_string(block.y) + ")");
    const Mapping traced(traceOf(model, block));
    EXPECT_EQ(traceDifferences(traced, model), std::vector<std::string>{});
    EXPECT_NE(traced.trace(), nullptr);
    ASSERT_NE(traced.trace(), nullptr);
    EXPECT_EQ(traced.kSteps(), model.kSteps());
    // Every block's extent inside C, and every thread's outputs.
    const auto clipped = [](Range range, std::int64_t limit) {
      return std::pair(range.begin, std::min(range.end(), limit));
    };
    for (int by = 0; by < model.grid().y; ++by)
      for (int bx = 0; bx < model.grid().x; ++bx) {
        EXPECT_EQ(clipped(traced.blockRows({bx, by}), model.shape().m),
                  clipped(model.blockRows({bx, by}), model.shape().m));
        EXPECT_EQ(clipped(traced.blockCols({bx, by}), model.shape().n),
                  clipped(model.blockCols({bx, by}), model.shape().n));
      }
    for (int t = 0; t < model.threadsPerBlock(); ++t) {
      const std::vector<Cell> got = traced.outputs(block, model.threadOfLinear(t));
      std::vector<Cell> want = model.outputs(block, model.threadOfLinear(t));
      std::sort(want.begin(), want.end(), [](const Cell& x, const Cell& y) {
        return x.row != y.row ? x.row < y.row : x.col < y.col;
      });
      ASSERT_EQ(got.size(), want.size()) << "thread " << t;
      for (std::size_t n = 0; n < got.size(); ++n) {
        EXPECT_EQ(got[n].row, want[n].row);
        EXPECT_EQ(got[n].col, want[n].col);
      }
    }
    EXPECT_EQ(traced.rowsPerThread(), model.rowsPerThread());
    EXPECT_EQ(traced.colsPerThread(), model.colsPerThread());
    // The staged tiles' words, from where each tile starts, and the conflicts they make.
    for (const Operand operand : {Operand::A, Operand::B}) {
      EXPECT_EQ(traced.sharedReadSlots(operand), model.sharedReadSlots(operand));
      for (int warp = 0; warp < model.warpsPerBlock(); ++warp)
        for (int slot = 0; slot < model.sharedReadSlots(operand); ++slot) {
          // The last pass of the reads (a tensor core's fragments are read once per mma's k).
          const std::int64_t last = model.kSteps() - 1;
          const int kk = model.kDepth() - model.readsEveryK(operand);
          const auto got = traced.warpSharedRead(operand, warp, kk, 0, slot, last);
          const auto want = model.warpSharedRead(operand, warp, kk, 0, slot);
          ASSERT_TRUE(got && want);
          EXPECT_EQ(got->word, want->word);
          EXPECT_EQ(bankTraffic(*got).wavefronts, bankTraffic(*want).wavefronts);
        }
    }
    // The traffic of each of the block's global requests, as the access view counts it.
    for (const Access access : {Access::LoadA, Access::LoadB})
      for (int warp = 0; warp < model.warpsPerBlock(); ++warp) {
        const RequestTraffic got = requestTraffic(traced.warpAccess(block, warp, access, 0, 0));
        const RequestTraffic want = requestTraffic(model.warpAccess(block, warp, access, 0, 0));
        EXPECT_EQ(got.sectors, want.sectors);
        EXPECT_EQ(got.lines, want.lines);
      }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Templates, TracedMapping,
    testing::Values(Case{{"serial", {}}, {20, 15, 10}},
                    Case{{"row-per-thread", {{"tile", 8}}}, {45, 30, 20}},
                    Case{{"naive", {{"tile", 16}}}, {100, 70, 50}},
                    Case{{"shared-a", {{"tile", 16}}}, {100, 70, 50}},
                    Case{{"shared-tiled", {{"tile", 8}}}, {100, 70, 50}},
                    Case{{"register-tiled", {{"tile", 4}}}, {100, 70, 50}},
                    Case{resolve({"blocktile-1d", {}}), {100, 70, 50}},
                    Case{resolve({"blocktile-2d", {}}), {150, 140, 50}},
                    // float4 copies, loads and stores (K and N multiples
                    // of 4), and the scalar path where they are not
                    Case{resolve({"vectorized", {}}), {150, 140, 52}},
                    Case{resolve({"vectorized", {}}), {150, 138, 50}},
                    Case{resolve({"warptile", {}}), {150, 140, 52}},
                    Case{resolve({"warptile", {}}), {150, 138, 50}},
                    Case{resolve({"pipelined", {}}), {150, 300, 70}},
                    Case{resolve({"pipelined", {{"stages", 3}}}), {150, 302, 70}},
                    // both operands' float4s, and neither where K is no
                    // multiple of 4 though N is
                    Case{resolve({"prefetched", {}}), {150, 140, 52}},
                    Case{resolve({"prefetched", {}}), {150, 140, 50}},
                    // 16-byte copies of A (K a multiple of 8) and
                    // elements of B; of both; of neither (tf32: of 4)
                    Case{resolve({"tensor-mma", {}}), {150, 300, 72}, ElementType::F16},
                    Case{resolve({"tensor-mma", {{"WN", 64}}}), {150, 256, 64}, ElementType::BF16},
                    Case{resolve({"tensor-mma", {}}), {150, 302, 70}, ElementType::TF32},
                    // wgmma reads the tiles itself: copies, stores and owners
                    Case{resolve({"tensor-wgmma", {}}), {150, 300, 72}, ElementType::F16},
                    // tiles worked through by fewer launched blocks, in clusters
                    Case{resolve({"tensor-persistent", {}}), {300, 600, 72}, ElementType::BF16},
                    // B stored K-major: 16-byte copies along k, and both FP8 types
                    Case{resolve({"tensor-fp8", {}}), {300, 600, 80}, ElementType::E4M3},
                    Case{resolve({"tensor-fp8", {{"cluster", 1}, {"BN", 128}}}),
                         {150, 300, 272},
                         ElementType::E5M2}),
    [](const testing::TestParamInfo<Case>& info) {
      std::string name = info.param.config.kernel + "_" + toString(info.param.element) + "_" +
                         std::to_string(info.param.shape.m) + "x" +
                         std::to_string(info.param.shape.n) + "x" +
                         std::to_string(info.param.shape.k);
      std::replace(name.begin(), name.end(), '-', '_');
      return name;
    });

// prefetched keeps k-step s's tiles in stage s % 2: the words a trace records of odd k-steps lie
// a stage further on, and each k-step's words count from where its own tile starts.
TEST(TracedMappingChanged, EachKStepsWordsCountFromItsOwnStage) {
  const Mapping prefetched(resolve({"prefetched", {}}), {256, 256, 64});
  ASSERT_EQ(prefetched.pipeline()->stages, 2);
  KernelTrace trace = traceOf(prefetched, {1, 1});
  const int stageWords = int(prefetched.sharedBytesPerBlock() / 4 / 2);
  const int readsPerStep = prefetched.kDepth() * prefetched.sharedReadSlots(Operand::A);
  const int writesPerStep = prefetched.sharedWriteSlots(Operand::A);
  for (auto& [accesses, perStep] : {std::pair(&trace.sharedA.reads, readsPerStep),
                                    std::pair(&trace.sharedA.writes, writesPerStep)})
    for (std::vector<TracedWord>& words : *accesses)
      for (std::size_t n = 0; n < words.size(); ++n)
        if (n / std::size_t(perStep) % 2 == 1) words[n].word += stageWords;
  EXPECT_EQ(traceDifferences(Mapping(trace), prefetched), std::vector<std::string>{});
  // A read moved inside its k-step's tile is still named.
  for (std::vector<TracedWord>& reads : trace.sharedA.reads) reads.front().word += 4;
  EXPECT_FALSE(traceDifferences(Mapping(trace), prefetched).empty());
}

// vectorized copies A in float4s where K is a multiple of 4: a kernel that loads the same
// elements one at a time issues four times the instructions, each a quarter as wide, and the
// trace names the first place they part.
TEST(TracedMappingChanged, ScalarLoadsWhereTheMappingHasFloat4sAreNamed) {
  const Mapping vectorized(resolve({"vectorized", {}}), {64, 128, 32});
  ASSERT_EQ(vectorized.warpAccess({0, 0}, 0, Access::LoadA, 0, 0).width, 4);
  KernelTrace trace = traceOf(vectorized, {0, 0});
  for (auto& loads : trace.loadsA) {
    std::vector<TracedLoad> scalar;
    for (const TracedLoad& load : loads)
      for (int e = 0; e < 4; ++e) scalar.push_back({load.row, load.col + e, 1});
    loads = scalar;
  }
  const Mapping traced(trace);
  EXPECT_EQ(traced.instructionsPerStep(Access::LoadA),
            4 * vectorized.instructionsPerStep(Access::LoadA));
  const std::vector<std::string> differences = traceDifferences(traced, vectorized, 2);
  ASSERT_EQ(differences.size(), 2u);
  EXPECT_EQ(differences[0],
            "block (0,0) warp 0, A load 0 of k-step 0: 1 element a lane, the Mapping's 4 "
            "elements");
  // Loaded four times as often, each lane's request now spans a quarter of the bytes.
  const RequestTraffic got = requestTraffic(traced.warpAccess({0, 0}, 0, Access::LoadA, 0, 0));
  const RequestTraffic want = requestTraffic(vectorized.warpAccess({0, 0}, 0, Access::LoadA, 0, 0));
  EXPECT_EQ(got.bytesUsed * 4, want.bytesUsed);
}

// Blocks that tile C regularly reach past its edge as the formulas draw them: the padding the
// matrix view hatches. (The trace learns a tile's size from a whole one: C must hold one.)
TEST(TracedMappingChanged, EdgeTilesReachIntoThePaddingAsTheFormulasDraw) {
  for (const auto& [config, shape, element] :
       {Case{{"naive", {{"tile", 16}}}, {100, 70, 50}},
        Case{{"shared-tiled", {{"tile", 8}}}, {100, 70, 50}},
        Case{{"register-tiled", {{"tile", 4}}}, {100, 70, 50}},
        Case{resolve({"blocktile-2d", {}}), {150, 140, 50}}}) {
    SCOPED_TRACE(config.kernel);
    const Mapping model(config, shape);
    const Mapping traced(traceOf(model, {0, 0}));
    const Dim2 last{model.grid().x - 1, model.grid().y - 1};
    EXPECT_EQ(traced.blockRows(last).begin, model.blockRows(last).begin);
    EXPECT_EQ(traced.blockRows(last).count, model.blockRows(last).count);
    EXPECT_EQ(traced.blockCols(last).begin, model.blockCols(last).begin);
    EXPECT_EQ(traced.blockCols(last).count, model.blockCols(last).count);
    EXPECT_GT(model.blockRows(last).end(), shape.m);  // it does reach past the edge
  }
}

// naive with x running down the columns of C: each lane reads its own row of A and the warp's B
// loads no longer coalesce. The trace says where, and the request costs what the hardware pays.
TEST(TracedMappingChanged, ASwappedThreadMappingIsNamedAndCostsMoreSectors) {
  const Shape shape{64, 64, 16};
  const Mapping naive({"naive", {{"tile", 16}}}, shape);
  KernelTrace trace = traceOf(naive, {1, 1});
  // Thread (x, y) now computes what (y, x) did: swap the thread of every owner and the loads.
  for (int& thread : trace.ownerThread) thread = (thread % 16) * 16 + thread / 16;
  const auto swapped = [](const std::vector<std::vector<TracedLoad>>& loads) {
    std::vector<std::vector<TracedLoad>> out(loads.size());
    for (std::size_t t = 0; t < loads.size(); ++t) out[(t % 16) * 16 + t / 16] = loads[t];
    return out;
  };
  trace.loadsA = swapped(trace.loadsA);
  trace.loadsB = swapped(trace.loadsB);
  const Mapping traced(trace);
  const std::vector<std::string> differences = traceDifferences(traced, naive, 3);
  ASSERT_EQ(differences.size(), 3u) << joined(differences);
  EXPECT_EQ(differences[0],
            "C[0][1] is stored by block (0,0) thread (0,1), the Mapping's owner is block (0,0) "
            "thread (1,0)");
  EXPECT_EQ(differences[2].rfind("... and ", 0), 0u) << differences[2];
  // Warp 0 is threads 0..31: before, rows 16..17 of the block (two rows of B's columns); now
  // columns 0..1 of the block's rows, so its B loads read two columns: 2 distinct elements.
  const RequestTraffic before = requestTraffic(naive.warpAccess({1, 1}, 0, Access::LoadB, 3, 0));
  const RequestTraffic after = requestTraffic(traced.warpAccess({1, 1}, 0, Access::LoadB, 3, 0));
  EXPECT_EQ(before.sectors, 2);  // 16 consecutive floats of B: 64 bytes in 2 sectors
  EXPECT_EQ(after.sectors, 1);   // 2 floats of B, side by side, broadcast to 16 lanes each
  const RequestTraffic aBefore = requestTraffic(naive.warpAccess({1, 1}, 0, Access::LoadA, 3, 0));
  const RequestTraffic aAfter = requestTraffic(traced.warpAccess({1, 1}, 0, Access::LoadA, 3, 0));
  EXPECT_EQ(aBefore.sectors, 2);  // two rows of A, one element each
  EXPECT_EQ(aAfter.sectors, 16);  // sixteen rows of A, K = 16 floats apart: one sector each
}

// A persistent kernel's trace says what the GPU launched: another number of blocks, or other
// clusters, than the Mapping's is a difference, and so are other tiles.
TEST(TracedMappingChanged, APersistentKernelsLaunchAndTilesAreCompared) {
  const Mapping model(resolve({"tensor-persistent", {}}), {300, 600, 72}, ElementType::BF16);
  ASSERT_EQ(model.launchGrid().x, 12);  // 2 x 3 units of 2 tiles stacked along M
  ASSERT_EQ(model.grid().x, 3);
  KernelTrace trace = traceOf(model, {0, 0});
  trace.launchGrid = Dim2{4, 1};
  EXPECT_EQ(traceDifferences(Mapping(trace), model),
            std::vector<std::string>{"blocks of (384,1) threads in a grid of (4,1), clusters of "
                                     "(2,1); the Mapping launches (384,1) threads in (12,1), "
                                     "clusters of (2,1)"});
  trace.launchGrid = model.launchGrid();
  trace.cluster = {1, 1};
  EXPECT_EQ(traceDifferences(Mapping(trace), model).size(), 1u);
  trace.cluster = model.cluster();
  trace.launchGrid.reset();  // as if each tile were a launched block
  EXPECT_EQ(traceDifferences(Mapping(trace), model).size(), 1u);
  // The same owners drawn on a grid of other tiles.
  const Mapping tma(resolve({"tensor-tma", {}}), {300, 600, 72}, ElementType::BF16);
  KernelTrace tiles = traceOf(tma, {0, 0});
  tiles.launchGrid = model.launchGrid();
  tiles.cluster = model.cluster();
  tiles.grid = {3, 2};
  tiles.ownerBlock.assign(tiles.ownerBlock.size(), 0);
  EXPECT_EQ(traceDifferences(Mapping(tiles), model),
            std::vector<std::string>{"a grid of (3,2) tiles; the Mapping's (3,3)"});
}

// Where no block lies whole inside C, a wgmma thread stores fewer columns than it has slots: from
// the owners alone its stores cannot be numbered as the formulas number them. Recorded stores,
// every slot's (those past C leave their lane idle), number them exactly.
TEST(TracedMappingChanged, RecordedStoresNumberEverySlotWhereNoBlockIsWhole) {
  const Mapping model(resolve({"tensor-wgmma", {}}), {100, 70, 64}, ElementType::F16);
  ASSERT_EQ(model.blockCount(), 1);
  KernelTrace trace = traceOf(model, {0, 0});
  const std::vector<std::string> unrecorded = traceDifferences(Mapping(trace), model);
  ASSERT_FALSE(unrecorded.empty());
  EXPECT_NE(unrecorded.front().find(toString(Access::StoreC)), std::string::npos)
      << unrecorded.front();
  const int width = trace.storeWidth;
  trace.stores.resize(std::size_t(model.threadsPerBlock()));
  std::visit(
      [&](const auto& map) {
        if constexpr (requires { map.row(Dim2{}, Dim2{}, 0); }) {
          for (int t = 0; t < model.threadsPerBlock(); ++t)
            for (std::int64_t slot = 0; slot < model.rowsPerThread() * model.colsPerThread();
                 slot += width)
              trace.stores[std::size_t(t)].push_back(
                  {map.row(Dim2{0, 0}, Dim2{t, 0}, int(slot / model.colsPerThread())),
                   map.col(Dim2{0, 0}, Dim2{t, 0}, int(slot % model.colsPerThread())), width});
        }
      },
      model.threadMap());
  ASSERT_FALSE(trace.stores.back().empty());
  EXPECT_EQ(traceDifferences(Mapping(trace), model), std::vector<std::string>{});
  // A store of no element is refused.
  trace.stores.back().front().row = -1;
  EXPECT_THROW(Mapping{trace}, Error);
}

TEST(TracedMappingChanged, AnElementNoThreadStoredHasNoOwner) {
  const Mapping naive({"naive", {{"tile", 8}}}, {16, 16, 4});
  KernelTrace trace = traceOf(naive, {0, 0});
  trace.ownerBlock[5] = trace.ownerThread[5] = -1;
  const Mapping traced(trace);
  EXPECT_EQ(traced.owner(0, 5).block.x, -1);
  EXPECT_EQ(traced.owner(0, 5).warp, -1);
  EXPECT_EQ(traced.outputs({0, 0}, {5, 0}).size(), 0u);
  EXPECT_EQ(traceDifferences(traced, naive),
            (std::vector<std::string>{"C[0][5] is stored by block (-1,-1) thread (-1,-1), the "
                                      "Mapping's owner is block (0,0) thread (5,0)",
                                      "block (0,0) warp 0 lane 5, C store 0 of k-step 0: "
                                      "nothing, the Mapping's C[0][5]"}));
}

TEST(TracedMappingChanged, LoadsAreGroupedByTheKernelsKStep) {
  // shared-tiled's loads come one per k-step of 8; traced with k-steps of 1 every other k-step
  // is empty and the trace names the depth it was given.
  const Mapping tiled({"shared-tiled", {{"tile", 8}}}, {16, 16, 16});
  KernelTrace trace = traceOf(tiled, {0, 0});
  trace.kDepth = 1;
  const Mapping traced(trace);
  EXPECT_EQ(traced.kSteps(), 16);
  EXPECT_EQ(traced.instructionsPerStep(Access::LoadA), 1);
  // Thread (x, y) loads A[y][x] and A[y][x + 8]: at k = 1 only the threads of x = 1 load, one in
  // each of warp 0's four rows of threads; thread 0's second load is in k-step 8.
  const WarpAccess atOne = traced.warpAccess({0, 0}, 0, Access::LoadA, 1, 0);
  EXPECT_EQ(atOne.activeLanes(), 4);
  EXPECT_EQ(atOne.element[1], 1);
  EXPECT_EQ(atOne.element[9], 16 + 1);
  EXPECT_EQ(traced.warpAccess({0, 0}, 0, Access::LoadA, 8, 0).element[0], 8);
  const std::vector<std::string> differences = traceDifferences(traced, tiled);
  ASSERT_FALSE(differences.empty());
  EXPECT_EQ(differences.back(), "k-steps of 1 values of k (TS_KSTEP), the Mapping's of 8");
}

// The seed kernels stage one element of a tile per thread, at its own place: a warp of
// shared-tiled's 8 x 8 threads writes 32 consecutive words of each tile.
TEST(SharedWrites, TheSeedKernelsWriteTheirTilesRowByRow) {
  const Mapping tiled({"shared-tiled", {{"tile", 8}}}, {16, 16, 16});
  for (const Operand operand : {Operand::A, Operand::B}) {
    ASSERT_EQ(tiled.sharedWriteSlots(operand), 1);
    const auto write = tiled.warpSharedWrite(operand, 1, 0);
    ASSERT_TRUE(write);
    for (int lane = 0; lane < kWarpSize; ++lane)
      EXPECT_EQ(write->word[std::size_t(lane)], kWarpSize + lane);  // threads 32..63
    EXPECT_EQ(bankTraffic(*write).conflicts(), 0);
    // A pad of 1 word a row: row r starts at 9 r.
    EXPECT_EQ(tiled.warpSharedWrite(operand, 1, 0, 1)->word[9], (32 + 9) / 8 * 9 + 9 % 8);
  }
  const Mapping sharedA({"shared-a", {{"tile", 8}}}, {16, 16, 16});
  EXPECT_EQ(sharedA.sharedWriteSlots(Operand::A), 1);
  EXPECT_EQ(sharedA.sharedWriteSlots(Operand::B), 0);
  EXPECT_FALSE(sharedA.warpSharedWrite(Operand::B, 0, 0));
  EXPECT_EQ(Mapping({"naive", {{"tile", 8}}}, {16, 16, 16}).sharedWriteSlots(Operand::A), 0);
}

// The SIMT ladder stores each copy it stages: one store a copied element (blocktile), one float4
// store a vector where the tile keeps its order (B), one store an element where A lands
// transposed, as its kernels do.
TEST(SharedWrites, TheLadderWritesItsCopies) {
  const Shape shape{256, 256, 64};
  // blocktile-1d 64 x 64 x 8, 256 threads: two elements of each tile a thread, a warp's first
  // store the tile's first 32 words.
  const Mapping blocktile(resolve({"blocktile-1d", {}}), shape);
  ASSERT_EQ(blocktile.sharedWriteSlots(Operand::A), 2);
  const auto first = blocktile.warpSharedWrite(Operand::A, 0, 0);
  ASSERT_TRUE(first);
  for (int lane = 0; lane < kWarpSize; ++lane) EXPECT_EQ(first->word[std::size_t(lane)], lane);
  EXPECT_EQ(first->width, 1);
  EXPECT_EQ(blocktile.warpSharedWrite(Operand::A, 0, 1)->word[0], 256);  // element 256: row 32
  // vectorized 64 x 128 x 16: a float4 of A a thread, stored transposed (rows of 64 + 4 words):
  // lane l's k is 4 (l % 4), its m l / 4, so lanes 0 and 2 (k 0 and 8) meet in bank 0.
  const Mapping vectorized(resolve({"vectorized", {}}), shape);
  ASSERT_EQ(vectorized.sharedWriteSlots(Operand::A), 4);
  const auto transposed = vectorized.warpSharedWrite(Operand::A, 0, 1);  // element 1 of each
  ASSERT_TRUE(transposed);
  EXPECT_EQ(transposed->word[5], (4 + 1) * 68 + 1);  // A[1][4 + 1] at row k = 5, column m = 1
  EXPECT_EQ(transposed->width, 1);
  EXPECT_EQ(bankTraffic(*transposed).wavefronts, 2);
  ASSERT_EQ(vectorized.sharedWriteSlots(Operand::B), 2);  // two float4s of B a thread
  const auto vectors = vectorized.warpSharedWrite(Operand::B, 0, 0);
  EXPECT_EQ(vectors->width, 4);
  EXPECT_EQ(vectors->word[3], 12);
  // pipelined copies B with 16-byte cp.async where N is a multiple of 4, else element by element.
  const Mapping aligned(resolve({"pipelined", {}}), shape);
  const Mapping unaligned(resolve({"pipelined", {}}), {256, 254, 64});
  EXPECT_EQ(unaligned.sharedWriteSlots(Operand::B), 4 * aligned.sharedWriteSlots(Operand::B));
  EXPECT_EQ(aligned.warpSharedWrite(Operand::B, 0, 0)->width, 4);
  EXPECT_EQ(unaligned.warpSharedWrite(Operand::B, 0, 1)->word[0], 1);
}

// tensor-mma and tensor-wgmma stage 16-byte cp.async copies, or elements where a row is not 16
// bytes aligned; the copy engine fills tensor-tma's stages, drawn as the producer warpgroup's
// 16-byte vectors landing swizzled.
TEST(SharedWrites, TheTensorCoreKernelsWriteTheirCopies) {
  const Shape shape{256, 256, 64};
  // tensor-mma fp16 128 x 128 x 32, 256 threads: two 8-element vectors of A a thread, vector t
  // of the first write at row t / 4, k 8 (t % 4), in rows of 80 bytes (20 words). A quarter warp
  // covers two rows, and the second row's last vector meets the first row's first in banks 0-3:
  // every phase takes two passes.
  const Mapping mma(resolve({"tensor-mma", {}}), shape, ElementType::F16);
  ASSERT_EQ(mma.sharedWriteSlots(Operand::A), 2);
  ASSERT_EQ(mma.sharedWriteSlots(Operand::B), 2);
  const auto vectors = mma.warpSharedWrite(Operand::A, 0, 0);
  ASSERT_TRUE(vectors);
  EXPECT_EQ(vectors->width, 4);
  EXPECT_EQ(vectors->word[5], 1 * 20 + 1 * 4);
  EXPECT_EQ(mma.warpSharedWrite(Operand::A, 0, 1)->word[0], 64 * 20);  // vector 256: row 64
  EXPECT_EQ(bankTraffic(*vectors).wavefronts, 8);
  // K = 60 is no multiple of 8: one store an element, two elements to a word.
  const Mapping edge(resolve({"tensor-mma", {}}), {256, 256, 60}, ElementType::F16);
  ASSERT_EQ(edge.sharedWriteSlots(Operand::A), 2 * 8);
  EXPECT_EQ(edge.warpSharedWrite(Operand::A, 0, 1)->word[0], 0);  // element 1 of vector 0
  EXPECT_EQ(edge.warpSharedWrite(Operand::A, 0, 2)->word[0], 1);
  EXPECT_EQ(edge.warpSharedWrite(Operand::A, 0, 2)->width, 1);
  // tensor-wgmma fp16: rows of 128 bytes in the 128-byte swizzle, so the eight vectors of a row
  // cover all 32 banks (vector 9: row 1, chunk 1 ^ 1 = 0) and a warp's copy takes four passes.
  const Mapping wgmma(resolve({"tensor-wgmma", {}}), shape, ElementType::F16);
  const auto swizzled = wgmma.warpSharedWrite(Operand::A, 0, 0);
  ASSERT_TRUE(swizzled);
  EXPECT_EQ(swizzled->word[9], 32);
  EXPECT_EQ(bankTraffic(*swizzled).wavefronts, 4);
  EXPECT_EQ(bankTraffic(*swizzled).conflicts(), 0);
  // tensor-tma fp16 128 x 256 x 64: A's 1024 vectors of 8 elements, 8 a producer thread; lane 8
  // of warp 0 writes row 1's first chunk, which the swizzle moves to chunk 1 (word 32 + 4).
  const Mapping tma(resolve({"tensor-tma", {}}), shape, ElementType::F16);
  ASSERT_EQ(tma.sharedWriteSlots(Operand::A), 8);
  const auto chunks = tma.warpSharedWrite(Operand::A, 0, 0);
  ASSERT_TRUE(chunks);
  EXPECT_EQ(chunks->width, 4);
  EXPECT_EQ(chunks->word[8], 32 + 4);
  EXPECT_EQ(bankTraffic(*chunks).conflicts(), 0);
  const auto consumer = tma.warpSharedWrite(Operand::A, 4, 0);  // a consumer warp writes nothing
  EXPECT_TRUE(!consumer || std::ranges::all_of(consumer->word, [](int word) { return word < 0; }));
}

// The Kernel Editor's experiment: shared-tiled at TILE = 32 with A stored transposed, lane x
// writing a[x][y], TILE (+ PAD) words apart. Its trace shows the warp's 32 lanes in one bank, 31
// conflicts, where the catalogue's tile has none, and a pad of one word removes them all.
TEST(TracedMappingChanged, ATransposedTileIsDrawnWithItsBankConflictsAndPaddingRemovesThem) {
  constexpr int kTile = 32;
  const Mapping tiled({"shared-tiled", {{"tile", kTile}}}, {64, 64, 64});
  for (const int pad : {0, 1}) {
    SCOPED_TRACE("PAD=" + std::to_string(pad));
    KernelTrace trace = traceOf(tiled, {1, 0});
    const int threads = tiled.threadsPerBlock();
    for (int t = 0; t < threads; ++t) {
      const int x = t % kTile, y = t / kTile;
      auto& writes = trace.sharedA.writes[std::size_t(t)];
      auto& reads = trace.sharedA.reads[std::size_t(t)];
      for (std::size_t step = 0; step < writes.size(); ++step)
        writes[step] = {kTileAStart + x * (kTile + pad) + y};  // a[x][y]
      for (std::size_t n = 0; n < reads.size(); ++n)
        reads[n] = {kTileAStart + int(n % kTile) * (kTile + pad) + y};  // a[kk][y]
    }
    const Mapping traced(trace);
    const BankTraffic write = bankTraffic(*traced.warpSharedWrite(Operand::A, 0, 0, 0, 1));
    EXPECT_EQ(write.conflicts(), pad == 0 ? 31 : 0);
    EXPECT_EQ(write.wavefronts, pad == 0 ? 32 : 1);
    // Every lane of a warp reads the same word of the column: one broadcast.
    const BankTraffic read = bankTraffic(*traced.warpSharedRead(Operand::A, 3, 5, 0, 0, 1));
    EXPECT_EQ(read.wavefronts, 1);
    EXPECT_TRUE(read.broadcast);
    // The catalogue's tile is written a row at a time, and the trace says where they part.
    EXPECT_EQ(bankTraffic(*tiled.warpSharedWrite(Operand::A, 0, 0, pad)).conflicts(), 0);
    // Thread (x, y) of warp y reads word 32 y + kk in the Mapping, kk (32 + PAD) + y traced: the
    // same word only where kk = y (PAD 0) or kk = y = 0 (PAD 1), and writes 32 y + x against
    // x (32 + PAD) + y: the same where x = y, or x = y = 0. Two k-steps of 32 warps.
    const int sameReads = pad == 0 ? 32 * 32 : 32, sameWrites = pad == 0 ? 32 : 1;
    const int differing = 2 * (32 * 32 * 32 - sameReads + 32 * 32 - sameWrites);
    const std::vector<std::string> differences = traceDifferences(traced, tiled, 1);
    ASSERT_EQ(differences.size(), 1u);
    EXPECT_EQ(differences[0], "... and " + std::to_string(differing) + " more differences");
    EXPECT_EQ(traceDifferences(traced, tiled, 2)[0],
              "warp 0 lane 0, read 0 at inner index 1 of k-step 0: word " +
                  std::to_string(32 + pad) + " of A's tile, the Mapping's word 1");
  }
}

TEST(TracedMappingRefused, ABrokenTraceIsNamed) {
  const Mapping naive({"naive", {{"tile", 8}}}, {16, 16, 4});
  const KernelTrace good = traceOf(naive, {0, 0});
  const auto refusal = [](const KernelTrace& trace) {
    try {
      Mapping{trace};
    } catch (const Error& error) {
      EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument);
      return std::string(error.what());
    }
    return std::string("accepted");
  };
  KernelTrace shortOwners = good;
  shortOwners.ownerBlock.pop_back();
  EXPECT_EQ(refusal(shortOwners),
            "the trace is inconsistent: it does not name an owner for each of the 256 elements "
            "of C");
  KernelTrace outside = good;
  outside.ownerThread[17] = 64;
  EXPECT_EQ(refusal(outside),
            "the trace is inconsistent: C[1][1] names a block or thread outside the launch");
  KernelTrace farBlock = good;
  farBlock.tracedBlock = {2, 0};
  EXPECT_EQ(refusal(farBlock), "the trace is inconsistent: its traced block is outside the grid");
  KernelTrace noLoads = good;
  noLoads.loadsB.clear();
  EXPECT_EQ(refusal(noLoads),
            "the trace is inconsistent: it does not list the loads of each thread of the traced "
            "block");
  KernelTrace hugeGrid = good;
  hugeGrid.grid = {1 << 30, 1 << 30};
  EXPECT_EQ(refusal(hugeGrid),
            "the trace is inconsistent: its grid of 1152921504606846976 blocks is more than the "
            "1048576 a trace draws");
  KernelTrace noDepth = good;
  noDepth.kDepth = 0;
  EXPECT_EQ(refusal(noDepth), "the trace is inconsistent: its k-step covers no value of k");
  const Mapping tiled({"shared-tiled", {{"tile", 8}}}, {16, 16, 16});
  KernelTrace shortShared = traceOf(tiled, {0, 0});
  shortShared.sharedB.writes.pop_back();
  EXPECT_EQ(refusal(shortShared),
            "the trace is inconsistent: it does not list the shared-memory words of each thread "
            "of the traced block");
  KernelTrace negativeWord = traceOf(tiled, {0, 0});
  negativeWord.sharedA.reads[3][0] = {-4};
  EXPECT_EQ(refusal(negativeWord),
            "the trace is inconsistent: a shared-memory word has a negative address");
}

// A load outside its matrix returned zeros (ts::loadA's rule): its lane is idle in that
// instruction, and the thread's next load keeps its own instruction.
TEST(TracedMappingChanged, ALoadOutsideTheMatrixKeepsItsPlace) {
  const Mapping naive({"naive", {{"tile", 8}}}, {16, 16, 4});
  KernelTrace trace = traceOf(naive, {0, 0});
  auto& first = trace.loadsA[0];
  ASSERT_EQ(first.size(), 4u);                         // A[0][k], k = 0..3
  first.insert(first.begin() + 2, TracedLoad{16, 2});  // row M, in k-step 2
  const Mapping traced(trace);
  EXPECT_EQ(traced.warpAccess({0, 0}, 0, Access::LoadA, 2, 0).element[0], -1);
  EXPECT_EQ(traced.warpAccess({0, 0}, 0, Access::LoadA, 2, 0).element[1], 2);  // A[0][2]
  EXPECT_EQ(traced.warpAccess({0, 0}, 0, Access::LoadA, 2, 1).element[0], 2);
  EXPECT_EQ(traceDifferences(traced, naive),
            (std::vector<std::string>{
                "block (0,0) warp 0 lane 0, A load 0 of k-step 2: nothing, the Mapping's A[0][2]",
                "block (0,0) warp 0 lane 0, A load 1 of k-step 2: A[0][2], the Mapping's "
                "nothing"}));
}

// An FP8 B is stored K-major: a traced load of B's cell (k, n) lies at n K + k, and a kernel that
// read it as a K x N B is named in B's cells.
TEST(TracedMappingChanged, AnFp8TracesLoadsOfBLieKMajor) {
  const Shape shape{128, 128, 256};
  const Mapping fp8(resolve({"tensor-fp8", {{"BN", 128}, {"cluster", 1}}}), shape,
                    ElementType::E4M3);
  KernelTrace trace = traceOf(fp8, {0, 0});
  const Mapping traced(trace);
  EXPECT_TRUE(traced.copiesBAlongK());
  // Thread 1 copies B's second 16 values of k of column 0: B[16..31][0], at 16.
  const TracedLoad second = trace.loadsB[1].front();
  EXPECT_EQ(second.row, 16);
  EXPECT_EQ(second.col, 0);
  EXPECT_EQ(second.width, 16);
  const WarpAccess loads = traced.warpAccess({0, 0}, 0, Access::LoadB, 0, 0);
  EXPECT_EQ(loads.element[1], 16);
  EXPECT_EQ(loads.element[8], 1 * shape.k + 0);  // thread 8: column 1 from k = 0
  EXPECT_EQ(traced.elementCell(Operand::B, loads.element[8]).col, 1);
  EXPECT_EQ(traceDifferences(traced, fp8), std::vector<std::string>{});
  // A kernel that took B[k][n] at k N + n reads other bytes: named as the cells it loaded.
  trace.loadsB[8].front() = {8, 0, 16};
  EXPECT_EQ(traceDifferences(Mapping(trace), fp8, 1),
            std::vector<std::string>{
                "block (0,0) warp 0 lane 8, B load 0 of k-step 0: B[8][0], the Mapping's B[0][1]"});
  // The same trace of a 16-bit type reads B row-major.
  trace.element = ElementType::F16;
  EXPECT_FALSE(Mapping(trace).copiesBAlongK());
}

}  // namespace
}  // namespace tilescope
