// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A program's man page in roff (man(7)), written from the option table: NAME, SYNOPSIS,
// DESCRIPTION, OPTIONS, EXAMPLES, SEE ALSO.
#include <string>
#include <string_view>

#include "tilescope/cli/options.hpp"

namespace tilescope::cli {

std::string manPage(Program program, std::string_view version);

}  // namespace tilescope::cli
