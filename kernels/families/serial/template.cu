// Kernel Editor template: TileScope puts the ts:: API (kernels/user/api) in front of it.
// serial (seed 002): one thread computes every element of C in turn, row by row. On a
// GPU it leaves all but one of thousands of cores idle: the baseline that shows why we
// parallelise at all. Keep it small: one thread takes seconds for 512^3.
TS_LAUNCH(1, 1, 1, 1, 0)

TS_KERNEL {
  for (int i = 0; i < p.M; ++i)
    for (int j = 0; j < p.N; ++j) {
      float sum = 0.0f;
      for (int k = 0; k < p.K; ++k) sum += ts::loadA(p, i, k) * ts::loadB(p, k, j);
      ts::storeC(p, i, j, sum);
    }
}
