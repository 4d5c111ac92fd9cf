// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// TracedTables: a traced launch indexed for the Mapping's questions (traced_mapping.cpp builds it).
#include <algorithm>
#include <array>
#include <cstdint>
#include <iterator>
#include <memory>
#include <set>
#include <utility>
#include <vector>

#include "tilescope/mapping.hpp"
#include "tilescope/user_kernel.hpp"

namespace tilescope {

// A trace indexed for the Mapping's questions: each block's extent, and the traced block's loads
// grouped by k-step, program order kept inside one. A load outside its matrix keeps its place
// (its lane is idle in that instruction), so the loads after it keep their instruction.
struct TracedTables {
  KernelTrace trace;
  std::vector<std::pair<Range, Range>> blockBoxes;  // rows and columns of C each block stored
  // Per operand (A, B): every thread's loads ordered by k-step, program order kept inside one;
  // thread t's run from threadStart[t] to threadStart[t + 1], and its k-steps that load anything
  // are listed ascending with where each starts (sparse: K may be long and most steps empty).
  std::array<std::vector<TracedLoad>, 2> loads;
  std::array<std::vector<std::size_t>, 2> threadStart;
  std::array<std::vector<std::vector<std::pair<std::int64_t, std::size_t>>>, 2> stepStarts;
  std::array<std::int64_t, 2> mostPerStep{};  // the most loads one thread makes in one k-step
  // The most rows and columns one thread stored, in the traced block or a fullest one.
  std::int64_t mostRows = 0, mostCols = 0;
  // The distinct rows and columns each thread of the traced block stored, ascending.
  std::vector<std::vector<std::int64_t>> tracedRows, tracedCols;
  // Per tile (A, B): the traced block's shared words, each less the lowest word of that tile
  // any thread touched in its k-step (where that k-step's tile starts, in whichever stage), so
  // the words read as the formulas' tile layout.
  // A warp's instruction n is each lane's n-th read (or write) of the tile over the launch: the
  // accessors of a warp run in step. readSlots: reads per thread per pass of the reads (per
  // inner index, or per mma's k where the tile is read as fragments: readsEveryK); writeSlots:
  // writes per thread per k-step (0: none traced).
  std::array<SharedTrace, 2> shared;
  std::array<int, 2> readSlots{}, writeSlots{};

  // Tile `operand`'s read (or write) n of each lane of `warp`, -1 where a lane has none.
  WarpSharedAccess sharedAccess(int operand, bool write, int warp, std::int64_t n) const {
    const auto& perThread =
        write ? shared[std::size_t(operand)].writes : shared[std::size_t(operand)].reads;
    WarpSharedAccess access;
    for (int lane = 0; lane < kWarpSize; ++lane) {
      const std::size_t thread = std::size_t(warp * kWarpSize + lane);
      const bool has = thread < perThread.size() && n < std::int64_t(perThread[thread].size());
      const TracedWord at = has ? perThread[thread][std::size_t(n)] : TracedWord{-1, 1};
      access.word[std::size_t(lane)] = at.word;
      access.width = std::max(access.width, at.width);  // lanes of one instruction agree
    }
    return access;
  }

  int threads() const { return trace.block.x * trace.block.y; }
  int linearBlock(Dim2 block) const { return block.x + block.y * trace.grid.x; }
  bool insideGrid(Dim2 block) const {
    return block.x >= 0 && block.y >= 0 && block.x < trace.grid.x && block.y < trace.grid.y;
  }

  // Row-major over the block's extent: the elements `thread` of `block` stored.
  std::vector<Cell> outputs(Dim2 block, Dim2 thread) const {
    std::vector<Cell> cells;
    if (!insideGrid(block)) return cells;
    const auto& [rows, cols] = blockBoxes[std::size_t(linearBlock(block))];
    const int b = linearBlock(block), t = thread.x + thread.y * trace.block.x;
    // The box may reach into the padding (padEdgeTiles), where no thread stores.
    const std::int64_t lastRow = std::min(rows.end(), trace.shape.m);
    const std::int64_t lastCol = std::min(cols.end(), trace.shape.n);
    for (std::int64_t i = rows.begin; i < lastRow; ++i)
      for (std::int64_t j = cols.begin; j < lastCol; ++j) {
        const std::size_t at = std::size_t(i * trace.shape.n + j);
        if (trace.ownerBlock[at] == b && trace.ownerThread[at] == t) cells.push_back({i, j});
      }
    return cells;
  }

  // The distinct rows (or columns) `thread` of `block` stored, ascending.
  std::vector<std::int64_t> distinctOutputs(Dim2 block, Dim2 thread, bool rows) const {
    if (block.x == trace.tracedBlock.x && block.y == trace.tracedBlock.y) {
      const std::size_t t = std::size_t(thread.x + thread.y * trace.block.x);
      return rows ? tracedRows[t] : tracedCols[t];
    }
    std::set<std::int64_t> values;
    for (const Cell& cell : outputs(block, thread)) values.insert(rows ? cell.row : cell.col);
    return {values.begin(), values.end()};
  }

  // The traced block's loads of `operand` by `thread` in k-step `step`, in program order.
  std::pair<const TracedLoad*, const TracedLoad*> stepLoads(int operand, int thread,
                                                            std::int64_t step) const {
    const auto& starts = stepStarts[std::size_t(operand)][std::size_t(thread)];
    const TracedLoad* base = loads[std::size_t(operand)].data();
    const auto found = std::lower_bound(starts.begin(), starts.end(), step,
                                        [](const std::pair<std::int64_t, std::size_t>& entry,
                                           std::int64_t s) { return entry.first < s; });
    if (found == starts.end() || found->first != step) return {base, base};
    const std::size_t end = std::next(found) == starts.end()
                                ? threadStart[std::size_t(operand)][std::size_t(thread) + 1]
                                : std::next(found)->second;
    return {base + found->second, base + end};
  }
};

// Checks a trace and indexes it; throws an InvalidArgument Error where it is inconsistent.
std::shared_ptr<const TracedTables> indexTrace(const KernelTrace& trace);

}  // namespace tilescope
