// SPDX-License-Identifier: GPL-3.0-or-later
// How fast SMs store to global memory, the bound on a tile's epilogue (docs/benchmarks.md, "What
// the stores of C are made of"): each block writes one 128 x 256 float tile (128 KiB, rows N
// floats apart as in C) over and over, so the writes stay in L2, and times itself with the SM's
// cycle counter. Printed as a Markdown table for 1 block, half the SMs and every SM, in two
// store patterns: whole 128-byte lines (8 lanes a row, a warp four rows), and the rows of 64
// bytes that tensor-persistent's wgmma accumulators store (a warp eight rows).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

constexpr int kTileRows = 128, kTileCols = 256, kRowFloats = 4096, kRepeats = 20;
constexpr double kTileBytes = double(kTileRows) * kTileCols * 4;

enum class Pattern { WholeLines, WgmmaRows };

void check(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return;
  std::fprintf(stderr, "tilescope_store_rate: %s: %s\n", what, cudaGetErrorString(status));
  std::exit(1);
}

// A tile is 256 pieces of 512 bytes, one warp store each: 4 rows x 32 floats (whole lines) or
// 8 rows x 16 floats (wgmma rows: lane 4g + q stores columns 4q .. 4q + 3 of row g).
template <Pattern kPattern>
__global__ void storeTiles(float4* c, long long* cycles) {
  float4* const tile = c + std::size_t(blockIdx.x) * kTileRows * kRowFloats / 4;
  const int lane = int(threadIdx.x) % 32, warp = int(threadIdx.x) / 32, warps = blockDim.x / 32;
  float4 value = make_float4(float(threadIdx.x), 0, 0, 0);
  __syncthreads();
  const long long start = clock64();
  for (int repeat = 0; repeat < kRepeats; ++repeat) {
    value.y += 1;  // a new value each time: no store is redundant
    for (int piece = warp; piece < 256; piece += warps) {
      const bool lines = kPattern == Pattern::WholeLines;
      const int row = lines ? piece / 8 * 4 + lane / 8 : piece / 16 * 8 + lane / 4;
      const int col = lines ? piece % 8 * 32 + lane % 8 * 4 : piece % 16 * 16 + lane % 4 * 4;
      tile[(row * kRowFloats + col) / 4] = value;
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) cycles[blockIdx.x] = clock64() - start;
}

struct Rate {
  double bytesPerCycle = 0;  // per block, the mean over the blocks
  double slowestPerCycle = 0;
  double terabytesPerSecond = 0;  // all blocks together, by CUDA events
};

Rate measure(Pattern pattern, int blocks, int threads, float4* c, long long* cycles) {
  const auto launch = [&] {
    if (pattern == Pattern::WholeLines)
      storeTiles<Pattern::WholeLines><<<blocks, threads>>>(c, cycles);
    else
      storeTiles<Pattern::WgmmaRows><<<blocks, threads>>>(c, cycles);
  };
  launch();  // warm-up: the tiles' lines come into L2
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  check(cudaEventRecord(start), "cudaEventRecord");
  launch();
  check(cudaEventRecord(stop), "cudaEventRecord");
  check(cudaEventSynchronize(stop), "the launch");
  float ms = 0;
  check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::vector<long long> spent(std::size_t(blocks), 0);
  check(cudaMemcpy(spent.data(), cycles, spent.size() * sizeof(long long), cudaMemcpyDeviceToHost),
        "cudaMemcpy");
  double mean = 0;
  for (long long s : spent) mean += double(s) / blocks;
  const double slowest = double(*std::max_element(spent.begin(), spent.end()));
  const double bytes = kTileBytes * kRepeats;
  return {bytes / mean, bytes / slowest, bytes * blocks / (double(ms) * 1e-3) / 1e12};
}

}  // namespace

int main() {
  cudaDeviceProp properties{};
  check(cudaGetDeviceProperties(&properties, 0), "cudaGetDeviceProperties");
  const int sms = properties.multiProcessorCount;
  float4* c = nullptr;
  long long* cycles = nullptr;
  check(cudaMalloc(&c, std::size_t(sms) * kTileRows * kRowFloats * 4), "cudaMalloc");
  check(cudaMalloc(&cycles, std::size_t(sms) * sizeof(long long)), "cudaMalloc");
  std::printf("%s, %d SMs: each block stores a 128 KiB tile %d times (L2-resident)\n\n",
              properties.name, sms, kRepeats);
  std::printf(
      "| pattern | threads | blocks | bytes a cycle per SM (slowest) | all blocks, TB/s |\n");
  std::printf("| --- | ---: | ---: | ---: | ---: |\n");
  for (Pattern pattern : {Pattern::WholeLines, Pattern::WgmmaRows})
    for (int threads : {256, 128})
      for (int blocks : {1, sms / 2, sms}) {
        const Rate rate = measure(pattern, blocks, threads, c, cycles);
        std::printf(
            "| %s | %d | %d | %.1f (%.1f) | %.2f |\n",
            pattern == Pattern::WholeLines ? "whole 128-byte lines" : "wgmma rows (64 bytes)",
            threads, blocks, rate.bytesPerCycle, rate.slowestPerCycle, rate.terabytesPerSecond);
      }
  cudaFree(c);
  cudaFree(cycles);
  return 0;
}
