// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What a client does when a run server's connection is lost mid-queue: the runs left wait, it
// tries to connect again after growing pauses, and the run the loss interrupted is made once
// more. One policy for the app's queue and tilescope-bench. No Qt.
#include <atomic>
#include <chrono>
#include <functional>
#include <string>

#include "tilescope/plan/spread.hpp"
#include "tilescope/remote/remote_backend.hpp"

namespace tilescope::remote {

// The pause before the `attempt`-th try to connect again (1-based): 1, 2, 4, 8, 16, then 30 s.
std::chrono::seconds reconnectDelay(int attempt);

// How many times a run interrupted by a lost connection is made again before it fails.
inline constexpr int kRunRetriesAfterLoss = 1;

// Told before each pause: why the server is not back (first the lost connection's reason, then
// "not back yet: " and the last try's), the attempt coming and its pause.
using WaitReport = std::function<void(const std::string& why, int attempt, std::chrono::seconds)>;

// Waits for `server` to come back after a lost connection, trying to connect after each
// reconnectDelay. True once connected; false when `giveUpAfter` has passed or `cancel` is set.
bool waitForServer(RemoteBackend& server, std::chrono::seconds giveUpAfter,
                   const std::atomic<bool>* cancel, const WaitReport& report);

// For plan::runSpread: a run that failed because its run server's connection was lost waits for
// the server (waitForServer) and is made again, up to kRunRetriesAfterLoss times; a server that
// does not come back within `giveUpAfter` fails it, saying so. Other failures stay failures.
plan::RecoverFn recoverLostServers(std::chrono::seconds giveUpAfter,
                                   const std::atomic<bool>* cancel, WaitReport report);

}  // namespace tilescope::remote
