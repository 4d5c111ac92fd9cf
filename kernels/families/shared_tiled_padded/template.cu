// Kernel Editor template: TileScope puts the ts:: API (kernels/user/api) in front of it.
// shared-tiled-padded: shared-tiled with the A tile stored transposed, k along its rows:
// a warp's lanes (one tx apart) then store down a column of the tile, TILE + PAD words
// apart. With TILE = 32 and PAD = 0 all 32 lanes hit one bank and their stores run one
// after another; PAD = 1 puts each row on the next bank. The loads from global memory
// stay coalesced. Compare both pads in the memory-access view's banks.
TS_PARAM(TILE, 32, 8, 16, 32)
TS_PARAM(PAD, 1, 0, 1)
TS_LAUNCH(TILE, TILE, ts::ceilDiv(N, TILE), ts::ceilDiv(M, TILE), 0)
TS_KSTEP(TILE)

TS_KERNEL {
  __shared__ float a[TILE][TILE + PAD];  // a[k][row]: transposed
  __shared__ float b[TILE][TILE];
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
