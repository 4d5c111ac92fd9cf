// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// tilescope-bench --serve: answers the protocol's requests (protocol.hpp, docs/remote.md) read
// from one file descriptor and writes its replies to another, running them on the backends of
// this process. No Qt, no socket: whoever starts the process (ssh, srun, the app) owns the pipe.
#include <atomic>
#include <string>

namespace tilescope::remote {

// Serves until `bye` or the end of the input, then returns the exit status (0). A malformed
// line, an unknown verb or a refused request gets an `error` reply and the server carries on;
// a sticky device fault is reported with "restart": true and the backend refuses every later
// request until the process is restarted. `program` is what hello reports ("tilescope-bench
// 0.1.0"). Once `interrupt` is set (a signal), or once nobody reads the output (a pipe whose
// reader closed it), it stops: at once when idle, after the current launch when running (that
// request fails as cancelled), dropping the requests that wait and ending the processes it
// started in its process group (a user kernel's compiler); the caller turns a signal into its
// exit status.
int serve(int inputFd, int outputFd, const std::string& program,
          const std::atomic<bool>* interrupt = nullptr);

}  // namespace tilescope::remote
