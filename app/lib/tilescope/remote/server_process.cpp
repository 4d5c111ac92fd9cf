// SPDX-License-Identifier: GPL-3.0-or-later
#include "tilescope/remote/server_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "tilescope/error.hpp"
#include "tilescope/remote/exit_status.hpp"
#include "tilescope/remote/protocol.hpp"

extern char** environ;

namespace tilescope::remote {

namespace {

// Enough of stderr for ssh's and the shell's messages without growing without end.
constexpr std::size_t kStderrTailBytes = 8192;

// A pipe whose ends are not inherited by other children.
void makePipe(int ends[2]) {
  if (::pipe2(ends, O_CLOEXEC) != 0)
    unavailable(std::string("cannot create a pipe: ") + std::strerror(errno));
}

// Text from the server quoted in one line, cut short.
std::string excerpt(std::string text) {
  if (text.size() > 120) text = text.substr(0, 120) + "...";
  for (char& c : text)
    if (c == '\n' || c == '\r') c = ' ';
  return text;
}

}  // namespace

ServerProcess::ServerProcess(const std::string& command, std::chrono::milliseconds writeTimeout)
    : writeTimeout_(writeTimeout), throughSsh_(startsSsh(command)), lines_(-1, kMaxReplyBytes) {
  // A server that dies while a request is written to it must fail the request, not kill the
  // client with SIGPIPE.
  ::signal(SIGPIPE, SIG_IGN);
  int in[2], out[2], err[2];
  makePipe(in);
  makePipe(out);
  makePipe(err);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err[1], STDERR_FILENO);
  // Its own process group, so a Ctrl-C in a terminal reaches the client, which cancels politely.
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  // The server starts with SIGPIPE as usual, though this process ignores it (below).
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&attributes, 0);
  std::string shell = "/bin/sh", dashC = "-c", text = command;
  char* argv[] = {shell.data(), dashC.data(), text.data(), nullptr};
  const int failed = ::posix_spawn(&pid_, "/bin/sh", &actions, &attributes, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  toServer_ = in[1];
  fromServer_ = out[0];
  // Written with poll and a time limit (sendLine): a server that stopped reading must not hold the
  // client in write() for ever.
  ::fcntl(toServer_, F_SETFL, ::fcntl(toServer_, F_GETFL) | O_NONBLOCK);
  errorsFromServer_ = err[0];
  if (failed != 0) {
    ::close(toServer_);
    ::close(fromServer_);
    ::close(errorsFromServer_);
    unavailable("cannot start '" + command + "': " + std::strerror(failed));
  }
  lines_ = LineReader(fromServer_, kMaxReplyBytes);
  stderrReader_ = std::thread([this] { drainStderr(); });
}

ServerProcess::~ServerProcess() {
  ::close(toServer_);  // a server reads the end of its input as the client leaving
  // The whole process group goes, not only the shell: a shell may run the server as its child
  // instead of becoming it, and ssh has children. Killing the shell alone left a server whose
  // kernel never ends running on the GPU (SIGTERM only asks it to stop between runs), and every
  // kernel timed after it 2.7x slower (H200).
  if (!reap(500) || groupLives()) {
    ::kill(-pid_, SIGTERM);
    ::kill(pid_, SIGTERM);
    if (!groupEnds(1000)) {
      ::kill(-pid_, SIGKILL);
      ::kill(pid_, SIGKILL);
      reap(-1);
    }
  }
  ::close(fromServer_);
  closing_ = true;
  // Other processes of its group (ssh's children) may hold stderr open; the reader polls.
  stderrReader_.join();
  ::close(errorsFromServer_);
}

std::optional<int> ServerProcess::reap(int waitMs) {
  const auto start = std::chrono::steady_clock::now();
  while (!status_) {
    int status = 0;
    const pid_t done = ::waitpid(pid_, &status, waitMs < 0 ? 0 : WNOHANG);
    if (done == pid_) {
      status_ = status;
      break;
    }
    if (done < 0 && errno != EINTR) break;
    if (waitMs >= 0 &&
        std::chrono::steady_clock::now() - start >= std::chrono::milliseconds(waitMs))
      break;
    if (waitMs >= 0) ::usleep(10000);
  }
  return status_;
}

bool ServerProcess::groupLives() const {
  return ::kill(-pid_, 0) == 0;
}

bool ServerProcess::groupEnds(int waitMs) {
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    // The shell is reaped here; the group's other processes, orphaned, by init.
    reap(0);
    if (status_ && !groupLives()) return true;
    if (std::chrono::steady_clock::now() - start >= std::chrono::milliseconds(waitMs)) return false;
    ::usleep(10000);
  }
}

void ServerProcess::drainStderr() {
  char chunk[4096];
  for (;;) {
    pollfd ready{errorsFromServer_, POLLIN, 0};
    const int polled = ::poll(&ready, 1, 100);
    if (polled < 0 && errno != EINTR) return;
    if (polled <= 0) {
      if (closing_) return;  // the server is gone and wrote nothing more
      continue;
    }
    const ssize_t got = ::read(errorsFromServer_, chunk, sizeof chunk);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return;
    const std::lock_guard lock(stderrMutex_);
    stderrTail_.append(chunk, std::size_t(got));
    if (stderrTail_.size() > kStderrTailBytes)
      stderrTail_.erase(0, stderrTail_.size() - kStderrTailBytes);
  }
}

std::string ServerProcess::stderrTail() const {
  const std::lock_guard lock(stderrMutex_);
  std::string errors = stderrTail_;
  while (!errors.empty() && (errors.back() == '\n' || errors.back() == '\r')) errors.pop_back();
  return errors;
}

std::string ServerProcess::dropped() {
  const std::optional<int> status = reap(1000);
  // Give the stderr reader a moment to collect the last words.
  ::usleep(50000);
  const std::string errors = stderrTail();
  std::string message = status ? explainExit(*status, errors, {throughSsh_, greeted_})
                               : "the server closed the connection";
  if (!errors.empty()) message += ": " + errors;
  return message;
}

void ServerProcess::send(const nlohmann::json& message, const std::atomic<bool>* stop) {
  const std::string line = formatMessage(message);
  sendLine(line.substr(0, line.size() - 1), stop);
}

void ServerProcess::sendLine(const std::string& text, const std::atomic<bool>* stop) {
  const std::string line = text + '\n';
  const char* data = line.data();
  std::size_t left = line.size();
  auto lastProgress = std::chrono::steady_clock::now();
  while (left > 0) {
    const ssize_t written = ::write(toServer_, data, left);
    if (written < 0 && errno == EINTR) continue;
    if (written < 0 && errno == EAGAIN) {
      // The pipe is full: wait for the server to read, as long as the time limit allows.
      if (stop && stop->load())
        throw Error(ErrorKind::Cancelled, "cancelled while the server was not reading the request");
      if (std::chrono::steady_clock::now() - lastProgress >= writeTimeout_) {
        const std::string errors = stderrTail();
        unavailable("the server stopped reading: it took no byte of a " +
                    std::to_string(line.size()) + "-byte request for " +
                    (writeTimeout_.count() % 1000 == 0
                         ? std::to_string(writeTimeout_.count() / 1000) + " s"
                         : std::to_string(writeTimeout_.count()) + " ms") +
                    (errors.empty() ? "" : " (its stderr: " + errors + ")"));
      }
      pollfd writable{toServer_, POLLOUT, 0};
      ::poll(&writable, 1, 100);
      continue;
    }
    if (written <= 0) unavailable(dropped());
    data += written;
    left -= std::size_t(written);
    lastProgress = std::chrono::steady_clock::now();
  }
}

std::optional<nlohmann::json> ServerProcess::receive(int timeoutMs, const std::atomic<bool>* stop) {
  const std::optional<LineReader::Line> line = lines_.next(stop, timeoutMs);
  if (!line) {
    if (lines_.ended()) unavailable(dropped());
    return std::nullopt;  // timed out or stopped
  }
  if (line->tooLong)
    unavailable("the server sent a line longer than " + std::to_string(kMaxReplyBytes) + " bytes");
  try {
    return parseMessage(line->text);
  } catch (const Error&) {
    // Through ssh, a line before hello comes from the host's shell startup files, not the server.
    unavailable("the server does not speak the TileScope protocol; it wrote: '" +
                excerpt(line->text) + "'" +
                (throughSsh_ && !greeted_
                     ? " (printed before the server started: the host's ~/.bashrc or login "
                       "scripts must print nothing for ssh commands)"
                     : ""));
  }
}

}  // namespace tilescope::remote
