// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The CPU's roofline ceilings: OpenBLAS sgemm for the arithmetic rate, a copy spread over every
// core for the memory bandwidth. The sizes are a parameter so tests can measure small and fast.
#include <atomic>
#include <cstdint>
#include <string>

#include "tilescope/backend.hpp"
#include "tilescope/ceilings.hpp"
#include "tilescope/measurement.hpp"

namespace tilescope::cpu {

struct CeilingPlan {
  // About 35 ms of sgemm on two cores: large enough for OpenBLAS to reach its peak, small enough
  // that the whole measurement takes about a second.
  std::int64_t gemmSize = 1536;
  // Far larger than any last-level cache, so the copy streams from and to DRAM.
  std::int64_t copyBytes = std::int64_t(256) << 20;
  SamplingPolicy sampling{
      .warmups = 1, .minReps = 10, .maxReps = 100, .budgetMs = 600, .fixedReps = std::nullopt};
};

// Throws Error(OutOfMemory) when the buffers cannot be allocated, Error(Cancelled) when
// `cancel` is set between repetitions.
DeviceCeilings measureCeilings(const std::string& device, const CeilingPlan& plan,
                               const ProgressFn& progress, const std::atomic<bool>* cancel);

}  // namespace tilescope::cpu
