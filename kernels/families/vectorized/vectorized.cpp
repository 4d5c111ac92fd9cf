// SPDX-License-Identifier: GPL-3.0-or-later
// vectorized: its catalogue entry, its thread map and its schedule on the CPU, registered once.

#include "families/vectorized/vectorized.hpp"
#include "cpu/block_tiling.hpp"
#include "families/registration.hpp"

namespace tilescope::families::vectorized {

namespace {

using namespace cpu;

// Blocktile-2d with float4 copies and a transposed, padded A tile (siboehm's kernels 6 and 8).
void runOnCpu(const Gemm& g, const Params& params, const std::atomic<bool>* cancel) {
  runLadder(g, ladderMap<maps::Vectorized>(params), cancel);
}

}  // namespace

void registerFamily(Registry& registry) {
  registry.add(
      {.info = {.id = "vectorized",
                .displayName = "Vectorized (float4, transposed A)",
                .seed = "siboehm SGEMM worklog, kernel 6 (vectorized memory access) with kernel "
                        "8's padding",
                .teaching =
                    "Blocktile-2d with every global copy a 16-byte float4 (a quarter of the load "
                    "instructions) and the A tile stored transposed, each row padded by 4 words: a "
                    "thread's TM values of A become consecutive words, read as float4s too, and "
                    "the padding spreads the transposing stores over all 32 banks. K or N not a "
                    "multiple of 4 takes a scalar edge path (rows no longer 16-byte aligned).",
                .params = ladderParams(
                    maps::Vectorized::fromValues({64, 128, 16, 8, 4}),
                    withBlock({{"TM", "rows of a thread's register tile (float4s)"},
                               {"TN", "columns of a thread's register tile (float4s)"}})),
                .backends = kCpuAndCuda,
                .constraints =
                    "threads = BM*BN/(TM*TN) in whole warps up to 1024; " + kEvenCopiesRule,
                .check = ladderCheck<maps::Vectorized>(),
                .hue = {"#fb479f", "#ef1b6d"}},
       .threadMap = ladderThreadMap<maps::Vectorized>,
       .runOnCpu = runOnCpu});
}

}  // namespace tilescope::families::vectorized
