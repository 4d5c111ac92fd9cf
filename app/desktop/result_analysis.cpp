// SPDX-License-Identifier: GPL-3.0-or-later
#include "result_analysis.hpp"

#include <algorithm>
#include <cmath>

#include "tilescope/catalogue.hpp"
#include "tilescope/error.hpp"
#include "tilescope/plan/autotune.hpp"

namespace tilescope::desktop {

double nominalSize(const Shape& shape) {
  if (shape.m == shape.n && shape.n == shape.k) return double(shape.m);
  return std::cbrt(double(shape.m) * double(shape.n) * double(shape.k));
}

std::string seriesName(const RunResult& result, bool withBackend, const std::string& overlay) {
  std::string name = result.kernel.kernel;
  if (result.element != ElementType::F32) name.append(" ").append(toString(result.element));
  const std::string params = formatParams(result.kernel);
  if (!params.empty()) name += " " + params;
  if (withBackend) name += " (" + result.backend + ": " + result.device + ")";
  if (!overlay.empty()) name += " \u00b7 " + overlay;
  return name;
}

bool mixesDevices(const std::vector<RunResult>& results) {
  for (const RunResult& result : results) {
    if (result.backend != results.front().backend || result.device != results.front().device) {
      return true;
    }
  }
  return false;
}

std::optional<double> percentOfLibrary(const std::vector<RunResult>& results, std::size_t index) {
  const RunResult& result = results.at(index);
  for (auto it = results.rbegin(); it != results.rend(); ++it) {
    if (it->kernel.kernel == kLibraryKernel && it->backend == result.backend &&
        it->device == result.device && it->shape == result.shape && it->element == result.element &&
        result.stats.medianMs > 0) {
      return 100.0 * it->stats.medianMs / result.stats.medianMs;
    }
  }
  return std::nullopt;
}

std::vector<RunResult> landscapeOf(const std::vector<RunResult>& results) {
  std::vector<RunResult> landscape;
  if (results.empty()) return landscape;
  const RunResult& latest = results.back();
  for (auto it = results.rbegin(); it != results.rend(); ++it) {
    const bool sameGround = it->backend == latest.backend && it->device == latest.device &&
                            it->kernel.kernel == latest.kernel.kernel &&
                            it->element == latest.element && it->shape == latest.shape;
    const bool seen = std::any_of(landscape.begin(), landscape.end(),
                                  [&](const RunResult& kept) { return kept.kernel == it->kernel; });
    if (sameGround && !seen) landscape.push_back(*it);
  }
  return plan::byThroughput(std::move(landscape));
}

std::optional<Intensity> IntensityCache::of(const RunResult& result) {
  const Shape& shape = result.shape;
  const std::string key = result.kernel.kernel + " " + formatParams(result.kernel) + " " +
                          std::to_string(shape.m) + "x" + std::to_string(shape.n) + "x" +
                          std::to_string(shape.k) + " " + toString(result.element);
  if (const auto found = known_.find(key); found != known_.end()) return found->second;
  std::optional<Intensity> intensity;
  try {
    intensity = arithmeticIntensity(result.kernel, shape, result.element);
  } catch (const Error&) {
    // Refused here: the point cannot be placed, and nothing else about the result changes.
  }
  known_.emplace(key, intensity);
  return intensity;
}

const DeviceCeilings* ceilingsOf(const std::vector<DeviceCeilings>& ceilings,
                                 const RunResult& result) {
  for (const DeviceCeilings& device : ceilings) {
    if (device.backend == result.backend && device.device == result.device) return &device;
  }
  return nullptr;
}

}  // namespace tilescope::desktop
