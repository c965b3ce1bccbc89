#include "libs/openblas/openblas.h"

#include <cblas.h>

#include "libs/native/native.h"
#include "libs/ops/thread_pool.h"

namespace lw {
namespace {

constexpr int kColumnGrain = 16;

Status openblas_conv_factory(Algorithm algo, const PrimitiveArgs& a, std::unique_ptr<Primitive>* out) {
  if (algo == Algorithm::kIm2col) return create_im2col_conv(a, openblas_gemm, out);
  return create_gemm_1x1_conv(a, openblas_gemm, out);
}

}  // namespace

void openblas_gemm(int threads, int m, int n, int k, const float* a, int lda, const float* b, int ldb, float* c, int ldc,
                   bool accumulate) {
  if (m <= 0 || n <= 0) return;
  const float beta = accumulate ? 1.f : 0.f;
  parallel_for(threads, n, kColumnGrain, [&](int64_t j0, int64_t j1) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, int(j1 - j0), k, 1.f, a, lda, b + j0, ldb, beta, c + j0, ldc);
  });
}

void register_openblas(Registry& r) {
  // One OpenBLAS thread per call: parallelism comes only from our pinned thread sets.
  openblas_set_num_threads(1);
  start_thread_sets();
  register_f32_convs(r, Library::kOpenBLAS, {{Algorithm::kIm2col, Layout::kNCHW}, {Algorithm::kGemm1x1, Layout::kNCHW}},
                     openblas_conv_factory);
}

}  // namespace lw
