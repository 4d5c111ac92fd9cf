#pragma once
// Derived figures the table and the charts share, so both always agree. No Qt.
#include <optional>
#include <string>
#include <vector>

#include "tilescope/backend.hpp"

namespace tilescope::app {

// The catalogue id of the reference every other kernel is compared with.
inline constexpr const char* kLibraryKernel = "library";

// The "size" a chart puts on its x axis: N for a square problem, the geometric mean of M, N and K
// (the cube with the same work) otherwise.
double nominalSize(const Shape& shape);

// "shared-tiled tile=16", "library bf16": one chart series per kernel, element type (named
// unless fp32) and parameters, so results of different types never share a line. `withBackend`
// appends " (cpu: <device>)", for results that mix backends or devices.
std::string seriesName(const RunResult& result, bool withBackend);

// True when the results come from more than one backend or device.
bool mixesDevices(const std::vector<RunResult>& results);

// The library reference's median over this result's median, in percent, from the latest library
// result on the same backend, device, shape and element type; nullopt when there is none.
std::optional<double> percentOfLibrary(const std::vector<RunResult>& results, std::size_t index);

// The autotune landscape: every configuration measured of the latest result's kernel in its type
// at its shape on its backend and device (the latest run of each), fastest first.
std::vector<RunResult> landscapeOf(const std::vector<RunResult>& results);

}  // namespace tilescope::app
