// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Results made up for tests that exercise the table, charts and files without measuring.
#include <string>

#include "tilescope/backend.hpp"

namespace tilescope::test {

inline RunResult madeUpResult(const std::string& kernel, Params params, std::int64_t size,
                              double medianMs) {
  RunResult result;
  result.backend = "cpu";
  result.device = "Test CPU";
  result.kernel = {kernel, std::move(params)};
  result.shape = {size, size, size};
  result.stats = {medianMs, medianMs * 0.9, medianMs * 1.3, 0.01, 12};
  result.gflops = result.shape.flops() / (medianMs * 1e6);
  Verification check;
  check.relError = 1.5e-7;
  check.normalizedError = 2e-8;
  check.maxAbsError = 3e-6;
  check.tolerance = kFloat32Tolerance;
  check.passed = true;
  result.verification = check;
  return result;
}

}  // namespace tilescope::test
