// SPDX-License-Identifier: GPL-3.0-or-later
#include "tilescope/traffic.hpp"

#include <algorithm>
#include <string>

#include "tilescope/error.hpp"
#include "tilescope/user_kernel.hpp"

namespace tilescope {

namespace {

// Sorts and removes repeats in place; returns how many distinct values remain.
template <typename T, std::size_t N>
int distinctCount(std::array<T, N>& values, int count) {
  std::sort(values.begin(), values.begin() + count);
  return int(std::unique(values.begin(), values.begin() + count) - values.begin());
}

void checkWidth(int width, const char* what) {
  if (width != 1 && width != 2 && width != kMaxAccessWidth)
    throw Error(ErrorKind::InvalidArgument, std::string(what) + " of " + std::to_string(width) +
                                                " words per lane: only 1, 2 or 4 exist");
}

AccessTotals countAccess(const Mapping& mapping, Access access, std::int64_t sampleBudget,
                         bool& exact) {
  AccessTotals totals;
  totals.access = access;
  const std::int64_t warps = mapping.warpsPerBlock();
  const std::int64_t instructions = mapping.instructionsPerStep(access);
  // A store happens once per run, loads once per k-step.
  const std::int64_t steps = access == Access::StoreC ? 1 : mapping.kSteps();
  // A trace records one block's accesses: the launch counts as that block's, once per block.
  const KernelTrace* trace = mapping.trace();
  const std::int64_t blocks = trace ? 1 : mapping.blockCount();
  if (trace && mapping.blockCount() > 1) exact = false;
  const long double total = static_cast<long double>(blocks) * warps * steps * instructions;
  if (total <= 0) return totals;

  const std::int64_t evaluated =
      total <= static_cast<long double>(sampleBudget) ? std::int64_t(total) : sampleBudget;
  if (evaluated < total) exact = false;
  const Dim2 grid = mapping.grid();
  for (std::int64_t sample = 0; sample < evaluated; ++sample) {
    // Evenly spaced over the launch; the identity when every request is evaluated.
    auto index = std::int64_t((static_cast<long double>(sample) * total) / evaluated);
    const std::int64_t instr = index % instructions;
    index /= instructions;
    const std::int64_t step = index % steps;
    index /= steps;
    const int warp = int(index % warps);
    const std::int64_t blockIndex = index / warps;
    const Dim2 block =
        trace ? trace->tracedBlock : Dim2{int(blockIndex % grid.x), int(blockIndex / grid.x)};
    const RequestTraffic request =
        requestTraffic(mapping.warpAccess(block, warp, access, step, instr));
    if (request.activeLanes == 0) continue;
    totals.requests += 1;
    totals.sectors += request.sectors;
    totals.bytesUsed += double(request.bytesUsed);
  }
  // A tile multicast to a cluster crosses L2 once for all its blocks. The partners ask for the
  // same bytes (their tiles share B's columns), so the blocks' requests count at the fetching
  // blocks' share.
  const double fetchedShare =
      double(mapping.fetchingBlocks(operandOf(access))) / double(mapping.blockCount());
  const double scale =
      double(total / evaluated) * fetchedShare * double(mapping.blockCount() / blocks);
  totals.requests *= scale;
  totals.sectors *= scale;
  totals.bytesUsed *= scale;
  return totals;
}

}  // namespace

double RequestTraffic::efficiency() const {
  return sectors > 0 ? double(bytesUsed) / double(bytesFetched()) : 0.0;
}

RequestTraffic requestTraffic(const WarpAccess& access) {
  const int laneBytes = access.width * access.elementBytes;
  // A lone 8- or 16-bit element: an FP8 or fp16 kernel's scalar loads (a user kernel's ts::loadB).
  if (!(laneBytes == 4 || laneBytes == 8 || laneBytes == 16 ||
        (access.width == 1 && laneBytes < 4)))
    throw Error(ErrorKind::InvalidArgument,
                "a global access of " + std::to_string(access.width) + " elements of " +
                    std::to_string(access.elementBytes) +
                    " bytes per lane: lanes move 4, 8 or 16 bytes, or one 8- or 16-bit element");
  // Every element of every lane's vector: at most 32 lanes of 16 bytes of 1-byte elements.
  constexpr int kMostElements = kWarpSize * 16;
  std::array<std::int64_t, kMostElements> elements{}, sectors{}, lines{};
  RequestTraffic traffic;
  int touched = 0;
  for (const std::int64_t first : access.element) {
    if (first < 0) continue;
    ++traffic.activeLanes;
    for (std::int64_t element = first; element < first + access.width; ++element) {
      elements[std::size_t(touched)] = element;
      sectors[std::size_t(touched)] = sectorOf(element, access.elementBytes);
      lines[std::size_t(touched)] = lineOf(element, access.elementBytes);
      ++touched;
    }
  }
  traffic.bytesUsed = std::int64_t(distinctCount(elements, touched)) * access.elementBytes;
  traffic.sectors = distinctCount(sectors, touched);
  traffic.lines = distinctCount(lines, touched);
  return traffic;
}

BankTraffic bankTraffic(const WarpSharedAccess& access) {
  checkWidth(access.width, "a shared-memory read");
  BankTraffic traffic;
  traffic.width = access.width;
  const int phaseLanes = lanesPerPhase(access.width);
  for (int phase = 0; phase * phaseLanes < kWarpSize; ++phase) {
    // The words this phase's lanes read: at most 8 lanes of 4 words, or 32 of 1.
    std::array<int, kSharedBanks> words{};
    int lanes = 0, read = 0;
    for (int lane = phase * phaseLanes; lane < (phase + 1) * phaseLanes; ++lane) {
      const int first = access.word[std::size_t(lane)];
      if (first < 0) continue;
      ++lanes;
      for (int word = first; word < first + access.width; ++word) words[std::size_t(read++)] = word;
    }
    if (lanes == 0) continue;
    traffic.activeLanes += lanes;
    ++traffic.phases;
    const int distinct = distinctCount(words, read);
    traffic.broadcast = traffic.broadcast || distinct < read;
    std::array<int, kSharedBanks> served{};
    int& passes = traffic.phaseWavefronts[std::size_t(phase)];
    for (int w = 0; w < distinct; ++w) {
      const auto bank = std::size_t(bankOf(words[std::size_t(w)]));
      ++traffic.wordsPerBank[bank];
      passes = std::max(passes, ++served[bank]);
    }
    traffic.wavefronts += passes;
  }
  return traffic;
}

KernelTraffic kernelTraffic(const Mapping& mapping, std::int64_t sampleBudget) {
  KernelTraffic traffic;
  const Shape& shape = mapping.shape();
  traffic.flops = shape.flops();
  traffic.compulsoryBytes = double(problemBytes(shape, mapping.element()));
  for (const Access access : {Access::LoadA, Access::LoadB, Access::StoreC}) {
    AccessTotals& totals = traffic.accesses[std::size_t(access)];
    totals = countAccess(mapping, access, std::max<std::int64_t>(sampleBudget, 1), traffic.exact);
    traffic.globalBytes += totals.bytesFetched();
  }
  return traffic;
}

std::optional<SharedReadTotals> sharedReadTotals(const Mapping& mapping, Operand operand, int pad) {
  const int slots = mapping.sharedReadSlots(operand);
  if (slots == 0) return std::nullopt;
  SharedReadTotals totals;
  totals.operand = operand;
  totals.pad = pad;
  for (int warp = 0; warp < mapping.warpsPerBlock(); ++warp) {
    for (int kk = 0; kk < mapping.kDepth(); ++kk) {
      for (int slot = 0; slot < slots; ++slot) {
        // No read at this k (a fragment map reads once per chunk of k), or none by this warp.
        const std::optional<WarpSharedAccess> access =
            mapping.warpSharedRead(operand, warp, kk, pad, slot);
        if (!access) continue;
        const BankTraffic read = bankTraffic(*access);
        if (read.activeLanes == 0) continue;
        ++totals.reads;
        totals.wavefronts += read.wavefronts;
        totals.idealWavefronts += read.phases;
        totals.worstWavefronts = std::max(totals.worstWavefronts, read.wavefronts);
      }
    }
  }
  return totals;
}

}  // namespace tilescope
