// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A Backend that runs on a run server (tilescope-bench --serve) started by a command: `ssh HOST
// tilescope-bench --serve`, `ssh HOST srun --gres=gpu:1 tilescope-bench --serve`, or a local
// child that isolates the CUDA backend from the app. The worker, the queue and tilescope-bench
// --via use it like any backend. No Qt.
#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "tilescope/backend.hpp"

namespace tilescope::remote {

class ServerProcess;

struct ServerAddress {
  // Shown in the backend's id ("cuda@gpu1"); empty: the id is the remote backend's own ("cuda"),
  // for a local isolating child and --via, whose results read as if run in-process.
  std::string name;
  std::string command;  // run through /bin/sh -c
  std::string backend;  // the server's backend to run on: "cuda" or "cpu"
  // A request fails when the server sends no line for this long (progress lines count): a hung
  // connection or a stuck server, which is then stopped. Longer than any one repetition the
  // kernels' work bounds allow; tests make it short.
  std::chrono::milliseconds replyTimeout = std::chrono::minutes(5);
};

// "cuda@gpu1", or "cuda" without a name.
std::string backendIdOf(const ServerAddress& address);

class RemoteBackend : public Backend {
 public:
  explicit RemoteBackend(ServerAddress address);
  ~RemoteBackend() override;

  std::string id() const override;
  // Connects when not connected (the server is started and greeted), so the reason is the
  // connection's failure as well as the server backend's own.
  std::optional<std::string> unavailableReason() const override;
  // The server's devices; each fact list ends with "server" (name and command), so sessions
  // record where they ran.
  std::vector<DeviceInfo> devices() const override;
  // A dropped connection fails the run with Error(Unavailable) and the server's stderr; the next
  // call reconnects. A sticky fault on the server fails it the same way and restarts the server.
  // A cancel is sent to the server, which stops between repetitions; one that does not answer
  // within a few seconds is killed, and so is one silent for the address's replyTimeout (the run
  // fails with Error(Unavailable); the next call reconnects).
  RunResult run(const RunRequest& request, const ProgressFn& progress,
                const std::atomic<bool>* cancel) override;
  DeviceCeilings measureCeilings(int device, const ProgressFn& progress,
                                 const std::atomic<bool>* cancel) override;
  // The server's traced launch; a cancel stops the server (a launch cannot be interrupted) and
  // the next call restarts it.
  KernelTrace trace(const TraceRequest& request, const ProgressFn& progress,
                    const std::atomic<bool>* cancel) override;

  const ServerAddress& address() const { return address_; }

 protected:
  std::optional<std::string> capabilityRefusal(const KernelConfig& kernel, const Shape& shape,
                                               ElementType element) const override;

 private:
  struct Connection;
  // Starts and greets the server unless connected; throws Error(Unavailable).
  Connection& connected() const;
  // Sends `message` and returns the reply that ends it, forwarding progress; throws
  // tilescope::Error with the server's kind and message.
  nlohmann::json exchange(nlohmann::json message, const ProgressFn& progress,
                          const std::atomic<bool>* cancel);
  [[noreturn]] void disconnect(const std::string& why) const;

  ServerAddress address_;
  mutable std::unique_ptr<Connection> connection_;
  mutable std::optional<std::string> lastFailure_;
  mutable std::uint64_t nextId_ = 1;
};

}  // namespace tilescope::remote
