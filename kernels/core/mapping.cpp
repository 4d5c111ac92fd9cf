// SPDX-License-Identifier: GPL-3.0-or-later
#include "tilescope/mapping.hpp"

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

// The seeds that stage single T x T tiles: A (shared-a), or A and B (shared-tiled), each through
// its map's layout (aTile, bTile) and its store, read and load formulas.
template <typename Map>
concept StagesSeedTileA = requires(const Map& map, Dim2 t) {
  map.aTile();
  map.aTileStore(t);
};
template <typename Map>
concept StagesSeedTileB = requires(const Map& map, Dim2 t) {
  map.bTile();
  map.bTileStore(t);
};

// The word of a seed's tile at `at`, with each row widened by `pad` more words (what-if layouts).
int seedTileWord(maps::SharedTile layout, Cell at, int pad) {
  layout.pad += pad;
  return layout.word(int(at.row), int(at.col));
}

// A persistent kernel's map (tensor-persistent, tensor-tf32: maps::PersistentOrder) places tiles
// in rounds of the blocks the GPU holds at once.
template <typename Map>
concept PersistentMap = requires(const Map& map) {
  map.withResidentCtas(1);
};

// The ladder families: block tiles staged in shared memory, parameters listed in kAxes.
template <typename Map>
concept LadderMap = requires {
  Map::kAxes;
};

// Tensor-core maps read their fragments with ldmatrix (or tf32 word reads), not per inner index.
template <typename Map>
concept FragmentMap = requires(const Map& map) {
  map.fragmentReads(true);
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
          const auto copier =
              map.bCopy().copierOf(int(k - region.rows.begin), int(col - region.cols.begin));
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
  const std::int64_t cols = access == Access::LoadA ? shape_.k : shape_.n;
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
    result.element[lane] = cell ? cell->row * cols + cell->col : -1;
    if (tracedLoads && cell) {
      const auto [first, last] =
          traced->tables->stepLoads(access == Access::LoadA ? 0 : 1, linear, step);
      result.width = std::max(result.width, first[instr].width);
    }
  }
  return result;
}

int Mapping::sharedReadSlots(Operand operand) const {
  if (operand == Operand::C) return 0;
  if (const auto* traced = std::get_if<maps::Traced>(&map_))
    return traced->tables->readSlots[operand == Operand::A ? 0 : 1];
  if (!staged(operand)) return 0;
  return std::visit(
      [&](const auto& map) {
        using Map = std::decay_t<decltype(map)>;
        if constexpr (FragmentMap<Map>) {
          return map.fragmentReads(operand == Operand::A);
        } else if constexpr (LadderMap<Map>) {
          const std::int64_t values = operand == Operand::A ? rowsPerThread_ : colsPerThread_;
          return int(values / map.readWidth());
        }
        return 1;
      },
      map_);
}

int Mapping::readsEveryK(Operand operand) const {
  if (const auto* traced = std::get_if<maps::Traced>(&map_))
    return (operand == Operand::A ? traced->tables->shared[0] : traced->tables->shared[1])
        .readsEveryK;
  // wgmma reads its fragments itself, no lane does: its tiles have no reads to space.
  return std::visit(
      [&](const auto& map) {
        if constexpr (FragmentMap<std::decay_t<decltype(map)>>)
          return map.fragmentReads(operand == Operand::A) > 0 ? map.instrK() : 1;
        else
          return 1;
      },
      map_);
}

namespace {

// One warp's shared-memory access, lane by lane: `wordOf(map, linear, width)` gives the word of
// the lane whose thread is `linear` (-1: idle) and may set the access's width; lanes past the
// block are idle.
template <typename WordOf>
WarpSharedAccess laneByLane(const ThreadMap& threadMap, int threads, int warp, WordOf wordOf) {
  WarpSharedAccess result;
  std::visit(
      [&](const auto& map) {
        for (int lane = 0; lane < kWarpSize; ++lane) {
          const int linear = warp * kWarpSize + lane;
          result.word[std::size_t(lane)] =
              linear < threads ? wordOf(map, linear, result.width) : -1;
        }
      },
      threadMap);
  return result;
}

}  // namespace

std::optional<WarpSharedAccess> Mapping::warpSharedRead(Operand operand, int warp, int kk,
                                                        int pad) const {
  return warpSharedRead(operand, warp, kk, pad, 0);
}

std::optional<WarpSharedAccess> Mapping::warpSharedRead(Operand operand, int warp, int kk, int pad,
                                                        int slot, std::int64_t step) const {
  const int slots = sharedReadSlots(operand);
  if (kk < 0 || kk >= kDepth_ || slot < 0 || slot >= slots) return std::nullopt;
  if (const auto* traced = std::get_if<maps::Traced>(&map_)) {
    const int every = readsEveryK(operand);
    if (step < 0 || step >= kSteps() || kk % every != 0) return std::nullopt;
    return traced->tables->sharedAccess(operand == Operand::A ? 0 : 1, false, warp,
                                        (step * (kDepth_ / every) + kk / every) * slots + slot);
  }
  const WarpSharedAccess read =
      laneByLane(map_, threadsPerBlock(), warp, [&](const auto& map, int linear, int& width) {
        using Map = std::decay_t<decltype(map)>;
        if constexpr (FragmentMap<Map>) {
          // Fragments are read once per chunk of instrK values of k, at its first index.
          if (kk % map.instrK() != 0) return -1;
          const int chunk = kk / map.instrK();
          width = map.fragmentReadWidth();
          if (operand == Operand::A) {
            const Cell at = map.aFragment(linear, slot, chunk);
            return map.aWord(int(at.row), int(at.col), pad);
          }
          const Cell at = map.bFragment(linear, slot, chunk);
          if (at.row < 0) return -1;  // a thread that reads no fragments (tensor-tf32's producer)
          return map.bWord(int(at.row), int(at.col), pad);
        } else if constexpr (LadderMap<Map>) {
          // Read `slot` takes the thread's values slot*w .. slot*w + w-1, consecutive words.
          const int first = slot * map.readWidth();
          width = map.readWidth();
          return operand == Operand::A ? map.aWord(map.rowInBlock(linear, first), kk, pad)
                                       : map.bWord(kk, map.colInBlock(linear, first), pad);
        } else if constexpr (StagesSeedTileA<Map>) {
          const Dim2 t = threadOfLinear(linear);
          if (operand == Operand::A) return seedTileWord(map.aTile(), map.aTileRead(t, kk), pad);
          if constexpr (StagesSeedTileB<Map>)
            return seedTileWord(map.bTile(), map.bTileRead(t, kk), pad);
        }
        return -1;
      });
  // A warp that reads nothing of the tile (tensor-tf32's producer warps) makes no access.
  if (std::ranges::all_of(read.word, [](int word) { return word < 0; })) return std::nullopt;
  return read;
}

namespace {

// How a kernel's threads store one copied vector of `operand` into its stage: in `writes`
// shared stores of `width` words each. The SIMT ladder stores a vector as one store where the tile
// keeps its order (B; A untransposed), one per element where A lands transposed, and one per
// element of B too where cp.async cannot copy 16 bytes (rows of B not 16-byte aligned).
// tensor-mma and tensor-wgmma (copyStage) copy 16 bytes with one cp.async while the operand's
// rows are 16-byte aligned, else one element at a time (an fp16 or bf16 element is half of the
// word it lands in).
struct StageWrites {
  int writes = 1, width = 1;
};
template <typename Map>
StageWrites stageWrites(const Map& map, Operand operand, const Shape& shape) {
  const maps::TileCopy copy = operand == Operand::A ? map.aCopy() : map.bCopy();
  if constexpr (FragmentMap<Map>) {
    const bool vectors =
        operand == Operand::A ? map.aVectorCopies(shape.k) : map.bVectorCopies(shape.n);
    return vectors ? StageWrites{1, copy.width * map.elementBytes / 4} : StageWrites{copy.width, 1};
  } else {
    const bool perElement = operand == Operand::A ? Map::kATransposed
                                                  : map.pipeline().fill == StageFill::CpAsync &&
                                                        !map.bVectorCopies(shape.n);
    return perElement ? StageWrites{copy.width, 1} : StageWrites{1, copy.width};
  }
}

}  // namespace

int Mapping::sharedWriteSlots(Operand operand) const {
  if (operand == Operand::C) return 0;
  if (const auto* traced = std::get_if<maps::Traced>(&map_))
    return traced->tables->writeSlots[operand == Operand::A ? 0 : 1];
  if (!staged(operand)) return 0;
  // The seed kernels store one element of each staged tile per thread; the ladder its copies
  // (stageWrites). The copy engine, which fills TMA stages, has no threads: its 16-byte chunks
  // are drawn as the producer warpgroup's vectors, as its loads are (aCopy, bCopy).
  return std::visit(
      [&](const auto& map) {
        using Map = std::decay_t<decltype(map)>;
        if constexpr (LadderMap<Map>) {
          const maps::TileCopy copy = operand == Operand::A ? map.aCopy() : map.bCopy();
          return copy.copiesPerThread() * stageWrites(map, operand, shape_).writes;
        }
        return StagesSeedTileA<Map> ? 1 : 0;
      },
      map_);
}

std::optional<WarpSharedAccess> Mapping::warpSharedWrite(Operand operand, int warp, int slot,
                                                         int pad, std::int64_t step) const {
  const int slots = sharedWriteSlots(operand);
  if (slot < 0 || slot >= slots || step < 0 || step >= kSteps()) return std::nullopt;
  if (const auto* traced = std::get_if<maps::Traced>(&map_))
    return traced->tables->sharedAccess(operand == Operand::A ? 0 : 1, true, warp,
                                        step * slots + slot);
  return laneByLane(map_, threadsPerBlock(), warp, [&](const auto& map, int linear, int& width) {
    using Map = std::decay_t<decltype(map)>;
    if constexpr (LadderMap<Map>) {
      // Write `slot` is element slot % writes of the thread's copy slot / writes.
      const maps::TileCopy copy = operand == Operand::A ? map.aCopy() : map.bCopy();
      const StageWrites writes = stageWrites(map, operand, shape_);
      if (linear >= copy.threads) return -1;
      const Cell at = copy.at(linear, slot / writes.writes);
      const int col = int(at.col) + slot % writes.writes;
      width = writes.width;
      return operand == Operand::A ? map.aWord(int(at.row), col, pad)
                                   : map.bWord(int(at.row), col, pad);
    } else if constexpr (StagesSeedTileA<Map>) {
      // A seed kernel's thread stores the element it stages at its place in the tile.
      const Dim2 t = threadOfLinear(linear);
      if (operand == Operand::A) return seedTileWord(map.aTile(), map.aTileStore(t), pad);
      if constexpr (StagesSeedTileB<Map>) return seedTileWord(map.bTile(), map.bTileStore(t), pad);
    }
    return -1;
  });
}

}  // namespace tilescope
