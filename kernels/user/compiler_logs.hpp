// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal: a compiler's output read back onto the user's lines. A log is untrusted text (it
// quotes the user's source): each reader is one pass per line, none recursing on its length.
#include <optional>
#include <string>
#include <vector>

#include "tilescope/user_kernel.hpp"

namespace tilescope {

// NVRTC's messages: "name.cu(12): error: ...", the offending line echoed after two spaces, then
// a caret under the column. Those in `file` at their lines, the API's at line 0.
std::vector<CompileDiagnostic> nvrtcDiagnostics(const std::string& log, const std::string& file);

// GCC's and Clang's messages: "file:line:column: error: ...". Those in `file` at their lines and
// columns, the API's and the prelude's at line 0 with their file and line in the message.
std::vector<CompileDiagnostic> hostCompilerDiagnostics(const std::string& log,
                                                       const std::string& file);

}  // namespace tilescope
