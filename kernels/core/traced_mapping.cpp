// SPDX-License-Identifier: GPL-3.0-or-later
// The traced-kernel map: a trace checked and indexed (indexTrace) and maps::Traced answered from
// it.
#include "core/traced_tables.hpp"

#include <algorithm>
#include <limits>
#include <set>
#include <string>

#include "tilescope/error.hpp"
#include "tilescope/problem.hpp"

namespace tilescope {

namespace maps {

Dim2 Traced::block() const {
  return tables->trace.block;
}
Dim2 Traced::grid(std::int64_t, std::int64_t) const {
  return tables->trace.grid;
}
std::int64_t Traced::rowsPerThread(std::int64_t) const {
  return std::max<std::int64_t>(1, tables->mostRows);
}
std::int64_t Traced::colsPerThread(std::int64_t) const {
  return std::max<std::int64_t>(1, tables->mostCols);
}
std::int64_t Traced::row(Dim2 b, Dim2 t, std::int64_t r) const {
  const std::vector<std::int64_t> rows = tables->distinctOutputs(b, t, true);
  return r < std::int64_t(rows.size()) ? rows[std::size_t(r)] : tables->trace.shape.m + r;
}
std::int64_t Traced::col(Dim2 b, Dim2 t, std::int64_t c) const {
  const std::vector<std::int64_t> cols = tables->distinctOutputs(b, t, false);
  return c < std::int64_t(cols.size()) ? cols[std::size_t(c)] : tables->trace.shape.n + c;
}
OwnerSlot Traced::owner(std::int64_t i, std::int64_t j) const {
  const KernelTrace& trace = tables->trace;
  const std::size_t at = std::size_t(i * trace.shape.n + j);
  const int block = trace.ownerBlock[at], thread = trace.ownerThread[at];
  if (block < 0) return {{-1, -1}, {-1, -1}, 0, 0};
  const Dim2 b{block % trace.grid.x, block / trace.grid.x};
  const Dim2 t{thread % trace.block.x, thread / trace.block.x};
  const std::vector<std::int64_t> rows = tables->distinctOutputs(b, t, true);
  const std::vector<std::int64_t> cols = tables->distinctOutputs(b, t, false);
  return {b, t, int(std::lower_bound(rows.begin(), rows.end(), i) - rows.begin()),
          int(std::lower_bound(cols.begin(), cols.end(), j) - cols.begin())};
}
int Traced::kDepth() const {
  return tables->trace.kDepth;
}

}  // namespace maps

namespace {

// Where the blocks tile C regularly (each block's rows start at a multiple of the tallest
// block's height and fill it but at the last row of C, the same for columns), an edge block is
// a whole tile reaching past the matrix, as the formulas draw it: the padding it computes but
// does not store.
void padEdgeTiles(std::vector<std::pair<Range, Range>>& boxes, const Shape& shape) {
  std::int64_t height = 0, width = 0;
  for (const auto& [rows, cols] : boxes) {
    height = std::max(height, rows.count);
    width = std::max(width, cols.count);
  }
  if (height == 0 || width == 0) return;
  const auto regular = [](const Range& range, std::int64_t size, std::int64_t limit) {
    return range.count == 0 ||
           (range.begin % size == 0 && (range.count == size || range.end() == limit));
  };
  for (const auto& [rows, cols] : boxes)
    if (!regular(rows, height, shape.m) || !regular(cols, width, shape.n)) return;
  for (auto& [rows, cols] : boxes)
    if (rows.count > 0) {
      rows.count = height;
      cols.count = width;
    }
}

[[noreturn]] void refuseTrace(const std::string& problem) {
  throw Error(ErrorKind::InvalidArgument, "the trace is inconsistent: " + problem);
}

// The traced tiles' words made relative to where each k-step's tile starts, and the slots they
// fill.
void indexSharedWords(TracedTables& t) {
  const KernelTrace& trace = t.trace;
  const std::int64_t steps = ceilDiv(trace.shape.k, trace.kDepth);
  for (int operand = 0; operand < 2; ++operand) {
    const SharedTrace& tile = operand == 0 ? trace.sharedA : trace.sharedB;
    if (tile.empty()) continue;
    if (tile.reads.size() != std::size_t(t.threads()) ||
        tile.writes.size() != std::size_t(t.threads()))
      refuseTrace("it does not list the shared-memory words of each thread of the traced block");
    std::size_t mostReads = 0, mostWrites = 0;
    for (const auto& words : tile.reads) mostReads = std::max(mostReads, words.size());
    for (const auto& words : tile.writes) mostWrites = std::max(mostWrites, words.size());
    if (tile.readsEveryK < 1 || trace.kDepth % tile.readsEveryK != 0)
      refuseTrace("its fragment reads cover " + std::to_string(tile.readsEveryK) +
                  " values of k, which do not divide its k-step of " +
                  std::to_string(trace.kDepth));
    const std::int64_t passes = trace.kDepth / tile.readsEveryK;  // of the reads, per k-step
    const int readSlots = int(ceilDiv(std::int64_t(mostReads), steps * passes));
    const int writeSlots = int(ceilDiv(std::int64_t(mostWrites), steps));
    t.readSlots[std::size_t(operand)] = readSlots;
    t.writeSlots[std::size_t(operand)] = writeSlots;
    // Access n of a thread belongs to k-step n / (accesses per k-step); any past the last k-step
    // share one more.
    const auto stepOf = [&](std::size_t n, bool write) {
      const std::int64_t perStep = write ? writeSlots : readSlots * passes;
      return std::size_t(std::min<std::int64_t>(std::int64_t(n) / perStep, steps));
    };
    // Where each k-step's tile starts: the lowest word of the tile the block touched in it (a
    // kernel with several stages keeps each k-step's tile in another).
    std::vector<int> lowest(std::size_t(steps) + 1, std::numeric_limits<int>::max());
    for (const bool write : {false, true})
      for (const std::vector<TracedWord>& words : write ? tile.writes : tile.reads)
        for (std::size_t n = 0; n < words.size(); ++n) {
          const TracedWord& at = words[n];
          if (at.word < 0) refuseTrace("a shared-memory word has a negative address");
          if (at.width > 4 || !tracedWidth(at.width))
            refuseTrace("a shared-memory access is not 1, 2 or 4 words");
          int& low = lowest[stepOf(n, write)];
          low = std::min(low, at.word);
        }
    SharedTrace& relative = t.shared[std::size_t(operand)];
    relative = tile;
    for (const bool write : {false, true})
      for (std::vector<TracedWord>& words : write ? relative.writes : relative.reads)
        for (std::size_t n = 0; n < words.size(); ++n) words[n].word -= lowest[stepOf(n, write)];
  }
}

}  // namespace

std::shared_ptr<const TracedTables> indexTrace(const KernelTrace& trace) {
  validateShape(trace.shape);
  const Shape& shape = trace.shape;
  if (trace.grid.x < 1 || trace.grid.y < 1 || trace.block.x < 1 || trace.block.y < 1)
    refuseTrace("its launch has an empty grid or block");
  if (trace.launchGrid && (trace.launchGrid->x < 1 || trace.launchGrid->y < 1))
    refuseTrace("its persistent launch has no blocks");
  if (trace.cluster.x < 1 || trace.cluster.y < 1) refuseTrace("its clusters have no blocks");
  if (std::int64_t(trace.block.x) * trace.block.y > 1024)
    refuseTrace("its block has more than 1024 threads");
  if (trace.kDepth < 1) refuseTrace("its k-step covers no value of k");
  const std::size_t elements = std::size_t(shape.m * shape.n);
  if (trace.ownerBlock.size() != elements || trace.ownerThread.size() != elements)
    refuseTrace("it does not name an owner for each of the " + std::to_string(elements) +
                " elements of C");
  auto tables = std::make_shared<TracedTables>();
  tables->trace = trace;
  TracedTables& t = *tables;
  if (!t.insideGrid(trace.tracedBlock)) refuseTrace("its traced block is outside the grid");
  const int threads = t.threads();
  const std::int64_t blocks = std::int64_t(trace.grid.x) * trace.grid.y;
  if (blocks > kMaxTracedElements)
    refuseTrace("its grid of " + std::to_string(blocks) + " blocks is more than the " +
                std::to_string(kMaxTracedElements) + " a trace draws");
  t.blockBoxes.assign(std::size_t(blocks), {Range{0, 0}, Range{0, 0}});
  std::vector<std::array<std::int64_t, 4>> bounds(std::size_t(blocks), {shape.m, -1, shape.n, -1});
  for (std::int64_t i = 0; i < shape.m; ++i)
    for (std::int64_t j = 0; j < shape.n; ++j) {
      const std::size_t at = std::size_t(i * shape.n + j);
      const int block = trace.ownerBlock[at], thread = trace.ownerThread[at];
      if (block < -1 || block >= blocks || thread < -1 || thread >= threads ||
          (block < 0) != (thread < 0))
        refuseTrace("C[" + std::to_string(i) + "][" + std::to_string(j) +
                    "] names a block or thread outside the launch");
      if (block < 0) continue;
      auto& b = bounds[std::size_t(block)];
      b = {std::min(b[0], i), std::max(b[1], i), std::min(b[2], j), std::max(b[3], j)};
    }
  for (std::size_t b = 0; b < bounds.size(); ++b)
    if (bounds[b][1] >= 0)
      t.blockBoxes[b] = {Range{bounds[b][0], bounds[b][1] + 1 - bounds[b][0]},
                         Range{bounds[b][2], bounds[b][3] + 1 - bounds[b][2]}};
  padEdgeTiles(t.blockBoxes, shape);

  // Loads: each thread's, grouped by k-step (a load outside its matrix too: it keeps its place).
  if (trace.loadsA.size() != std::size_t(threads) || trace.loadsB.size() != std::size_t(threads))
    refuseTrace("it does not list the loads of each thread of the traced block");
  if (trace.storeWidth > 4 || !tracedWidth(trace.storeWidth))
    refuseTrace("its stores are not 1, 2 or 4 elements wide");
  const std::int64_t steps = ceilDiv(shape.k, trace.kDepth);
  for (int operand = 0; operand < 2; ++operand) {
    const auto& perThread = operand == 0 ? trace.loadsA : trace.loadsB;
    auto& flat = t.loads[std::size_t(operand)];
    auto& threadStart = t.threadStart[std::size_t(operand)];
    auto& stepStarts = t.stepStarts[std::size_t(operand)];
    stepStarts.resize(std::size_t(threads));
    for (int thread = 0; thread < threads; ++thread) {
      threadStart.push_back(flat.size());
      std::vector<TracedLoad> ordered = perThread[std::size_t(thread)];
      for (const TracedLoad& load : ordered)
        if (!tracedWidth(load.width)) refuseTrace("a load is not 1, 2, 4, 8 or 16 elements wide");
      // k runs along A's columns and B's rows; a load before k = 0 falls in no k-step.
      const auto stepOf = [&](const TracedLoad& load) {
        const std::int64_t k = operand == 0 ? load.col : load.row;
        return k < 0 ? std::int64_t(-1) : k / trace.kDepth;
      };
      std::stable_sort(
          ordered.begin(), ordered.end(),
          [&](const TracedLoad& x, const TracedLoad& y) { return stepOf(x) < stepOf(y); });
      for (std::size_t n = 0; n < ordered.size();) {
        const std::int64_t step = stepOf(ordered[n]);
        const std::size_t first = n;
        while (n < ordered.size() && stepOf(ordered[n]) == step) ++n;
        stepStarts[std::size_t(thread)].emplace_back(step, flat.size() + first);
        if (step >= 0 && step < steps)  // the others are drawn in no k-step
          t.mostPerStep[std::size_t(operand)] =
              std::max(t.mostPerStep[std::size_t(operand)], std::int64_t(n - first));
      }
      flat.insert(flat.end(), ordered.begin(), ordered.end());
    }
    threadStart.push_back(flat.size());
  }
  // One pass over a block's extent gives each of its threads' rows and columns.
  const auto threadCount = static_cast<std::size_t>(threads);
  const auto distinctPerThread = [&](int block) {
    std::pair<std::vector<std::set<std::int64_t>>, std::vector<std::set<std::int64_t>>> found{
        threadCount, threadCount};
    const auto& [blockRows, blockCols] = t.blockBoxes[std::size_t(block)];
    for (std::int64_t i = blockRows.begin; i < std::min(blockRows.end(), shape.m); ++i)
      for (std::int64_t j = blockCols.begin; j < std::min(blockCols.end(), shape.n); ++j) {
        const std::size_t at = std::size_t(i * shape.n + j);
        if (trace.ownerBlock[at] != block) continue;
        found.first[std::size_t(trace.ownerThread[at])].insert(i);
        found.second[std::size_t(trace.ownerThread[at])].insert(j);
      }
    return found;
  };
  // The traced block's slots: where its stores were recorded, every row and column a thread
  // stored, outside C too (a thread whose slots reach past C still has them all); else those
  // of the elements it owns.
  auto [rows, cols] = distinctPerThread(t.linearBlock(trace.tracedBlock));
  if (!trace.stores.empty()) {
    if (trace.stores.size() != threadCount)
      refuseTrace("it does not list the stores of each thread of the traced block");
    for (std::size_t thread = 0; thread < threadCount; ++thread)
      for (const TracedLoad& store : trace.stores[thread]) {
        if (store.row < 0 || store.col < 0 || !tracedWidth(store.width) || store.width > 4)
          refuseTrace("a store of its traced block names no element or width of C");
        rows[thread].insert(store.row);
        for (int c = 0; c < store.width; ++c) cols[thread].insert(store.col + c);
      }
  }
  for (int thread = 0; thread < threads; ++thread) {
    t.tracedRows.emplace_back(rows[std::size_t(thread)].begin(), rows[std::size_t(thread)].end());
    t.tracedCols.emplace_back(cols[std::size_t(thread)].begin(), cols[std::size_t(thread)].end());
    t.mostRows = std::max(t.mostRows, std::int64_t(t.tracedRows.back().size()));
    t.mostCols = std::max(t.mostCols, std::int64_t(t.tracedCols.back().size()));
  }
  // A thread of an edge block may store fewer rows or columns than its slots: a block that
  // stored the most elements counts them all.
  std::size_t fullest = 0;
  for (std::size_t b = 1; b < bounds.size(); ++b) {
    const auto extent = [&](std::size_t x) {
      return bounds[x][1] < 0
                 ? 0
                 : (bounds[x][1] + 1 - bounds[x][0]) * (bounds[x][3] + 1 - bounds[x][2]);
    };
    if (extent(b) > extent(fullest)) fullest = b;
  }
  if (fullest != std::size_t(t.linearBlock(trace.tracedBlock))) {
    const auto [fullRows, fullCols] = distinctPerThread(int(fullest));
    for (int thread = 0; thread < threads; ++thread) {
      t.mostRows = std::max(t.mostRows, std::int64_t(fullRows[std::size_t(thread)].size()));
      t.mostCols = std::max(t.mostCols, std::int64_t(fullCols[std::size_t(thread)].size()));
    }
  }
  indexSharedWords(t);
  return tables;
}

}  // namespace tilescope
