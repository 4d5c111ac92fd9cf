// Exercise 1: each thread owns a row of C, so a warp's 32 lanes load from 32 rows of A.
// Map the threads so that a warp's lanes run along a row of C instead: coalesced loads.
TS_PARAM(TILE, 32, 1, 2, 4, 8, 16, 32)
TS_LAUNCH(TILE, TILE, ts::ceilDiv(M, TILE), 1, 0)

TS_KERNEL {
  // x, the index that changes from lane to lane, picks the row: neighbouring lanes read A
  // K floats apart, one 32-byte sector each.
  const int i = blockIdx.x * TILE + threadIdx.x;
  if (i >= p.M) return;
  // The TILE threads of a row share out its columns.
  for (int j = threadIdx.y; j < p.N; j += TILE) {
    float sum = 0.0f;
    for (int k = 0; k < p.K; ++k) sum += ts::loadA(p, i, k) * ts::loadB(p, k, j);
    ts::storeC(p, i, j, sum);
  }
}
