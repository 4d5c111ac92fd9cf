// SPDX-License-Identifier: GPL-3.0-or-later
// Compiled with -ffp-contract=off (kernels/CMakeLists.txt): a multiply-add stays a rounded product
// and a rounded sum, so every instruction set gives the same bits.
#include "warp_simd.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <utility>

namespace tilescope::cpu {

std::vector<OutputRect> warpRects(
    int threads,
    const std::function<void(int thread, const std::function<void(int, int)>& add)>& outputsOf) {
  std::vector<OutputRect> warps;
  for (int first = 0; first < threads; first += 32) {
    std::vector<std::pair<int, int>> outputs;
    for (int t = first; t < std::min(first + 32, threads); ++t)
      outputsOf(t, [&](int row, int col) { outputs.emplace_back(row, col); });
    std::sort(outputs.begin(), outputs.end());
    // Runs of consecutive columns on one row, then runs of rows with the same columns.
    std::vector<OutputRect> runs;
    for (const auto& [row, col] : outputs) {
      if (!runs.empty() && runs.back().row == row && runs.back().col + runs.back().cols == col)
        ++runs.back().cols;
      else
        runs.push_back({row, 1, col, 1});
    }
    std::map<std::pair<int, int>, std::vector<OutputRect>> byColumns;  // keeps rows ascending
    for (const OutputRect& run : runs) {
      std::vector<OutputRect>& rects = byColumns[{run.col, run.cols}];
      if (!rects.empty() && rects.back().row + rects.back().rows == run.row)
        ++rects.back().rows;
      else
        rects.push_back(run);
    }
    for (auto& [columns, rects] : byColumns) warps.insert(warps.end(), rects.begin(), rects.end());
  }
  return warps;
}

namespace {

// Eight floats: one AVX register, or two SSE registers on the baseline.
typedef float Vec8 __attribute__((vector_size(32)));

// Eight floats from memory, any alignment.
#define TS_LOAD8(target, from)      \
  do {                              \
    Vec8 loaded;                    \
    std::memcpy(&loaded, from, 32); \
    target = loaded;                \
  } while (false)

// A Rows x (8 * Vectors) block of outputs, kept in registers for all `depth` inner indices (the
// loops over rows and vectors unrolled, so that the accumulators never touch memory).
template <int Rows, int Vectors>
[[gnu::always_inline]] inline void registerBlock(float* acc, std::ptrdiff_t accStride, Panel a,
                                                 const float* b, std::ptrdiff_t bKStride,
                                                 std::int64_t depth) {
  Vec8 sum[Rows][Vectors];
#pragma GCC unroll 4
  for (int r = 0; r < Rows; ++r)
#pragma GCC unroll 2
    for (int v = 0; v < Vectors; ++v) TS_LOAD8(sum[r][v], acc + r * accStride + 8 * v);
  for (std::int64_t kk = 0; kk < depth; ++kk) {
    Vec8 bRow[Vectors];
#pragma GCC unroll 2
    for (int v = 0; v < Vectors; ++v) TS_LOAD8(bRow[v], b + kk * bKStride + 8 * v);
#pragma GCC unroll 4
    for (int r = 0; r < Rows; ++r) {
      const float x = a.data[r * a.rowStride + kk * a.kStride];
      const Vec8 broadcast = {x, x, x, x, x, x, x, x};
#pragma GCC unroll 2
      for (int v = 0; v < Vectors; ++v) sum[r][v] += broadcast * bRow[v];
    }
  }
#pragma GCC unroll 4
  for (int r = 0; r < Rows; ++r)
#pragma GCC unroll 2
    for (int v = 0; v < Vectors; ++v) {
      const Vec8 result = sum[r][v];
      std::memcpy(acc + r * accStride + 8 * v, &result, 32);
    }
}
#undef TS_LOAD8

// Rows x cols outputs past the last whole vector, one column at a time.
template <int Rows>
[[gnu::always_inline]] inline void columnBlock(float* acc, std::ptrdiff_t accStride, int cols,
                                               Panel a, const float* b, std::ptrdiff_t bKStride,
                                               std::int64_t depth) {
  for (int j = 0; j < cols; ++j) {
    float sum[Rows];
#pragma GCC unroll 4
    for (int r = 0; r < Rows; ++r) sum[r] = acc[r * accStride + j];
    for (std::int64_t kk = 0; kk < depth; ++kk) {
      const float bValue = b[kk * bKStride + j];
#pragma GCC unroll 4
      for (int r = 0; r < Rows; ++r) sum[r] += a.data[r * a.rowStride + kk * a.kStride] * bValue;
    }
#pragma GCC unroll 4
    for (int r = 0; r < Rows; ++r) acc[r * accStride + j] = sum[r];
  }
}

// Rows rows of a strip of columns: 8 * Vectors of them, or the last few (Vectors = 0).
template <int Rows, int Vectors>
[[gnu::always_inline]] inline void band(float* acc, std::ptrdiff_t accStride, int cols, Panel a,
                                        const float* b, std::ptrdiff_t bKStride,
                                        std::int64_t depth) {
  if constexpr (Vectors > 0)
    registerBlock<Rows, Vectors>(acc, accStride, a, b, bKStride, depth);
  else
    columnBlock<Rows>(acc, accStride, cols, a, b, bKStride, depth);
}

// All rows of a strip of columns, four at a time.
template <int Vectors>
[[gnu::always_inline]] inline void columnStrip(float* acc, std::ptrdiff_t accStride, int rows,
                                               int cols, Panel a, const float* b,
                                               std::ptrdiff_t bKStride, std::int64_t depth) {
  int i = 0;
  for (; i + 4 <= rows; i += 4, a.data += 4 * a.rowStride)
    band<4, Vectors>(acc + i * accStride, accStride, cols, a, b, bKStride, depth);
  float* rest = acc + i * accStride;
  switch (rows - i) {
    case 3:
      return band<3, Vectors>(rest, accStride, cols, a, b, bKStride, depth);
    case 2:
      return band<2, Vectors>(rest, accStride, cols, a, b, bKStride, depth);
    case 1:
      return band<1, Vectors>(rest, accStride, cols, a, b, bKStride, depth);
    default:
      return;
  }
}

// The inner indices in chunks of kChunk, each chunk's B strip (kChunk x 8 * Vectors floats) kept
// in L1 while every row passes over it. An output's sum carries over from chunk to chunk, so it
// still adds its products in ascending k.
constexpr std::int64_t kChunk = 256;

template <int Vectors>
[[gnu::always_inline]] inline void multiplyAddWith(float* acc, std::ptrdiff_t accStride, int rows,
                                                   int cols, Panel a, const float* b,
                                                   std::ptrdiff_t bKStride, std::int64_t depth) {
  for (std::int64_t k0 = 0; k0 < depth; k0 += kChunk) {
    const std::int64_t chunk = std::min(kChunk, depth - k0);
    const Panel aChunk{a.data + k0 * a.kStride, a.rowStride, a.kStride};
    const float* bChunk = b + k0 * bKStride;
    int j = 0;
    for (; j + 8 * Vectors <= cols; j += 8 * Vectors)
      columnStrip<Vectors>(acc + j, accStride, rows, 8 * Vectors, aChunk, bChunk + j, bKStride,
                           chunk);
    if constexpr (Vectors > 1) {
      for (; j + 8 <= cols; j += 8)
        columnStrip<1>(acc + j, accStride, rows, 8, aChunk, bChunk + j, bKStride, chunk);
    }
    if (j < cols)
      columnStrip<0>(acc + j, accStride, rows, cols - j, aChunk, bChunk + j, bKStride, chunk);
  }
}

void multiplyAddBaseline(float* acc, std::ptrdiff_t accStride, int rows, int cols, Panel a,
                         const float* b, std::ptrdiff_t bKStride, std::int64_t depth) {
  multiplyAddWith<1>(acc, accStride, rows, cols, a, b, bKStride, depth);
}

#if defined(__x86_64__) && defined(__GNUC__)
// AVX2 without FMA: 16 registers of 8 floats hold a 4 x 16 block and a row of B.
[[gnu::target("avx2")]] void multiplyAddAvx2(float* acc, std::ptrdiff_t accStride, int rows,
                                             int cols, Panel a, const float* b,
                                             std::ptrdiff_t bKStride, std::int64_t depth) {
  multiplyAddWith<2>(acc, accStride, rows, cols, a, b, bKStride, depth);
}

using MultiplyAdd = void (*)(float*, std::ptrdiff_t, int, int, Panel, const float*, std::ptrdiff_t,
                             std::int64_t);
// Chosen once, at the first launch; __builtin_cpu_supports reports the OS's support of the AVX
// registers too.
MultiplyAdd multiplyAddForThisCpu() {
  static const MultiplyAdd chosen = [] {
    __builtin_cpu_init();  // may run before libgcc's own initialiser has
    return __builtin_cpu_supports("avx2") ? multiplyAddAvx2 : multiplyAddBaseline;
  }();
  return chosen;
}
#endif

}  // namespace

void multiplyAdd(float* acc, std::ptrdiff_t accStride, int rows, int cols, Panel a, const float* b,
                 std::ptrdiff_t bKStride, std::int64_t depth) {
  // Fewer columns than a vector (the lanes of a tiny block, or row-per-thread's warp down one
  // column): nothing to vectorise across, and no chunking pays for so little work.
  if (cols < 8) return columnStrip<0>(acc, accStride, rows, cols, a, b, bKStride, depth);
#if defined(__x86_64__) && defined(__GNUC__)
  multiplyAddForThisCpu()(acc, accStride, rows, cols, a, b, bKStride, depth);
#else
  multiplyAddBaseline(acc, accStride, rows, cols, a, b, bKStride, depth);
#endif
}

TileStaging::TileStaging(std::vector<ElementCopy> copies) {
  std::sort(copies.begin(), copies.end(), [](const ElementCopy& x, const ElementCopy& y) {
    return x.row != y.row ? x.row < y.row : x.col < y.col;
  });
  for (const ElementCopy& copy : copies) {
    lastRow_ = std::max(lastRow_, copy.row);
    lastCol_ = std::max(lastCol_, copy.col);
    if (!runs_.empty()) {
      Run& run = runs_.back();
      const bool follows = run.row == copy.row && run.col + run.length == copy.col;
      if (follows && run.length == 1) {
        run.wordStride = copy.word - run.word;
        ++run.length;
        continue;
      }
      if (follows && copy.word == run.word + run.length * run.wordStride) {
        ++run.length;
        continue;
      }
    }
    runs_.push_back({copy.row, copy.col, 1, copy.word, 1});
  }
}

void TileStaging::stage(float* tile, const float* matrix, std::int64_t rows, std::int64_t cols,
                        std::int64_t row0, std::int64_t col0) const {
  const bool inside = row0 + lastRow_ < rows && col0 + lastCol_ < cols;
  for (const Run& run : runs_) {
    const std::int64_t row = row0 + run.row, col = col0 + run.col;
    float* to = tile + run.word;
    // At the matrix's edges: zeros past them, as the kernels' guarded copies write.
    const int present = inside       ? run.length
                        : row < rows ? int(std::clamp<std::int64_t>(cols - col, 0, run.length))
                                     : 0;
    const float* from = present > 0 ? matrix + row * cols + col : nullptr;
    if (present == run.length && run.wordStride == 1) {
      for (int e = 0; e < run.length; ++e) to[e] = from[e];  // short: no call to memmove
      continue;
    }
    for (int e = 0; e < present; ++e) to[e * run.wordStride] = from[e];
    for (int e = present; e < run.length; ++e) to[e * run.wordStride] = 0.0f;
  }
}

float* blockScratch(std::size_t floats) {
  thread_local std::vector<float> scratch;
  if (scratch.size() < floats) scratch.resize(floats);
  return scratch.data();
}

}  // namespace tilescope::cpu
