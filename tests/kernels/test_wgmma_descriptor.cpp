// SPDX-License-Identifier: GPL-3.0-or-later
// The wgmma shared-memory descriptors' arithmetic (kernels/cuda/wgmma_descriptor.hpp), on the host.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cuda/wgmma_descriptor.hpp"
#include "families/tensor_fp8/tensor_fp8.hpp"
#include "families/tensor_tf32/tensor_tf32.hpp"

namespace tilescope::cuda {
namespace {

TEST(WgmmaDescriptor, HoldsTheStartAndOffsetsIn16ByteUnitsAnd128ByteSwizzle) {
  const std::uint64_t d = descriptorAt(0x1A2B0, 8192, 1024);
  EXPECT_EQ(d & 0x3FFF, 0x1A2Bu);
  EXPECT_EQ(d >> 16 & 0x3FFF, 8192u / 16);
  EXPECT_EQ(d >> 32 & 0x3FFF, 1024u / 16);
  EXPECT_EQ(d >> 62, 1u);
}

// multiplyStage and multiplyTransposed build a k-step's first descriptors and add the later
// instructions' byte steps to them. That must be the descriptor of the moved start wherever the
// operand lies in shared memory, for every step those kernels take.
TEST(WgmmaDescriptor, AStepAddedToTheFirstIsTheDescriptorOfTheMovedStart) {
  constexpr unsigned kSharedWindow = 228 * 1024;  // an H100's or H200's shared memory per SM
  using maps::Persistent, maps::PersistentFp8, maps::PersistentTf32;
  // A (and FP8's K-major B): k values along the 128-byte rows; N-major B: k rows down the slab.
  const std::vector<int> stepBytes = {Persistent::kInstrK * 2,
                                      Persistent::kInstrK * Persistent::kRowBytes,
                                      PersistentFp8::kInstrK * 1, PersistentTf32::kInstrK * 4};
  int mismatches = 0;
  std::string first;
  for (unsigned start = 0; start < kSharedWindow; start += 16)
    for (const int step : stepBytes)
      for (int kk = 1; kk < 4; ++kk) {
        const unsigned moved = start + unsigned(kk * step);
        if (moved >= kSharedWindow) continue;
        for (const int leading : {16, 8192})
          if (descriptorAfter(descriptorAt(start, leading, 1024), kk * step) !=
              descriptorAt(moved, leading, 1024)) {
            if (mismatches++ == 0)
              first = std::to_string(start) + " + " + std::to_string(kk * step);
          }
      }
  EXPECT_EQ(mismatches, 0) << "first at " << first;
}

// The bound the addition relies on: past 2^18 bytes the start would carry out of its 14-bit
// field, into the reserved bits between it and the leading offset.
TEST(WgmmaDescriptor, AStartPast2To18BytesWouldCarryOutOfItsField) {
  constexpr unsigned kLast = (1u << 18) - 16;
  const std::uint64_t stepped = descriptorAfter(descriptorAt(kLast, 16, 1024), 32);
  EXPECT_NE(stepped, descriptorAt(kLast + 32, 16, 1024));
  EXPECT_EQ(stepped >> 14 & 3, 1u);
}

}  // namespace
}  // namespace tilescope::cuda
