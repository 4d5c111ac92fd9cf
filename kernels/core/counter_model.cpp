// SPDX-License-Identifier: GPL-3.0-or-later
#include "tilescope/counter_model.hpp"

#include <cmath>
#include <cstdio>
#include <optional>

#include "tilescope/error.hpp"
#include "tilescope/mapping.hpp"
#include "tilescope/traffic.hpp"

namespace tilescope {
namespace {

bool within(double model, double measured) {
  return std::abs(measured - model) <= kCounterMargin * std::abs(model) + 1e-9;
}

// Two significant digits: 20, 3.4, 0.27.
std::string twoDigits(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2g", value);
  return text;
}

double ratio(double part, double whole) {
  return whole > 0 ? part / whole : 0;
}

std::optional<Mapping> mappingOf(const RunResult& result) {
  const KernelInfo* info = findKernel(result.kernel.kernel);
  if (!info || !info->hasMapping) return std::nullopt;
  try {
    return Mapping(result.kernel, result.shape, result.element);
  } catch (const Error&) {
    return std::nullopt;
  }
}

// A per-request figure of one kind of access; none when the hardware saw no such request (a
// kernel that copies with cp.async or TMA issues no ordinary global loads).
void compareRequests(std::vector<CounterComparison>& out, const char* what, const char* unit,
                     double modelPart, double modelWhole, double measuredPart, double measuredWhole,
                     const char* moreWhy, const char* lessWhy) {
  if (modelWhole <= 0 || measuredWhole <= 0) return;
  CounterComparison c{what, unit, modelPart / modelWhole, measuredPart / measuredWhole, true, {}};
  c.agrees = within(c.model, c.measured);
  if (!c.agrees) c.why = c.measured > c.model ? moreWhy : lessWhy;
  out.push_back(std::move(c));
}

}  // namespace

std::vector<CounterComparison> compareWithModel(const RunResult& result) {
  std::vector<CounterComparison> out;
  if (!result.counters) return out;
  const HardwareCounters& hw = *result.counters;
  const std::optional<Mapping> mapping = mappingOf(result);
  const double flops = result.shape.flops();
  const double compulsory = double(problemBytes(result.shape, result.element));
  const double dram = hw.dramReadBytes + hw.dramWriteBytes;

  if (mapping) {
    const KernelTraffic traffic = kernelTraffic(*mapping);
    const AccessTotals& a = traffic.totals(Access::LoadA);
    const AccessTotals& b = traffic.totals(Access::LoadB);
    const AccessTotals& c = traffic.totals(Access::StoreC);
    compareRequests(
        out, "global loads", "sectors per request", a.sectors + b.sectors, a.requests + b.requests,
        hw.globalLoadSectors, hw.globalLoadRequests,
        "the hardware fetched more sectors per load than the model counts: loads the model does "
        "not see (index or bounds arithmetic reading memory, spilled registers) or requests split "
        "across 128-byte lines",
        "the hardware counted fewer sectors per load than the model: it also counts loads the "
        "model leaves out (the kernel's own small reads), and those touch few sectors");
    compareRequests(out, "global stores", "sectors per request", c.sectors, c.requests,
                    hw.globalStoreSectors, hw.globalStoreRequests,
                    "the stores touched more sectors than the model counts: partial stores at "
                    "the matrix edge or spilled registers written to local memory",
                    "the stores touched fewer sectors than the model counts: the compiler merged "
                    "stores the model counts one by one");

    // Shared memory: the reads of the inner product, every staged operand.
    double reads = 0, wavefronts = 0, conflicts = 0;
    for (Operand operand : {Operand::A, Operand::B}) {
      if (const auto totals = sharedReadTotals(*mapping, operand)) {
        const double perStep = double(mapping->blockCount()) * double(mapping->kSteps());
        reads += double(totals->reads) * perStep;
        wavefronts += double(totals->wavefronts) * perStep;
        conflicts += double(totals->conflicts()) * perStep;
      }
    }
    compareRequests(out, "shared-memory loads", "wavefronts per request", wavefronts, reads,
                    hw.sharedLoadWavefronts, hw.sharedLoadRequests,
                    "more passes per request than the model predicts: the compiler merged "
                    "neighbouring shared reads into 8- or 16-byte ones (fewer requests, more "
                    "passes each), or reads the model does not draw conflict; the bank conflicts "
                    "below tell which",
                    "fewer passes per request than the model predicts: the hardware serves "
                    "lanes that read the same words together, so a wide read most lanes share "
                    "takes fewer passes than the model's one per phase");
    if (reads > 0 && hw.sharedLoadRequests > 0) {
      CounterComparison bank{
          "bank conflicts",
          "extra wavefronts per shared request",
          ratio(conflicts, reads),
          ratio(hw.sharedBankConflicts, hw.sharedLoadRequests + hw.sharedStoreRequests),
          true,
          {}};
      bank.agrees =
          std::abs(bank.measured - bank.model) <= std::max(0.05, kCounterMargin * bank.model);
      if (!bank.agrees)
        bank.why = bank.measured > bank.model
                       ? "the hardware counted more conflicts than the model predicts: the "
                         "stores into the shared tiles conflict too, and the model draws only "
                         "the reads"
                       : "the hardware counted fewer conflicts than the model predicts: a read "
                         "the model splits may be served as a broadcast";
      out.push_back(std::move(bank));
    }

    CounterComparison bytes{"DRAM traffic", "MB", traffic.globalBytes / 1e6, dram / 1e6, true, {}};
    // The model has no cache: DRAM traffic between the compulsory bytes and the model's agrees.
    bytes.agrees = dram <= traffic.globalBytes * (1 + kCounterMargin) &&
                   dram >= compulsory * (1 - kCounterMargin);
    if (!bytes.agrees)
      bytes.why = dram > traffic.globalBytes
                      ? "more DRAM traffic than the model's no-reuse bound: evicted lines were "
                        "read again, or the kernel spilled registers to local memory"
                      : "less DRAM traffic than the operands themselves: they were still in the "
                        "L2 cache from the previous launch";
    else if (dram < traffic.globalBytes * (1 - kCounterMargin))
      bytes.why = "the L2 cache served most re-reads: DRAM moved " +
                  twoDigits(100 * dram / traffic.globalBytes) +
                  " % of the sectors the model counts without caches";
    out.push_back(bytes);
    if (dram > 0) {
      CounterComparison intensity{"arithmetic intensity",
                                  "FLOP per DRAM byte",
                                  traffic.arithmeticIntensity(),
                                  flops / dram,
                                  true,
                                  {}};
      intensity.agrees = bytes.agrees && within(intensity.model, intensity.measured);
      if (!intensity.agrees)
        intensity.why = intensity.measured > intensity.model
                            ? "the kernel is further right on the roofline than the model "
                              "places it: caches spared DRAM the re-reads the model counts"
                            : "the kernel moved more DRAM bytes per FLOP than the model counts";
      out.push_back(intensity);
    }
  } else {
    CounterComparison bytes{"DRAM traffic", "MB", compulsory / 1e6, dram / 1e6, true, {}};
    bytes.agrees = within(compulsory, dram);
    if (!bytes.agrees)
      bytes.why = dram > compulsory ? "the library read some operand tiles more than once"
                                    : "operands were still in the L2 cache from the last launch";
    out.push_back(bytes);
  }

  if (result.resources && result.resources->occupancy > 0) {
    CounterComparison occupancy{"occupancy",
                                "% of the SM's warps",
                                100 * result.resources->occupancy,
                                100 * hw.achievedOccupancy,
                                true,
                                {}};
    occupancy.agrees = within(occupancy.model, occupancy.measured);
    if (!occupancy.agrees)
      occupancy.why = occupancy.measured < occupancy.model
                          ? "fewer warps were resident than could be: the last wave of blocks "
                            "leaves SMs part-empty, and warps of a block finish at different "
                            "times"
                          : "more warps were resident than the resources allow on paper";
    out.push_back(occupancy);
  }
  return out;
}

std::string partingSummary(const RunResult& result) {
  const auto figure = [](double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3g", value);
    return std::string(text);
  };
  std::string summary;
  for (const CounterComparison& c : compareWithModel(result)) {
    if (c.agrees) continue;
    if (!summary.empty()) summary += "; ";
    summary += c.what + ": counted " + figure(c.measured) + ", the model " + figure(c.model) + " " +
               c.unit + " (" + c.why + ")";
  }
  return summary;
}

}  // namespace tilescope
