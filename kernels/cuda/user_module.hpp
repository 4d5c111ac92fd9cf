// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A user kernel compiled with NVRTC (user_kernel.hpp), loaded on the current device through the
// driver the runtime has loaded: its launch description evaluated on the GPU, the kernel launched
// on a product's operands.
#include <cuda.h>

#include "launch.hpp"
#include "tilescope/user_kernel.hpp"

namespace tilescope::cuda {

struct UserLaunch {
  Dim2 block, grid;
  int sharedBytes = 0;
  int kDepth = 1;  // TS_KSTEP, 1 where the source has none
  // TS_TENSOR_MAPS: the rows of A's and of B's boxes; 0 where the source declares no maps.
  int boxRowsA = 0, boxRowsB = 0;
  int cluster = 1;  // TS_CLUSTER: blocks per cluster, along x
  // The grid the pictures draw: `grid`, or a persistent kernel's tiles (TS_PERSISTENT), whose
  // launch is no more blocks than the GPU holds at once, residentBlocks (0: not persistent), and
  // no more than take the same rounds (maps::balancedClusters).
  Dim2 tiles{};
  int residentBlocks = 0;
};

class UserModule {
 public:
  // Throws Error(InvalidArgument) for a result that did not compile, and the CUDA error of a
  // module the driver refuses (an image for another architecture, ...).
  explicit UserModule(const CompileResult& compiled);
  ~UserModule();
  UserModule(const UserModule&) = delete;
  UserModule& operator=(const UserModule&) = delete;

  // TS_LAUNCH (and TS_KSTEP, TS_TENSOR_MAPS, TS_CLUSTER, TS_PERSISTENT) evaluated for `shape` on
  // one GPU thread; throws Error(InvalidArgument) naming the value when the block, grid or
  // cluster is not a valid launch.
  // Also raises the kernel's dynamic shared-memory limit where the launch asks for more than the
  // default 48 KiB.
  UserLaunch launchFor(const Shape& shape) const;
  // Registers, shared and local memory as the driver reads them from the loaded kernel (ptxas's
  // report is missing in a process that has initialised CUDA) and the launch's occupancy.
  KernelResources resources(const UserLaunch& launch) const;
  // Launches TS_KERNEL on fp32 operands; does not wait (a fault surfaces at the next sync).
  void launch(const ProductArgs& args, const UserLaunch& launch) const;
  // Launches a module compiled with CompileOptions::trace and waits: the owner of every element
  // of C, and up to `capacity` accesses (loads and shared words) of every thread of `block` (a
  // tile, in a persistent kernel) (the trace's kernel and device are the caller's to fill in).
  // Throws Error(InvalidArgument) for a block outside the grid (the tiles).
  KernelTrace trace(const ProductArgs& args, const UserLaunch& launch, Dim2 block,
                    int capacity) const;

 private:
  // `trace`: the device's ts::Trace of a traced launch, else null.
  void launchWith(const ProductArgs& args, const UserLaunch& launch, const void* trace) const;
  // The blocks of the kernel the GPU holds at once, in whole clusters.
  int residentBlocks(const UserLaunch& launch) const;

  CUmodule module_ = nullptr;
  CUfunction kernel_ = nullptr, launchShape_ = nullptr;
  CUfunction kStep_ = nullptr;       // TS_KSTEP, null where the source has none
  CUfunction tensorMaps_ = nullptr;  // TS_TENSOR_MAPS, null where the source has none
  CUfunction cluster_ = nullptr;     // TS_CLUSTER, likewise
  CUfunction persistent_ = nullptr;  // TS_PERSISTENT, likewise
};

}  // namespace tilescope::cuda
