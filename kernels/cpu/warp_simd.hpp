// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A warp's lanes as the CPU's SIMD lanes. On the GPU the 32 lanes of a warp execute each
// instruction together; here a warp's multiply-adds for one inner index run as vector operations
// over its outputs, one warp after another, so a lane's loop costs no call, bounds check or index
// arithmetic per element. Every output still sums its products one at a time, in ascending k, a
// rounded product then a rounded add (no fused multiply-add): the result is bit for bit the one
// a thread-by-thread loop gives, on every CPU.
//
// Which outputs a warp owns and where its operands lie comes from the family's thread map, read
// once per launch into the plans below; a block then runs them.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "tilescope/error.hpp"
#include "tilescope/thread_map.hpp"

namespace tilescope::cpu {

// Outputs rows x cols at (row, col) of a block's tile of C, owned by the lanes of one warp.
struct OutputRect {
  int row = 0, rows = 0, col = 0, cols = 0;
};

// The outputs of a block's warps as rectangles, warp after warp: `outputsOf(thread, add)` calls
// add(row, col) for every output of that thread (coordinates inside the block's tile). Warps are 32
// consecutive threads. A warp whose lanes cover a rectangle (the usual case) gets one; others get
// a few.
std::vector<OutputRect> warpRects(
    int threads,
    const std::function<void(int thread, const std::function<void(int, int)>& add)>& outputsOf);

// Element (i, kk) of an operand at data[i * rowStride + kk * kStride].
struct Panel {
  const float* data = nullptr;
  std::ptrdiff_t rowStride = 0, kStride = 0;
};

// Where a warp reads a shared tile: element (i, kk) at word origin + i * rowStride + kk * kStride,
// the strides of the family's word formula (its layout, transposed or padded).
struct TileReads {
  int origin = 0;
  std::ptrdiff_t rowStride = 0, kStride = 0;
  Panel panel(const float* tile, int row) const {
    return {tile + origin + row * rowStride, rowStride, kStride};
  }
  // A warp's lanes read consecutive words along the vectorised index (B's columns).
  void requireUnitRowStride() const {
    if (rowStride != 1)
      throw Error(ErrorKind::Unsupported,
                  "the CPU backend needs the tile's columns in consecutive words");
  }
};

// The strides of wordOf(i, kk) over a rows x depth tile, checked at every element.
template <typename WordOf>
TileReads tileReads(int rows, int depth, WordOf wordOf) {
  TileReads reads{wordOf(0, 0), 0, 0};
  reads.rowStride = rows > 1 ? wordOf(1, 0) - reads.origin : 1;
  reads.kStride = depth > 1 ? wordOf(0, 1) - reads.origin : 0;
  for (int i = 0; i < rows; ++i)
    for (int kk = 0; kk < depth; ++kk)
      if (wordOf(i, kk) != reads.origin + i * reads.rowStride + kk * reads.kStride)
        throw Error(ErrorKind::Unsupported,
                    "the CPU backend needs a shared tile whose word is linear in row and k");
  return reads;
}

// acc[i * accStride + j] += a(i, kk) * b[kk * bKStride + j] for i < rows, j < cols and kk from 0
// to depth - 1 in that order. Vectorised over j (a warp's lanes along a row).
void multiplyAdd(float* acc, std::ptrdiff_t accStride, int rows, int cols, Panel a, const float* b,
                 std::ptrdiff_t bKStride, std::int64_t depth);

// `rect` clipped to the first `rows` x `cols` outputs of the tile (the part of C that exists).
inline OutputRect clipped(OutputRect rect, std::int64_t rows, std::int64_t cols) {
  if (rect.row + rect.rows > rows) rect.rows = int(std::max<std::int64_t>(0, rows - rect.row));
  if (rect.col + rect.cols > cols) rect.cols = int(std::max<std::int64_t>(0, cols - rect.col));
  return rect;
}

// How a block's threads copy a tile from a row-major matrix into shared memory, as runs: `length`
// consecutive elements of one source row (row, col relative to the tile's origin in the matrix)
// landing at words word, word + wordStride, ... Built from every thread's copies once per launch.
class TileStaging {
 public:
  struct ElementCopy {
    int row, col, word;  // source element relative to the tile origin, and its word in the tile
  };
  explicit TileStaging(std::vector<ElementCopy> copies);

  // Copies the tile whose origin is (row0, col0) of a rows x cols matrix into `tile`; elements
  // past the matrix's edges become zeros.
  void stage(float* tile, const float* matrix, std::int64_t rows, std::int64_t cols,
             std::int64_t row0, std::int64_t col0) const;

 private:
  struct Run {
    int row, col, length, word, wordStride;
  };
  std::vector<Run> runs_;
  int lastRow_ = -1, lastCol_ = -1;  // the furthest source element, relative to the origin
};

// Scratch memory of the calling thread, at least `floats` long and kept between blocks (a block's
// shared tiles and accumulators), so that a block allocates nothing. Its contents are undefined.
float* blockScratch(std::size_t floats);

}  // namespace tilescope::cpu
