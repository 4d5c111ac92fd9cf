// SPDX-License-Identifier: GPL-3.0-or-later
#include "tilescope/remote/reconnect.hpp"

#include <algorithm>
#include <thread>

namespace tilescope::remote {

std::chrono::seconds reconnectDelay(int attempt) {
  constexpr int kLongest = 30;
  const int doublings = std::clamp(attempt - 1, 0, 5);
  return std::chrono::seconds(std::min(kLongest, 1 << doublings));
}

bool waitForServer(RemoteBackend& server, std::chrono::seconds giveUpAfter,
                   const std::atomic<bool>* cancel, const WaitReport& report) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point deadline = Clock::now() + giveUpAfter;
  std::string why = server.lostConnection().value_or("the connection was lost");
  for (int attempt = 1;; ++attempt) {
    const std::chrono::seconds pause = reconnectDelay(attempt);
    if (Clock::now() + pause > deadline) return false;
    if (report) report(why, attempt, pause);
    const Clock::time_point wakeUp = Clock::now() + pause;
    while (Clock::now() < wakeUp) {
      if (cancel && cancel->load()) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    const std::optional<std::string> reason = server.unavailableReason();
    if (server.isConnected()) return true;
    why = "not back yet: " + reason.value_or("the server did not answer");
  }
}

plan::RecoverFn recoverLostServers(std::chrono::seconds giveUpAfter,
                                   const std::atomic<bool>* cancel, WaitReport report) {
  return [=](Backend& backend, const Error& error, int retries) -> plan::Recovery {
    auto* server = dynamic_cast<RemoteBackend*>(&backend);
    if (error.kind() != ErrorKind::Unavailable || !server || !server->lostConnection()) return {};
    if (retries >= kRunRetriesAfterLoss)
      return {false, "; it was lost again when the run was made once more, so the run fails"};
    if (waitForServer(*server, giveUpAfter, cancel, report)) return {true, ""};
    if (cancel && cancel->load()) return {};
    const long long seconds = giveUpAfter.count();
    return {false, "; the server did not come back within " +
                       (seconds % 60 == 0 ? std::to_string(seconds / 60) + " min"
                                          : std::to_string(seconds) + " s")};
  };
}

}  // namespace tilescope::remote
