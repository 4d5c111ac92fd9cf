// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// --list: the catalogue's kernels with their parameters, and each backend with its devices or the
// reason it cannot be used.
#include <iosfwd>

namespace tilescope::bench {

void writeListing(std::ostream& out);

}  // namespace tilescope::bench
