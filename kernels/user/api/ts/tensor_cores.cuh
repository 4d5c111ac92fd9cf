// ts/tensor_cores.cuh: the tensor cores. mma.sync on fragments in registers (sm_80 and up), and
// Hopper's warpgroup MMA (wgmma, sm_90a) on tiles in shared memory.
// Relies on ts/problem.cuh and ts/tracing.cuh in front of it (tilescope_api.cuh's order).
namespace ts {
// ---- Tensor cores (mma.sync, sm_80 and up) ----
// One mma multiplies a 16 x kMmaK fragment of A by a kMmaK x 8 fragment of B into a 16 x 8
// float accumulator spread over the warp: lane 4g + q holds rows g and g + 8, columns 2q and
// 2q + 1 (d[0], d[1] on row g; d[2], d[3] on row g + 8). kMmaK is 32 bytes of the element type:
// 16 fp16 or bf16 values, 8 tf32, 32 FP8 (and one wgmma's k).
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
// b the B fragment (2), d the accumulator. FP8 (m16n8k32) needs sm_89.
__device__ __forceinline__ void mma(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
#if __CUDA_ARCH__ >= 800 && (TS_ELEMENT_BYTES > 1 || __CUDA_ARCH__ >= 890)
#if defined(TS_FP16)
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
#elif defined(TS_BF16)
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
#elif defined(TS_E4M3)
  asm volatile(
      "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
#elif defined(TS_E5M2)
  asm volatile(
      "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
#else
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
#endif
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
  __trap();  // these mma.sync shapes need sm_80, FP8's sm_89
#endif
}
// ---- Hopper's warpgroup MMA (wgmma, sm_90a) ----
// A shared-memory matrix descriptor for wgmma: where the operand starts and the byte offsets
// between its 1024-byte atoms (8 rows of 128 bytes, 128-byte swizzled), leading and strided. A
// K-major operand (A, and an FP8 B) steps along its 8-row atoms by the stride; an N-major one (B)
// steps to the next 64 columns by the leading offset and to the next 8 rows of k by the stride.
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
// One m64n128 wgmma of the warpgroup (its 128 threads together) over kMmaK values of k: d = a b
// (+ d where `accumulate`), both operands read from shared memory through their descriptors.
// fp16 and bf16 (m64n128k16): A 64 x 16 K-major and B 16 x 128 N-major (rows of B contiguous).
// FP8 (m64n128k32, e4m3 or e5m2): both K-major, B as 128 rows of n of 32 values of k each, as it
// lies in memory (TS_B_K_MAJOR): the instruction cannot transpose 8-bit operands. Register j of d
// is row 16 (warp % 4) + 8 (j % 4 / 2) + lane / 4 and column 8 (j / 4) + 2 (lane % 4) + j % 2 of
// the 64 x 128 tile.
__device__ __forceinline__ void wgmma(float (&d)[64], unsigned long long a, unsigned long long b,
                                      bool accumulate) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL) && TS_ELEMENT_BYTES <= 2
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
#if defined(TS_BF16)
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {"
#elif defined(TS_E4M3)
      "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {"
#elif defined(TS_E5M2)
      "wgmma.mma_async.sync.aligned.m64n128k32.f32.e5m2.e5m2 {"
#else
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {"
#endif
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#if TS_ELEMENT_BYTES == 1
      "}, %64, %65, p, 1, 1;\n}\n"  // no transpose flags: both operands K-major
#else
      "}, %64, %65, p, 1, 1, 0, 1;\n}\n"  // A K-major, B transposed (N-major)
#endif
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
  __trap();  // wgmma: sm_90a, fp16, bf16, e4m3 or e5m2
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
}  // namespace ts
