// Kernel Editor template: TileScope puts the ts:: API (kernels/user/api) in front of it.
// row-per-thread (seed 000a): each thread owns a row of C and walks along it, so a
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
