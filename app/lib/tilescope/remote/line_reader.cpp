// SPDX-License-Identifier: GPL-3.0-or-later
#include "tilescope/remote/line_reader.hpp"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>

namespace tilescope::remote {

std::optional<LineReader::Line> LineReader::takeLine() {
  const std::size_t newline = buffer_.find('\n');
  if (newline == std::string::npos) {
    if (buffer_.size() > maxBytes_) {
      // Keep nothing of a line that is already too long; report it once it ends.
      skipping_ = true;
      buffer_.clear();
    }
    return std::nullopt;
  }
  Line line;
  if (skipping_ || newline > maxBytes_) {
    line.tooLong = true;
    skipping_ = false;
  } else {
    line.text = buffer_.substr(0, newline);
  }
  buffer_.erase(0, newline + 1);
  return line;
}

std::optional<LineReader::Line> LineReader::next(const std::atomic<bool>* stop, int timeoutMs) {
  timedOut_ = false;
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    if (auto line = takeLine()) return line;
    if (ended_) {
      if (buffer_.empty() && !skipping_) return std::nullopt;
      Line last;
      last.tooLong = skipping_;
      if (!skipping_) last.text = std::move(buffer_);
      buffer_.clear();
      skipping_ = false;
      return last;
    }
    if (stop && stop->load()) return std::nullopt;
    int wait = pollMs;
    if (timeoutMs >= 0) {
      const auto spent = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::steady_clock::now() - start)
                             .count();
      if (spent >= timeoutMs) {
        timedOut_ = true;
        return std::nullopt;
      }
      wait = int(std::min<long long>(wait, timeoutMs - spent));
    }
    pollfd ready{fd_, POLLIN, 0};
    const int polled = ::poll(&ready, 1, wait);
    if (polled < 0 && errno != EINTR) {
      ended_ = true;
      continue;
    }
    if (polled <= 0) continue;
    char chunk[65536];
    const ssize_t got = ::read(fd_, chunk, sizeof chunk);
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (got <= 0) {
      ended_ = true;
      continue;
    }
    buffer_.append(chunk, std::size_t(got));
  }
}

}  // namespace tilescope::remote
