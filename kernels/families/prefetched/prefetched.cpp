// SPDX-License-Identifier: GPL-3.0-or-later
// prefetched: its catalogue entry, its thread map and its schedule on the CPU, registered once.

#include "families/prefetched/prefetched.hpp"
#include "cpu/block_tiling.hpp"
#include "families/registration.hpp"

namespace tilescope::families::prefetched {

namespace {

using namespace cpu;

// The warp grid with two shared buffers, tile s + 1 staged before tile s is multiplied (the
// CUDA kernel's register prefetch; the CPU keeps no registers apart from shared memory).
void runOnCpu(const Gemm& g, const Params& params, const std::atomic<bool>* cancel) {
  runLadder(g, ladderMap<maps::Prefetched>(params), cancel);
}

}  // namespace

void registerFamily(Registry& registry) {
  registry.add(
      {.info = {.id = "prefetched",
                .displayName = "Warp tiles, register prefetch",
                .seed = "CUTLASS's SIMT GEMM (128 x 128 x 8, warp 32 x 64, two stages); "
                        "Liu-xiandong's sgemm_v3 (fragments double-buffered in registers, 4 + 4 "
                        "float4 shared reads); cuBLAS's SIMT tile (256 x 128 x 8, warp 64 x 64)",
                .teaching =
                    "The warp grid with 4 x 4 lane pieces, so each inner index a thread reads its "
                    "values of A and B as 128-bit shared loads. The next k-step's tiles travel "
                    "from global memory into registers while the current one is multiplied and "
                    "land in a second shared buffer: one barrier per k-step. The fragments of "
                    "inner index kk + 1 are read while kk is multiplied. At 64 outputs a thread "
                    "keeps to 128 registers, so two blocks (16 warps) share an SM to hide latency; "
                    "at 128 outputs (cuBLAS's 256 x 128 tile) a thread takes up to 255 and one "
                    "block of 8 warps has the SM, so the next tile's first fragments are read "
                    "across the barrier, under the last multiply-adds.",
                .params = ladderParams(maps::Prefetched::fromValues({128, 128, 8, 32, 64, 4, 4}),
                                       kWarpDescriptions),
                .backends = kCpuAndCuda,
                .constraints =
                    "(BM/WM)*(BN/WN) = 4..8 warps; 4TM x 8TN divides WM x WN; " + kEvenCopiesRule,
                .check = ladderCheck<maps::Prefetched>(),
                .hue = {"#5695f3", "#87ebfe"}},
       .threadMap = ladderThreadMap<maps::Prefetched>,
       .runOnCpu = runOnCpu});
}

}  // namespace tilescope::families::prefetched
