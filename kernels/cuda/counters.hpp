// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Hardware counters of a kernel through CUPTI's range profiler (CUDA 12.6 and later). CUPTI is
// loaded when first asked for, so a machine without it, or one where profiling is reserved to
// administrators, still times every kernel and says why it has no counters.
#include <functional>
#include <optional>
#include <string>

#include "tilescope/backend.hpp"

namespace tilescope::cuda {

struct CounterCollection {
  std::optional<HardwareCounters> counters;
  std::optional<std::string> unavailable;  // why there are none, in plain words
};

// Runs `launch` once under the profiler on the current device. The profiler replays each kernel
// it launches as often as the metrics need (restoring memory in between), and the counters of
// every kernel are added up (cuBLAS may launch more than one). `tensorPipe` also reads the tensor
// cores' utilisation. A CUDA error from `launch` propagates; a profiling failure does not.
CounterCollection collectCounters(const std::function<void()>& launch, bool tensorPipe);

}  // namespace tilescope::cuda
