// Kernel Editor template: TileScope puts the ts:: API (kernels/user/api) in front of it.
// shared-tiled (seed 004-3): each k-step the block stages a TILE x TILE tile of A and
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
