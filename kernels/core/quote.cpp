// SPDX-License-Identifier: GPL-3.0-or-later
#include "tilescope/quote.hpp"

#include <cstdio>

namespace tilescope {

std::string quoteValue(std::string_view value) {
  const std::string_view shown = value.substr(0, kMaxQuotedCharacters);
  std::string text = "'";
  for (const char c : shown) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\n') {
      text += "\\n";
    } else if (c == '\t') {
      text += "\\t";
    } else if (c == '\r') {
      text += "\\r";
    } else if (c == '\\') {
      text += "\\\\";
    } else if (byte < 0x20 || byte == 0x7f) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
      text += escaped;
    } else {
      text += c;  // printable ASCII, and UTF-8 left whole for the terminal to show
    }
  }
  text += "'";
  if (shown.size() < value.size())
    text.insert(text.size() - 1, "...")
        .append(" (" + std::to_string(value.size()) + " characters)");
  return text;
}

}  // namespace tilescope
