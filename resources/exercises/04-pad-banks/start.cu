// Exercise 4: A's tile is stored transposed, so a warp writes down a column of it, 32 words
// apart: all 32 lanes in one bank, 32 passes. Pad each row of the tile by one word.
TS_PARAM(TILE, 32, 8, 16, 32)
TS_LAUNCH(TILE, TILE, ts::ceilDiv(N, TILE), ts::ceilDiv(M, TILE), 0)
TS_KSTEP(TILE)

TS_KERNEL {
  __shared__ float a[TILE][TILE];  // a[k][row]: transposed
  __shared__ float b[TILE][TILE];
  const int ty = threadIdx.y, tx = threadIdx.x;
  const int i = blockIdx.y * TILE + ty;
  const int j = blockIdx.x * TILE + tx;
  float sum = 0.0f;
  for (int k0 = 0; k0 < p.K; k0 += TILE) {
    // The loads from global memory are coalesced (lanes along k), but the lanes store down
    // a column of a: words tx * TILE + ty.
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
