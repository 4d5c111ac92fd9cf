// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The one way TileScope writes and reads a file, for the CLI and the app alike (no Qt).
//
// Writing: only a regular file or a new path is a target (never a device such as /dev/null, a
// directory or a FIFO), and a read-only file is refused rather than replaced. The content goes to
// a temporary file beside the target; every write is checked, the file is flushed to disk and
// closed, and only then renamed over the target. On any failure the old file is untouched, no
// temporary file is left and the message names the file, the reason and what to do.
//
// Reading: only a regular file, opened without blocking (a FIFO or a device is refused at once),
// up to a size limit; JSON documents also have a nesting limit.
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace tilescope::io {

// A file being replaced. The constructor checks the target and that a temporary file can be made
// beside it, so an unwritable path is found before anything runs; a commit makes the temporary
// file, and the destructor removes it unless the commit succeeded. Commit once. Every failure
// throws tilescope::Error(InvalidArgument) whose message starts "cannot write <what> '<path>': "
// (without <what> when it is empty).
class FileWriter {
 public:
  FileWriter(std::string path, std::string what);
  ~FileWriter();
  FileWriter(const FileWriter&) = delete;
  FileWriter& operator=(const FileWriter&) = delete;

  // Writes `content`, flushes it to disk and renames the temporary file to the target.
  void commit(std::string_view content);

  // For writers that only take a file name (QCustomPlot's save functions): `write` writes the
  // temporary file it is given and says whether it succeeded; the result is then flushed and
  // renamed like commit()'s. `writer` names it in the message when it fails.
  void commitWrittenBy(const std::function<bool(const std::string& temporaryPath)>& write,
                       const std::string& writer);

  const std::string& path() const { return path_; }

 private:
  [[noreturn]] void fail(const std::string& reason) const;
  [[noreturn]] void failWithErrno(int error) const;
  void checkTarget();
  void openTemporary();
  void syncCloseAndRename();

  std::string path_;  // the target; a symbolic link's target, so the link stays
  std::string what_;
  std::string temporaryPath_;
  int descriptor_ = -1;
  bool committed_ = false;
};

// FileWriter(path, what).commit(content).
void writeFile(const std::string& path, std::string_view content, const std::string& what);

inline constexpr std::size_t kMaxSessionBytes = std::size_t(256) << 20;  // sessions, results
// A trace file: the owners of up to 2^20 elements of C and one block's loads, as runs.
inline constexpr std::size_t kMaxTraceFileBytes = std::size_t(256) << 20;
inline constexpr std::size_t kMaxTunedBytes = std::size_t(1) << 20;  // tuned.json
inline constexpr int kMaxJsonDepth = 64;  // TileScope's documents nest 5 deep

// The whole of a regular file of at most `maxBytes`; throws tilescope::Error(InvalidArgument)
// whose message starts "cannot read <what> '<path>': ". nullopt when the file does not exist
// and `missingIsEmpty`.
std::optional<std::string> readFile(const std::string& path, std::size_t maxBytes,
                                    const std::string& what, bool missingIsEmpty = false);

// Parses a JSON document no deeper than kMaxJsonDepth; throws tilescope::Error(InvalidArgument)
// "<what> is not valid JSON: <why> at byte N" or "... nests deeper than 64 levels".
nlohmann::json parseJson(std::string_view text, const std::string& what);

}  // namespace tilescope::io
