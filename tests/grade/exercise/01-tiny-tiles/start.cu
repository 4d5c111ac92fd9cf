// Kernel Editor template: TileScope puts the ts:: API (kernels/user/api) in front of it.
// naive (seeds 001a, 003a): one thread per element of C. x runs along a row of C, so
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
