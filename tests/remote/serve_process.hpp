// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the tests of a run server as a process share: how long a reply may take, and whether a
// process has ended.
#include <signal.h>
#include <sys/types.h>

#include <fstream>
#include <string>

namespace tilescope::remote::test {

// Generous: an asan build on a loaded machine is slow, and a hang fails here instead of at the
// test's timeout.
inline constexpr int kReplyTimeoutMs = 60000;

// Whether process `pid` has ended (a zombie that init has not reaped yet counts as ended). The
// state follows the command's closing parenthesis in /proc/PID/stat (a name may hold spaces).
inline bool ended(pid_t pid) {
  if (::kill(pid, 0) != 0) return true;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  std::getline(stat, text);
  const std::size_t nameEnd = text.rfind(')');
  return nameEnd == std::string::npos || text.compare(nameEnd, 4, ") Z ") == 0;
}

}  // namespace tilescope::remote::test
