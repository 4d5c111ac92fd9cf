// ts/cp_async.cuh: copies from global into shared memory that skip the registers (cp.async,
// sm_80 and up), in commit groups.
// Relies on ts/problem.cuh and ts/tracing.cuh in front of it (tilescope_api.cuh's order).
namespace ts {
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
// or 1 (cp.async copies 4, 8 or 16).
__device__ __forceinline__ void copyElement(Element& to, const Element* from, bool inside) {
  if (sizeof(Element) == 4)
    copyAsync<4>(&to, from, inside);
  else
    to = inside ? *from : Element{};
}
}  // namespace detail
// The elements one 16-byte copy takes: 4 floats, 8 fp16 or bf16 values, or 16 FP8 values.
constexpr int kCopyElements = 16 / (int)sizeof(Element);
// Copies straight from global into shared memory without passing through registers (cp.async,
// sm_80 and up): A[i][k] into `to`, B[k][j] into `to`, zeros outside the matrix; copyA16 and
// copyB16 take kCopyElements consecutive elements as 16 bytes (K, or N, and k, or j, multiples of
// kCopyElements), consecutive along B's rows in memory: along j, or along k where B is K-major
// (TS_B_K_MAJOR: K and k multiples of kCopyElements). The tracer sees a load and a write of the tile. They land after
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
  detail::copyElement(to, inside ? p.B + offsetB(p, k, j) : p.B, inside);
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
  detail::copyAsync<16>(&to, inside ? p.B + offsetB(p, k, j) : p.B, inside);
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
}  // namespace ts
