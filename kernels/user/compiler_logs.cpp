// SPDX-License-Identifier: GPL-3.0-or-later
// Reading compilers' output (compiler_logs.hpp): each line read once, left to right.
#include "user/compiler_logs.hpp"

#include "user/source_text.hpp"

namespace tilescope {
namespace {

// A message of NVRTC's at the start of a log line: "name.cu(12): error: ...", or "warning #177-D:".
struct NvrtcMessage {
  std::string_view file, line, kind, text;
};

// Read left to right from each '(' (file names have none), one pass over the line.
std::optional<NvrtcMessage> nvrtcMessage(std::string_view line) {
  using source_text::isDigit;
  for (std::size_t open = line.find('('); open != std::string_view::npos;
       open = line.find('(', open + 1)) {
    const std::string_view digits = source_text::run(line, open + 1, isDigit);
    std::size_t at = open + 1 + digits.size();
    if (digits.empty() || line.substr(at, 3) != "): ") continue;
    at += 3;
    std::string_view kind;
    for (const std::string_view known : {"catastrophic error", "error", "warning"})
      if (line.substr(at, known.size()) == known) {
        kind = known;
        break;
      }
    if (kind.empty()) continue;
    const std::size_t colon = line.find(':', at + kind.size());  // past "#20-D" and the like
    if (colon == std::string_view::npos || line.substr(colon, 2) != ": ") continue;
    return NvrtcMessage{line.substr(0, open), digits, kind, line.substr(colon + 2)};
  }
  return std::nullopt;
}

}  // namespace

std::vector<CompileDiagnostic> nvrtcDiagnostics(const std::string& log, const std::string& file) {
  std::vector<CompileDiagnostic> found;
  const std::vector<std::string_view> lines = source_text::lines(log);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::optional<NvrtcMessage> message = nvrtcMessage(lines[i]);
    if (!message) continue;
    CompileDiagnostic d;
    d.error = message->kind != "warning";
    d.message = message->text;
    // A message about the API header belongs to the whole program, not to a line of the user's.
    if (message->file == file) d.line = source_text::integer(message->line).value_or(0);
    if (d.line > 0 && i + 2 < lines.size()) {
      const std::size_t caret = lines[i + 2].find('^');
      if (caret != std::string::npos && caret >= 2 && lines[i + 2].find_first_not_of(' ') == caret)
        d.column = int(caret) - 1;
    }
    found.push_back(std::move(d));
  }
  return found;
}

namespace {

// A message of GCC's or Clang's: "file:line:column: error: ...", the file up to the first ':'
// that such a place and kind follow.
struct HostMessage {
  std::string_view file, line, column, kind, text;
};

std::optional<HostMessage> hostMessage(std::string_view text) {
  using source_text::isDigit;
  for (std::size_t colon = text.find(':'); colon != std::string_view::npos;
       colon = text.find(':', colon + 1)) {
    const std::string_view line = source_text::run(text, colon + 1, isDigit);
    std::size_t at = colon + 1 + line.size();
    if (line.empty() || text.substr(at, 1) != ":") continue;
    const std::string_view column = source_text::run(text, at + 1, isDigit);
    at += 1 + column.size();
    if (column.empty() || text.substr(at, 2) != ": ") continue;
    at += 2;
    for (const std::string_view kind : {"fatal error", "error", "warning"})
      if (text.substr(at, kind.size()) == kind && text.substr(at + kind.size(), 2) == ": ")
        return HostMessage{text.substr(0, colon), line, column, kind,
                           text.substr(at + kind.size() + 2)};
  }
  return std::nullopt;
}

}  // namespace

// GCC's and Clang's messages: "file:line:column: error: ...".
std::vector<CompileDiagnostic> hostCompilerDiagnostics(const std::string& log,
                                                       const std::string& file) {
  std::vector<CompileDiagnostic> found;
  for (const std::string_view line : source_text::lines(log)) {
    const std::optional<HostMessage> message = hostMessage(line);
    if (!message) continue;
    CompileDiagnostic d;
    d.error = message->kind != "warning";
    d.message = message->text;
    if (message->file == file) {
      d.line = source_text::integer(message->line).value_or(0);
      d.column = source_text::integer(message->column).value_or(0);
    } else {
      // In the API or the prelude: TileScope's part, named with its line.
      d.message = std::string(message->file) + ":" + std::string(message->line) + ": " + d.message;
    }
    found.push_back(std::move(d));
  }
  return found;
}

}  // namespace tilescope
