// Kernel Editor template: TileScope puts the ts:: API (kernels/user/api) in front of it.
// register-tiled (seed 004-2): blocks of 16 x 16 threads, each accumulating a
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
