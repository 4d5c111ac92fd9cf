// Exercise 4, a solution: A's tile stays transposed, each row padded by PAD words. A warp's
// stores down a column are then TILE + 1 words apart: each lane on the next bank.
TS_PARAM(TILE, 32, 8, 16, 32)
TS_PARAM(PAD, 1, 0, 1)
TS_LAUNCH(TILE, TILE, ts::ceilDiv(N, TILE), ts::ceilDiv(M, TILE), 0)
TS_KSTEP(TILE)

TS_KERNEL {
  __shared__ float a[TILE][TILE + PAD];  // a[k][row]: transposed, the pad words never used
  __shared__ float b[TILE][TILE];
  const int ty = threadIdx.y, tx = threadIdx.x;
  const int i = blockIdx.y * TILE + ty;
  const int j = blockIdx.x * TILE + tx;
  float sum = 0.0f;
  for (int k0 = 0; k0 < p.K; k0 += TILE) {
    // Lane tx stores word tx * (TILE + PAD) + ty: with TILE = 32 and PAD = 1, bank
    // (tx + ty) % 32, a different one for every lane. Outside the matrix a tile holds zeros.
    ts::writeShared(p, ts::TileA, a[tx][ty],
                    i < p.M && k0 + tx < p.K ? ts::loadA(p, i, k0 + tx) : 0.0f);
    ts::writeShared(p, ts::TileB, b[ty][tx],
                    k0 + ty < p.K && j < p.N ? ts::loadB(p, k0 + ty, j) : 0.0f);
    __syncthreads();
    // A warp reads one word of a (a broadcast) and one row of b: no conflicts either.
    for (int kk = 0; kk < TILE; ++kk)
      sum += ts::readShared(p, ts::TileA, a[kk][ty]) * ts::readShared(p, ts::TileB, b[kk][tx]);
    __syncthreads();
  }
  if (i < p.M && j < p.N) ts::storeC(p, i, j, sum);
}
