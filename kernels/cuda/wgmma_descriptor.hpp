// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A shared-memory matrix descriptor's fields (PTX ISA, "matrix descriptor format"), host and
// device: the Hopper kernels build them on the GPU, and a host test checks their arithmetic.
#include <cstdint>

#include "tilescope/thread_map.hpp"

namespace tilescope::cuda {

// The start address and the leading and stride byte offsets, each in 16-byte units in a 14-bit
// field, and the swizzle mode (1: 128 bytes). `sharedAddress` is the operand's offset in the
// block's shared-memory window.
TS_HD std::uint64_t descriptorAt(unsigned sharedAddress, int leadingBytes, int strideBytes) {
  return std::uint64_t(sharedAddress >> 4 & 0x3FFF) |
         std::uint64_t(leadingBytes >> 4 & 0x3FFF) << 16 |
         std::uint64_t(strideBytes >> 4 & 0x3FFF) << 32 | std::uint64_t(1) << 62;
}

// The descriptor of the same layout `bytes` further on (a multiple of 16). Shared addresses stay
// below 2^18 bytes, so a start inside shared memory never carries out of its 14-bit field.
TS_HD std::uint64_t descriptorAfter(std::uint64_t first, int bytes) {
  return first + std::uint64_t(bytes >> 4);
}

}  // namespace tilescope::cuda
