// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A sweep spread over the GPUs of a node: each device runs one run at a time on a backend of its
// own (its CUDA state and cuBLAS handle), and takes the next run in the order asked whenever it is
// free. The outcomes come back in that order, whichever device finished first.
#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tilescope/backend.hpp"
#include "tilescope/error.hpp"

namespace tilescope::plan {

struct RunOutcome {
  std::optional<RunResult> result;
  std::optional<std::string> failure;  // why the run failed (Backend::run's message)
  int device = 0;                      // the device it ran on
  bool ran() const { return result || failure; }
};

// Where a run stands: its index in `runs`, the device, and the backend's progress stage.
using SpreadProgress =
    std::function<void(std::size_t run, int device, double fraction, const std::string& stage)>;

// What to do about a failed run: make it again (the backend has recovered), or fail it with
// `note` added to its message.
struct Recovery {
  bool retry = false;
  std::string note;
};
// Asked on its device's thread about each failure; `retries`: how often this run was made again.
using RecoverFn = std::function<Recovery(Backend& backend, const Error& error, int retries)>;

// Runs `runs` on `backends[i]`'s device `devices[i]` (each request's device is replaced by the
// one it runs on). Stops taking new runs after a failure unless `keepGoing`, and when `cancel` is
// set (runs under way are cancelled through it); runs never started have no outcome (ran()).
// `progress` may be called from any of the devices' threads; `recover`, when given, may make a
// failed run again (a run server that lost its connection and came back).
std::vector<RunOutcome> runSpread(const std::vector<Backend*>& backends,
                                  const std::vector<int>& devices,
                                  const std::vector<RunRequest>& runs, bool keepGoing,
                                  const SpreadProgress& progress, const std::atomic<bool>* cancel,
                                  const RecoverFn& recover = {});

// The devices `--devices` names: "all" (0 .. count - 1) or a list "0,2"; each once and below
// `count`. Throws Error(InvalidArgument) naming what is wrong.
std::vector<int> parseDevices(const std::string& text, std::size_t count);

}  // namespace tilescope::plan
