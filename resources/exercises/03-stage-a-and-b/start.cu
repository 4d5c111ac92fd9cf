// Exercise 3: A is staged in shared memory, but every multiply-add still loads its B from
// global memory. Stage a TILE x TILE tile of B as well, and multiply from the two tiles.
TS_PARAM(TILE, 16, 1, 2, 4, 8, 16, 32)
TS_LAUNCH(TILE, TILE, ts::ceilDiv(N, TILE), ts::ceilDiv(M, TILE), 0)
TS_KSTEP(TILE)

TS_KERNEL {
  __shared__ float a[TILE][TILE];
  const int ty = threadIdx.y, tx = threadIdx.x;
  const int i = blockIdx.y * TILE + ty;
  const int j = blockIdx.x * TILE + tx;
  float sum = 0.0f;
  for (int k0 = 0; k0 < p.K; k0 += TILE) {
    // Thread (x, y) stages A[i][k0 + x]. Outside the matrix the tile holds zeros, so every
    // thread reaches both barriers.
    ts::writeShared(p, ts::TileA, a[ty][tx],
                    i < p.M && k0 + tx < p.K ? ts::loadA(p, i, k0 + tx) : 0.0f);
    __syncthreads();
    for (int kk = 0; kk < TILE; ++kk) {
      const float aValue = ts::readShared(p, ts::TileA, a[ty][kk]);
      // B[k][j] is loaded by all TILE threads of column j of the block, once each.
      if (i < p.M && j < p.N && k0 + kk < p.K) sum += aValue * ts::loadB(p, k0 + kk, j);
    }
    __syncthreads();
  }
  if (i < p.M && j < p.N) ts::storeC(p, i, j, sum);
}
