// SPDX-License-Identifier: GPL-3.0-or-later
// The client side of the protocol against servers that misbehave (issue #37): a hello or a reply
// with a field of the wrong type fails that connection or run with tilescope::Error naming the
// field, never with a JSON library's exception; a server that stops reading fails the write.
#include <gtest/gtest.h>

#include <unistd.h>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "tilescope/error.hpp"
#include "tilescope/remote/remote_backend.hpp"
#include "tilescope/remote/server_process.hpp"

namespace tilescope::remote {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

const json kDevice = {
    {"format_version", 1}, {"index", 0}, {"name", "Fake GPU"}, {"facts", json::array()}};

json goodHello() {
  return {{"reply", "hello"},
          {"id", 0},
          {"protocol", 1},
          {"program", "fake"},
          {"backends",
           {{{"id", "cpu"},
             {"available", true},
             {"reason", nullptr},
             {"devices", {kDevice}},
             {"element_refusals", json::object()}}}}};
}

// A fake server that answers hello with `hello` and the first run with `reply`, then reads on.
class FakeServer {
 public:
  FakeServer(const json& hello, const json& reply = json())
      : folder_(std::filesystem::temp_directory_path() /
                ("tilescope-fake-server-" + std::to_string(::getpid()) + "-" +
                 std::to_string(counter_++))) {
    std::filesystem::create_directories(folder_);
    std::ofstream(folder_ / "hello") << hello.dump() << '\n';
    std::ofstream(folder_ / "reply") << reply.dump() << '\n';
  }
  ~FakeServer() { std::filesystem::remove_all(folder_); }

  ServerAddress address() const {
    const std::string at = "'" + folder_.string() + "/";
    return {"fake",
            "read hello; cat " + at + "hello'; read run; cat " + at + "reply'; cat >/dev/null",
            "cpu", 20s};
  }

 private:
  static inline int counter_ = 0;
  std::filesystem::path folder_;
};

RunRequest smallRun() {
  RunRequest request;
  request.kernel = {"naive", {{"tile", 4}}};
  request.shape = {16, 16, 16};
  request.sampling.fixedReps = 2;
  return request;
}

// The reason a server with this hello is unavailable ("" when it is available).
std::string helloProblem(const json& hello) {
  FakeServer server(hello);
  RemoteBackend backend(server.address());
  return backend.unavailableReason().value_or("");
}

// The Error a run against a server answering `reply` fails with; any other exception fails the
// test (by escaping it).
Error runFailure(const json& reply) {
  FakeServer server(goodHello(), reply);
  RemoteBackend backend(server.address());
  EXPECT_EQ(backend.unavailableReason(), std::nullopt);
  try {
    backend.run(
        smallRun(), [](double, const std::string&) {}, nullptr);
  } catch (const Error& error) {
    return error;
  }
  ADD_FAILURE() << "the run did not fail against " << reply.dump();
  return Error(ErrorKind::InvalidArgument, "");
}

TEST(RemoteClient, TheFakeHelloIsGood) {
  EXPECT_EQ(helloProblem(goodHello()), "");
}

TEST(RemoteClient, AHelloWithAFieldOfTheWrongTypeNamesTheField) {
  struct Case {
    json hello;
    std::string named;
  };
  std::vector<Case> cases;
  const auto with = [](const json::json_pointer& at, json value) {
    json hello = goodHello();
    hello[at] = std::move(value);
    return hello;
  };
  cases.push_back({with("/reply"_json_pointer, 5), "'reply' is 5"});
  cases.push_back({with("/program"_json_pointer, 5), "'program' is 5"});
  cases.push_back({with("/backends"_json_pointer, 3), "'backends' is 3"});
  cases.push_back({with("/backends/0"_json_pointer, "cpu"), "'backends[0]' is 'cpu'"});
  cases.push_back({with("/backends/0/id"_json_pointer, 7), "'backends[0].id' is 7"});
  cases.push_back(
      {with("/backends/0/available"_json_pointer, "yes"), "'backends[0].available' is 'yes'"});
  cases.push_back({with("/backends/0/devices"_json_pointer, "none"), "'backends[0].devices'"});
  cases.push_back({with("/backends/0/devices/0/name"_json_pointer, 9), "backends[0].devices[0]"});
  cases.push_back({with("/backends/0/element_refusals"_json_pointer, json::array()),
                   "'backends[0].element_refusals' is []"});
  cases.push_back({with("/backends/0/element_refusals/fp16"_json_pointer, 3),
                   "'backends[0].element_refusals.fp16' is 3"});
  json unavailable = with("/backends/0/available"_json_pointer, false);
  unavailable["backends"][0]["reason"] = 12;
  cases.push_back({unavailable, "'backends[0].reason' is 12"});
  for (const Case& bad : cases) {
    const std::string why = helloProblem(bad.hello);
    EXPECT_NE(why.find(bad.named), std::string::npos) << bad.hello.dump() << "\n -> " << why;
    EXPECT_NE(why.find("server fake"), std::string::npos) << why;
  }
}

TEST(RemoteClient, AReplyWithAFieldOfTheWrongTypeFailsTheRunNamingTheField) {
  struct Case {
    json reply;
    std::string named;
  };
  const Case cases[] = {
      {{{"reply", 5}, {"id", 1}}, "'reply' is 5"},
      {{{"reply", "progress"}, {"id", 1}, {"fraction", "half"}}, "'fraction' is 'half'"},
      {{{"reply", "progress"}, {"id", 1}, {"fraction", 0.5}, {"stage", 5}}, "'stage' is 5"},
      {{{"reply", "error"}, {"id", 1}, {"kind", 5}, {"message", "m"}}, "'kind' is 5"},
      {{{"reply", "error"}, {"id", 1}, {"kind", "unsupported"}, {"message", 5}}, "'message' is 5"},
      {{{"reply", "error"}, {"id", 1}, {"message", "m"}, {"restart", "yes"}}, "'restart' is 'yes'"},
      {{{"reply", "result"}, {"id", 1}, {"result", 5}}, "result: 5 is not a JSON object"},
      {{{"reply", "trace"}, {"id", 1}, {"trace", 5}}, "result is missing"},
      {{{"reply", "result"}, {"id", 1}, {"result", {{"format_version", "1"}}}},
       "result.format_version"},
  };
  for (const Case& bad : cases) {
    const Error error = runFailure(bad.reply);
    const std::string why = error.what();
    EXPECT_EQ(error.kind(), ErrorKind::Unavailable) << why;
    EXPECT_NE(why.find(bad.named), std::string::npos) << bad.reply.dump() << "\n -> " << why;
  }
}

TEST(RemoteClient, AnErrorReplyOfTheRightTypesFailsTheRunWithItsKindAndMessage) {
  const Error error =
      runFailure({{"reply", "error"}, {"id", 1}, {"kind", "unsupported"}, {"message", "not here"}});
  EXPECT_EQ(error.kind(), ErrorKind::Unsupported);
  EXPECT_EQ(std::string(error.what()), "not here");
}

TEST(RemoteClient, ARequestToAServerThatStoppedReadingFailsWithinTheWriteTimeout) {
  ServerProcess server("sleep 600", 1s);
  const json request = {{"verb", "hello"}, {"id", 1}, {"padding", std::string(256 << 10, 'x')}};
  const auto start = std::chrono::steady_clock::now();
  try {
    server.send(request);
    ADD_FAILURE() << "a request larger than the pipe was written to a server that reads nothing";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::Unavailable);
    EXPECT_NE(std::string(error.what()).find("the server stopped reading"), std::string::npos)
        << error.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
}

// tilescope-bench --via: SIGTERM sets the cancel flag while the request is still being written.
TEST(RemoteClient, ACancelEndsAWriteToAServerThatStoppedReading) {
  ServerProcess server("sleep 600", 60s);
  const json request = {{"verb", "hello"}, {"id", 1}, {"padding", std::string(256 << 10, 'x')}};
  std::atomic<bool> cancel{false};
  std::thread canceller([&] {
    std::this_thread::sleep_for(500ms);
    cancel = true;
  });
  const auto start = std::chrono::steady_clock::now();
  try {
    server.send(request, &cancel);
    ADD_FAILURE() << "the request was written to a server that reads nothing";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::Cancelled) << error.what();
  }
  canceller.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
}

// A server that never answers hello (a queued Slurm job, a command that is not the server) is
// unavailable after the hello timeout, saying whether it wrote anything, and is stopped.
TEST(RemoteClient, AServerThatNeverAnswersHelloIsUnavailableAfterTheTimeoutSayingWhatItWrote) {
  ServerAddress silent{"queued", "sleep 600", "cpu"};
  silent.helloTimeout = 300ms;
  const auto start = std::chrono::steady_clock::now();
  RemoteBackend quiet(silent);
  EXPECT_EQ(quiet.unavailableReason(),
            "server queued did not answer within 300 ms, and wrote nothing: a Slurm job still "
            "queued, or a command that does not start tilescope-bench --serve?");
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);

  ServerAddress talking{"queued",
                        "echo 'srun: job 4242 queued and waiting for resources' >&2; "
                        "sleep 600",
                        "cpu"};
  talking.helloTimeout = 300ms;
  RemoteBackend told(talking);
  EXPECT_EQ(told.unavailableReason(),
            "server queued did not answer within 300 ms: srun: job 4242 queued and waiting for "
            "resources");
}

// Through ssh (here a fake one: a script named ssh), a greeting before hello is the host's
// ~/.bashrc talking, and the message says so.
TEST(RemoteClient, AGreetingBeforeHelloThroughSshPointsAtTheHostsStartupFiles) {
  const std::filesystem::path folder = std::filesystem::temp_directory_path() /
                                       ("tilescope-chatty-ssh-" + std::to_string(::getpid()));
  std::filesystem::create_directories(folder);
  std::ofstream(folder / "ssh") << "#!/bin/sh\necho 'Welcome to gpu1'\ncat >/dev/null\n";
  std::filesystem::permissions(folder / "ssh", std::filesystem::perms::owner_all);
  RemoteBackend chatty(
      {"gpu1", (folder / "ssh").string() + " gpu1 tilescope-bench --serve", "cpu"});
  EXPECT_EQ(chatty.unavailableReason(),
            "the server does not speak the TileScope protocol; it wrote: 'Welcome to gpu1' "
            "(printed before the server started: the host's ~/.bashrc or login scripts must print "
            "nothing for ssh commands)");
  RemoteBackend local({"local", "echo 'Welcome'; cat >/dev/null", "cpu"});
  EXPECT_EQ(local.unavailableReason(),
            "the server does not speak the TileScope protocol; it wrote: 'Welcome'");
  std::filesystem::remove_all(folder);
}

}  // namespace
}  // namespace tilescope::remote
