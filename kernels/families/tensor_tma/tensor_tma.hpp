// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The thread map of tensor-tma: the one source of truth for how it maps threads to
// data. Its CUDA kernel, its CPU schedule, the Mapping, the diagrams and the traffic model all
// read these formulas (the conventions are in tilescope/thread_map.hpp).
#include "tilescope/thread_map.hpp"

namespace tilescope::maps {

// tensor-tma (issue 13, step 1 of the Hopper plan; the warp-specialised shape of CUTLASS's sm90
// GEMM and of fast.cu's kernels 4-5), and each block of tensor-persistent (below): a block of
// three warpgroups with fixed roles.
//   - Warpgroup 0 is the producer. Its thread 0 fills a stage with TMA bulk tensor copies
//     (cp.async.bulk.tensor through a tensor map with the 128-byte swizzle): one box of A (BM
//     rows of 64 k values) and BN/64 boxes of B (64 k rows of 64 columns), completing on the
//     stage's `full` mbarrier; past the matrix the copy engine writes zeros. When K or N is no
//     multiple of 8 a row of A or B is not 16-byte aligned and TMA cannot describe it: then the
//     producer warpgroup's 128 threads copy that operand element by element into the same bytes
//     (each the vectors aCopy()/bCopy() give it), and every producer thread arrives on `full`.
//     The copies below describe that work as the producer's threads moving 16-byte vectors, in
//     the order the copy engine moves whole 128-byte rows.
//   - Warpgroups 1 and 2 are the consumers: consumer c owns rows 64c .. 64c + 63 of the BM x BN
//     block tile and multiplies them with wgmma m64nBNk16 (BN = 256: the largest instruction),
//     four per k-step, reading both operands from the stage through descriptors; accumulator
//     layout as in tensor-wgmma. It waits on the stage's `full` barrier, keeps one wgmma batch in
//     flight and, once the batch of step s - 1 is done, each of its warps arrives on that
//     stage's `empty` barrier, which the producer waits on before refilling it.
// No block-wide barrier in the main loop. The producer gives registers back (setmaxnreg to 40;
// tensor-persistent's to 56) and the consumers take them (232; 224), so a consumer thread holds
// its BN/2 accumulators.
// Stage layout (1024-byte aligned): A as BM rows of 128 bytes, then B as BN/64 slabs of 64 k rows
// of 128 bytes, each 16-byte chunk c of row r of a 1024-byte atom at chunk c ^ (r % 8).
//
// The schedule is pipeline(): the producer warps, TMA fills handed over through mbarriers, one
// wgmma batch in flight; the producer fills k-step s once the consumers have released step
// s - stages (the stage's previous use).
template <typename Self>
struct WarpSpecialised : LadderBase<Self> {
  using LadderBase<Self>::bm;
  using LadderBase<Self>::bn;
  using LadderBase<Self>::bk;
  int stages;
  int elementBytes = 2;  // fp16 and bf16; 4 (tf32) in PersistentTf32, which transposes the tile

  static constexpr int kWarpgroupThreads = 128, kConsumerWarpgroups = 2, kConsumerRows = 64;
  static constexpr int kInstrK = 16, kAtomBytes = 1024, kRowBytes = 128;
  static constexpr int kSharedLimitBytes = 227 * 1024;  // one block's dynamic shared memory
  static constexpr int kBarrierBytes = 8;               // one mbarrier
  TS_HDC Self withElementBytes(int bytes) const {
    Self map = this->self();
    map.elementBytes = bytes;
    return map;
  }

  // Roles and the schedule: the producer warpgroup's copies fill each stage as soon as the
  // consumers free it, and a consumer's wgmma batch runs on into the next k-step.
  TS_HDC Pipeline pipeline() const {
    return {.stages = stages,
            .fill = StageFill::Tma,
            .handover = StageHandover::Mbarrier,
            .product = StageProduct::Wgmma,
            .mmaInFlight = 1,
            .producerWarps = kWarpgroupThreads / 32};
  }
  TS_HDC int threads() const { return (1 + kConsumerWarpgroups) * kWarpgroupThreads; }
  TS_HDC bool isProducer(int t) const { return t < pipeline().producerWarps * 32; }
  TS_HDC int consumerOf(int t) const { return t / kWarpgroupThreads - 1; }
  TS_HDC int firstOutputThread() const { return kWarpgroupThreads; }

  // Ownership: consumer c's warp w holds rows 64c + 16w + g and + 8, lane 4g + q columns 2q and
  // 2q + 1 of every 8-column chunk. Slot r: half r of the lane's rows; slot c: chunk c / 2,
  // column c % 2 of the lane's pair.
  TS_HDC std::int64_t rowsPerThread(std::int64_t = 0) const { return 2; }
  TS_HDC std::int64_t colsPerThread(std::int64_t = 0) const { return bn / 4; }
  TS_HDC int rowInBlock(int t, int r) const {
    return consumerOf(t) * kConsumerRows + t % kWarpgroupThreads / 32 * 16 + r * 8 + t % 32 / 4;
  }
  TS_HDC int colInBlock(int t, int c) const { return c / 2 * 8 + t % 32 % 4 * 2 + c % 2; }
  TS_HDC OwnerSlot slotOf(int i, int j) const {
    const int lane = i % 8 * 4 + j % 8 / 2;
    return {{}, {kWarpgroupThreads + i / 16 * 32 + lane, 0}, i % 16 / 8, j / 8 * 2 + j % 2};
  }

  // Copies: the producer warpgroup's, 16-byte vectors (8 elements). A row is 16-byte aligned,
  // which TMA needs, exactly when K (for A) or N (for B) is a multiple of 8.
  TS_HDC int copyWidth() const { return 16 / elementBytes; }
  TS_HDC TileCopy aCopy() const { return {bm, bk, copyWidth(), kWarpgroupThreads}; }
  TS_HDC TileCopy bCopy() const { return {bk, bn, copyWidth(), kWarpgroupThreads}; }
  TS_HDC bool aVectorCopies(std::int64_t k) const { return k % copyWidth() == 0; }
  TS_HDC bool bVectorCopies(std::int64_t n) const { return n % copyWidth() == 0; }
  TS_HDC bool vectorStores(std::int64_t n) const { return n % 2 == 0; }
  TS_HDC int storeWidth() const { return 2; }

  // Shared memory, in bytes (B's from the start of the B tile): the 128-byte swizzle inside
  // 1024-byte aligned atoms.
  static TS_HDC int swizzle(int offset) { return offset ^ ((offset >> 7 & 7) << 4); }
  TS_HDC int slabBytes() const { return bk * kRowBytes; }  // B: 64 columns of every k row
  TS_HDC int aByte(int m, int k, int = 0) const {
    return swizzle(m * kRowBytes + k * elementBytes);
  }
  TS_HDC int bByte(int k, int n, int = 0) const {
    const int columns = kRowBytes / elementBytes;
    return swizzle(n / columns * slabBytes() + k * kRowBytes + n % columns * elementBytes);
  }
  TS_HDC int aWord(int m, int k, int extraPad = 0) const { return aByte(m, k, extraPad) / 4; }
  TS_HDC int bWord(int k, int n, int extraPad = 0) const { return bByte(k, n, extraPad) / 4; }
  TS_HDC int aStageBytes() const { return bm * kRowBytes; }
  TS_HDC int stageBytes() const { return aStageBytes() + bk * bn * elementBytes; }
  // The stages, one atom for rounding the base up to 1024 bytes, and a full and an empty
  // mbarrier per stage.
  TS_HDC int sharedBytes() const {
    return stages * (stageBytes() + 2 * kBarrierBytes) + kAtomBytes;
  }
  TS_HDC int sharedWords() const { return sharedBytes() / 4; }
  // The warpgroups' instructions read shared memory themselves: no per-lane fragment reads.
  TS_HDC int fragmentReads(bool) const { return 0; }
  TS_HDC int instrK() const { return kInstrK; }
  TS_HDC int fragmentReadWidth() const { return 4; }
  TS_HDC Cell aFragment(int, int, int) const { return {}; }
  TS_HDC Cell bFragment(int, int, int) const { return {}; }

  constexpr TilingRule check() const {
    if (bm != kConsumerWarpgroups * kConsumerRows || bn % 64 != 0 || bn > 256)
      return TilingRule::TileDivides;
    if (bk * elementBytes != kRowBytes) return TilingRule::Fragments;
    if (sharedBytes() > kSharedLimitBytes) return TilingRule::SharedMemory;
    return this->checkCopies();
  }
};

struct Tma : WarpSpecialised<Tma> {
  static constexpr std::array<ParamAxis, 4> kAxes = {
      {{"BM", {128}, 1}, {"BN", {128, 256}, 2}, {"BK", {64}, 1}, {"stages", {3, 4, 5, 6}, 4}}};
  static constexpr Tma fromValues(const std::array<int, 4>& v) {
    return {{{v[0], v[1], v[2]}, v[3]}};
  }
  constexpr std::array<int, 4> values() const { return {bm, bn, bk, stages}; }
};

}  // namespace tilescope::maps

namespace tilescope::families::tensor_tma {
using Map = maps::Tma;
}  // namespace tilescope::families::tensor_tma
