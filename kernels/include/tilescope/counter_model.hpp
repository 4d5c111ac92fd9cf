// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The hardware's counters beside the traffic model's prediction, figure by figure, with what the
// model leaves out where the two part: the model counts every sector a warp asks for and no
// cache, the hardware counts what really crossed each level.
#include <string>
#include <vector>

#include "tilescope/backend.hpp"

namespace tilescope {

// How far apart model and hardware may be and still agree: 10 % of the model's figure.
inline constexpr double kCounterMargin = 0.10;

struct CounterComparison {
  std::string what;  // "global loads", "DRAM traffic", ...
  std::string unit;  // "sectors per request", "MB", ...
  double model = 0, measured = 0;
  bool agrees = true;
  std::string why;  // where they part: which one is larger and why it may be, in plain words
};

// Every figure both the model and `result.counters` give for the run, in a fixed order: global
// load and store sectors per request, shared wavefronts per request, bank conflicts, DRAM
// traffic, arithmetic intensity and occupancy. Empty without counters. The library reference has
// no Mapping: only its DRAM traffic is set against the compulsory traffic.
std::vector<CounterComparison> compareWithModel(const RunResult& result);

// The figures where hardware and model part, in one line a student can read ("DRAM traffic:
// counted 5.41 MB, the model 4299 MB: ..."), "" where they agree or there are no counters.
std::string partingSummary(const RunResult& result);

}  // namespace tilescope
