#include "tilescope/mapping.hpp"

#include <variant>

#include "tilescope/error.hpp"

namespace tilescope {

const char* toString(Access access) {
  switch (access) {
    case Access::LoadA:
      return "A load";
    case Access::LoadB:
      return "B load";
    case Access::StoreC:
      return "C store";
  }
  return "access";
}

int WarpAccess::activeLanes() const {
  int n = 0;
  for (std::int64_t e : element) n += e >= 0;
  return n;
}

namespace {

using AnyMap = std::variant<maps::Serial, maps::RowPerThread, maps::Naive, maps::SharedA,
                            maps::SharedTiled, maps::RegisterTiled>;

AnyMap makeMap(Family family, int tile) {
  switch (family) {
    case Family::Serial:
      return maps::Serial{};
    case Family::RowPerThread:
      return maps::RowPerThread{tile};
    case Family::Naive:
      return maps::Naive{tile};
    case Family::SharedA:
      return maps::SharedA{{tile}};
    case Family::SharedTiled:
      return maps::SharedTiled{{{tile}}};
    case Family::RegisterTiled:
      return maps::RegisterTiled{tile};
    case Family::Library:
      break;
  }
  throw Error(ErrorKind::Unsupported, "the library reference has no visible mapping");
}

// CUDA's limit on gridDim.y (gridDim.x allows 2^31 - 1).
constexpr int kMaxGridY = 65535;

}  // namespace

Mapping::Mapping(const KernelConfig& config, const Shape& shape)
    : config_(resolve(config)), shape_(shape), family_(kernelInfo(config.kernel).family) {
  validateShape(shape);
  if (!kernelInfo(config.kernel).hasMapping) {
    throw Error(ErrorKind::Unsupported,
                "kernel '" + config.kernel + "' is a closed library: its mapping is not visible");
  }
  if (auto it = config_.params.find("tile"); it != config_.params.end()) tile_ = it->second;
  std::visit(
      [&](const auto& map) {
        block_ = map.block();
        grid_ = map.grid(shape.m, shape.n);
        rowsPerThread_ = map.rowsPerThread(shape.m);
        colsPerThread_ = map.colsPerThread(shape.n);
        kDepth_ = map.kDepth();
      },
      makeMap(family_, tile_));
  if (grid_.y > kMaxGridY) {
    throw Error(ErrorKind::InvalidArgument,
                config_.kernel + " with tile " + std::to_string(tile_) + " needs " +
                    std::to_string(grid_.y) + " blocks along y for M = " + std::to_string(shape.m) +
                    ", more than CUDA's 65535: use a larger tile");
  }
}

std::int64_t Mapping::sharedBytesPerBlock() const {
  const std::int64_t tileBytes = std::int64_t(4) * tile_ * tile_;
  if (family_ == Family::SharedA) return tileBytes;
  if (family_ == Family::SharedTiled) return 2 * tileBytes;
  return 0;
}

ThreadRef Mapping::threadRef(Dim2 block, Dim2 thread) const {
  const int linear = thread.x + thread.y * block_.x;
  return {block, thread, linear / kWarpSize, linear % kWarpSize};
}

ThreadRef Mapping::owner(std::int64_t i, std::int64_t j) const {
  const OwnerSlot slot =
      std::visit([&](const auto& map) { return map.owner(i, j); }, makeMap(family_, tile_));
  return threadRef(slot.block, slot.thread);
}

std::vector<Cell> Mapping::outputs(Dim2 block, Dim2 thread) const {
  std::vector<Cell> cells;
  std::visit(
      [&](const auto& map) {
        for (std::int64_t r = 0; r < rowsPerThread_; ++r) {
          const std::int64_t row = map.row(block, thread, r);
          if (row >= shape_.m) continue;
          for (std::int64_t c = 0; c < colsPerThread_; ++c) {
            const std::int64_t col = map.col(block, thread, c);
            if (col < shape_.n) cells.push_back({row, col});
          }
        }
      },
      makeMap(family_, tile_));
  return cells;
}

// A block's rows run from its first thread's first slot to its last thread's last slot; the same
// holds for columns. This is true of every family and keeps the formulas in thread_map.hpp.
Range Mapping::blockRows(Dim2 block) const {
  const Dim2 last{block_.x - 1, block_.y - 1};
  return std::visit(
      [&](const auto& map) {
        const std::int64_t begin = map.row(block, Dim2{0, 0}, 0);
        return Range{begin, map.row(block, last, rowsPerThread_ - 1) + 1 - begin};
      },
      makeMap(family_, tile_));
}

Range Mapping::blockCols(Dim2 block) const {
  const Dim2 last{block_.x - 1, block_.y - 1};
  return std::visit(
      [&](const auto& map) {
        const std::int64_t begin = map.col(block, Dim2{0, 0}, 0);
        return Range{begin, map.col(block, last, colsPerThread_ - 1) + 1 - begin};
      },
      makeMap(family_, tile_));
}

Range Mapping::kRange(std::int64_t step) const {
  return {step * kDepth_, kDepth_};
}

StepRegion Mapping::regionA(Dim2 block, std::int64_t step) const {
  return {blockRows(block), kRange(step),
          family_ == Family::SharedA || family_ == Family::SharedTiled};
}

StepRegion Mapping::regionB(Dim2 block, std::int64_t step) const {
  return {kRange(step), blockCols(block), family_ == Family::SharedTiled};
}

std::optional<Dim2> Mapping::loaderOfA(Dim2 block, std::int64_t step, std::int64_t row,
                                       std::int64_t k) const {
  if (family_ != Family::SharedA && family_ != Family::SharedTiled) return std::nullopt;
  const maps::SharedA map{{tile_}};
  // Searching the block keeps aLoad() the only formula; a block has at most 1024 threads.
  for (int y = 0; y < block_.y; ++y)
    for (int x = 0; x < block_.x; ++x) {
      const Cell cell = map.aLoad(block, {x, y}, step);
      if (cell.row == row && cell.col == k) return Dim2{x, y};
    }
  return std::nullopt;
}

std::optional<Dim2> Mapping::loaderOfB(Dim2 block, std::int64_t step, std::int64_t k,
                                       std::int64_t col) const {
  if (family_ != Family::SharedTiled) return std::nullopt;
  const maps::SharedTiled map{{{tile_}}};
  for (int y = 0; y < block_.y; ++y)
    for (int x = 0; x < block_.x; ++x) {
      const Cell cell = map.bLoad(block, {x, y}, step);
      if (cell.row == k && cell.col == col) return Dim2{x, y};
    }
  return std::nullopt;
}

std::int64_t Mapping::instructionsPerStep(Access access) const {
  switch (family_) {
    case Family::Serial:
      return shape_.m * shape_.n;  // one per output, in turn
    case Family::RowPerThread:
      return colsPerThread_;  // one per column the thread visits
    case Family::Naive:
    case Family::SharedTiled:
      return 1;
    case Family::SharedA:
      return access == Access::LoadB ? kDepth_ : 1;
    case Family::RegisterTiled:
      return access == Access::StoreC ? rowsPerThread_ * colsPerThread_ : rowsPerThread_;
    case Family::Library:
      break;
  }
  return 0;
}

std::optional<Cell> Mapping::threadAccess(Dim2 block, Dim2 thread, Access access, std::int64_t step,
                                          std::int64_t instr) const {
  const std::int64_t m = shape_.m, n = shape_.n, k = shape_.k;
  if (step < 0 || step >= kSteps() || instr < 0 || instr >= instructionsPerStep(access))
    return std::nullopt;
  auto inside = [](Cell cell, std::int64_t rows, std::int64_t cols) -> std::optional<Cell> {
    if (cell.row < rows && cell.col < cols) return cell;
    return std::nullopt;
  };
  auto pick = [&](std::int64_t row, std::int64_t col) -> std::optional<Cell> {
    // Threads outside C skip the whole product (the bounds check of the simple kernels).
    if (row >= m || col >= n) return std::nullopt;
    if (access == Access::LoadA) return Cell{row, step};
    if (access == Access::LoadB) return Cell{step, col};
    return Cell{row, col};
  };
  switch (family_) {
    case Family::Serial:
      return pick(instr / n, instr % n);
    case Family::RowPerThread: {
      const maps::RowPerThread map{tile_};
      return pick(map.row(block, thread, 0), map.col(block, thread, instr));
    }
    case Family::Naive: {
      const maps::Naive map{tile_};
      return pick(map.row(block, thread, 0), map.col(block, thread, 0));
    }
    case Family::SharedA: {
      const maps::SharedA map{{tile_}};
      // Every thread helps stage A (zero past the edges); B is read per inner index.
      if (access == Access::LoadA) return inside(map.aLoad(block, thread, step), m, k);
      const std::int64_t row = map.row(block, thread, 0), col = map.col(block, thread, 0);
      if (access == Access::StoreC) return inside({row, col}, m, n);
      const std::int64_t kk = step * kDepth_ + instr;
      if (row >= m || col >= n || kk >= k) return std::nullopt;
      return Cell{kk, col};
    }
    case Family::SharedTiled: {
      const maps::SharedTiled map{{{tile_}}};
      if (access == Access::LoadA) return inside(map.aLoad(block, thread, step), m, k);
      if (access == Access::LoadB) return inside(map.bLoad(block, thread, step), k, n);
      return inside({map.row(block, thread, 0), map.col(block, thread, 0)}, m, n);
    }
    case Family::RegisterTiled: {
      const maps::RegisterTiled map{tile_};
      if (access == Access::LoadA) return inside({map.row(block, thread, instr), step}, m, k);
      if (access == Access::LoadB) return inside({step, map.col(block, thread, instr)}, k, n);
      return inside({map.row(block, thread, instr / colsPerThread_),
                     map.col(block, thread, instr % colsPerThread_)},
                    m, n);
    }
    case Family::Library:
      break;
  }
  return std::nullopt;
}

WarpAccess Mapping::warpAccess(Dim2 block, int warp, Access access, std::int64_t step,
                               std::int64_t instr) const {
  WarpAccess result;
  result.operand = access == Access::LoadA   ? Operand::A
                   : access == Access::LoadB ? Operand::B
                                             : Operand::C;
  const std::int64_t cols = access == Access::LoadA ? shape_.k : shape_.n;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    const int linear = warp * kWarpSize + lane;
    std::optional<Cell> cell;
    if (linear < threadsPerBlock())
      cell = threadAccess(block, threadOfLinear(linear), access, step, instr);
    result.element[lane] = cell ? cell->row * cols + cell->col : -1;
  }
  return result;
}

std::optional<WarpSharedAccess> Mapping::warpSharedRead(Operand operand, int warp, int kk,
                                                        int pad) const {
  const bool staged =
      (operand == Operand::A && (family_ == Family::SharedA || family_ == Family::SharedTiled)) ||
      (operand == Operand::B && family_ == Family::SharedTiled);
  if (!staged || kk < 0 || kk >= kDepth_) return std::nullopt;
  const maps::SharedTiled map{{{tile_}}};
  const maps::SharedTile layout{tile_, pad};
  WarpSharedAccess result;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    const int linear = warp * kWarpSize + lane;
    if (linear >= threadsPerBlock()) {
      result.word[lane] = -1;
      continue;
    }
    const Dim2 t = threadOfLinear(linear);
    const Cell at = operand == Operand::A ? map.aTileRead(t, kk) : map.bTileRead(t, kk);
    result.word[lane] = layout.word(int(at.row), int(at.col));
  }
  return result;
}

}  // namespace tilescope
