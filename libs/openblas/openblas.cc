#include "libs/openblas/openblas.h"

#include <cblas.h>

#include "libs/native/native.h"
#include "libs/ops/thread_pool.h"

namespace lw {
namespace {

constexpr int kColumnGrain = 16;

Status supports(const ImplDesc& d, const Layer& l, const std::vector<Shape>& in) {
  LW_RETURN_IF_ERROR(supports_f32_conv(d, l, in));
  return supports_conv_algorithm(d.algorithm, d.layout_in, l, in);
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
  for (Algorithm algo : {Algorithm::kIm2col, Algorithm::kGemm1x1})
    for (bool fused : {false, true})
      for (int t : kThreadSets) {
        ImplDesc d;
        d.op = LayerKind::kConv2d;
        d.library = Library::kOpenBLAS;
        d.algorithm = algo;
        d.threads = t;
        d.fused_activation = fused;
        CreateFn create = algo == Algorithm::kIm2col
                              ? CreateFn([](const PrimitiveArgs& a, std::unique_ptr<Primitive>* out) { return create_im2col_conv(a, openblas_gemm, out); })
                              : CreateFn([](const PrimitiveArgs& a, std::unique_ptr<Primitive>* out) { return create_gemm_1x1_conv(a, openblas_gemm, out); });
        r.add({d, supports, create});
      }
}

}  // namespace lw
