// ts/shared.cuh: reads and writes of a staged tile in shared memory that the tracer sees.
// Relies on ts/problem.cuh and ts/tracing.cuh in front of it (tilescope_api.cuh's order).
namespace ts {
// An element of a staged tile in shared memory (a float, or an Element), read or written: the
// bank view draws which banks a warp's reads and writes meet. Plain indexing works too, unseen
// by the tracer.
template <typename Word>
__device__ __forceinline__ Word readShared(const Problem& p, Tile tile, const Word& word) {
  static_assert(sizeof(Word) <= 4, "one element of at most 4 bytes: readShared4 reads 16");
  detail::checkShared(&word, sizeof(Word), false);
#ifdef TS_TRACE
  detail::record(p, 2, tile, detail::sharedWord(&word));
#endif
  return word;
}
template <typename Word>
__device__ __forceinline__ void writeShared(const Problem& p, Tile tile, Word& word, Word value) {
  static_assert(sizeof(Word) <= 4, "one element of at most 4 bytes: writeShared4 writes 16");
  detail::checkShared(&word, sizeof(Word), true);
#ifdef TS_TRACE
  detail::record(p, 3, tile, detail::sharedWord(&word));
#endif
  word = value;
}
// Four consecutive words from `first` on as one 16-byte access: `first` 16-byte aligned (a
// __shared__ __align__(16) array, at an index that is a multiple of 4).
__device__ __forceinline__ float4 readShared4(const Problem& p, Tile tile, const float& first) {
  detail::checkShared(&first, 16, false);
#ifdef TS_TRACE
  detail::record(p, 2, tile, detail::sharedWord(&first), 4);
#endif
  return *reinterpret_cast<const float4*>(&first);
}
__device__ __forceinline__ void writeShared4(const Problem& p, Tile tile, float& first,
                                             float4 value) {
  detail::checkShared(&first, 16, true);
#ifdef TS_TRACE
  detail::record(p, 3, tile, detail::sharedWord(&first), 4);
#endif
  *reinterpret_cast<float4*>(&first) = value;
}
}  // namespace ts
