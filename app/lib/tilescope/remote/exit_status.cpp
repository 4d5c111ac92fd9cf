// SPDX-License-Identifier: GPL-3.0-or-later
#include "tilescope/remote/exit_status.hpp"

#include <sys/wait.h>

#include <array>
#include <cstring>
#include <string_view>

namespace tilescope::remote {
namespace {

bool mentionsAny(const std::string& errors, std::initializer_list<std::string_view> phrases) {
  for (const std::string_view phrase : phrases)
    if (errors.find(phrase) != std::string::npos) return true;
  return false;
}

// OpenSSH's words for each way it fails (ssh(1) exits 255 for all of them).
std::string sshFailure(const std::string& errors, bool greeted) {
  if (mentionsAny(errors, {"Could not resolve hostname", "Name or service not known"}))
    return "ssh cannot find the host: check its name (and ~/.ssh/config)";
  if (mentionsAny(errors, {"Host key verification failed", "REMOTE HOST IDENTIFICATION HAS CHANGED",
                           "no matching host key type"}))
    return "ssh could not log in: it does not know or trust the host's key (connect once in a "
           "terminal to accept a new host's key; a changed key needs the host's administrator)";
  if (mentionsAny(errors, {"Permission denied", "Too many authentication failures",
                           "No more authentication methods"}))
    return "ssh could not log in: the host refused the user name or the key (check them with "
           "ssh-add -l; ssh-copy-id puts the key on the host)";
  if (mentionsAny(errors, {"Connection closed by", "Connection reset", "Broken pipe",
                           "client_loop: send disconnect", "Timeout, server",
                           "closed by remote host", "not responding"}))
    return "the network dropped, or the host went down or restarted";
  if (mentionsAny(errors, {"Connection refused", "Connection timed out", "No route to host",
                           "Network is unreachable", "Operation timed out"}))
    return "ssh cannot reach the host (it is down, has no ssh server, or a firewall or the "
           "network is in the way)";
  if (greeted)
    return "ssh gave no reason: the server was killed on the host, or ssh was stopped on this "
           "machine (a dropped network makes ssh say so)";
  return "ssh failed without a message: run the command once in a terminal to see why";
}

}  // namespace

bool startsSsh(const std::string& command) {
  const std::size_t start = command.find_first_not_of(" \t");
  if (start == std::string::npos) return false;
  const std::string_view first =
      std::string_view(command).substr(start, command.find_first_of(" \t", start) - start);
  return first == "ssh" || (first.size() > 4 && first.substr(first.size() - 4) == "/ssh");
}

std::string explainExit(int waitStatus, const std::string& errors, const ExitContext& context) {
  if (WIFSIGNALED(waitStatus) && context.throughSsh)  // the shell ran ssh in its place
    return "ssh was killed on this machine by signal " + std::to_string(WTERMSIG(waitStatus)) +
           " (" + ::strsignal(WTERMSIG(waitStatus)) + ")";
  if (WIFSIGNALED(waitStatus))
    return "the server was killed by signal " + std::to_string(WTERMSIG(waitStatus)) + " (" +
           ::strsignal(WTERMSIG(waitStatus)) + ")";
  if (!WIFEXITED(waitStatus)) return "the server ended";
  const int code = WEXITSTATUS(waitStatus);
  std::string message = "the server exited with status " + std::to_string(code);
  if (code == 255 && context.throughSsh)
    return message + " (" + sshFailure(errors, context.greeted) + ")";
  // What the shell means by its statuses.
  if (code == 127)
    message +=
        " (a command was not found: give tilescope-bench's full path, or put it on the PATH of "
        "non-interactive shells on the server; see docs/remote.md)";
  else if (code == 126)
    message += " (a command could not be executed: check its permissions)";
  else if (code > 128 && code <= 128 + 64 && context.throughSsh)  // the local shell's or the host's
    message += " (killed by signal " + std::to_string(code - 128) + ", " + ::strsignal(code - 128) +
               ": ssh on this machine, or the command on the host)";
  else if (code > 128 && code <= 128 + 64)  // a shell's report of a child's signal
    message +=
        " (killed by signal " + std::to_string(code - 128) + ", " + ::strsignal(code - 128) + ")";
  else if (code == 0 && !context.greeted)
    message += " before answering: is the command tilescope-bench --serve?";
  return message;
}

}  // namespace tilescope::remote
