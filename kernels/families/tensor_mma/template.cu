// Kernel Editor template: TileScope puts the ts:: API (kernels/user/api) in front of it.
// tensor-mma (CUTLASS's sm80 multistage tensor-op GEMM): pipelined's warp grid and
// cp.async stages, but the multiply-adds run on the tensor cores. One ts::mma has the warp
// multiply a 16 x kMmaK fragment of A by a kMmaK x 8 fragment of B into a 16 x 8 accumulator,
// so a lane's outputs follow the hardware's layout: rows g and g + 8, columns 2q and 2q + 1
// of every 8, lane 4g + q. ldmatrix (ts::loadMatrices) reads a fragment for the whole warp,
// each lane naming one 16-byte row; the tiles' rows are padded by 16 bytes so the 8 rows of
// one 8 x 8 matrix start on 8 different groups of 4 banks. Try this: drop the padding (the
// + 16 in kAPitch, kBPitch and TS_LAUNCH) and trace it: the access view's Bank read shows
// each ldmatrix of A taking 16 wavefronts where it took 4, of B 32. tf32 has no ldmatrix: each
// lane reads its fragment registers one word at a time (ts::readFragment).
TS_TYPES(fp16, bf16, tf32)
TS_PARAM(BM, 128, 64, 128)
TS_PARAM(BN, 128, 128, 256)
TS_PARAM(BK, 32, 32)
TS_PARAM(WM, 64, 32, 64)
TS_PARAM(WN, 32, 32, 64)
TS_PARAM(stages, 4, 3, 4)
TS_LAUNCH(BM / WM * (BN / WN) * 32, 1, ts::ceilDiv(N, BN), ts::ceilDiv(M, BM),
          (BM * (BK * TS_ELEMENT_BYTES + 16) +
           BK * (BN * TS_ELEMENT_BYTES + (TS_ELEMENT_BYTES == 4 ? 32 : 16))) *
              stages)
TS_KSTEP(BK)

TS_KERNEL {
  constexpr int kBytes = TS_ELEMENT_BYTES;
  // The row pitches in bytes: 16 bytes of padding (32 for tf32's B, read down its columns).
  constexpr int kAPitch = BK * kBytes + 16, kBPitch = BN * kBytes + (kBytes == 4 ? 32 : 16);
  constexpr int kAStage = BM * kAPitch, kStage = kAStage + BK * kBPitch;
  constexpr int kWarpsAlongN = BN / WN, kThreads = BM / WM * kWarpsAlongN * 32;
  constexpr int kFragmentsM = WM / 16, kFragmentsN = WN / 8;  // a warp's accumulators
  constexpr int kVector = ts::kCopyElements;                  // elements per 16-byte copy
  constexpr int kACopies = BM * BK / kVector / kThreads, kBCopies = BK * BN / kVector / kThreads;
  static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles must divide the block tile");
  static_assert(kThreads >= 128 && kThreads <= 256, "a block must have 4 to 8 warps");
  static_assert(WM % 16 == 0 && WN % 16 == 0, "a warp tile must be whole 16 x 16 fragments");
  static_assert(kACopies >= 1 && kACopies * kThreads * kVector == BM * BK && kBCopies >= 1 &&
                    kBCopies * kThreads * kVector == BK * BN,
                "every thread must copy as many 16-byte vectors of each tile");
  extern __shared__ __align__(128) unsigned char shared[];  // stages stages: A, then B
  const int t = threadIdx.x, warp = t / 32, lane = t % 32;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const int warpRow = warp / kWarpsAlongN * WM, warpCol = warp % kWarpsAlongN * WN;
  const auto stageOf = [&](int s) { return shared + s % stages * kStage; };
  const auto aAt = [&](unsigned char* stage, int m, int k) -> ts::Element& {
    return *reinterpret_cast<ts::Element*>(stage + m * kAPitch + k * kBytes);
  };
  const auto bAt = [&](unsigned char* stage, int k, int n) -> ts::Element& {
    return *reinterpret_cast<ts::Element*>(stage + kAStage + k * kBPitch + n * kBytes);
  };
  // Rows 16-byte aligned: copies of 16 bytes, else one element at a time.
  const bool aVectors = p.K % kVector == 0, bVectors = p.N % kVector == 0;
  // Starts k-step s's copies: copy e of thread t takes the vector t + e * threads of each
  // tile, row by row. Past the matrix a copy reads nothing and fills zeros.
  const auto copy = [&](int s) {
    unsigned char* stage = stageOf(s);
    const int k0 = s * BK;
#pragma unroll
    for (int e = 0; e < kACopies; ++e) {
      const int at = t + e * kThreads, r = at / (BK / kVector), c = at % (BK / kVector) * kVector;
      if (aVectors) {
        ts::copyA16(p, aAt(stage, r, c), row0 + r, k0 + c);
      } else {
        for (int x = 0; x < kVector; ++x) ts::copyA(p, aAt(stage, r, c + x), row0 + r, k0 + c + x);
      }
    }
#pragma unroll
    for (int e = 0; e < kBCopies; ++e) {
      const int at = t + e * kThreads, r = at / (BN / kVector), c = at % (BN / kVector) * kVector;
      if (bVectors) {
        ts::copyB16(p, bAt(stage, r, c), k0 + r, col0 + c);
      } else {
        for (int x = 0; x < kVector; ++x) ts::copyB(p, bAt(stage, r, c + x), k0 + r, col0 + c + x);
      }
    }
  };
  float sum[kFragmentsM][kFragmentsN][4] = {};
  const int steps = ts::ceilDiv(p.K, BK);
  for (int s = 0; s < stages - 1; ++s) {
    if (s < steps) copy(s);
    ts::commitCopies();  // a group each, empty or not, so the count of groups stays exact
  }
  for (int s = 0; s < steps; ++s) {
    ts::waitCopies<stages - 2>();  // this thread's copies of k-step s have landed
    __syncthreads();               // everyone's have, and the stage k-step s - 1 used is free
    if (s + stages - 1 < steps) copy(s + stages - 1);
    ts::commitCopies();
    unsigned char* stage = stageOf(s);
#pragma unroll
    for (int k0 = 0; k0 < BK; k0 += ts::kMmaK) {
      unsigned a[kFragmentsM][4], b[kFragmentsN][2];
#if TS_ELEMENT_BYTES == 2
      // Fragment row i of A: lanes 0-15 name its rows at k0, lanes 16-31 the same at k0 + 8.
#pragma unroll
      for (int i = 0; i < kFragmentsM; ++i)
        ts::loadMatrices(p, ts::TileA, aAt(stage, warpRow + i * 16 + lane % 16, k0 + lane / 16 * 8),
                         a[i]);
#pragma unroll
      // Fragment columns 2j and 2j + 1 of B, transposed: lanes name rows k0 .. k0 + 15.
      for (int j = 0; j < kFragmentsN / 2; ++j) {
        unsigned pair[4];
        ts::loadMatricesTransposed(
            p, ts::TileB, bAt(stage, k0 + lane % 16, warpCol + j * 16 + lane / 16 * 8), pair);
        b[2 * j][0] = pair[0], b[2 * j][1] = pair[1];
        b[2 * j + 1][0] = pair[2], b[2 * j + 1][1] = pair[3];
      }
#else
      // tf32: register r of A's fragment is row g + 8 (r % 2), k q + 4 (r / 2); of B's, k q + 4r.
#pragma unroll
      for (int i = 0; i < kFragmentsM; ++i)
#pragma unroll
        for (int r = 0; r < 4; ++r)
          a[i][r] = ts::readFragment(
              p, ts::TileA,
              aAt(stage, warpRow + i * 16 + lane / 4 + r % 2 * 8, k0 + lane % 4 + r / 2 * 4));
#pragma unroll
      for (int j = 0; j < kFragmentsN; ++j)
#pragma unroll
        for (int r = 0; r < 2; ++r)
          b[j][r] = ts::readFragment(p, ts::TileB,
                                     bAt(stage, k0 + lane % 4 + r * 4, warpCol + j * 8 + lane / 4));
#endif
#pragma unroll
      for (int i = 0; i < kFragmentsM; ++i)
#pragma unroll
        for (int j = 0; j < kFragmentsN; ++j) ts::mma(sum[i][j], a[i], b[j]);
    }
  }
  // Each accumulator pair (columns 2q, 2q + 1) as one float2 where N is even.
#pragma unroll
  for (int i = 0; i < kFragmentsM; ++i)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = row0 + warpRow + i * 16 + h * 8 + lane / 4;
      if (row >= p.M) continue;
#pragma unroll
      for (int j = 0; j < kFragmentsN; ++j) {
        const int col = col0 + warpCol + j * 8 + lane % 4 * 2;
        const float first = sum[i][j][2 * h], second = sum[i][j][2 * h + 1];
        if (p.N % 2 == 0) {
          if (col < p.N) ts::storeC2(p, row, col, make_float2(first, second));
        } else {
          if (col < p.N) ts::storeC(p, row, col, first);
          if (col + 1 < p.N) ts::storeC(p, row, col + 1, second);
        }
      }
    }
}
