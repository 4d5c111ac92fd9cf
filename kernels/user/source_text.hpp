// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal: reading a user's source and a compiler's log a line at a time, each scan a single
// pass with no recursion (a long or deeply nested line costs time in proportion, never stack).
#include <cctype>
#include <charconv>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tilescope/user_kernel.hpp"

namespace tilescope::source_text {

// The lines of `text` as std::getline reads them: split at '\n', a last empty line left out.
inline std::vector<std::string_view> lines(std::string_view text) {
  std::vector<std::string_view> out;
  for (std::size_t begin = 0; begin < text.size();) {
    const std::size_t end = std::min(text.find('\n', begin), text.size());
    out.push_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  return out;
}

inline bool isSpace(char c) {
  return std::isspace(static_cast<unsigned char>(c)) != 0;
}
inline bool isDigit(char c) {
  return c >= '0' && c <= '9';
}
// What a regular expression's \w matches.
inline bool isWordChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

inline std::string_view trimmed(std::string_view text) {
  while (!text.empty() && isSpace(text.front())) text.remove_prefix(1);
  while (!text.empty() && isSpace(text.back())) text.remove_suffix(1);
  return text;
}

// The run of characters from `at` that `keep` accepts.
template <typename Predicate>
std::string_view run(std::string_view text, std::size_t at, Predicate keep) {
  std::size_t end = std::min(at, text.size());
  while (end < text.size() && keep(text[end])) ++end;
  return text.substr(std::min(at, text.size()), end - std::min(at, text.size()));
}

// `text` whole as an int; nullopt for anything else or a value past int.
inline std::optional<int> integer(std::string_view text) {
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// `count` with a comma between thousands: 61,440.
inline std::string withThousands(std::size_t count) {
  const std::string digits = std::to_string(count);
  std::string grouped;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) grouped += ',';
    grouped += digits[i];
  }
  return grouped;
}

}  // namespace tilescope::source_text
