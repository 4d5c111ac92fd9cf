#include <cblas.h>

#include "cpu_kernels.hpp"

namespace tilescope::cpu {

// OpenBLAS sgemm, the CPU yardstick. One call: it cannot be cancelled part-way.
void runLibrary(const Gemm& g, const Params& /*params*/, const std::atomic<bool>* /*cancel*/) {
  // validateShape() bounds every dimension by kMaxDimension, so they fit BLAS's int.
  const int m = int(g.m), n = int(g.n), k = int(g.k);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, g.a, k, g.b, n, 0.0f, g.c,
              n);
}

}  // namespace tilescope::cpu
