// SPDX-License-Identifier: GPL-3.0-or-later
// How fast SMs store to global memory, the bound on a tile's epilogue (docs/performance.md, "What
// the stores of C are made of"): each storing block writes one 128 x 256 float tile (128 KiB, rows
// N floats apart as in C) over and over, so the writes stay in L2, and times itself with the SM's
// cycle counter. The first table stores from 1 SM, half the SMs and every SM, in two patterns:
// whole 128-byte lines (8 lanes a row, a warp four rows) and the rows of 64 bytes that
// tensor-persistent's wgmma accumulators store (a warp eight rows). The second has half the SMs
// store while the other half load from L2, as the other tiles' k-steps would, then every SM
// loading alone and storing alone. Markdown tables; a CUDA error ends it with the message.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <utility>
#include <vector>

#include "device_memory.hpp"
#include "tilescope/error.hpp"

namespace {

using tilescope::cuda::check;
using tilescope::cuda::DeviceBuffer;

constexpr int kTileRows = 128, kTileCols = 256, kRowFloats = 4096, kRepeats = 20;
constexpr double kTileBytes = double(kTileRows) * kTileCols * 4;
// Loading blocks read their own 256 KiB again and again, about as long as a block stores.
constexpr int kLoadFloat4s = 256 * 1024 / 16, kLoadPasses = 16;
// More than half an SM's shared memory: one block an SM, so that each role has its own SMs.
constexpr int kOneBlockPerSmBytes = 120 * 1024;

enum class Pattern { WholeLines, WgmmaRows };

// Blocks 0 .. storers - 1 store a tile each, `kRepeats` times: 256 pieces of 512 bytes, one warp
// store each, 4 rows x 32 floats (whole lines) or 8 rows x 16 floats (wgmma rows: lane 4g + q
// stores columns 4q .. 4q + 3 of row g). The blocks after them load 256 KiB each, kLoadPasses
// times. Each block's cycles go to cycles[blockIdx.x].
template <Pattern kPattern>
__global__ void storeAndLoad(float4* c, int storers, const float4* loaded, float* sink,
                             long long* cycles) {
  const int lane = int(threadIdx.x) % 32, warp = int(threadIdx.x) / 32, warps = blockDim.x / 32;
  const bool stores = int(blockIdx.x) < storers;
  float4 value = make_float4(float(threadIdx.x), 0, 0, 0);
  __syncthreads();
  const long long start = clock64();
  if (stores) {
    float4* const tile = c + std::size_t(blockIdx.x) * kTileRows * kRowFloats / 4;
    for (int repeat = 0; repeat < kRepeats; ++repeat) {
      value.y += 1;  // a new value each time: no store is redundant
      for (int piece = warp; piece < 256; piece += warps) {
        const bool lines = kPattern == Pattern::WholeLines;
        const int row = lines ? piece / 8 * 4 + lane / 8 : piece / 16 * 8 + lane / 4;
        const int col = lines ? piece % 8 * 32 + lane % 8 * 4 : piece % 16 * 16 + lane % 4 * 4;
        tile[(row * kRowFloats + col) / 4] = value;
      }
    }
  } else {
    const float4* const mine = loaded + std::size_t(int(blockIdx.x) - storers) * kLoadFloat4s;
    // Sixteen loads in flight a thread, 64 KiB an SM (the k-steps keep up to four 48 KiB stages).
    constexpr int kInFlight = 16;
    float4 read[kInFlight];
    for (int pass = 0; pass < kLoadPasses; ++pass)
      for (int i = int(threadIdx.x); i < kLoadFloat4s; i += kInFlight * int(blockDim.x)) {
#pragma unroll
        for (int f = 0; f < kInFlight; ++f) read[f] = __ldcg(mine + i + f * int(blockDim.x));
#pragma unroll
        for (int f = 0; f < kInFlight; ++f)
          value.x += read[f].x + read[f].y + read[f].z + read[f].w;
      }
  }
  __syncthreads();
  if (threadIdx.x == 0) cycles[blockIdx.x] = clock64() - start;
  if (value.x == -1.0f) *sink = value.x;  // keeps the loads
}

struct Rate {
  double storedPerCycle = 0;  // per storing block, the mean over them
  double slowestStorer = 0;
  double loadedPerCycle = 0;                    // per loading block, the mean over them
  double storingCycles = 0, loadingCycles = 0;  // the means
  double storedTerabytesPerSecond = 0;  // all storing blocks, by CUDA events (storers alone)
};

struct Buffers {
  explicit Buffers(int sms)
      : c(std::int64_t(sms) * kTileRows * kRowFloats / 4),
        loaded(std::int64_t(sms) * kLoadFloat4s),
        sink(1),
        cycles(sms) {}
  DeviceBuffer<float4> c, loaded;
  DeviceBuffer<float> sink;
  DeviceBuffer<long long> cycles;
};

Rate measure(Pattern pattern, int storers, int loaders, int threads, const Buffers& buffers) {
  const int blocks = storers + loaders;
  const auto launch = [&] {
    if (pattern == Pattern::WholeLines)
      storeAndLoad<Pattern::WholeLines><<<blocks, threads, kOneBlockPerSmBytes>>>(
          buffers.c.get(), storers, buffers.loaded.get(), buffers.sink.get(), buffers.cycles.get());
    else
      storeAndLoad<Pattern::WgmmaRows><<<blocks, threads, kOneBlockPerSmBytes>>>(
          buffers.c.get(), storers, buffers.loaded.get(), buffers.sink.get(), buffers.cycles.get());
    check(cudaGetLastError(), "launching the store-rate kernel");
  };
  launch();  // warm-up: the lines come into L2
  tilescope::cuda::Event start, stop;
  start.record();
  launch();
  stop.record();
  stop.synchronize();
  const double ms = stop.since(start);
  std::vector<long long> spent(std::size_t(blocks), 0);
  check(cudaMemcpy(spent.data(), buffers.cycles.get(), spent.size() * sizeof(long long),
                   cudaMemcpyDeviceToHost),
        "copying the cycle counts");
  Rate rate;
  const double stored = kTileBytes * kRepeats, loaded = 16.0 * kLoadFloat4s * kLoadPasses;
  long long slowest = 1;
  for (int b = 0; b < blocks; ++b) {
    if (b < storers) {
      rate.storedPerCycle += stored / double(spent[b]) / storers;
      rate.storingCycles += double(spent[b]) / storers;
      slowest = std::max(slowest, spent[b]);
    } else {
      rate.loadedPerCycle += loaded / double(spent[b]) / loaders;
      rate.loadingCycles += double(spent[b]) / loaders;
    }
  }
  if (storers > 0) rate.slowestStorer = stored / double(slowest);
  if (loaders == 0) rate.storedTerabytesPerSecond = stored * storers / (ms * 1e-3) / 1e12;
  return rate;
}

int run() {
  cudaDeviceProp properties{};
  check(cudaGetDeviceProperties(&properties, 0), "reading the GPU's properties");
  const int sms = properties.multiProcessorCount;
  Buffers buffers(sms);
  check(cudaMemset(buffers.loaded.get(), 0, buffers.loaded.bytes()), "clearing the loaded data");
  for (auto kernel : {storeAndLoad<Pattern::WholeLines>, storeAndLoad<Pattern::WgmmaRows>})
    check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               kOneBlockPerSmBytes),
          "asking for 120 KiB of shared memory a block");

  std::printf(
      "%s, %d SMs, one block an SM: a storing block stores a 128 KiB tile %d times, a "
      "loading block reads 256 KiB %d times (both L2-resident)\n\n",
      properties.name, sms, kRepeats, kLoadPasses);
  std::printf(
      "| pattern | threads | storing SMs | bytes stored a cycle per SM (slowest) | all "
      "storing SMs, TB/s |\n| --- | ---: | ---: | ---: | ---: |\n");
  for (Pattern pattern : {Pattern::WholeLines, Pattern::WgmmaRows})
    for (int threads : {256, 128})
      for (int storers : {1, sms / 2, sms}) {
        const Rate rate = measure(pattern, storers, 0, threads, buffers);
        std::printf(
            "| %s | %d | %d | %.1f (%.1f) | %.2f |\n",
            pattern == Pattern::WholeLines ? "whole 128-byte lines" : "wgmma rows (64 bytes)",
            threads, storers, rate.storedPerCycle, rate.slowestStorer,
            rate.storedTerabytesPerSecond);
      }

  // Half the SMs store while the other half load: does one half's traffic slow the other's? And
  // every SM loading, as in the k-steps of a tile.
  std::printf(
      "\n| storing SMs | loading SMs | bytes stored a cycle per storing SM (cycles) | bytes "
      "loaded a cycle per loading SM (cycles) |\n| ---: | ---: | ---: | ---: |\n");
  const int half = sms / 2;
  for (const auto [storers, loaders] :
       {std::pair{half, 0}, {0, half}, {half, half}, {0, sms}, {sms, 0}}) {
    const Rate rate = measure(Pattern::WholeLines, storers, loaders, 256, buffers);
    std::printf("| %d | %d | %.1f (%.0f) | %.1f (%.0f) |\n", storers, loaders, rate.storedPerCycle,
                rate.storingCycles, rate.loadedPerCycle, rate.loadingCycles);
  }
  return 0;
}

}  // namespace

int main() {
  try {
    return run();
  } catch (const tilescope::Error& error) {
    std::fprintf(stderr, "tilescope_store_rate: %s\n", error.what());
    return 1;
  }
}
