// SPDX-License-Identifier: GPL-3.0-or-later
#include "tilescope/remote/remote_backend.hpp"

#include <algorithm>
#include <chrono>

#include "tilescope/error.hpp"
#include "tilescope/io/json_fields.hpp"
#include "tilescope/remote/protocol.hpp"
#include "tilescope/remote/replies.hpp"
#include "tilescope/remote/server_process.hpp"
#include "tilescope/report/report.hpp"

namespace tilescope::remote {

namespace {

using nlohmann::json;

// How often a waiting run looks at the cancel flag.
constexpr int kPollMs = 100;
// A server that does not answer a cancel within this long is hung (a kernel that never ends) and
// is killed; the next run starts a new one.
constexpr auto kCancelGrace = std::chrono::seconds(10);

// "300 s", or "250 ms" below a second.
std::string durationText(std::chrono::milliseconds duration) {
  if (duration.count() % 1000 == 0) return std::to_string(duration.count() / 1000) + " s";
  return std::to_string(duration.count()) + " ms";
}

}  // namespace

std::string backendIdOf(const ServerAddress& address) {
  return address.name.empty() ? address.backend : address.backend + "@" + address.name;
}

struct RemoteBackend::Connection {
  std::unique_ptr<ServerProcess> process;
  std::string program;
  std::optional<std::string> backendReason;  // the server's own backend is unavailable
  std::vector<DeviceInfo> devices;
  std::map<std::string, std::string> elementRefusals;
};

RemoteBackend::RemoteBackend(ServerAddress address, const std::atomic<bool>* stopConnecting)
    : address_(std::move(address)), stopConnecting_(stopConnecting) {}

RemoteBackend::~RemoteBackend() {
  close();
}

std::string RemoteBackend::id() const {
  return backendIdOf(address_);
}

void RemoteBackend::disconnect(const std::string& why) const {
  connection_.reset();
  lastFailure_ = why;
  unavailable(why);
}

void RemoteBackend::loseConnection(const std::string& why) const {
  lost_ = why;
  disconnect(why);
}

void RemoteBackend::close() {
  lost_.reset();
  if (!connection_) return;
  try {
    connection_->process->send({{"verb", "bye"}, {"id", nullptr}});
  } catch (const Error&) {
    // Gone already; the process is reaped as the connection goes.
  }
  connection_.reset();
}

RemoteBackend::Connection& RemoteBackend::connected() const {
  if (connection_) return *connection_;
  const std::string where =
      "server " + (address_.name.empty() ? "'" + address_.command + "'" : address_.name);
  auto connection = std::make_unique<Connection>();
  try {
    connection->process = std::make_unique<ServerProcess>(
        address_.command, std::min<std::chrono::milliseconds>(address_.replyTimeout,
                                                              ServerProcess::kDefaultWriteTimeout));
    connection->process->send({{"verb", "hello"}, {"id", 0}, {"protocol", kProtocolVersion}});
    const std::optional<json> hello =
        connection->process->receive(int(address_.helloTimeout.count()), stopConnecting_);
    if (!hello && stopConnecting_ && stopConnecting_->load())
      throw Error(ErrorKind::Cancelled, where + ": stopped while connecting");
    if (!hello) {
      const std::string errors = connection->process->stderrTail();
      unavailable(where + " did not answer within " + durationText(address_.helloTimeout) +
                  (errors.empty() ? ", and wrote nothing: a Slurm job still queued, or a command "
                                    "that does not start tilescope-bench --serve?"
                                  : ": " + errors));
    }
    connection->process->markGreeted();
    Hello read = readHello(*hello, address_.backend, where);
    connection->program = std::move(read.program);
    connection->backendReason = std::move(read.backendReason);
    for (DeviceInfo& info : read.devices) {
      info.facts.emplace_back(
          "server", (address_.name.empty() ? "" : address_.name + ": ") + address_.command);
      connection->devices.push_back(std::move(info));
    }
    connection->elementRefusals = std::move(read.elementRefusals);
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::Cancelled) throw;
    lastFailure_ =
        e.kind() == ErrorKind::Unavailable ? std::string(e.what()) : where + ": " + e.what();
    throw Error(ErrorKind::Unavailable, *lastFailure_);
  }
  lastFailure_.reset();
  lost_.reset();
  connection_ = std::move(connection);
  return *connection_;
}

std::optional<std::string> RemoteBackend::unavailableReason() const {
  try {
    return connected().backendReason;
  } catch (const Error& e) {
    return std::string(e.what());
  }
}

std::vector<DeviceInfo> RemoteBackend::devices() const {
  try {
    return connected().devices;
  } catch (const Error&) {
    return {};
  }
}

std::optional<std::string> RemoteBackend::capabilityRefusal(const KernelConfig& kernel,
                                                            const Shape&,
                                                            ElementType element) const {
  if (const auto why = tilescope::refusal(kernel)) return why;
  const KernelInfo& info = kernelInfo(kernel);
  if (!implements(info, address_.backend))
    return info.id + " is not implemented on the " + address_.backend + " backend";
  if (const auto why = elementRefusal(info, element)) return why;
  if (connection_) {
    const auto found = connection_->elementRefusals.find(toString(element));
    if (found != connection_->elementRefusals.end()) return found->second;
  }
  return std::nullopt;
}

json RemoteBackend::exchange(json message, const ProgressFn& progress,
                             const std::atomic<bool>* cancel) {
  Connection& connection = connected();
  const std::uint64_t id = nextId_++;
  message["id"] = id;
  const std::string where =
      "server " + (address_.name.empty() ? connection.program : address_.name);
  std::optional<std::chrono::steady_clock::time_point> cancelSent;
  auto lastLine = std::chrono::steady_clock::now();
  try {
    try {
      connection.process->send(message, cancel);
    } catch (const Error& e) {
      // A request cancelled half written leaves the stream unusable: the next run starts afresh.
      if (e.kind() == ErrorKind::Cancelled) connection_.reset();
      throw;
    }
    for (;;) {
      if (cancel && cancel->load() && !cancelSent) {
        connection.process->send({{"verb", "cancel"}, {"id", nullptr}});
        cancelSent = std::chrono::steady_clock::now();
      }
      if (cancelSent && std::chrono::steady_clock::now() - *cancelSent > kCancelGrace) {
        connection_.reset();  // kills it
        throw Error(ErrorKind::Cancelled, where + " did not stop within " +
                                              std::to_string(kCancelGrace.count()) +
                                              " s of the cancel and was stopped");
      }
      const std::optional<json> reply = connection.process->receive(kPollMs);
      const auto now = std::chrono::steady_clock::now();
      if (reply) {
        lastLine = now;
      } else if (!cancelSent && now - lastLine > address_.replyTimeout) {
        const std::string errors = connection.process->stderrTail();
        loseConnection(where + " sent nothing for " + durationText(address_.replyTimeout) +
                       " (no progress, no result): it or its connection hangs, so it was stopped" +
                       (errors.empty() ? "" : " (its stderr: " + errors + ")"));
      }
      if (!reply || reply->value("id", json()) != json(id)) continue;  // others: cancel's answer
      const std::string kind = replyKind(*reply);
      if (kind == "progress") {
        const Progress step = readProgress(*reply);
        if (progress) progress(step.fraction, step.stage);
        continue;
      }
      if (kind != "error") return *reply;
      const ErrorReply failed = readErrorReply(*reply);
      if (failed.restart) {
        // A sticky fault: only a new server process brings the device back.
        disconnect(where + ": " + failed.message + "; the server is restarted for the next run");
      }
      throw Error(failed.kind, failed.message);
    }
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::Unavailable || !connection_) throw;
    // A server that wrote something else than the protocol is stopped; the run fails.
    if (!connection.process->ended()) disconnect(where + ": " + e.what());
    loseConnection(where + ": the connection was lost: " + e.what());
  }
}

RunResult RemoteBackend::run(const RunRequest& request, const ProgressFn& progress,
                             const std::atomic<bool>* cancel) {
  // What this side can tell is wrong never travels: the server would answer the same.
  if (const auto why = tilescope::refusal(request.kernel))
    throw Error(ErrorKind::InvalidArgument, *why);
  if (const auto why = refusal(request)) throw Error(ErrorKind::Unsupported, *why);
  const json reply = exchange(
      {{"verb", "run"}, {"backend", address_.backend}, {"request", report::toJson(request)}},
      progress, cancel);
  RunResult result;
  try {
    result = report::resultFromJson(io::requiredField(reply, "result", ""));
  } catch (const std::exception& e) {
    disconnect("server " + address_.name +
               " sent a result this TileScope cannot read: " + e.what());
  }
  result.backend = id();
  return result;
}

DeviceCeilings RemoteBackend::measureCeilings(int device, const ProgressFn& progress,
                                              const std::atomic<bool>* cancel) {
  const json reply = exchange(
      {{"verb", "ceilings"}, {"backend", address_.backend}, {"device", device}}, progress, cancel);
  std::vector<DeviceCeilings> ceilings;
  try {
    ceilings = report::ceilingsFromJson(json::array({io::requiredField(reply, "ceilings", "")}));
  } catch (const std::exception& e) {
    disconnect("server " + address_.name +
               " sent ceilings this TileScope cannot read: " + e.what());
  }
  ceilings.front().backend = id();
  return ceilings.front();
}

KernelTrace RemoteBackend::trace(const TraceRequest& request, const ProgressFn& progress,
                                 const std::atomic<bool>* cancel) {
  RunRequest asRun;
  asRun.kernel = request.kernel;
  asRun.shape = request.shape;
  asRun.device = request.device;
  asRun.element = request.element;
  const json reply = exchange({{"verb", "trace"},
                               {"backend", address_.backend},
                               {"request", report::toJson(asRun)},
                               {"block", json::array({request.block.x, request.block.y})}},
                              progress, cancel);
  try {
    return report::traceFromJson(io::requiredField(reply, "trace", ""));
  } catch (const std::exception& e) {
    disconnect("server " + address_.name + " sent a trace this TileScope cannot read: " + e.what());
  }
}

}  // namespace tilescope::remote
