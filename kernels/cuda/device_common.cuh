// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What every kernel family shares on the device: the block and thread in the maps' terms, the
// one store each output goes through (the instrumented variants also record who wrote it), and
// the host-side launch that checks CUDA's answer.
#include <array>
#include <limits>
#include <string>
#include <type_traits>

#include "cuda_check.hpp"
#include "kernel_resources.hpp"
#include "launch.hpp"
#include "tilescope/error.hpp"
#include "tilescope/thread_map.hpp"

namespace tilescope::cuda {

__device__ __forceinline__ Dim2 blockCoord() {
  return {int(blockIdx.x), int(blockIdx.y)};
}
__device__ __forceinline__ Dim2 threadCoord() {
  return {int(threadIdx.x), int(threadIdx.y)};
}

// Reads A[row][col] or B[row][col], or the zero padding past the matrix edge.
__device__ __forceinline__ float loadOrZero(const float* matrix, std::int64_t rows,
                                            std::int64_t cols, std::int64_t row, std::int64_t col) {
  return row < rows && col < cols ? matrix[row * cols + col] : 0.0f;
}

// Whether every element index of A, B and C fits in an int. Kernels whose inner loop is address
// arithmetic (naive) index in int then, as the seeds do: 64-bit index arithmetic there costs
// nvcc's unrolled loads and kept naive at 4096^3 1.7x slower than the seed's int code (issue 13).
inline bool indicesFitInt(const ProductArgs& args) {
  constexpr std::int64_t kMax = std::numeric_limits<int>::max();
  return args.m * args.k <= kMax && args.k * args.n <= kMax && args.m * args.n <= kMax;
}

// Writes C[i][j]; the caller has checked that (i, j) lies inside C. The recorded ids come from
// CUDA's own blockIdx/threadIdx, not from the map, so they can prove the map wrong.
template <bool kTraced>
__device__ __forceinline__ void storeOutput(const ProductArgs& args, std::int64_t i, std::int64_t j,
                                            float value) {
  const std::int64_t index = i * args.n + j;
  args.c[index] = value;
  if constexpr (kTraced) {
    args.ownerBlock[index] = int(blockIdx.x + blockIdx.y * gridDim.x);
    args.ownerThread[index] = int(threadIdx.x + threadIdx.y * blockDim.x);
  }
}

// Two or four consecutive outputs C[i][j..] as one 8- or 16-byte store, as the Mappings draw
// them (the caller has checked that they lie inside C and that the address is aligned). Explicit
// vector stores: nvcc split the plain assignments through a float2* or float4* into 4-byte stores
// in every kernel family but one (and tensor-tf32 ran at 0.75x cuBLAS instead of 0.95x for it).
__device__ __forceinline__ void storeOutputs(const ProductArgs& args, std::int64_t i,
                                             std::int64_t j, float2 values) {
  __stwb(reinterpret_cast<float2*>(args.c + i * args.n + j), values);
}
__device__ __forceinline__ void storeOutputs(const ProductArgs& args, std::int64_t i,
                                             std::int64_t j, float4 values) {
  __stwb(reinterpret_cast<float4*>(args.c + i * args.n + j), values);
}

// Launches and checks; under a LaunchProbe it only records the launch (kernel_resources.hpp).
template <typename... Params>
void launchChecked(void (*kernel)(Params...), const char* name, Dim2 grid, Dim2 block,
                   std::type_identity_t<Params>... params) {
  if (LaunchProbe* probe = LaunchProbe::active()) {
    probe->record({reinterpret_cast<const void*>(kernel), grid, block, 0});
    return;
  }
  const dim3 blocks(unsigned(grid.x), unsigned(grid.y)),
      threads(unsigned(block.x), unsigned(block.y));
  kernel<<<blocks, threads>>>(params...);
  checkLaunch(cudaGetLastError(), name, grid, block);
}

// The instantiations of a kernel template for tiles tiles[0], tiles[1], ..., each in a plain and
// an instrumented variant, so a run-time tile picks a compile-time one.
template <typename Kernel, std::size_t kCount>
struct KernelTable {
  std::array<int, kCount> tiles;
  std::array<Kernel, kCount> plain, traced;

  Kernel pick(int tile, bool withTrace, const char* family) const {
    for (std::size_t i = 0; i < kCount; ++i)
      if (tiles[i] == tile) return withTrace ? traced[i] : plain[i];
    throw Error(ErrorKind::InvalidArgument,
                std::string(family) + ": no CUDA kernel compiled for tile " + std::to_string(tile));
  }
};

}  // namespace tilescope::cuda
