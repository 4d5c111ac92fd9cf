// SPDX-License-Identifier: GPL-3.0-or-later
// Theoretical occupancy counted by hand from the architectures' limits: threads, blocks,
// registers (per warp in units of 256, over four sub-partitions) and shared memory (in units of
// 128 bytes plus the driver's 1 KiB per block on sm_80 and later).
#include <gtest/gtest.h>

#include "tilescope/occupancy.hpp"

namespace tilescope {
namespace {

KernelResources kernel(int threads, int registers, std::int64_t shared) {
  KernelResources resources;
  resources.threadsPerBlock = threads;
  resources.registersPerThread = registers;
  resources.sharedBytesPerBlock = shared;
  return resources;
}

int blocks(const char* arch, int threads, int registers, std::int64_t shared) {
  const auto resident = withTheoreticalOccupancy(arch, kernel(threads, registers, shared));
  return resident ? resident->blocksPerSM : -1;
}

TEST(Occupancy, ThreadsAndBlocksBoundSmallKernels) {
  // sm_90: 2048 threads, 32 blocks; 256 threads of 32 registers: 8 blocks, every warp slot.
  const auto full = withTheoreticalOccupancy("sm_90", kernel(256, 32, 0));
  ASSERT_TRUE(full);
  EXPECT_EQ(full->blocksPerSM, 8);
  EXPECT_DOUBLE_EQ(full->occupancy, 1.0);
  EXPECT_EQ(blocks("sm_90", 32, 16, 0), 32);  // the block limit, a 64-warp SM half full
  EXPECT_DOUBLE_EQ(withTheoreticalOccupancy("sm_90", kernel(32, 16, 0))->occupancy, 0.5);
  EXPECT_EQ(blocks("sm_75", 256, 32, 0), 4);   // 1024 threads on Turing
  EXPECT_EQ(blocks("sm_86", 1024, 32, 0), 1);  // 1536 threads: one block of 1024
  // A block of 49 threads takes two warps.
  EXPECT_EQ(blocks("sm_90", 49, 32, 0), 32);
  EXPECT_DOUBLE_EQ(withTheoreticalOccupancy("sm_90", kernel(49, 32, 0))->occupancy, 1.0);
}

TEST(Occupancy, RegistersBoundPerWarpInUnitsAndSubPartitions) {
  // 64 registers: 2048 per warp, 16384 per quarter of the file hold 8 warps, 32 per SM: 4
  // blocks of 8 warps.
  EXPECT_EQ(blocks("sm_90", 256, 64, 0), 4);
  // 40 registers round up to 1280 per warp: a quarter holds 12 warps, the SM 48: 6 blocks.
  EXPECT_EQ(blocks("sm_90", 256, 40, 0), 6);
  // 255 registers: 8192 per warp, 2 per quarter, 8 per SM: one block of 256 threads.
  EXPECT_EQ(blocks("sm_90", 256, 255, 0), 1);
  // 1024 threads of 128 registers need 128K registers: it does not fit.
  EXPECT_EQ(blocks("sm_90", 1024, 128, 0), 0);
  EXPECT_EQ(withTheoreticalOccupancy("sm_90", kernel(1024, 128, 0))->occupancy, 0.0);
}

TEST(Occupancy, SharedMemoryBoundsWithTheDriversReserve) {
  // 48 KiB + 1 KiB reserved per block: 228 KiB hold 4 on sm_90.
  EXPECT_EQ(blocks("sm_90", 128, 32, 48 * 1024), 4);
  // 2 x 16 x 16 floats (2 KiB) + 1 KiB: 3 KiB, 76 blocks' worth: the threads bound it.
  EXPECT_EQ(blocks("sm_90", 256, 32, 2048), 8);
  // Turing has no reserve but 256-byte units: 16 KiB + 1 byte takes 16.25 KiB, 3 in 64 KiB.
  EXPECT_EQ(blocks("sm_75", 64, 32, 16 * 1024 + 1), 3);
  // More than an SM holds: it does not fit.
  EXPECT_EQ(blocks("sm_75", 64, 32, 65 * 1024), 0);
}

TEST(Occupancy, AnUnknownArchitectureOrNoBlockGivesNothing) {
  EXPECT_FALSE(withTheoreticalOccupancy("sm_52", kernel(256, 32, 0)));
  EXPECT_FALSE(withTheoreticalOccupancy("sm_90", kernel(0, 32, 0)));
}

}  // namespace
}  // namespace tilescope
