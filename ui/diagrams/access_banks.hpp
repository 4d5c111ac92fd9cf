// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What access_view.cpp (painting) and access_hover.cpp (hover text) share: words and bank phases.
#include <QString>
#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "access_view.hpp"

namespace tilescope::ui {

// Memory is drawn in 4-byte words, 32 to a line whatever the element type: a word holds one
// fp32 or tf32 element, or two fp16 or bf16 ones.
inline constexpr int kWordBytes = 4;
inline constexpr int kWordsPerLine = kLineBytes / kWordBytes;
inline constexpr int kWordsPerSector = kSectorBytes / kWordBytes;

// Bytes one lane of the access moves.
inline std::int64_t laneBytes(const AccessPicture& picture) {
  return std::int64_t(picture.width) * picture.elementBytes;
}

// One phase of a shared read: its lanes, and the distinct words each bank serves for them,
// ascending, with the first lane reading each.
struct BankPhase {
  int firstLane = 0, lanes = kWarpSize;
  std::array<std::vector<std::pair<int, int>>, kSharedBanks> byBank;
  int passes() const {
    std::size_t most = 0;
    for (const auto& served : byBank) most = std::max(most, served.size());
    return int(most);
  }
};

// The phases that have an active lane, in order (one for 4-byte reads).
inline std::vector<BankPhase> bankPhases(const BankPicture& banks) {
  std::vector<BankPhase> phases;
  const int phaseLanes = lanesPerPhase(banks.width);
  for (int first = 0; first < kWarpSize; first += phaseLanes) {
    BankPhase phase{first, phaseLanes, {}};
    bool active = false;
    for (int lane = first; lane < first + phaseLanes; ++lane) {
      const int start = banks.word[std::size_t(lane)];
      if (start < 0) continue;
      active = true;
      for (int word = start; word < start + banks.width; ++word) {
        auto& served = phase.byBank[std::size_t(bankOf(word))];
        if (std::ranges::find(served, word, &std::pair<int, int>::first) == served.end())
          served.emplace_back(word, lane);
      }
    }
    if (!active) continue;
    for (auto& served : phase.byBank) std::ranges::sort(served);
    phases.push_back(std::move(phase));
  }
  return phases;
}

// "lanes 8–15" for a phase of a vector read; nothing for a 4-byte read's single phase.
inline QString laneSpan(const BankPhase& phase) {
  return phase.lanes == kWarpSize ? QString()
                                  : QStringLiteral("lanes %1–%2")
                                        .arg(phase.firstLane)
                                        .arg(phase.firstLane + phase.lanes - 1);
}

}  // namespace tilescope::ui
