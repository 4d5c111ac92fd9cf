// shared-tiled (seed 004-3) with the Kernel Editor's experiment made: A's tile is stored
// transposed (write a[tx][ty], read a[kk][ty]), so a warp writes a column of the tile, TILE + PAD
// words apart. At TILE = 32 and PAD = 0 its 32 lanes meet in one bank: 31 conflicts a write.
// PAD = 1 moves each row one bank on, and the column spreads over all 32 banks.
TS_PARAM(TILE, 32, 1, 2, 4, 8, 16, 32)
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
    ts::writeShared(p, ts::TileA, a[tx][ty],
                    i < p.M && k0 + tx < p.K ? ts::loadA(p, i, k0 + tx) : 0.0f);
    ts::writeShared(p, ts::TileB, b[ty][tx],
                    k0 + ty < p.K && j < p.N ? ts::loadB(p, k0 + ty, j) : 0.0f);
    __syncthreads();
    for (int kk = 0; kk < TILE; ++kk)
      sum += ts::readShared(p, ts::TileA, a[kk][ty]) * ts::readShared(p, ts::TileB, b[kk][tx]);
    __syncthreads();
  }
  if (i < p.M && j < p.N) ts::storeC(p, i, j, sum);
}
