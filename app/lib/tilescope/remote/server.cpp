// SPDX-License-Identifier: GPL-3.0-or-later
#include "tilescope/remote/server.hpp"

#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <sstream>
#include <thread>
#include <vector>

#include "tilescope/backend.hpp"
#include "tilescope/plan/autotune.hpp"
#include "tilescope/plan/sweep.hpp"
#include "tilescope/remote/line_reader.hpp"
#include "tilescope/remote/protocol.hpp"
#include "tilescope/report/report.hpp"

namespace tilescope::remote {

namespace {

using nlohmann::json;

// The library reference multiplies every type, so what a backend refuses for it on a tiny problem
// is the backend's own limit for that type (as the app's worker reports it).
constexpr const char* kLibraryKernelId = "library";
// Requests read while one runs wait here; past this many the reader refuses more.
constexpr std::size_t kMaxWaiting = 1000;
// The backend reports every repetition; a few progress lines a second are enough for a client.
constexpr auto kProgressInterval = std::chrono::milliseconds(50);
// How often the reader looks for a signal or a client that went away while no line comes.
constexpr int kWatchMs = 100;

// Writes whole lines from any thread; a closed pipe (the client went away) is not an error here.
class Output {
 public:
  // `brokenFlag` is set when a write fails: the client is gone, so the run in flight stops.
  Output(int fd, std::atomic<bool>* brokenFlag) : fd_(fd), brokenFlag_(brokenFlag) {}

  bool broken() const { return broken_; }

  // Whether nobody reads the output any more (a pipe whose reader closed it), seen without
  // writing: an idle server whose client went away ends by itself.
  bool readerGone() const {
    pollfd output{fd_, 0, 0};
    return ::poll(&output, 1, 0) > 0 && (output.revents & (POLLERR | POLLHUP)) != 0;
  }

  void send(const json& message) {
    const std::string line = formatMessage(message);
    const std::lock_guard lock(mutex_);
    const char* data = line.data();
    std::size_t left = line.size();
    while (left > 0 && !broken_) {
      const ssize_t written = ::write(fd_, data, left);
      if (written < 0 && errno == EINTR) continue;
      if (written <= 0) {
        broken_ = true;
        brokenFlag_->store(true);
        break;
      }
      data += written;
      left -= std::size_t(written);
    }
  }

 private:
  int fd_;
  std::atomic<bool>* brokenFlag_;
  std::mutex mutex_;
  std::atomic<bool> broken_{false};
};

json errorReply(const json& id, const std::string& kind, const std::string& message,
                bool restart = false) {
  return {
      {"reply", "error"}, {"id", id}, {"kind", kind}, {"message", message}, {"restart", restart}};
}

// One line as read: a message, or why it is not one.
struct Incoming {
  std::uint64_t sequence = 0;
  json message;         // an object when `problem` is empty
  std::string problem;  // the line's fault
  bool endOfInput = false;
};

json catalogueJson() {
  json list = json::array();
  for (const KernelInfo& kernel : catalogue()) {
    json types = json::array(), params = json::array();
    for (const ElementType type : kernel.types) types.push_back(toString(type));
    for (const ParamSpec& p : kernel.params)
      params.push_back({{"name", p.name}, {"default", p.defaultValue}, {"allowed", p.allowed}});
    list.push_back({{"id", kernel.id},
                    {"name", kernel.displayName},
                    {"backends", kernel.backends},
                    {"types", std::move(types)},
                    {"params", std::move(params)}});
  }
  return list;
}

// The parent and the process group of process `pid` from /proc/PID/stat, or nullopt once it is
// gone.
std::optional<std::pair<pid_t, pid_t>> parentAndGroup(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  std::getline(stat, text);
  // The command name in parentheses may hold anything; the fields after its last ')' do not.
  const std::size_t nameEnd = text.rfind(')');
  if (nameEnd == std::string::npos) return std::nullopt;
  std::istringstream fields(text.substr(nameEnd + 1));
  std::string state;
  pid_t parent = 0, group = 0;
  if (!(fields >> state >> parent >> group)) return std::nullopt;
  return std::pair{parent, group};
}

// Ends what this process started in its process group (the compiler the CPU backend runs for a
// user kernel, and that compiler's own children), so nothing of the server outlives it.
void endChildProcesses() {
  const pid_t group = ::getpgrp();
  std::map<pid_t, std::vector<pid_t>> children;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", error)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = pid_t(std::stol(name));
    if (const auto parent = parentAndGroup(pid); parent && parent->second == group)
      children[parent->first].push_back(pid);
  }
  std::vector<pid_t> pending = {::getpid()};
  while (!pending.empty()) {
    const pid_t parent = pending.back();
    pending.pop_back();
    for (const pid_t child : children[parent]) {
      ::kill(child, SIGTERM);
      pending.push_back(child);
    }
  }
}

class Server {
 public:
  Server(int inputFd, int outputFd, std::string program, const std::atomic<bool>* interrupt)
      : input_(inputFd),
        output_(outputFd, &cancel_),
        program_(std::move(program)),
        interrupt_(interrupt) {}

  int run() {
    std::thread reader([this] { readLoop(); });
    for (;;) {
      const Incoming item = next();
      if (item.endOfInput) break;
      if (!item.problem.empty()) {
        output_.send(errorReply(nullptr, "invalid-argument", item.problem));
        continue;
      }
      const bool more = handle(item);
      {
        std::lock_guard lock(mutex_);
        running_ = false;
      }
      if (!more || output_.broken()) break;  // bye, or nobody reads the replies
    }
    stopped_ = true;
    reader.join();
    if (ending_ || output_.broken()) endChildProcesses();
    return 0;
  }

 private:
  // --- the reader thread: lines in, cancels at once, everything else queued -----------------
  void readLoop() {
    LineReader lines(input_, kMaxLineBytes);
    while (!stopped_) {
      if (interrupted()) return endNow();
      const std::optional<LineReader::Line> line = lines.next(&stopped_, kWatchMs);
      if (!line && lines.timedOut()) {
        if (output_.readerGone()) return endNow();
        continue;
      }
      if (!line) break;
      Incoming item;
      if (line->tooLong) {
        item.problem = "the line is longer than " + std::to_string(kMaxLineBytes) + " bytes";
      } else {
        try {
          item.message = parseMessage(line->text);
        } catch (const Error& e) {
          item.problem = e.what();
        }
      }
      if (item.problem.empty() && item.message.value("verb", json()) == "cancel") {
        cancelAll(idOf(item.message));
        continue;
      }
      enqueue(std::move(item));
    }
    if (stopped_) return;
    // The end of the requests: those read still run (a script may pipe a file in); a client
    // that went away is noticed when its pipe breaks.
    {
      std::lock_guard lock(mutex_);
      Incoming end;
      end.endOfInput = true;
      waiting_.push_back(std::move(end));
      ready_.notify_one();
    }
    // A signal still ends them.
    while (!stopped_) {
      if (interrupted()) return endNow();
      std::this_thread::sleep_for(std::chrono::milliseconds(kWatchMs));
    }
  }

  bool interrupted() const { return interrupt_ && interrupt_->load(); }

  // A signal, or a client that stopped reading: the run in flight stops after its current launch
  // (the backends' cancel flag), what waits is dropped, and the children go at once.
  void endNow() {
    {
      std::lock_guard lock(mutex_);
      ending_ = true;
      cancel_ = true;
      ready_.notify_one();
    }
    endChildProcesses();
  }

  void enqueue(Incoming item) {
    std::lock_guard lock(mutex_);
    if (waiting_.size() >= kMaxWaiting) {
      output_.send(errorReply(item.problem.empty() ? idOf(item.message) : json(nullptr),
                              "invalid-argument",
                              "too many requests waiting (" + std::to_string(kMaxWaiting) +
                                  "): wait for replies before sending more"));
      return;
    }
    item.sequence = ++sequence_;
    waiting_.push_back(std::move(item));
    ready_.notify_one();
  }

  // Cancels the request in progress and every one received before the cancel.
  void cancelAll(const json& id) {
    {
      std::lock_guard lock(mutex_);
      cancelThrough_ = sequence_;
      if (running_) cancel_ = true;
    }
    output_.send({{"reply", "cancel"}, {"id", id}});
  }

  Incoming next() {
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [this] { return ending_ || !waiting_.empty(); });
    if (ending_) {
      Incoming end;
      end.endOfInput = true;
      return end;
    }
    Incoming item = std::move(waiting_.front());
    waiting_.pop_front();
    running_ = true;
    cancel_ = item.sequence <= cancelThrough_;
    return item;
  }

  // --- the main thread: one request at a time --------------------------------------------------
  // False after bye.
  bool handle(const Incoming& item) {
    const json& message = item.message;
    const json id = idOf(message);
    try {
      const std::string verb = checkedVerb(message);
      if (verb == "hello") {
        output_.send(hello(id));
      } else if (verb == "run") {
        runOne(id, message);
      } else if (verb == "ceilings") {
        ceilings(id, message);
      } else if (verb == "autotune") {
        autotune(id, message);
      } else if (verb == "trace") {
        trace(id, message);
      } else {  // bye
        output_.send({{"reply", "bye"}, {"id", id}});
        return false;
      }
    } catch (const Error& e) {
      if (e.kind() == ErrorKind::DeviceLost) lose(message, e.what());
      output_.send(errorReply(id, kindName(e.kind()), e.what(), e.kind() == ErrorKind::DeviceLost));
    } catch (const std::bad_alloc&) {
      output_.send(errorReply(id, "out-of-memory", "host memory would not hold this problem"));
    } catch (const std::exception& e) {
      output_.send(errorReply(id, "internal", e.what()));
    }
    return true;
  }

  json hello(const json& id) {
    json backends = json::array();
    for (const std::string& backendId : backendIds()) {
      json entry = {{"id", backendId},
                    {"available", false},
                    {"reason", nullptr},
                    {"devices", json::array()},
                    {"element_refusals", json::object()}};
      try {
        const Backend& backend = usable(backendId);
        entry["available"] = true;
        for (const DeviceInfo& device : backend.devices())
          entry["devices"].push_back(report::toJson(device));
        for (const ElementType element : kElementTypes)
          if (auto why = backend.refusal({kLibraryKernelId, {}}, {1, 1, 1}, element))
            entry["element_refusals"][toString(element)] = *why;
      } catch (const Error& e) {
        entry["reason"] = e.what();
      }
      backends.push_back(std::move(entry));
    }
    return {{"reply", "hello"},
            {"id", id},
            {"protocol", kProtocolVersion},
            {"program", program_},
            {"limits", {{"line_bytes", kMaxLineBytes}, {"depth", kMaxDepth}}},
            {"backends", std::move(backends)},
            {"catalogue", catalogueJson()}};
  }

  // The backend a request names, created on first use; throws Unavailable where it cannot run.
  Backend& usable(const std::string& id) {
    if (const auto lost = lost_.find(id); lost != lost_.end())
      throw Error(ErrorKind::DeviceLost, "backend " + id + ": " + lost->second);
    auto found = backends_.find(id);
    if (found == backends_.end()) {
      const std::vector<std::string> ids = backendIds();
      if (std::find(ids.begin(), ids.end(), id) == ids.end())
        refuse("unknown backend '" + id + "'");
      found = backends_.emplace(id, makeBackend(id)).first;
    }
    if (const auto why = found->second->unavailableReason())
      throw Error(ErrorKind::Unavailable, "backend " + id + " is unavailable: " + *why);
    return *found->second;
  }

  Backend& backendOf(const json& message) { return usable(stringMember(message, "backend")); }

  // After a sticky fault every later request to that backend is refused until a restart.
  void lose(const json& message, const std::string& why) {
    const auto backend = message.find("backend");
    if (backend == message.end() || !backend->is_string()) return;
    lost_[backend->get<std::string>()] =
        "the device was lost (" + why + "); restart the server to use it";
    backends_.erase(backend->get<std::string>());
  }

  static const json& member(const json& message, const char* name) {
    const auto it = message.find(name);
    if (it == message.end()) refuse(std::string("the message has no '") + name + "'");
    return *it;
  }

  void checkDevice(const Backend& backend, int device) {
    const std::size_t count = backend.devices().size();
    if (device < 0 || std::size_t(device) >= count)
      refuse("device " + std::to_string(device) + ": the " + backend.id() + " backend has " +
             std::to_string(count) + " device(s), numbered from 0");
  }

  // A request checked as tilescope-bench checks its options, then against the backend.
  RunRequest validRequest(const Backend& backend, const json& message) {
    RunRequest request = report::requestFromJson(member(message, "request"));
    checkDevice(backend, request.device);
    return request;
  }

  ProgressFn progressTo(const json& id, std::string prefix = {}) {
    return [this, id, prefix, last = std::chrono::steady_clock::time_point()](
               double fraction, const std::string& stage) mutable {
      const auto now = std::chrono::steady_clock::now();
      if (now - last < kProgressInterval) return;
      last = now;
      output_.send(
          {{"reply", "progress"}, {"id", id}, {"fraction", fraction}, {"stage", prefix + stage}});
    };
  }

  void runOne(const json& id, const json& message) {
    Backend& backend = backendOf(message);
    RunRequest request = validRequest(backend, message);
    if (const auto why = backend.refusal(request)) {
      const bool overBound =
          !refusal(request.kernel) &&
          workLimitRefusal(kernelInfo(request.kernel), backend.id(), request.shape).has_value();
      throw Error(ErrorKind::Unsupported, "cannot run " + plan::describe(request) + " on " +
                                              backend.id() + ": " + *why +
                                              (overBound ? " (\"allow_long_runs\": true)" : ""));
    }
    const RunResult result = backend.run(request, progressTo(id), &cancel_);
    output_.send({{"reply", "result"}, {"id", id}, {"result", report::toJson(result)}});
  }

  void ceilings(const json& id, const json& message) {
    Backend& backend = backendOf(message);
    const json& device = member(message, "device");
    // A parsed non-negative integer is unsigned; compare before narrowing.
    if (!device.is_number_integer() ||
        (device.is_number_unsigned() ? device.get<std::uint64_t>() > 1024
                                     : device.get<std::int64_t>() < 0))
      refuse("'device' is not a device index");
    const int index = device.get<int>();
    checkDevice(backend, index);
    const DeviceCeilings measured = backend.measureCeilings(index, progressTo(id), &cancel_);
    output_.send({{"reply", "ceilings"},
                  {"id", id},
                  {"ceilings", report::ceilingsToJson({measured}).at(0)}});
  }

  // A user kernel's traced launch; the block whose loads are recorded is the message's "block".
  void trace(const json& id, const json& message) {
    Backend& backend = backendOf(message);
    const RunRequest run = validRequest(backend, message);
    const json& block = member(message, "block");
    if (!block.is_array() || block.size() != 2 || !block[0].is_number_integer() ||
        !block[1].is_number_integer() || block[0].get<std::int64_t>() < 0 ||
        block[1].get<std::int64_t>() < 0 || block[0].get<std::int64_t>() > (1 << 30) ||
        block[1].get<std::int64_t>() > (1 << 30))
      refuse("'block' is not [x, y] of a block in the grid");
    TraceRequest request{
        run.kernel, run.shape, run.device, {block[0].get<int>(), block[1].get<int>()}, run.element};
    const KernelTrace traced = backend.trace(request, progressTo(id), &cancel_);
    json reply = {{"reply", "trace"}, {"id", id}, {"trace", report::toJson(traced)}};
    const std::size_t bytes = reply.dump().size();
    if (bytes >= kMaxReplyBytes)
      throw Error(ErrorKind::Unsupported, "the trace takes " + std::to_string(bytes >> 20) +
                                              " MiB as JSON, more than one reply carries (" +
                                              std::to_string(kMaxReplyBytes >> 20) +
                                              " MiB): trace a smaller size");
    output_.send(reply);
  }

  // Every configuration, each result sent as it is measured; the fastest verified one last.
  void autotune(const json& id, const json& message) {
    Backend& backend = backendOf(message);
    const RunRequest base = validRequest(backend, message);
    if (!base.kernel.params.empty())
      refuse("autotune runs every configuration: the request gives no params");
    const plan::AutotunePlan plan =
        plan::planAutotune(base.kernel.kernel, base.shape, base, backend.id(),
                           [&backend](const RunRequest& run) { return backend.refusal(run); });
    std::vector<RunResult> measured;
    json failures = json::array();
    bool cancelled = false;
    for (std::size_t i = 0; i < plan.runs.size() && !cancelled; ++i) {
      const std::string prefix = "[" + std::to_string(i + 1) + "/" +
                                 std::to_string(plan.runs.size()) + "] " +
                                 plan::describe(plan.runs[i]) + ": ";
      try {
        measured.push_back(backend.run(plan.runs[i], progressTo(id, prefix), &cancel_));
        output_.send(
            {{"reply", "measured"}, {"id", id}, {"result", report::toJson(measured.back())}});
      } catch (const Error& e) {
        if (e.kind() == ErrorKind::DeviceLost) throw;
        if (e.kind() == ErrorKind::Cancelled)
          cancelled = true;
        else
          failures.push_back(plan::describe(plan.runs[i]) + ": " + e.what());
      }
    }
    if (cancelled) throw Error(ErrorKind::Cancelled, "cancelled");
    const std::optional<RunResult> best = plan::fastestVerified(measured);
    output_.send({{"reply", "autotune"},
                  {"id", id},
                  {"measured", measured.size()},
                  {"planned", plan.runs.size()},
                  {"refused", plan.refused},
                  {"failures", std::move(failures)},
                  {"best", best ? report::toJson(*best) : json(nullptr)}});
  }

  int input_;
  Output output_;
  std::string program_;
  const std::atomic<bool>* interrupt_;  // set by a signal (io/interrupt.hpp); may be null
  std::map<std::string, std::unique_ptr<Backend>> backends_;
  std::map<std::string, std::string> lost_;

  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Incoming> waiting_;
  std::uint64_t sequence_ = 0;       // of the last request queued
  std::uint64_t cancelThrough_ = 0;  // requests up to this one are cancelled
  bool running_ = false;
  bool ending_ = false;  // a signal came or the client went: no request runs any more
  std::atomic<bool> cancel_{false};
  std::atomic<bool> stopped_{false};
};

}  // namespace

int serve(int inputFd, int outputFd, const std::string& program,
          const std::atomic<bool>* interrupt) {
  Server server(inputFd, outputFd, program, interrupt);
  return server.run();
}

}  // namespace tilescope::remote
