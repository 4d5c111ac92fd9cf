// SPDX-License-Identifier: GPL-3.0-or-later
// The seed kernels beside plain transcriptions of the seeds' own code (issue 13 part 3): each
// seed's kernel as its text writes it (its index type, its launch shape, no Mapping), and the
// same code with 64-bit indices, timed on the same operands as the catalogue's kernel and cuBLAS.
// A catalogue kernel more than --max-ratio times slower than its seed's transcription fails the
// run, so a seed kernel cannot quietly become slower than the code it teaches.
//
//   tilescope_seed_bench [--sizes 1024,4096] [--max-ratio 1.10]
//
// Prints one row per kernel and size: milliseconds of the transcription (seed index type and
// int64), of the catalogue kernel and of cuBLAS SGEMM, each the median of several launches after
// a warm-up, and whether the catalogue kernel's C equals the transcription's.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "cublas_gemm.hpp"
#include "device_memory.hpp"
#include "launch.hpp"
#include "tilescope/error.hpp"

namespace {

using tilescope::cuda::DeviceBuffer;
using tilescope::cuda::ProductArgs;

// ---- Transcriptions: square N x N, row-major, as the seeds write them -------------------------

// Seed 000a: thread x owns row i, thread y strides over the columns by NT (NT = 32).
template <typename Index>
__global__ void rowPerThreadSeed(float* c, const float* a, const float* b, Index n) {
  constexpr int kNT = 32;
  const Index i = Index(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) {
    for (Index j = threadIdx.y; j < n; j += kNT) {
      float sum = 0;
      for (Index k = 0; k < n; k++) sum += a[i * n + k] * b[k * n + j];
      c[i * n + j] = sum;
    }
  }
}

// Seeds 001a, 003a, 004-1: one thread per element of C, 16 x 16 blocks, bounds-checked.
template <typename Index>
__global__ void naiveSeed(Index n, const float* a, const float* b, float* c) {
  const Index row = Index(blockIdx.y) * blockDim.y + threadIdx.y;
  const Index col = Index(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row < n && col < n) {
    float sum = 0;
    for (Index i = 0; i < n; i++) sum += a[row * n + i] * b[i * n + col];
    c[n * row + col] = sum;
  }
}

// Seed 001b: a BLOCK_SIZE x BLOCK_SIZE tile of A in shared memory per round, B from global
// memory; N a multiple of BLOCK_SIZE (the seed refuses any other). Unsigned indices in the seed.
template <typename Index>
__global__ void sharedASeed(const float* a, const float* b, float* c) {
  constexpr int kBlock = 16;
  __shared__ float aBlock[kBlock][kBlock];
  const Index stride = Index(gridDim.y) * kBlock;
  const Index row = Index(blockIdx.y) * kBlock + threadIdx.y;
  const Index col = Index(blockIdx.x) * kBlock + threadIdx.x;
  float sum = 0;
  for (Index round = 0; round < gridDim.y; ++round) {
    aBlock[threadIdx.y][threadIdx.x] = a[row * stride + round * kBlock + threadIdx.x];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kBlock; ++k)
      sum += aBlock[threadIdx.y][k] * b[(round * kBlock + k) * stride + col];
    __syncthreads();
  }
  c[row * stride + col] = sum;
}

// Seeds 002 and 004-3 (the CUDA Programming Guide's kernel): 16 x 16 tiles of A and B in shared
// memory per step; N a multiple of 16.
template <typename Index>
__global__ void sharedTiledSeed(const float* a, const float* b, float* c, Index n) {
  constexpr int kBlock = 16;
  __shared__ float as[kBlock][kBlock];
  __shared__ float bs[kBlock][kBlock];
  const int row = threadIdx.y, col = threadIdx.x;
  const Index blockRow = blockIdx.y, blockCol = blockIdx.x;
  float value = 0;
  for (Index m = 0; m < n / kBlock; ++m) {
    const float* aSub = a + (blockRow * kBlock) * n + m * kBlock;
    const float* bSub = b + (m * kBlock) * n + blockCol * kBlock;
    as[row][col] = aSub[Index(row) * n + col];
    bs[row][col] = bSub[Index(row) * n + col];
    __syncthreads();
    for (int e = 0; e < kBlock; ++e) value += as[row][e] * bs[e][col];
    __syncthreads();
  }
  c[(blockRow * kBlock + row) * n + blockCol * kBlock + col] = value;
}

// Seed 004-2: each of 16 x 16 threads accumulates a T x T tile of C (T = 8) from T values of
// A's column k and T of B's row k, in registers; N a multiple of 16 T.
template <typename Index>
__global__ void registerTiledSeed(const float* a, const float* b, float* c, Index n) {
  constexpr int kTile = 8;
  const Index tileRow = (Index(blockIdx.y) * blockDim.y + threadIdx.y) * kTile;
  const Index tileCol = (Index(blockIdx.x) * blockDim.x + threadIdx.x) * kTile;
  float cSum[kTile][kTile];
  memset(cSum, 0, sizeof(cSum));
  for (Index k = 0; k < n; k++) {
    float aVec[kTile], bVec[kTile];
    for (int i = 0; i < kTile; i++) {
      aVec[i] = a[(tileRow + i) * n + k];
      bVec[i] = b[k * n + (tileCol + i)];
    }
    for (int i = 0; i < kTile; i++)
      for (int j = 0; j < kTile; j++) cSum[i][j] += aVec[i] * bVec[j];
  }
  for (int i = 0; i < kTile; i++)
    for (int j = 0; j < kTile; j++) c[(tileRow + i) * n + (tileCol + j)] = cSum[i][j];
}

// ---- Harness -----------------------------------------------------------------------------------

void check(cudaError_t status, const char* what) {
  tilescope::cuda::check(status, what);
}

// Median milliseconds of `reps` launches after one warm-up, timed with events.
double medianMs(const std::function<void()>& launch, int reps) {
  tilescope::cuda::Event start, stop;
  launch();
  check(cudaGetLastError(), "launch");
  check(cudaDeviceSynchronize(), "warm-up");
  std::vector<double> times;
  for (int r = 0; r < reps; ++r) {
    start.record();
    launch();
    stop.record();
    stop.synchronize();
    check(cudaGetLastError(), "launch");
    times.push_back(stop.since(start));
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

struct SeedKernel {
  const char* name;
  const char* seed;
  int tile;
  // Launches the transcription with 32-bit (false) or 64-bit (true) indices.
  std::function<void(int n, const float* a, const float* b, float* c, bool wide)> transcription;
};

dim3 grid2(int cols, int rows) {
  return dim3(unsigned(cols), unsigned(rows));
}

std::vector<SeedKernel> seedKernels() {
  return {
      {"row-per-thread", "000a", 32,
       [](int n, const float* a, const float* b, float* c, bool wide) {
         const dim3 grid((n + 31) / 32), block(32, 32);
         if (wide)
           rowPerThreadSeed<std::int64_t><<<grid, block>>>(c, a, b, n);
         else
           rowPerThreadSeed<int><<<grid, block>>>(c, a, b, n);
       }},
      {"naive", "003a", 16,
       [](int n, const float* a, const float* b, float* c, bool wide) {
         const dim3 grid = grid2(n / 16 + 1, n / 16 + 1), block(16, 16);
         if (wide)
           naiveSeed<std::int64_t><<<grid, block>>>(n, a, b, c);
         else
           naiveSeed<int><<<grid, block>>>(n, a, b, c);
       }},
      {"shared-a", "001b", 16,
       [](int n, const float* a, const float* b, float* c, bool wide) {
         const dim3 grid = grid2(n / 16, n / 16), block(16, 16);
         if (wide)
           sharedASeed<std::int64_t><<<grid, block>>>(a, b, c);
         else
           sharedASeed<unsigned><<<grid, block>>>(a, b, c);
       }},
      {"shared-tiled", "004-3", 16,
       [](int n, const float* a, const float* b, float* c, bool wide) {
         const dim3 grid = grid2(n / 16, n / 16), block(16, 16);
         if (wide)
           sharedTiledSeed<std::int64_t><<<grid, block>>>(a, b, c, n);
         else
           sharedTiledSeed<int><<<grid, block>>>(a, b, c, n);
       }},
      {"register-tiled", "004-2", 8,
       [](int n, const float* a, const float* b, float* c, bool wide) {
         const dim3 grid = grid2(n / 128, n / 128), block(16, 16);
         if (wide)
           registerTiledSeed<std::int64_t><<<grid, block>>>(a, b, c, n);
         else
           registerTiledSeed<int><<<grid, block>>>(a, b, c, n);
       }},
  };
}

std::vector<int> parseSizes(const std::string& text) {
  std::vector<int> sizes;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    sizes.push_back(std::stoi(text.substr(start, end - start)));
    start = end + 1;
  }
  return sizes;
}

int run(int argc, char** argv) {
  std::vector<int> sizes{1024, 4096};
  double maxRatio = 1.10;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--sizes")
      sizes = parseSizes(argv[i + 1]);
    else if (flag == "--max-ratio")
      maxRatio = std::stod(argv[i + 1]);
    else {
      std::fprintf(stderr, "unknown option %s\n", argv[i]);
      return 2;
    }
  }
  for (int n : sizes)
    if (n <= 0 || n % 128 != 0) {
      std::fprintf(stderr, "sizes must be positive multiples of 128 (the seeds' tiles): %d\n", n);
      return 2;
    }

  tilescope::cuda::CublasGemm cublas;
  bool pass = true;
  std::printf("%-15s %-5s %6s %12s %12s %12s %12s %9s %9s %6s\n", "kernel", "seed", "N", "seed ms",
              "seed64 ms", "catalogue ms", "cuBLAS ms", "cat/seed", "seed/cuBLAS", "equal");
  for (int n : sizes) {
    const std::int64_t elements = std::int64_t(n) * n;
    std::vector<float> hostA(static_cast<std::size_t>(elements)), hostB(hostA.size());
    std::mt19937 random{static_cast<std::uint32_t>(n)};
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    for (float& x : hostA) x = uniform(random);
    for (float& x : hostB) x = uniform(random);
    DeviceBuffer<float> a(elements), b(elements), cSeed(elements), cCatalogue(elements);
    check(cudaMemcpy(a.get(), hostA.data(), a.bytes(), cudaMemcpyHostToDevice), "copy A");
    check(cudaMemcpy(b.get(), hostB.data(), b.bytes(), cudaMemcpyHostToDevice), "copy B");
    const ProductArgs args{a.get(), b.get(), cCatalogue.get(), n, n, n};
    const int reps = n >= 4096 ? 5 : 20;
    const double cublasMs = medianMs([&] { cublas.multiply(args); }, reps);

    for (const SeedKernel& kernel : seedKernels()) {
      const double seedMs =
          medianMs([&] { kernel.transcription(n, a.get(), b.get(), cSeed.get(), false); }, reps);
      const double wideMs =
          medianMs([&] { kernel.transcription(n, a.get(), b.get(), cSeed.get(), true); }, reps);
      const double catalogueMs = medianMs(
          [&] {
            tilescope::cuda::cudaLaunchOf(kernel.name).launch({{"tile", kernel.tile}}, args);
          },
          reps);
      // Both sum in k order with FP32 FMAs, so the results must agree bit for bit.
      std::vector<float> fromSeed(static_cast<std::size_t>(elements)),
          fromCatalogue(fromSeed.size());
      check(cudaMemcpy(fromSeed.data(), cSeed.get(), cSeed.bytes(), cudaMemcpyDeviceToHost),
            "copy C");
      check(cudaMemcpy(fromCatalogue.data(), cCatalogue.get(), cCatalogue.bytes(),
                       cudaMemcpyDeviceToHost),
            "copy C");
      const bool equal =
          std::memcmp(fromSeed.data(), fromCatalogue.data(), fromSeed.size() * sizeof(float)) == 0;
      const double ratio = catalogueMs / seedMs;
      std::printf("%-15s %-5s %6d %12.3f %12.3f %12.3f %12.4f %9.3f %9.4f %6s\n", kernel.name,
                  kernel.seed, n, seedMs, wideMs, catalogueMs, cublasMs, ratio, cublasMs / seedMs,
                  equal ? "yes" : "NO");
      if (!equal || ratio > maxRatio) pass = false;
    }
  }
  std::printf("%s: every catalogue seed kernel within %.2fx of its transcription and equal to it\n",
              pass ? "PASS" : "FAIL", maxRatio);
  return pass ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const tilescope::Error& error) {
    std::fprintf(stderr, "tilescope_seed_bench: %s\n", error.what());
    return 1;
  }
}
