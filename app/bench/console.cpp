// SPDX-License-Identifier: GPL-3.0-or-later
#include "console.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "tilescope/error.hpp"

namespace tilescope::bench {

std::atomic<bool> interruptRequested{false};

static_assert(std::atomic<bool>::is_always_lock_free, "the signal handler needs a lock-free flag");

void printNote(const std::string& message) {
  std::fprintf(stderr, "tilescope-bench: %s\n", message.c_str());
}

void printError(std::string message) {
  std::replace(message.begin(), message.end(), '\n', ' ');
  std::fprintf(stderr, "tilescope-bench: error: %s\n", message.c_str());
}

void writeStdout(std::string_view text) {
  while (!text.empty()) {
    const ssize_t written = ::write(STDOUT_FILENO, text.data(), text.size());
    if (written < 0 && errno == EINTR) continue;
    if (written < 0) {
      throw Error(ErrorKind::InvalidArgument,
                  std::string("cannot write the results to standard output: ") +
                      (errno == EBADF ? "it is closed" : std::strerror(errno)) +
                      "; give --output FILE");
    }
    text.remove_prefix(std::size_t(written));
  }
}

void holdClosedStandardStreams() {
  for (const int stream : {STDOUT_FILENO, STDERR_FILENO}) {
    if (::fcntl(stream, F_GETFD) < 0 && errno == EBADF) {
      const int placeholder = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
      if (placeholder >= 0 && placeholder != stream) {
        ::dup2(placeholder, stream);
        ::close(placeholder);
      }
    }
  }
}

}  // namespace tilescope::bench
