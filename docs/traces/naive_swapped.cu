// naive with the thread mapping swapped: x now runs down a column of C. A warp's 32 lanes read
// 16 different rows of A and only two columns of B, and store C down columns: the trace shows
// the coalescing break that the catalogue's naive avoids.
TS_PARAM(TILE, 16, 1, 2, 4, 8, 16, 32)
TS_LAUNCH(TILE, TILE, ts::ceilDiv(N, TILE), ts::ceilDiv(M, TILE), 0)

TS_KERNEL {
  const int i = blockIdx.y * TILE + threadIdx.x;
  const int j = blockIdx.x * TILE + threadIdx.y;
  if (i >= p.M || j >= p.N) return;
  float sum = 0.0f;
  for (int k = 0; k < p.K; ++k) sum += ts::loadA(p, i, k) * ts::loadB(p, k, j);
  ts::storeC(p, i, j, sum);
}
