// SPDX-License-Identifier: GPL-3.0-or-later
// The CPU backend's warp machinery: a warp's multiply-adds as SIMD give a thread-by-thread loop's
// bits, a warp's outputs become rectangles, a tile's copies zero-fill past the matrix's edges.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "warp_simd.hpp"

namespace tilescope::cpu {
namespace {

std::vector<float> randomFloats(std::size_t count, unsigned seed) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> values(count);
  for (float& value : values) value = uniform(engine);
  return values;
}

// What each thread's loop computes: one rounded product and one rounded sum per k, k ascending.
// (This file is compiled without contraction into fused multiply-adds.)
void threadByThread(std::vector<float>& acc, int accStride, int rows, int cols, const float* a,
                    int aRowStride, int aKStride, const float* b, int bKStride, int depth) {
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) {
      float sum = acc[std::size_t(i * accStride + j)];
      for (int kk = 0; kk < depth; ++kk) {
        const float product = a[i * aRowStride + kk * aKStride] * b[kk * bKStride + j];
        sum += product;
      }
      acc[std::size_t(i * accStride + j)] = sum;
    }
}

TEST(WarpSimd, MultiplyAddGivesTheThreadLoopsBitsForEveryShape) {
  // Rows and columns around the 4-row bands and 8- and 16-wide vectors, depths across the
  // 256-deep chunks; A both row-major and transposed (the ladder's A tiles).
  for (const int rows : {1, 2, 3, 4, 5, 9})
    for (const int cols : {1, 3, 7, 8, 9, 16, 17, 33})
      for (const int depth : {1, 16, 257, 600})
        for (const bool transposed : {false, true}) {
          SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(cols) + ", depth " +
                       std::to_string(depth) + (transposed ? ", A transposed" : ""));
          const int accStride = cols + 3, bKStride = cols + 5;
          const int aRowStride = transposed ? 1 : depth + 2, aKStride = transposed ? rows + 1 : 1;
          const std::vector<float> a = randomFloats(std::size_t((rows + 1) * (depth + 2)), 1);
          const std::vector<float> b = randomFloats(std::size_t(depth * bKStride), 2);
          std::vector<float> expected = randomFloats(std::size_t(rows * accStride), 3);
          std::vector<float> simd = expected;
          threadByThread(expected, accStride, rows, cols, a.data(), aRowStride, aKStride, b.data(),
                         bKStride, depth);
          multiplyAdd(simd.data(), accStride, rows, cols, Panel{a.data(), aRowStride, aKStride},
                      b.data(), bKStride, depth);
          EXPECT_EQ(std::memcmp(simd.data(), expected.data(), simd.size() * sizeof(float)), 0);
        }
}

TEST(WarpSimd, AWarpCoversRectanglesOfItsLanesOutputs) {
  // A 7 x 7 block, one output per thread at (y, x): warp 0 is rows 0..3 and four lanes of row 4,
  // warp 1 the rest of row 4 and rows 5..6.
  const std::vector<OutputRect> rects =
      warpRects(49, [](int t, const auto& add) { add(t / 7, t % 7); });
  ASSERT_EQ(rects.size(), 4u);
  const auto expect = [](const OutputRect& rect, int row, int rows, int col, int cols) {
    EXPECT_EQ(rect.row, row);
    EXPECT_EQ(rect.rows, rows);
    EXPECT_EQ(rect.col, col);
    EXPECT_EQ(rect.cols, cols);
  };
  // Warp by warp, each warp's rectangles by their first column and width.
  expect(rects[0], 4, 1, 0, 4);
  expect(rects[1], 0, 4, 0, 7);
  expect(rects[2], 5, 2, 0, 7);
  expect(rects[3], 4, 1, 4, 3);
}

TEST(WarpSimd, AWarpOfAWarpGridIsOneRectangle) {
  // Warptile's lanes: a 4 x 8 grid of 2 x 4 pieces covers 8 x 32 outputs.
  const std::vector<OutputRect> rects = warpRects(32, [](int lane, const auto& add) {
    for (int r = 0; r < 2; ++r)
      for (int c = 0; c < 4; ++c) add(lane / 8 * 2 + r, lane % 8 * 4 + c);
  });
  ASSERT_EQ(rects.size(), 1u);
  EXPECT_EQ(rects[0].rows, 8);
  EXPECT_EQ(rects[0].cols, 32);
}

TEST(TileStaging, CopiesInsideAndZeroFillsPastTheEdges) {
  // A 2 x 3 tile stored transposed (word = col * 2 + row) from a 3 x 4 matrix.
  std::vector<TileStaging::ElementCopy> copies;
  for (int row = 0; row < 2; ++row)
    for (int col = 0; col < 3; ++col) copies.push_back({row, col, col * 2 + row});
  const TileStaging staging(copies);
  const std::vector<float> matrix = {0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23};
  std::vector<float> tile(6, -1.0f);
  staging.stage(tile.data(), matrix.data(), 3, 4, 1, 1);
  EXPECT_EQ(tile, (std::vector<float>{11, 21, 12, 22, 13, 23}));
  // Origin (2, 2): row 3 and column 4 lie past the matrix.
  staging.stage(tile.data(), matrix.data(), 3, 4, 2, 2);
  EXPECT_EQ(tile, (std::vector<float>{22, 0, 23, 0, 0, 0}));
}

}  // namespace
}  // namespace tilescope::cpu
