// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The thread map of tensor-wgmma: the one source of truth for how it maps threads to
// data. Its CUDA kernel, its CPU schedule, the Mapping, the diagrams and the traffic model all
// read these formulas (the conventions are in tilescope/thread_map.hpp).
#include "tilescope/thread_map.hpp"

namespace tilescope::maps {

// tensor-wgmma (Hopper's warpgroup MMA, sm_90a): each warpgroup of 128 threads owns 64 rows of the
// BM x BN block tile and multiplies them with wgmma.mma_async, which reads both operands from
// shared memory through descriptors, 64 x 128 x 16 per instruction. The accumulators follow the
// mma layout: warp w of a warpgroup holds rows 16w .. 16w + 15 of its 64, lane 4g + q rows g and
// g + 8 and, in every 8-column chunk, columns 2q and 2q + 1. The stages hold A (BM x 64, 128-byte
// rows) and B (64 x BN, as 64-column by 8-row atoms) in the 128-byte swizzle wgmma reads: the
// 16-byte chunk c of row r of a 1024-byte atom is stored at chunk c ^ (r % 8).
struct Wgmma : LadderBase<Wgmma> {
  int stages;
  int elementBytes = 2;  // fp16 and bf16 only

  static constexpr int kWarpgroupRows = 64, kInstrN = 128, kInstrK = 16, kAtomBytes = 1024;
  static constexpr int kAtomCols = 64;  // 128 bytes of 16-bit elements
  static constexpr std::array<ParamAxis, 4> kAxes = {
      {{"BM", {128}, 1}, {"BN", {128, 256}, 2}, {"BK", {64}, 1}, {"stages", {3, 4}, 2}}};
  static constexpr Wgmma fromValues(const std::array<int, 4>& v) {
    return {{v[0], v[1], v[2]}, v[3]};
  }
  constexpr std::array<int, 4> values() const { return {bm, bn, bk, stages}; }
  TS_HDC Wgmma withElementBytes(int bytes) const {
    Wgmma map = *this;
    map.elementBytes = bytes;
    return map;
  }

  TS_HDC int warpgroups() const { return bm / kWarpgroupRows; }
  TS_HDC int threads() const { return warpgroups() * 128; }
  TS_HDC int instructionsN() const { return bn / kInstrN; }

  TS_HDC std::int64_t rowsPerThread(std::int64_t = 0) const { return 2; }
  TS_HDC std::int64_t colsPerThread(std::int64_t = 0) const { return bn / 4; }
  // Slot r: half r of the lane's rows; slot c: chunk c / 2, column c % 2 of the lane's pair.
  TS_HDC int rowInBlock(int t, int r) const {
    return t / 128 * kWarpgroupRows + t % 128 / 32 * 16 + r * 8 + t % 32 / 4;
  }
  TS_HDC int colInBlock(int t, int c) const { return c / 2 * 8 + t % 32 % 4 * 2 + c % 2; }
  TS_HDC OwnerSlot slotOf(int i, int j) const {
    const int lane = i % 8 * 4 + j % 8 / 2;
    return {{}, {i / 16 * 32 + lane, 0}, i % 16 / 8, j / 8 * 2 + j % 2};
  }

  // 16-byte copies (8 elements) while rows are 16-byte aligned, as in tensor-mma.
  TS_HDC int copyWidth() const { return 16 / elementBytes; }
  TS_HDC bool aVectorCopies(std::int64_t k) const { return k % copyWidth() == 0; }
  TS_HDC bool bVectorCopies(std::int64_t n) const { return n % copyWidth() == 0; }
  TS_HDC bool vectorStores(std::int64_t n) const { return n % 2 == 0; }
  TS_HDC int storeWidth() const { return 2; }

  // The 128-byte swizzle of a byte offset inside 1024-byte aligned atoms.
  static TS_HDC int swizzle(int offset) { return offset ^ ((offset >> 7 & 7) << 4); }
  // A: row m is 128 bytes (BK = 64), eight rows an atom. B: atom (k / 8, n / 64) holds 8 rows of
  // 64 columns; the atoms of one 8-row group lie side by side.
  TS_HDC int aByte(int m, int k, int = 0) const { return swizzle(m * 128 + k * elementBytes); }
  TS_HDC int bByte(int k, int n, int = 0) const {
    const int atom = k / 8 * (bn / kAtomCols) + n / kAtomCols;
    return swizzle(atom * kAtomBytes + k % 8 * 128 + n % kAtomCols * elementBytes);
  }
  TS_HDC int aWord(int m, int k, int extraPad = 0) const { return aByte(m, k, extraPad) / 4; }
  TS_HDC int bWord(int k, int n, int extraPad = 0) const { return bByte(k, n, extraPad) / 4; }
  TS_HDC int aStageBytes() const { return bm * 128; }
  TS_HDC int stageBytes() const { return aStageBytes() + bk * bn * elementBytes; }
  // The wgmma batch of k-step s runs on into the next iteration, so a stage is refilled two
  // k-steps after its use.
  TS_HDC Pipeline pipeline() const {
    return {stages, StageFill::CpAsync, StageHandover::Barrier, StageProduct::Wgmma, 1};
  }
  // One atom more than the stages: the kernel rounds its base up to a 1024-byte boundary.
  TS_HDC int sharedWords() const { return (stages * stageBytes() + kAtomBytes) / 4; }
  // The warpgroup's instructions read shared memory themselves: no per-lane fragment reads.
  TS_HDC int fragmentReads(bool) const { return 0; }
  TS_HDC int instrK() const { return kInstrK; }
  TS_HDC int fragmentReadWidth() const { return 4; }
  TS_HDC Cell aFragment(int, int, int) const { return {}; }
  TS_HDC Cell bFragment(int, int, int) const { return {}; }

  constexpr TilingRule check() const {
    if (bn % kInstrN != 0 || bm % kWarpgroupRows != 0) return TilingRule::TileDivides;
    if (bk * elementBytes != 128) return TilingRule::Fragments;
    return checkCopies();
  }
};

}  // namespace tilescope::maps

namespace tilescope::families::tensor_wgmma {
using Map = maps::Wgmma;
}  // namespace tilescope::families::tensor_wgmma
