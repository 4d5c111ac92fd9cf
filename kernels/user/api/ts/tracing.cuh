// ts/tracing.cuh: how a traced launch (compiled with TS_TRACE) records what the accessors do.
// The accessors of the later parts call detail::record; without TS_TRACE it records nothing.
// Relies on ts/problem.cuh in front of it (tilescope_api.cuh's order).
namespace ts {
namespace detail {
// Kinds: 0 a load of A[row][col], 1 of B[row][col]; 2 a read and 3 a write of shared word `col`
// (its byte address / 4) of tile `row` (plus 2: a read of tensor-core fragments); 3 with row
// kStoreRow + i a store of C[i][col]. `width`: the elements (words) the access took, 1, 2, 4, 8
// or 16. Packed as kind << 62 | log2(width) << 59 | row << 30 | col; an index outside its field's
// range (a load outside the matrix) lands outside the matrix too. recordAs records for `thread`
// (linear) of the block: the copy engine's work is drawn as threads', as it has none of its own.
// The block of the pictures this thread works for (linear): its own, or in a persistent kernel
// the tile it named last with ts::workOn (-1 before it named one).
__device__ __forceinline__ int drawnBlock(const Trace& t) {
  const int block = blockIdx.x + blockIdx.y * gridDim.x;
  if (!t.tileOf) return block;
  return t.tileOf[(long long)block * blockDim.x * blockDim.y + threadIdx.x +
                  threadIdx.y * blockDim.x];
}
__device__ __forceinline__ bool drawsTracedBlock(const Trace& t) {
  return drawnBlock(t) == t.blockX + t.blockY * t.gridX;
}
// The recording functions are called, not inlined: inlined at every access of an unrolled loop
// they made a traced compile 5 to 20 times slower than a plain one (12 s for pipelined), and a
// traced launch's speed does not matter.
__device__ __noinline__ void recordAs(const Problem& p, int thread, unsigned long long kind,
                                         int row, int col, int width = 1) {
#ifdef TS_TRACE
  const Trace& t = *p.trace;
  if (!drawsTracedBlock(t)) return;
  const int n = atomicAdd(&t.eventCounts[thread], 1);
  if (n < t.capacity)
    t.events[(long long)thread * t.capacity + n] =
        kind << 62 |
        (unsigned long long)(width == 16 ? 4
                             : width == 8 ? 3
                             : width == 4 ? 2
                             : width == 2 ? 1
                                          : 0)
            << 59 |
        ((unsigned long long)(unsigned)row & 0x1FFFFFFFull) << 30 |
        ((unsigned long long)(unsigned)col & 0x3FFFFFFFull);
#endif
}
__device__ __forceinline__ void record(const Problem& p, unsigned long long kind, int row,
                                       int col, int width = 1) {
  recordAs(p, threadIdx.x + threadIdx.y * blockDim.x, kind, row, col, width);
}
// The shared-memory address of `at` (a 32-bit offset in the block's shared window), and its word.
__device__ __forceinline__ unsigned sharedAddress(const void* at) {
  return (unsigned)__cvta_generic_to_shared(at);
}
__device__ __forceinline__ int sharedWord(const void* at) { return (int)(sharedAddress(at) / 4); }
// The CPU backend's sanitizer (TS_SANITIZE) checks each access of a staged tile for races and for
// reads of words no thread wrote; on the GPU it does nothing.
__device__ __forceinline__ void checkShared(const void* at, int bytes, bool write) {
#ifdef TS_SANITIZE
  host::checkShared(at, bytes, write);
#endif
}
__device__ __forceinline__ bool inside(int row, int col, int rows, int cols) {
  return (unsigned)row < (unsigned)rows && (unsigned)col < (unsigned)cols;
}
constexpr int kStoreRow = 1 << 28;
// A store of C[i][j .. j + width - 1]: the owners of what lies inside C, and for the recorded
// block the store itself, inside C or not (where its lane is idle), in program order.
__device__ __noinline__ void recordStore(const Problem& p, int i, int j, int width) {
#ifdef TS_TRACE
  const Trace& t = *p.trace;
  const int block = drawnBlock(t);
  if (inside(i, j, p.M, p.N))
    for (int c = 0; c < width; ++c) {
      t.ownerBlock[(long long)i * p.N + j + c] = block;
      t.ownerThread[(long long)i * p.N + j + c] = threadIdx.x + threadIdx.y * blockDim.x;
    }
  if (!drawsTracedBlock(t)) return;
  if (width > 1) atomicMax(t.storeWidth, width);
  record(p, 3, kStoreRow + (i < 0 ? p.M : i), j, width);  // a row above C is outside it too
#endif
}
}  // namespace detail
// A persistent kernel (TS_PERSISTENT) names the tile of C this thread works on from here on,
// before the tile's first access: the tracer draws the thread's loads, shared words and stores
// as that tile's (the pictures draw each tile as a block). Elsewhere it does nothing.
__device__ __forceinline__ void workOn(const Problem& p, int tileX, int tileY) {
#ifdef TS_TRACE
  const Trace& t = *p.trace;
  if (t.tileOf)
    t.tileOf[(long long)(blockIdx.x + blockIdx.y * gridDim.x) * blockDim.x * blockDim.y +
             threadIdx.x + threadIdx.y * blockDim.x] = tileX + tileY * t.gridX;
#endif
}
}  // namespace ts
