#pragma once
// How each kernel family maps threads to data: the single source of truth.
//
// Every index a kernel computes comes from the structs below. The CUDA kernels call them on the
// device, the CPU backend calls them in its loops, and tilescope::Mapping wraps them for the
// diagrams, the traffic model and the tests. Change a formula here and all of them follow.
//
// Conventions: C is M x N, A is M x K, B is K x N, all row-major. A thread block is 2-D
// (x = fastest, as in CUDA), a thread's linear index inside its block is x + y * blockDim.x, and
// warps are 32 consecutive linear indices. A thread owns outputs (r, c) for r < rowsPerThread and
// c < colsPerThread; coordinates past M or N belong to the padding and are skipped. A "k-step" is
// one pass of the k loop: kDepth values of k (1 for kernels that stage nothing).
#include <array>
#include <cstdint>

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
};

// An element of A, B or C (it may lie in the padding past the matrix edge).
struct Cell {
  std::int64_t row = 0, col = 0;
};

TS_HDC std::int64_t ceilDiv(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

// Where an output lives: the block and thread that compute C[i][j] and its slot (r, c) there.
struct OwnerSlot {
  Dim2 block, thread;
  int r = 0, c = 0;
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

// serial (seed 002 matmul_seq): a single thread walks all of C; k-step s reads column s of A and
// row s of B. Output slot (r, c) is C[r][c].
struct Serial {
  TS_HD Dim2 block() const { return {1, 1}; }
  TS_HD Dim2 grid(std::int64_t, std::int64_t) const { return {1, 1}; }
  TS_HD std::int64_t rowsPerThread(std::int64_t m) const { return m; }
  TS_HD std::int64_t colsPerThread(std::int64_t n) const { return n; }
  TS_HD std::int64_t row(Dim2, Dim2, std::int64_t r) const { return r; }
  TS_HD std::int64_t col(Dim2, Dim2, std::int64_t c) const { return c; }
  TS_HD OwnerSlot owner(std::int64_t i, std::int64_t j) const {
    return {{0, 0}, {0, 0}, int(i), int(j)};
  }
  TS_HD int kDepth() const { return 1; }
};

// row-per-thread (seed 000a): blocks of T x T threads tile the rows only. Thread (x, y) of block
// b owns row b.x*T + x and the columns y, y+T, y+2T, ... so the 32 lanes of a warp (consecutive
// x) read 32 different rows of A: the uncoalesced pattern the seed warns about.
struct RowPerThread {
  int tile;
  TS_HD Dim2 block() const { return {tile, tile}; }
  TS_HD Dim2 grid(std::int64_t m, std::int64_t) const { return {int(ceilDiv(m, tile)), 1}; }
  TS_HD std::int64_t rowsPerThread(std::int64_t) const { return 1; }
  TS_HD std::int64_t colsPerThread(std::int64_t n) const { return ceilDiv(n, tile); }
  TS_HD std::int64_t row(Dim2 b, Dim2 t, std::int64_t) const {
    return std::int64_t(b.x) * tile + t.x;
  }
  TS_HD std::int64_t col(Dim2, Dim2 t, std::int64_t c) const { return t.y + c * tile; }
  TS_HD OwnerSlot owner(std::int64_t i, std::int64_t j) const {
    return {{int(i / tile), 0}, {int(i % tile), int(j % tile)}, 0, int(j / tile)};
  }
  TS_HD int kDepth() const { return 1; }
};

// naive (seeds 001a, 003a, 004-1): one thread per element of C. x runs along a row of C, so a
// warp's 32 lanes read 32 consecutive floats of B (coalesced) and one broadcast float of A.
struct Naive {
  int tile;
  TS_HD Dim2 block() const { return {tile, tile}; }
  TS_HD Dim2 grid(std::int64_t m, std::int64_t n) const {
    return {int(ceilDiv(n, tile)), int(ceilDiv(m, tile))};
  }
  TS_HD std::int64_t rowsPerThread(std::int64_t) const { return 1; }
  TS_HD std::int64_t colsPerThread(std::int64_t) const { return 1; }
  TS_HD std::int64_t row(Dim2 b, Dim2 t, std::int64_t) const {
    return std::int64_t(b.y) * tile + t.y;
  }
  TS_HD std::int64_t col(Dim2 b, Dim2 t, std::int64_t) const {
    return std::int64_t(b.x) * tile + t.x;
  }
  TS_HD OwnerSlot owner(std::int64_t i, std::int64_t j) const {
    return {{int(j / tile), int(i / tile)}, {int(j % tile), int(i % tile)}, 0, 0};
  }
  TS_HD int kDepth() const { return 1; }
};

// The T x T shared tiles of shared-a and shared-tiled: thread (x, y) stores the element at tile
// row y, tile column x, and an optional pad widens each row (the usual bank-conflict fix; the
// catalogue kernels use pad 0, the traffic model compares both).
struct SharedTile {
  int tile, pad = 0;
  TS_HD int stride() const { return tile + pad; }
  TS_HD int word(int row, int col) const { return row * stride() + col; }
  TS_HD int words() const { return tile * stride(); }
};

// shared-a (seed 001b): the naive mapping, but each k-step first stages a T x T tile of A in
// shared memory (thread (x, y) loads A[b.y*T + y][s*T + x]); B is still read from global memory.
struct SharedA : Naive {
  TS_HD int kDepth() const { return tile; }
  TS_HD SharedTile aTile() const { return {tile, 0}; }
  // Where thread t stores its staged element inside the tile, and what it reads back at inner
  // index kk of the product (tile row, tile column).
  TS_HD Cell aTileStore(Dim2 t) const { return {t.y, t.x}; }
  TS_HD Cell aTileRead(Dim2 t, int kk) const { return {t.y, kk}; }
  // The A element thread t loads at k-step s (the tile is zero-padded past M and K).
  TS_HD Cell aLoad(Dim2 b, Dim2 t, std::int64_t s) const {
    const Cell at = aTileStore(t);
    return {std::int64_t(b.y) * tile + at.row, s * tile + at.col};
  }
};

// shared-tiled (seeds 000b, 002, 003b, 004-3): A and B both staged in T x T tiles per k-step;
// thread (x, y) loads A[b.y*T + y][s*T + x] and B[s*T + y][b.x*T + x], zero past the edges.
struct SharedTiled : SharedA {
  TS_HD SharedTile bTile() const { return {tile, 0}; }
  TS_HD Cell bTileStore(Dim2 t) const { return {t.y, t.x}; }
  TS_HD Cell bTileRead(Dim2 t, int kk) const { return {kk, t.x}; }
  TS_HD Cell bLoad(Dim2 b, Dim2 t, std::int64_t s) const {
    const Cell at = bTileStore(t);
    return {s * tile + at.row, std::int64_t(b.x) * tile + at.col};
  }
};

// register-tiled (seed 004-2): blocks of 16 x 16 threads; each thread accumulates a T x T block
// of C in registers, reading T values of A's column s and T values of B's row s per k-step. No
// shared memory: reuse comes from registers alone, until large T spills them.
struct RegisterTiled {
  static constexpr int kThreadsPerSide = 16;
  int tile;
  TS_HD Dim2 block() const { return {kThreadsPerSide, kThreadsPerSide}; }
  TS_HD std::int64_t blockSpan() const { return std::int64_t(kThreadsPerSide) * tile; }
  TS_HD Dim2 grid(std::int64_t m, std::int64_t n) const {
    return {int(ceilDiv(n, blockSpan())), int(ceilDiv(m, blockSpan()))};
  }
  TS_HD std::int64_t rowsPerThread(std::int64_t) const { return tile; }
  TS_HD std::int64_t colsPerThread(std::int64_t) const { return tile; }
  TS_HD std::int64_t row(Dim2 b, Dim2 t, std::int64_t r) const {
    return (std::int64_t(b.y) * kThreadsPerSide + t.y) * tile + r;
  }
  TS_HD std::int64_t col(Dim2 b, Dim2 t, std::int64_t c) const {
    return (std::int64_t(b.x) * kThreadsPerSide + t.x) * tile + c;
  }
  TS_HD OwnerSlot owner(std::int64_t i, std::int64_t j) const {
    const std::int64_t threadRow = i / tile, threadCol = j / tile;
    return {{int(threadCol / kThreadsPerSide), int(threadRow / kThreadsPerSide)},
            {int(threadCol % kThreadsPerSide), int(threadRow % kThreadsPerSide)},
            int(i % tile),
            int(j % tile)};
  }
  TS_HD int kDepth() const { return 1; }
};

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

// blocktile-1d (siboehm's step 4, 1-D blocktiling): BM*BN/TM threads; thread t computes TM
// outputs down column t % BN of the block tile, rows (t / BN) * TM onwards. For each inner index
// it reads one B value and reuses it for TM multiply-adds from the shared A tile.
struct BlockTile1D : LadderBase<BlockTile1D> {
  int tm;
  static constexpr int kCopyWidth = 1, kAPad = 0;
  static constexpr bool kATransposed = false, kAVectorCopies = false, kVectorStores = false;
  static constexpr std::array<ParamAxis, 4> kAxes = {
      {{"BM", {64, 128}, 2}, {"BN", {64, 128}, 2}, {"BK", {8, 16}, 2}, {"TM", {4, 8, 16}, 3}}};
  static constexpr BlockTile1D fromValues(const std::array<int, 4>& v) {
    return {{v[0], v[1], v[2]}, v[3]};
  }
  constexpr std::array<int, 4> values() const { return {bm, bn, bk, tm}; }

  TS_HDC int threads() const { return bm / tm * bn; }
  TS_HDC std::int64_t rowsPerThread(std::int64_t = 0) const { return tm; }
  TS_HDC std::int64_t colsPerThread(std::int64_t = 0) const { return 1; }
  TS_HDC int rowInBlock(int t, int r) const { return t / bn * tm + r; }
  TS_HDC int colInBlock(int t, int) const { return t % bn; }
  TS_HDC OwnerSlot slotOf(int i, int j) const { return {{}, {i / tm * bn + j, 0}, i % tm, 0}; }
  constexpr TilingRule check() const {
    if (bm % tm != 0) return TilingRule::TileDivides;
    if (!wholeWarps(threads())) return TilingRule::ThreadCount;
    return checkCopies();
  }
};

// The thread grid of blocktile-2d and vectorized: (BM/TM) x (BN/TN) threads, thread t owning the
// TM x TN outputs at rows (t / (BN/TN)) * TM and columns (t % (BN/TN)) * TN of the block tile.
template <typename Self>
struct ThreadGrid : LadderBase<Self> {
  int tm, tn;
  TS_HDC int threadsAlongN() const { return this->bn / tn; }
  TS_HDC int threads() const { return this->bm / tm * threadsAlongN(); }
  TS_HDC std::int64_t rowsPerThread(std::int64_t = 0) const { return tm; }
  TS_HDC std::int64_t colsPerThread(std::int64_t = 0) const { return tn; }
  TS_HDC int rowInBlock(int t, int r) const { return t / threadsAlongN() * tm + r; }
  TS_HDC int colInBlock(int t, int c) const { return t % threadsAlongN() * tn + c; }
  TS_HDC OwnerSlot slotOf(int i, int j) const {
    return {{}, {i / tm * threadsAlongN() + j / tn, 0}, i % tm, j % tn};
  }
  constexpr TilingRule checkGrid(int pieceWidth) const {
    if (this->bm % tm != 0 || this->bn % tn != 0 || tm % pieceWidth != 0 || tn % pieceWidth != 0)
      return TilingRule::TileDivides;
    if (!wholeWarps(threads())) return TilingRule::ThreadCount;
    return this->checkCopies();
  }
};

// blocktile-2d (siboehm's step 5, 2-D blocktiling): a TM x TN register tile per thread; per inner
// index a thread reads TM values of A and TN of B from shared memory for TM*TN multiply-adds. The
// tiles are stored as they are in global memory, so the lanes of a warp reading A hit words
// TM*BK apart (one bank) and those reading B words TN apart: bank conflicts the next rung removes.
struct BlockTile2D : ThreadGrid<BlockTile2D> {
  static constexpr int kCopyWidth = 1, kAPad = 0;
  static constexpr bool kATransposed = false, kAVectorCopies = false, kVectorStores = false;
  static constexpr std::array<ParamAxis, 5> kAxes = {{{"BM", {64, 128}, 2},
                                                      {"BN", {64, 128}, 2},
                                                      {"BK", {8, 16}, 2},
                                                      {"TM", {4, 8}, 2},
                                                      {"TN", {4, 8}, 2}}};
  static constexpr BlockTile2D fromValues(const std::array<int, 5>& v) {
    return {{{v[0], v[1], v[2]}, v[3], v[4]}};
  }
  constexpr std::array<int, 5> values() const { return {bm, bn, bk, tm, tn}; }
  constexpr TilingRule check() const { return checkGrid(1); }
};

// vectorized (siboehm's step 6, with step 8's padding): blocktile-2d's thread grid, but every
// copy from global memory is one 16-byte float4, and A is stored transposed (BK rows of BM, each
// padded by 4 words) so a thread's TM values of A are consecutive words read as float4s too. The
// padding spreads the transposing stores over all 32 banks.
struct Vectorized : ThreadGrid<Vectorized> {
  static constexpr int kCopyWidth = 4, kAPad = 4;
  static constexpr bool kATransposed = true, kAVectorCopies = true, kVectorStores = true;
  static constexpr std::array<ParamAxis, 5> kAxes = BlockTile2D::kAxes;
  static constexpr Vectorized fromValues(const std::array<int, 5>& v) {
    return {{{v[0], v[1], v[2]}, v[3], v[4]}};
  }
  constexpr std::array<int, 5> values() const { return {bm, bn, bk, tm, tn}; }
  constexpr TilingRule check() const { return checkGrid(kCopyWidth); }
};

// The warp grid of warptile and pipelined (siboehm's step 10; the lane layout of CUTLASS's SIMT
// GEMM): the block tile is cut into (BM/WM) x (BN/WN) warp tiles, warp w taking row w / (BN/WN)
// and column w % (BN/WN) of them. Inside a warp tile the 32 lanes form a 4 x 8 grid (lane / 8
// down, lane % 8 across) that covers a 4TM x 8TN sub-tile, each lane a TM x TN piece; the warp
// repeats it (WM/4TM) x (WN/8TN) times, so a thread owns (WM/4) x (WN/8) outputs. Per inner index
// eight lanes read eight consecutive TN-wide pieces of the B row: with TN = 4 that is one 128-byte
// row of shared memory, conflict-free.
template <typename Self>
struct WarpGrid : LadderBase<Self> {
  int wm, wn, tm, tn;
  static constexpr int kLaneRows = 4, kLaneCols = 8;

  TS_HDC int warpsAlongN() const { return this->bn / wn; }
  TS_HDC int warps() const { return this->bm / wm * warpsAlongN(); }
  TS_HDC int threads() const { return warps() * 32; }
  TS_HDC int subM() const { return kLaneRows * tm; }
  TS_HDC int subN() const { return kLaneCols * tn; }
  // The derived warp sub-iterations: how often the 4 x 8 lane grid repeats down and across.
  TS_HDC int itersM() const { return wm / subM(); }
  TS_HDC int itersN() const { return wn / subN(); }
  TS_HDC std::int64_t rowsPerThread(std::int64_t = 0) const { return itersM() * tm; }
  TS_HDC std::int64_t colsPerThread(std::int64_t = 0) const { return itersN() * tn; }
  TS_HDC int rowInBlock(int t, int r) const {
    return t / 32 / warpsAlongN() * wm + r / tm * subM() + t % 32 / kLaneCols * tm + r % tm;
  }
  TS_HDC int colInBlock(int t, int c) const {
    return t / 32 % warpsAlongN() * wn + c / tn * subN() + t % 32 % kLaneCols * tn + c % tn;
  }
  TS_HDC OwnerSlot slotOf(int i, int j) const {
    const int inWarpRow = i % wm, inWarpCol = j % wn;
    const int warp = i / wm * warpsAlongN() + j / wn;
    const int lane = inWarpRow % subM() / tm * kLaneCols + inWarpCol % subN() / tn;
    return {{},
            {warp * 32 + lane, 0},
            inWarpRow / subM() * tm + inWarpRow % tm,
            inWarpCol / subN() * tn + inWarpCol % tn};
  }
  constexpr TilingRule checkWarps() const {
    if (this->bm % wm != 0 || this->bn % wn != 0 || tm % Self::kCopyWidth != 0 ||
        tn % Self::kCopyWidth != 0)
      return TilingRule::TileDivides;
    if (warps() < 4 || warps() > 8) return TilingRule::WarpCount;
    if (wm % subM() != 0 || wn % subN() != 0) return TilingRule::WarpShape;
    return this->checkCopies();
  }
};

// warptile: vectorized's float4 copies and padded transposed A tile, with the warp grid above.
struct Warptile : WarpGrid<Warptile> {
  static constexpr int kCopyWidth = 4, kAPad = 4;
  static constexpr bool kATransposed = true, kAVectorCopies = true;
  // A float4 store takes four consecutive registers; with 64 accumulators or more, ptxas then
  // needs more registers than the 128 that give two blocks per SM (127 became 163 at the default
  // tile, and the kernel ran 1.8x slower: H100, 4096^3). So C is stored one float at a time.
  static constexpr bool kVectorStores = false;
  static constexpr std::array<ParamAxis, 7> kAxes = {{{"BM", {64, 128}, 2},
                                                      {"BN", {64, 128, 256}, 3},
                                                      {"BK", {8, 16}, 2},
                                                      {"WM", {32, 64}, 2},
                                                      {"WN", {32, 64}, 2},
                                                      {"TM", {4, 8}, 2},
                                                      {"TN", {4, 8}, 2}}};
  static constexpr Warptile fromValues(const std::array<int, 7>& v) {
    return {{{v[0], v[1], v[2]}, v[3], v[4], v[5], v[6]}};
  }
  constexpr std::array<int, 7> values() const { return {bm, bn, bk, wm, wn, tm, tn}; }
  constexpr TilingRule check() const { return checkWarps(); }
};

// pipelined (siboehm's step 11 and CUTLASS's multistage GEMM): warptile with `stages` shared
// buffers filled by cp.async. While the block computes on tile s, tiles s+1 .. s+stages-1 are on
// their way, so the loads' latency hides behind the multiply-adds. A cp.async lands in shared
// memory without passing through registers, so the transposed A tile is copied one 4-byte
// element at a time; B keeps its 16-byte copies.
struct Pipelined : WarpGrid<Pipelined> {
  int stages;
  static constexpr int kCopyWidth = 4, kAPad = 4;
  // C one float at a time, as in warptile.
  static constexpr bool kATransposed = true, kAVectorCopies = false, kVectorStores = false;
  static constexpr std::array<ParamAxis, 8> kAxes = {{{"BM", {64, 128}, 2},
                                                      {"BN", {128, 256}, 2},
                                                      {"BK", {16, 32}, 2},
                                                      {"WM", {32, 64}, 2},
                                                      {"WN", {32, 64}, 2},
                                                      {"TM", {8}, 1},
                                                      {"TN", {4}, 1},
                                                      {"stages", {2, 3, 4}, 3}}};
  static constexpr Pipelined fromValues(const std::array<int, 8>& v) {
    return {{{v[0], v[1], v[2]}, v[3], v[4], v[5], v[6]}, v[7]};
  }
  constexpr std::array<int, 8> values() const { return {bm, bn, bk, wm, wn, tm, tn, stages}; }
  TS_HDC Pipeline pipeline() const { return {stages, StageFill::CpAsync}; }
  constexpr TilingRule check() const { return checkWarps(); }
};

// prefetched (plan b of issue 13: CUTLASS's SIMT GEMM and Liu-xiandong's sgemm_v3 on Hopper):
// the warp grid with TM = TN = 4 pieces, so a thread's values of A (transposed) and of B are
// whole float4s 16 and 32 words apart: 128-bit shared reads only. Each thread loads its share of
// tile s + 1 from global memory into registers while the block multiplies tile s, then stores it
// into the second of two shared buffers (dynamic shared memory: 256 x 128 x 16 needs more than
// 48 KiB): one barrier per k-step. The fragments of A and B are double-buffered in registers,
// across the barrier too: those of inner index 0 of tile s + 1 are read before the last inner
// index of tile s is multiplied. A thread of 64 outputs keeps to 128 registers so that 16 warps
// share an SM; at 128 outputs (cuBLAS's 256 x 128 tile of 8 warps) a thread may take 255.
struct Prefetched : WarpGrid<Prefetched> {
  static constexpr int kCopyWidth = 4, kAPad = 4;
  // C one float at a time, as in warptile: float4 stores spilled at the 128-register bound.
  static constexpr bool kATransposed = true, kAVectorCopies = true, kVectorStores = false;
  static constexpr std::array<ParamAxis, 7> kAxes = {{{"BM", {64, 128, 256}, 3},
                                                      {"BN", {64, 128, 256}, 3},
                                                      {"BK", {8, 16}, 2},
                                                      {"WM", {32, 64}, 2},
                                                      {"WN", {32, 64}, 2},
                                                      {"TM", {4}, 1},
                                                      {"TN", {4}, 1}}};
  static constexpr Prefetched fromValues(const std::array<int, 7>& v) {
    return {{{v[0], v[1], v[2]}, v[3], v[4], v[5], v[6]}};
  }
  constexpr std::array<int, 7> values() const { return {bm, bn, bk, wm, wn, tm, tn}; }
  TS_HDC Pipeline pipeline() const { return {2, StageFill::Registers}; }
  // Registers a thread may take: 128 up to 64 outputs, else all 255 the instruction set allows.
  TS_HDC int registerBudget() const { return rowsPerThread() * colsPerThread() <= 64 ? 128 : 256; }
  // Blocks per SM the kernel is compiled for: as many as the 64 Ki registers of an SM hold at
  // that budget.
  TS_HDC int minBlocksPerSm() const { return 65536 / (threads() * registerBudget()); }
  constexpr TilingRule check() const { return checkWarps(); }
};

// ---- Tensor cores -----------------------------------------------------------------------------
//
// mma.sync (sm_80 and up): a warp multiplies a 16 x kInstrK fragment of A by a kInstrK x 8
// fragment of B into a 16 x 8 FP32 accumulator spread over its 32 lanes; kInstrK is 32 bytes of
// the element type, 16 fp16 or bf16 values or 8 tf32. In the accumulator, lane 4g + q holds rows
// g and g + 8 and columns 2q and 2q + 1 (the fixed fragment layout of the PTX ISA).
inline constexpr int kFragmentRows = 16, kFragmentCols = 8, kFragmentKBytes = 32;

// tensor-mma (CUTLASS's sm80 multistage tensor-op GEMM): the BM x BN block tile is cut into
// (BM/WM) x (BN/WN) warp tiles as in warptile, and a warp covers its tile with (WM/16) x (WN/8)
// accumulators, so a lane owns 2(WM/16) rows and 2(WN/8) columns: slot r is fragment row r / 2,
// half r % 2; slot c is fragment column c / 2, column c % 2 of the lane's pair. `stages` shared
// buffers are filled by 16-byte cp.async copies (8 fp16 or 4 tf32 elements), A as BM x BK and B
// as BK x BN, rows padded so the fragment reads hit 32 distinct banks (padRowBytes).
struct TensorCore : LadderBase<TensorCore> {
  int wm, wn, stages;
  int elementBytes = 2;  // of A and B: 2 for fp16 and bf16, 4 for tf32 (not a parameter)

  static constexpr std::array<ParamAxis, 6> kAxes = {{{"BM", {64, 128}, 2},
                                                      {"BN", {128, 256}, 2},
                                                      {"BK", {32}, 1},
                                                      {"WM", {32, 64}, 2},
                                                      {"WN", {32, 64}, 2},
                                                      {"stages", {3, 4}, 2}}};
  static constexpr TensorCore fromValues(const std::array<int, 6>& v) {
    return {{v[0], v[1], v[2]}, v[3], v[4], v[5]};
  }
  constexpr std::array<int, 6> values() const { return {bm, bn, bk, wm, wn, stages}; }
  TS_HDC TensorCore withElementBytes(int bytes) const {
    TensorCore map = *this;
    map.elementBytes = bytes;
    return map;
  }

  // The warp grid and the accumulators of one warp.
  TS_HDC int warpsAlongN() const { return bn / wn; }
  TS_HDC int warps() const { return bm / wm * warpsAlongN(); }
  TS_HDC int threads() const { return warps() * 32; }
  TS_HDC int fragmentsM() const { return wm / kFragmentRows; }
  TS_HDC int fragmentsN() const { return wn / kFragmentCols; }
  TS_HDC int instrK() const { return kFragmentKBytes / elementBytes; }
  TS_HDC int warpRow(int t) const { return t / 32 / warpsAlongN() * wm; }
  TS_HDC int warpCol(int t) const { return t / 32 % warpsAlongN() * wn; }

  // Ownership (LadderBase turns these into rows, columns and owners).
  TS_HDC std::int64_t rowsPerThread(std::int64_t = 0) const { return 2 * fragmentsM(); }
  TS_HDC std::int64_t colsPerThread(std::int64_t = 0) const { return 2 * fragmentsN(); }
  TS_HDC int rowInBlock(int t, int r) const {
    return warpRow(t) + r / 2 * kFragmentRows + r % 2 * 8 + t % 32 / 4;
  }
  TS_HDC int colInBlock(int t, int c) const {
    return warpCol(t) + c / 2 * kFragmentCols + t % 32 % 4 * 2 + c % 2;
  }
  TS_HDC OwnerSlot slotOf(int i, int j) const {
    const int inWarpRow = i % wm, inWarpCol = j % wn;
    const int warp = i / wm * warpsAlongN() + j / wn;
    const int lane = inWarpRow % 8 * 4 + inWarpCol % 8 / 2;
    return {{},
            {warp * 32 + lane, 0},
            inWarpRow / kFragmentRows * 2 + inWarpRow % kFragmentRows / 8,
            inWarpCol / kFragmentCols * 2 + inWarpCol % 2};
  }

  // Copies: 16-byte vectors while the rows are 16-byte aligned (K, or N, a multiple of the
  // copy width), else element by element.
  TS_HDC int copyWidth() const { return 16 / elementBytes; }
  TS_HDC bool aVectorCopies(std::int64_t k) const { return k % copyWidth() == 0; }
  TS_HDC bool bVectorCopies(std::int64_t n) const { return n % copyWidth() == 0; }
  // The accumulator pairs (columns 2q, 2q + 1) go out as one 8-byte float2 when N is even.
  TS_HDC bool vectorStores(std::int64_t n) const { return n % 2 == 0; }
  TS_HDC int storeWidth() const { return 2; }

  // Shared memory, in bytes. A fragment read names rows 16 bytes wide at one k (ldmatrix), or
  // for tf32 one word per lane at rows g and columns q: a row pitch of 4 words mod 32 (A, and B
  // for 16-bit types) or 8 words mod 32 (tf32 B, read down its columns) spreads them over all
  // 32 banks.
  TS_HDC int aPitch(int extraPad = 0) const { return bk * elementBytes + 16 + 4 * extraPad; }
  TS_HDC int bPitch(int extraPad = 0) const {
    return bn * elementBytes + (elementBytes == 4 ? 32 : 16) + 4 * extraPad;
  }
  TS_HDC int aByte(int m, int k, int extraPad = 0) const {
    return m * aPitch(extraPad) + k * elementBytes;
  }
  TS_HDC int bByte(int k, int n, int extraPad = 0) const {
    return k * bPitch(extraPad) + n * elementBytes;
  }
  // The 4-byte word holding an element (the unit of the bank diagrams).
  TS_HDC int aWord(int m, int k, int extraPad = 0) const { return aByte(m, k, extraPad) / 4; }
  TS_HDC int bWord(int k, int n, int extraPad = 0) const { return bByte(k, n, extraPad) / 4; }
  TS_HDC int aStageBytes() const { return bm * aPitch(); }
  TS_HDC int stageBytes() const { return aStageBytes() + bk * bPitch(); }
  TS_HDC Pipeline pipeline() const {
    return {stages, StageFill::CpAsync, StageHandover::Barrier, StageProduct::MmaSync};
  }
  TS_HDC int sharedWords() const { return stages * stageBytes() / 4; }

  // Fragment reads of one k-chunk (instrK values of k). 16-bit types: read `slot` is one
  // ldmatrix.x4, over A fragment row `slot` or, transposed, over B fragment columns 2 slot and
  // 2 slot + 1; each lane names one 16-byte row of an 8 x 8 matrix (lanes 8i .. 8i + 7 the rows
  // of matrix i). tf32: one 4-byte read per fragment register, slot = fragment * 4 + register
  // for A and fragment * 2 + register for B.
  TS_HDC int fragmentReads(bool a) const {
    if (elementBytes == 2) return a ? fragmentsM() : fragmentsN() / 2;
    return a ? fragmentsM() * 4 : fragmentsN() * 2;
  }
  TS_HDC int fragmentReadWidth() const { return elementBytes == 2 ? 4 : 1; }
  // The element (block-tile row, k inside the step) of A that lane `lane` of thread t's warp
  // names in read `slot` of chunk `chunk`.
  TS_HDC Cell aFragment(int t, int slot, int chunk) const {
    const int lane = t % 32, k0 = chunk * instrK();
    if (elementBytes == 2)
      return {warpRow(t) + slot * kFragmentRows + lane % 16, k0 + lane / 16 * 8};
    const int fragment = slot / 4, reg = slot % 4;
    return {warpRow(t) + fragment * kFragmentRows + lane / 4 + reg % 2 * 8,
            k0 + lane % 4 + reg / 2 * 4};
  }
  // The element (k inside the step, block-tile column) of B.
  TS_HDC Cell bFragment(int t, int slot, int chunk) const {
    const int lane = t % 32, k0 = chunk * instrK();
    if (elementBytes == 2)
      return {k0 + lane % 16, warpCol(t) + slot * 2 * kFragmentCols + lane / 16 * 8};
    const int fragment = slot / 2, reg = slot % 2;
    return {k0 + lane % 4 + reg * 4, warpCol(t) + fragment * kFragmentCols + lane / 4};
  }

  constexpr TilingRule check() const {
    if (bm % wm != 0 || bn % wn != 0) return TilingRule::TileDivides;
    if (warps() < 4 || warps() > 8) return TilingRule::WarpCount;
    if (wm % kFragmentRows != 0 || wn % (2 * kFragmentCols) != 0 || bk % 16 != 0)
      return TilingRule::Fragments;
    // The widest copies (16-bit types) must split evenly; tf32's twice as many then do too.
    return checkCopies();
  }
};

// tensor-wgmma (Hopper's warpgroup MMA, sm_90a): each warpgroup of 128 threads owns 64 rows of the
// BM x BN block tile and multiplies them with wgmma.mma_async, which reads both operands from
// shared memory through descriptors, 64 x 128 x 16 per instruction. The accumulators follow the
// mma layout: warp w of a warpgroup holds rows 16w .. 16w + 15 of its 64, lane 4g + q rows g and
// g + 8 and, in every 8-column chunk, columns 2q and 2q + 1. The stages hold A (BM x 64, 128-byte
// rows) and B (64 x BN, as 64-column by 8-row atoms) in the 128-byte swizzle wgmma reads: the
// 16-byte chunk c of row r of a 1024-byte atom is stored at chunk c ^ (r % 8).
struct Wgmma : LadderBase<Wgmma> {
  int stages;
  int elementBytes = 2;  // fp16 and bf16 only

  static constexpr int kWarpgroupRows = 64, kInstrN = 128, kInstrK = 16, kAtomBytes = 1024;
  static constexpr int kAtomCols = 64;  // 128 bytes of 16-bit elements
  static constexpr std::array<ParamAxis, 4> kAxes = {
      {{"BM", {128}, 1}, {"BN", {128, 256}, 2}, {"BK", {64}, 1}, {"stages", {3, 4}, 2}}};
  static constexpr Wgmma fromValues(const std::array<int, 4>& v) {
    return {{v[0], v[1], v[2]}, v[3]};
  }
  constexpr std::array<int, 4> values() const { return {bm, bn, bk, stages}; }
  TS_HDC Wgmma withElementBytes(int bytes) const {
    Wgmma map = *this;
    map.elementBytes = bytes;
    return map;
  }

  TS_HDC int warpgroups() const { return bm / kWarpgroupRows; }
  TS_HDC int threads() const { return warpgroups() * 128; }
  TS_HDC int instructionsN() const { return bn / kInstrN; }

  TS_HDC std::int64_t rowsPerThread(std::int64_t = 0) const { return 2; }
  TS_HDC std::int64_t colsPerThread(std::int64_t = 0) const { return bn / 4; }
  // Slot r: half r of the lane's rows; slot c: chunk c / 2, column c % 2 of the lane's pair.
  TS_HDC int rowInBlock(int t, int r) const {
    return t / 128 * kWarpgroupRows + t % 128 / 32 * 16 + r * 8 + t % 32 / 4;
  }
  TS_HDC int colInBlock(int t, int c) const { return c / 2 * 8 + t % 32 % 4 * 2 + c % 2; }
  TS_HDC OwnerSlot slotOf(int i, int j) const {
    const int lane = i % 8 * 4 + j % 8 / 2;
    return {{}, {i / 16 * 32 + lane, 0}, i % 16 / 8, j / 8 * 2 + j % 2};
  }

  // 16-byte copies (8 elements) while rows are 16-byte aligned, as in tensor-mma.
  TS_HDC int copyWidth() const { return 16 / elementBytes; }
  TS_HDC bool aVectorCopies(std::int64_t k) const { return k % copyWidth() == 0; }
  TS_HDC bool bVectorCopies(std::int64_t n) const { return n % copyWidth() == 0; }
  TS_HDC bool vectorStores(std::int64_t n) const { return n % 2 == 0; }
  TS_HDC int storeWidth() const { return 2; }

  // The 128-byte swizzle of a byte offset inside 1024-byte aligned atoms.
  static TS_HDC int swizzle(int offset) { return offset ^ ((offset >> 7 & 7) << 4); }
  // A: row m is 128 bytes (BK = 64), eight rows an atom. B: atom (k / 8, n / 64) holds 8 rows of
  // 64 columns; the atoms of one 8-row group lie side by side.
  TS_HDC int aByte(int m, int k, int = 0) const { return swizzle(m * 128 + k * elementBytes); }
  TS_HDC int bByte(int k, int n, int = 0) const {
    const int atom = k / 8 * (bn / kAtomCols) + n / kAtomCols;
    return swizzle(atom * kAtomBytes + k % 8 * 128 + n % kAtomCols * elementBytes);
  }
  TS_HDC int aWord(int m, int k, int extraPad = 0) const { return aByte(m, k, extraPad) / 4; }
  TS_HDC int bWord(int k, int n, int extraPad = 0) const { return bByte(k, n, extraPad) / 4; }
  TS_HDC int aStageBytes() const { return bm * 128; }
  TS_HDC int stageBytes() const { return aStageBytes() + bk * bn * elementBytes; }
  // The wgmma batch of k-step s runs on into the next iteration, so a stage is refilled two
  // k-steps after its use.
  TS_HDC Pipeline pipeline() const {
    return {stages, StageFill::CpAsync, StageHandover::Barrier, StageProduct::Wgmma, 1};
  }
  // One atom more than the stages: the kernel rounds its base up to a 1024-byte boundary.
  TS_HDC int sharedWords() const { return (stages * stageBytes() + kAtomBytes) / 4; }
  // The warpgroup's instructions read shared memory themselves: no per-lane fragment reads.
  TS_HDC int fragmentReads(bool) const { return 0; }
  TS_HDC int instrK() const { return kInstrK; }
  TS_HDC int fragmentReadWidth() const { return 4; }
  TS_HDC Cell aFragment(int, int, int) const { return {}; }
  TS_HDC Cell bFragment(int, int, int) const { return {}; }

  constexpr TilingRule check() const {
    if (bn % kInstrN != 0 || bm % kWarpgroupRows != 0) return TilingRule::TileDivides;
    if (bk * elementBytes != 128) return TilingRule::Fragments;
    return checkCopies();
  }
};

// tensor-tma (issue 13, step 1 of the Hopper plan; the warp-specialised shape of CUTLASS's sm90
// GEMM and of fast.cu's kernels 4-5), and each block of tensor-persistent (below): a block of
// three warpgroups with fixed roles.
//   - Warpgroup 0 is the producer. Its thread 0 fills a stage with TMA bulk tensor copies
//     (cp.async.bulk.tensor through a tensor map with the 128-byte swizzle): one box of A (BM
//     rows of 64 k values) and BN/64 boxes of B (64 k rows of 64 columns), completing on the
//     stage's `full` mbarrier; past the matrix the copy engine writes zeros. When K or N is no
//     multiple of 8 a row of A or B is not 16-byte aligned and TMA cannot describe it: then the
//     producer warpgroup's 128 threads copy that operand element by element into the same bytes
//     (each the vectors aCopy()/bCopy() give it), and every producer thread arrives on `full`.
//     The copies below describe that work as the producer's threads moving 16-byte vectors, in
//     the order the copy engine moves whole 128-byte rows.
//   - Warpgroups 1 and 2 are the consumers: consumer c owns rows 64c .. 64c + 63 of the BM x BN
//     block tile and multiplies them with wgmma m64nBNk16 (BN = 256: the largest instruction),
//     four per k-step, reading both operands from the stage through descriptors; accumulator
//     layout as in tensor-wgmma. It waits on the stage's `full` barrier, keeps one wgmma batch in
//     flight and, once the batch of step s - 1 is done, each of its warps arrives on that
//     stage's `empty` barrier, which the producer waits on before refilling it.
// No block-wide barrier in the main loop. The producer gives registers back (setmaxnreg to 40)
// and the consumers take them (232), so a consumer thread holds its BN/2 accumulators.
// Stage layout (1024-byte aligned): A as BM rows of 128 bytes, then B as BN/64 slabs of 64 k rows
// of 128 bytes, each 16-byte chunk c of row r of a 1024-byte atom at chunk c ^ (r % 8).
//
// The schedule is pipeline(): the producer warps, TMA fills handed over through mbarriers, one
// wgmma batch in flight; the producer fills k-step s once the consumers have released step
// s - stages (the stage's previous use).
template <typename Self>
struct WarpSpecialised : LadderBase<Self> {
  using LadderBase<Self>::bm;
  using LadderBase<Self>::bn;
  using LadderBase<Self>::bk;
  int stages;
  int elementBytes = 2;  // fp16 and bf16; 4 (tf32) in PersistentTf32, which transposes the tile

  static constexpr int kWarpgroupThreads = 128, kConsumerWarpgroups = 2, kConsumerRows = 64;
  static constexpr int kInstrK = 16, kAtomBytes = 1024, kRowBytes = 128;
  static constexpr int kSharedLimitBytes = 227 * 1024;  // one block's dynamic shared memory
  static constexpr int kBarrierBytes = 8;               // one mbarrier
  TS_HDC Self withElementBytes(int bytes) const {
    Self map = this->self();
    map.elementBytes = bytes;
    return map;
  }

  // Roles and the schedule: the producer warpgroup's copies fill each stage as soon as the
  // consumers free it, and a consumer's wgmma batch runs on into the next k-step.
  TS_HDC Pipeline pipeline() const {
    return {.stages = stages,
            .fill = StageFill::Tma,
            .handover = StageHandover::Mbarrier,
            .product = StageProduct::Wgmma,
            .mmaInFlight = 1,
            .producerWarps = kWarpgroupThreads / 32};
  }
  TS_HDC int threads() const { return (1 + kConsumerWarpgroups) * kWarpgroupThreads; }
  TS_HDC bool isProducer(int t) const { return t < pipeline().producerWarps * 32; }
  TS_HDC int consumerOf(int t) const { return t / kWarpgroupThreads - 1; }
  TS_HDC int firstOutputThread() const { return kWarpgroupThreads; }

  // Ownership: consumer c's warp w holds rows 64c + 16w + g and + 8, lane 4g + q columns 2q and
  // 2q + 1 of every 8-column chunk. Slot r: half r of the lane's rows; slot c: chunk c / 2,
  // column c % 2 of the lane's pair.
  TS_HDC std::int64_t rowsPerThread(std::int64_t = 0) const { return 2; }
  TS_HDC std::int64_t colsPerThread(std::int64_t = 0) const { return bn / 4; }
  TS_HDC int rowInBlock(int t, int r) const {
    return consumerOf(t) * kConsumerRows + t % kWarpgroupThreads / 32 * 16 + r * 8 + t % 32 / 4;
  }
  TS_HDC int colInBlock(int t, int c) const { return c / 2 * 8 + t % 32 % 4 * 2 + c % 2; }
  TS_HDC OwnerSlot slotOf(int i, int j) const {
    const int lane = i % 8 * 4 + j % 8 / 2;
    return {{}, {kWarpgroupThreads + i / 16 * 32 + lane, 0}, i % 16 / 8, j / 8 * 2 + j % 2};
  }

  // Copies: the producer warpgroup's, 16-byte vectors (8 elements). A row is 16-byte aligned,
  // which TMA needs, exactly when K (for A) or N (for B) is a multiple of 8.
  TS_HDC int copyWidth() const { return 16 / elementBytes; }
  TS_HDC TileCopy aCopy() const { return {bm, bk, copyWidth(), kWarpgroupThreads}; }
  TS_HDC TileCopy bCopy() const { return {bk, bn, copyWidth(), kWarpgroupThreads}; }
  TS_HDC bool aVectorCopies(std::int64_t k) const { return k % copyWidth() == 0; }
  TS_HDC bool bVectorCopies(std::int64_t n) const { return n % copyWidth() == 0; }
  TS_HDC bool vectorStores(std::int64_t n) const { return n % 2 == 0; }
  TS_HDC int storeWidth() const { return 2; }

  // Shared memory, in bytes (B's from the start of the B tile): the 128-byte swizzle inside
  // 1024-byte aligned atoms.
  static TS_HDC int swizzle(int offset) { return offset ^ ((offset >> 7 & 7) << 4); }
  TS_HDC int slabBytes() const { return bk * kRowBytes; }  // B: 64 columns of every k row
  TS_HDC int aByte(int m, int k, int = 0) const {
    return swizzle(m * kRowBytes + k * elementBytes);
  }
  TS_HDC int bByte(int k, int n, int = 0) const {
    const int columns = kRowBytes / elementBytes;
    return swizzle(n / columns * slabBytes() + k * kRowBytes + n % columns * elementBytes);
  }
  TS_HDC int aWord(int m, int k, int extraPad = 0) const { return aByte(m, k, extraPad) / 4; }
  TS_HDC int bWord(int k, int n, int extraPad = 0) const { return bByte(k, n, extraPad) / 4; }
  TS_HDC int aStageBytes() const { return bm * kRowBytes; }
  TS_HDC int stageBytes() const { return aStageBytes() + bk * bn * elementBytes; }
  // The stages, one atom for rounding the base up to 1024 bytes, and a full and an empty
  // mbarrier per stage.
  TS_HDC int sharedBytes() const {
    return stages * (stageBytes() + 2 * kBarrierBytes) + kAtomBytes;
  }
  TS_HDC int sharedWords() const { return sharedBytes() / 4; }
  // The warpgroups' instructions read shared memory themselves: no per-lane fragment reads.
  TS_HDC int fragmentReads(bool) const { return 0; }
  TS_HDC int instrK() const { return kInstrK; }
  TS_HDC int fragmentReadWidth() const { return 4; }
  TS_HDC Cell aFragment(int, int, int) const { return {}; }
  TS_HDC Cell bFragment(int, int, int) const { return {}; }

  constexpr TilingRule check() const {
    if (bm != kConsumerWarpgroups * kConsumerRows || bn % 64 != 0 || bn > 256)
      return TilingRule::TileDivides;
    if (bk * elementBytes != kRowBytes) return TilingRule::Fragments;
    if (sharedBytes() > kSharedLimitBytes) return TilingRule::SharedMemory;
    return this->checkCopies();
  }
};

struct Tma : WarpSpecialised<Tma> {
  static constexpr std::array<ParamAxis, 4> kAxes = {
      {{"BM", {128}, 1}, {"BN", {128, 256}, 2}, {"BK", {64}, 1}, {"stages", {3, 4, 5, 6}, 4}}};
  static constexpr Tma fromValues(const std::array<int, 4>& v) {
    return {{{v[0], v[1], v[2]}, v[3]}};
  }
  constexpr std::array<int, 4> values() const { return {bm, bn, bk, stages}; }
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

// tensor-persistent (issue 13, the Hopper plan's steps 4 and 6; fast.cu kernels 6 and 8, CUTLASS's
// persistent tile scheduler): tensor-tma's block, launched once per SM, each block looping over
// output tiles. Every diagram's "block" stays one BM x BN tile of C (grid(), owner(), the copies
// and the pipeline are tensor-tma's); what this map adds is the launch and the tile order:
//   - The launch is launchedCtas() blocks, at most residentCtas (the blocks the GPU holds at
//     once: one per SM), in thread-block clusters of `cluster` x 1 blocks: as few clusters as
//     work all units in as many rounds as every cluster would (balancedClusters).
//   - A cluster takes `cluster` vertically adjacent tiles at once (a unit: the same columns of B,
//     consecutive rows of A). Its blocks share B's tile: each block's producer loads 1/cluster of
//     B's slabs and the copy engine multicasts them into every block of the cluster, so B crosses
//     L2 once per unit. A block then waits for its own and its partners' consumers to free a
//     stage before refilling it (their `empty` arrivals come to every block of the cluster).
//   - The units are numbered in a grouped order: bands of `group` tile rows, each band walked
//     column by column, down the band's rows first, so the blocks working at one time share
//     a few columns of B and rows of A in L2 (a row-by-row order rereads all of B every row).
//   - Cluster c takes units c, c + clusters, c + 2 clusters, ...: unit c + r clusters in round r.
//     Block `rank` of the cluster computes tile row unitRow * cluster + rank of its unit.
// The stage ring runs on across tiles: the producer fills the next tile's k-steps while the
// consumers still multiply (or store) this one, and the ring's phases carry over.
template <typename Self>
struct PersistentOrder : WarpSpecialised<Self> {
  using LadderBase<Self>::bm;
  using LadderBase<Self>::bn;
  int cluster = 1;  // blocks per thread-block cluster, along M
  int group = 8;    // tile rows per band of the tile order
  int residentCtas = kDefaultResidentCtas;

  // An H100's or H200's SMs: what the diagrams assume until a GPU says (the launch asks CUDA how
  // many clusters fit and builds its map withResidentCtas()).
  static constexpr int kDefaultResidentCtas = 132;
  TS_HDC Self withResidentCtas(int ctas) const {
    Self map = this->self();
    map.residentCtas = ctas;
    return map;
  }
  // Tile counts fit in an int (C would hold more than 2^45 floats otherwise), and int division
  // keeps the producer, which computes the order on 40 registers, from spilling.
  TS_HDC int tilesAlongM(std::int64_t m) const { return int(ceilDiv(m, bm)); }
  TS_HDC int tilesAlongN(std::int64_t n) const { return int(ceilDiv(n, bn)); }
  // Units: `cluster` tiles stacked along M (the last unit row may reach past M: a block whose
  // tile lies there still copies its share of B for its partners, and stores nothing).
  TS_HDC int unitRows(std::int64_t m) const { return (tilesAlongM(m) + cluster - 1) / cluster; }
  TS_HDC int units(std::int64_t m, std::int64_t n) const { return unitRows(m) * tilesAlongN(n); }
  TS_HDC int clusters(std::int64_t m, std::int64_t n) const {
    return balancedClusters(units(m, n), residentCtas / cluster > 0 ? residentCtas / cluster : 1);
  }
  TS_HDC int launchedCtas(std::int64_t m, std::int64_t n) const { return clusters(m, n) * cluster; }
  TS_HDC Dim2 launchGrid(std::int64_t m, std::int64_t n) const { return {launchedCtas(m, n), 1}; }
  TS_HDC Dim2 clusterShape() const { return {cluster, 1}; }
  // A cluster multicasts B only when TMA copies both operands: rows that are not 16-byte aligned
  // are copied by each block's producer threads, each block its own.
  TS_HDC bool multicastsB(std::int64_t k, std::int64_t n) const {
    return cluster > 1 && this->aVectorCopies(k) && this->bVectorCopies(n);
  }
  TS_HDC int rounds(std::int64_t m, std::int64_t n) const {
    return (units(m, n) + clusters(m, n) - 1) / clusters(m, n);
  }

  // The grouped order: unit u as {x: tile column, y: unit row}, and back.
  TS_HDC int bandUnitRows() const { return group / cluster; }
  TS_HDC Dim2 unitAt(int u, std::int64_t m, std::int64_t n) const {
    const int perBand = bandUnitRows() * tilesAlongN(n);
    const int first = u / perBand * bandUnitRows(), inBand = u % perBand;
    const int left = unitRows(m) - first;
    const int rows = left < bandUnitRows() ? left : bandUnitRows();
    return {inBand / rows, first + inBand % rows};
  }
  TS_HDC int unitOf(Dim2 unit, std::int64_t m, std::int64_t n) const {
    const int first = unit.y / bandUnitRows() * bandUnitRows();
    const int left = unitRows(m) - first;
    const int rows = left < bandUnitRows() ? left : bandUnitRows();
    return first * tilesAlongN(n) + unit.x * rows + (unit.y - first);
  }
  // The tile (a block of grid()) launched block `cta` computes in `round`; its y may lie past
  // the last tile row (see units). Valid while round < roundsOf(cta).
  TS_HDC Dim2 tileAt(int cta, int round, std::int64_t m, std::int64_t n) const {
    const Dim2 unit = unitAt(cta / cluster + round * clusters(m, n), m, n);
    return {unit.x, unit.y * cluster + cta % cluster};
  }
  TS_HDC int roundsOf(int cta, std::int64_t m, std::int64_t n) const {
    return (units(m, n) - cta / cluster + clusters(m, n) - 1) / clusters(m, n);
  }
  // The inverse: which launched block computes a tile, and in which round.
  TS_HDC int ctaOf(Dim2 tile, std::int64_t m, std::int64_t n) const {
    const int u = unitOf({tile.x, tile.y / cluster}, m, n);
    return u % clusters(m, n) * cluster + tile.y % cluster;
  }
  TS_HDC int roundOf(Dim2 tile, std::int64_t m, std::int64_t n) const {
    return unitOf({tile.x, tile.y / cluster}, m, n) / clusters(m, n);
  }
};

struct Persistent : PersistentOrder<Persistent> {
  static constexpr std::array<ParamAxis, 6> kAxes = {{{"BM", {128}, 1},
                                                      {"BN", {128, 256}, 2},
                                                      {"BK", {64}, 1},
                                                      {"stages", {4, 6}, 2},
                                                      {"cluster", {1, 2}, 2},
                                                      {"group", {8, 16}, 2}}};
  static constexpr Persistent fromValues(const std::array<int, 6>& v) {
    return {{{{v[0], v[1], v[2]}, v[3]}, v[4], v[5]}};
  }
  constexpr std::array<int, 6> values() const { return {bm, bn, bk, stages, cluster, group}; }
};

// tensor-tf32 (issue 13): tensor-persistent's block, launch, tile order and clusters for tf32.
// wgmma reads a tf32 operand from shared memory only K-major, and row-major B is N-major; so each
// block computes its tile transposed, C^T = B^T A^T:
//   - A's stage (BM = 256 rows of BK = 32 k values: 128 bytes, swizzled as in tensor-tma) is the
//     instruction's second operand, read through descriptors K-major as it lies;
//   - B's stage (BK x BN, BN = 128: four slabs of 32 columns, swizzled) reaches the instruction
//     through registers, where any layout will do: before each 8-deep k-chunk every consumer
//     thread reads its four words of B from the stage (bFragment).
// Consumer c owns columns 64c .. 64c + 63 of the tile and all 256 rows, one m64n256k8 per
// k-chunk; its accumulator rows are columns of C and its accumulator columns rows of C. Lane
// 4g + q of warp w holds rows 8j + 2q and 8j + 2q + 1 (j = 0 .. 31) of columns column(w, g) and
// column(w, g + 8). Those columns are chosen so that a warp's 32 reads of B, four k rows by
// eight columns, hit 32 banks through the swizzle: g = 0 .. 3 and 4 .. 7 take two runs of four
// columns 16 apart (16-byte chunks 0 and 4 of a slab's row, XORed with k % 8 into distinct
// chunks); g + 8 the runs 8 further; warp w % 2 the next four columns; warp w / 2 the next slab.
struct PersistentTf32 : PersistentOrder<PersistentTf32> {
  static constexpr int kInstrK = 8, kConsumerColumns = 64, kSlabColumns = 32;
  static constexpr std::array<ParamAxis, 6> kAxes = {{{"BM", {256}, 1},
                                                      {"BN", {128}, 1},
                                                      {"BK", {32}, 1},
                                                      {"stages", {3, 4}, 2},
                                                      {"cluster", {1, 2}, 2},
                                                      {"group", {8, 16}, 2}}};
  static constexpr PersistentTf32 fromValues(const std::array<int, 6>& v) {
    PersistentTf32 map{{{{v[0], v[1], v[2]}, v[3]}, v[4], v[5]}};
    map.elementBytes = 4;
    return map;
  }
  constexpr std::array<int, 6> values() const { return {bm, bn, bk, stages, cluster, group}; }

  // Accumulator row r (0 .. 63) of a consumer: the column of its 64 it stands for.
  static TS_HDC int columnOf(int r) {
    const int warp = r / 16, half = r % 16 / 8, g = r % 8;
    return warp / 2 * kSlabColumns + warp % 2 * 4 + half * 8 + g / 4 * 16 + g % 4;
  }
  // Ownership: slot r is row 8 (r / 2) + 2q + r % 2; slot c is column(w, 8c + g).
  TS_HDC std::int64_t rowsPerThread(std::int64_t = 0) const { return bm / 4; }
  TS_HDC std::int64_t colsPerThread(std::int64_t = 0) const { return 2; }
  TS_HDC int rowInBlock(int t, int r) const { return r / 2 * 8 + t % 32 % 4 * 2 + r % 2; }
  TS_HDC int colInBlock(int t, int c) const {
    return consumerOf(t) * kConsumerColumns +
           columnOf(t % kWarpgroupThreads / 32 * 16 + c * 8 + t % 32 / 4);
  }
  TS_HDC OwnerSlot slotOf(int i, int j) const {
    const int inSlab = j % kSlabColumns;
    const int warp = j % kConsumerColumns / kSlabColumns * 2 + inSlab / 4 % 2;
    const int g = inSlab / 16 * 4 + inSlab % 4;
    const int lane = g * 4 + i % 8 / 2;
    return {{},
            {kWarpgroupThreads * (1 + j / kConsumerColumns) + warp * 32 + lane, 0},
            i / 8 * 2 + i % 2,
            inSlab / 8 % 2};
  }
  // A thread's outputs are single floats (its two neighbouring values lie in one column).
  TS_HDC bool vectorStores(std::int64_t) const { return false; }
  TS_HDC int storeWidth() const { return 1; }

  // The consumers' reads of B: per k-chunk one word per fragment register, register `slot` at
  // k row q + 4 (slot / 2) and accumulator row 8 (slot % 2) + g; the producer reads nothing
  // (row -1). A is read by the instructions themselves.
  TS_HDC int instrK() const { return kInstrK; }
  TS_HDC int fragmentReads(bool a) const { return a ? 0 : 4; }
  TS_HDC int fragmentReadWidth() const { return 1; }
  TS_HDC Cell bFragment(int t, int slot, int chunk) const {
    if (isProducer(t)) return {-1, -1};
    const int lane = t % 32;
    return {chunk * kInstrK + lane % 4 + slot / 2 * 4,
            consumerOf(t) * kConsumerColumns +
                columnOf(t % kWarpgroupThreads / 32 * 16 + slot % 2 * 8 + lane / 4)};
  }

  constexpr TilingRule check() const {
    if (bm != 256 || bn != kConsumerWarpgroups * kConsumerColumns) return TilingRule::TileDivides;
    if (bk * elementBytes != kRowBytes) return TilingRule::Fragments;
    if (sharedBytes() > kSharedLimitBytes) return TilingRule::SharedMemory;
    return checkCopies();
  }
};

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
