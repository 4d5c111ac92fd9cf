// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A run server as a child process: started by a shell command (`ssh HOST tilescope-bench --serve`,
// `srun ...`, or the local binary), spoken to through its stdin and stdout, its stderr kept for
// messages. No Qt: the app's worker thread and tilescope-bench --via both use it.
#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "tilescope/remote/line_reader.hpp"

namespace tilescope::remote {

class ServerProcess {
 public:
  // Runs `command` through /bin/sh -c. Throws tilescope::Error(Unavailable) when no process can
  // be started at all (a command that does not exist fails later, with the shell's message).
  // A request the server takes no byte of for `writeTimeout` fails (send).
  explicit ServerProcess(const std::string& command,
                         std::chrono::milliseconds writeTimeout = kDefaultWriteTimeout);
  // Closes the server's stdin, gives it a moment to leave, then kills it and every process of
  // its group (what the shell started).
  ~ServerProcess();
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  static constexpr std::chrono::milliseconds kDefaultWriteTimeout = std::chrono::seconds(30);

  // Throws tilescope::Error(Unavailable) with dropped()'s message when the pipe is closed, and
  // "the server stopped reading" when the pipe stays full for the write timeout; Error(Cancelled)
  // when `stop` is set while it waits for room.
  void send(const nlohmann::json& message, const std::atomic<bool>* stop = nullptr);
  // Writes `line` and a newline as they are (a test's malformed requests).
  void sendLine(const std::string& line, const std::atomic<bool>* stop = nullptr);
  // The next message, or nullopt when `timeoutMs` passes first or `stop` is set. Throws
  // tilescope::Error(Unavailable) when the server has exited or closed its output (dropped()),
  // or when it writes a line that is not a protocol message.
  std::optional<nlohmann::json> receive(int timeoutMs, const std::atomic<bool>* stop = nullptr);

  // The last few kilobytes the server wrote to stderr (ssh's and the shell's messages too),
  // without the final line break.
  std::string stderrTail() const;
  // "the server exited with status 127 (...): <stderr>", for a connection that ended
  // (explainExit).
  std::string dropped();
  // Whether the server has closed its output or exited: the connection is gone, as opposed to a
  // server still there that wrote something wrong.
  bool ended() { return lines_.ended() || reap(0).has_value(); }
  // The server answered hello: a connection that ends now was lost, not refused.
  void markGreeted() { greeted_ = true; }

 private:
  // Waits up to `waitMs` for the child to exit; its status once known.
  std::optional<int> reap(int waitMs);
  // Whether any process of the server's group is left (zombies waiting for init included).
  bool groupLives() const;
  // Waits up to `waitMs` for the shell to exit and the rest of its group to end.
  bool groupEnds(int waitMs);
  void drainStderr();

  std::chrono::milliseconds writeTimeout_;
  pid_t pid_ = -1;
  int toServer_ = -1, fromServer_ = -1, errorsFromServer_ = -1;
  std::optional<int> status_;  // as waitpid reports it
  bool throughSsh_ = false;
  bool greeted_ = false;
  LineReader lines_;
  std::thread stderrReader_;
  std::atomic<bool> closing_{false};
  mutable std::mutex stderrMutex_;
  std::string stderrTail_;
};

}  // namespace tilescope::remote
