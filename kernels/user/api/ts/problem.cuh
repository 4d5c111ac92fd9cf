// ts/problem.cuh: what a kernel is given. The problem p (C = A B), the element type ts::Element
// it is compiled for (fp32, tf32, fp16, bf16, e4m3 or e5m2), and what p carries for the tracer
// and for TMA.
// It needs nothing but NVRTC's built-ins; the other parts of tilescope_api.cuh rely on it.
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
// The 16- and 8-bit element types, as their bits (cuda_fp16.h, cuda_bf16.h and cuda_fp8.h are
// not needed): ts::toFloat reads one.
struct half {
  unsigned short bits;
};
struct bfloat16 {
  unsigned short bits;
};
struct e4m3 {
  unsigned char bits;
};
struct e5m2 {
  unsigned char bits;
};
// The type of A and B this variant is compiled for, one of those TS_TYPES lists: float for fp32
// and tf32 (floats the tensor cores read to 10 mantissa bits), ts::half for fp16, ts::bfloat16 for
// bf16, ts::e4m3 and ts::e5m2 for the FP8 types. C is always float. TS_ELEMENT_BYTES is its size,
// for the preprocessor (#if).
// TS_B_K_MAJOR is 1 where B is stored K-major, as its transpose: N rows of K values, B[k][j] at
// j K + k. TileScope stores an FP8 B so, as Hopper's FP8 tensor cores read it only along k and the
// copy engine cannot transpose; the other types keep B K x N, row-major (TS_B_K_MAJOR 0).
#if defined(TS_FP16)
typedef half Element;
#define TS_ELEMENT_BYTES 2
#elif defined(TS_BF16)
typedef bfloat16 Element;
#define TS_ELEMENT_BYTES 2
#elif defined(TS_E4M3)
typedef e4m3 Element;
#define TS_ELEMENT_BYTES 1
#elif defined(TS_E5M2)
typedef e5m2 Element;
#define TS_ELEMENT_BYTES 1
#else
typedef float Element;
#define TS_ELEMENT_BYTES 4
#endif
#define TS_B_K_MAJOR (TS_ELEMENT_BYTES == 1)
__device__ __forceinline__ float toFloat(float value) { return value; }
__device__ __forceinline__ float toFloat(half value) {
  float out;
  asm("cvt.f32.f16 %0, %1;" : "=f"(out) : "h"(value.bits));
  return out;
}
__device__ __forceinline__ float toFloat(bfloat16 value) {
  return __uint_as_float((unsigned)value.bits << 16);
}
// E5M2 is the top byte of an fp16. E4M3 (bias 7) has no infinities: S.1111.111 is NaN.
__device__ __forceinline__ float toFloat(e5m2 value) {
  return toFloat(half{(unsigned short)(value.bits << 8)});
}
__device__ __forceinline__ float toFloat(e4m3 value) {
  const unsigned sign = (unsigned)(value.bits >> 7) << 31;
  const unsigned exponent = value.bits >> 3 & 15, mantissa = value.bits & 7;
  if (exponent == 15 && mantissa == 7) return __uint_as_float(sign | 0x7FC00000u);
  if (exponent == 0)  // subnormal: mantissa 2^-9
    return __uint_as_float(sign | __float_as_uint((float)mantissa * 0x1p-9f));
  return __uint_as_float(sign | (exponent + 120) << 23 | mantissa << 20);
}
// A TMA tensor map (CUtensorMap): how the copy engine reads boxes of a matrix.
struct alignas(128) TensorMap {
  unsigned long long opaque[16];
};
// C = A B: A is M x K, B is K x N and C is M x N, all row-major; but an FP8 B is N x K
// (TS_B_K_MAJOR). The accessors take B's element as (k, j) either way.
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
// Where B's element (k, j) lies in p.B: k N + j, or j K + k where B is K-major (TS_B_K_MAJOR).
__device__ __forceinline__ long long offsetB(const Problem& p, int k, int j) {
#if TS_B_K_MAJOR
  return (long long)j * p.K + k;
#else
  return (long long)k * p.N + j;
#endif
}
// The staged tiles the shared-memory accessors name.
enum Tile { TileA = 0, TileB = 1 };
}  // namespace ts
