// SPDX-License-Identifier: GPL-3.0-or-later
// The Mapping's shared-memory accesses: each warp's reads and writes of the staged tiles.
#include <algorithm>
#include <string>

#include "core/map_concepts.hpp"
#include "core/traced_tables.hpp"
#include "tilescope/mapping.hpp"

namespace tilescope {

namespace {

// The word of a seed's tile at `at`, with each row widened by `pad` more words (what-if layouts).
int seedTileWord(maps::SharedTile layout, Cell at, int pad) {
  layout.pad += pad;
  return layout.word(int(at.row), int(at.col));
}

}  // namespace

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

std::string Mapping::mmaShape() const {
  const int depth = std::max(readsEveryK(Operand::A), readsEveryK(Operand::B));
  if (depth == 1) return {};
  const MmaShape shape = std::visit(
      [&](const auto& map) {
        if constexpr (requires { map.mmaShape(); })
          return map.mmaShape();
        else
          return MmaShape{maps::kFragmentRows, maps::kFragmentCols, depth};
      },
      map_);
  std::string text = "m";
  text += std::to_string(shape.m) + "n" + std::to_string(shape.n) + "k" + std::to_string(shape.k);
  return text;
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
      width = writes.width;
      if (operand == Operand::A)
        return map.aWord(int(at.row), int(at.col) + slot % writes.writes, pad);
      const Cell kn = bCopyCell<Map>(at, slot % writes.writes);
      return map.bWord(int(kn.row), int(kn.col), pad);
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
