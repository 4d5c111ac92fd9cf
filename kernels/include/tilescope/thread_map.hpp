// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The vocabulary of the thread maps: how a kernel family maps threads to data.
//
// Each family's map (kernels/families/<name>/<name>.hpp) is the single source of truth for the
// indices it computes, built from the pieces below. Its CUDA kernel calls the map on the device,
// its CPU schedule in its loops, and tilescope::Mapping wraps it for the diagrams, the traffic
// model and the tests. Change a formula there and all of them follow.
//
// Conventions: C is M x N, A is M x K, B is K x N, all row-major. A thread block is 2-D
// (x = fastest, as in CUDA), a thread's linear index inside its block is x + y * blockDim.x, and
// warps are 32 consecutive linear indices. A thread owns outputs (r, c) for r < rowsPerThread and
// c < colsPerThread; coordinates past M or N belong to the padding and are skipped. A "k-step" is
// one pass of the k loop: kDepth values of k (1 for kernels that stage nothing).
#include <array>
#include <cstdint>
#include <optional>

#if defined(__CUDACC__)
#define TS_HD __host__ __device__ __forceinline__
#else
#define TS_HD inline
#endif
// The same, usable in constant expressions (the ladder kernels take their map as a template
// argument, so every index formula folds to constants).
#define TS_HDC TS_HD constexpr

namespace tilescope {

struct Dim2 {
  int x = 1, y = 1;
  bool operator==(const Dim2&) const = default;
};

// An element of A, B or C (it may lie in the padding past the matrix edge).
struct Cell {
  std::int64_t row = 0, col = 0;
};

TS_HDC std::int64_t ceilDiv(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

// The three global-memory accesses of a product.
enum class Access { LoadA, LoadB, StoreC };

// The sizes of one product: C is m x n, the k loop runs over k.
struct Extent {
  std::int64_t m = 1, n = 1, k = 1;
};

// `cell` if it lies inside a rows x cols matrix (a load or store there happens), else nothing.
inline std::optional<Cell> inside(Cell cell, std::int64_t rows, std::int64_t cols) {
  if (cell.row < rows && cell.col < cols) return cell;
  return std::nullopt;
}

// What a seed thread computing C[row][col] touches when it reads A and B straight from global
// memory, one k at a time (k-step `step` is k itself): A[row][step], B[step][col], or its output.
// Threads outside C touch nothing: the seeds' bounds check skips their whole product.
inline std::optional<Cell> directAccess(Access access, std::int64_t row, std::int64_t col,
                                        std::int64_t step, Extent e) {
  if (row >= e.m || col >= e.n) return std::nullopt;
  if (access == Access::LoadA) return Cell{row, step};
  if (access == Access::LoadB) return Cell{step, col};
  return Cell{row, col};
}

// Where an output lives: the block and thread that compute C[i][j] and its slot (r, c) there.
struct OwnerSlot {
  Dim2 block, thread;
  int r = 0, c = 0;
};

// A tensor-core instruction's shape as PTX names it, m x n x k (mma.sync's m16n8k16).
struct MmaShape {
  int m = 0, n = 0, k = 0;
};

// ---- Pipelines: how a block overlaps the copies of later k-steps with the product of this one ---
//
// A block cycles through `stages` shared buffers, k-step t in stage t % stages. While it
// multiplies k-step s, the copies of the next ahead() k-steps are in flight and the asynchronous
// MMA batches of the last mmaInFlight k-steps may still read their stages: every stage serves
// exactly one of those. One stage means nothing overlaps (copy, barrier, multiply, barrier). The
// CUDA kernels' main loops are written to this description (their cp.async and wgmma wait counts
// are pendingCopies() and mmaInFlight); the pipeline timeline draws it.

// How a k-step's tiles get into their stage.
enum class StageFill {
  Registers,  // every thread loads its share from global memory into registers, then stores it
  CpAsync,    // every thread's cp.async copies go from global to shared memory, past registers
  Tma,        // the producer's TMA copies move whole tiles; the stage's mbarrier counts the bytes
};

// How the warps agree that a stage is filled, and that it may be refilled.
enum class StageHandover {
  Barrier,   // one __syncthreads per k-step: every warp copies and multiplies
  Mbarrier,  // a "full" and an "empty" mbarrier per stage between producer and consumer warps
};

// What multiplies a stage.
enum class StageProduct {
  Fma,      // each thread's FP32 multiply-adds from registers read out of the stage
  MmaSync,  // each warp's mma.sync on fragments read out of the stage (ldmatrix)
  Wgmma,    // each warpgroup's wgmma.mma_async, reading the stage itself, asynchronously
};

// What a stage does during one iteration of the main loop.
enum class StageUse {
  Free,         // holds nothing the block still needs
  Filling,      // its k-step's copies are in flight (or landed, not yet multiplied)
  Multiplying,  // its k-step is being multiplied
  MmaReading,   // its k-step's asynchronous MMA batch still reads it: not yet free
};

struct StageState {
  StageUse use = StageUse::Free;
  std::int64_t step = -1;  // the k-step the stage holds; -1 when free
};

struct Pipeline {
  int stages = 1;
  StageFill fill = StageFill::Registers;
  StageHandover handover = StageHandover::Barrier;
  StageProduct product = StageProduct::Fma;
  int mmaInFlight = 0;    // MMA batches left running past their k-step (each still reads its stage)
  int producerWarps = 0;  // warp specialisation: the block's first warps only copy; 0: none

  TS_HDC bool overlaps() const { return stages > 1; }
  TS_HDC bool warpSpecialised() const { return producerWarps > 0; }
  // The k-steps whose copies are in flight while one is multiplied.
  TS_HDC int ahead() const { return stages - 1 - mmaInFlight; }
  TS_HDC int stageOf(std::int64_t step) const { return int(step % stages); }
  // cp.async: the copy groups a thread may leave pending when it waits for its k-step's tiles
  // (cp.async.wait_group N), one group committed per k-step.
  TS_HDC int pendingCopies() const { return ahead() - 1; }
  // The iteration in which the copy of k-step t starts; -1 before the loop (the prologue). A
  // producer fills every stage at once, then each as soon as its consumers free it.
  TS_HDC std::int64_t copyStart(std::int64_t t) const {
    const std::int64_t first = warpSpecialised() ? stages : ahead();
    return t < first ? -1 : t - ahead();
  }
  // What k-step t's stage does with it during `iteration` (-1: the prologue; past the last
  // k-step: the drain after the loop).
  TS_HDC StageUse use(std::int64_t t, std::int64_t iteration) const {
    if (iteration < copyStart(t)) return StageUse::Free;
    if (iteration < t) return StageUse::Filling;
    if (iteration == t) return StageUse::Multiplying;
    return iteration <= t + mmaInFlight ? StageUse::MmaReading : StageUse::Free;
  }
  // Stage `stage` during `iteration` of a loop over `steps` k-steps.
  TS_HDC StageState stageDuring(int stage, std::int64_t iteration, std::int64_t steps) const {
    for (std::int64_t t = iteration - mmaInFlight; t <= iteration + stages; ++t) {
      if (t < 0 || t >= steps || stageOf(t) != stage) continue;
      if (const StageUse u = use(t, iteration); u != StageUse::Free) return {u, t};
    }
    return {};
  }
};

namespace maps {

// ---- The optimisation ladder past the seeds --------------------------------------------------
//
// The ladder kernels take the steps of siboehm's SGEMM worklog and CUTLASS's SIMT GEMM. A block
// computes a BM x BN tile of C with a 1-D block of threads (thread t is threadIdx.x: Dim2 {t, 0}
// below) and, per k-step, stages a BM x BK tile of A and a BK x BN tile of B in shared memory. The
// families differ in which outputs a thread owns, how wide its copies are and how the tiles sit
// in shared memory.

// How a block's threads copy a rows x cols tile from global memory. The tile is cut into vectors
// of `width` consecutive elements along a row (4: one 16-byte float4), numbered row by row, and
// copy `instr` of thread t takes vector t + instr * threads: consecutive lanes take consecutive
// vectors, so a warp's copy is coalesced.
struct TileCopy {
  int rows, cols, width, threads;
  TS_HDC int vectorsPerRow() const { return cols / width; }
  TS_HDC int vectors() const { return rows * vectorsPerRow(); }
  TS_HDC int copiesPerThread() const { return vectors() / threads; }
  // Every thread copies the same number of whole vectors.
  TS_HDC bool even() const {
    return cols % width == 0 && vectors() >= threads && vectors() % threads == 0;
  }
  // The first element (tile row, tile column) of the vector thread t copies in copy `instr`.
  TS_HDC Cell at(int thread, int instr) const {
    const int vector = thread + instr * threads;
    return {vector / vectorsPerRow(), vector % vectorsPerRow() * width};
  }
  // The inverse of at(): the thread and copy that take element (row, col) of the tile.
  struct Copier {
    int thread, instr;
  };
  TS_HDC Copier copierOf(int row, int col) const {
    const int vector = row * vectorsPerRow() + col / width;
    return {vector % threads, vector / threads};
  }
};

// A rows x cols tile of 4-byte words in shared memory, row-major, each row widened by `pad` words
// (which moves each row onto other banks).
struct SharedLayout {
  int rows, cols, pad = 0;
  TS_HDC int stride() const { return cols + pad; }
  TS_HDC int word(int row, int col) const { return row * stride() + col; }
  TS_HDC int words() const { return rows * stride(); }
};

// One tunable parameter of a ladder family: its catalogue name and the values it may take,
// ascending (the first `count` of `values`). The catalogue offers exactly these values and the
// CUDA backend compiles exactly the combinations that pass the family's check(), so what a user
// may ask for and what is compiled cannot drift apart.
struct ParamAxis {
  const char* name;
  std::array<int, 4> values;
  int count;
};

// The cross-parameter rules of the ladder; check() names the first one a configuration breaks.
enum class TilingRule {
  Ok,
  TileDivides,   // the thread (or warp) tile divides the block tile; float4 pieces stay whole
  ThreadCount,   // a block is whole warps, at most 1024 threads
  WarpCount,     // warptile and pipelined: 4 to 8 warps per block
  WarpShape,     // a warp tile is whole 4 x 8 lane grids of TM x TN pieces
  EvenCopies,    // every thread copies the same number of whole vectors of A and of B
  Fragments,     // tensor cores: a warp tile is whole 16 x 16 pieces (pairs of 16 x 8 accumulators)
  SharedMemory,  // the stages fit in the shared memory one block may take (227 KiB on Hopper)
};

TS_HDC bool wholeWarps(int threads) {
  return threads >= 32 && threads <= 1024 && threads % 32 == 0;
}

// What every ladder family shares, written once over the family's own formulas. Self provides
// threads(), rowInBlock(t, r), colInBlock(t, c), slotOf(i, j) (the inverse, inside a block) and
// the constants kCopyWidth (elements per copy: 1, or 4 for float4), kATransposed (A staged as
// BK x BM so a thread's A values are consecutive words), kAPad (words added to each row of the A
// tile), kAVectorCopies (A copied with float4 loads when its rows are aligned) and kVectorStores
// (C stored as float4s when its rows are aligned, else one 4-byte store an element). The
// tensor-core maps instead give their own copyWidth(), vector checks and byte-addressed shared
// layouts (their width depends on the element type), hiding the members built on those
// constants.
template <typename Self>
struct LadderBase {
  int bm, bn, bk;

  TS_HDC const Self& self() const { return static_cast<const Self&>(*this); }
  TS_HDC Dim2 block() const { return {self().threads(), 1}; }
  TS_HDC Dim2 grid(std::int64_t m, std::int64_t n) const {
    return {int(ceilDiv(n, bn)), int(ceilDiv(m, bm))};
  }
  TS_HDC int kDepth() const { return bk; }
  TS_HDC std::int64_t row(Dim2 b, Dim2 t, std::int64_t r) const {
    return std::int64_t(b.y) * bm + self().rowInBlock(t.x, int(r));
  }
  TS_HDC std::int64_t col(Dim2 b, Dim2 t, std::int64_t c) const {
    return std::int64_t(b.x) * bn + self().colInBlock(t.x, int(c));
  }
  TS_HDC OwnerSlot owner(std::int64_t i, std::int64_t j) const {
    const OwnerSlot inBlock = self().slotOf(int(i % bm), int(j % bn));
    return {{int(j / bn), int(i / bm)}, inBlock.thread, inBlock.r, inBlock.c};
  }

  // The threads that own outputs are firstOutputThread() onwards (all of them but in tensor-tma,
  // whose producer warpgroup only copies), and those that copy the first aCopy().threads (all of
  // them but in tensor-tma, whose consumers only multiply).
  TS_HDC int firstOutputThread() const { return 0; }

  // Copies into the staged tiles: the element of A (or B) copy `instr` of thread t starts at.
  TS_HDC int copyWidth() const { return Self::kCopyWidth; }
  TS_HDC TileCopy aCopy() const { return {bm, bk, self().copyWidth(), self().threads()}; }
  TS_HDC TileCopy bCopy() const { return {bk, bn, self().copyWidth(), self().threads()}; }
  TS_HDC Cell aLoad(Dim2 b, Dim2 t, std::int64_t s, int instr) const {
    const Cell at = self().aCopy().at(t.x, instr);
    return {std::int64_t(b.y) * bm + at.row, s * bk + at.col};
  }
  TS_HDC Cell bLoad(Dim2 b, Dim2 t, std::int64_t s, int instr) const {
    const Cell at = self().bCopy().at(t.x, instr);
    return {s * bk + at.row, std::int64_t(b.x) * bn + at.col};
  }
  // A float4 needs a 16-byte aligned address: rows of A start every K floats, rows of B and C
  // every N. Otherwise the kernels fall back to one 4-byte access per element.
  TS_HDC bool aVectorCopies(std::int64_t k) const {
    return Self::kCopyWidth == 4 && Self::kAVectorCopies && k % 4 == 0;
  }
  TS_HDC bool bVectorCopies(std::int64_t n) const { return Self::kCopyWidth == 4 && n % 4 == 0; }
  // Every copy of every k-step lies inside A and B: the tiles divide M, N and K (prefetched then
  // copies without bounds checks).
  TS_HDC bool tilesDivide(std::int64_t m, std::int64_t n, std::int64_t k) const {
    return k > 0 && m % bm == 0 && n % bn == 0 && k % bk == 0;
  }
  TS_HDC bool vectorStores(std::int64_t n) const { return Self::kVectorStores && bVectorCopies(n); }
  // Outputs one store writes (on the vector path).
  TS_HDC int storeWidth() const { return Self::kVectorStores ? Self::kCopyWidth : 1; }

  // Where element (m, k) of the A tile and (k, n) of the B tile sit in shared memory; `extraPad`
  // widens every row further (what-if layouts for the bank diagrams: the kernels use 0).
  TS_HDC SharedLayout aLayout(int extraPad = 0) const {
    const int pad = Self::kAPad + extraPad;
    return Self::kATransposed ? SharedLayout{bk, bm, pad} : SharedLayout{bm, bk, pad};
  }
  TS_HDC SharedLayout bLayout(int extraPad = 0) const { return {bk, bn, extraPad}; }
  TS_HDC int aWord(int m, int k, int extraPad = 0) const {
    return Self::kATransposed ? aLayout(extraPad).word(k, m) : aLayout(extraPad).word(m, k);
  }
  TS_HDC int bWord(int k, int n, int extraPad = 0) const { return bLayout(extraPad).word(k, n); }
  // Shared words of one stage (the A tile, then the B tile) and of every stage in flight.
  TS_HDC int stageWords() const { return aLayout().words() + bLayout().words(); }
  // One stage, copied through registers: nothing overlaps.
  TS_HDC Pipeline pipeline() const { return {}; }
  TS_HDC int buffers() const { return self().pipeline().stages; }
  TS_HDC int sharedWords() const { return self().buffers() * stageWords(); }
  // Words one shared-memory read of a thread takes: a thread's A values (and B values) lie in
  // consecutive words in groups of this many, read as one float4 when it is 4.
  TS_HDC int readWidth() const { return Self::kCopyWidth; }

  TS_HDC TilingRule checkCopies() const {
    return self().aCopy().even() && self().bCopy().even() ? TilingRule::Ok : TilingRule::EvenCopies;
  }
};

// A persistent launch: of the `fit` clusters the GPU holds at once, the fewest that work all
// `units` in as many rounds as all of them would. Where the last round would leave clusters
// idle, they are not launched: the time is the same in rounds, and the SMs left out take no L2
// bandwidth or power from the others (H200, 2026-11-26: 128 blocks instead of 132 at 4096^3 and
// 8192^3 ran 0.4 to 1.0 % faster in bf16 and fp16). `fit` is at least 1.
TS_HDC int balancedClusters(int units, int fit) {
  const int rounds = (units + fit - 1) / fit;
  return rounds > 0 ? (units + rounds - 1) / rounds : 0;
}

// Every combination of a ladder family's allowed values (the last parameter varying fastest),
// and the valid ones: the configurations the catalogue accepts and the CUDA backend compiles.
template <typename Map>
constexpr int candidateCount() {
  int count = 1;
  for (const ParamAxis& axis : Map::kAxes) count *= axis.count;
  return count;
}

template <typename Map>
constexpr Map candidate(int index) {
  std::array<int, Map::kAxes.size()> values{};
  for (int a = int(Map::kAxes.size()) - 1; a >= 0; --a) {
    const ParamAxis& axis = Map::kAxes[std::size_t(a)];
    values[std::size_t(a)] = axis.values[std::size_t(index % axis.count)];
    index /= axis.count;
  }
  return Map::fromValues(values);
}

template <typename Map>
constexpr int validCount() {
  int count = 0;
  for (int i = 0; i < candidateCount<Map>(); ++i)
    count += candidate<Map>(i).check() == TilingRule::Ok;
  return count;
}

template <typename Map>
constexpr std::array<Map, std::size_t(validCount<Map>())> validConfigs() {
  std::array<Map, std::size_t(validCount<Map>())> list{};
  std::size_t next = 0;
  for (int i = 0; i < candidateCount<Map>(); ++i)
    if (const Map map = candidate<Map>(i); map.check() == TilingRule::Ok) list[next++] = map;
  return list;
}

}  // namespace maps
}  // namespace tilescope