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
#include <cstdint>

#if defined(__CUDACC__)
#define TS_HD __host__ __device__ __forceinline__
#else
#define TS_HD inline
#endif

namespace tilescope {

struct Dim2 {
  int x = 1, y = 1;
};

// An element of A, B or C (it may lie in the padding past the matrix edge).
struct Cell {
  std::int64_t row = 0, col = 0;
};

TS_HD std::int64_t ceilDiv(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

// Where an output lives: the block and thread that compute C[i][j] and its slot (r, c) there.
struct OwnerSlot {
  Dim2 block, thread;
  int r = 0, c = 0;
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

}  // namespace maps
}  // namespace tilescope
