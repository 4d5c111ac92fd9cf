// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The thread map of tensor-tf32: the one source of truth for how it maps threads to
// data. Its CUDA kernel, its CPU schedule, the Mapping, the diagrams and the traffic model all
// read these formulas (the conventions are in tilescope/thread_map.hpp).
#include "families/tensor_persistent/tensor_persistent.hpp"

namespace tilescope::maps {

// tensor-tf32 (issue 13): tensor-persistent's block, launch, tile order and clusters for tf32.
// wgmma reads a tf32 operand from shared memory only K-major, and row-major B is N-major; so each
// block computes its tile transposed, C^T = B^T A^T:
//   - A's stage (BM = 256 rows of BK = 32 k values: 128 bytes, swizzled as in tensor-tma) is the
//     instruction's second operand, read through descriptors K-major as it lies;
//   - B's stage (BK x BN, BN = 128: four slabs of 32 columns, swizzled) reaches the instruction
//     through registers, where any layout will do: before each 8-deep k-chunk every consumer
//     thread reads its four words of B from the stage (bFragment).
// Consumer c owns columns 64c .. 64c + 63 of the tile and all 256 rows, one m64n256k8 per
// k-chunk; its accumulator rows are columns of C and its accumulator columns rows of C. Lane
// 4g + q of warp w holds rows 8j + 2q and 8j + 2q + 1 (j = 0 .. 31) of columns column(w, g) and
// column(w, g + 8). Those columns are chosen so that a warp's 32 reads of B, four k rows by
// eight columns, hit 32 banks through the swizzle: g = 0 .. 3 and 4 .. 7 take two runs of four
// columns 16 apart (16-byte chunks 0 and 4 of a slab's row, XORed with k % 8 into distinct
// chunks); g + 8 the runs 4 further; warp w % 2 the next eight columns; warp w / 2 the next slab.
// So lanes 4g + q, g % 4 = 0 .. 3, hold eight neighbouring columns of their rows: a row's whole
// 32-byte sector of C, which they store in one instruction. (With a lane's columns eight apart and
// the next four columns in another warp, every sector of C took two partial stores.)
struct PersistentTf32 : PersistentOrder<PersistentTf32> {
  static constexpr int kInstrK = 8, kConsumerColumns = 64, kSlabColumns = 32;
  static constexpr std::array<ParamAxis, 6> kAxes = {{{"BM", {256}, 1},
                                                      {"BN", {128}, 1},
                                                      {"BK", {32}, 1},
                                                      {"stages", {3, 4}, 2},
                                                      {"cluster", {1, 2}, 2},
                                                      {"group", {8, 16}, 2}}};
  static constexpr PersistentTf32 fromValues(const std::array<int, 6>& v) {
    PersistentTf32 map{{{{v[0], v[1], v[2]}, v[3]}, v[4], v[5]}};
    map.elementBytes = 4;
    return map;
  }
  constexpr std::array<int, 6> values() const { return {bm, bn, bk, stages, cluster, group}; }

  // Accumulator row r (0 .. 63) of a consumer: the column of its 64 it stands for.
  static TS_HDC int columnOf(int r) {
    const int warp = r / 16, half = r % 16 / 8, g = r % 8;
    return warp / 2 * kSlabColumns + warp % 2 * 8 + half * 4 + g / 4 * 16 + g % 4;
  }
  // Ownership: slot r is row 8 (r / 2) + 2q + r % 2; slot c is column(w, 8c + g).
  TS_HDC std::int64_t rowsPerThread(std::int64_t = 0) const { return bm / 4; }
  TS_HDC std::int64_t colsPerThread(std::int64_t = 0) const { return 2; }
  TS_HDC int rowInBlock(int t, int r) const { return r / 2 * 8 + t % 32 % 4 * 2 + r % 2; }
  TS_HDC int colInBlock(int t, int c) const {
    return consumerOf(t) * kConsumerColumns +
           columnOf(t % kWarpgroupThreads / 32 * 16 + c * 8 + t % 32 / 4);
  }
  TS_HDC OwnerSlot slotOf(int i, int j) const {
    const int inSlab = j % kSlabColumns;
    const int warp = j % kConsumerColumns / kSlabColumns * 2 + inSlab / 8 % 2;
    const int g = inSlab / 16 * 4 + inSlab % 4;
    const int lane = g * 4 + i % 8 / 2;
    return {{},
            {kWarpgroupThreads * (1 + j / kConsumerColumns) + warp * 32 + lane, 0},
            i / 8 * 2 + i % 2,
            inSlab / 4 % 2};
  }
  // A thread's outputs are single floats (its two neighbouring values lie in one column).
  TS_HDC bool vectorStores(std::int64_t) const { return false; }
  TS_HDC int storeWidth() const { return 1; }

  // The consumers' reads of B: per k-chunk one word per fragment register, register `slot` at
  // k row q + 4 (slot / 2) and accumulator row 8 (slot % 2) + g; the producer reads nothing
  // (row -1). A is read by the instructions themselves.
  TS_HDC int instrK() const { return kInstrK; }
  // A consumer's wgmma, computing its 64 columns of the tile transposed: m64, n all BM rows.
  TS_HDC MmaShape mmaShape() const { return {kConsumerColumns, bm, kInstrK}; }
  TS_HDC int fragmentReads(bool a) const { return a ? 0 : 4; }
  TS_HDC int fragmentReadWidth() const { return 1; }
  TS_HDC Cell bFragment(int t, int slot, int chunk) const {
    if (isProducer(t)) return {-1, -1};
    const int lane = t % 32;
    return {chunk * kInstrK + lane % 4 + slot / 2 * 4,
            consumerOf(t) * kConsumerColumns +
                columnOf(t % kWarpgroupThreads / 32 * 16 + slot % 2 * 8 + lane / 4)};
  }

  constexpr TilingRule check() const {
    if (bm != 256 || bn != kConsumerWarpgroups * kConsumerColumns) return TilingRule::TileDivides;
    if (bk * elementBytes != kRowBytes) return TilingRule::Fragments;
    if (sharedBytes() > kSharedLimitBytes) return TilingRule::SharedMemory;
    return checkCopies();
  }
};

}  // namespace tilescope::maps

namespace tilescope::families::tensor_tf32 {
using Map = maps::PersistentTf32;
}  // namespace tilescope::families::tensor_tf32
