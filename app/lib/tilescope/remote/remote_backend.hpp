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
  // The server must answer hello within this long: Slurm may queue its job first, and ssh may
  // ask nothing (it has no terminal). Tests make it short.
  std::chrono::milliseconds helloTimeout = std::chrono::minutes(2);
  // The app closes a server idle this long (so a Slurm job is released); zero: never.
  std::chrono::milliseconds idleClose = std::chrono::minutes(10);

  bool operator==(const ServerAddress&) const = default;
};

// "cuda@gpu1", or "cuda" without a name.
std::string backendIdOf(const ServerAddress& address);

class RemoteBackend : public Backend {
 public:
  // `stopConnecting`, when given, ends a wait for the server's hello (Error(Cancelled)).
  explicit RemoteBackend(ServerAddress address, const std::atomic<bool>* stopConnecting = nullptr);
  ~RemoteBackend() override;

  std::string id() const override;
  // Connects when not connected (the server is started and greeted), so the reason is the
  // connection's failure as well as the server backend's own.
  std::optional<std::string> unavailableReason() const override;
  // The server's devices; each fact list ends with "server" (name and command), so sessions
  // record where they ran.
  std::vector<DeviceInfo> devices() const override;
  // A dropped connection fails the run with Error(Unavailable), the reason in words
  // (explainExit) and the server's stderr, and sets lostConnection(); the next call reconnects.
  // A sticky fault on the server fails it the same way and restarts the server. A cancel is sent
  // to the server, which stops between repetitions; one that does not answer within a few
  // seconds is killed, and so is one silent for the address's replyTimeout (a lost connection
  // too).
  RunResult run(const RunRequest& request, const ProgressFn& progress,
                const std::atomic<bool>* cancel) override;
  DeviceCeilings measureCeilings(int device, const ProgressFn& progress,
                                 const std::atomic<bool>* cancel) override;
  // The server's traced launch; a cancel stops the server (a launch cannot be interrupted) and
  // the next call restarts it.
  KernelTrace trace(const TraceRequest& request, const ProgressFn& progress,
                    const std::atomic<bool>* cancel) override;

  const ServerAddress& address() const { return address_; }
  // Whether a server is running and greeted (unavailableReason() and every request connect).
  bool isConnected() const { return connection_ != nullptr; }
  // Why the last connection ended against the client's will (dropped, killed, silent), until the
  // next connection is made; nullopt after a connection that could not be made at all, a
  // restart after a sticky fault or close().
  const std::optional<std::string>& lostConnection() const { return lost_; }
  // Says goodbye and ends the server (an idle one, so a Slurm job is released).
  void close();

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
  [[noreturn]] void loseConnection(const std::string& why) const;

  ServerAddress address_;
  mutable std::unique_ptr<Connection> connection_;
  mutable std::optional<std::string> lastFailure_;
  mutable std::optional<std::string> lost_;
  const std::atomic<bool>* stopConnecting_ = nullptr;
  mutable std::uint64_t nextId_ = 1;
};

}  // namespace tilescope::remote
