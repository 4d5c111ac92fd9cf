// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal: the directives and operators of a user's source that would make a compiler read a
// file (#include in every spelling, __has_include, _Pragma, #line, ##, pragmas outside an
// allowlist), each a diagnostic at its line. prepareCompile refuses them, for NVRTC and the CPU's
// host compiler alike.
#include <string>
#include <vector>

#include "tilescope/user_kernel.hpp"

namespace tilescope {

std::vector<CompileDiagnostic> fileReads(const std::string& source);

}  // namespace tilescope
