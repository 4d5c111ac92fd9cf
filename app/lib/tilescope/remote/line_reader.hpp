// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Reads newline-terminated lines from a file descriptor with a length limit: a longer line is
// skipped to its end without being kept, and reported as too long. Shared by the server (its
// requests) and the client (the server's replies).
#include <atomic>
#include <cstddef>
#include <optional>
#include <string>

namespace tilescope::remote {

class LineReader {
 public:
  struct Line {
    std::string text;      // without the newline; empty when tooLong
    bool tooLong = false;  // the line passed the limit and was dropped
  };

  LineReader(int fd, std::size_t maxBytes) : fd_(fd), maxBytes_(maxBytes) {}

  // The next line, or nullopt at the end of the input (a last line without a newline is still
  // returned), on a read error, once `stop` is set (checked every `pollMs`), or when
  // `timeoutMs` (negative: none) passes without a whole line; timedOut() tells the last apart.
  std::optional<Line> next(const std::atomic<bool>* stop = nullptr, int timeoutMs = -1);
  bool timedOut() const { return timedOut_; }
  bool ended() const { return ended_; }

  static constexpr int pollMs = 100;

 private:
  std::optional<Line> takeLine();

  int fd_;
  std::size_t maxBytes_;
  std::string buffer_;
  bool skipping_ = false;  // inside a line that passed the limit
  bool ended_ = false;
  bool timedOut_ = false;
};

}  // namespace tilescope::remote
