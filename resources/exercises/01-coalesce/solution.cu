// Exercise 1, a solution: one thread per element of C, x running along a row of C.
// A warp's lanes read one float of A (a broadcast) and consecutive floats of B.
TS_PARAM(TILE, 16, 1, 2, 4, 8, 16, 32)
TS_LAUNCH(TILE, TILE, ts::ceilDiv(N, TILE), ts::ceilDiv(M, TILE), 0)

TS_KERNEL {
  // Lanes differ first in x, so x picks the column: 16 lanes read 16 consecutive floats of
  // B (two sectors) and share one float of A; the other 16 do the same on the next row.
  const int i = blockIdx.y * TILE + threadIdx.y;
  const int j = blockIdx.x * TILE + threadIdx.x;
  if (i >= p.M || j >= p.N) return;
  float sum = 0.0f;
  for (int k = 0; k < p.K; ++k) sum += ts::loadA(p, i, k) * ts::loadB(p, k, j);
  ts::storeC(p, i, j, sum);
}
