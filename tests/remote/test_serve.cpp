// SPDX-License-Identifier: GPL-3.0-or-later
// tilescope-bench --serve as a child process, spoken to through ServerProcess: the protocol's
// verbs on the CPU backend, refused requests, and hundreds of malformed lines, each answered by
// one error while the server stays up.
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "tilescope/error.hpp"
#include "tilescope/host_kernel.hpp"
#include "tilescope/mapping.hpp"
#include "tilescope/measurement.hpp"
#include "tilescope/remote/protocol.hpp"
#include "tilescope/remote/remote_backend.hpp"
#include "tilescope/remote/server_process.hpp"
#include "tilescope/report/report.hpp"
#include "tilescope/user_kernel.hpp"

#include "serve_process.hpp"

namespace tilescope::remote {
namespace {

using nlohmann::json;
using test::ended;
using test::kReplyTimeoutMs;

std::string serverCommand() {
  return std::string("'") + TILESCOPE_BENCH + "' --serve";
}

json runMessage(int id, json request) {
  return {{"verb", "run"}, {"id", id}, {"backend", "cpu"}, {"request", std::move(request)}};
}

json smallRequest() {
  return {{"kernel", "shared-tiled"},
          {"params", {{"tile", 8}}},
          {"m", 48},
          {"n", 40},
          {"k", 24},
          {"reps", 3}};
}

// A shell that runs the server as its child rather than becoming it, and a server that only asks
// to stop at SIGTERM (tilescope-bench in a kernel that never ends): when the client lets go, the
// server goes too, not only the shell.
TEST(ServerProcessEnd, NoProcessTheShellStartedOutlivesIt) {
  const std::filesystem::path pidFile = std::filesystem::temp_directory_path() /
                                        ("tilescope-server-pid-" + std::to_string(::getpid()));
  std::filesystem::remove(pidFile);
  pid_t server = 0;
  {
    ServerProcess shell("(trap '' TERM; exec sleep 600) & echo $! > '" + pidFile.string() +
                        "'; wait");
    for (int i = 0; i < 500 && server == 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      std::ifstream(pidFile) >> server;
    }
    ASSERT_GT(server, 0) << "the shell never started its server";
    EXPECT_FALSE(ended(server));
  }
  bool gone = false;
  for (int i = 0; i < 500 && !gone; ++i) {
    gone = ended(server);
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(gone) << "process " << server << " outlived its client";
  if (!gone) ::kill(server, SIGKILL);  // once it has ended, its pid may be another process's
  std::filesystem::remove(pidFile);
}

class Serve : public ::testing::Test {
 protected:
  ServerProcess server{serverCommand()};

  json receive() {
    std::optional<json> message = server.receive(kReplyTimeoutMs);
    if (!message) throw std::runtime_error("no reply within the timeout");
    return *message;
  }

  // The reply that ends the request `id`, skipping its progress lines.
  json finalReply(const json& id) {
    for (;;) {
      json message = receive();
      if (message.at("reply") == "progress") {
        EXPECT_EQ(message.at("id"), id);
        continue;
      }
      return message;
    }
  }

  json request(const json& message) {
    server.send(message);
    return finalReply(message.value("id", json()));
  }

  void expectAlive() {
    const json hello = request({{"verb", "hello"}, {"id", "alive"}});
    ASSERT_EQ(hello.at("reply"), "hello") << hello.dump();
  }
};

TEST_F(Serve, HelloListsProtocolBackendsDevicesAndCatalogue) {
  const json hello = request({{"verb", "hello"}, {"id", 1}});
  EXPECT_EQ(hello.at("reply"), "hello");
  EXPECT_EQ(hello.at("id"), 1);
  EXPECT_EQ(hello.at("protocol"), kProtocolVersion);
  EXPECT_EQ(hello.at("program").get<std::string>().rfind("tilescope-bench ", 0), 0u);
  const json& cpu = hello.at("backends").at(0);
  EXPECT_EQ(cpu.at("id"), "cpu");
  EXPECT_TRUE(cpu.at("available").get<bool>());
  ASSERT_FALSE(cpu.at("devices").empty());
  EXPECT_FALSE(cpu.at("devices").at(0).at("facts").empty());
  EXPECT_TRUE(cpu.at("element_refusals").contains("fp16"));
  bool sharedTiled = false;
  for (const json& kernel : hello.at("catalogue")) sharedTiled |= kernel.at("id") == "shared-tiled";
  EXPECT_TRUE(sharedTiled);
}

TEST_F(Serve, RunAnswersWithTheVerifiedResult) {
  const json reply = request(runMessage(7, smallRequest()));
  ASSERT_EQ(reply.at("reply"), "result") << reply.dump();
  EXPECT_EQ(reply.at("id"), 7);
  const json& result = reply.at("result");
  EXPECT_EQ(result.at("kernel"), "shared-tiled");
  EXPECT_EQ(result.at("params").at("tile"), 8);
  EXPECT_EQ(result.at("m"), 48);
  EXPECT_EQ(result.at("n"), 40);
  EXPECT_EQ(result.at("k"), 24);
  EXPECT_EQ(result.at("stats").at("reps"), 3);
  EXPECT_TRUE(result.at("verified").get<bool>());
}

// A request for counters reaches the backend: the CPU's answer keeps the timing and says why it
// has none.
TEST_F(Serve, ARequestForCountersGetsTheBackendsAnswer) {
  json asked = smallRequest();
  asked["counters"] = true;
  const json reply = request(runMessage(11, asked));
  ASSERT_EQ(reply.at("reply"), "result") << reply.dump();
  const json& result = reply.at("result");
  EXPECT_TRUE(result.at("verified").get<bool>());
  EXPECT_TRUE(result.at("counters").is_null());
  EXPECT_NE(result.at("counters_unavailable").get<std::string>().find("no hardware counters"),
            std::string::npos);
  const json plain = request(runMessage(12, smallRequest())).at("result");
  EXPECT_TRUE(plain.at("counters_unavailable").is_null());
}

// A trace on the CPU comes back whole, and a request without a valid block is refused by the
// protocol before any backend sees it.
TEST_F(Serve, ATraceOnTheCpuComesBackAndABadBlockIsRefused) {
  const json userRequest = {{"kernel", "user:mine"},
                            {"source", userKernelTemplate("naive")->source},
                            {"m", 32},
                            {"n", 32},
                            {"k", 8}};
  if (const auto why = hostCompilerUnavailable()) GTEST_SKIP() << *why;
  const json traced = request({{"verb", "trace"},
                               {"id", 21},
                               {"backend", "cpu"},
                               {"request", userRequest},
                               {"block", {1, 0}}});
  ASSERT_EQ(traced.at("reply"), "trace") << traced.dump().substr(0, 400);
  const KernelTrace trace = report::traceFromJson(traced.at("trace"));
  EXPECT_EQ(trace.tracedBlock, (Dim2{1, 0}));
  EXPECT_EQ(traceDifferences(Mapping(trace), Mapping({"naive", {{"tile", 16}}}, {32, 32, 8})),
            std::vector<std::string>{});
  for (const json& block : {json{0}, json{-1, 0}, json("0,0"), json{0.5, 1}}) {
    const json bad = request({{"verb", "trace"},
                              {"id", 22},
                              {"backend", "cpu"},
                              {"request", userRequest},
                              {"block", block}});
    ASSERT_EQ(bad.at("reply"), "error") << bad.dump();
    EXPECT_EQ(bad.at("message"), "'block' is not [x, y] of a block in the grid");
  }
  expectAlive();
}

TEST_F(Serve, ProgressComesWhileALongRunRunsAndCancelStopsIt) {
  server.send(runMessage(3, {{"kernel", "naive"},
                             {"m", 256},
                             {"n", 256},
                             {"k", 256},
                             {"reps", kMaxFixedReps},
                             {"verify", false}}));
  const json first = receive();
  ASSERT_EQ(first.at("reply"), "progress") << first.dump();
  EXPECT_EQ(first.at("id"), 3);
  server.send({{"verb", "cancel"}, {"id", 4}});
  bool cancelAcknowledged = false;
  for (;;) {
    const json message = receive();
    if (message.at("reply") == "progress") continue;
    if (message.at("reply") == "cancel") {
      cancelAcknowledged = true;
      continue;
    }
    ASSERT_EQ(message.at("reply"), "error") << message.dump();
    EXPECT_EQ(message.at("id"), 3);
    EXPECT_EQ(message.at("kind"), "cancelled");
    EXPECT_FALSE(message.at("restart").get<bool>());
    break;
  }
  if (!cancelAcknowledged) {
    EXPECT_EQ(receive().at("reply"), "cancel");
  }
  // The next run is not cancelled.
  EXPECT_EQ(request(runMessage(5, smallRequest())).at("reply"), "result");
}

TEST_F(Serve, CeilingsAndAutotune) {
  const json ceilings =
      request({{"verb", "ceilings"}, {"id", 1}, {"backend", "cpu"}, {"device", 0}});
  ASSERT_EQ(ceilings.at("reply"), "ceilings") << ceilings.dump();
  EXPECT_EQ(ceilings.at("ceilings").at("backend"), "cpu");
  EXPECT_GT(ceilings.at("ceilings").at("bandwidth").at("measured").get<double>(), 0);

  server.send(
      {{"verb", "autotune"},
       {"id", 2},
       {"backend", "cpu"},
       {"request", {{"kernel", "shared-tiled"}, {"m", 32}, {"n", 32}, {"k", 32}, {"reps", 2}}}});
  int measured = 0;
  json last;
  for (;;) {
    last = receive();
    if (last.at("reply") == "progress") continue;
    if (last.at("reply") != "measured") break;
    EXPECT_EQ(last.at("result").at("kernel"), "shared-tiled");
    ++measured;
  }
  ASSERT_EQ(last.at("reply"), "autotune") << last.dump();
  EXPECT_EQ(last.at("measured"), measured);
  EXPECT_GT(measured, 1);
  EXPECT_EQ(last.at("best").at("kernel"), "shared-tiled");
}

TEST_F(Serve, RefusedRequestsGetAnErrorAndTheServerStaysUp) {
  const std::vector<std::pair<json, std::string>> refused = {
      {runMessage(1, {{"kernel", "no-such-kernel"}, {"m", 8}, {"n", 8}, {"k", 8}}),
       "no-such-kernel"},
      {runMessage(2, {{"kernel", "naive"}, {"m", 0}, {"n", 8}, {"k", 8}}), "request.m"},
      {runMessage(3, {{"kernel", "naive"}, {"m", 8}, {"n", 8}, {"k", 8}, {"reps", 0}}),
       "request.reps"},
      {runMessage(4, {{"kernel", "naive"}, {"m", 8}, {"n", 8}, {"k", 8}, {"device", 9}}),
       "device 9"},
      {runMessage(5, {{"kernel", "shared-tiled"},
                      {"params", {{"tile", 1000}}},
                      {"m", 8},
                      {"n", 8},
                      {"k", 8}}),
       "tile"},
      {runMessage(6, {{"kernel", "serial"}, {"m", 4096}, {"n", 4096}, {"k", 4096}}), "allow"},
      {{{"verb", "launch"}, {"id", 7}}, "unknown verb 'launch'"},
      {{{"verb", "run"}, {"id", 8}, {"backend", "tpu"}, {"request", smallRequest()}},
       "unknown backend"},
      {{{"verb", "hello"}, {"id", 9}, {"extra", 1}}, "unknown member 'extra'"},
      {{{"verb", "run"}, {"id", 10}, {"backend", "cpu"}}, "no 'request'"},
      // What of a user kernel needs a GPU the CPU backend says, and one without its source or
      // with a malformed parameter is refused before any backend sees it.
      {runMessage(11, {{"kernel", "user:mine"},
                       {"source", "TS_LAUNCH(1, 1, 1, 1, 0)\nTS_CLUSTER(2)\nTS_KERNEL {}\n"},
                       {"m", 8},
                       {"n", 8},
                       {"k", 8}}),
       "TS_CLUSTER needs an NVIDIA GPU"},
      {runMessage(12, {{"kernel", "user:mine"}, {"m", 8}, {"n", 8}, {"k", 8}}),
       "does not carry its source"},
      {runMessage(13, {{"kernel", "user:mine"},
                       {"source", "TS_PARAM(TILE, 3, 8)\n"},
                       {"m", 8},
                       {"n", 8},
                       {"k", 8}}),
       "mine.cu line 1: TS_PARAM TILE: the default 3 is not one of the allowed values"},
  };
  for (const auto& [message, expected] : refused) {
    const json reply = request(message);
    ASSERT_EQ(reply.at("reply"), "error") << message.dump();
    EXPECT_EQ(reply.at("id"), message.at("id"));
    EXPECT_NE(reply.at("message").get<std::string>().find(expected), std::string::npos)
        << reply.dump();
  }
  expectAlive();
}

// Lines that are not valid requests, generated: every truncation of a valid request, every field
// with wrong types and extreme numbers, deep nesting, invalid UTF-8, binary noise, and lines far
// past the length limit.
std::vector<std::string> malformedLines() {
  std::vector<std::string> lines;
  const std::string valid = formatMessage(runMessage(1, smallRequest()));
  const std::string text = valid.substr(0, valid.size() - 1);
  for (std::size_t cut = 0; cut < text.size(); ++cut) lines.push_back(text.substr(0, cut));

  const std::vector<json> badValues = {json(nullptr),
                                       json(true),
                                       json("text"),
                                       json(-1),
                                       json(0),
                                       json(1.5),
                                       json(1e308),
                                       json(-1e308),
                                       json(std::uint64_t(18446744073709551615ull)),
                                       json(std::int64_t(-9223372036854775807 - 1)),
                                       json::array({1, 2}),
                                       json::object({{"a", 1}}),
                                       json(2147483648LL),
                                       json(1LL << 40)};
  for (const char* field : {"kernel", "params", "m", "n", "k", "element", "device", "fill", "seed",
                            "reps", "budget_ms", "verify", "allow_long_runs"}) {
    for (const json& value : badValues) {
      json request = smallRequest();
      request[field] = value;
      // Some of these are valid values for some fields (0 for a seed, true for verify): keep
      // only those the server must refuse; their reasons are checked by the field tests above.
      const bool acceptable =
          (std::string(field) == "seed" && value.is_number_integer() && value.get<double>() >= 0 &&
           !value.is_number_unsigned()) ||
          (std::string(field) == "seed" && value == json(0)) ||
          ((std::string(field) == "verify" || std::string(field) == "allow_long_runs") &&
           value.is_boolean()) ||
          (std::string(field) == "device" && value == json(0)) ||
          (std::string(field) == "budget_ms" && value.is_number() && value.get<double>() > 0) ||
          (value.is_null() && std::string(field) != "kernel" && std::string(field) != "m" &&
           std::string(field) != "n" && std::string(field) != "k");
      if (!acceptable) lines.push_back(runMessage(2, request).dump());
    }
  }
  for (const json& verb : {json(nullptr), json(1), json::array(), json("RUN"), json("")})
    lines.push_back(json{{"verb", verb}, {"id", 3}}.dump());
  lines.push_back(R"({"verb":"hello","id":{"nested":1}})");
  lines.push_back("[1,2,3]");
  lines.push_back("\"hello\"");
  lines.push_back("42");
  lines.push_back("");
  lines.push_back("   ");
  lines.push_back("{\"verb\":\"hello\"}{\"verb\":\"hello\"}");
  lines.push_back(R"({"verb":"run","id":1e999999})");
  lines.push_back(
      R"({"verb":"run","id":1,"backend":"cpu","request":{"kernel":"naive","m":99999999999999999999999999999,"n":8,"k":8}})");
  lines.push_back(std::string("{\"verb\":\"hello\",\"id\":\"\xff\xfe\"}"));
  lines.push_back(std::string("{\"verb\":\"h\xc3\x28llo\"}"));
  lines.push_back(std::string("\xef\xbb\xbf{\"verb\":\"nope\"}"));
  lines.push_back(std::string("\x00\x01\x02{", 4));
  for (int depth : {kMaxDepth, kMaxDepth + 1, 1000, 100000}) {
    lines.push_back("{\"verb\":\"hello\",\"id\":" + std::string(std::size_t(depth), '[') +
                    std::string(std::size_t(depth), ']') + "}");
    lines.push_back(std::string(std::size_t(depth), '{'));
  }
  lines.push_back(std::string(kMaxLineBytes + 1, 'x'));
  lines.push_back("{\"verb\":\"hello\",\"id\":\"" + std::string(10 << 20, 'a') + "\"}");
  lines.push_back(std::string(10 << 20, '['));
  return lines;
}

TEST_F(Serve, EveryMalformedLineGetsOneErrorAndTheServerStaysUp) {
  const std::vector<std::string> lines = malformedLines();
  ASSERT_GE(lines.size(), 300u);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    server.sendLine(lines[i]);
    const json reply = receive();
    ASSERT_EQ(reply.at("reply"), "error") << lines[i].substr(0, 200) << " -> " << reply.dump();
    EXPECT_FALSE(reply.at("message").get<std::string>().empty());
    // Exactly one reply each: the next request's answer comes next.
    const json hello = request({{"verb", "hello"}, {"id", i}});
    ASSERT_EQ(hello.at("reply"), "hello") << "after line " << i << ": " << lines[i].substr(0, 200);
    ASSERT_EQ(hello.at("id"), i);
  }
  EXPECT_EQ(request({{"verb", "bye"}, {"id", "end"}}).at("reply"), "bye");
}

// The parser would keep the last of two equal keys: {"verb":"hello","verb":"bye"} would say bye.
TEST_F(Serve, ARequestWithAKeyGivenTwiceIsRefusedNamingTheKey) {
  const std::pair<std::string, std::string> cases[] = {
      {R"({"verb":"hello","verb":"bye"})", "'verb'"},
      {R"({"verb":"run","id":1,"backend":"cpu","request":{"m":8,"n":8,"m":9}})", "'m'"},
  };
  for (const auto& [line, key] : cases) {
    server.sendLine(line);
    const json reply = receive();
    ASSERT_EQ(reply.at("reply"), "error") << reply.dump();
    const std::string message = reply.at("message").get<std::string>();
    EXPECT_NE(message.find(key + " twice"), std::string::npos) << message;
  }
  expectAlive();
}

// User kernels run in the server, never in the client: a kernel that faults ends its run with
// the fault and the server is restarted; one that never ends is stopped by a cancel or by the
// client's time limit, the server killed; either way the next run starts a new server and
// verifies. On the GPU machine only: skipped where the server has no usable CUDA backend.
class UserKernelsInAServer : public ::testing::Test {
 protected:
  explicit UserKernelsInAServer(std::string backend) : backend_(std::move(backend)) {}

  ServerAddress address(std::chrono::milliseconds replyTimeout = std::chrono::minutes(5)) const {
    return {"", serverCommand(), backend_, replyTimeout};
  }

  static RunRequest userRun(const std::string& name, const std::string& source) {
    RunRequest request;
    request.kernel = {userKernelId(name), {}, source};
    request.shape = {96, 80, 72};
    request.sampling.fixedReps = 2;
    return request;
  }

  // The naive template, which must verify on the server that replaced a lost one.
  static void expectANewServerRuns(RemoteBackend& backend) {
    const RunResult result =
        backend.run(userRun("naive", userKernelTemplate("naive")->source), {}, nullptr);
    EXPECT_TRUE(result.verified());
  }

  // Error(kind) from `run`, with its message; fails the test when it does not throw.
  template <typename Run>
  static std::string failure(Run&& run, ErrorKind kind) {
    try {
      run();
    } catch (const Error& error) {
      EXPECT_EQ(error.kind(), kind) << error.what();
      return error.what();
    }
    ADD_FAILURE() << "the run did not fail";
    return {};
  }

  std::string backend_;
};

class ServeOnGpu : public UserKernelsInAServer {
 protected:
  ServeOnGpu() : UserKernelsInAServer("cuda") {}
  void SetUp() override {
    if (const auto why = makeCudaBackend()->unavailableReason()) GTEST_SKIP() << *why;
    if (const auto why = userKernelCompilerUnavailable()) GTEST_SKIP() << *why;
  }
};

// The same on the CPU backend, which compiles user kernels with the host's C++ compiler: runs in
// CI wherever one is installed.
class ServeOnCpu : public UserKernelsInAServer {
 protected:
  ServeOnCpu() : UserKernelsInAServer("cpu") {}
  void SetUp() override {
    if (const auto why = hostCompilerUnavailable()) GTEST_SKIP() << *why;
  }
};

constexpr const char* kFaultingKernel =
    "TS_LAUNCH(32, 1, 1, 1, 0)\n"
    "TS_KERNEL { *reinterpret_cast<volatile float*>(16) = 1.0f; }\n";
// The clock only grows; a loop on a local flag, volatile or not, is compiled away.
constexpr const char* kEndlessKernel =
    "TS_LAUNCH(32, 1, 1, 1, 0)\n"
    "TS_KERNEL { const long long start = clock64(); while (clock64() >= start) {} }\n";

TEST_F(ServeOnGpu, AFaultingKernelEndsItsRunWithTheFaultAndTheNextRunWorks) {
  RemoteBackend backend(address());
  const std::string why =
      failure([&] { backend.run(userRun("faulting", kFaultingKernel), {}, nullptr); },
              ErrorKind::Unavailable);
  EXPECT_NE(why.find("illegal"), std::string::npos) << why;
  EXPECT_NE(why.find("the server is restarted for the next run"), std::string::npos) << why;
  expectANewServerRuns(backend);
}

// A trace through the server arrives whole: the naive template's trace draws naive's pictures.
TEST_F(ServeOnGpu, ATraceComesBackAsTheKernelRan) {
  RemoteBackend backend(address());
  TraceRequest request;
  request.kernel = {userKernelId("naive"), {{"TILE", 16}}, userKernelTemplate("naive")->source};
  request.shape = {100, 70, 50};
  request.block = {2, 3};
  const KernelTrace trace = backend.trace(request, {}, nullptr);
  EXPECT_FALSE(trace.truncated);
  EXPECT_EQ(trace.device.empty(), false);
  EXPECT_EQ(trace.kernel.source, request.kernel.source);
  const Mapping naive({"naive", {{"tile", 16}}}, request.shape);
  EXPECT_EQ(traceDifferences(Mapping(trace), naive), std::vector<std::string>{});
}

TEST_F(ServeOnGpu, CancelStopsAKernelThatNeverEnds) {
  RemoteBackend backend(address());
  std::atomic<bool> cancel{false};
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::seconds(3));
    cancel = true;
  });
  const auto start = std::chrono::steady_clock::now();
  const std::string why = failure(
      [&] { backend.run(userRun("endless", kEndlessKernel), {}, &cancel); }, ErrorKind::Cancelled);
  canceller.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30)) << why;
  expectANewServerRuns(backend);
}

TEST_F(ServeOnGpu, AKernelSilentPastTheTimeLimitIsStopped) {
  RemoteBackend backend(address(std::chrono::seconds(5)));
  const std::string why =
      failure([&] { backend.run(userRun("endless", kEndlessKernel), {}, nullptr); },
              ErrorKind::Unavailable);
  EXPECT_NE(why.find("5 s"), std::string::npos) << why;
  expectANewServerRuns(backend);
}

// A volatile flag: its every read is a side effect, so the loop cannot be compiled away.
constexpr const char* kEndlessCpuKernel =
    "TS_LAUNCH(32, 1, 1, 1, 0)\n"
    "TS_KERNEL { volatile int spin = 1; while (spin) {} }\n";
// Threads 16 to 31 skip the barrier the others wait at.
constexpr const char* kDivergentBarrierKernel =
    "TS_LAUNCH(32, 1, 1, 1, 0)\n"
    "TS_KERNEL {\n"
    "  if (threadIdx.x < 16) __syncthreads();\n"
    "}\n";

TEST_F(ServeOnCpu, AKernelThatCrashesEndsItsRunWithTheSignalAndTheNextRunWorks) {
  // In a sanitizer build the server's AddressSanitizer would catch the fault and exit 1: the
  // signal ends it here, as it ends a user's server.
  const char* asan = std::getenv("ASAN_OPTIONS");
  const std::string before = asan ? asan : "";
  ::setenv("ASAN_OPTIONS", (before + (before.empty() ? "" : ":") + "handle_segv=0").c_str(), 1);
  RemoteBackend backend(address());
  const std::string why =
      failure([&] { backend.run(userRun("faulting", kFaultingKernel), {}, nullptr); },
              ErrorKind::Unavailable);
  EXPECT_NE(why.find("signal 11"), std::string::npos) << why;
  if (asan)
    ::setenv("ASAN_OPTIONS", before.c_str(), 1);
  else
    ::unsetenv("ASAN_OPTIONS");
  expectANewServerRuns(backend);
}

TEST_F(ServeOnCpu, CancelStopsAKernelThatNeverEnds) {
  RemoteBackend backend(address());
  std::atomic<bool> cancel{false};
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::seconds(2));
    cancel = true;
  });
  const auto start = std::chrono::steady_clock::now();
  const std::string why =
      failure([&] { backend.run(userRun("endless", kEndlessCpuKernel), {}, &cancel); },
              ErrorKind::Cancelled);
  canceller.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30)) << why;
  expectANewServerRuns(backend);
}

TEST_F(ServeOnCpu, AKernelSilentPastTheTimeLimitIsStopped) {
  RemoteBackend backend(address(std::chrono::seconds(3)));
  const std::string why =
      failure([&] { backend.run(userRun("endless", kEndlessCpuKernel), {}, nullptr); },
              ErrorKind::Unavailable);
  EXPECT_NE(why.find("3 s"), std::string::npos) << why;
  expectANewServerRuns(backend);
}

// A barrier half the block never reaches is an error at its line, not a hang.
TEST_F(ServeOnCpu, ABarrierNotEveryThreadReachesFailsAtItsLine) {
  RemoteBackend backend(address());
  const std::string why =
      failure([&] { backend.run(userRun("divergent", kDivergentBarrierKernel), {}, nullptr); },
              ErrorKind::LaunchFailed);
  EXPECT_NE(why.find("line 3"), std::string::npos) << why;
  expectANewServerRuns(backend);
}

}  // namespace
}  // namespace tilescope::remote
