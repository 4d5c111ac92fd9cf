// ts/problem.cuh: what a kernel is given. The problem p (C = A B), the element type ts::Element
// it is compiled for (fp32, tf32, fp16 or bf16), and what p carries for the tracer and for TMA.
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
}  // namespace ts
