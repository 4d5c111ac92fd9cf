// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The thread map of tensor-mma: the one source of truth for how it maps threads to
// data. Its CUDA kernel, its CPU schedule, the Mapping, the diagrams and the traffic model all
// read these formulas (the conventions are in tilescope/thread_map.hpp).
#include "tilescope/thread_map.hpp"

namespace tilescope::maps {

// ---- Tensor cores -----------------------------------------------------------------------------
//
// mma.sync (sm_80 and up): a warp multiplies a 16 x kInstrK fragment of A by a kInstrK x 8
// fragment of B into a 16 x 8 FP32 accumulator spread over its 32 lanes; kInstrK is 32 bytes of
// the element type, 16 fp16 or bf16 values or 8 tf32. In the accumulator, lane 4g + q holds rows
// g and g + 8 and columns 2q and 2q + 1 (the fixed fragment layout of the PTX ISA).
inline constexpr int kFragmentRows = 16, kFragmentCols = 8, kFragmentKBytes = 32;

// tensor-mma (CUTLASS's sm80 multistage tensor-op GEMM): the BM x BN block tile is cut into
// (BM/WM) x (BN/WN) warp tiles as in warptile, and a warp covers its tile with (WM/16) x (WN/8)
// accumulators, so a lane owns 2(WM/16) rows and 2(WN/8) columns: slot r is fragment row r / 2,
// half r % 2; slot c is fragment column c / 2, column c % 2 of the lane's pair. `stages` shared
// buffers are filled by 16-byte cp.async copies (8 fp16 or 4 tf32 elements), A as BM x BK and B
// as BK x BN, rows padded so the fragment reads hit 32 distinct banks (padRowBytes).
struct TensorCore : LadderBase<TensorCore> {
  int wm, wn, stages;
  int elementBytes = 2;  // of A and B: 2 for fp16 and bf16, 4 for tf32 (not a parameter)

  static constexpr std::array<ParamAxis, 6> kAxes = {{{"BM", {64, 128}, 2},
                                                      {"BN", {128, 256}, 2},
                                                      {"BK", {32}, 1},
                                                      {"WM", {32, 64}, 2},
                                                      {"WN", {32, 64}, 2},
                                                      {"stages", {3, 4}, 2}}};
  static constexpr TensorCore fromValues(const std::array<int, 6>& v) {
    return {{v[0], v[1], v[2]}, v[3], v[4], v[5]};
  }
  constexpr std::array<int, 6> values() const { return {bm, bn, bk, wm, wn, stages}; }
  TS_HDC TensorCore withElementBytes(int bytes) const {
    TensorCore map = *this;
    map.elementBytes = bytes;
    return map;
  }

  // The warp grid and the accumulators of one warp.
  TS_HDC int warpsAlongN() const { return bn / wn; }
  TS_HDC int warps() const { return bm / wm * warpsAlongN(); }
  TS_HDC int threads() const { return warps() * 32; }
  TS_HDC int fragmentsM() const { return wm / kFragmentRows; }
  TS_HDC int fragmentsN() const { return wn / kFragmentCols; }
  TS_HDC int instrK() const { return kFragmentKBytes / elementBytes; }
  // The instruction each warp issues per accumulator and k-chunk.
  TS_HDC MmaShape mmaShape() const { return {kFragmentRows, kFragmentCols, instrK()}; }
  TS_HDC int warpRow(int t) const { return t / 32 / warpsAlongN() * wm; }
  TS_HDC int warpCol(int t) const { return t / 32 % warpsAlongN() * wn; }

  // Ownership (LadderBase turns these into rows, columns and owners).
  TS_HDC std::int64_t rowsPerThread(std::int64_t = 0) const { return 2 * fragmentsM(); }
  TS_HDC std::int64_t colsPerThread(std::int64_t = 0) const { return 2 * fragmentsN(); }
  TS_HDC int rowInBlock(int t, int r) const {
    return warpRow(t) + r / 2 * kFragmentRows + r % 2 * 8 + t % 32 / 4;
  }
  TS_HDC int colInBlock(int t, int c) const {
    return warpCol(t) + c / 2 * kFragmentCols + t % 32 % 4 * 2 + c % 2;
  }
  TS_HDC OwnerSlot slotOf(int i, int j) const {
    const int inWarpRow = i % wm, inWarpCol = j % wn;
    const int warp = i / wm * warpsAlongN() + j / wn;
    const int lane = inWarpRow % 8 * 4 + inWarpCol % 8 / 2;
    return {{},
            {warp * 32 + lane, 0},
            inWarpRow / kFragmentRows * 2 + inWarpRow % kFragmentRows / 8,
            inWarpCol / kFragmentCols * 2 + inWarpCol % 2};
  }

  // Copies: 16-byte vectors while the rows are 16-byte aligned (K, or N, a multiple of the
  // copy width), else element by element.
  TS_HDC int copyWidth() const { return 16 / elementBytes; }
  TS_HDC bool aVectorCopies(std::int64_t k) const { return k % copyWidth() == 0; }
  TS_HDC bool bVectorCopies(std::int64_t n) const { return n % copyWidth() == 0; }
  // The accumulator pairs (columns 2q, 2q + 1) go out as one 8-byte float2 when N is even.
  TS_HDC bool vectorStores(std::int64_t n) const { return n % 2 == 0; }
  TS_HDC int storeWidth() const { return 2; }

  // Shared memory, in bytes. A fragment read names rows 16 bytes wide at one k (ldmatrix), or
  // for tf32 one word per lane at rows g and columns q: a row pitch of 4 words mod 32 (A, and B
  // for 16-bit types) or 8 words mod 32 (tf32 B, read down its columns) spreads them over all
  // 32 banks.
  TS_HDC int aPitch(int extraPad = 0) const { return bk * elementBytes + 16 + 4 * extraPad; }
  TS_HDC int bPitch(int extraPad = 0) const {
    return bn * elementBytes + (elementBytes == 4 ? 32 : 16) + 4 * extraPad;
  }
  TS_HDC int aByte(int m, int k, int extraPad = 0) const {
    return m * aPitch(extraPad) + k * elementBytes;
  }
  TS_HDC int bByte(int k, int n, int extraPad = 0) const {
    return k * bPitch(extraPad) + n * elementBytes;
  }
  // The 4-byte word holding an element (the unit of the bank diagrams).
  TS_HDC int aWord(int m, int k, int extraPad = 0) const { return aByte(m, k, extraPad) / 4; }
  TS_HDC int bWord(int k, int n, int extraPad = 0) const { return bByte(k, n, extraPad) / 4; }
  // The words a staged row holds beyond its elements: its padding (A's, else B's).
  TS_HDC int rowPadWords(bool a) const {
    return ((a ? aPitch() : bPitch()) - (a ? bk : bn) * elementBytes) / 4;
  }
  TS_HDC int aStageBytes() const { return bm * aPitch(); }
  TS_HDC int stageBytes() const { return aStageBytes() + bk * bPitch(); }
  TS_HDC Pipeline pipeline() const {
    return {stages, StageFill::CpAsync, StageHandover::Barrier, StageProduct::MmaSync};
  }
  TS_HDC int sharedWords() const { return stages * stageBytes() / 4; }

  // Fragment reads of one k-chunk (instrK values of k). 16-bit types: read `slot` is one
  // ldmatrix.x4, over A fragment row `slot` or, transposed, over B fragment columns 2 slot and
  // 2 slot + 1; each lane names one 16-byte row of an 8 x 8 matrix (lanes 8i .. 8i + 7 the rows
  // of matrix i). tf32: one 4-byte read per fragment register, slot = fragment * 4 + register
  // for A and fragment * 2 + register for B.
  TS_HDC int fragmentReads(bool a) const {
    if (elementBytes == 2) return a ? fragmentsM() : fragmentsN() / 2;
    return a ? fragmentsM() * 4 : fragmentsN() * 2;
  }
  TS_HDC int fragmentReadWidth() const { return elementBytes == 2 ? 4 : 1; }
  // The element (block-tile row, k inside the step) of A that lane `lane` of thread t's warp
  // names in read `slot` of chunk `chunk`.
  TS_HDC Cell aFragment(int t, int slot, int chunk) const {
    const int lane = t % 32, k0 = chunk * instrK();
    if (elementBytes == 2)
      return {warpRow(t) + slot * kFragmentRows + lane % 16, k0 + lane / 16 * 8};
    const int fragment = slot / 4, reg = slot % 4;
    return {warpRow(t) + fragment * kFragmentRows + lane / 4 + reg % 2 * 8,
            k0 + lane % 4 + reg / 2 * 4};
  }
  // The element (k inside the step, block-tile column) of B.
  TS_HDC Cell bFragment(int t, int slot, int chunk) const {
    const int lane = t % 32, k0 = chunk * instrK();
    if (elementBytes == 2)
      return {k0 + lane % 16, warpCol(t) + slot * 2 * kFragmentCols + lane / 16 * 8};
    const int fragment = slot / 2, reg = slot % 2;
    return {k0 + lane % 4 + reg * 4, warpCol(t) + fragment * kFragmentCols + lane / 4};
  }

  constexpr TilingRule check() const {
    if (bm % wm != 0 || bn % wn != 0) return TilingRule::TileDivides;
    if (warps() < 4 || warps() > 8) return TilingRule::WarpCount;
    if (wm % kFragmentRows != 0 || wn % (2 * kFragmentCols) != 0 || bk % 16 != 0)
      return TilingRule::Fragments;
    // The widest copies (16-bit types) must split evenly; tf32's twice as many then do too.
    return checkCopies();
  }
};

}  // namespace tilescope::maps

namespace tilescope::families::tensor_mma {
using Map = maps::TensorCore;
}  // namespace tilescope::families::tensor_mma
