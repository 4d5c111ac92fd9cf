// Exercise 2, a solution: each k-step the block stages a TILE x TILE tile of A in shared
// memory, each element loaded once, then every thread reads its row of the tile from there.
TS_PARAM(TILE, 16, 1, 2, 4, 8, 16, 32)
TS_LAUNCH(TILE, TILE, ts::ceilDiv(N, TILE), ts::ceilDiv(M, TILE), 0)
TS_KSTEP(TILE)

TS_KERNEL {
  __shared__ float a[TILE][TILE];
  const int ty = threadIdx.y, tx = threadIdx.x;
  const int i = blockIdx.y * TILE + ty;
  const int j = blockIdx.x * TILE + tx;
  // No early return: threads outside C still load their part of the tile and reach the
  // barriers the others wait at.
  float sum = 0.0f;
  for (int k0 = 0; k0 < p.K; k0 += TILE) {
    // Thread (x, y) loads A[i][k0 + x]: a row of the block loads TILE consecutive floats.
    // Outside the matrix the tile holds zeros.
    ts::writeShared(p, ts::TileA, a[ty][tx],
                    i < p.M && k0 + tx < p.K ? ts::loadA(p, i, k0 + tx) : 0.0f);
    __syncthreads();  // the whole tile is written before anyone reads it
    for (int kk = 0; kk < TILE; ++kk) {
      const float aValue = ts::readShared(p, ts::TileA, a[ty][kk]);
      if (i < p.M && j < p.N && k0 + kk < p.K) sum += aValue * ts::loadB(p, k0 + kk, j);
    }
    __syncthreads();  // everyone is done reading before the next k-step overwrites the tile
  }
  if (i < p.M && j < p.N) ts::storeC(p, i, j, sum);
}
