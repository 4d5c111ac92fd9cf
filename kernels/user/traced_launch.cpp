// SPDX-License-Identifier: GPL-3.0-or-later
#include "user/traced_launch.hpp"

#include <algorithm>

#include "families/tensor_mma/tensor_mma.hpp"

namespace tilescope::traced {

void readEvents(const std::vector<int>& counts, const std::vector<unsigned long long>& events,
                int capacity, KernelTrace& out) {
  constexpr std::int64_t kStoreRow = 1 << 28;  // the API header's detail::kStoreRow
  const std::size_t threads = counts.size();
  for (auto* perThread : {&out.loadsA, &out.loadsB, &out.stores}) perThread->resize(threads);
  for (auto* perThread :
       {&out.sharedA.reads, &out.sharedA.writes, &out.sharedB.reads, &out.sharedB.writes})
    perThread->resize(threads);
  for (std::size_t t = 0; t < threads; ++t) {
    const int recorded = std::min(counts[t], capacity);
    out.truncated = out.truncated || counts[t] > capacity;
    for (int n = 0; n < recorded; ++n) {
      // The API header's encoding: kind << 62 | log2(width) << 59 | row << 30 | col.
      const unsigned long long event = events[t * std::size_t(capacity) + std::size_t(n)];
      const auto row = std::int64_t(event >> 30 & 0x1FFFFFFF);
      const auto col = std::int64_t(event & 0x3FFFFFFF);
      const int width = 1 << (event >> 59 & 7);
      switch (event >> 62) {
        case 0:
          out.loadsA[t].push_back({row, col, width});
          break;
        case 1:
          out.loadsB[t].push_back({row, col, width});
          break;
        default: {
          // A write whose row is kStoreRow + i: a store of C[i][col].
          if (event >> 62 == 3 && row >= kStoreRow) {
            out.stores[t].push_back({row - kStoreRow, col, width});
            break;
          }
          // Row: the tile, plus 2 for a read of tensor-core fragments.
          SharedTrace& tile = row % 2 == 0 ? out.sharedA : out.sharedB;
          if (row >= 2) tile.readsEveryK = maps::kFragmentKBytes / storageBytes(out.element);
          (event >> 62 == 2 ? tile.reads : tile.writes)[t].push_back({int(col), width});
        }
      }
    }
  }
  // A kernel that touched no shared word through the accessors has no shared trace.
  for (SharedTrace* tile : {&out.sharedA, &out.sharedB}) {
    const auto none = [](const std::vector<std::vector<TracedWord>>& words) {
      return std::all_of(words.begin(), words.end(), [](const auto& w) { return w.empty(); });
    };
    if (none(tile->reads) && none(tile->writes)) *tile = {};
  }
}

}  // namespace tilescope::traced
