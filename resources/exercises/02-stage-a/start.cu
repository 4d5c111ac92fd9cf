// Exercise 2: each multiply-add loads its A from global memory, and the TILE threads of a row
// of the block all load the same values. Stage a TILE x TILE tile of A in shared memory instead.
TS_PARAM(TILE, 16, 1, 2, 4, 8, 16, 32)
TS_LAUNCH(TILE, TILE, ts::ceilDiv(N, TILE), ts::ceilDiv(M, TILE), 0)

TS_KERNEL {
  // One thread per element of C, x running along a row of C: coalesced loads.
  const int i = blockIdx.y * TILE + threadIdx.y;
  const int j = blockIdx.x * TILE + threadIdx.x;
  if (i >= p.M || j >= p.N) return;
  float sum = 0.0f;
  // A[i][k] is loaded by all TILE threads of row i of the block, once each.
  for (int k = 0; k < p.K; ++k) sum += ts::loadA(p, i, k) * ts::loadB(p, k, j);
  ts::storeC(p, i, j, sum);
}
