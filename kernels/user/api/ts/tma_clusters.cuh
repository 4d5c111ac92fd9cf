// ts/tma_clusters.cuh: Hopper's copy engine (TMA) and its mbarriers, thread-block clusters, and
// registers moved between warpgroups (sm_90).
// Relies on ts/problem.cuh and ts/tracing.cuh in front of it (tilescope_api.cuh's order).
namespace ts {
// ---- Hopper's copy engine (TMA) and mbarriers (sm_90) ----
// An mbarrier (a __shared__ ts::Barrier): a phase completes when the arrivals it was initialised
// with have come and the bytes announced to it have landed; a waiter names the phase's parity
// (0 for the first, then 1, 0, ...).
typedef unsigned long long Barrier;
// One thread initialises a block's barriers, then fences them for the copy engine before the
// barrier (__syncthreads) that shows them to the others.
__device__ __forceinline__ void initBarrier(Barrier& barrier, int arrivals) {
#if __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(detail::sharedAddress(&barrier)),
               "r"(arrivals)
               : "memory");
#else
  __trap();  // the copy engine's barriers: sm_90
#endif
}
__device__ __forceinline__ void fenceBarrierInit() {
#if __CUDA_ARCH__ >= 900
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
#endif
}
__device__ __forceinline__ void arrive(Barrier& barrier) {
#if __CUDA_ARCH__ >= 900
  asm volatile("{\n.reg .b64 state;\nmbarrier.arrive.shared::cta.b64 state, [%0];\n}\n" ::"r"(
                   detail::sharedAddress(&barrier))
               : "memory");
#else
  __trap();
#endif
}
// Arrives and announces `bytes` the copy engine will deliver in this phase; expectBytes
// announces them without arriving.
__device__ __forceinline__ void arriveExpectingBytes(Barrier& barrier, unsigned bytes) {
#if __CUDA_ARCH__ >= 900
  asm volatile(
      "{\n.reg .b64 state;\nmbarrier.arrive.expect_tx.shared::cta.b64 state, [%0], %1;\n}\n" ::"r"(
          detail::sharedAddress(&barrier)),
      "r"(bytes)
      : "memory");
#else
  __trap();
#endif
}
__device__ __forceinline__ void expectBytes(Barrier& barrier, unsigned bytes) {
#if __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;\n" ::"r"(
                   detail::sharedAddress(&barrier)),
               "r"(bytes)
               : "memory");
#else
  __trap();
#endif
}
// Waits until the phase of parity `parity` has completed.
__device__ __forceinline__ void waitBarrier(Barrier& barrier, int parity) {
#if __CUDA_ARCH__ >= 900
  unsigned done = 0;
  do {
    asm volatile(
        "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
        "selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(detail::sharedAddress(&barrier)), "r"(parity)
        : "memory");
  } while (!done);
#else
  __trap();
#endif
}
// Whether TileScope made a tensor map of A (TileA) or B (TileB) for this launch: the source
// declares TS_TENSOR_MAPS and a row of the matrix is a multiple of 16 bytes.
__device__ __forceinline__ bool hasTensorMap(const Problem& p, Tile tile) {
  return (p.tensorMaps >> tile & 1) != 0;
}
namespace detail {
// One box of a tensor map, columns from `col` and rows from `row`, into `to`, counted on `full`.
__device__ __forceinline__ void copyBox(void* to, const TensorMap& map, int col, int row,
                                        Barrier& full) {
#if __CUDA_ARCH__ >= 900
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3}], [%4];\n" ::"r"(sharedAddress(to)),
      "l"(reinterpret_cast<unsigned long long>(&map)), "r"(col), "r"(row),
      "r"(sharedAddress(&full))
      : "memory");
#else
  __trap();  // TMA: sm_90
#endif
}
// The word the copy engine's 128-byte swizzle puts the 16 bytes at `at` in: 16-byte chunk c of
// a 128-byte row r lands at chunk c ^ (r % 8), counted in address bits (boxes start on 1024).
__device__ __forceinline__ int swizzledWord(const void* at) {
  const unsigned address = sharedAddress(at);
  return (int)((address ^ (address >> 7 & 7) << 4) / 4);
}
// The tracer draws a tile the copy engine moves as the 128 threads of the issuing thread's
// warpgroup copying its 16-byte vectors, row by row: thread v % 128 the v-th. `rows` x `cols` is
// the tile as it lies in memory, from (row0, col0); a K-major B's rows are its columns n, and
// each load is recorded as B's (k, n).
__device__ __forceinline__ void recordTileCopy(const Problem& p, Tile tile, int row0, int col0,
                                               int rows, int cols, int boxRows,
                                               const unsigned char* to) {
#ifdef TS_TRACE
  const int first = (threadIdx.x + threadIdx.y * blockDim.x) / 128 * 128;
  const int elements = 16 / (int)sizeof(Element), perRow = cols / elements;
  const bool kMajorB = TS_B_K_MAJOR && tile == TileB;
  for (int v = 0; v < rows * perRow; ++v) {
    const int r = v / perRow, c = v % perRow;
    const int row = row0 + r, col = col0 + c * elements;
    if (kMajorB)
      recordAs(p, first + v % 128, 1, col, row, elements);
    else
      recordAs(p, first + v % 128, tile == TileA ? 0 : 1, row, col, elements);
    // Box c / 8 of the tile (its boxes lie one after another: along the 128-byte rows, or down
    // a K-major B's rows), row r of the box, chunk c % 8 of that row.
    const int box = kMajorB ? r / boxRows : c / 8;
    recordAs(p, first + v % 128, 3, tile,
             swizzledWord(to + (box * boxRows + r % boxRows) * 128 + c % 8 * 16), 4);
  }
#endif
}
}  // namespace detail
// The copy engine fills a stage (sm_90): copyTileA copies A's rows row .. row + boxRowsA - 1,
// 128 bytes of k from k on, as one box into `to`; copyTileB copies B's values of k from k on and
// `columns` columns from col on. Of a K x N B: its rows k .. k + boxRowsB - 1, as columns / (128
// bytes) boxes, box b at to + b * boxRowsB * 128. Of a K-major B (TS_B_K_MAJOR): 128 bytes of k of
// its rows col .. col + columns - 1, as columns / boxRowsB boxes of boxRowsB rows each, one after
// another: `columns` rows of 128 bytes, as A lies. Each box lands 128-byte swizzled, as wgmma reads
// it (`to` on a 1024-byte boundary), zeros past the matrix, and counts its bytes on `full`. One
// thread issues them; the operand needs its map (ts::hasTensorMap).
__device__ __forceinline__ void copyTileA(const Problem& p, unsigned char* to, int row, int k,
                                          Barrier& full) {
  detail::recordTileCopy(p, TileA, row, k, p.boxRowsA, 128 / (int)sizeof(Element), p.boxRowsA, to);
  detail::copyBox(to, p.tensorA, k, row, full);
}
namespace detail {
// B's boxes in a tile of `columns` columns of B: each boxColumns() wide, along n.
__device__ __forceinline__ int boxColumnsB(const Problem& p) {
  return TS_B_K_MAJOR ? p.boxRowsB : 128 / (int)sizeof(Element);
}
// Box `box` of B's tile from (k, col): where it lands and its coordinates in B's map (innermost
// first: k for a K-major B, n for a K x N one).
__device__ __forceinline__ int2 boxOfB(const Problem& p, int k, int col, int box) {
  const int n = col + box * boxColumnsB(p);
  return TS_B_K_MAJOR ? make_int2(k, n) : make_int2(n, k);
}
__device__ __forceinline__ void recordTileCopyB(const Problem& p, unsigned char* to, int k, int col,
                                                int columns) {
  if (TS_B_K_MAJOR)
    recordTileCopy(p, TileB, col, k, columns, 128 / (int)sizeof(Element), p.boxRowsB, to);
  else
    recordTileCopy(p, TileB, k, col, p.boxRowsB, columns, p.boxRowsB, to);
}
}  // namespace detail
__device__ __forceinline__ void copyTileB(const Problem& p, unsigned char* to, int k, int col,
                                          int columns, Barrier& full) {
  detail::recordTileCopyB(p, to, k, col, columns);
  for (int box = 0; box < columns / detail::boxColumnsB(p); ++box) {
    const int2 at = detail::boxOfB(p, k, col, box);
    detail::copyBox(to + box * p.boxRowsB * 128, p.tensorB, at.x, at.y, full);
  }
}
// ---- Thread-block clusters (TS_CLUSTER, sm_90) ----
// This block's rank in its cluster (0 .. clusterBlocks() - 1), and the cluster's blocks.
__device__ __forceinline__ int clusterRank() {
  unsigned rank = 0;
#if __CUDA_ARCH__ >= 900
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(rank));
#endif
  return (int)rank;
}
__device__ __forceinline__ int clusterBlocks() {
  unsigned blocks = 1;
#if __CUDA_ARCH__ >= 900
  asm volatile("mov.u32 %0, %%cluster_nctarank;\n" : "=r"(blocks));
#endif
  return (int)blocks;
}
// Every thread of every block of the cluster arrives, then waits for all: barriers one block
// initialised are ready for its partners, and no block leaves while a partner may still copy
// into its shared memory or arrive on its barriers.
__device__ __forceinline__ void syncCluster() {
#if __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;\n" ::: "memory");
#else
  __syncthreads();
#endif
}
// Arrives on the barrier at `barrier`'s offset in block `rank` of the cluster (this one too).
// It releases nothing at cluster scope: it says "my reads of the stage are done", which waiting
// for wgmma saw to.
__device__ __forceinline__ void arriveInCluster(Barrier& barrier, int rank) {
#if __CUDA_ARCH__ >= 900
  asm volatile(
      "{\n.reg .b32 remote;\nmapa.shared::cluster.u32 remote, %0, %1;\n"
      "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}\n" ::"r"(
          detail::sharedAddress(&barrier)),
      "r"(rank)
      : "memory");
#else
  __trap();  // clusters: sm_90
#endif
}
namespace detail {
// copyBox into the same offset of every block of the cluster, counted on each one's `full`.
__device__ __forceinline__ void copyBoxToCluster(void* to, const TensorMap& map, int col, int row,
                                                 Barrier& full) {
#if __CUDA_ARCH__ >= 900
  const unsigned short everyBlock = (unsigned short)((1u << clusterBlocks()) - 1);
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
      ".multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;\n" ::"r"(sharedAddress(to)),
      "l"(reinterpret_cast<unsigned long long>(&map)), "r"(col), "r"(row),
      "r"(sharedAddress(&full)), "h"(everyBlock)
      : "memory");
#else
  __trap();  // TMA multicast: sm_90
#endif
}
}  // namespace detail
// copyTileB shared by a cluster whose blocks all need the same tile of B: every block of the
// cluster calls it for the same k, col and columns, with `to` and `full` at the same offsets.
// Each issues its share of the boxes (copyTileB's, a multiple of the cluster's blocks), and the copy engine multicasts every box into every block, counting its bytes on
// each one's `full`: B's tile crosses L2 once per cluster, and each block's `full` expects the
// whole tile's bytes. The tracer draws the whole tile landing in this block's stage, as
// copyTileB's.
__device__ __forceinline__ void copyTileBAcrossCluster(const Problem& p, unsigned char* to, int k,
                                                       int col, int columns, Barrier& full) {
  detail::recordTileCopyB(p, to, k, col, columns);
  const int share = columns / detail::boxColumnsB(p) / clusterBlocks();
  const int first = clusterRank() * share;
  for (int box = first; box < first + share; ++box) {
    const int2 at = detail::boxOfB(p, k, col, box);
    detail::copyBoxToCluster(to + box * p.boxRowsB * 128, p.tensorB, at.x, at.y, full);
  }
}
// Register reallocation between warpgroups (setmaxnreg, sm_90a; the whole warpgroup executes it):
// a producer gives registers back, consumers take them. A multiple of 8 from 24 to 256; a
// block's threads together hold at most 64 K registers.
template <int kRegisters>
__device__ __forceinline__ void shrinkRegisters() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kRegisters));
#endif
}
template <int kRegisters>
__device__ __forceinline__ void growRegisters() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kRegisters));
#endif
}
}  // namespace ts
