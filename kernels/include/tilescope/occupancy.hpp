// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Theoretical occupancy without a GPU: how many blocks of a kernel one SM of an architecture
// holds at once, from its registers, shared memory and block size, counted as CUDA's occupancy
// calculator counts them (registers per warp in units of 256 spread over the SM's four
// sub-partitions, shared memory in allocation units plus the driver's reserve, the default
// shared-memory carveout). The Kernel Editor's compile summary uses it.
#include <optional>
#include <string>

#include "tilescope/backend.hpp"

namespace tilescope {

// `resources` with threadsPerBlock, registersPerThread and sharedBytesPerBlock set; returns it
// with blocksPerSM and occupancy filled in for `arch` ("sm_90"), or nullopt for an architecture
// whose limits are not known here. 0 blocks: the block does not fit at all.
std::optional<KernelResources> withTheoreticalOccupancy(const std::string& arch,
                                                        KernelResources resources);

}  // namespace tilescope
