// SPDX-License-Identifier: GPL-3.0-or-later
#include "tilescope/mapping.hpp"

#include "core/map_concepts.hpp"
#include "core/registry.hpp"
#include "core/traced_tables.hpp"

#include <algorithm>
#include <concepts>

#include "tilescope/error.hpp"
#include "tilescope/user_kernel.hpp"

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

Operand operandOf(Access access) {
  switch (access) {
    case Access::LoadA:
      return Operand::A;
    case Access::LoadB:
      return Operand::B;
    case Access::StoreC:
      return Operand::C;
  }
  return Operand::C;
}

int WarpAccess::activeLanes() const {
  int n = 0;
  for (std::int64_t e : element) n += e >= 0;
  return n;
}

namespace {

// A persistent kernel's map (tensor-persistent, tensor-tf32: maps::PersistentOrder) places tiles
// in rounds of the blocks the GPU holds at once.
template <typename Map>
concept PersistentMap = requires(const Map& map) {
  map.withResidentCtas(1);
};

// The first thread (linear index) that owns outputs: 0 but for tensor-tma, whose producer
// warpgroup only copies.
template <typename Map>
int firstOwner(const Map& map) {
  if constexpr (requires { map.firstOutputThread(); })
    return map.firstOutputThread();
  else
    return 0;
}

// CUDA's limit on gridDim.y (gridDim.x allows 2^31 - 1).
constexpr int kMaxGridY = 65535;

}  // namespace

ThreadMap threadMapOf(const ResolvedKernel& kernel, ElementType element) {
  const KernelRegistration& registration = registrationOf(kernel.id());
  if (!registration.threadMap)
    throw Error(ErrorKind::Unsupported, "the library reference has no visible mapping");
  return registration.threadMap(kernel.params(), element);
}

Mapping::Mapping(const KernelConfig& config, const Shape& shape, std::optional<ElementType> element,
                 int residentBlocks)
    : Mapping(resolve(config), shape, element, residentBlocks) {}

Mapping::Mapping(const ResolvedKernel& kernel, const Shape& shape,
                 std::optional<ElementType> element, int residentBlocks)
    : config_(kernel.config()),
      shape_(shape),
      element_(element.value_or(kernel.info().types.front())) {
  validateShape(shape);
  if (isUserKernelId(kernel.id()))
    throw Error(ErrorKind::Unsupported, "'" + userKernelName(kernel.id()) +
                                            "' is your own kernel: it has no Mapping to draw");
  if (!kernel.info().hasMapping) {
    throw Error(ErrorKind::Unsupported,
                "kernel '" + kernel.id() + "' is a closed library: its mapping is not visible");
  }
  if (auto why = elementRefusal(kernel.info(), element_))
    throw Error(ErrorKind::InvalidArgument, *why);
  map_ = threadMapOf(kernel, element_);
  if (residentBlocks > 0) {
    std::visit(
        [&](auto& map) {
          if constexpr (PersistentMap<std::decay_t<decltype(map)>>)
            map = map.withResidentCtas(residentBlocks);
        },
        map_);
  }
  std::visit(
      [&](const auto& map) {
        block_ = map.block();
        grid_ = map.grid(shape.m, shape.n);
        rowsPerThread_ = map.rowsPerThread(shape.m);
        colsPerThread_ = map.colsPerThread(shape.n);
        kDepth_ = map.kDepth();
        launchGrid_ = grid_;
        if constexpr (requires { map.launchGrid(shape.m, shape.n); }) {
          launchGrid_ = map.launchGrid(shape.m, shape.n);
          cluster_ = map.clusterShape();
        }
      },
      map_);
  if (grid_.y > kMaxGridY) {
    const auto tile = config_.params.find("tile");
    const std::string params = tile != config_.params.end() ? "tile " + std::to_string(tile->second)
                                                            : formatParams(config_);
    throw Error(ErrorKind::InvalidArgument,
                config_.kernel + " with " + params + " needs " + std::to_string(grid_.y) +
                    " blocks along y for M = " + std::to_string(shape.m) +
                    ", more than CUDA's 65535: use a larger tile");
  }
}

Mapping::Mapping(const KernelTrace& trace)
    : config_(trace.kernel),
      shape_(trace.shape),
      element_(trace.element),
      map_(maps::Traced{indexTrace(trace)}) {
  const TracedTables& t = *std::get<maps::Traced>(map_).tables;
  block_ = trace.block;
  grid_ = trace.grid;
  launchGrid_ = trace.launchGrid.value_or(trace.grid);
  cluster_ = trace.cluster;
  kDepth_ = trace.kDepth;
  rowsPerThread_ = std::max<std::int64_t>(1, t.mostRows);
  colsPerThread_ = std::max<std::int64_t>(1, t.mostCols);
}

const KernelTrace* Mapping::trace() const {
  const auto* traced = std::get_if<maps::Traced>(&map_);
  return traced ? &traced->tables->trace : nullptr;
}

namespace {

// What `persistent(order)` says of a persistent kernel's map, `otherwise()` of every other map.
template <typename Persistent, typename Otherwise>
auto byTileOrder(const ThreadMap& map, Persistent persistent, Otherwise otherwise) {
  return std::visit(
      [&](const auto& order) {
        if constexpr (PersistentMap<std::decay_t<decltype(order)>>)
          return persistent(order);
        else
          return otherwise();
      },
      map);
}

}  // namespace

bool Mapping::persistent() const {
  return byTileOrder(
      map_, [](const auto&) { return true; }, [] { return false; });
}

int Mapping::multicastBlocks(Operand operand) const {
  return byTileOrder(
      map_,
      [&](const auto& map) {
        return operand == Operand::B && map.multicastsB(shape_.k, shape_.n) ? map.cluster : 1;
      },
      [] { return 1; });
}

std::int64_t Mapping::fetchingBlocks(Operand operand) const {
  if (multicastBlocks(operand) == 1) return blockCount();
  return byTileOrder(
      map_, [&](const auto& map) { return std::int64_t(map.units(shape_.m, shape_.n)); },
      [&] { return blockCount(); });
}

std::int64_t Mapping::launchedBlockOf(Dim2 block) const {
  return byTileOrder(
      map_, [&](const auto& map) { return std::int64_t(map.ctaOf(block, shape_.m, shape_.n)); },
      [&] { return block.x + std::int64_t(block.y) * grid_.x; });
}

std::int64_t Mapping::roundOf(Dim2 block) const {
  return byTileOrder(
      map_, [&](const auto& map) { return std::int64_t(map.roundOf(block, shape_.m, shape_.n)); },
      [] { return std::int64_t(0); });
}

std::optional<Dim2> Mapping::blockAt(std::int64_t launched, std::int64_t round) const {
  if (launched < 0 || launched >= std::int64_t(launchGrid_.x) * launchGrid_.y || round < 0)
    return std::nullopt;
  return byTileOrder(
      map_,
      [&](const auto& map) -> std::optional<Dim2> {
        if (round >= map.roundsOf(int(launched), shape_.m, shape_.n)) return std::nullopt;
        const Dim2 tile = map.tileAt(int(launched), int(round), shape_.m, shape_.n);
        // A cluster's unit may reach past the last tile row: that block computes no tile of C.
        if (tile.y >= grid_.y) return std::nullopt;
        return tile;
      },
      [&]() -> std::optional<Dim2> {
        if (round > 0) return std::nullopt;
        return Dim2{int(launched % grid_.x), int(launched / grid_.x)};
      });
}

std::int64_t Mapping::rounds() const {
  return byTileOrder(
      map_, [&](const auto& map) { return std::int64_t(map.rounds(shape_.m, shape_.n)); },
      [] { return std::int64_t(1); });
}

std::optional<Pipeline> pipelineOf(const ThreadMap& map) {
  return std::visit(
      [](const auto& family) -> std::optional<Pipeline> {
        if constexpr (requires { family.pipeline(); }) return family.pipeline();
        return std::nullopt;
      },
      map);
}

std::optional<Pipeline> Mapping::pipeline() const {
  return pipelineOf(map_);
}

bool PipelineStep::isWait() const {
  return action == PipelineAction::WaitCopies || action == PipelineAction::Barrier ||
         action == PipelineAction::WaitMma || action == PipelineAction::WaitFull ||
         action == PipelineAction::WaitEmpty;
}

std::vector<PipelineRole> pipelineRoles(const Pipeline& pipeline) {
  if (pipeline.warpSpecialised()) return {PipelineRole::Producer, PipelineRole::Consumer};
  return {PipelineRole::EveryWarp};
}

std::vector<PipelineStep> pipelineLoop(const Pipeline& p, PipelineRole role) {
  using enum PipelineAction;
  const int ahead = p.ahead();
  switch (role) {
    case PipelineRole::Producer:
      // The stage of k-step s + ahead is freed once the consumers are done with s - 1 -
      // mmaInFlight.
      return {{WaitEmpty, ahead}, {Copy, ahead}};
    case PipelineRole::Consumer: {
      std::vector<PipelineStep> loop{{WaitFull, 0}, {Multiply, 0}};
      if (p.mmaInFlight > 0) loop.push_back({WaitMma, 0, p.mmaInFlight});
      loop.push_back({Release, -p.mmaInFlight});
      return loop;
    }
    case PipelineRole::EveryWarp:
      break;
  }
  if (p.fill == StageFill::Registers) {
    // With a second stage the next k-step's loads are in flight during the product; with one,
    // the copy, the product and the barriers take turns.
    if (ahead == 0)
      return {{LoadRegisters, 0}, {StoreRegisters, 0}, {Barrier}, {Multiply}, {Barrier}};
    return {{LoadRegisters, ahead}, {Multiply, 0}, {StoreRegisters, ahead}, {Barrier}};
  }
  std::vector<PipelineStep> loop{
      {WaitCopies, 0, p.pendingCopies()}, {Barrier}, {Copy, ahead}, {Multiply, 0}};
  if (p.mmaInFlight > 0) loop.push_back({WaitMma, 0, p.mmaInFlight});
  return loop;
}

std::vector<PipelineStep> pipelinePrologue(const Pipeline& p, PipelineRole role,
                                           std::int64_t steps) {
  using enum PipelineAction;
  std::vector<PipelineStep> prologue;
  if (role == PipelineRole::Consumer) return prologue;
  if (role == PipelineRole::EveryWarp && p.fill == StageFill::Registers) {
    if (p.ahead() > 0) prologue = {{LoadRegisters, 0}, {StoreRegisters, 0}, {Barrier}};
    return prologue;
  }
  for (std::int64_t t = 0; t < steps && p.copyStart(t) < 0; ++t) prologue.push_back({Copy, int(t)});
  return prologue;
}

std::vector<PipelineStep> pipelineEpilogue(const Pipeline& p, PipelineRole role) {
  if (p.mmaInFlight == 0 || role == PipelineRole::Producer) return {};
  return {{PipelineAction::WaitMma, 0, 0}};
}

bool Mapping::staged(Operand operand) const {
  return std::visit(
      [&](const auto& map) {
        using Map = std::decay_t<decltype(map)>;
        if constexpr (LadderMap<Map>) return operand != Operand::C;
        return (operand == Operand::A && StagesSeedTileA<Map>) ||
               (operand == Operand::B && StagesSeedTileB<Map>);
      },
      map_);
}

std::int64_t Mapping::sharedBytesPerBlock() const {
  return std::visit(
      [&](const auto& map) -> std::int64_t {
        if constexpr (LadderMap<std::decay_t<decltype(map)>>) {
          return std::int64_t(4) * map.sharedWords();
        } else {
          std::int64_t words = 0;
          if constexpr (StagesSeedTileA<std::decay_t<decltype(map)>>) words += map.aTile().words();
          if constexpr (StagesSeedTileB<std::decay_t<decltype(map)>>) words += map.bTile().words();
          return std::int64_t(4) * words;
        }
      },
      map_);
}

ThreadRef Mapping::threadRef(Dim2 block, Dim2 thread) const {
  const int linear = thread.x + thread.y * block_.x;
  return {block, thread, linear / kWarpSize, linear % kWarpSize};
}

ThreadRef Mapping::owner(std::int64_t i, std::int64_t j) const {
  if (const auto* traced = std::get_if<maps::Traced>(&map_)) {
    // The table alone: the slot (which takes a scan of the block) is not asked for here.
    const KernelTrace& trace = traced->tables->trace;
    const std::size_t at = std::size_t(i * shape_.n + j);
    const int block = trace.ownerBlock[at], thread = trace.ownerThread[at];
    if (block < 0) return {{-1, -1}, {-1, -1}, -1, -1};
    return threadRef({block % grid_.x, block / grid_.x}, threadOfLinear(thread));
  }
  const OwnerSlot slot = std::visit([&](const auto& map) { return map.owner(i, j); }, map_);
  return threadRef(slot.block, slot.thread);
}

std::vector<Cell> Mapping::outputs(Dim2 block, Dim2 thread) const {
  if (const auto* traced = std::get_if<maps::Traced>(&map_))
    return traced->tables->outputs(block, thread);
  std::vector<Cell> cells;
  std::visit(
      [&](const auto& map) {
        if (thread.x + thread.y * block_.x < firstOwner(map)) return;
        for (std::int64_t r = 0; r < rowsPerThread_; ++r) {
          const std::int64_t row = map.row(block, thread, r);
          if (row >= shape_.m) continue;
          for (std::int64_t c = 0; c < colsPerThread_; ++c) {
            const std::int64_t col = map.col(block, thread, c);
            if (col < shape_.n) cells.push_back({row, col});
          }
        }
      },
      map_);
  return cells;
}

// A block's rows run from its first owning thread's first slot to its last thread's last slot;
// the same holds for columns. This is true of every family and keeps the formulas in
// thread_map.hpp.
Range Mapping::blockRows(Dim2 block) const {
  if (const auto* traced = std::get_if<maps::Traced>(&map_))
    return traced->tables->insideGrid(block)
               ? traced->tables->blockBoxes[std::size_t(block.x + block.y * grid_.x)].first
               : Range{};
  const Dim2 last{block_.x - 1, block_.y - 1};
  return std::visit(
      [&](const auto& map) {
        const std::int64_t begin = map.row(block, threadOfLinear(firstOwner(map)), 0);
        return Range{begin, map.row(block, last, rowsPerThread_ - 1) + 1 - begin};
      },
      map_);
}

Range Mapping::blockCols(Dim2 block) const {
  if (const auto* traced = std::get_if<maps::Traced>(&map_))
    return traced->tables->insideGrid(block)
               ? traced->tables->blockBoxes[std::size_t(block.x + block.y * grid_.x)].second
               : Range{};
  const Dim2 last{block_.x - 1, block_.y - 1};
  return std::visit(
      [&](const auto& map) {
        const std::int64_t begin = map.col(block, threadOfLinear(firstOwner(map)), 0);
        return Range{begin, map.col(block, last, colsPerThread_ - 1) + 1 - begin};
      },
      map_);
}

Range Mapping::kRange(std::int64_t step) const {
  return {step * kDepth_, kDepth_};
}

StepRegion Mapping::regionA(Dim2 block, std::int64_t step) const {
  return {blockRows(block), kRange(step), staged(Operand::A)};
}

StepRegion Mapping::regionB(Dim2 block, std::int64_t step) const {
  return {kRange(step), blockCols(block), staged(Operand::B)};
}

std::optional<Dim2> Mapping::loaderOfA(Dim2 block, std::int64_t step, std::int64_t row,
                                       std::int64_t k) const {
  if (!staged(Operand::A)) return std::nullopt;
  const StepRegion region = regionA(block, step);
  return std::visit(
      [&](const auto& map) -> std::optional<Dim2> {
        if constexpr (LadderMap<std::decay_t<decltype(map)>>) {
          if (row < region.rows.begin || row >= region.rows.end() || k < region.cols.begin ||
              k >= region.cols.end())
            return std::nullopt;
          const auto copier =
              map.aCopy().copierOf(int(row - region.rows.begin), int(k - region.cols.begin));
          return Dim2{copier.thread, 0};
        } else if constexpr (StagesSeedTileA<std::decay_t<decltype(map)>>) {
          // Searching the block keeps aLoad() the only formula; a block has at most 1024
          // threads.
          for (int y = 0; y < block_.y; ++y)
            for (int x = 0; x < block_.x; ++x) {
              const Cell cell = map.aLoad(block, {x, y}, step);
              if (cell.row == row && cell.col == k) return Dim2{x, y};
            }
        }
        return std::nullopt;
      },
      map_);
}

std::optional<Dim2> Mapping::loaderOfB(Dim2 block, std::int64_t step, std::int64_t k,
                                       std::int64_t col) const {
  if (!staged(Operand::B)) return std::nullopt;
  const StepRegion region = regionB(block, step);
  return std::visit(
      [&](const auto& map) -> std::optional<Dim2> {
        if constexpr (LadderMap<std::decay_t<decltype(map)>>) {
          if (k < region.rows.begin || k >= region.rows.end() || col < region.cols.begin ||
              col >= region.cols.end())
            return std::nullopt;
          const int tileK = int(k - region.rows.begin), tileN = int(col - region.cols.begin);
          const auto copier = CopiesBAlongK<std::decay_t<decltype(map)>>
                                  ? map.bCopy().copierOf(tileN, tileK)
                                  : map.bCopy().copierOf(tileK, tileN);
          return Dim2{copier.thread, 0};
        } else if constexpr (StagesSeedTileB<std::decay_t<decltype(map)>>) {
          for (int y = 0; y < block_.y; ++y)
            for (int x = 0; x < block_.x; ++x) {
              const Cell cell = map.bLoad(block, {x, y}, step);
              if (cell.row == k && cell.col == col) return Dim2{x, y};
            }
        }
        return std::nullopt;
      },
      map_);
}

bool Mapping::copiesBAlongK() const {
  // A traced user kernel read B as the backend stored it: K-major for the FP8 types.
  if (std::holds_alternative<maps::Traced>(map_)) return storesBKMajor(element_);
  return std::visit([](const auto& map) { return CopiesBAlongK<std::decay_t<decltype(map)>>; },
                    map_);
}

std::int64_t Mapping::elementIndex(Operand operand, Cell cell) const {
  if (operand == Operand::B && copiesBAlongK()) return cell.col * shape_.k + cell.row;
  return cell.row * (operand == Operand::A ? shape_.k : shape_.n) + cell.col;
}

Cell Mapping::elementCell(Operand operand, std::int64_t index) const {
  if (operand == Operand::B && copiesBAlongK()) return {index % shape_.k, index / shape_.k};
  const std::int64_t cols = operand == Operand::A ? shape_.k : shape_.n;
  return {index / cols, index % cols};
}

int Mapping::firstOutputThread() const {
  return std::visit([](const auto& map) { return firstOwner(map); }, map_);
}

int Mapping::stagingThreads(Operand operand) const {
  if (operand == Operand::C || !staged(operand)) return 0;
  return std::visit(
      [&](const auto& map) {
        if constexpr (LadderMap<std::decay_t<decltype(map)>>)
          return (operand == Operand::A ? map.aCopy() : map.bCopy()).threads;
        return threadsPerBlock();
      },
      map_);
}

std::vector<Cell> Mapping::stagedBy(Operand operand, Dim2 block, Dim2 thread,
                                    std::int64_t step) const {
  if (operand == Operand::C || !staged(operand)) return {};
  return std::visit(
      [&](const auto& map) -> std::vector<Cell> {
        using Map = std::decay_t<decltype(map)>;
        if constexpr (LadderMap<Map>) {
          const maps::TileCopy copy = operand == Operand::A ? map.aCopy() : map.bCopy();
          if (thread.x >= copy.threads) return {};
          std::vector<Cell> cells;
          for (int instr = 0; instr < copy.copiesPerThread(); ++instr) {
            if (operand == Operand::B && CopiesBAlongK<Map>) {
              const Cell first = map.bLoad(block, thread, step, instr);
              for (int e = 0; e < copy.width; ++e) cells.push_back({first.row + e, first.col});
              continue;
            }
            const Cell first = operand == Operand::A ? map.aLoad(block, thread, step, instr)
                                                     : map.bLoad(block, thread, step, instr);
            for (int e = 0; e < copy.width; ++e) cells.push_back({first.row, first.col + e});
          }
          return cells;
        } else if constexpr (StagesSeedTileA<Map>) {
          if (operand == Operand::A) return {map.aLoad(block, thread, step)};
          if constexpr (StagesSeedTileB<Map>) return {map.bLoad(block, thread, step)};
        }
        return {};
      },
      map_);
}

int Mapping::accessWidth(Access access) const {
  return std::visit(
      [&](const auto& map) {
        if constexpr (std::same_as<std::decay_t<decltype(map)>, maps::Traced>) {
          // A traced kernel's loads are as wide as each one was; its stores as its widest.
          return access == Access::StoreC ? map.tables->trace.storeWidth : 1;
        } else if constexpr (LadderMap<std::decay_t<decltype(map)>>) {
          // A map that compiles one kernel per path (prefetched) copies both operands as float4s
          // or neither.
          constexpr bool together = requires {
            std::decay_t<decltype(map)>::kVectorCopiesTogether;
          };
          const bool a = map.aVectorCopies(shape_.k), b = map.bVectorCopies(shape_.n);
          if (access == Access::LoadA) return a && (b || !together) ? map.aCopy().width : 1;
          if (access == Access::LoadB) return b && (a || !together) ? map.bCopy().width : 1;
          return map.vectorStores(shape_.n) ? map.storeWidth() : 1;
        }
        return 1;
      },
      map_);
}

std::int64_t Mapping::instructionsPerStep(Access access) const {
  if (const auto* traced = std::get_if<maps::Traced>(&map_)) {
    if (access == Access::StoreC)
      return ceilDiv(rowsPerThread_ * colsPerThread_, accessWidth(access));
    return traced->tables->mostPerStep[access == Access::LoadA ? 0 : 1];
  }
  // A ladder kernel: its copies (one instruction per vector, or per element on the scalar path)
  // and its stores (one per float4 of outputs on the vector path). A seed says its own.
  const int width = accessWidth(access);
  return std::visit(
      [&](const auto& map) -> std::int64_t {
        if constexpr (LadderMap<std::decay_t<decltype(map)>>) {
          if (access == Access::StoreC) return rowsPerThread_ * colsPerThread_ / width;
          const maps::TileCopy copy = access == Access::LoadA ? map.aCopy() : map.bCopy();
          return std::int64_t(copy.copiesPerThread()) * copy.width / width;
        } else if constexpr (requires { map.instructionsPerStep(access, Extent{}); }) {
          return map.instructionsPerStep(access, extent());
        }
        return 0;
      },
      map_);
}

std::optional<Cell> Mapping::threadAccess(Dim2 block, Dim2 thread, Access access, std::int64_t step,
                                          std::int64_t instr) const {
  const std::int64_t m = shape_.m, n = shape_.n, k = shape_.k;
  if (step < 0 || step >= kSteps() || instr < 0 || instr >= instructionsPerStep(access))
    return std::nullopt;
  if (const auto* traced = std::get_if<maps::Traced>(&map_)) {
    // Only the traced block's accesses are known.
    if (block.x != traced->tables->trace.tracedBlock.x ||
        block.y != traced->tables->trace.tracedBlock.y)
      return std::nullopt;
    const int linear = thread.x + thread.y * block_.x;
    if (access == Access::StoreC) {
      // Store slot (r, c), as the formulas number them: the thread's r-th row and c-th column,
      // where it stored that element; a vector store starts at every width-th slot.
      const std::int64_t slot = instr * accessWidth(access);
      const std::int64_t row = traced->row(block, thread, slot / colsPerThread_);
      const std::int64_t col = traced->col(block, thread, slot % colsPerThread_);
      if (row >= shape_.m || col >= shape_.n) return std::nullopt;
      const std::size_t at = std::size_t(row * shape_.n + col);
      const KernelTrace& trace = traced->tables->trace;
      if (trace.ownerBlock[at] != block.x + block.y * grid_.x || trace.ownerThread[at] != linear)
        return std::nullopt;
      return Cell{row, col};
    }
    const auto [first, last] =
        traced->tables->stepLoads(access == Access::LoadA ? 0 : 1, linear, step);
    if (instr >= last - first) return std::nullopt;
    const TracedLoad& load = first[instr];
    if (load.row < 0 || load.col < 0) return std::nullopt;
    return access == Access::LoadA ? inside({load.row, load.col}, m, k)
                                   : inside({load.row, load.col}, k, n);
  }
  // A ladder kernel. On the vector path instruction i is copy (or float4 store) i; on the scalar
  // path each vector takes one instruction per element. A seed says its own.
  const int width = accessWidth(access);
  return std::visit(
      [&](const auto& map) -> std::optional<Cell> {
        if constexpr (LadderMap<std::decay_t<decltype(map)>>) {
          if (access == Access::StoreC) {
            if (thread.x < firstOwner(map)) return std::nullopt;
            const std::int64_t slot = instr * width;
            return inside({map.row(block, thread, slot / colsPerThread_),
                           map.col(block, thread, slot % colsPerThread_)},
                          m, n);
          }
          const maps::TileCopy copy = access == Access::LoadA ? map.aCopy() : map.bCopy();
          if (thread.x >= copy.threads) return std::nullopt;
          const int perCopy = copy.width / width;  // instructions per copied vector
          const int vector = int(instr / perCopy), element = int(instr % perCopy);
          Cell cell = access == Access::LoadA ? map.aLoad(block, thread, step, vector)
                                              : map.bLoad(block, thread, step, vector);
          if (access == Access::LoadB && CopiesBAlongK<std::decay_t<decltype(map)>>)
            cell.row += element;
          else
            cell.col += element;
          return access == Access::LoadA ? inside(cell, m, k) : inside(cell, k, n);
        } else if constexpr (requires { map.instructionsPerStep(access, Extent{}); }) {
          return map.globalAccess(block, thread, access, step, instr, extent());
        }
        return std::nullopt;
      },
      map_);
}

WarpAccess Mapping::warpAccess(Dim2 block, int warp, Access access, std::int64_t step,
                               std::int64_t instr) const {
  WarpAccess result;
  result.operand = operandOf(access);
  result.width = accessWidth(access);
  result.elementBytes = access == Access::StoreC ? 4 : storageBytes(element_);
  // A traced kernel's load instruction is as wide as its lanes' loads were (they agree).
  const auto* traced = std::get_if<maps::Traced>(&map_);
  const bool tracedLoads = traced && access != Access::StoreC &&
                           block.x == traced->tables->trace.tracedBlock.x &&
                           block.y == traced->tables->trace.tracedBlock.y;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    const int linear = warp * kWarpSize + lane;
    if (linear >= threadsPerBlock()) {
      result.element[lane] = -1;
      continue;
    }
    const std::optional<Cell> cell =
        threadAccess(block, threadOfLinear(linear), access, step, instr);
    result.element[lane] = cell ? elementIndex(result.operand, *cell) : -1;
    if (tracedLoads && cell) {
      const auto [first, last] =
          traced->tables->stepLoads(access == Access::LoadA ? 0 : 1, linear, step);
      result.width = std::max(result.width, first[instr].width);
    }
  }
  return result;
}

}  // namespace tilescope
