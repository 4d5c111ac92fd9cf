// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the families' CPU schedules share (each family's own is in
// kernels/families/<name>/<name>.cpp). A schedule runs its family's GPU schedule: the blocks of the
// grid (spread over a pool of CPU threads), within a block the k-steps with their staging and
// barrier, and every index taken from the family's thread map. A block's shared tile is a local
// buffer its threads' copies fill before any warp reads it.
//
// A warp runs as SIMD (cpu/warp_simd.hpp): for each inner index its lanes' multiply-adds are
// vector operations over its outputs, as the GPU issues one instruction for 32 lanes, so a warp
// reads memory where its lanes do: the naive kernel's warp one row of B per k, row-per-thread's
// 32 rows of A, the tiled kernels small tiles that stay in L1. Each output still adds its
// products one at a time in ascending k: every kernel gives the bits of the serial loop.
#include <atomic>
#include <cstdint>
#include <functional>

#include "tilescope/catalogue.hpp"
#include "tilescope/thread_map.hpp"

namespace tilescope::cpu {

// The operands of one product, row-major, as a kernel sees its device buffers.
struct Gemm {
  const float* a = nullptr;  // M x K
  const float* b = nullptr;  // K x N
  float* c = nullptr;        // M x N
  std::int64_t m = 0, n = 0, k = 0;
};

// The most workers TILESCOPE_CPU_THREADS may ask for.
inline constexpr int kMaxWorkers = 1024;

// The threads a launch spreads its blocks over: TILESCOPE_CPU_THREADS when it is set to 1 to
// kMaxWorkers, else the cores this process may run on (its affinity, which Slurm, a container's
// cpuset or a grader's child narrows).
int workerThreads();

// The workers of `bytesEach` (their fiber stacks, say) a launch may start: workerThreads(), or
// fewer under an address-space limit (RLIMIT_AS: a grader's child), as many as half the room left
// under it holds with each worker's thread stack, and at least one.
int workersWithinAddressSpace(std::size_t bytesEach);

// Runs `work` on `participants` threads at once (at most workerThreads()), the calling thread
// among them, and returns when every call has returned; the first exception a call throws is
// rethrown. The other threads come from a pool kept for the life of the process. A launch made
// while another holds the pool (from another thread, or from inside `work`) runs on its caller
// alone.
void runOnWorkers(int participants, const std::function<void()>& work);

// The CPU's block scheduler: runs `blockBody` once for every block of `grid` on workerThreads()
// threads of the pool that take block indices from an atomic counter.
// Blocks are independent, as on the GPU. `cancel` is checked before each block; once it is set the
// launch stops early and throws Error(Cancelled).
void launchBlocks(Dim2 grid, const std::atomic<bool>* cancel,
                  const std::function<void(Dim2 block)>& blockBody);

// Calls fn(thread, linearIndex) for every thread of a block, in linear order (x fastest).
template <typename Fn>
void forEachThread(Dim2 blockShape, Fn&& fn) {
  for (int y = 0; y < blockShape.y; ++y)
    for (int x = 0; x < blockShape.x; ++x) fn(Dim2{x, y}, x + y * blockShape.x);
}

// The serial kernel's inner product: sum of a[k * aStride] * b[k * bStride] for k ascending,
// accumulated in float as the GPU kernels do.
inline float dot(const float* a, std::int64_t aStride, const float* b, std::int64_t bStride,
                 std::int64_t count) {
  float sum = 0.0f;
  for (std::int64_t k = 0; k < count; ++k) sum += a[k * aStride] * b[k * bStride];
  return sum;
}

// Every kernel takes the same arguments: `params` are the configuration's resolved parameters
// (empty for the kernels that have none: serial, library).
using KernelFn = void (*)(const Gemm& gemm, const Params& params, const std::atomic<bool>* cancel);

// The "tile" parameter of a single-tile kernel.
inline int tileParam(const Params& params) {
  return params.at("tile");
}

}  // namespace tilescope::cpu
