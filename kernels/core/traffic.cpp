#include "tilescope/traffic.hpp"

#include <algorithm>

namespace tilescope {

namespace {

// Sorts and removes repeats in place; returns how many distinct values remain.
template <typename T, std::size_t N>
int distinctCount(std::array<T, N>& values, int count) {
  std::sort(values.begin(), values.begin() + count);
  return int(std::unique(values.begin(), values.begin() + count) - values.begin());
}

AccessTotals countAccess(const Mapping& mapping, Access access, std::int64_t sampleBudget,
                         bool& exact) {
  AccessTotals totals;
  totals.access = access;
  const std::int64_t warps = mapping.warpsPerBlock();
  const std::int64_t instructions = mapping.instructionsPerStep(access);
  // A store happens once per run, loads once per k-step.
  const std::int64_t steps = access == Access::StoreC ? 1 : mapping.kSteps();
  const long double total =
      static_cast<long double>(mapping.blockCount()) * warps * steps * instructions;
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
    const Dim2 block{int(blockIndex % grid.x), int(blockIndex / grid.x)};
    const RequestTraffic request =
        requestTraffic(mapping.warpAccess(block, warp, access, step, instr));
    if (request.activeLanes == 0) continue;
    totals.requests += 1;
    totals.sectors += request.sectors;
    totals.bytesUsed += double(request.bytesUsed);
  }
  const double scale = double(total / evaluated);
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
  std::array<std::int64_t, kWarpSize> elements{}, sectors{}, lines{};
  RequestTraffic traffic;
  for (const std::int64_t element : access.element) {
    if (element < 0) continue;
    elements[traffic.activeLanes] = element;
    sectors[traffic.activeLanes] = sectorOf(element);
    lines[traffic.activeLanes] = lineOf(element);
    ++traffic.activeLanes;
  }
  const int lanes = traffic.activeLanes;
  traffic.bytesUsed = std::int64_t(distinctCount(elements, lanes)) * kElementBytes;
  traffic.sectors = distinctCount(sectors, lanes);
  traffic.lines = distinctCount(lines, lanes);
  return traffic;
}

BankTraffic bankTraffic(const WarpSharedAccess& access) {
  std::array<int, kWarpSize> words{};
  BankTraffic traffic;
  for (const int word : access.word) {
    if (word >= 0) words[traffic.activeLanes++] = word;
  }
  const int distinct = distinctCount(words, traffic.activeLanes);
  traffic.broadcast = distinct < traffic.activeLanes;
  for (int w = 0; w < distinct; ++w) {
    const int served = ++traffic.wordsPerBank[std::size_t(bankOf(words[std::size_t(w)]))];
    traffic.wavefronts = std::max(traffic.wavefronts, served);
  }
  return traffic;
}

KernelTraffic kernelTraffic(const Mapping& mapping, std::int64_t sampleBudget) {
  KernelTraffic traffic;
  const Shape& shape = mapping.shape();
  traffic.flops = shape.flops();
  traffic.compulsoryBytes = double(shape.bytes());
  for (const Access access : {Access::LoadA, Access::LoadB, Access::StoreC}) {
    AccessTotals& totals = traffic.accesses[std::size_t(access)];
    totals = countAccess(mapping, access, std::max<std::int64_t>(sampleBudget, 1), traffic.exact);
    traffic.globalBytes += totals.bytesFetched();
  }
  return traffic;
}

std::optional<SharedReadTotals> sharedReadTotals(const Mapping& mapping, Operand operand, int pad) {
  if (!mapping.warpSharedRead(operand, 0, 0, pad)) return std::nullopt;
  SharedReadTotals totals;
  totals.operand = operand;
  totals.pad = pad;
  for (int warp = 0; warp < mapping.warpsPerBlock(); ++warp) {
    for (int kk = 0; kk < mapping.kDepth(); ++kk) {
      const BankTraffic read = bankTraffic(*mapping.warpSharedRead(operand, warp, kk, pad));
      if (read.activeLanes == 0) continue;
      ++totals.reads;
      totals.wavefronts += read.wavefronts;
      totals.worstWavefronts = std::max(totals.worstWavefronts, read.wavefronts);
    }
  }
  return totals;
}

}  // namespace tilescope
