// SPDX-License-Identifier: GPL-3.0-or-later
#include <gtest/gtest.h>

#include "tilescope/error.hpp"
#include "tilescope/families.hpp"
#include "tilescope/traffic.hpp"

namespace tilescope {
namespace {

Mapping mappingOf(const std::string& kernel, int tile, Shape shape) {
  return Mapping({kernel, {{"tile", tile}}}, shape);
}

// The ladder kernels by their parameters, e.g. {"BM", 64}, {"TM", 4}; the rest take defaults.
Mapping ladderOf(const std::string& kernel, Params params, Shape shape) {
  return Mapping({kernel, std::move(params)}, shape);
}

RequestTraffic firstRequest(const Mapping& mapping, Access access, std::int64_t step = 0,
                            Dim2 block = {0, 0}) {
  return requestTraffic(mapping.warpAccess(block, 0, access, step, 0));
}

// Seed 002's lesson: the 32 lanes of a row-per-thread warp read 32 different rows of A.
TEST(RequestTraffic, RowPerThreadWarpLoadingATouches32Sectors) {
  const RequestTraffic a =
      firstRequest(mappingOf("row-per-thread", 32, {64, 64, 64}), Access::LoadA);
  EXPECT_EQ(a.activeLanes, 32);
  EXPECT_EQ(a.sectors, 32);
  EXPECT_EQ(a.lines, 32);
  EXPECT_EQ(a.bytesUsed, 128);
  EXPECT_EQ(a.bytesFetched(), 1024);
  EXPECT_DOUBLE_EQ(a.efficiency(), 0.125);
}

TEST(RequestTraffic, NaiveWarpLoadingBReadsFourSectorsOfOneLine) {
  const Mapping naive = mappingOf("naive", 32, {64, 64, 64});
  const RequestTraffic b = firstRequest(naive, Access::LoadB);
  EXPECT_EQ(b.sectors, 4);
  EXPECT_EQ(b.lines, 1);
  EXPECT_EQ(b.bytesUsed, 128);
  EXPECT_DOUBLE_EQ(b.efficiency(), 1.0);
  // All 32 lanes read the same A element: one sector, a broadcast counted once.
  const RequestTraffic a = firstRequest(naive, Access::LoadA);
  EXPECT_EQ(a.activeLanes, 32);
  EXPECT_EQ(a.sectors, 1);
  EXPECT_EQ(a.bytesUsed, 4);
  EXPECT_DOUBLE_EQ(a.efficiency(), 4.0 / 32.0);
}

// Tile 16: a warp is two rows of 16 threads that read the same 16 floats of B.
TEST(RequestTraffic, NaiveTile16WarpSpansTwoRowsOfThreads) {
  const Mapping naive = mappingOf("naive", 16, {64, 64, 64});
  const RequestTraffic b = firstRequest(naive, Access::LoadB);
  EXPECT_EQ(b.sectors, 2);
  EXPECT_EQ(b.bytesUsed, 64);
  const RequestTraffic a = firstRequest(naive, Access::LoadA);
  EXPECT_EQ(a.sectors, 2);  // rows 0 and 1 of A are 256 bytes apart
  EXPECT_EQ(a.bytesUsed, 8);
}

// Row 1 of B starts at byte 33 * 4 = 132: 128 bytes from there straddle 5 sectors and 2 lines.
TEST(RequestTraffic, MisalignedRowStraddlesAnExtraSector) {
  const RequestTraffic b = firstRequest(mappingOf("naive", 32, {64, 33, 64}), Access::LoadB, 1);
  EXPECT_EQ(b.activeLanes, 32);
  EXPECT_EQ(b.sectors, 5);
  EXPECT_EQ(b.lines, 2);
  EXPECT_DOUBLE_EQ(b.efficiency(), 128.0 / 160.0);
}

// N = 20: lanes 20..31 are past the edge and idle; 80 bytes still cost three sectors.
TEST(RequestTraffic, IdleLanesAtTheEdgeAreNotCounted) {
  const RequestTraffic b = firstRequest(mappingOf("naive", 32, {64, 20, 64}), Access::LoadB);
  EXPECT_EQ(b.activeLanes, 20);
  EXPECT_EQ(b.sectors, 3);
  EXPECT_EQ(b.bytesUsed, 80);
  EXPECT_DOUBLE_EQ(b.efficiency(), 80.0 / 96.0);
}

// Register tile 4: each lane reads every fourth float of B's row, 16 floats over 256 bytes.
TEST(RequestTraffic, RegisterTileStridesOverB) {
  const RequestTraffic b =
      firstRequest(mappingOf("register-tiled", 4, {128, 128, 16}), Access::LoadB);
  EXPECT_EQ(b.activeLanes, 32);
  EXPECT_EQ(b.bytesUsed, 64);
  EXPECT_EQ(b.sectors, 8);
  EXPECT_EQ(b.lines, 2);
  EXPECT_DOUBLE_EQ(b.efficiency(), 0.25);
}

// vectorized (BM 64, BK 16): lane l copies the float4 A[l / 4][(l % 4) * 4 ..]. Four lanes cover
// 64 bytes of a row, two sectors; eight rows make 16 sectors, every byte of them used.
TEST(RequestTraffic, Float4CopyOfARowSegmentUsesEveryByteOfItsSectors) {
  const Mapping vectorized = ladderOf("vectorized", {}, {64, 128, 64});
  const WarpAccess a = vectorized.warpAccess({0, 0}, 0, Access::LoadA, 0, 0);
  ASSERT_EQ(a.width, 4);
  EXPECT_EQ(a.element[5], 1 * 64 + 4);
  const RequestTraffic traffic = requestTraffic(a);
  EXPECT_EQ(traffic.activeLanes, 32);
  EXPECT_EQ(traffic.bytesUsed, 32 * 16);
  EXPECT_EQ(traffic.sectors, 16);
  EXPECT_EQ(traffic.lines, 8);
  EXPECT_DOUBLE_EQ(traffic.efficiency(), 1.0);

  // B (16 x 128): the warp's 32 float4s are 512 consecutive bytes of row 0, four whole lines.
  const RequestTraffic b = requestTraffic(vectorized.warpAccess({0, 0}, 0, Access::LoadB, 0, 0));
  EXPECT_EQ(b.bytesUsed, 512);
  EXPECT_EQ(b.sectors, 16);
  EXPECT_EQ(b.lines, 4);
  EXPECT_DOUBLE_EQ(b.efficiency(), 1.0);
}

// The same lanes reading one float each would use a quarter of what they fetch.
TEST(RequestTraffic, WidthDecidesTheBytesEachLaneUses) {
  WarpAccess access;
  for (int lane = 0; lane < kWarpSize; ++lane) access.element[std::size_t(lane)] = 4 * lane;
  access.width = 1;
  const RequestTraffic scalar = requestTraffic(access);
  EXPECT_EQ(scalar.sectors, 16);
  EXPECT_EQ(scalar.bytesUsed, 128);
  EXPECT_DOUBLE_EQ(scalar.efficiency(), 0.25);
  access.width = 4;
  const RequestTraffic vector = requestTraffic(access);
  EXPECT_EQ(vector.sectors, 16);
  EXPECT_EQ(vector.bytesUsed, 512);
  EXPECT_DOUBLE_EQ(vector.efficiency(), 1.0);
  access.width = 3;
  EXPECT_THROW(requestTraffic(access), Error);
}

// An FP8 kernel's scalar loads (a user kernel's ts::loadB): a warp reading 32 consecutive bytes
// fetches one sector and uses all of it; a 1-byte element in pairs is no lane's width.
TEST(RequestTraffic, OneByteLanesOfFp8ReadOneSectorTogether) {
  WarpAccess access;
  for (int lane = 0; lane < kWarpSize; ++lane) access.element[std::size_t(lane)] = 64 + lane;
  access.width = 1;
  access.elementBytes = 1;
  const RequestTraffic bytes = requestTraffic(access);
  EXPECT_EQ(bytes.sectors, 1);
  EXPECT_EQ(bytes.lines, 1);
  EXPECT_EQ(bytes.bytesUsed, 32);
  EXPECT_DOUBLE_EQ(bytes.efficiency(), 1.0);
  access.width = 2;
  EXPECT_THROW(requestTraffic(access), Error);
}

WarpSharedAccess columnRead(maps::SharedTile layout, int lanes, int col) {
  WarpSharedAccess read;
  read.word.fill(-1);
  for (int lane = 0; lane < lanes; ++lane) read.word[std::size_t(lane)] = layout.word(lane, col);
  return read;
}

TEST(BankTraffic, ColumnOfAnUnpaddedTileIsA32WayConflict) {
  const BankTraffic unpadded = bankTraffic(columnRead({32, 0}, 32, 5));
  EXPECT_EQ(unpadded.activeLanes, 32);
  EXPECT_EQ(unpadded.wavefronts, 32);
  EXPECT_EQ(unpadded.conflicts(), 31);
  EXPECT_EQ(unpadded.wordsPerBank[5], 32);
  EXPECT_FALSE(unpadded.broadcast);

  const BankTraffic padded = bankTraffic(columnRead({32, 1}, 32, 5));
  EXPECT_EQ(padded.wavefronts, 1);
  EXPECT_EQ(padded.conflicts(), 0);
  for (int bank = 0; bank < kSharedBanks; ++bank) EXPECT_EQ(padded.wordsPerBank[bank], 1);
}

// 16 rows 16 words apart fall in banks 0 and 16 alternately: 8 words in each, 8 passes.
TEST(BankTraffic, ColumnOfAnUnpaddedTile16IsAn8WayConflict) {
  const BankTraffic unpadded = bankTraffic(columnRead({16, 0}, 16, 0));
  EXPECT_EQ(unpadded.wavefronts, 8);
  EXPECT_EQ(unpadded.conflicts(), 7);
  EXPECT_EQ(unpadded.wordsPerBank[0], 8);
  EXPECT_EQ(unpadded.wordsPerBank[16], 8);
  EXPECT_EQ(bankTraffic(columnRead({16, 1}, 16, 0)).wavefronts, 1);
}

TEST(BankTraffic, SameWordIsABroadcastNotAConflict) {
  WarpSharedAccess read;
  read.word.fill(7);
  const BankTraffic traffic = bankTraffic(read);
  EXPECT_TRUE(traffic.broadcast);
  EXPECT_EQ(traffic.wavefronts, 1);
  EXPECT_EQ(traffic.conflicts(), 0);
  EXPECT_EQ(traffic.wordsPerBank[7], 1);
}

// The catalogue's inner product reads a tile row (B) or one word per thread row (A): at tile 16
// both are conflict-free, padded or not, and the two thread rows of a warp share words.
TEST(BankTraffic, SharedTiledTile16ReadsAreConflictFree) {
  const Mapping tiled = mappingOf("shared-tiled", 16, {64, 64, 64});
  for (const int pad : {0, 1}) {
    const BankTraffic a = bankTraffic(*tiled.warpSharedRead(Operand::A, 0, 3, pad));
    EXPECT_EQ(a.wavefronts, 1) << "pad " << pad;
    EXPECT_TRUE(a.broadcast);
    EXPECT_EQ(a.wordsPerBank[3], 1);
    EXPECT_EQ(a.wordsPerBank[(16 + pad + 3) % 32], 1);
    const BankTraffic b = bankTraffic(*tiled.warpSharedRead(Operand::B, 0, 3, pad));
    EXPECT_EQ(b.wavefronts, 1) << "pad " << pad;
    EXPECT_TRUE(b.broadcast);
  }
}

// shared-tiled-padded stores A transposed: a warp of a 32 x 32 block writes one column of the
// tile. Unpadded, all 32 words sit in one bank; a pad of one word spreads them over all 32. Its
// reads stay broadcasts either way (a warp reads one word of A per inner index).
TEST(BankTraffic, SharedTiledPaddedStoresAConflictFreeOnlyWhenPadded) {
  const Shape shape{96, 96, 96};
  const Mapping unpadded({"shared-tiled-padded", {{"tile", 32}, {"pad", 0}}}, shape);
  const Mapping padded({"shared-tiled-padded", {{"tile", 32}, {"pad", 1}}}, shape);
  for (const int warp : {0, 5}) {
    EXPECT_EQ(bankTraffic(*unpadded.warpSharedWrite(Operand::A, warp, 0)).conflicts(), 31);
    EXPECT_EQ(bankTraffic(*padded.warpSharedWrite(Operand::A, warp, 0)).conflicts(), 0);
    const BankTraffic read = bankTraffic(*padded.warpSharedRead(Operand::A, warp, 7));
    EXPECT_EQ(read.conflicts(), 0);
    EXPECT_TRUE(read.broadcast);
  }
  // B keeps shared-tiled's layout: rows, conflict-free.
  EXPECT_EQ(bankTraffic(*unpadded.warpSharedWrite(Operand::B, 0, 0)).conflicts(), 0);
  // The padded tile takes one more word per row of shared memory.
  EXPECT_EQ(padded.sharedBytesPerBlock() - unpadded.sharedBytesPerBlock(), 32 * 4);
}

// Tile 31: lane 31 is the first thread of the second tile row. Unpadded, its A word (31 + kk)
// sits in another bank than lane 0's (kk); padded to a stride of 32 it lands in the same bank.
TEST(BankTraffic, PaddingTile31CreatesATwoWayConflict) {
  const Mapping tiled = mappingOf("shared-tiled", 31, {62, 62, 62});
  EXPECT_EQ(bankTraffic(*tiled.warpSharedRead(Operand::A, 0, 4, 0)).wavefronts, 1);
  const BankTraffic padded = bankTraffic(*tiled.warpSharedRead(Operand::A, 0, 4, 1));
  EXPECT_EQ(padded.wavefronts, 2);
  EXPECT_EQ(padded.wordsPerBank[4], 2);

  const std::optional<SharedReadTotals> unpaddedTotals = sharedReadTotals(tiled, Operand::A, 0);
  const std::optional<SharedReadTotals> paddedTotals = sharedReadTotals(tiled, Operand::A, 1);
  ASSERT_TRUE(unpaddedTotals && paddedTotals);
  // 961 threads make 31 warps (the last has one lane), each reading 31 times per step.
  EXPECT_EQ(unpaddedTotals->reads, 31 * 31);
  EXPECT_EQ(unpaddedTotals->conflicts(), 0);
  EXPECT_EQ(paddedTotals->reads, 31 * 31);
  EXPECT_EQ(paddedTotals->worstWavefronts, 2);
  // Every warp but the last spans two tile rows whose words meet in one bank at every kk.
  EXPECT_EQ(paddedTotals->conflicts(), 30 * 31);
}

// A float4 read is served a quarter warp at a time: eight lanes reading eight float4s that tile a
// 128-byte row take one pass each, four in all, even though the warp asks for 128 words.
TEST(BankTraffic, Float4ReadsAreServedInQuarterWarps) {
  WarpSharedAccess read;
  read.width = 4;
  for (int lane = 0; lane < kWarpSize; ++lane) read.word[std::size_t(lane)] = lane % 8 * 4;
  const BankTraffic rows = bankTraffic(read);
  EXPECT_EQ(rows.activeLanes, 32);
  EXPECT_EQ(rows.phases, 4);
  EXPECT_EQ(rows.wavefronts, 4);
  EXPECT_EQ(rows.conflicts(), 0);
  EXPECT_FALSE(rows.broadcast);  // lanes 0 and 8 share words, but in different phases
  for (int bank = 0; bank < kSharedBanks; ++bank) EXPECT_EQ(rows.wordsPerBank[bank], 4);

  // Lanes 32 bytes apart: lanes l and l + 4 of a phase meet in the same four banks.
  for (int lane = 0; lane < kWarpSize; ++lane) read.word[std::size_t(lane)] = lane % 8 * 8;
  const BankTraffic strided = bankTraffic(read);
  EXPECT_EQ(strided.phaseWavefronts, (std::array<int, kMaxPhases>{2, 2, 2, 2}));
  EXPECT_EQ(strided.wavefronts, 8);
  EXPECT_EQ(strided.conflicts(), 4);

  // Only lanes 8..11 active: one phase, one pass.
  read.word.fill(-1);
  for (int lane = 8; lane < 12; ++lane) read.word[std::size_t(lane)] = lane * 4;
  const BankTraffic quarter = bankTraffic(read);
  EXPECT_EQ(quarter.phases, 1);
  EXPECT_EQ(quarter.wavefronts, 1);
  EXPECT_EQ(quarter.phaseWavefronts[1], 1);
}

// warptile's 4 x 8 lane grid: per inner index eight lanes read eight consecutive TN = 4 pieces of
// the B row, conflict-free. vectorized with TN = 8 puts lanes 32 bytes apart: two passes in
// every quarter warp, 4 extra passes per read, at every inner index and in both read slots.
TEST(BankTraffic, WarptileReadsBWithoutConflictsWhereVectorizedTn8DoesNot) {
  const Mapping warptile = ladderOf("warptile", {}, {256, 256, 64});
  const BankTraffic lanes = bankTraffic(*warptile.warpSharedRead(Operand::B, 1, 5, 0, 1));
  EXPECT_EQ(lanes.width, 4);
  EXPECT_EQ(lanes.wavefronts, 4);
  EXPECT_EQ(lanes.conflicts(), 0);

  const Mapping vectorized = ladderOf(
      "vectorized", {{"BM", 64}, {"BN", 128}, {"BK", 8}, {"TM", 8}, {"TN", 8}}, {64, 128, 64});
  const WarpSharedAccess read = *vectorized.warpSharedRead(Operand::B, 0, 2, 0, 0);
  EXPECT_EQ(read.word[1], 2 * 128 + 8);
  const BankTraffic wide = bankTraffic(read);
  EXPECT_EQ(wide.phaseWavefronts, (std::array<int, kMaxPhases>{2, 2, 2, 2}));
  EXPECT_EQ(wide.conflicts(), 4);
  const std::optional<SharedReadTotals> totals = sharedReadTotals(vectorized, Operand::B);
  ASSERT_TRUE(totals);
  EXPECT_EQ(totals->reads, 4 * 8 * 2);  // 4 warps, 8 inner indices, 2 float4 slots
  EXPECT_EQ(totals->conflicts(), 4 * totals->reads);
}

// blocktile-2d (BM = BN = 64, BK = 8, TM = TN = 4): 16 threads per row of threads, so a warp's
// lanes 0..15 read A word (slot) * 8 + kk and lanes 16..31 the word 32 further on: the same bank,
// a 2-way conflict in every read. One word of padding per row moves the second to another bank.
// The padded pitches put the eight 16-byte rows of every ldmatrix phase (fp16) and the 32 words
// of every tf32 fragment read on distinct banks: every configuration, both operands. Each warp
// reads its fragments once per chunk of k (16 fp16 or 8 tf32 values), not at every k.
TEST(SharedReadTotals, TensorCoreFragmentReadsAreConflictFree) {
  for (const KernelConfig& config : validConfigurations(kernelInfo("tensor-mma")))
    for (const ElementType element : {ElementType::F16, ElementType::BF16, ElementType::TF32}) {
      const Mapping mapping(config, {512, 512, 512}, element);
      for (const Operand operand : {Operand::A, Operand::B}) {
        const auto totals = sharedReadTotals(mapping, operand);
        ASSERT_TRUE(totals);
        const int chunks = mapping.kDepth() / (element == ElementType::TF32 ? 8 : 16);
        EXPECT_EQ(totals->reads, std::int64_t(mapping.warpsPerBlock()) * chunks *
                                     mapping.sharedReadSlots(operand));
        EXPECT_EQ(totals->conflicts(), 0) << formatParams(config) << " " << toString(element)
                                          << " operand " << (operand == Operand::A ? "A" : "B");
      }
      // Without the padding the fp16 A rows (64 bytes apart) would collide.
      if (element == ElementType::F16) {
        EXPECT_GT(sharedReadTotals(mapping, Operand::A, -4)->conflicts(), 0)
            << formatParams(config);
      }
    }
}

// fp16 operands move half the bytes of fp32 ones: the compulsory traffic and every A copy.
TEST(KernelTraffic, SixteenBitOperandsHalveTheirBytes) {
  const Shape shape{128, 256, 64};
  const KernelConfig oneBlock{"tensor-mma", {{"BM", 128}, {"BN", 256}, {"WM", 64}, {"WN", 64}}};
  const KernelTraffic half = kernelTraffic(Mapping(oneBlock, shape, ElementType::F16));
  const KernelTraffic tf32 = kernelTraffic(Mapping(oneBlock, shape, ElementType::TF32));
  EXPECT_DOUBLE_EQ(half.compulsoryBytes, 2.0 * (128 * 64 + 64 * 256) + 4.0 * 128 * 256);
  EXPECT_DOUBLE_EQ(tf32.compulsoryBytes, 4.0 * (128 * 64 + 64 * 256 + 128 * 256));
  EXPECT_DOUBLE_EQ(2 * half.totals(Access::LoadA).bytesFetched(),
                   tf32.totals(Access::LoadA).bytesFetched());
  // One block covers the problem: every byte moves once.
  EXPECT_DOUBLE_EQ(half.globalBytes, half.compulsoryBytes);
  EXPECT_DOUBLE_EQ(tf32.globalBytes, tf32.compulsoryBytes);
}

TEST(SharedReadTotals, PaddingRemovesBlockTile2DConflictsOnA) {
  const Mapping tiled = ladderOf(
      "blocktile-2d", {{"BM", 64}, {"BN", 64}, {"BK", 8}, {"TM", 4}, {"TN", 4}}, {64, 64, 16});
  ASSERT_EQ(tiled.threadsPerBlock(), 256);
  ASSERT_EQ(tiled.sharedReadSlots(Operand::A), 4);
  const BankTraffic unpadded = bankTraffic(*tiled.warpSharedRead(Operand::A, 3, 5, 0, 2));
  EXPECT_EQ(unpadded.wavefronts, 2);
  EXPECT_TRUE(unpadded.broadcast);
  EXPECT_EQ(unpadded.wordsPerBank[(2 * 8 + 5) % 32], 2);
  EXPECT_EQ(bankTraffic(*tiled.warpSharedRead(Operand::A, 3, 5, 1, 2)).wavefronts, 1);

  // 8 warps x 8 inner indices x 4 slots.
  const std::optional<SharedReadTotals> plain = sharedReadTotals(tiled, Operand::A, 0);
  const std::optional<SharedReadTotals> padded = sharedReadTotals(tiled, Operand::A, 1);
  ASSERT_TRUE(plain && padded);
  EXPECT_EQ(plain->reads, 256);
  EXPECT_EQ(plain->idealWavefronts, 256);
  EXPECT_EQ(plain->wavefronts, 512);
  EXPECT_EQ(plain->conflicts(), 256);
  EXPECT_EQ(padded->reads, 256);
  EXPECT_EQ(padded->conflicts(), 0);
}

// vectorized: TM = 8 values of the transposed A tile as two float4 reads, every lane of a warp
// on the same thread row: a broadcast, four phases of one pass. 8 warps x 16 kk x 2 slots.
TEST(SharedReadTotals, CountEveryFloat4SlotInQuarterWarps) {
  const Mapping vectorized = ladderOf("vectorized", {}, {64, 128, 64});
  const std::optional<SharedReadTotals> a = sharedReadTotals(vectorized, Operand::A);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->reads, 8 * 16 * 2);
  EXPECT_EQ(a->wavefronts, 4 * a->reads);
  EXPECT_EQ(a->idealWavefronts, 4 * a->reads);
  EXPECT_EQ(a->conflicts(), 0);
  EXPECT_EQ(a->worstWavefronts, 4);
}

TEST(SharedReadTotals, OnlyStagedOperandsHaveThem) {
  const Shape shape{40, 40, 40};
  EXPECT_FALSE(sharedReadTotals(mappingOf("naive", 16, shape), Operand::A));
  EXPECT_FALSE(sharedReadTotals(mappingOf("shared-a", 16, shape), Operand::B));
  const auto a = sharedReadTotals(mappingOf("shared-a", 16, shape), Operand::A);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->reads, 8 * 16);  // 8 warps, 16 inner indices
  EXPECT_EQ(a->wavefronts, 8 * 16);
}

// 32^3, tile 16: 4 blocks of 8 warps. Naive: each of the 32 steps costs a warp 2 sectors of A and
// 2 of B; shared-tiled: 2 steps of 2 rows x 64 bytes for each operand. C: 4 sectors per warp.
TEST(KernelTraffic, ExactTotalsOnASmallProblem) {
  const Shape shape{32, 32, 32};
  const KernelTraffic naive = kernelTraffic(mappingOf("naive", 16, shape));
  EXPECT_TRUE(naive.exact);
  EXPECT_DOUBLE_EQ(naive.flops, 65536);
  EXPECT_DOUBLE_EQ(naive.compulsoryBytes, 12288);
  EXPECT_DOUBLE_EQ(naive.totals(Access::LoadA).requests, 1024);
  EXPECT_DOUBLE_EQ(naive.totals(Access::LoadA).sectors, 2048);
  EXPECT_DOUBLE_EQ(naive.totals(Access::LoadB).sectors, 2048);
  EXPECT_DOUBLE_EQ(naive.totals(Access::StoreC).requests, 32);
  EXPECT_DOUBLE_EQ(naive.totals(Access::StoreC).sectors, 128);
  EXPECT_DOUBLE_EQ(naive.globalBytes, (2048 + 2048 + 128) * 32);
  EXPECT_DOUBLE_EQ(naive.arithmeticIntensity(), 65536.0 / 135168.0);

  const KernelTraffic tiled = kernelTraffic(mappingOf("shared-tiled", 16, shape));
  EXPECT_TRUE(tiled.exact);
  EXPECT_DOUBLE_EQ(tiled.totals(Access::LoadA).requests, 64);
  EXPECT_DOUBLE_EQ(tiled.totals(Access::LoadA).sectors, 256);
  EXPECT_DOUBLE_EQ(tiled.totals(Access::LoadB).sectors, 256);
  EXPECT_DOUBLE_EQ(tiled.totals(Access::LoadB).efficiency(), 1.0);
  EXPECT_DOUBLE_EQ(tiled.globalBytes, (256 + 256 + 128) * 32);
  EXPECT_DOUBLE_EQ(tiled.compulsoryIntensity(), 65536.0 / 12288.0);
}

// blocktile-2d (BM = BN = 64, BK = 8, TM = TN = 4) on 64 x 64 x 16: one block of 8 warps, two
// k-steps. Each thread copies two elements of A and two of B per step: a warp's A copy is four
// rows of 8 floats (4 aligned sectors), its B copy 32 floats of one row (4 sectors), 32 requests
// each. C: 16 scalar stores per thread; a warp's store hits 2 rows x 16 floats 4 apart, 16
// sectors for 128 bytes, 128 requests: 2048 sectors where 512 would hold C.
TEST(KernelTraffic, BlockTile2DCountsEveryCopyAndStore) {
  const KernelTraffic traffic = kernelTraffic(ladderOf(
      "blocktile-2d", {{"BM", 64}, {"BN", 64}, {"BK", 8}, {"TM", 4}, {"TN", 4}}, {64, 64, 16}));
  EXPECT_TRUE(traffic.exact);
  EXPECT_DOUBLE_EQ(traffic.totals(Access::LoadA).requests, 32);
  EXPECT_DOUBLE_EQ(traffic.totals(Access::LoadA).sectors, 128);
  EXPECT_DOUBLE_EQ(traffic.totals(Access::LoadA).efficiency(), 1.0);
  EXPECT_DOUBLE_EQ(traffic.totals(Access::LoadB).requests, 32);
  EXPECT_DOUBLE_EQ(traffic.totals(Access::LoadB).sectors, 128);
  EXPECT_DOUBLE_EQ(traffic.totals(Access::StoreC).requests, 128);
  EXPECT_DOUBLE_EQ(traffic.totals(Access::StoreC).sectors, 2048);
  EXPECT_DOUBLE_EQ(traffic.totals(Access::StoreC).bytesUsed, 64 * 64 * 4);
  EXPECT_DOUBLE_EQ(traffic.totals(Access::StoreC).efficiency(), 0.25);
  EXPECT_DOUBLE_EQ(traffic.globalBytes, (128 + 128 + 2048) * 32);
  EXPECT_DOUBLE_EQ(traffic.compulsoryBytes, (64 * 16 + 16 * 64 + 64 * 64) * 4);
}

// vectorized on 64 x 128 x 64 is a single block: with float4 copies and stores every matrix
// moves exactly once. A: 4 steps x 8 warps x 1 copy of 16 sectors; B: 2 copies a step; C: 8
// float4 stores per thread, a warp's covering one 512-byte row.
TEST(KernelTraffic, VectorizedSingleBlockMovesOnlyCompulsoryBytes) {
  const KernelTraffic traffic = kernelTraffic(ladderOf("vectorized", {}, {64, 128, 64}));
  EXPECT_TRUE(traffic.exact);
  EXPECT_DOUBLE_EQ(traffic.totals(Access::LoadA).requests, 32);
  EXPECT_DOUBLE_EQ(traffic.totals(Access::LoadA).sectors, 512);
  EXPECT_DOUBLE_EQ(traffic.totals(Access::LoadB).requests, 64);
  EXPECT_DOUBLE_EQ(traffic.totals(Access::LoadB).sectors, 1024);
  EXPECT_DOUBLE_EQ(traffic.totals(Access::StoreC).requests, 64);
  EXPECT_DOUBLE_EQ(traffic.totals(Access::StoreC).sectors, 1024);
  for (const Access access : {Access::LoadA, Access::LoadB, Access::StoreC})
    EXPECT_DOUBLE_EQ(traffic.totals(access).efficiency(), 1.0) << toString(access);
  EXPECT_DOUBLE_EQ(traffic.globalBytes, traffic.compulsoryBytes);
}

// 1024^3, naive tile 32: 33.5 million B requests are sampled, but every one of them reads one
// aligned line, so the scaled totals are exact.
TEST(KernelTraffic, SampledTotalsScaleToTheWholeLaunch) {
  const KernelTraffic naive = kernelTraffic(mappingOf("naive", 32, {1024, 1024, 1024}), 512);
  EXPECT_FALSE(naive.exact);
  const double requests = 32.0 * 32.0 * 32.0 * 1024.0;  // blocks x warps x steps
  EXPECT_DOUBLE_EQ(naive.totals(Access::LoadB).requests, requests);
  EXPECT_DOUBLE_EQ(naive.totals(Access::LoadB).sectors, 4 * requests);
  EXPECT_DOUBLE_EQ(naive.totals(Access::LoadA).sectors, requests);
  EXPECT_DOUBLE_EQ(naive.totals(Access::LoadB).sectorsPerRequest(), 4.0);
}

TEST(KernelTraffic, RowPerThreadWastesSevenEighthsOfEveryALoad) {
  const Shape shape{256, 256, 256};
  const KernelTraffic rows = kernelTraffic(mappingOf("row-per-thread", 32, shape));
  const KernelTraffic naive = kernelTraffic(mappingOf("naive", 32, shape));
  EXPECT_DOUBLE_EQ(rows.totals(Access::LoadA).sectorsPerRequest(), 32.0);
  EXPECT_DOUBLE_EQ(rows.totals(Access::LoadA).efficiency(), 0.125);
  EXPECT_DOUBLE_EQ(naive.totals(Access::LoadB).sectorsPerRequest(), 4.0);
  EXPECT_GT(rows.globalBytes, naive.globalBytes);
}

// Enough for every request of the small problems below: exact totals.
constexpr std::int64_t kEveryRequest = 1 << 20;
// tensor-persistent and tensor-tma with 128 x 256 tiles of bf16 and 64-deep k-steps: a tile's
// k-step moves 128 rows x 128 bytes of A (512 sectors) and 64 rows x 512 bytes of B (1024
// sectors), in aligned 16-byte vectors that use every byte of their sectors.
constexpr double kASectorsPerTileStep = 128.0 * 64 * 2 / kSectorBytes;
constexpr double kBSectorsPerTileStep = 64.0 * 256 * 2 / kSectorBytes;

Mapping persistentOf(int cluster, Shape shape) {
  return Mapping({"tensor-persistent",
                  {{"BM", 128}, {"BN", 256}, {"BK", 64}, {"stages", 4}, {"cluster", cluster}}},
                 shape, ElementType::BF16);
}

Mapping tmaOf(Shape shape) {
  return Mapping({"tensor-tma", {{"BM", 128}, {"BN", 256}, {"BK", 64}, {"stages", 4}}}, shape,
                 ElementType::BF16);
}

// 512 x 512 x 128: 4 tile rows x 2 tile columns, 2 k-steps. Without clusters each of the 8 tiles
// fetches its B tile every k-step; with 2 x 1 clusters the 2 tiles of a column pair share one
// multicast copy: 2 pairs x 2 columns fetch it. A and C stay per tile.
TEST(KernelTraffic, PersistentClusterFetchesEachBTileOnce) {
  const Shape shape{512, 512, 128};
  const KernelTraffic single = kernelTraffic(persistentOf(1, shape), kEveryRequest);
  const KernelTraffic paired = kernelTraffic(persistentOf(2, shape), kEveryRequest);
  ASSERT_TRUE(single.exact);
  ASSERT_TRUE(paired.exact);
  const double steps = 2, tiles = 4 * 2, clusters = 2 * 2;
  EXPECT_DOUBLE_EQ(single.totals(Access::LoadB).sectors, tiles * steps * kBSectorsPerTileStep);
  EXPECT_DOUBLE_EQ(paired.totals(Access::LoadB).sectors, clusters * steps * kBSectorsPerTileStep);
  EXPECT_DOUBLE_EQ(2 * paired.totals(Access::LoadB).bytesFetched(),
                   single.totals(Access::LoadB).bytesFetched());
  // Each warp request is the same 16 sectors; only fewer are made.
  EXPECT_DOUBLE_EQ(paired.totals(Access::LoadB).sectorsPerRequest(),
                   single.totals(Access::LoadB).sectorsPerRequest());
  for (const Access access : {Access::LoadA, Access::StoreC}) {
    EXPECT_DOUBLE_EQ(paired.totals(access).sectors, single.totals(access).sectors)
        << toString(access);
  }
  EXPECT_DOUBLE_EQ(paired.totals(Access::LoadA).sectors, tiles * steps * kASectorsPerTileStep);
  const double savedBytes = tiles / 2 * steps * kBSectorsPerTileStep * kSectorBytes;
  EXPECT_DOUBLE_EQ(paired.globalBytes, single.globalBytes - savedBytes);
  EXPECT_DOUBLE_EQ(paired.arithmeticIntensity(), 2.0 * 512 * 512 * 128 / paired.globalBytes);
  EXPECT_GT(paired.arithmeticIntensity(), single.arithmeticIntensity());
}

// 300 x 512 x 128: 3 tile rows (the last one partial). The second cluster row's partner block
// lies past M and computes nothing, so that cluster fetches B for its one tile: 2 cluster rows x
// 2 columns fetch, against 3 x 2 tiles without clusters.
TEST(KernelTraffic, PersistentClusterWithAnOddTileRowFetchesForItsOneBlock) {
  const Shape shape{300, 512, 128};
  const Mapping paired = persistentOf(2, shape);
  EXPECT_EQ(paired.blockCount(), 3 * 2);
  EXPECT_EQ(paired.fetchingBlocks(Operand::B), 2 * 2);
  const KernelTraffic single = kernelTraffic(persistentOf(1, shape), kEveryRequest);
  const KernelTraffic multicast = kernelTraffic(paired, kEveryRequest);
  ASSERT_TRUE(multicast.exact);
  const double steps = 2;
  EXPECT_DOUBLE_EQ(single.totals(Access::LoadB).sectors, 3 * 2 * steps * kBSectorsPerTileStep);
  EXPECT_DOUBLE_EQ(multicast.totals(Access::LoadB).sectors, 2 * 2 * steps * kBSectorsPerTileStep);
  EXPECT_DOUBLE_EQ(multicast.totals(Access::LoadA).sectors, single.totals(Access::LoadA).sectors);
  EXPECT_DOUBLE_EQ(multicast.totals(Access::StoreC).sectors, single.totals(Access::StoreC).sectors);
}

// N = 500 is no multiple of 8 bf16 elements: B's rows are not 16-byte aligned, so TMA cannot copy
// them and each block's producer threads copy their own; nothing is multicast.
TEST(KernelTraffic, PersistentClusterMulticastsNothingWithoutTma) {
  const Shape shape{512, 500, 128};
  const Mapping paired = persistentOf(2, shape);
  EXPECT_EQ(paired.multicastBlocks(Operand::B), 1);
  EXPECT_EQ(paired.fetchingBlocks(Operand::B), paired.blockCount());
  EXPECT_DOUBLE_EQ(
      kernelTraffic(paired, kEveryRequest).totals(Access::LoadB).sectors,
      kernelTraffic(persistentOf(1, shape), kEveryRequest).totals(Access::LoadB).sectors);
}

// Clusters of one block multicast nothing: tensor-persistent with cluster=1 moves exactly what
// tensor-tma does, tile by tile (512 x 512 x 128: 8 tiles, 2 k-steps; C's floats stored once, in
// whole sectors).
TEST(KernelTraffic, ClustersOfOneAndTensorTmaFetchEveryTilePerBlock) {
  const Shape shape{512, 512, 128};
  const KernelTraffic tma = kernelTraffic(tmaOf(shape), kEveryRequest);
  const KernelTraffic single = kernelTraffic(persistentOf(1, shape), kEveryRequest);
  ASSERT_TRUE(tma.exact);
  const double tiles = 8, steps = 2;
  EXPECT_DOUBLE_EQ(tma.totals(Access::LoadA).sectors, tiles * steps * kASectorsPerTileStep);
  EXPECT_DOUBLE_EQ(tma.totals(Access::LoadB).sectors, tiles * steps * kBSectorsPerTileStep);
  EXPECT_DOUBLE_EQ(tma.totals(Access::StoreC).sectors, 512.0 * 512 * 4 / kSectorBytes);
  for (const Access access : {Access::LoadA, Access::LoadB, Access::StoreC}) {
    EXPECT_DOUBLE_EQ(single.totals(access).requests, tma.totals(access).requests)
        << toString(access);
    EXPECT_DOUBLE_EQ(single.totals(access).sectors, tma.totals(access).sectors) << toString(access);
  }
  EXPECT_DOUBLE_EQ(single.globalBytes, tma.globalBytes);
}

// Only tensor-persistent's clusters multicast: every other kernel's blocks fetch every operand
// themselves, so their totals are counted over every block as before.
TEST(KernelTraffic, OnlyPersistentClustersMulticast) {
  const Shape shape{300, 512, 200};
  int checked = 0;
  for (const KernelInfo& info : catalogue()) {
    if (!info.hasMapping) continue;
    for (const KernelConfig& config : validConfigurations(info)) {
      const Mapping mapping(config, shape, info.types.front());
      const bool multicasts =
          (info.id == "tensor-persistent" || info.id == "tensor-tf32" || info.id == "tensor-fp8") &&
          config.params.at("cluster") > 1;
      EXPECT_EQ(mapping.fetchingBlocks(Operand::A), mapping.blockCount());
      EXPECT_EQ(mapping.fetchingBlocks(Operand::C), mapping.blockCount());
      EXPECT_EQ(mapping.multicastBlocks(Operand::B), multicasts ? 2 : 1)
          << info.id << ' ' << formatParams(config);
      if (!multicasts) {
        EXPECT_EQ(mapping.fetchingBlocks(Operand::B), mapping.blockCount());
      }
      ++checked;
    }
  }
  EXPECT_GT(checked, 100);
}

// At 4096^3 (sampled) tensor-persistent's 128 x 256 tiles in 2 x 1 clusters move half the B
// bytes of the same tiles without clusters: the 32 tile rows pair up exactly, so 16 cluster rows
// x 16 tile columns fetch B.
TEST(KernelTraffic, PersistentAt4096HalvesBAndRaisesItsIntensity) {
  const Shape shape{4096, 4096, 4096};
  EXPECT_EQ(persistentOf(2, shape).fetchingBlocks(Operand::B), 16 * 16);
  const KernelTraffic single = kernelTraffic(persistentOf(1, shape));
  const KernelTraffic paired = kernelTraffic(persistentOf(2, shape));
  EXPECT_DOUBLE_EQ(2 * paired.totals(Access::LoadB).sectors, single.totals(Access::LoadB).sectors);
  EXPECT_DOUBLE_EQ(paired.globalBytes,
                   single.globalBytes - single.totals(Access::LoadB).bytesFetched() / 2);
  EXPECT_DOUBLE_EQ(paired.arithmeticIntensity(), 2.0 * 4096 * 4096 * 4096 / paired.globalBytes);
}

}  // namespace
}  // namespace tilescope
