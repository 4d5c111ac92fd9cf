// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// tilescope-bench's exit statuses, its interrupt flag and its words on stdout and stderr. No Qt.
#include <atomic>
#include <string>
#include <string_view>

namespace tilescope::bench {

inline constexpr int kExitOk = 0;
inline constexpr int kExitUnverified = 1;  // a run failed verification, or the sanitizer a trace
inline constexpr int kExitError = 2;       // bad input, or a run failed

// Set by the first SIGINT, SIGTERM, SIGHUP or SIGQUIT (io/interrupt.hpp), read by the backend
// between repetitions.
extern std::atomic<bool> interruptRequested;

// One line on stderr that is not an error: what the bench decided for the user.
void printNote(const std::string& message);
// "tilescope-bench: error: ...", always one line.
void printError(std::string message);
// Results on standard output, every write checked: a full disk (> /dev/full) or a closed stdout
// is an error, never lost results with exit status 0.
void writeStdout(std::string_view text);
// A closed stdout or stderr would hand its number to the next file opened (the --output
// temporary); /dev/null opened read-only takes the place, so a write there fails, as it should.
void holdClosedStandardStreams();

}  // namespace tilescope::bench
