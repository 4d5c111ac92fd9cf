// Allocates 256 GiB in every thread.
TS_PARAM(TILE, 8, 4, 8, 16)
TS_LAUNCH(TILE, TILE, ts::ceilDiv(N, TILE), ts::ceilDiv(M, TILE), 0)
TS_KSTEP(TILE)

TS_KERNEL {
  __shared__ float a[TILE][TILE];
  __shared__ float b[TILE][TILE];
  const int ty = threadIdx.y, tx = threadIdx.x;
  const int i = blockIdx.y * TILE + ty;
  const int j = blockIdx.x * TILE + tx;
  float* scratch = new float[std::size_t(1) << 36];  // 256 GiB
  scratch[tx] = 0.0f;
  float sum = scratch[ty];
  delete[] scratch;
  for (int k0 = 0; k0 < p.K; k0 += TILE) {
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
