// ts/accessors.cuh: loads of A and B and stores of C that the tracer sees.
// Relies on ts/problem.cuh and ts/tracing.cuh in front of it (tilescope_api.cuh's order).
namespace ts {
// The accessors a traced launch records; plain pointer code on p.A, p.B and p.C works too.
// A load outside its matrix returns zero, and the tracer draws its lane idle in that instruction.
__device__ __forceinline__ Element loadA(const Problem& p, int i, int k) {
  detail::record(p, 0, i, k);
  return detail::inside(i, k, p.M, p.K) ? p.A[(long long)i * p.K + k] : Element{};
}
__device__ __forceinline__ Element loadB(const Problem& p, int k, int j) {
  detail::record(p, 1, k, j);
  return detail::inside(k, j, p.K, p.N) ? p.B[offsetB(p, k, j)] : Element{};
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
}  // namespace ts
