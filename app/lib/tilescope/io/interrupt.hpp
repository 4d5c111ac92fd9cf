// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Ctrl-C, SIGTERM, SIGHUP and SIGQUIT for both front ends: the first asks the work to stop after
// the current run so that what was measured is still written; another within the grace period
// is absorbed (the writing goes on); one after it ends the process the usual way, for a run that
// cannot be interrupted.
#include <atomic>

namespace tilescope::io {

inline constexpr int kInterruptGraceSeconds = 30;

// Installs the handlers. `stop` is set on the first signal; when `notifyDescriptor` is not -1 a
// byte is written to it too (for an event loop to wake on). Call once per process.
void installInterruptHandlers(std::atomic<bool>* stop, int notifyDescriptor = -1);

// The first signal received, or 0.
int interruptSignal();

// The exit status of a process that stopped for `signal`: 128 + its number (130 for Ctrl-C).
inline int interruptedExitCode(int signal) {
  return 128 + signal;
}

}  // namespace tilescope::io
