// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Derived figures the table and the charts share, so both always agree. No Qt.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tilescope/backend.hpp"
#include "tilescope/ceilings.hpp"

namespace tilescope::desktop {

// The catalogue id of the reference every other kernel is compared with.
inline constexpr const char* kLibraryKernel = "library";

// The "size" a chart puts on its x axis: N for a square problem, the geometric mean of M, N and K
// (the cube with the same work) otherwise.
double nominalSize(const Shape& shape);

// "shared-tiled tile=16", "library bf16": one chart series per kernel, element type (named
// unless fp32) and parameters, so results of different types never share a line. `withBackend`
// appends " (cpu: <device>)", for results that mix backends or devices; `overlay` marks a series
// of a second session laid over the charts: "naive tile=16 · H200 sample".
std::string seriesName(const RunResult& result, bool withBackend, const std::string& overlay = {});

// True when the results come from more than one backend or device.
bool mixesDevices(const std::vector<RunResult>& results);

// The library reference's median over this result's median, in percent, from the latest library
// result on the same backend, device, shape and element type; nullopt when there is none.
std::optional<double> percentOfLibrary(const std::vector<RunResult>& results, std::size_t index);

// The autotune landscape: every configuration measured of the latest result's kernel in its type
// at its shape on its backend and device (the latest run of each), fastest first.
std::vector<RunResult> landscapeOf(const std::vector<RunResult>& results);

// Each result's arithmetic intensity (tilescope::arithmeticIntensity), computed once per kernel
// configuration, shape and element type: the traffic model takes milliseconds, and charts redraw
// often.
class IntensityCache {
 public:
  // nullopt for a configuration or shape the catalogue refuses (a session from another build).
  std::optional<Intensity> of(const RunResult& result);

 private:
  std::map<std::string, std::optional<Intensity>> known_;
};

// The ceilings measured on the result's backend and device, if any.
const DeviceCeilings* ceilingsOf(const std::vector<DeviceCeilings>& ceilings,
                                 const RunResult& result);

}  // namespace tilescope::desktop
