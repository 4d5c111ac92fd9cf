// SPDX-License-Identifier: GPL-3.0-or-later
#include "tilescope/occupancy.hpp"

#include <algorithm>

namespace tilescope {
namespace {

// An SM's limits (CUDA C++ Programming Guide, "Technical Specifications per Compute
// Capability"; the register and shared-memory allocation rules of cuda_occupancy.h).
struct SmLimits {
  int maxThreads = 2048, maxBlocks = 32;
  int registers = 65536, maxRegistersPerThread = 255;
  int sharedBytes = 0;     // the largest carveout, which the default preference may take
  int reservedShared = 0;  // the driver's own shared memory per block
  int sharedGranularity = 128;
};

std::optional<SmLimits> limitsOf(const std::string& arch) {
  if (arch == "sm_75") return SmLimits{1024, 16, 65536, 255, 64 * 1024, 0, 256};
  if (arch == "sm_80") return SmLimits{2048, 32, 65536, 255, 164 * 1024, 1024, 128};
  if (arch == "sm_86" || arch == "sm_89")
    return SmLimits{1536, arch == "sm_86" ? 16 : 24, 65536, 255, 100 * 1024, 1024, 128};
  if (arch == "sm_90" || arch == "sm_90a")
    return SmLimits{2048, 32, 65536, 255, 228 * 1024, 1024, 128};
  return std::nullopt;
}

constexpr int kWarp = 32;
constexpr int kRegisterUnit = 256;  // registers are given to a warp in units of this many
constexpr int kSubPartitions = 4;   // each holds a quarter of the register file

int roundUp(int value, int unit) {
  return (value + unit - 1) / unit * unit;
}

}  // namespace

std::optional<KernelResources> withTheoreticalOccupancy(const std::string& arch,
                                                        KernelResources resources) {
  const std::optional<SmLimits> sm = limitsOf(arch);
  if (!sm || resources.threadsPerBlock < 1) return std::nullopt;
  const int warps = (resources.threadsPerBlock + kWarp - 1) / kWarp;
  int blocks = std::min(sm->maxBlocks, sm->maxThreads / kWarp / warps);

  // Registers go to warps, and a warp's to one sub-partition: the SM holds as many warps as
  // the four quarters of its register file hold each.
  const int perWarp = roundUp(resources.registersPerThread * kWarp, kRegisterUnit);
  if (resources.registersPerThread > sm->maxRegistersPerThread ||
      perWarp * roundUp(warps, kSubPartitions) > sm->registers)
    blocks = 0;
  else if (perWarp > 0)
    blocks = std::min(blocks, sm->registers / kSubPartitions / perWarp * kSubPartitions / warps);

  const int shared =
      roundUp(int(resources.sharedBytesPerBlock) + sm->reservedShared, sm->sharedGranularity);
  if (shared > sm->sharedBytes)
    blocks = 0;
  else if (shared > 0)
    blocks = std::min(blocks, sm->sharedBytes / shared);

  resources.blocksPerSM = blocks;
  resources.occupancy = double(blocks * warps) / double(sm->maxThreads / kWarp);
  return resources;
}

}  // namespace tilescope
