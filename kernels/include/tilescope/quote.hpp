// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A value as messages quote it: whatever the user typed or a file held, the message stays one
// readable line of bounded length.
#include <cstddef>
#include <string>
#include <string_view>

namespace tilescope {

inline constexpr std::size_t kMaxQuotedCharacters = 80;

// 'value' with control characters and other non-printing bytes escaped (\n, \t, \x1b); a value
// longer than kMaxQuotedCharacters bytes shows its start and says how long it is:
// 'aaaa...' (100000 characters).
std::string quoteValue(std::string_view value);

}  // namespace tilescope
