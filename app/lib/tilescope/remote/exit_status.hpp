// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Why a run server's command ended, in words a user can act on: the shell's and ssh's exit
// statuses read together with what they wrote to stderr. No Qt.
#include <string>

namespace tilescope::remote {

struct ExitContext {
  bool throughSsh = false;  // the command starts with ssh (status 255 is then ssh's own)
  bool greeted = false;     // the server had answered hello: the connection was up
};

// "the server exited with status 127 (a command was not found: ...)"; `waitStatus` as waitpid
// reports it. ssh's 255 is told apart by its message: the host refused the key, the host's key is
// unknown, the host cannot be found or reached, or a connection that was up was lost; without a
// message after hello, the server was killed on the host (ssh passes no remote signal on) or ssh
// was stopped here.
std::string explainExit(int waitStatus, const std::string& errors, const ExitContext& context);

// Whether `command` (run through /bin/sh -c) starts ssh.
bool startsSsh(const std::string& command);

}  // namespace tilescope::remote
