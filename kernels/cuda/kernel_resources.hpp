// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What a kernel variant takes from an SM and how many of its blocks fit on one: RunResult's
// resources, read from the CUDA runtime for the exact instantiation a configuration launches.
#include <cstddef>
#include <optional>

#include "launch.hpp"
#include "tilescope/backend.hpp"

namespace tilescope::cuda {

// One launch as a launch function would make it.
struct LaunchPlan {
  const void* kernel = nullptr;
  Dim2 grid, block;
  std::size_t dynamicSharedBytes = 0;
  Dim2 cluster;  // thread-block cluster shape; 1 x 1: no cluster
};

// While a LaunchProbe lives, the launch functions on its thread record their launch in it
// instead of launching, so the backend learns which instantiation a configuration picks.
class LaunchProbe {
 public:
  LaunchProbe();
  ~LaunchProbe();
  LaunchProbe(const LaunchProbe&) = delete;
  LaunchProbe& operator=(const LaunchProbe&) = delete;

  // The calling thread's innermost probe, or nullptr.
  static LaunchProbe* active();
  void record(const LaunchPlan& plan) { plan_ = plan; }
  const std::optional<LaunchPlan>& plan() const { return plan_; }

 private:
  std::optional<LaunchPlan> plan_;
  LaunchProbe* outer_;
};

// The launch a hand-written kernel's configuration makes on these arguments, without launching.
LaunchPlan plannedLaunch(const ResolvedKernel& kernel, const ProductArgs& args);

// Registers, shared and local memory (cudaFuncGetAttributes) and the theoretical occupancy
// (cudaOccupancyMaxActiveBlocksPerMultiprocessor) of a planned launch on the current device.
KernelResources resourcesOf(const LaunchPlan& plan);

// The same from a kernel's own figures, however they were read (the runtime's, or the driver's
// for a user kernel): its registers per thread, static shared and local bytes, and the blocks of
// `threads` threads with `dynamicSharedBytes` each that fit on one SM of the current device.
KernelResources residentResources(int registers, std::int64_t staticSharedBytes,
                                  std::int64_t localBytes, int threads,
                                  std::size_t dynamicSharedBytes, int blocksPerSM);

}  // namespace tilescope::cuda
