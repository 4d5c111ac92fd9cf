// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the tensor-core kernels (tensor-mma, tensor-wgmma) share on the device: their element
// types' sizes and the copy of a k-step into a shared stage.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "ladder_device.cuh"

namespace tilescope::cuda {

template <typename Element>
inline constexpr int kBytes = int(sizeof(Element));
// The raw bits an element is copied as on the element-by-element edge path.
template <typename Element>
using Bits = std::conditional_t<sizeof(Element) == 2, unsigned short, unsigned>;

// The block's copy of k-step s into one stage of a tensor-core kernel, at the bytes its map's
// aByte and bByte name: 16-byte cp.async copies while rows are aligned (zero-filled past the
// edges), else one element at a time through registers.
template <auto kMap, typename Element>
__device__ __forceinline__ void copyStage(const ProductArgs& args, Dim2 block, int t,
                                          std::int64_t s, unsigned char* stage) {
  constexpr auto map = kMap;
  constexpr maps::TileCopy aCopy = map.aCopy(), bCopy = map.bCopy();
  const Dim2 thread{t, 0};
  const auto* a = args.aAs<Bits<Element>>();
  const auto* b = args.bAs<Bits<Element>>();
  unsigned char* bTile = stage + map.aStageBytes();
  if (map.aVectorCopies(args.k)) {
#pragma unroll
    for (int i = 0; i < aCopy.copiesPerThread(); ++i) {
      const Cell at = aCopy.at(t, i), from = map.aLoad(block, thread, s, i);
      const bool valid = from.row < args.m && from.col < args.k;
      copyAsync16(stage + map.aByte(int(at.row), int(at.col)),
                  valid ? a + from.row * args.k + from.col : a, valid);
    }
  } else {
#pragma unroll
    for (int i = 0; i < aCopy.copiesPerThread(); ++i) {
      const Cell at = aCopy.at(t, i), from = map.aLoad(block, thread, s, i);
#pragma unroll
      for (int e = 0; e < aCopy.width; ++e)
        *reinterpret_cast<Bits<Element>*>(stage + map.aByte(int(at.row), int(at.col) + e)) =
            from.row < args.m && from.col + e < args.k ? a[from.row * args.k + from.col + e] : 0;
    }
  }
  if (map.bVectorCopies(args.n)) {
#pragma unroll
    for (int i = 0; i < bCopy.copiesPerThread(); ++i) {
      const Cell at = bCopy.at(t, i), from = map.bLoad(block, thread, s, i);
      const bool valid = from.row < args.k && from.col < args.n;
      copyAsync16(bTile + map.bByte(int(at.row), int(at.col)),
                  valid ? b + from.row * args.n + from.col : b, valid);
    }
  } else {
#pragma unroll
    for (int i = 0; i < bCopy.copiesPerThread(); ++i) {
      const Cell at = bCopy.at(t, i), from = map.bLoad(block, thread, s, i);
#pragma unroll
      for (int e = 0; e < bCopy.width; ++e)
        *reinterpret_cast<Bits<Element>*>(bTile + map.bByte(int(at.row), int(at.col) + e)) =
            from.row < args.k && from.col + e < args.n ? b[from.row * args.n + from.col + e] : 0;
    }
  }
}

}  // namespace tilescope::cuda
