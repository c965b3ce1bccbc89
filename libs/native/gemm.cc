// The native GEMM: Eigen's single-threaded kernel on blocks split over the pinned thread set.
// Eigen packs its panels in stack buffers up to EIGEN_STACK_ALLOCATION_LIMIT; raising the
// limit keeps run() free of heap allocation for the block sizes Eigen picks here
// (kc x mc + kc x nc floats, well under 2 MiB; threads have 8 MiB stacks).
#define EIGEN_STACK_ALLOCATION_LIMIT (2 * 1024 * 1024)
#include <Eigen/Core>

#include "libs/native/kernels.h"
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

namespace native {
namespace {

// Eigen's own GEMM building blocks (GeneralMatrixMatrix.h) in its column-major view, where
// row-major C = A * B is C^T = B^T * A^T: B^T is Eigen's left operand, A^T its right.
using Index = Eigen::Index;
using Traits = Eigen::internal::gebp_traits<float, float>;
using LhsMapper = Eigen::internal::const_blas_data_mapper<float, Index, Eigen::ColMajor>;
using ResMapper = Eigen::internal::blas_data_mapper<float, Index, Eigen::ColMajor>;
using PackLhs = Eigen::internal::gemm_pack_lhs<float, Index, LhsMapper, Traits::mr, Traits::LhsProgress,
                                               Traits::LhsPacket4Packing, Eigen::ColMajor>;
using PackRhs = Eigen::internal::gemm_pack_rhs<float, Index, LhsMapper, Traits::nr, Eigen::ColMajor>;
using Gebp = Eigen::internal::gebp_kernel<float, float, Index, ResMapper, Traits::mr, Traits::nr, false, false>;

}  // namespace

void native_gemm_pack_b(int n, int k, const float* b, int ldb, float* packed) {
  PackLhs()(packed, LhsMapper(b, ldb), k, n);
}

void native_gemm_packed_b(int m, int n, int k, const float* a, int lda, const float* packed_b, float* c, int ldc,
                          float* a_buffer) {
  for (int i = 0; i < m; ++i) std::fill(c + int64_t(i) * ldc, c + int64_t(i) * ldc + n, 0.f);
  if (m <= 0 || n <= 0 || k <= 0) return;
  PackRhs()(a_buffer, LhsMapper(a, lda), k, m);
  Gebp()(ResMapper(c, ldc), packed_b, a_buffer, n, k, m, 1.f);
}

}  // namespace native
}  // namespace lw
