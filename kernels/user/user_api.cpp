// The user-kernel API header and the templates "New from..." starts from. Each template follows
// its catalogue kernel's Mapping (thread_map.hpp): the same launch, the same owner of every
// element of C, the same staged tiles.
#include "tilescope/user_kernel.hpp"

namespace tilescope {

const std::string& userApiHeader() {
  static const std::string header =
      R"api(// TileScope's user-kernel API, put in front of every user kernel.
namespace ts {
// Where a traced launch (compiled with TS_TRACE) records: for every element of C the block and
// thread that stored it, and what every thread of one block read and wrote, in program order.
struct Trace {
  int* ownerBlock;                 // per element of C: blockIdx.x + blockIdx.y * gridDim.x
  int* ownerThread;                // threadIdx.x + threadIdx.y * blockDim.x
  int blockX, blockY;              // the block whose accesses are recorded
  unsigned long long* events;      // `capacity` per thread, packed by detail::record
  int* eventCounts;                // per thread: its events, recorded or not
  int capacity;
  int* storeWidth;                 // the widest store of C the recorded block made
  // The grid the pictures draw is gridX blocks wide: the launch's, or in a persistent kernel
  // (TS_PERSISTENT) its tiles', where tileOf holds each launched thread's tile (ts::workOn).
  int gridX;
  int* tileOf;
};
// The 16-bit element types, as their bits (cuda_fp16.h and cuda_bf16.h are not needed):
// ts::toFloat reads one.
struct half {
  unsigned short bits;
};
struct bfloat16 {
  unsigned short bits;
};
// The type of A and B this variant is compiled for, one of those TS_TYPES lists: float for fp32
// and tf32 (floats the tensor cores read to 10 mantissa bits), ts::half for fp16, ts::bfloat16 for
// bf16. C is always float. TS_ELEMENT_BYTES is its size, for the preprocessor (#if).
#if defined(TS_FP16)
typedef half Element;
#define TS_ELEMENT_BYTES 2
#elif defined(TS_BF16)
typedef bfloat16 Element;
#define TS_ELEMENT_BYTES 2
#else
typedef float Element;
#define TS_ELEMENT_BYTES 4
#endif
__device__ __forceinline__ float toFloat(float value) { return value; }
__device__ __forceinline__ float toFloat(half value) {
  float out;
  asm("cvt.f32.f16 %0, %1;" : "=f"(out) : "h"(value.bits));
  return out;
}
__device__ __forceinline__ float toFloat(bfloat16 value) {
  return __uint_as_float((unsigned)value.bits << 16);
}
// A TMA tensor map (CUtensorMap): how the copy engine reads boxes of a matrix.
struct alignas(128) TensorMap {
  unsigned long long opaque[16];
};
// C = A B: A is M x K, B is K x N and C is M x N, all row-major.
struct Problem {
  int M, N, K;
  const Element* A;
  const Element* B;
  float* C;
  const Trace* trace;  // null but in a traced launch
  // Where the source declares TS_TENSOR_MAPS: bit 0 set when A has a tensor map, bit 1 when B
  // has (a row must be a multiple of 16 bytes); the boxes' rows; the maps themselves.
  int tensorMaps;
  int boxRowsA, boxRowsB;
  TensorMap tensorA, tensorB;
};
// The staged tiles the shared-memory accessors name.
enum Tile { TileA = 0, TileB = 1 };
namespace detail {
// Kinds: 0 a load of A[row][col], 1 of B[row][col]; 2 a read and 3 a write of shared word `col`
// (its byte address / 4) of tile `row` (plus 2: a read of tensor-core fragments); 3 with row
// kStoreRow + i a store of C[i][col]. `width`: the elements (words) the access took, 1, 2, 4 or
// 8. Packed as kind << 62 | log2(width) << 60 | row << 31 | col; an index outside its field's
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
__device__ __forceinline__ void recordAs(const Problem& p, int thread, unsigned long long kind,
                                         int row, int col, int width = 1) {
#ifdef TS_TRACE
  const Trace& t = *p.trace;
  if (!drawsTracedBlock(t)) return;
  const int n = atomicAdd(&t.eventCounts[thread], 1);
  if (n < t.capacity)
    t.events[(long long)thread * t.capacity + n] =
        kind << 62 |
        (unsigned long long)(width == 8 ? 3 : width == 4 ? 2 : width == 2 ? 1 : 0) << 60 |
        ((unsigned long long)(unsigned)row & 0x1FFFFFFFull) << 31 |
        ((unsigned long long)(unsigned)col & 0x7FFFFFFFull);
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
__device__ __forceinline__ bool inside(int row, int col, int rows, int cols) {
  return (unsigned)row < (unsigned)rows && (unsigned)col < (unsigned)cols;
}
constexpr int kStoreRow = 1 << 28;
// A store of C[i][j .. j + width - 1]: the owners of what lies inside C, and for the recorded
// block the store itself, inside C or not (where its lane is idle), in program order.
__device__ __forceinline__ void recordStore(const Problem& p, int i, int j, int width) {
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
// The accessors a traced launch records; plain pointer code on p.A, p.B and p.C works too.
// A load outside its matrix returns zero, and the tracer draws its lane idle in that instruction.
__device__ __forceinline__ Element loadA(const Problem& p, int i, int k) {
  detail::record(p, 0, i, k);
  return detail::inside(i, k, p.M, p.K) ? p.A[(long long)i * p.K + k] : Element{};
}
__device__ __forceinline__ Element loadB(const Problem& p, int k, int j) {
  detail::record(p, 1, k, j);
  return detail::inside(k, j, p.K, p.N) ? p.B[(long long)k * p.N + j] : Element{};
}
#if TS_ELEMENT_BYTES == 4
// Four consecutive elements as one 16-byte load (a float4), zeros outside the matrix. A float4
// needs a 16-byte aligned address: A[i][k..k+3] with K and k multiples of 4, B[k][j..j+3] with N
// and j multiples of 4. Elsewhere load the elements one by one. (fp32 and tf32 only.)
__device__ __forceinline__ float4 loadA4(const Problem& p, int i, int k) {
  detail::record(p, 0, i, k, 4);
  return detail::inside(i, k, p.M, p.K)
             ? *reinterpret_cast<const float4*>(p.A + (long long)i * p.K + k)
             : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
}
__device__ __forceinline__ float4 loadB4(const Problem& p, int k, int j) {
  detail::record(p, 1, k, j, 4);
  return detail::inside(k, j, p.K, p.N)
             ? *reinterpret_cast<const float4*>(p.B + (long long)k * p.N + j)
             : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
}
#endif
// A store outside C stores nothing, and the tracer draws its lane idle in that instruction: a
// kernel whose threads each store a fixed set of slots can store them all, at any size.
__device__ __forceinline__ void storeC(const Problem& p, int i, int j, float value) {
  detail::recordStore(p, i, j, 1);
  if (detail::inside(i, j, p.M, p.N)) p.C[(long long)i * p.N + j] = value;
}
// C[i][j], C[i][j+1] as one 8-byte store: N and j even. An explicit vector store: the compiler
// may split a plain float2 (or float4) assignment into 4-byte stores.
__device__ __forceinline__ void storeC2(const Problem& p, int i, int j, float2 value) {
  detail::recordStore(p, i, j, 2);
  if (detail::inside(i, j, p.M, p.N))
    __stwb(reinterpret_cast<float2*>(p.C + (long long)i * p.N + j), value);
}
// C[i][j..j+3] as one 16-byte store: N and j multiples of 4.
__device__ __forceinline__ void storeC4(const Problem& p, int i, int j, float4 value) {
  detail::recordStore(p, i, j, 4);
  if (detail::inside(i, j, p.M, p.N))
    __stwb(reinterpret_cast<float4*>(p.C + (long long)i * p.N + j), value);
}
// An element of a staged tile in shared memory (a float, or an Element), read or written: the
// bank view draws which banks a warp's reads and writes meet. Plain indexing works too, unseen
// by the tracer.
template <typename Word>
__device__ __forceinline__ Word readShared(const Problem& p, Tile tile, const Word& word) {
  static_assert(sizeof(Word) <= 4, "one element of at most 4 bytes: readShared4 reads 16");
#ifdef TS_TRACE
  detail::record(p, 2, tile, detail::sharedWord(&word));
#endif
  return word;
}
template <typename Word>
__device__ __forceinline__ void writeShared(const Problem& p, Tile tile, Word& word, Word value) {
  static_assert(sizeof(Word) <= 4, "one element of at most 4 bytes: writeShared4 writes 16");
#ifdef TS_TRACE
  detail::record(p, 3, tile, detail::sharedWord(&word));
#endif
  word = value;
}
// Four consecutive words from `first` on as one 16-byte access: `first` 16-byte aligned (a
// __shared__ __align__(16) array, at an index that is a multiple of 4).
__device__ __forceinline__ float4 readShared4(const Problem& p, Tile tile, const float& first) {
#ifdef TS_TRACE
  detail::record(p, 2, tile, detail::sharedWord(&first), 4);
#endif
  return *reinterpret_cast<const float4*>(&first);
}
__device__ __forceinline__ void writeShared4(const Problem& p, Tile tile, float& first,
                                             float4 value) {
#ifdef TS_TRACE
  detail::record(p, 3, tile, detail::sharedWord(&first), 4);
#endif
  *reinterpret_cast<float4*>(&first) = value;
}
namespace detail {
// cp.async of `kBytes` (4 or 16) from `from` into shared memory at `to`, zero-filled where
// `inside` is false (nothing is read then); before sm_80, a load and a store.
template <int kBytes>
__device__ __forceinline__ void copyAsync(void* to, const void* from, bool inside) {
#if __CUDA_ARCH__ >= 800
  const unsigned at = sharedAddress(to);
  if (kBytes == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(at), "l"(from),
                 "r"(inside ? 16 : 0)
                 : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(at), "l"(from),
                 "r"(inside ? 4 : 0)
                 : "memory");
#else
  if (kBytes == 16)
    *reinterpret_cast<uint4*>(to) =
        inside ? *reinterpret_cast<const uint4*>(from) : make_uint4(0, 0, 0, 0);
  else
    *reinterpret_cast<unsigned*>(to) = inside ? *reinterpret_cast<const unsigned*>(from) : 0u;
#endif
}
// One element from `from` (or zero) into `to`: cp.async for 4 bytes, a load and a store for 2
// (cp.async copies 4, 8 or 16).
__device__ __forceinline__ void copyElement(Element& to, const Element* from, bool inside) {
  if (sizeof(Element) == 4)
    copyAsync<4>(&to, from, inside);
  else
    to = inside ? *from : Element{};
}
}  // namespace detail
// The elements one 16-byte copy takes: 4 floats, or 8 fp16 or bf16 values.
constexpr int kCopyElements = 16 / (int)sizeof(Element);
// Copies straight from global into shared memory without passing through registers (cp.async,
// sm_80 and up): A[i][k] into `to`, B[k][j] into `to`, zeros outside the matrix; copyA16 and
// copyB16 take kCopyElements consecutive elements as 16 bytes (K, or N, and k, or j, multiples of
// kCopyElements). The tracer sees a load and a write of the tile. They land after
// ts::waitCopies: commit each k-step's copies as one group.
__device__ __forceinline__ void copyA(const Problem& p, Element& to, int i, int k) {
  detail::record(p, 0, i, k);
  detail::record(p, 3, TileA, detail::sharedWord(&to));
  const bool inside = detail::inside(i, k, p.M, p.K);
  detail::copyElement(to, inside ? p.A + (long long)i * p.K + k : p.A, inside);
}
__device__ __forceinline__ void copyB(const Problem& p, Element& to, int k, int j) {
  detail::record(p, 1, k, j);
  detail::record(p, 3, TileB, detail::sharedWord(&to));
  const bool inside = detail::inside(k, j, p.K, p.N);
  detail::copyElement(to, inside ? p.B + (long long)k * p.N + j : p.B, inside);
}
__device__ __forceinline__ void copyA16(const Problem& p, Element& to, int i, int k) {
  detail::record(p, 0, i, k, kCopyElements);
  detail::record(p, 3, TileA, detail::sharedWord(&to), 4);
  const bool inside = detail::inside(i, k, p.M, p.K);
  detail::copyAsync<16>(&to, inside ? p.A + (long long)i * p.K + k : p.A, inside);
}
__device__ __forceinline__ void copyB16(const Problem& p, Element& to, int k, int j) {
  detail::record(p, 1, k, j, kCopyElements);
  detail::record(p, 3, TileB, detail::sharedWord(&to), 4);
  const bool inside = detail::inside(k, j, p.K, p.N);
  detail::copyAsync<16>(&to, inside ? p.B + (long long)k * p.N + j : p.B, inside);
}
// Closes this thread's copies since the last commit into one group.
__device__ __forceinline__ void commitCopies() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
// Waits until at most `kPending` of this thread's groups are still on their way; a barrier
// after it makes every thread's landed copies visible to the block.
template <int kPending>
__device__ __forceinline__ void waitCopies() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
#endif
}
// ---- Tensor cores (mma.sync, sm_80 and up) ----
// One mma multiplies a 16 x kMmaK fragment of A by a kMmaK x 8 fragment of B into a 16 x 8
// float accumulator spread over the warp: lane 4g + q holds rows g and g + 8, columns 2q and
// 2q + 1 (d[0], d[1] on row g; d[2], d[3] on row g + 8). kMmaK is 32 bytes of the element type:
// 16 fp16 or bf16 values, 8 tf32.
constexpr int kMmaK = 32 / (int)sizeof(Element);
// Four 8 x 8 matrices of 16-bit elements from shared memory (ldmatrix.x4): lanes 8i .. 8i + 7
// each name one 16-byte row of matrix i (`row`, its first element); lane 4g + q receives row g,
// elements 2q and 2q + 1 of each matrix in to[i] (of each matrix transposed, in the Transposed
// form). The tracer sees each lane read 4 words of the tile, once per kMmaK values of k.
__device__ __forceinline__ void loadMatrices(const Problem& p, Tile tile, const Element& row,
                                             unsigned (&to)[4]) {
#ifdef TS_TRACE
  detail::record(p, 2, tile + 2, detail::sharedWord(&row), 4);
#endif
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(to[0]), "=r"(to[1]), "=r"(to[2]), "=r"(to[3])
               : "r"(detail::sharedAddress(&row)));
}
__device__ __forceinline__ void loadMatricesTransposed(const Problem& p, Tile tile,
                                                       const Element& row, unsigned (&to)[4]) {
#ifdef TS_TRACE
  detail::record(p, 2, tile + 2, detail::sharedWord(&row), 4);
#endif
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(to[0]), "=r"(to[1]), "=r"(to[2]), "=r"(to[3])
               : "r"(detail::sharedAddress(&row)));
}
// One register of a tf32 fragment: the bits of a float of the tile (tf32 has no ldmatrix). The
// tracer sees a one-word read, once per kMmaK values of k.
__device__ __forceinline__ unsigned readFragment(const Problem& p, Tile tile, const float& word) {
#ifdef TS_TRACE
  detail::record(p, 2, tile + 2, detail::sharedWord(&word));
#endif
  return __float_as_uint(word);
}
// d += a b on the tensor cores, for the element type compiled: a the A fragment (4 registers),
// b the B fragment (2), d the accumulator.
__device__ __forceinline__ void mma(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
#if __CUDA_ARCH__ >= 800
#if defined(TS_FP16)
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
#elif defined(TS_BF16)
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
#else
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
#endif
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
  __trap();  // these mma.sync shapes need sm_80
#endif
}
// ---- Hopper's warpgroup MMA (wgmma, sm_90a) ----
// A shared-memory matrix descriptor for wgmma: where the operand starts and the byte offsets
// between its 1024-byte atoms (8 rows of 128 bytes, 128-byte swizzled), leading and strided. A
// K-major operand (A) steps along its 8-row atoms by the stride; an N-major one (B) steps to the
// next 64 columns by the leading offset and to the next 8 rows of k by the stride.
__device__ __forceinline__ unsigned long long sharedDescriptor(const void* start, int leadingBytes,
                                                              int strideBytes) {
  return (unsigned long long)(detail::sharedAddress(start) >> 4 & 0x3FFF) |
         (unsigned long long)(leadingBytes >> 4 & 0x3FFF) << 16 |
         (unsigned long long)(strideBytes >> 4 & 0x3FFF) << 32 | 1ull << 62;
}
// The fences and waits around wgmma: before the first wgmma that reads registers others wrote,
// after a batch (commit), and until at most kPending batches of the warpgroup still run.
__device__ __forceinline__ void wgmmaFence() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#endif
}
__device__ __forceinline__ void wgmmaCommit() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#endif
}
template <int kPending>
__device__ __forceinline__ void wgmmaWait() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(kPending) : "memory");
#endif
}
// Shared memory written by threads (stores, cp.async) reaches wgmma (and TMA), which read through
// the async proxy, only after this fence.
__device__ __forceinline__ void fenceAsyncProxy() {
#if __CUDA_ARCH__ >= 900
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}
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
// warpgroup copying its 16-byte vectors, row by row: thread v % 128 the v-th.
__device__ __forceinline__ void recordTileCopy(const Problem& p, Tile tile, int row0, int col0,
                                               int rows, int cols, const unsigned char* to) {
#ifdef TS_TRACE
  const int first = (threadIdx.x + threadIdx.y * blockDim.x) / 128 * 128;
  const int elements = 16 / (int)sizeof(Element), perRow = cols / elements;
  for (int v = 0; v < rows * perRow; ++v) {
    const int r = v / perRow, c = v % perRow;
    const int row = row0 + r, col = col0 + c * elements;
    recordAs(p, first + v % 128, tile == TileA ? 0 : 1, row, col, elements);
    // Box c / 8 of the tile, row r of the box, chunk c % 8 of that row.
    recordAs(p, first + v % 128, 3, tile, swizzledWord(to + (c / 8 * rows + r) * 128 + c % 8 * 16),
             4);
  }
#endif
}
}  // namespace detail
// The copy engine fills a stage (sm_90): copyTileA copies A's rows row .. row + boxRowsA - 1,
// 128 bytes of k from k on, as one box into `to`; copyTileB copies B's rows k .. k + boxRowsB - 1,
// `columns` columns from col on, as columns / (128 bytes) boxes, box b at to + b * boxRowsB * 128.
// Each box lands 128-byte swizzled, as wgmma reads it (`to` on a 1024-byte boundary), zeros past
// the matrix, and counts its bytes on `full`. One thread issues them; the operand needs its map
// (ts::hasTensorMap).
__device__ __forceinline__ void copyTileA(const Problem& p, unsigned char* to, int row, int k,
                                          Barrier& full) {
  detail::recordTileCopy(p, TileA, row, k, p.boxRowsA, 128 / (int)sizeof(Element), to);
  detail::copyBox(to, p.tensorA, k, row, full);
}
__device__ __forceinline__ void copyTileB(const Problem& p, unsigned char* to, int k, int col,
                                          int columns, Barrier& full) {
  detail::recordTileCopy(p, TileB, k, col, p.boxRowsB, columns, to);
  constexpr int kBoxColumns = 128 / (int)sizeof(Element);
  for (int box = 0; box < columns / kBoxColumns; ++box)
    detail::copyBox(to + box * p.boxRowsB * 128, p.tensorB, col + box * kBoxColumns, k, full);
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
// Each issues its share of the boxes (columns / 64 elements, a multiple of the cluster's
// blocks), and the copy engine multicasts every box into every block, counting its bytes on
// each one's `full`: B's tile crosses L2 once per cluster, and each block's `full` expects the
// whole tile's bytes. The tracer draws the whole tile landing in this block's stage, as
// copyTileB's.
__device__ __forceinline__ void copyTileBAcrossCluster(const Problem& p, unsigned char* to, int k,
                                                       int col, int columns, Barrier& full) {
  detail::recordTileCopy(p, TileB, k, col, p.boxRowsB, columns, to);
  constexpr int kBoxColumns = 128 / (int)sizeof(Element);
  const int share = columns / kBoxColumns / clusterBlocks(), first = clusterRank() * share;
  for (int box = first; box < first + share; ++box)
    detail::copyBoxToCluster(to + box * p.boxRowsB * 128, p.tensorB, col + box * kBoxColumns, k,
                             full);
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
// One m64n128k16 wgmma of the warpgroup (its 128 threads together): d = a b (+ d where
// `accumulate`), A 64 x 16 K-major and B 16 x 128 N-major (rows of B contiguous), both read from
// shared memory through their descriptors. Register j of d is row 16 (warp % 4) + 8 (j % 4 / 2)
// + lane / 4 and column 8 (j / 4) + 2 (lane % 4) + j % 2 of the 64 x 128 tile. fp16 and bf16.
__device__ __forceinline__ void wgmma(float (&d)[64], unsigned long long a, unsigned long long b,
                                      bool accumulate) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL) && TS_ELEMENT_BYTES == 2
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
#if defined(TS_BF16)
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {"
#else
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {"
#endif
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
      "}, %64, %65, p, 1, 1, 0, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
        "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
        "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
        "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
        "+f"(d[63])
      : "l"(a), "l"(b), "r"((int)accumulate));
#else
  __trap();  // wgmma: sm_90a, fp16 or bf16
#endif
}
// One m64n128k8 tf32 wgmma of the warpgroup with A from registers: d = a b (+ d where
// `accumulate`). wgmma reads a tf32 operand from shared memory only K-major, so a kernel whose
// operand runs along n (row-major B) passes it through registers: `a` holds the thread's four
// words of the 64 x 8 A, rows g and g + 8 of the warp's 16 at k q, then at k q + 4 (g = lane / 4,
// q = lane % 4); B (8 x 128) is K-major in shared memory through its descriptor. d as in
// ts::wgmma. tf32 only.
__device__ __forceinline__ void wgmmaTf32(float (&d)[64], const unsigned (&a)[4],
                                          unsigned long long b, bool accumulate) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL) && TS_ELEMENT_BYTES == 4
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
      "}, {%64, %65, %66, %67}, %68, p, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
        "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
        "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
        "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
        "+f"(d[63])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"((int)accumulate));
#else
  __trap();  // wgmma: sm_90a, tf32
#endif
}
// Blocks needed to cover `n` with blocks of `b`.
__host__ __device__ constexpr int ceilDiv(int n, int b) { return (n + b - 1) / b; }
}  // namespace ts

// TS_PARAM(NAME, default, allowed...): a named parameter, a compile-time constant NAME in the
// source; TileScope compiles one variant per value it runs, sweeps and autotunes.
#define TS_PARAM(...)
// TS_TYPES(fp16, bf16, ...): the types of A and B the kernel multiplies (fp32, tf32, fp16, bf16),
// the first its default; without it, fp32 alone. Each variant is compiled for one, ts::Element.
#define TS_TYPES(...)
// TS_LAUNCH(blockX, blockY, gridX, gridY, sharedBytes): the launch, from M, N, K and the
// parameters; sharedBytes is the dynamic shared memory (0 for static __shared__ arrays only).
#define TS_LAUNCH(blockX, blockY, gridX, gridY, sharedBytes)                   \
  extern "C" __global__ void ts_launch(int M, int N, int K, int* ts_out) {     \
    ts_out[0] = (blockX);                                                      \
    ts_out[1] = (blockY);                                                      \
    ts_out[2] = (gridX);                                                       \
    ts_out[3] = (gridY);                                                       \
    ts_out[4] = (sharedBytes);                                                 \
  }
// TS_KSTEP(depth): how many values of k one pass of the kernel's k loop covers (its k-step, the
// depth of a staged tile), from M, N, K and the parameters. A traced launch groups each thread's
// loads by it; without it a k-step is one value of k.
#define TS_KSTEP(depth)                                                        \
  extern "C" __global__ void ts_kstep(int M, int N, int K, int* ts_out) {      \
    ts_out[0] = (depth);                                                       \
  }
// TS_TENSOR_MAPS(aBoxRows, bBoxRows): TileScope makes TMA tensor maps of A and B for each launch
// (ts::copyTileA, ts::copyTileB), in boxes of aBoxRows rows of A and of bBoxRows rows of B (1 to
// 256), each row 128 bytes wide, 128-byte swizzled.
#define TS_TENSOR_MAPS(aBoxRows, bBoxRows)                                     \
  extern "C" __global__ void ts_tensor_maps(int M, int N, int K, int* ts_out) {\
    ts_out[0] = (aBoxRows);                                                    \
    ts_out[1] = (bBoxRows);                                                    \
  }
// TS_CLUSTER(blocks): launches the grid in thread-block clusters of `blocks` x 1 (sm_90; 1 to
// 8, dividing gridX), which can share copies (ts::copyTileBAcrossCluster) and barriers
// (ts::arriveInCluster).
#define TS_CLUSTER(blocks)                                                     \
  extern "C" __global__ void ts_cluster(int M, int N, int K, int* ts_out) {    \
    ts_out[0] = (blocks);                                                      \
  }
// TS_PERSISTENT(tilesX, tilesY): a persistent kernel, whose blocks each work through tiles of C
// (a tilesX x tilesY grid of them) in an order of its own. TileScope launches no more of
// TS_LAUNCH's gridX blocks (gridY 1) than the GPU holds at once, in whole clusters, and no more
// than work them all in as many rounds: gridDim.x says how many. Each thread names its tile with
// ts::workOn, and the pictures draw a tile as a block.
#define TS_PERSISTENT(tilesX, tilesY)                                          \
  extern "C" __global__ void ts_persistent(int M, int N, int K, int* ts_out) { \
    ts_out[0] = (tilesX);                                                      \
    ts_out[1] = (tilesY);                                                      \
  }
// TS_KERNEL { ... }: the kernel, with the problem as `p`. TS_KERNEL_BOUNDED(maxThreads,
// minBlocks) { ... } adds __launch_bounds__: at most maxThreads threads a block, registers
// budgeted so that minBlocks blocks fit an SM.
#define TS_KERNEL extern "C" __global__ void ts_kernel(const __grid_constant__ ts::Problem p)
#define TS_KERNEL_BOUNDED(maxThreads, minBlocks)                                    \
  extern "C" __global__ void __launch_bounds__(maxThreads, minBlocks) ts_kernel( \
      const __grid_constant__ ts::Problem p)
)api";
  return header;
}

const std::vector<UserKernelTemplate>& userKernelTemplates() {
  static const std::vector<UserKernelTemplate> templates = {
      {"serial",
       R"cu(// serial (seed 002): one thread computes every element of C in turn, row by row. On a
// GPU it leaves all but one of thousands of cores idle: the baseline that shows why we
// parallelise at all. Keep it small: one thread takes seconds for 512^3.
TS_LAUNCH(1, 1, 1, 1, 0)

TS_KERNEL {
  for (int i = 0; i < p.M; ++i)
    for (int j = 0; j < p.N; ++j) {
      float sum = 0.0f;
      for (int k = 0; k < p.K; ++k) sum += ts::loadA(p, i, k) * ts::loadB(p, k, j);
      ts::storeC(p, i, j, sum);
    }
}
)cu"},
      {"row-per-thread",
       R"cu(// row-per-thread (seed 000a): each thread owns a row of C and walks along it, so a
// warp's 32 lanes read 32 different rows of A: 32 sectors per load. Block TILE x TILE.
TS_PARAM(TILE, 32, 1, 2, 4, 8, 16, 32)
TS_LAUNCH(TILE, TILE, ts::ceilDiv(M, TILE), 1, 0)

TS_KERNEL {
  const int i = blockIdx.x * TILE + threadIdx.x;
  if (i >= p.M) return;
  for (int j = threadIdx.y; j < p.N; j += TILE) {
    float sum = 0.0f;
    for (int k = 0; k < p.K; ++k) sum += ts::loadA(p, i, k) * ts::loadB(p, k, j);
    ts::storeC(p, i, j, sum);
  }
}
)cu"},
      {"naive",
       R"cu(// naive (seeds 001a, 003a): one thread per element of C. x runs along a row of C, so
// a warp reads consecutive floats of B (coalesced) and one float of A (a broadcast).
TS_PARAM(TILE, 16, 1, 2, 4, 8, 16, 32)
TS_LAUNCH(TILE, TILE, ts::ceilDiv(N, TILE), ts::ceilDiv(M, TILE), 0)

TS_KERNEL {
  const int i = blockIdx.y * TILE + threadIdx.y;
  const int j = blockIdx.x * TILE + threadIdx.x;
  if (i >= p.M || j >= p.N) return;
  float sum = 0.0f;
  for (int k = 0; k < p.K; ++k) sum += ts::loadA(p, i, k) * ts::loadB(p, k, j);
  ts::storeC(p, i, j, sum);
}
)cu"},
      {"shared-a",
       R"cu(// shared-a (seed 001b): the naive mapping, but each k-step the block first stages a
// TILE x TILE tile of A in shared memory; B is still read from global memory, one
// float per multiply-add. Thread (x, y) stores A[i][k0 + x] and reads row y back.
// ts::writeShared and ts::readShared show the tracer the tile's words.
TS_PARAM(TILE, 16, 1, 2, 4, 8, 16, 32)
TS_LAUNCH(TILE, TILE, ts::ceilDiv(N, TILE), ts::ceilDiv(M, TILE), 0)
TS_KSTEP(TILE)

TS_KERNEL {
  __shared__ float a[TILE][TILE];
  const int ty = threadIdx.y, tx = threadIdx.x;
  const int i = blockIdx.y * TILE + ty;
  const int j = blockIdx.x * TILE + tx;
  float sum = 0.0f;
  for (int k0 = 0; k0 < p.K; k0 += TILE) {
    // Outside the matrix the tile holds zeros, so every thread reaches both barriers.
    ts::writeShared(p, ts::TileA, a[ty][tx],
                    i < p.M && k0 + tx < p.K ? ts::loadA(p, i, k0 + tx) : 0.0f);
    __syncthreads();
    // Every thread reads the whole tile; only those inside C read B, only inside K.
    for (int kk = 0; kk < TILE; ++kk) {
      const float aValue = ts::readShared(p, ts::TileA, a[ty][kk]);
      if (i < p.M && j < p.N && k0 + kk < p.K) sum += aValue * ts::loadB(p, k0 + kk, j);
    }
    __syncthreads();
  }
  if (i < p.M && j < p.N) ts::storeC(p, i, j, sum);
}
)cu"},
      {"shared-tiled",
       R"cu(// shared-tiled (seed 004-3): each k-step the block stages a TILE x TILE tile of A and
// one of B in shared memory, waits at a barrier, and multiplies from there. A warp
// writes and reads rows of the tiles, so its lanes never meet in one bank. Try this:
// store A transposed (write a[tx][ty], read a[kk][ty]) and a warp writes a column,
// TILE words apart: at TILE = 32 all 32 lanes in one bank. PAD words at the end of
// each row move the column across the banks.
TS_PARAM(TILE, 16, 1, 2, 4, 8, 16, 32)
TS_PARAM(PAD, 0, 0, 1)
TS_LAUNCH(TILE, TILE, ts::ceilDiv(N, TILE), ts::ceilDiv(M, TILE), 0)
TS_KSTEP(TILE)

TS_KERNEL {
  __shared__ float a[TILE][TILE + PAD];
  __shared__ float b[TILE][TILE + PAD];
  const int ty = threadIdx.y, tx = threadIdx.x;
  const int i = blockIdx.y * TILE + ty;
  const int j = blockIdx.x * TILE + tx;
  float sum = 0.0f;
  for (int k0 = 0; k0 < p.K; k0 += TILE) {
    // Outside the matrix a tile holds zeros, so every thread reaches both barriers.
    ts::writeShared(p, ts::TileA, a[ty][tx],
                    i < p.M && k0 + tx < p.K ? ts::loadA(p, i, k0 + tx) : 0.0f);
    ts::writeShared(p, ts::TileB, b[ty][tx],
                    k0 + ty < p.K && j < p.N ? ts::loadB(p, k0 + ty, j) : 0.0f);
    __syncthreads();
    for (int kk = 0; kk < TILE; ++kk)
      sum += ts::readShared(p, ts::TileA, a[ty][kk]) * ts::readShared(p, ts::TileB, b[kk][tx]);
    __syncthreads();
  }
  if (i < p.M && j < p.N) ts::storeC(p, i, j, sum);
}
)cu"},
      {"register-tiled",
       R"cu(// register-tiled (seed 004-2): blocks of 16 x 16 threads, each accumulating a
// TILE x TILE block of C in registers: per k it reads TILE values of A's column k
// and TILE of B's row k for TILE * TILE multiply-adds. Past TILE = 16 the
// accumulators no longer fit in registers and spill to local memory.
TS_PARAM(TILE, 8, 1, 2, 4, 8, 16, 32, 64)
TS_LAUNCH(16, 16, ts::ceilDiv(N, 16 * TILE), ts::ceilDiv(M, 16 * TILE), 0)

TS_KERNEL {
  const int row0 = (blockIdx.y * 16 + threadIdx.y) * TILE;
  const int col0 = (blockIdx.x * 16 + threadIdx.x) * TILE;
  float sum[TILE][TILE] = {};
  for (int k = 0; k < p.K; ++k) {
    float a[TILE], b[TILE];
#pragma unroll
    for (int r = 0; r < TILE; ++r) a[r] = row0 + r < p.M ? ts::loadA(p, row0 + r, k) : 0.0f;
#pragma unroll
    for (int c = 0; c < TILE; ++c) b[c] = col0 + c < p.N ? ts::loadB(p, k, col0 + c) : 0.0f;
#pragma unroll
    for (int r = 0; r < TILE; ++r)
#pragma unroll
      for (int c = 0; c < TILE; ++c) sum[r][c] += a[r] * b[c];
  }
#pragma unroll
  for (int r = 0; r < TILE; ++r)
#pragma unroll
    for (int c = 0; c < TILE; ++c)
      if (row0 + r < p.M && col0 + c < p.N) ts::storeC(p, row0 + r, col0 + c, sum[r][c]);
}
)cu"},
      {"blocktile-1d",
       R"cu(// blocktile-1d (siboehm's kernel 4): BM x BN block tiles computed by BM*BN/TM threads;
// thread t computes TM outputs down column t % BN, from row (t / BN) * TM. Each k-step
// the block copies a BM x BK tile of A and a BK x BN tile of B into shared memory (copy i
// of thread t takes element t + i * threads of the tile, row by row); per inner index a
// thread reads one value of B and reuses it for TM multiply-adds.
TS_PARAM(BM, 64, 64, 128)
TS_PARAM(BN, 64, 64, 128)
TS_PARAM(BK, 8, 8, 16)
TS_PARAM(TM, 16, 4, 8, 16)
TS_LAUNCH(BM * BN / TM, 1, ts::ceilDiv(N, BN), ts::ceilDiv(M, BM), 0)
TS_KSTEP(BK)

TS_KERNEL {
  constexpr int kThreads = BM * BN / TM;
  static_assert(kThreads % 32 == 0 && kThreads <= 1024,
                "BM * BN / TM threads must be whole warps, at most 1024");
  static_assert(BM * BK % kThreads == 0 && BK * BN % kThreads == 0,
                "every thread must copy as many elements of each tile");
  __shared__ float a[BM][BK];
  __shared__ float b[BK][BN];
  const int t = threadIdx.x;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const int col = t % BN, firstRow = t / BN * TM;
  float sum[TM] = {};
  for (int k0 = 0; k0 < p.K; k0 += BK) {
    // Outside the matrix the tiles hold zeros, so every thread reaches both barriers.
    for (int e = t; e < BM * BK; e += kThreads) {
      const int r = e / BK, c = e % BK;
      ts::writeShared(p, ts::TileA, a[r][c],
                      row0 + r < p.M && k0 + c < p.K ? ts::loadA(p, row0 + r, k0 + c) : 0.0f);
    }
    for (int e = t; e < BK * BN; e += kThreads) {
      const int r = e / BN, c = e % BN;
      ts::writeShared(p, ts::TileB, b[r][c],
                      k0 + r < p.K && col0 + c < p.N ? ts::loadB(p, k0 + r, col0 + c) : 0.0f);
    }
    __syncthreads();
    for (int kk = 0; kk < BK; ++kk) {
      const float bValue = ts::readShared(p, ts::TileB, b[kk][col]);
#pragma unroll
      for (int r = 0; r < TM; ++r)
        sum[r] += ts::readShared(p, ts::TileA, a[firstRow + r][kk]) * bValue;
    }
    __syncthreads();
  }
#pragma unroll
  for (int r = 0; r < TM; ++r) {
    const int i = row0 + firstRow + r, j = col0 + col;
    if (i < p.M && j < p.N) ts::storeC(p, i, j, sum[r]);
  }
}
)cu"},
      {"blocktile-2d",
       R"cu(// blocktile-2d (siboehm's kernel 5): (BM/TM) x (BN/TN) threads, thread t owning the
// TM x TN outputs from row (t / (BN/TN)) * TM, column (t % (BN/TN)) * TN of the block tile.
// Per inner index it reads TM values of A and TN of B from shared memory for TM * TN
// multiply-adds. The tiles sit as in global memory, so the lanes reading A meet in few
// banks: the conflicts the next rung (vectorized: A transposed and padded) removes.
TS_PARAM(BM, 64, 64, 128)
TS_PARAM(BN, 128, 64, 128)
TS_PARAM(BK, 8, 8, 16)
TS_PARAM(TM, 8, 4, 8)
TS_PARAM(TN, 4, 4, 8)
TS_LAUNCH(BM / TM * (BN / TN), 1, ts::ceilDiv(N, BN), ts::ceilDiv(M, BM), 0)
TS_KSTEP(BK)

TS_KERNEL {
  constexpr int kAlongN = BN / TN, kThreads = BM / TM * kAlongN;
  static_assert(kThreads % 32 == 0 && kThreads <= 1024,
                "(BM / TM) * (BN / TN) threads must be whole warps, at most 1024");
  static_assert(BM * BK % kThreads == 0 && BK * BN % kThreads == 0,
                "every thread must copy as many elements of each tile");
  __shared__ float a[BM][BK];
  __shared__ float b[BK][BN];
  const int t = threadIdx.x;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const int firstRow = t / kAlongN * TM, firstCol = t % kAlongN * TN;
  float sum[TM][TN] = {};
  for (int k0 = 0; k0 < p.K; k0 += BK) {
    // Outside the matrix the tiles hold zeros, so every thread reaches both barriers.
    for (int e = t; e < BM * BK; e += kThreads) {
      const int r = e / BK, c = e % BK;
      ts::writeShared(p, ts::TileA, a[r][c],
                      row0 + r < p.M && k0 + c < p.K ? ts::loadA(p, row0 + r, k0 + c) : 0.0f);
    }
    for (int e = t; e < BK * BN; e += kThreads) {
      const int r = e / BN, c = e % BN;
      ts::writeShared(p, ts::TileB, b[r][c],
                      k0 + r < p.K && col0 + c < p.N ? ts::loadB(p, k0 + r, col0 + c) : 0.0f);
    }
    __syncthreads();
    for (int kk = 0; kk < BK; ++kk) {
      float aValues[TM], bValues[TN];
#pragma unroll
      for (int r = 0; r < TM; ++r) aValues[r] = ts::readShared(p, ts::TileA, a[firstRow + r][kk]);
#pragma unroll
      for (int c = 0; c < TN; ++c) bValues[c] = ts::readShared(p, ts::TileB, b[kk][firstCol + c]);
#pragma unroll
      for (int r = 0; r < TM; ++r)
#pragma unroll
        for (int c = 0; c < TN; ++c) sum[r][c] += aValues[r] * bValues[c];
    }
    __syncthreads();
  }
#pragma unroll
  for (int r = 0; r < TM; ++r)
#pragma unroll
    for (int c = 0; c < TN; ++c) {
      const int i = row0 + firstRow + r, j = col0 + firstCol + c;
      if (i < p.M && j < p.N) ts::storeC(p, i, j, sum[r][c]);
    }
}
)cu"},
      {"vectorized",
       R"cu(// vectorized (siboehm's kernel 6, with kernel 8's padding): blocktile-2d's thread grid,
// but every copy from global memory is one float4 (a quarter of the instructions), and A
// is stored transposed, each row padded by PAD words: a thread's TM values of A become
// consecutive words, read as float4s like its TN values of B. Where K (or N) is no
// multiple of 4 the rows are not 16-byte aligned and the copies take one element at a
// time. Try this: PAD = 0, and the transposing stores of A meet in few banks.
TS_PARAM(BM, 64, 64, 128)
TS_PARAM(BN, 128, 64, 128)
TS_PARAM(BK, 16, 8, 16)
TS_PARAM(TM, 8, 4, 8)
TS_PARAM(TN, 4, 4, 8)
TS_PARAM(PAD, 4, 0, 4)
TS_LAUNCH(BM / TM * (BN / TN), 1, ts::ceilDiv(N, BN), ts::ceilDiv(M, BM), 0)
TS_KSTEP(BK)

TS_KERNEL {
  constexpr int kAlongN = BN / TN, kThreads = BM / TM * kAlongN;
  static_assert(kThreads % 32 == 0 && kThreads <= 1024,
                "(BM / TM) * (BN / TN) threads must be whole warps, at most 1024");
  static_assert(BM * BK / 4 % kThreads == 0 && BK * BN / 4 % kThreads == 0 &&
                    BM * BK / 4 >= kThreads && BK * BN / 4 >= kThreads,
                "every thread must copy as many float4s of each tile");
  __shared__ __align__(16) float a[BK][BM + PAD];  // transposed: a[k][m]
  __shared__ __align__(16) float b[BK][BN];
  const int t = threadIdx.x;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const int firstRow = t / kAlongN * TM, firstCol = t % kAlongN * TN;
  const bool aVectors = p.K % 4 == 0, bVectors = p.N % 4 == 0;  // rows 16-byte aligned
  float sum[TM][TN] = {};
  for (int k0 = 0; k0 < p.K; k0 += BK) {
    // Copy e of thread t takes float4 t + e * threads of the tile, row by row. Past the
    // matrix the accessors return zeros, so every thread reaches both barriers.
    for (int e = t; e < BM * BK / 4; e += kThreads) {
      const int r = e / (BK / 4), c = e % (BK / 4) * 4;
      float v[4];
      if (aVectors) {
        const float4 four = ts::loadA4(p, row0 + r, k0 + c);
        v[0] = four.x, v[1] = four.y, v[2] = four.z, v[3] = four.w;
      } else {
        for (int x = 0; x < 4; ++x) v[x] = ts::loadA(p, row0 + r, k0 + c + x);
      }
      for (int x = 0; x < 4; ++x) ts::writeShared(p, ts::TileA, a[c + x][r], v[x]);
    }
    for (int e = t; e < BK * BN / 4; e += kThreads) {
      const int r = e / (BN / 4), c = e % (BN / 4) * 4;
      float4 four;
      if (bVectors) {
        four = ts::loadB4(p, k0 + r, col0 + c);
      } else {
        float v[4];
        for (int x = 0; x < 4; ++x) v[x] = ts::loadB(p, k0 + r, col0 + c + x);
        four = make_float4(v[0], v[1], v[2], v[3]);
      }
      ts::writeShared4(p, ts::TileB, b[r][c], four);
    }
    __syncthreads();
    for (int kk = 0; kk < BK; ++kk) {
      float aValues[TM], bValues[TN];
#pragma unroll
      for (int r = 0; r < TM; r += 4) {
        const float4 four = ts::readShared4(p, ts::TileA, a[kk][firstRow + r]);
        aValues[r] = four.x, aValues[r + 1] = four.y, aValues[r + 2] = four.z;
        aValues[r + 3] = four.w;
      }
#pragma unroll
      for (int c = 0; c < TN; c += 4) {
        const float4 four = ts::readShared4(p, ts::TileB, b[kk][firstCol + c]);
        bValues[c] = four.x, bValues[c + 1] = four.y, bValues[c + 2] = four.z;
        bValues[c + 3] = four.w;
      }
#pragma unroll
      for (int r = 0; r < TM; ++r)
#pragma unroll
        for (int c = 0; c < TN; ++c) sum[r][c] += aValues[r] * bValues[c];
    }
    __syncthreads();
  }
  // float4 stores where C's rows are 16-byte aligned, else one element at a time.
#pragma unroll
  for (int r = 0; r < TM; ++r) {
    const int i = row0 + firstRow + r;
#pragma unroll
    for (int c = 0; c < TN; c += 4) {
      const int j = col0 + firstCol + c;
      if (i >= p.M || j >= p.N) continue;
      if (bVectors) {
        ts::storeC4(p, i, j, make_float4(sum[r][c], sum[r][c + 1], sum[r][c + 2], sum[r][c + 3]));
      } else {
        for (int x = 0; x < 4 && j + x < p.N; ++x) ts::storeC(p, i, j + x, sum[r][c + x]);
      }
    }
  }
}
)cu"},
      {"warptile",
       R"cu(// warptile (siboehm's kernel 10; the lane layout of CUTLASS's SIMT GEMM): vectorized's
// float4 copies and padded transposed A tile, but the block tile is cut into WM x WN warp
// tiles, warp w taking row w / (BN / WN) and column w % (BN / WN) of them. Inside one the
// 32 lanes form a 4 x 8 grid of TM x TN pieces that repeats (WM / 4TM) x (WN / 8TN) times,
// so a warp reads only its own strip of the tiles, and with TN = 4 eight lanes read one
// 128-byte row of B: no bank conflicts.
TS_PARAM(BM, 128, 64, 128)
TS_PARAM(BN, 128, 64, 128, 256)
TS_PARAM(BK, 16, 8, 16)
TS_PARAM(WM, 32, 32, 64)
TS_PARAM(WN, 64, 32, 64)
TS_PARAM(TM, 8, 4, 8)
TS_PARAM(TN, 4, 4, 8)
TS_LAUNCH(BM / WM * (BN / WN) * 32, 1, ts::ceilDiv(N, BN), ts::ceilDiv(M, BM), 0)
TS_KSTEP(BK)

TS_KERNEL {
  constexpr int kWarpsAlongN = BN / WN, kThreads = BM / WM * kWarpsAlongN * 32;
  constexpr int kSubM = 4 * TM, kSubN = 8 * TN;  // what the 4 x 8 lanes cover at once
  constexpr int kRows = WM / kSubM * TM, kCols = WN / kSubN * TN;  // a thread's outputs
  static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles must divide the block tile");
  static_assert(kThreads >= 128 && kThreads <= 256, "a block must have 4 to 8 warps");
  static_assert(WM % kSubM == 0 && WN % kSubN == 0,
                "a warp tile must be whole 4 x 8 grids of TM x TN pieces");
  static_assert(BM * BK / 4 % kThreads == 0 && BK * BN / 4 % kThreads == 0 &&
                    BM * BK / 4 >= kThreads && BK * BN / 4 >= kThreads,
                "every thread must copy as many float4s of each tile");
  __shared__ __align__(16) float a[BK][BM + 4];  // transposed: a[k][m]
  __shared__ __align__(16) float b[BK][BN];
  const int t = threadIdx.x, warp = t / 32, lane = t % 32;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  // The thread's r-th row and c-th column of the block tile.
  const int warpRow = warp / kWarpsAlongN * WM + lane / 8 * TM;
  const int warpCol = warp % kWarpsAlongN * WN + lane % 8 * TN;
  const auto rowOf = [&](int r) { return warpRow + r / TM * kSubM + r % TM; };
  const auto colOf = [&](int c) { return warpCol + c / TN * kSubN + c % TN; };
  const bool aVectors = p.K % 4 == 0, bVectors = p.N % 4 == 0;  // rows 16-byte aligned
  float sum[kRows][kCols] = {};
  for (int k0 = 0; k0 < p.K; k0 += BK) {
    // Copy e of thread t takes float4 t + e * threads of the tile, row by row. Past the
    // matrix the accessors return zeros, so every thread reaches both barriers.
    for (int e = t; e < BM * BK / 4; e += kThreads) {
      const int r = e / (BK / 4), c = e % (BK / 4) * 4;
      float v[4];
      if (aVectors) {
        const float4 four = ts::loadA4(p, row0 + r, k0 + c);
        v[0] = four.x, v[1] = four.y, v[2] = four.z, v[3] = four.w;
      } else {
        for (int x = 0; x < 4; ++x) v[x] = ts::loadA(p, row0 + r, k0 + c + x);
      }
      for (int x = 0; x < 4; ++x) ts::writeShared(p, ts::TileA, a[c + x][r], v[x]);
    }
    for (int e = t; e < BK * BN / 4; e += kThreads) {
      const int r = e / (BN / 4), c = e % (BN / 4) * 4;
      float4 four;
      if (bVectors) {
        four = ts::loadB4(p, k0 + r, col0 + c);
      } else {
        float v[4];
        for (int x = 0; x < 4; ++x) v[x] = ts::loadB(p, k0 + r, col0 + c + x);
        four = make_float4(v[0], v[1], v[2], v[3]);
      }
      ts::writeShared4(p, ts::TileB, b[r][c], four);
    }
    __syncthreads();
    for (int kk = 0; kk < BK; ++kk) {
      float aValues[kRows], bValues[kCols];
#pragma unroll
      for (int r = 0; r < kRows; r += 4) {
        const float4 four = ts::readShared4(p, ts::TileA, a[kk][rowOf(r)]);
        aValues[r] = four.x, aValues[r + 1] = four.y, aValues[r + 2] = four.z;
        aValues[r + 3] = four.w;
      }
#pragma unroll
      for (int c = 0; c < kCols; c += 4) {
        const float4 four = ts::readShared4(p, ts::TileB, b[kk][colOf(c)]);
        bValues[c] = four.x, bValues[c + 1] = four.y, bValues[c + 2] = four.z;
        bValues[c + 3] = four.w;
      }
#pragma unroll
      for (int r = 0; r < kRows; ++r)
#pragma unroll
        for (int c = 0; c < kCols; ++c) sum[r][c] += aValues[r] * bValues[c];
    }
    __syncthreads();
  }
  // One float at a time: a float4 store takes four consecutive registers, and with this many
  // accumulators ptxas then needs more registers (the catalogue's warptile: 163 instead of 127,
  // one block per SM instead of two, 1.8x slower).
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    const int i = row0 + rowOf(r);
#pragma unroll
    for (int c = 0; c < kCols; ++c) {
      const int j = col0 + colOf(c);
      if (i < p.M && j < p.N) ts::storeC(p, i, j, sum[r][c]);
    }
  }
}
)cu"},
      {"pipelined",
       R"cu(// pipelined (siboehm's kernel 11; CUTLASS's multistage GEMM): warptile's warp grid with
// `stages` shared buffers filled by cp.async, which copies global memory straight into shared
// memory without holding registers. While the block multiplies k-step s, the copies of
// k-steps s + 1 .. s + stages - 1 are on their way, so memory latency hides behind the
// multiply-adds and one barrier per k-step suffices. A lands transposed, so it is copied
// one 4-byte element at a time; B in 16-byte copies where N is a multiple of 4.
TS_PARAM(BM, 128, 64, 128)
TS_PARAM(BN, 256, 128, 256)
TS_PARAM(BK, 32, 16, 32)
TS_PARAM(WM, 64, 32, 64)
TS_PARAM(WN, 64, 32, 64)
TS_PARAM(stages, 2, 2, 3, 4)
TS_LAUNCH(BM / WM * (BN / WN) * 32, 1, ts::ceilDiv(N, BN), ts::ceilDiv(M, BM),
          stages * (BK * (BM + 4) + BK * BN) * 4)
TS_KSTEP(BK)

TS_KERNEL {
  constexpr int TM = 8, TN = 4;  // a lane's piece of the 4 x 8 lane grid
  constexpr int kWarpsAlongN = BN / WN, kThreads = BM / WM * kWarpsAlongN * 32;
  constexpr int kSubM = 4 * TM, kSubN = 8 * TN;
  constexpr int kRows = WM / kSubM * TM, kCols = WN / kSubN * TN;  // a thread's outputs
  constexpr int kACopies = BM * BK / 4 / kThreads, kBCopies = BK * BN / 4 / kThreads;
  constexpr int kAWords = BK * (BM + 4), kStageWords = kAWords + BK * BN;
  static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles must divide the block tile");
  static_assert(kThreads >= 128 && kThreads <= 256, "a block must have 4 to 8 warps");
  static_assert(WM % kSubM == 0 && WN % kSubN == 0,
                "a warp tile must be whole 4 x 8 grids of 8 x 4 pieces");
  static_assert(kACopies >= 1 && kACopies * kThreads * 4 == BM * BK && kBCopies >= 1 &&
                    kBCopies * kThreads * 4 == BK * BN,
                "every thread must copy as many float4s of each tile");
  extern __shared__ __align__(16) float shared[];  // stages stages: A transposed, then B
  const int t = threadIdx.x, warp = t / 32, lane = t % 32;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const int warpRow = warp / kWarpsAlongN * WM + lane / 8 * TM;
  const int warpCol = warp % kWarpsAlongN * WN + lane % 8 * TN;
  const auto rowOf = [&](int r) { return warpRow + r / TM * kSubM + r % TM; };
  const auto colOf = [&](int c) { return warpCol + c / TN * kSubN + c % TN; };
  const bool bVectors = p.N % 4 == 0;  // B's rows 16-byte aligned
  const auto stageOf = [&](int s) { return shared + s % stages * kStageWords; };
  // Starts k-step s's copies: copy e of thread t takes the four elements t + e * threads of
  // each tile, row by row. Past the matrix a copy reads nothing and fills zeros.
  const auto copy = [&](int s) {
    float* stage = stageOf(s);
    const int k0 = s * BK;
#pragma unroll
    for (int e = 0; e < kACopies; ++e) {
      const int at = t + e * kThreads, r = at / (BK / 4), c = at % (BK / 4) * 4;
      for (int x = 0; x < 4; ++x) ts::copyA(p, stage[(c + x) * (BM + 4) + r], row0 + r, k0 + c + x);
    }
#pragma unroll
    for (int e = 0; e < kBCopies; ++e) {
      const int at = t + e * kThreads, r = at / (BN / 4), c = at % (BN / 4) * 4;
      float& to = stage[kAWords + r * BN + c];
      if (bVectors) {
        ts::copyB16(p, to, k0 + r, col0 + c);
      } else {
        for (int x = 0; x < 4; ++x) ts::copyB(p, (&to)[x], k0 + r, col0 + c + x);
      }
    }
  };
  float sum[kRows][kCols] = {};
  const int steps = ts::ceilDiv(p.K, BK);
  for (int s = 0; s < stages - 1; ++s) {
    if (s < steps) copy(s);
    ts::commitCopies();  // a group each, empty or not, so the count of groups stays exact
  }
  for (int s = 0; s < steps; ++s) {
    ts::waitCopies<stages - 2>();  // this thread's copies of k-step s have landed
    __syncthreads();  // everyone's have, and the stage k-step s - 1 used is free
    if (s + stages - 1 < steps) copy(s + stages - 1);
    ts::commitCopies();
    const float* stage = stageOf(s);
    for (int kk = 0; kk < BK; ++kk) {
      float aValues[kRows], bValues[kCols];
#pragma unroll
      for (int r = 0; r < kRows; r += 4) {
        const float4 four = ts::readShared4(p, ts::TileA, stage[kk * (BM + 4) + rowOf(r)]);
        aValues[r] = four.x, aValues[r + 1] = four.y, aValues[r + 2] = four.z;
        aValues[r + 3] = four.w;
      }
#pragma unroll
      for (int c = 0; c < kCols; c += 4) {
        const float4 four = ts::readShared4(p, ts::TileB, stage[kAWords + kk * BN + colOf(c)]);
        bValues[c] = four.x, bValues[c + 1] = four.y, bValues[c + 2] = four.z;
        bValues[c + 3] = four.w;
      }
#pragma unroll
      for (int r = 0; r < kRows; ++r)
#pragma unroll
        for (int c = 0; c < kCols; ++c) sum[r][c] += aValues[r] * bValues[c];
    }
  }
  // One float at a time: a float4 store takes four consecutive registers, and with this many
  // accumulators ptxas then needs more registers (the catalogue's warptile: 163 instead of 127,
  // one block per SM instead of two, 1.8x slower).
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    const int i = row0 + rowOf(r);
#pragma unroll
    for (int c = 0; c < kCols; ++c) {
      const int j = col0 + colOf(c);
      if (i < p.M && j < p.N) ts::storeC(p, i, j, sum[r][c]);
    }
  }
}
)cu"},
      {"prefetched",
       R"cu(// prefetched (CUTLASS's SIMT GEMM; Liu-xiandong's sgemm_v3): warptile's warp grid with
// 4 x 4 lane pieces, so every shared read is a float4, and two shared stages. While the
// block multiplies k-step s from one stage, each thread loads its share of k-step s + 1
// from global memory into registers, then stores it into the other stage: the loads'
// latency hides behind the multiply-adds, and one barrier per k-step suffices. Both
// operands take the float4 path or neither (the catalogue kernel compiles one of each).
TS_PARAM(BM, 128, 64, 128, 256)
TS_PARAM(BN, 128, 64, 128, 256)
TS_PARAM(BK, 8, 8, 16)
TS_PARAM(WM, 32, 32, 64)
TS_PARAM(WN, 64, 32, 64)
TS_LAUNCH(BM / WM * (BN / WN) * 32, 1, ts::ceilDiv(N, BN), ts::ceilDiv(M, BM),
          2 * (BK * (BM + 4) + BK * BN) * 4)
TS_KSTEP(BK)

TS_KERNEL {
  constexpr int kWarpsAlongN = BN / WN, kThreads = BM / WM * kWarpsAlongN * 32;
  constexpr int kRows = WM / 16 * 4, kCols = WN / 32 * 4;  // a thread's outputs
  constexpr int kACopies = BM * BK / 4 / kThreads, kBCopies = BK * BN / 4 / kThreads;
  constexpr int kAWords = BK * (BM + 4), kStageWords = kAWords + BK * BN;
  static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles must divide the block tile");
  static_assert(kThreads >= 128 && kThreads <= 256, "a block must have 4 to 8 warps");
  static_assert(WM % 16 == 0 && WN % 32 == 0, "a warp tile must be whole 4 x 8 grids of 4 x 4");
  static_assert(kACopies >= 1 && kACopies * kThreads * 4 == BM * BK && kBCopies >= 1 &&
                    kBCopies * kThreads * 4 == BK * BN,
                "every thread must copy as many float4s of each tile");
  extern __shared__ __align__(16) float shared[];  // two stages: A transposed, then B
  const int t = threadIdx.x, warp = t / 32, lane = t % 32;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const int warpRow = warp / kWarpsAlongN * WM + lane / 8 * 4;
  const int warpCol = warp % kWarpsAlongN * WN + lane % 8 * 4;
  const auto rowOf = [&](int r) { return warpRow + r / 4 * 16 + r % 4; };
  const auto colOf = [&](int c) { return warpCol + c / 4 * 32 + c % 4; };
  const bool vectors = p.K % 4 == 0 && p.N % 4 == 0;  // rows of A and B 16-byte aligned
  float4 aNext[kACopies], bNext[kBCopies];
  // Copy e of thread t takes float4 t + e * threads of k-step s's tiles, row by row. Past
  // the matrix the accessors return zeros.
  const auto load = [&](int k0) {
#pragma unroll
    for (int e = 0; e < kACopies; ++e) {
      const int at = t + e * kThreads, r = at / (BK / 4), c = at % (BK / 4) * 4;
      float v[4];
      if (vectors) {
        const float4 four = ts::loadA4(p, row0 + r, k0 + c);
        v[0] = four.x, v[1] = four.y, v[2] = four.z, v[3] = four.w;
      } else {
        for (int x = 0; x < 4; ++x) v[x] = ts::loadA(p, row0 + r, k0 + c + x);
      }
      aNext[e] = make_float4(v[0], v[1], v[2], v[3]);
    }
#pragma unroll
    for (int e = 0; e < kBCopies; ++e) {
      const int at = t + e * kThreads, r = at / (BN / 4), c = at % (BN / 4) * 4;
      float v[4];
      if (vectors) {
        const float4 four = ts::loadB4(p, k0 + r, col0 + c);
        v[0] = four.x, v[1] = four.y, v[2] = four.z, v[3] = four.w;
      } else {
        for (int x = 0; x < 4; ++x) v[x] = ts::loadB(p, k0 + r, col0 + c + x);
      }
      bNext[e] = make_float4(v[0], v[1], v[2], v[3]);
    }
  };
  // The registers into a stage: A transposed, each row padded by 4 words; B as it is.
  const auto store = [&](float* stage) {
#pragma unroll
    for (int e = 0; e < kACopies; ++e) {
      const int at = t + e * kThreads, r = at / (BK / 4), c = at % (BK / 4) * 4;
      const float v[4] = {aNext[e].x, aNext[e].y, aNext[e].z, aNext[e].w};
      for (int x = 0; x < 4; ++x)
        ts::writeShared(p, ts::TileA, stage[(c + x) * (BM + 4) + r], v[x]);
    }
#pragma unroll
    for (int e = 0; e < kBCopies; ++e) {
      const int at = t + e * kThreads, r = at / (BN / 4), c = at % (BN / 4) * 4;
      ts::writeShared4(p, ts::TileB, stage[kAWords + r * BN + c], bNext[e]);
    }
  };
  float sum[kRows][kCols] = {};
  const int steps = ts::ceilDiv(p.K, BK);
  load(0);
  store(shared);
  __syncthreads();
  for (int s = 0; s < steps; ++s) {
    const float* stage = shared + s % 2 * kStageWords;
    const bool more = s + 1 < steps;
    if (more) load((s + 1) * BK);  // on its way while k-step s is multiplied
    for (int kk = 0; kk < BK; ++kk) {
      float aValues[kRows], bValues[kCols];
#pragma unroll
      for (int r = 0; r < kRows; r += 4) {
        const float4 four = ts::readShared4(p, ts::TileA, stage[kk * (BM + 4) + rowOf(r)]);
        aValues[r] = four.x, aValues[r + 1] = four.y, aValues[r + 2] = four.z;
        aValues[r + 3] = four.w;
      }
#pragma unroll
      for (int c = 0; c < kCols; c += 4) {
        const float4 four = ts::readShared4(p, ts::TileB, stage[kAWords + kk * BN + colOf(c)]);
        bValues[c] = four.x, bValues[c + 1] = four.y, bValues[c + 2] = four.z;
        bValues[c + 3] = four.w;
      }
#pragma unroll
      for (int r = 0; r < kRows; ++r)
#pragma unroll
        for (int c = 0; c < kCols; ++c) sum[r][c] += aValues[r] * bValues[c];
    }
    // The other stage was last read before the previous barrier: free to fill.
    if (more) store(shared + (s + 1) % 2 * kStageWords);
    __syncthreads();
  }
  // One float at a time: a float4 store takes four consecutive registers, and with this many
  // accumulators ptxas then needs more registers (the catalogue's warptile: 163 instead of 127,
  // one block per SM instead of two, 1.8x slower).
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    const int i = row0 + rowOf(r);
#pragma unroll
    for (int c = 0; c < kCols; ++c) {
      const int j = col0 + colOf(c);
      if (i < p.M && j < p.N) ts::storeC(p, i, j, sum[r][c]);
    }
  }
}
)cu"},
      {"tensor-mma",
       R"cu(// tensor-mma (CUTLASS's sm80 multistage tensor-op GEMM): pipelined's warp grid and
// cp.async stages, but the multiply-adds run on the tensor cores. One ts::mma has the warp
// multiply a 16 x kMmaK fragment of A by a kMmaK x 8 fragment of B into a 16 x 8 accumulator,
// so a lane's outputs follow the hardware's layout: rows g and g + 8, columns 2q and 2q + 1
// of every 8, lane 4g + q. ldmatrix (ts::loadMatrices) reads a fragment for the whole warp,
// each lane naming one 16-byte row; the tiles' rows are padded by 16 bytes so the 8 rows of
// one 8 x 8 matrix start on 8 different groups of 4 banks. Try this: drop the padding (the
// + 16 in kAPitch, kBPitch and TS_LAUNCH) and trace it: the access view's Bank read shows
// each ldmatrix of A taking 16 wavefronts where it took 4, of B 32. tf32 has no ldmatrix: each
// lane reads its fragment registers one word at a time (ts::readFragment).
TS_TYPES(fp16, bf16, tf32)
TS_PARAM(BM, 128, 64, 128)
TS_PARAM(BN, 128, 128, 256)
TS_PARAM(BK, 32, 32)
TS_PARAM(WM, 64, 32, 64)
TS_PARAM(WN, 32, 32, 64)
TS_PARAM(stages, 4, 3, 4)
TS_LAUNCH(BM / WM * (BN / WN) * 32, 1, ts::ceilDiv(N, BN), ts::ceilDiv(M, BM),
          stages * (BM * (BK * TS_ELEMENT_BYTES + 16) +
                    BK * (BN * TS_ELEMENT_BYTES + (TS_ELEMENT_BYTES == 4 ? 32 : 16))))
TS_KSTEP(BK)

TS_KERNEL {
  constexpr int kBytes = TS_ELEMENT_BYTES;
  // The row pitches in bytes: 16 bytes of padding (32 for tf32's B, read down its columns).
  constexpr int kAPitch = BK * kBytes + 16, kBPitch = BN * kBytes + (kBytes == 4 ? 32 : 16);
  constexpr int kAStage = BM * kAPitch, kStage = kAStage + BK * kBPitch;
  constexpr int kWarpsAlongN = BN / WN, kThreads = BM / WM * kWarpsAlongN * 32;
  constexpr int kFragmentsM = WM / 16, kFragmentsN = WN / 8;  // a warp's accumulators
  constexpr int kVector = ts::kCopyElements;                  // elements per 16-byte copy
  constexpr int kACopies = BM * BK / kVector / kThreads, kBCopies = BK * BN / kVector / kThreads;
  static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles must divide the block tile");
  static_assert(kThreads >= 128 && kThreads <= 256, "a block must have 4 to 8 warps");
  static_assert(WM % 16 == 0 && WN % 16 == 0, "a warp tile must be whole 16 x 16 fragments");
  static_assert(kACopies >= 1 && kACopies * kThreads * kVector == BM * BK && kBCopies >= 1 &&
                    kBCopies * kThreads * kVector == BK * BN,
                "every thread must copy as many 16-byte vectors of each tile");
  extern __shared__ __align__(128) unsigned char shared[];  // stages stages: A, then B
  const int t = threadIdx.x, warp = t / 32, lane = t % 32;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const int warpRow = warp / kWarpsAlongN * WM, warpCol = warp % kWarpsAlongN * WN;
  const auto stageOf = [&](int s) { return shared + s % stages * kStage; };
  const auto aAt = [&](unsigned char* stage, int m, int k) -> ts::Element& {
    return *reinterpret_cast<ts::Element*>(stage + m * kAPitch + k * kBytes);
  };
  const auto bAt = [&](unsigned char* stage, int k, int n) -> ts::Element& {
    return *reinterpret_cast<ts::Element*>(stage + kAStage + k * kBPitch + n * kBytes);
  };
  // Rows 16-byte aligned: copies of 16 bytes, else one element at a time.
  const bool aVectors = p.K % kVector == 0, bVectors = p.N % kVector == 0;
  // Starts k-step s's copies: copy e of thread t takes the vector t + e * threads of each
  // tile, row by row. Past the matrix a copy reads nothing and fills zeros.
  const auto copy = [&](int s) {
    unsigned char* stage = stageOf(s);
    const int k0 = s * BK;
#pragma unroll
    for (int e = 0; e < kACopies; ++e) {
      const int at = t + e * kThreads, r = at / (BK / kVector), c = at % (BK / kVector) * kVector;
      if (aVectors) {
        ts::copyA16(p, aAt(stage, r, c), row0 + r, k0 + c);
      } else {
        for (int x = 0; x < kVector; ++x) ts::copyA(p, aAt(stage, r, c + x), row0 + r, k0 + c + x);
      }
    }
#pragma unroll
    for (int e = 0; e < kBCopies; ++e) {
      const int at = t + e * kThreads, r = at / (BN / kVector), c = at % (BN / kVector) * kVector;
      if (bVectors) {
        ts::copyB16(p, bAt(stage, r, c), k0 + r, col0 + c);
      } else {
        for (int x = 0; x < kVector; ++x) ts::copyB(p, bAt(stage, r, c + x), k0 + r, col0 + c + x);
      }
    }
  };
  float sum[kFragmentsM][kFragmentsN][4] = {};
  const int steps = ts::ceilDiv(p.K, BK);
  for (int s = 0; s < stages - 1; ++s) {
    if (s < steps) copy(s);
    ts::commitCopies();  // a group each, empty or not, so the count of groups stays exact
  }
  for (int s = 0; s < steps; ++s) {
    ts::waitCopies<stages - 2>();  // this thread's copies of k-step s have landed
    __syncthreads();  // everyone's have, and the stage k-step s - 1 used is free
    if (s + stages - 1 < steps) copy(s + stages - 1);
    ts::commitCopies();
    unsigned char* stage = stageOf(s);
#pragma unroll
    for (int k0 = 0; k0 < BK; k0 += ts::kMmaK) {
      unsigned a[kFragmentsM][4], b[kFragmentsN][2];
#if TS_ELEMENT_BYTES == 2
      // Fragment row i of A: lanes 0-15 name its rows at k0, lanes 16-31 the same at k0 + 8.
#pragma unroll
      for (int i = 0; i < kFragmentsM; ++i)
        ts::loadMatrices(p, ts::TileA, aAt(stage, warpRow + i * 16 + lane % 16, k0 + lane / 16 * 8),
                         a[i]);
      // Fragment columns 2j and 2j + 1 of B, transposed: lanes name rows k0 .. k0 + 15.
#pragma unroll
      for (int j = 0; j < kFragmentsN / 2; ++j) {
        unsigned pair[4];
        ts::loadMatricesTransposed(
            p, ts::TileB, bAt(stage, k0 + lane % 16, warpCol + j * 16 + lane / 16 * 8), pair);
        b[2 * j][0] = pair[0], b[2 * j][1] = pair[1];
        b[2 * j + 1][0] = pair[2], b[2 * j + 1][1] = pair[3];
      }
#else
      // tf32: register r of A's fragment is row g + 8 (r % 2), k q + 4 (r / 2); of B's, k q + 4r.
#pragma unroll
      for (int i = 0; i < kFragmentsM; ++i)
#pragma unroll
        for (int r = 0; r < 4; ++r)
          a[i][r] = ts::readFragment(
              p, ts::TileA,
              aAt(stage, warpRow + i * 16 + lane / 4 + r % 2 * 8, k0 + lane % 4 + r / 2 * 4));
#pragma unroll
      for (int j = 0; j < kFragmentsN; ++j)
#pragma unroll
        for (int r = 0; r < 2; ++r)
          b[j][r] = ts::readFragment(p, ts::TileB,
                                     bAt(stage, k0 + lane % 4 + r * 4, warpCol + j * 8 + lane / 4));
#endif
#pragma unroll
      for (int i = 0; i < kFragmentsM; ++i)
#pragma unroll
        for (int j = 0; j < kFragmentsN; ++j) ts::mma(sum[i][j], a[i], b[j]);
    }
  }
  // Each accumulator pair (columns 2q, 2q + 1) as one float2 where N is even.
#pragma unroll
  for (int i = 0; i < kFragmentsM; ++i)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = row0 + warpRow + i * 16 + h * 8 + lane / 4;
      if (row >= p.M) continue;
#pragma unroll
      for (int j = 0; j < kFragmentsN; ++j) {
        const int col = col0 + warpCol + j * 8 + lane % 4 * 2;
        const float first = sum[i][j][2 * h], second = sum[i][j][2 * h + 1];
        if (p.N % 2 == 0) {
          if (col < p.N) ts::storeC2(p, row, col, make_float2(first, second));
        } else {
          if (col < p.N) ts::storeC(p, row, col, first);
          if (col + 1 < p.N) ts::storeC(p, row, col + 1, second);
        }
      }
    }
}
)cu"},
      {"tensor-wgmma",
       R"cu(// tensor-wgmma (Hopper's warpgroup MMA, sm_90a): each warpgroup of 128 threads owns 64
// rows of the block tile and multiplies them with ts::wgmma, which has the whole warpgroup
// multiply 64 x 16 of A by 16 x 128 of B, reading both straight from shared memory through
// descriptors: no lane loads a fragment. The stages are laid out as wgmma reads them, in
// 1024-byte atoms of 8 rows of 128 bytes, 128-byte swizzled: 16-byte chunk c of row r lies at
// chunk c ^ (r % 8), so the 8 rows of a chunk column fall in 8 different groups of banks. A is
// BM rows of BK = 64 values (128 bytes); B is 64-column slabs of 8-row atoms. One batch of
// wgmma runs on while the next k-step's copies are issued.
TS_TYPES(fp16, bf16)
TS_PARAM(BM, 128, 128)
TS_PARAM(BN, 256, 128, 256)
TS_PARAM(BK, 64, 64)
TS_PARAM(stages, 4, 3, 4)
TS_LAUNCH(BM / 64 * 128, 1, ts::ceilDiv(N, BN), ts::ceilDiv(M, BM),
          stages * (BM * 128 + BK * BN * 2) + 1024)
TS_KSTEP(BK)

TS_KERNEL {
  constexpr int kThreads = BM / 64 * 128, kInstructionsN = BN / 128;
  constexpr int kAtom = 1024;  // 8 rows of 128 bytes: what the swizzle permutes
  constexpr int kAStage = BM * 128, kStage = kAStage + BK * BN * 2;
  constexpr int kVector = ts::kCopyElements;  // 8 elements per 16-byte copy
  constexpr int kACopies = BM * BK / kVector / kThreads, kBCopies = BK * BN / kVector / kThreads;
  static_assert(TS_ELEMENT_BYTES == 2, "wgmma here multiplies fp16 or bf16");
  static_assert(BK * 2 == 128, "a row of the A tile is one 128-byte swizzle row");
  static_assert(BM % 64 == 0 && BN % 128 == 0,
                "warpgroups of 64 rows and instructions of 128 columns must divide the tile");
  static_assert(stages >= 3, "a stage is refilled two k-steps after its use");
  static_assert(kACopies * kThreads * kVector == BM * BK &&
                    kBCopies * kThreads * kVector == BK * BN,
                "every thread must copy as many 16-byte vectors of each tile");
  extern __shared__ __align__(16) unsigned char shared[];
  // The swizzle works on address bits: every atom starts on a 1024-byte boundary.
  unsigned char* const base =
      shared + (kAtom - (int)(__cvta_generic_to_shared(shared) % kAtom)) % kAtom;
  const int t = threadIdx.x, warpgroup = t / 128, warp = t % 128 / 32, lane = t % 32;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const auto stageOf = [&](int s) { return base + s % stages * kStage; };
  const auto swizzle = [](int offset) { return offset ^ (offset >> 7 & 7) << 4; };
  const auto aAt = [&](unsigned char* stage, int m, int k) -> ts::Element& {
    return *reinterpret_cast<ts::Element*>(stage + swizzle(m * 128 + k * 2));
  };
  // B: atom (k / 8, n / 64) holds 8 rows of k, 64 columns; an 8-row group's atoms side by side.
  const auto bAt = [&](unsigned char* stage, int k, int n) -> ts::Element& {
    const int atom = k / 8 * (BN / 64) + n / 64;
    return *reinterpret_cast<ts::Element*>(stage + kAStage +
                                           swizzle(atom * kAtom + k % 8 * 128 + n % 64 * 2));
  };
  const bool aVectors = p.K % kVector == 0, bVectors = p.N % kVector == 0;
  // Starts k-step s's copies: copy e of thread t takes the vector t + e * threads of each
  // tile, row by row. Past the matrix a copy reads nothing and fills zeros.
  const auto copy = [&](int s) {
    unsigned char* stage = stageOf(s);
    const int k0 = s * BK;
#pragma unroll
    for (int e = 0; e < kACopies; ++e) {
      const int at = t + e * kThreads, r = at / (BK / kVector), c = at % (BK / kVector) * kVector;
      if (aVectors) {
        ts::copyA16(p, aAt(stage, r, c), row0 + r, k0 + c);
      } else {
        for (int x = 0; x < kVector; ++x) ts::copyA(p, aAt(stage, r, c + x), row0 + r, k0 + c + x);
      }
    }
#pragma unroll
    for (int e = 0; e < kBCopies; ++e) {
      const int at = t + e * kThreads, r = at / (BN / kVector), c = at % (BN / kVector) * kVector;
      if (bVectors) {
        ts::copyB16(p, bAt(stage, r, c), k0 + r, col0 + c);
      } else {
        for (int x = 0; x < kVector; ++x) ts::copyB(p, bAt(stage, r, c + x), k0 + r, col0 + c + x);
      }
    }
  };
  // Not zeroed: the first wgmma overwrites them (accumulate false).
  float sum[kInstructionsN][64];
  const int steps = ts::ceilDiv(p.K, BK);
  constexpr int kAhead = stages - 2;  // k-steps in flight while one is multiplied
  for (int s = 0; s < kAhead; ++s) {
    if (s < steps) copy(s);
    ts::commitCopies();
  }
  for (int s = 0; s < steps; ++s) {
    ts::waitCopies<kAhead - 1>();  // this thread's copies of k-step s have landed
    ts::fenceAsyncProxy();         // and wgmma, which reads through the async proxy, sees them
    // Everyone's have, and every warpgroup's wgmma of k-step s - 2 is done: its stage is free.
    __syncthreads();
    if (s + kAhead < steps) copy(s + kAhead);
    ts::commitCopies();
    const unsigned char* aTile = stageOf(s) + warpgroup * 64 * 128;
    const unsigned char* bTile = stageOf(s) + kAStage;
    ts::wgmmaFence();
#pragma unroll
    for (int kk = 0; kk < BK / 16; ++kk) {
      // A: 16 more values of k are 32 bytes further along the rows; atoms follow one another
      // (stride 1024). B: 16 values of k are two 8-row groups of atoms; the next 64 columns are
      // the next atom (leading 1024), the next 8 rows BN / 64 atoms on (stride).
      const unsigned long long a = ts::sharedDescriptor(aTile + kk * 32, 16, kAtom);
#pragma unroll
      for (int i = 0; i < kInstructionsN; ++i) {
        const unsigned char* b = bTile + (2 * kk * (BN / 64) + 2 * i) * kAtom;
        ts::wgmma(sum[i], a, ts::sharedDescriptor(b, kAtom, BN / 64 * kAtom), s > 0 || kk > 0);
      }
    }
    ts::wgmmaCommit();
    ts::wgmmaWait<1>();  // k-step s - 1's batch is done; this one runs on into the next k-step
  }
  ts::wgmmaWait<0>();
  // Register j of instruction i: row 8 (j % 4 / 2) of the warp's 16, columns 128 i + 8 (j / 4)
  // + 2 (lane % 4), + 1; the pair as one float2 where N is even.
#pragma unroll
  for (int i = 0; i < kInstructionsN; ++i)
#pragma unroll
    for (int j = 0; j < 64; j += 2) {
      const int row = row0 + warpgroup * 64 + warp * 16 + j % 4 / 2 * 8 + lane / 4;
      const int col = col0 + i * 128 + j / 4 * 8 + lane % 4 * 2;
      // Every slot, those past C too: the accessors store only what lies inside.
      if (p.N % 2 == 0) {
        ts::storeC2(p, row, col, make_float2(sum[i][j], sum[i][j + 1]));
      } else {
        ts::storeC(p, row, col, sum[i][j]);
        ts::storeC(p, row, col + 1, sum[i][j + 1]);
      }
    }
}
)cu"},
      {"tensor-tma",
       R"cu(// tensor-tma (Hopper, sm_90a): warp specialisation. The block's three warpgroups have roles.
// Warpgroup 0 produces: its thread 0 has the copy engine (TMA) fill each stage with whole tiles,
// A as one box of BM rows x 64 values of k and B as BN / 64 boxes of 64 rows of k x 64 columns,
// laid out 128-byte swizzled as wgmma reads them; the copies count their bytes on the stage's
// `full` mbarrier. Warpgroups 1 and 2 consume: each waits on `full`, multiplies its 64 rows of
// the tile with wgmma, keeps one batch in flight, and once a stage's batch is done each of its
// warps arrives on the stage's `empty` mbarrier, which the producer waits on before refilling
// the stage. No block-wide barrier in the main loop. The producer gives registers back and the
// consumers take them for their BN / 2 accumulators. TMA needs rows of 16 bytes: where K (or N)
// is no multiple of 8, the producer's 128 threads copy A (or B) element by element instead.
TS_TYPES(fp16, bf16)
TS_PARAM(BM, 128, 128)
TS_PARAM(BN, 256, 128, 256)
TS_PARAM(BK, 64, 64)
TS_PARAM(stages, 4, 3, 4)
TS_LAUNCH(384, 1, ts::ceilDiv(N, BN), ts::ceilDiv(M, BM),
          stages * (BM * 128 + BK * BN * 2 + 16) + 1024)
TS_KSTEP(BK)
TS_TENSOR_MAPS(BM, BK)

TS_KERNEL_BOUNDED(384, 1) {
  constexpr int kAtom = 1024;  // 8 rows of 128 bytes: what the swizzle permutes
  constexpr int kAStage = BM * 128, kStage = kAStage + BK * BN * 2;
  constexpr int kSlab = BK * 128;  // B: 64 columns of every row of k
  constexpr int kConsumerWarps = 8, kVector = ts::kCopyElements;
  constexpr int kACopies = BM * BK / kVector / 128, kBCopies = BK * BN / kVector / 128;
  static_assert(TS_ELEMENT_BYTES == 2, "wgmma here multiplies fp16 or bf16");
  static_assert(BM == 128, "two consumer warpgroups of 64 rows");
  static_assert(BK * 2 == 128, "a row of a box is one 128-byte swizzle row");
  static_assert(BN % 128 == 0, "wgmma instructions of 128 columns");
  static_assert(stages * (kStage + 16) + kAtom <= 227 * 1024, "a block has 227 KiB of shared memory");
  extern __shared__ __align__(16) unsigned char shared[];
  // The swizzle works on address bits: every stage starts on a 1024-byte boundary.
  unsigned char* const base =
      shared + (kAtom - (int)(__cvta_generic_to_shared(shared) % kAtom)) % kAtom;
  ts::Barrier* const full = reinterpret_cast<ts::Barrier*>(base + stages * kStage);
  ts::Barrier* const empty = full + stages;
  const int t = threadIdx.x;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const auto stageOf = [&](int s) { return base + s % stages * kStage; };
  const auto swizzle = [](int offset) { return offset ^ (offset >> 7 & 7) << 4; };
  const bool aByTma = ts::hasTensorMap(p, ts::TileA), bByTma = ts::hasTensorMap(p, ts::TileB);
  const bool allByTma = aByTma && bByTma;
  const int steps = ts::ceilDiv(p.K, BK);

  if (t == 0) {
    for (int s = 0; s < stages; ++s) {
      ts::initBarrier(full[s], allByTma ? 1 : 128);  // element copies: every producer arrives
      ts::initBarrier(empty[s], kConsumerWarps);
    }
    ts::fenceBarrierInit();
  }
  __syncthreads();  // the only block-wide barrier: the mbarriers exist from here on

  if (t < 128) {  // the producer
    ts::shrinkRegisters<40>();
    if (allByTma && t != 0) return;
    const unsigned tmaBytes = (aByTma ? kAStage : 0) + (bByTma ? kStage - kAStage : 0);
    for (int s = 0; s < steps; ++s) {
      const int index = s % stages, k0 = s * BK;
      // The stage's previous use (k-step s - stages) must be released by every consumer warp.
      if (s >= stages) ts::waitBarrier(empty[index], (s / stages - 1) & 1);
      unsigned char* const aTile = stageOf(s);
      unsigned char* const bTile = aTile + kAStage;
      if (t == 0) {
        if (allByTma)
          ts::arriveExpectingBytes(full[index], tmaBytes);
        else if (tmaBytes > 0)
          ts::expectBytes(full[index], tmaBytes);
        if (aByTma) ts::copyTileA(p, aTile, row0, k0, full[index]);
        if (bByTma) ts::copyTileB(p, bTile, k0, col0, BN, full[index]);
      }
      if (allByTma) continue;
      // Copy e of thread t: the tile's 16-byte vector t + 128 e, row by row, into the bytes the
      // copy engine would have put it in.
      if (!aByTma)
        for (int e = 0; e < kACopies; ++e) {
          const int at = t + e * 128, r = at / (BK / kVector), c = at % (BK / kVector) * kVector;
          for (int x = 0; x < kVector; ++x)
            ts::copyA(p, *reinterpret_cast<ts::Element*>(aTile + swizzle(r * 128 + (c + x) * 2)),
                      row0 + r, k0 + c + x);
        }
      if (!bByTma)
        for (int e = 0; e < kBCopies; ++e) {
          const int at = t + e * 128, r = at / (BN / kVector), c = at % (BN / kVector) * kVector;
          for (int x = 0; x < kVector; ++x) {
            const int n = c + x;
            ts::copyB(p,
                      *reinterpret_cast<ts::Element*>(bTile +
                                                      swizzle(n / 64 * kSlab + r * 128 + n % 64 * 2)),
                      k0 + r, col0 + n);
          }
        }
      ts::fenceAsyncProxy();  // the stores above, then wgmma's reads through the async proxy
      ts::arrive(full[index]);
    }
    return;
  }

  ts::growRegisters<232>();  // 128 x 40 + 256 x 232 registers fit the SM's 64 K
  const int consumer = t / 128 - 1, warp = t % 128 / 32, lane = t % 32;
  // Not zeroed: the first wgmma overwrites them (accumulate false).
  float sum[BN / 128][64];
  for (int s = 0; s < steps; ++s) {
    ts::waitBarrier(full[s % stages], (s / stages) & 1);
    const unsigned char* aTile = stageOf(s) + consumer * 64 * 128;
    const unsigned char* bTile = stageOf(s) + kAStage;
    ts::wgmmaFence();
#pragma unroll
    for (int kk = 0; kk < BK / 16; ++kk) {
      // A: 16 more values of k are 32 bytes along the rows, 8-row atoms 1024 bytes apart. B: 16
      // values of k are two atoms down every slab; the next 64 columns are the next slab
      // (leading), the next 8 rows the next atom (stride).
      const unsigned long long a = ts::sharedDescriptor(aTile + kk * 32, 16, kAtom);
#pragma unroll
      for (int i = 0; i < BN / 128; ++i)
        ts::wgmma(sum[i], a,
                  ts::sharedDescriptor(bTile + i * 2 * kSlab + kk * 2 * kAtom, kSlab, kAtom),
                  s > 0 || kk > 0);
    }
    ts::wgmmaCommit();
    ts::wgmmaWait<1>();  // k-step s - 1's batch is done: its stage goes back to the producer
    if (s > 0 && lane == 0) ts::arrive(empty[(s - 1) % stages]);
  }
  ts::wgmmaWait<0>();
  // Register j of instruction i: row 8 (j % 4 / 2) of the warp's 16, columns 128 i + 8 (j / 4)
  // + 2 (lane % 4), + 1; the pair as one float2 where N is even.
#pragma unroll
  for (int i = 0; i < BN / 128; ++i)
#pragma unroll
    for (int j = 0; j < 64; j += 2) {
      const int row = row0 + consumer * 64 + warp * 16 + j % 4 / 2 * 8 + lane / 4;
      const int col = col0 + i * 128 + j / 4 * 8 + lane % 4 * 2;
      // Every slot, those past C too: the accessors store only what lies inside.
      if (p.N % 2 == 0) {
        ts::storeC2(p, row, col, make_float2(sum[i][j], sum[i][j + 1]));
      } else {
        ts::storeC(p, row, col, sum[i][j]);
        ts::storeC(p, row, col + 1, sum[i][j + 1]);
      }
    }
}
)cu"},
      {"tensor-persistent",
       R"cu(// tensor-persistent (Hopper, sm_90a): tensor-tma's block, launched only as many times as the
// GPU holds blocks at once (TS_PERSISTENT: one per SM), each block working through tiles of C.
// Between tiles nothing drains: the producer goes on filling stages with the next tile's k-steps
// while the consumers still multiply or store this one, and the stage ring and its barrier
// phases run on. The tiles go out in a grouped order, bands of `group` tile rows walked column
// by column, so the blocks working at one time share a few columns of B and rows of A in L2.
// With cluster = 2 (TS_CLUSTER), two blocks take two tiles stacked along M: they need the same
// tile of B, so each copies half of it and the copy engine multicasts it into both
// (ts::copyTileBAcrossCluster), and a stage is refilled only once the consumers of both blocks
// have freed it (ts::arriveInCluster). Each thread names the tile it works on (ts::workOn), and
// the pictures draw a tile as a block.
TS_TYPES(fp16, bf16)
TS_PARAM(BM, 128, 128)
TS_PARAM(BN, 256, 128, 256)
TS_PARAM(BK, 64, 64)
TS_PARAM(stages, 4, 4, 6)
TS_PARAM(cluster, 2, 1, 2)
TS_PARAM(group, 16, 8, 16)
// A unit is `cluster` tiles stacked along M, one block of the cluster each: the most blocks that
// can work at once. TileScope launches no more than fit the GPU.
TS_LAUNCH(384, 1, ts::ceilDiv(ts::ceilDiv(M, BM), cluster) * ts::ceilDiv(N, BN) * cluster, 1,
          stages * (BM * 128 + BK * BN * 2 + 16) + 1024)
TS_PERSISTENT(ts::ceilDiv(N, BN), ts::ceilDiv(M, BM))
TS_CLUSTER(cluster)
TS_KSTEP(BK)
TS_TENSOR_MAPS(BM, BK)

TS_KERNEL_BOUNDED(384, 1) {
  constexpr int kAtom = 1024;  // 8 rows of 128 bytes: what the swizzle permutes
  constexpr int kAStage = BM * 128, kStage = kAStage + BK * BN * 2;
  constexpr int kSlab = BK * 128;  // B: 64 columns of every row of k
  constexpr int kConsumerWarps = 8, kVector = ts::kCopyElements;
  constexpr int kACopies = BM * BK / kVector / 128, kBCopies = BK * BN / kVector / 128;
  constexpr int kBandUnitRows = group / cluster;
  static_assert(TS_ELEMENT_BYTES == 2, "wgmma here multiplies fp16 or bf16");
  static_assert(BM == 128, "two consumer warpgroups of 64 rows");
  static_assert(BK * 2 == 128, "a row of a box is one 128-byte swizzle row");
  static_assert(BN % 128 == 0, "wgmma instructions of 128 columns");
  static_assert(stages * (kStage + 16) + kAtom <= 227 * 1024, "a block has 227 KiB of shared memory");
  extern __shared__ __align__(16) unsigned char shared[];
  // The swizzle works on address bits: every stage starts on a 1024-byte boundary (at the same
  // offset in every block, where multicast copies land).
  unsigned char* const base =
      shared + (kAtom - (int)(__cvta_generic_to_shared(shared) % kAtom)) % kAtom;
  ts::Barrier* const full = reinterpret_cast<ts::Barrier*>(base + stages * kStage);
  ts::Barrier* const empty = full + stages;
  const int t = threadIdx.x;
  const auto stageOf = [&](int filled) { return base + filled % stages * kStage; };
  const auto swizzle = [](int offset) { return offset ^ (offset >> 7 & 7) << 4; };
  const bool aByTma = ts::hasTensorMap(p, ts::TileA), bByTma = ts::hasTensorMap(p, ts::TileB);
  const bool allByTma = aByTma && bByTma;
  // Multicast needs TMA for both operands: else each block copies its own tiles.
  const bool multicast = cluster > 1 && allByTma;
  const int steps = ts::ceilDiv(p.K, BK);

  // The tile order. Unit u of the grouped order is unit row `first + inBand % rows`, tile
  // column `inBand / rows` of its band; cluster c takes units c, c + clusters, ... and its block
  // of rank r the tile row r of each unit (past the last tile row it copies B for its partner
  // and stores nothing).
  // Computed afresh from p and the launch where needed: held across the main loop, these values
  // took registers the consumers' accumulators need (ptxas spilled).
  const auto unitRows = [&] { return ts::ceilDiv(ts::ceilDiv(p.M, BM), cluster); };
  const int rounds = (unitRows() * ts::ceilDiv(p.N, BN) - (int)blockIdx.x / cluster +
                      (int)gridDim.x / cluster - 1) /
                     ((int)gridDim.x / cluster);
  const auto tileOf = [&](int round) {
    const int u = blockIdx.x / cluster + round * (gridDim.x / cluster);
    const int perBand = kBandUnitRows * ts::ceilDiv(p.N, BN);
    const int first = u / perBand * kBandUnitRows, inBand = u % perBand;
    const int rows = min(unitRows() - first, kBandUnitRows);
    return make_int2(inBand / rows, (first + inBand % rows) * cluster + (int)blockIdx.x % cluster);
  };

  if (t == 0) {
    for (int s = 0; s < stages; ++s) {
      ts::initBarrier(full[s], allByTma ? 1 : 128);  // element copies: every producer arrives
      // Every consumer warp of every block of the cluster frees the stage in every block.
      ts::initBarrier(empty[s], kConsumerWarps * cluster);
    }
    ts::fenceBarrierInit();
  }
  // The barriers exist, in every block of the cluster, before a partner copies or arrives.
  if (cluster > 1)
    ts::syncCluster();
  else
    __syncthreads();

  if (t < 128) {  // the producer
    ts::shrinkRegisters<40>();
    const unsigned tmaBytes = (aByTma ? kAStage : 0) + (bByTma ? kStage - kAStage : 0);
    // Where TMA copies both operands, thread 0 alone works (the others wait at the end).
    const bool copies = !allByTma || t == 0;
    int filled = 0;  // k-steps through the ring since the launch, over every tile
    for (int round = 0; copies && round < rounds; ++round) {
      const int2 tile = tileOf(round);
      ts::workOn(p, tile.x, tile.y);
      const int row0 = tile.y * BM, col0 = tile.x * BN;
      for (int s = 0; s < steps; ++s, ++filled) {
        const int index = filled % stages, k0 = s * BK;
        // The stage's previous use must be freed by every consumer warp of the cluster (with
        // multicast this block writes into its partner's stage too).
        if (filled >= stages) ts::waitBarrier(empty[index], (filled / stages - 1) & 1);
        unsigned char* const aTile = stageOf(filled);
        unsigned char* const bTile = aTile + kAStage;
        if (t == 0) {
          if (allByTma)
            ts::arriveExpectingBytes(full[index], tmaBytes);
          else if (tmaBytes > 0)
            ts::expectBytes(full[index], tmaBytes);
          if (aByTma) ts::copyTileA(p, aTile, row0, k0, full[index]);
          if (multicast)
            ts::copyTileBAcrossCluster(p, bTile, k0, col0, BN, full[index]);
          else if (bByTma)
            ts::copyTileB(p, bTile, k0, col0, BN, full[index]);
        }
        if (allByTma) continue;
        // Copy e of thread t: the tile's 16-byte vector t + 128 e, row by row, into the bytes
        // the copy engine would have put it in.
        if (!aByTma)
          for (int e = 0; e < kACopies; ++e) {
            const int at = t + e * 128, r = at / (BK / kVector), c = at % (BK / kVector) * kVector;
            for (int x = 0; x < kVector; ++x)
              ts::copyA(p, *reinterpret_cast<ts::Element*>(aTile + swizzle(r * 128 + (c + x) * 2)),
                        row0 + r, k0 + c + x);
          }
        if (!bByTma)
          for (int e = 0; e < kBCopies; ++e) {
            const int at = t + e * 128, r = at / (BN / kVector), c = at % (BN / kVector) * kVector;
            for (int x = 0; x < kVector; ++x) {
              const int n = c + x;
              const int byte = swizzle(n / 64 * kSlab + r * 128 + n % 64 * 2);
              ts::copyB(p, *reinterpret_cast<ts::Element*>(bTile + byte), k0 + r, col0 + n);
            }
          }
        ts::fenceAsyncProxy();  // the stores above, then wgmma's reads through the async proxy
        ts::arrive(full[index]);
      }
    }
  } else {
    ts::growRegisters<232>();  // 128 x 40 + 256 x 232 registers fit the SM's 64 K
    const int consumer = t / 128 - 1, warp = t % 128 / 32, lane = t % 32;
    // Each warp frees a stage in every block of the cluster once its batch on it is done.
    const auto release = [&](int filled) {
      if (lane != 0) return;
      if (cluster > 1)
        for (int r = 0; r < cluster; ++r) ts::arriveInCluster(empty[filled % stages], r);
      else
        ts::arrive(empty[filled % stages]);
    };
    // Not zeroed: each tile's first wgmma overwrites them (accumulate false).
    float sum[BN / 128][64];
    int filled = 0;
    for (int round = 0; round < rounds; ++round) {
      // The tile, named for the tracer (nothing in a timed launch); where it lies is worked out
      // again after the k-steps, so that no register holds it through them.
      ts::workOn(p, tileOf(round).x, tileOf(round).y);
      for (int s = 0; s < steps; ++s, ++filled) {
        ts::waitBarrier(full[filled % stages], (filled / stages) & 1);
        const unsigned char* aTile = stageOf(filled) + consumer * 64 * 128;
        const unsigned char* bTile = stageOf(filled) + kAStage;
        ts::wgmmaFence();
#pragma unroll
        for (int kk = 0; kk < BK / 16; ++kk) {
          // As in tensor-tma: A 32 bytes along the rows per 16 values of k, 8-row atoms 1024
          // bytes apart; B two atoms down every slab, the next 64 columns the next slab.
          const unsigned long long a = ts::sharedDescriptor(aTile + kk * 32, 16, kAtom);
#pragma unroll
          for (int i = 0; i < BN / 128; ++i)
            ts::wgmma(sum[i], a,
                      ts::sharedDescriptor(bTile + i * 2 * kSlab + kk * 2 * kAtom, kSlab, kAtom),
                      s > 0 || kk > 0);
        }
        ts::wgmmaCommit();
        ts::wgmmaWait<1>();  // the k-step before's batch is done: its stage goes back
        if (s > 0) release(filled - 1);
      }
      ts::wgmmaWait<0>();
      // The tile's last stage is free before the stores: the producer is filling the next tile.
      release(filled - 1);
      const int2 tile = tileOf(round);
      const int row0 = tile.y * BM, col0 = tile.x * BN;
      // Register j of instruction i: row 8 (j % 4 / 2) of the warp's 16, columns 128 i + 8 (j / 4)
      // + 2 (lane % 4), + 1; the pair as one float2 where N is even.
#pragma unroll
      for (int i = 0; i < BN / 128; ++i)
#pragma unroll
        for (int j = 0; j < 64; j += 2) {
          const int row = row0 + consumer * 64 + warp * 16 + j % 4 / 2 * 8 + lane / 4;
          const int col = col0 + i * 128 + j / 4 * 8 + lane % 4 * 2;
          // Every slot, those past C too: the accessors store only what lies inside.
          if (p.N % 2 == 0) {
            ts::storeC2(p, row, col, make_float2(sum[i][j], sum[i][j + 1]));
          } else {
            ts::storeC(p, row, col, sum[i][j]);
            ts::storeC(p, row, col + 1, sum[i][j + 1]);
          }
        }
    }
  }
  // No block leaves while a partner may still copy into it or arrive on its barriers.
  if (cluster > 1) ts::syncCluster();
}
)cu"},
      {"tensor-tf32",
       R"cu(// tensor-tf32 (Hopper, sm_90a): tensor-persistent for tf32. wgmma reads a tf32 tile from
// shared memory only along k, and B's rows run along n, so each block computes its tile
// transposed, C^T = B^T A^T. A's tile (256 rows of 32 values of k: 128-byte rows, swizzled)
// becomes the instruction's second operand, read through descriptors as it lies; B's tile reaches
// the instruction through registers (ts::wgmmaTf32): before every 8-deep k-chunk each consumer
// thread reads its four words of it. The columns a lane holds are chosen so that a warp's 32
// reads meet 32 banks through the swizzle. Consumer c owns columns 64c .. 64c + 63 of the 256 x
// 128 tile and all its rows; its accumulator rows are columns of C. The launch, the tile order,
// the clusters and the producer are tensor-persistent's.
TS_TYPES(tf32)
TS_PARAM(BM, 256, 256)
TS_PARAM(BN, 128, 128)
TS_PARAM(BK, 32, 32)
TS_PARAM(stages, 4, 3, 4)
TS_PARAM(cluster, 2, 1, 2)
TS_PARAM(group, 16, 8, 16)
TS_LAUNCH(384, 1, ts::ceilDiv(ts::ceilDiv(M, BM), cluster) * ts::ceilDiv(N, BN) * cluster, 1,
          stages * (BM * 128 + BK * BN * 4 + 16) + 1024)
TS_PERSISTENT(ts::ceilDiv(N, BN), ts::ceilDiv(M, BM))
TS_CLUSTER(cluster)
TS_KSTEP(BK)
TS_TENSOR_MAPS(BM, BK)

TS_KERNEL_BOUNDED(384, 1) {
  constexpr int kAtom = 1024;  // 8 rows of 128 bytes: what the swizzle permutes
  constexpr int kAStage = BM * 128, kStage = kAStage + BK * BN * 4;
  constexpr int kSlab = BK * 128;  // B: 32 columns of every row of k
  constexpr int kConsumerWarps = 8, kVector = ts::kCopyElements;
  constexpr int kACopies = BM * BK / kVector / 128, kBCopies = BK * BN / kVector / 128;
  constexpr int kBandUnitRows = group / cluster, kChunks = BK / 8;
  static_assert(TS_ELEMENT_BYTES == 4, "tf32");
  static_assert(BM == 256 && BN == 128, "two consumer warpgroups of 64 columns, 256 rows each");
  static_assert(BK * 4 == 128, "a row of a box is one 128-byte swizzle row");
  static_assert(stages * (kStage + 16) + kAtom <= 227 * 1024, "a block has 227 KiB of shared memory");
  extern __shared__ __align__(16) unsigned char shared[];
  unsigned char* const base =
      shared + (kAtom - (int)(__cvta_generic_to_shared(shared) % kAtom)) % kAtom;
  ts::Barrier* const full = reinterpret_cast<ts::Barrier*>(base + stages * kStage);
  ts::Barrier* const empty = full + stages;
  const int t = threadIdx.x;
  const auto stageOf = [&](int filled) { return base + filled % stages * kStage; };
  const auto swizzle = [](int offset) { return offset ^ (offset >> 7 & 7) << 4; };
  const bool aByTma = ts::hasTensorMap(p, ts::TileA), bByTma = ts::hasTensorMap(p, ts::TileB);
  const bool allByTma = aByTma && bByTma;
  const bool multicast = cluster > 1 && allByTma;
  const int steps = ts::ceilDiv(p.K, BK);

  // tensor-persistent's tile order: grouped units of `cluster` tiles stacked along M.
  // Computed afresh from p and the launch where needed: held across the main loop, these values
  // took registers the consumers' accumulators need (ptxas spilled).
  const auto unitRows = [&] { return ts::ceilDiv(ts::ceilDiv(p.M, BM), cluster); };
  const int rounds = (unitRows() * ts::ceilDiv(p.N, BN) - (int)blockIdx.x / cluster +
                      (int)gridDim.x / cluster - 1) /
                     ((int)gridDim.x / cluster);
  const auto tileOf = [&](int round) {
    const int u = blockIdx.x / cluster + round * (gridDim.x / cluster);
    const int perBand = kBandUnitRows * ts::ceilDiv(p.N, BN);
    const int first = u / perBand * kBandUnitRows, inBand = u % perBand;
    const int rows = min(unitRows() - first, kBandUnitRows);
    return make_int2(inBand / rows, (first + inBand % rows) * cluster + (int)blockIdx.x % cluster);
  };

  if (t == 0) {
    for (int s = 0; s < stages; ++s) {
      ts::initBarrier(full[s], allByTma ? 1 : 128);
      ts::initBarrier(empty[s], kConsumerWarps * cluster);
    }
    ts::fenceBarrierInit();
  }
  if (cluster > 1)
    ts::syncCluster();
  else
    __syncthreads();

  if (t < 128) {  // the producer, as tensor-persistent's
    ts::shrinkRegisters<40>();
    const unsigned tmaBytes = (aByTma ? kAStage : 0) + (bByTma ? kStage - kAStage : 0);
    const bool copies = !allByTma || t == 0;
    int filled = 0;
    for (int round = 0; copies && round < rounds; ++round) {
      const int2 tile = tileOf(round);
      ts::workOn(p, tile.x, tile.y);
      const int row0 = tile.y * BM, col0 = tile.x * BN;
      for (int s = 0; s < steps; ++s, ++filled) {
        const int index = filled % stages, k0 = s * BK;
        if (filled >= stages) ts::waitBarrier(empty[index], (filled / stages - 1) & 1);
        unsigned char* const aTile = stageOf(filled);
        unsigned char* const bTile = aTile + kAStage;
        if (t == 0) {
          if (allByTma)
            ts::arriveExpectingBytes(full[index], tmaBytes);
          else if (tmaBytes > 0)
            ts::expectBytes(full[index], tmaBytes);
          if (aByTma) ts::copyTileA(p, aTile, row0, k0, full[index]);
          if (multicast)
            ts::copyTileBAcrossCluster(p, bTile, k0, col0, BN, full[index]);
          else if (bByTma)
            ts::copyTileB(p, bTile, k0, col0, BN, full[index]);
        }
        if (allByTma) continue;
        // Where a row is not 16-byte aligned (K or N no multiple of 4): vector t + 128 e, row by
        // row, element by element (cp.async), into the bytes the copy engine would have used.
        if (!aByTma)
          for (int e = 0; e < kACopies; ++e) {
            const int at = t + e * 128, r = at / (BK / kVector), c = at % (BK / kVector) * kVector;
            for (int x = 0; x < kVector; ++x)
              ts::copyA(p, *reinterpret_cast<float*>(aTile + swizzle(r * 128 + (c + x) * 4)),
                        row0 + r, k0 + c + x);
          }
        if (!bByTma)
          for (int e = 0; e < kBCopies; ++e) {
            const int at = t + e * 128, r = at / (BN / kVector), c = at % (BN / kVector) * kVector;
            for (int x = 0; x < kVector; ++x) {
              const int n = c + x, byte = swizzle(n / 32 * kSlab + r * 128 + n % 32 * 4);
              ts::copyB(p, *reinterpret_cast<float*>(bTile + byte), k0 + r, col0 + n);
            }
          }
        ts::commitCopies();
        ts::waitCopies<0>();
        ts::fenceAsyncProxy();  // the copies above, then wgmma's reads through the async proxy
        ts::arrive(full[index]);
      }
    }
  } else {
    ts::growRegisters<232>();
    const int consumer = t / 128 - 1, warp = t % 128 / 32, lane = t % 32;
    const int g = lane / 4, q = lane % 4;
    const auto release = [&](int filled) {
      if (lane != 0) return;
      if (cluster > 1)
        for (int r = 0; r < cluster; ++r) ts::arriveInCluster(empty[filled % stages], r);
      else
        ts::arrive(empty[filled % stages]);
    };
    // Accumulator row r of the consumer stands for column columnOf(r) of its 64: warp w's rows g
    // and g + 8 take columns that put a warp's reads of a k row in 32 banks (two runs of four
    // columns 16 apart, then the runs 8 further; warp w % 2 the next four, w / 2 the next slab).
    const auto columnOf = [](int r) {
      const int w = r / 16, half = r % 16 / 8, lane8 = r % 8;
      return w / 2 * 32 + w % 2 * 4 + half * 8 + lane8 / 4 * 16 + lane8 % 4;
    };
    const int column[2] = {consumer * 64 + columnOf(warp * 16 + g),
                           consumer * 64 + columnOf(warp * 16 + 8 + g)};
    // Instruction i's accumulators: rows 128 i .. 128 i + 127 of the tile.
    float sum[2][64];
    int filled = 0;
    for (int round = 0; round < rounds; ++round) {
      // The tile, named for the tracer before its fragment reads (nothing in a timed launch);
      // where it lies is worked out again after the k-steps, as in tensor-persistent.
      ts::workOn(p, tileOf(round).x, tileOf(round).y);
      for (int s = 0; s < steps; ++s, ++filled) {
        ts::waitBarrier(full[filled % stages], (filled / stages) & 1);
        // The k-step before's batch reads its words from the registers this step's go to: it
        // ends first, and frees its stage.
        ts::wgmmaWait<0>();
        if (s > 0) release(filled - 1);
        const unsigned char* aTile = stageOf(filled);
        const unsigned char* bTile = aTile + kAStage;
        // Word `slot` of chunk ch: k row 8 ch + q + 4 (slot / 2), column column[slot % 2].
        unsigned words[kChunks][4];
#pragma unroll
        for (int ch = 0; ch < kChunks; ++ch)
#pragma unroll
          for (int slot = 0; slot < 4; ++slot) {
            const int k = ch * 8 + q + slot / 2 * 4, n = column[slot % 2];
            const int byte = swizzle(n / 32 * kSlab + k * 128 + n % 32 * 4);
            words[ch][slot] =
                ts::readFragment(p, ts::TileB, *reinterpret_cast<const float*>(bTile + byte));
          }
        ts::wgmmaFence();
#pragma unroll
        for (int ch = 0; ch < kChunks; ++ch)
#pragma unroll
          for (int i = 0; i < 2; ++i)
            // 8 more values of k are 32 bytes along A's rows; rows 128 i on, 8-row atoms apart.
            ts::wgmmaTf32(sum[i], words[ch],
                          ts::sharedDescriptor(aTile + i * 128 * 128 + ch * 32, 16, kAtom),
                          s > 0 || ch > 0);
        ts::wgmmaCommit();
      }
      ts::wgmmaWait<0>();
      release(filled - 1);
      const int2 tile = tileOf(round);
      const int row0 = tile.y * BM, col0 = tile.x * BN;
      // Row slot r, column slot c is register j = 4 (r / 2) + 2 c + r % 2 of the 128: row
      // 8 (r / 2) + 2q + r % 2 of the tile, column column[c]. A thread's values run down two
      // columns of C: one float at a time, every slot (the accessor stores only inside C).
#pragma unroll
      for (int r = 0; r < 64; ++r)
#pragma unroll
        for (int c = 0; c < 2; ++c) {
          const int j = 4 * (r / 2) + 2 * c + r % 2;
          const int row = row0 + 8 * (r / 2) + 2 * q + r % 2, col = col0 + column[c];
          ts::storeC(p, row, col, sum[j / 64][j % 64]);  // nothing past C
        }
    }
  }
  if (cluster > 1) ts::syncCluster();
}
)cu"},
  };
  return templates;
}

const UserKernelTemplate* userKernelTemplate(const std::string& kernel) {
  for (const UserKernelTemplate& t : userKernelTemplates())
    if (t.kernel == kernel) return &t;
  return nullptr;
}

}  // namespace tilescope
