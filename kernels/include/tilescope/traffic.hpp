// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The traffic model: what the memory system sees when a kernel runs its Mapping. Global memory
// is served in 32-byte sectors grouped in 128-byte lines; shared memory has 32 banks of 4-byte
// words. Everything is counted from the addresses Mapping reports, never re-derived, and without
// caches: a sector is fetched every time a warp asks for it, so "global bytes" is the traffic a
// kernel would cause with no reuse beyond what its shared tiles and registers give it. A tile
// that a thread-block cluster multicasts (tensor-persistent's B) is fetched once per cluster,
// though every block's shared memory receives it: Mapping::fetchingBlocks.
#include <array>
#include <cstdint>
#include <optional>

#include "tilescope/mapping.hpp"

namespace tilescope {

inline constexpr int kElementBytes = 4;  // float32: C, and A and B unless they are 16-bit
inline constexpr int kSectorBytes = 32;
inline constexpr int kLineBytes = 128;
inline constexpr int kSharedBanks = 32;

// A lane moves 4, 8 or 16 bytes in one instruction (a float, float2 or float4): widths 1, 2, 4.
inline constexpr int kMaxAccessWidth = 4;
// The 32 banks deliver 128 bytes per pass, so a warp's shared read is served in phases of as
// many lanes as that holds: all 32 for 4-byte reads, 16 for 8-byte, 8 (a quarter warp) for
// float4s. Bank conflicts happen only inside a phase.
inline constexpr int kMaxPhases = kMaxAccessWidth;
inline int lanesPerPhase(int width) {
  return kWarpSize / width;
}

// Matrices start on a line boundary (cudaMalloc aligns to 256 bytes), so an element's byte
// offset inside its matrix decides its sector and line.
inline std::int64_t byteOffset(std::int64_t element, int elementBytes = kElementBytes) {
  return element * elementBytes;
}
inline std::int64_t sectorOf(std::int64_t element, int elementBytes = kElementBytes) {
  return byteOffset(element, elementBytes) / kSectorBytes;
}
inline std::int64_t lineOf(std::int64_t element, int elementBytes = kElementBytes) {
  return byteOffset(element, elementBytes) / kLineBytes;
}
inline int bankOf(int word) {
  return word % kSharedBanks;
}

// One warp-wide global load or store; a vector access counts every byte of every lane's vector.
// Throws Error(InvalidArgument) unless a lane moves 4, 8 or 16 bytes (or one 2-byte element).
struct RequestTraffic {
  int activeLanes = 0;
  int sectors = 0;             // distinct 32-byte sectors touched
  int lines = 0;               // distinct 128-byte lines touched
  std::int64_t bytesUsed = 0;  // distinct bytes the lanes ask for (a broadcast counts once)
  std::int64_t bytesFetched() const { return std::int64_t(sectors) * kSectorBytes; }
  // Bytes used / bytes fetched, in [0, 1]; 0 for a request with no active lane.
  double efficiency() const;
};
RequestTraffic requestTraffic(const WarpAccess& access);

// One warp-wide shared-memory read, phase by phase (lanesPerPhase). Inside a phase a bank serves
// one distinct word per pass; lanes reading the same word share it (a broadcast), so only
// distinct words in one bank cost extra passes. Throws Error(InvalidArgument) for a width other
// than 1, 2 or 4.
struct BankTraffic {
  int activeLanes = 0;
  int width = 1;   // words each lane reads
  int phases = 0;  // phases with an active lane: the fewest passes the read can take
  // Distinct words each bank serves, summed over the phases.
  std::array<int, kSharedBanks> wordsPerBank{};
  // Passes of each phase (the most words one bank serves in it) and their sum.
  std::array<int, kMaxPhases> phaseWavefronts{};
  int wavefronts = 0;
  bool broadcast = false;  // inside a phase, some word is read by more than one lane
  // Passes beyond the fewest: 0 means conflict-free, 31 a 32-way conflict of 4-byte reads.
  int conflicts() const { return wavefronts - phases; }
};
BankTraffic bankTraffic(const WarpSharedAccess& access);

// Every warp request of one access over the whole launch; a multicast tile's once per cluster.
struct AccessTotals {
  Access access = Access::LoadA;
  double requests = 0;  // warp instructions with at least one active lane
  double sectors = 0;
  double bytesUsed = 0;
  double bytesFetched() const { return sectors * kSectorBytes; }
  double sectorsPerRequest() const { return requests > 0 ? sectors / requests : 0; }
  double efficiency() const { return sectors > 0 ? bytesUsed / bytesFetched() : 0; }
};

// Shared-memory reads of one staged operand in the inner product, for every warp of a block
// over one k-step (the same at every step and in every block): every inner index and every read
// slot of a thread (a register tile reads several values, or float4s, per inner index).
struct SharedReadTotals {
  Operand operand = Operand::A;
  int pad = 0;
  std::int64_t reads = 0;            // warp-wide reads
  std::int64_t wavefronts = 0;       // passes the banks take for them
  std::int64_t idealWavefronts = 0;  // the fewest passes they could take (one per phase)
  int worstWavefronts = 0;           // of the single worst read
  std::int64_t conflicts() const { return wavefronts - idealWavefronts; }
};

struct KernelTraffic {
  double flops = 0;                        // 2 M N K
  std::array<AccessTotals, 3> accesses{};  // LoadA, LoadB, StoreC
  // Bytes of every sector all warps fetch or write, with no cache reuse (a multicast tile once
  // per cluster).
  double globalBytes = 0;
  // A and B read once, C written once: the least any kernel must move.
  double compulsoryBytes = 0;
  // True when every request was counted; false when the totals are scaled from a sample.
  bool exact = true;
  const AccessTotals& totals(Access access) const { return accesses[std::size_t(access)]; }
  double arithmeticIntensity() const { return globalBytes > 0 ? flops / globalBytes : 0; }
  double compulsoryIntensity() const { return flops / compulsoryBytes; }
};

// Counts every warp request when an access has at most `sampleBudget` of them; otherwise
// evaluates `sampleBudget` requests spread evenly over blocks, warps, steps and instructions and
// scales them up (large problems repeat the same pattern in every interior block).
KernelTraffic kernelTraffic(const Mapping& mapping, std::int64_t sampleBudget = 4096);

// nullopt when `operand` is not staged in shared memory by this kernel.
std::optional<SharedReadTotals> sharedReadTotals(const Mapping& mapping, Operand operand,
                                                 int pad = 0);

}  // namespace tilescope
