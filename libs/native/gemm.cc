// The native GEMM: Eigen's single-threaded kernel on blocks split over the pinned thread set.
// Eigen packs its panels in stack buffers up to EIGEN_STACK_ALLOCATION_LIMIT; raising the
// limit keeps run() free of heap allocation for the block sizes Eigen picks here
// (kc x mc + kc x nc floats, well under 2 MiB; threads have 8 MiB stacks).
#define EIGEN_STACK_ALLOCATION_LIMIT (2 * 1024 * 1024)
#include <Eigen/Core>

#include "libs/native/native.h"
#include "libs/ops/thread_pool.h"

namespace lw {
namespace {

using RowMat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMap = Eigen::Map<const RowMat, 0, Eigen::OuterStride<>>;
using Map = Eigen::Map<RowMat, 0, Eigen::OuterStride<>>;

void gemm_block(int m, int n, int k, const float* a, int lda, const float* b, int ldb, float* c, int ldc, bool acc) {
  ConstMap A(a, m, k, Eigen::OuterStride<>(lda));
  ConstMap B(b, k, n, Eigen::OuterStride<>(ldb));
  Map C(c, m, n, Eigen::OuterStride<>(ldc));
  if (acc) C.noalias() += A * B;
  else C.noalias() = A * B;
}

// Split columns in multiples of 16 floats (one AVX-512 vector) so halves stay aligned.
constexpr int kColumnGrain = 16;

}  // namespace

void native_gemm(int threads, int m, int n, int k, const float* a, int lda, const float* b, int ldb, float* c, int ldc,
                 bool accumulate) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {
    if (!accumulate)
      for (int i = 0; i < m; ++i) std::fill(c + int64_t(i) * ldc, c + int64_t(i) * ldc + n, 0.f);
    return;
  }
  if (n >= m || n >= 2 * kColumnGrain) {
    parallel_for(threads, n, kColumnGrain, [&](int64_t j0, int64_t j1) {
      gemm_block(m, int(j1 - j0), k, a, lda, b + j0, ldb, c + j0, ldc, accumulate);
    });
  } else {
    parallel_for(threads, m, 4, [&](int64_t i0, int64_t i1) {
      gemm_block(int(i1 - i0), n, k, a + i0 * lda, lda, b, ldb, c + i0 * ldc, ldc, accumulate);
    });
  }
}

}  // namespace lw
