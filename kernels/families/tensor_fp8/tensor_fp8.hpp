// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The thread map of tensor-fp8: the one source of truth for how it maps threads to
// data. Its CUDA kernel, the Mapping, the diagrams and the traffic model all read these formulas
// (the conventions are in tilescope/thread_map.hpp).
#include "families/tensor_persistent/tensor_persistent.hpp"

namespace tilescope::maps {

// tensor-fp8 (issue 36): tensor-persistent's block, launch, tile order and clusters for FP8
// operands (E4M3 or E5M2, FP32 accumulation). wgmma reads FP8 operands from shared memory only
// K-major, so B is stored as its transpose (N rows of K values, storesBKMajor), as cuBLASLt's
// FP8 matmul also wants it:
//   - a stage holds A as BM rows of BK = 128 k values (128 bytes) and B as BN rows of 128 k
//     values, both in the 128-byte swizzle; the producer asks the copy engine for one box of A
//     and BN / 64 boxes of B (64 n rows each: a cluster's blocks load their share and multicast
//     it, as in tensor-persistent);
//   - consumer c multiplies its 64 rows with wgmma m64nBNk32, four per k-step, both operands
//     read through descriptors as they lie. Accumulators and stores are tensor-persistent's.
struct PersistentFp8 : PersistentOrder<PersistentFp8> {
  static constexpr bool kCopiesBAlongK = true;
  static constexpr int kInstrK = 32, kSlabRows = 64;
  static constexpr std::array<ParamAxis, 6> kAxes = {{{"BM", {128}, 1},
                                                      {"BN", {128, 256}, 2},
                                                      {"BK", {128}, 1},
                                                      {"stages", {4, 6}, 2},
                                                      {"cluster", {1, 2}, 2},
                                                      {"group", {8, 16}, 2}}};
  static constexpr PersistentFp8 fromValues(const std::array<int, 6>& v) {
    PersistentFp8 map{{{{v[0], v[1], v[2]}, v[3]}, v[4], v[5]}};
    map.elementBytes = 1;
    return map;
  }
  constexpr std::array<int, 6> values() const { return {bm, bn, bk, stages, cluster, group}; }

  TS_HDC int instrK() const { return kInstrK; }
  // B's copies: BN rows (n) of BK k values, 16-byte vectors along k.
  TS_HDC TileCopy bCopy() const { return {bn, bk, copyWidth(), kWarpgroupThreads}; }
  TS_HDC Cell bLoad(Dim2 b, Dim2 t, std::int64_t s, int instr) const {
    const Cell at = bCopy().at(t.x, instr);
    return {s * bk + at.col, std::int64_t(b.x) * bn + at.row};
  }
  // TMA needs 16-byte aligned rows, and both operands' rows are K long: tensor-fp8 refuses K no
  // multiple of 16 (as cuBLASLt does), so its copies are always whole 16-byte vectors.
  TS_HDC bool aVectorCopies(std::int64_t) const { return true; }
  TS_HDC bool bVectorCopies(std::int64_t) const { return true; }
  // B's tile in shared memory: n rows of 128 bytes, like A's.
  TS_HDC int slabBytes() const { return kSlabRows * kRowBytes; }
  TS_HDC int bByte(int k, int n, int = 0) const { return swizzle(n * kRowBytes + k); }
  TS_HDC int bWord(int k, int n, int extraPad = 0) const { return bByte(k, n, extraPad) / 4; }

  constexpr TilingRule check() const {
    if (bm != kConsumerWarpgroups * kConsumerRows || bn % kSlabRows != 0 || bn > 256)
      return TilingRule::TileDivides;
    if (bk * elementBytes != kRowBytes) return TilingRule::Fragments;
    if (sharedBytes() > kSharedLimitBytes) return TilingRule::SharedMemory;
    return checkCopies();
  }
};

}  // namespace tilescope::maps

namespace tilescope::families::tensor_fp8 {
using Map = maps::PersistentFp8;
}  // namespace tilescope::families::tensor_fp8
